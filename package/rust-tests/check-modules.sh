#!/bin/sh
# The image's list of its boot tests, and a check of it. The manifest
# (with the files of manifest.d/ other packages installed) is read by the
# runner's own parser, built for the build host (manifest-list), for
# MACHINE (the guest's `uname -m`, which the manifest's arch lines name):
# its listing goes into the image beside the manifest
# (usr/share/rust-tests/manifest.list), where the harness reads which tests
# the image must report, their lines and kinds. Then every module the tests
# that run there load must be in the target's /lib/modules: a sample the
# kernel configuration lost, or a module package that installed nothing,
# stops the build here, naming it, not the boot tests after a boot.
# Usage: check-modules.sh TARGET_DIR MANIFEST_LIST MACHINE
set -eu

target=$1
list=$2
machine=$3
[ -n "$machine" ] || {
	echo "rust-tests: no machine: BR2_PACKAGE_RUST_TESTS_MACHINE is empty (a configuration made before" \
		"the option existed: make olddefconfig, or make <defconfig> again)" >&2
	exit 1
}
manifest=$target/usr/share/rust-tests/manifest
# origins relative to the target (usr/share/rust-tests/manifest:<line>)
(cd "$target" && "$list" usr/share/rust-tests/manifest "$machine") >"$manifest.list" ||
	{ echo "rust-tests: $manifest is not a valid manifest (above)" >&2; rm -f "$manifest.list"; exit 1; }
modules=$(sed -n 's/^module //p' "$manifest.list" | sort -u)
missing=
for module in $modules; do
	if [ -z "$(find "$target/lib/modules" -name "$module.ko*" 2>/dev/null)" ]; then
		missing="$missing $module"
	fi
done
if [ -n "$missing" ]; then
	echo "rust-tests: the boot tests load modules this image does not have:$missing" >&2
	echo "  (their samples' CONFIG_SAMPLE_RUST_* in the kernel configuration, or their packages)" >&2
	exit 1
fi
echo "rust-tests: every module the boot tests load on $machine is installed"
