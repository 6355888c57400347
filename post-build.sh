#!/bin/sh
# Every defconfig's BR2_ROOTFS_POST_BUILD_SCRIPT: the image's own identity,
# /etc/rust-qemu-release, which the harness reads for "what ran" (results,
# arch matrix) instead of working it out again on the host, and the runner
# checks before it loads a module (this is the test image): the defconfig
# and output, the guest machine the manifest's arch lines name
# (BR2_PACKAGE_RUST_TESTS_MACHINE), the kernel's source
# (linux/kernel-source.sh id) and release,
# and the kernel's compilers as its .config recorded them (same keys),
# with bindgen's libclang as the build recorded it (linux/rust-kernel.mk).
# Arguments: $1 the target directory, $2 the defconfig
# (BR2_ROOTFS_POST_SCRIPT_ARGS); Buildroot's BASE_DIR, BUILD_DIR, BR2_CONFIG.
set -eu

release=$1/etc/rust-qemu-release
kconfig=
for c in "$BUILD_DIR"/linux-*/.config; do
	[ -f "$c" ] && kconfig=$c && break
done
if [ -z "$kconfig" ]; then
	echo "post-build.sh: no kernel .config in $BUILD_DIR/linux-*/" >&2
	exit 1
fi
k=${kconfig%/.config}
{
	echo "RUST_QEMU_DEFCONFIG=\"$(basename "$2")\""
	echo "RUST_QEMU_OUTPUT=\"$(basename "$BASE_DIR")\""
	sed -n 's/^BR2_PACKAGE_RUST_TESTS_MACHINE=/RUST_QEMU_MACHINE=/p' "$BR2_CONFIG"
	echo "RUST_QEMU_KERNEL_SOURCE=\"$(cat "$BASE_DIR/.rust-qemu-kernel-source")\""
	echo "RUST_QEMU_KERNEL_RELEASE=\"$(cat "$k/include/config/kernel.release")\""
	echo "RUST_QEMU_LIBCLANG=\"$(cat "$k/.rust-qemu-libclang" 2>/dev/null || :)\""
	grep -E '^CONFIG_(CC_VERSION_TEXT|CC_IS_GCC|GCC_VERSION|CC_IS_CLANG|CLANG_VERSION|RUST|RUSTC_VERSION_TEXT|BINDGEN_VERSION_TEXT)=' "$kconfig"
} >"$release.tmp"
mv "$release.tmp" "$release"
