#!/bin/sh
# The edit -> result loop (make retest [ARCH=x86_64]): rebuild what changed
# in an arch's existing output, then boot it in quick mode and print the
# results. A changed patch series (patches/linux/) re-extracts and
# re-patches the kernel (linux-dirclean), as Buildroot needs; a changed
# .rs or .c in the kernel tree is rebuilt incrementally (<pkg>-rebuild),
# the out-of-tree module packages, the on-target runner and its manifest
# too; the root filesystem image is
# made again (modules). The compiler cache
# makes a re-patched kernel's unchanged C objects cheap.
# Usage: support/scripts/retest.sh ARCH [HARNESS ARGS...]
set -eu

cd "$(dirname "$0")/../.."
arch=${1:?usage: retest.sh ARCH [harness run arguments]}
shift
harness() { cargo run -q --release -p rust-qemu-test -- "$@"; }

defconfig=$(harness list | awk -v a="$arch" '$1 == a { print $2 }')
if [ -z "$defconfig" ]; then
	echo "retest: no arch '$arch'; the arches are: $(harness list | cut -d' ' -f1 | tr '\n' ' ')" >&2
	exit 2
fi
out=output/$defconfig
if [ ! -f "$out/.config" ]; then
	echo "retest: $out is not built: run 'make $defconfig && make' first" >&2
	exit 2
fi
# The kernel package: Buildroot's linux, or linux-um (UML).
kernel=linux
grep -q '^BR2_PACKAGE_LINUX_UM=y' "$out/.config" && kernel=linux-um

start=$(date +%s)
# The series the kernel was patched with: recorded by a post-patch hook
# (external.mk, RUST_QEMU_PATCH_SERIES).
series=$(cat patches/linux/*.patch | sha256sum | cut -d' ' -f1)
if [ "$(cat "$out/.rust-qemu-patch-series" 2>/dev/null)" != "$series" ]; then
	echo ">>> retest: patches/linux/ changed: $kernel-dirclean (the kernel is extracted and patched again)"
	make O="$(pwd)/$out" "$kernel-dirclean"
fi
# rust-tests too: its source (package/rust-tests/src, the runner and the
# manifest) is copied into the output only by a (re)build; and every
# out-of-tree module package of the output (kernel-module infrastructure,
# e.g. rust-module-example), against the rebuilt kernel
# shellcheck disable=SC2016 # the make expression, literally
modules=$(grep -lF '$(eval $(kernel-module))' package/*/*.mk | while read -r mk; do
	pkg=$(basename "$mk" .mk)
	sym=BR2_PACKAGE_$(echo "$pkg" | tr a-z- A-Z_)
	if grep -q "^$sym=y" "$out/.config"; then echo "$pkg-rebuild"; fi
done)
# shellcheck disable=SC2086 # one goal per word
make O="$(pwd)/$out" "$kernel-rebuild" $modules rust-tests-rebuild all
echo ">>> retest: $arch rebuilt in $(($(date +%s) - start)) s"
harness run --arch "$arch" --kernel-arg rusttest=quick "$@"
