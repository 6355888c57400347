#!/bin/sh
# Validates the LAVA files of make lava-jobs with Debian 12's LAVA: every
# job against lava-common's job schema (strict), every device file against
# its device schema, and, as root (Debian 12's lava-run runs as root
# only), each job's pipeline as a dispatcher builds it (lava-run
# --validate). Proves the schema can say no: a job with a broken field
# must be rejected. And each job's monitor, with Python's re as LAVA's
# pexpect uses it, on console text as LAVA reads it from QEMU's pty
# (lines end "\r\r\n"): the end matches the sentinel's line only once
# its newline is there (before, LAVA would stop reading mid-line and
# lose it), and the pattern takes top-level results, not nested or
# skipped ones.
# Usage: lava-validate.sh DIR   (DIR/<arch>/{job.yaml,device.yaml})
set -eu

dir=${1:?usage: lava-validate.sh DIR}
# Debian's python3, whose modules lava-common installs (not a pyenv's)
python=/usr/bin/python3
"$python" -c 'import lava_common.schemas' 2>/dev/null ||
	{ echo "lava-validate: no lava-common (Debian's python3-lava-common schemas): run make setup" >&2; exit 1; }
set -- "$dir"/*/job.yaml
[ -f "$1" ] || { echo "lava-validate: no job in $dir (make lava-jobs)" >&2; exit 1; }

# validate keep|break FILE...: exit 0 if all are valid; break: first
# break each job's timeout
validate() {
	"$python" - "$@" <<'PY'
import sys, yaml
from lava_common.schemas import device, validate
for path in sys.argv[2:]:
    data = yaml.safe_load(open(path))
    if path.endswith("/device.yaml"):
        device.validate(data)
        continue
    if sys.argv[1] == "break":
        data["timeouts"]["job"] = {"minutes": "ten"}
    validate(data, strict=True)
    print("valid LAVA job:", path)
PY
}
validate keep "$@" "$dir"/*/device.yaml
echo "lava-validate: $# device files valid"
"$python" - "$@" <<'PY'
import re, sys, yaml
for path in sys.argv[1:]:
    monitor = yaml.safe_load(open(path))["actions"][2]["test"]["monitors"][0]
    end, pattern = monitor["end"], monitor["pattern"]
    sentinel = "[   9.1] rust-tests: # rust-qemu: end exit=0"
    checks = [
        (re.search(end, sentinel + "\r\r\n"), "the sentinel's line"),
        (not re.search(end, sentinel + "\r"), "no end before the newline"),
        (re.search(pattern, "rust-tests: ok 6 rust_minimal\r\r\n"), "a result"),
        (not re.search(pattern, "rust-tests:     ok 1 load\r\r\n"), "no nested result"),
        (not re.search(pattern, "rust-tests: ok 7 rust_x # SKIP only on arm\r\r\n"), "no skip"),
    ]
    for ok, what in checks:
        if not ok:
            sys.exit(f"lava-validate: {path}: monitor: {what}: end {end!r}, pattern {pattern!r}")
print(f"lava-validate: the monitors of {len(sys.argv) - 1} jobs read the console as LAVA gets it")
PY
if validate break "$1" >/dev/null 2>&1; then
	echo "lava-validate: a job with a broken timeout passed the schema" >&2
	exit 1
fi
echo "lava-validate: a job with a broken timeout is rejected, as it must be"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP lava-run --validate: Debian 12's lava-run runs as root only (you are $(id -un)); the schemas above were checked"
	exit 0
fi
command -v lava-run >/dev/null ||
	{ echo "lava-validate: no lava-run (Debian's lava-dispatcher): run make setup" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for job; do
	arch=$(basename "$(dirname "$job")")
	if ! lava-run --validate --job-id "validate-$arch" --output-dir "$work/$arch" \
		--device "$(dirname "$job")/device.yaml" "$job" >"$work/$arch.log" 2>&1; then
		grep -h '"error"\|error_msg' "$work/$arch.log" | tail -n 5
		echo "lava-validate: lava-run --validate refused $job" >&2
		exit 1
	fi
	echo "lava-run --validate: $arch ok"
done
