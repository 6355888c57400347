#!/bin/sh
# Validates a KCIDB document with kcidb-io's own validator (the latest
# schema it knows; pinned: KCIDB_IO_VERSION, installed by setup-host.sh),
# and proves the validator can say no: a copy with one test's status
# broken must be rejected.
# Usage: kcidb-validate.sh DOCUMENT
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=support/versions.env
. "$top/support/versions.env"
doc=${1:?usage: kcidb-validate.sh DOCUMENT}
me=kcidb-validate
# shellcheck source=support/lib.sh
. "$top/support/lib.sh"
python=$RUST_QEMU_CACHE/host/kcidb-io-$KCIDB_IO_VERSION/bin/python
[ -x "$python" ] || { echo "kcidb-validate: no kcidb-io $KCIDB_IO_VERSION ($python): run make setup" >&2; exit 1; }

# validate FILE [BREAK]: exit 0 if valid; BREAK: first break a test's status
validate() {
	"$python" - "$@" <<'PY'
import json, sys
import kcidb_io
doc = json.load(open(sys.argv[1]))
if len(sys.argv) > 2:
    doc["tests"][0]["status"] = "BROKEN"
kcidb_io.schema.LATEST.validate(doc)
print(f"valid KCIDB {kcidb_io.schema.LATEST}: {len(doc['builds'])} builds, {len(doc['tests'])} tests")
PY
}
validate "$doc"
if validate "$doc" break >/dev/null 2>&1; then
	echo "kcidb-validate: a document with a broken test status passed the validator" >&2
	exit 1
fi
echo "kcidb-validate: a broken status is rejected, as it must be"
