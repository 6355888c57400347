#!/bin/sh
# Validates the LAVA files of make lava-jobs with Debian 12's LAVA: every
# job against lava-common's job schema (strict), every device file against
# its device schema, and, as root (Debian 12's lava-run runs as root
# only), each job's pipeline as a dispatcher builds it (lava-run
# --validate). Proves the schema can say no: a job with a broken field
# must be rejected.
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
