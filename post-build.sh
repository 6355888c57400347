#!/bin/sh
# Buildroot's post-build script (BR2_ROOTFS_POST_BUILD_SCRIPT of every
# defconfig): runs once the target directory is assembled, before the
# filesystem images. Every kernel module the boot tests load (a test with
# a "load" or "cycle" line in the runner's manifest, or in a file of the
# directories it includes: other packages' tests) must be in the target's
# /lib/modules: a sample the kernel configuration lost, or a module
# package that installed nothing, stops the build here, naming it, not the
# boot tests after a boot.
# Arguments: $1 the target directory (then BR2_ROOTFS_POST_SCRIPT_ARGS).
set -eu

target=$1
manifest=$target/usr/share/rust-tests/manifest
[ -f "$manifest" ] || exit 0

# manifests FILE: FILE and the files of the directories it includes
manifests() {
	echo "$1"
	sed -n 's/^include[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' "$1" | while read -r dir; do
		for f in "${1%/*}/$dir"/*; do
			case ${f##*/} in .* | *~) ;; *) [ -f "$f" ] && echo "$f" ;; esac
		done
	done
}

# loaded MANIFEST...: the modules of the tests that load one
loaded() {
	awk '$2 == "load" || $2 == "cycle" { sub(/@.*/, "", $1); print $1 }' "$@" | sort -u
}

missing=
# shellcheck disable=SC2046 # one manifest per line, no spaces in them
for module in $(loaded $(manifests "$manifest")); do
	if [ -z "$(find "$target/lib/modules" -name "$module.ko*" 2>/dev/null)" ]; then
		missing="$missing $module"
	fi
done
if [ -n "$missing" ]; then
	echo "post-build.sh: the boot tests load modules this image does not have:$missing" >&2
	echo "  (their samples' CONFIG_SAMPLE_RUST_* in the kernel configuration, or their packages)" >&2
	exit 1
fi
echo "post-build.sh: every module the boot tests load is installed"
