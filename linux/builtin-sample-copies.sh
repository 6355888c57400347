#!/bin/sh
# Link copies of a Rust sample into the kernel image, the way
# Rust-for-Linux's CI tested built-in module parameters:
#   builtin-sample-copies.sh <linux-source-dir> <sample> <suffix>...
# adds samples/rust/<sample>_<suffix>.rs, the sample with every
# "<sample>" renamed, and "obj-y += <sample>_<suffix>.o" to the Makefile.
# Idempotent: a copy is written only when it changed (a rebuild from your
# kernel tree runs it again: linux/rust-kernel.mk).
set -eu

dir=$1/samples/rust
sample=$2
shift 2
if [ ! -f "$dir/$sample.rs" ]; then
	echo "builtin-sample-copies.sh: no $dir/$sample.rs (is patches/linux/ applied?)" >&2
	exit 1
fi
for suffix in "$@"; do
	copy=${sample}_$suffix
	sed "s/\<$sample\>/$copy/g" "$dir/$sample.rs" >"$dir/$copy.rs.new"
	if cmp -s "$dir/$copy.rs.new" "$dir/$copy.rs"; then
		rm "$dir/$copy.rs.new"
	else
		mv "$dir/$copy.rs.new" "$dir/$copy.rs"
	fi
	grep -qx "obj-y += $copy.o" "$dir/Makefile" ||
		echo "obj-y += $copy.o" >>"$dir/Makefile"
done
