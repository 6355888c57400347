#!/bin/sh
# The edit -> result loop (make retest [ARCH=x86_64|all|<arch>,<arch>...]):
# the harness's retest (harness/src/plan.rs, lanes.rs). For each arch it
# rebuilds what changed in its existing output (the kernel incrementally:
# <kernel>-rebuild, from your kernel tree, LINUX_TREE, its changed files
# rsynced first; the out-of-tree module packages, the on-target runner and
# its manifest; the root filesystem image), boots it in quick mode while
# the next arch builds, then prints one table of every arch's results;
# exit non-zero if an arch failed (or, named in ARCH, was never built).
# When the kernel's source changed (patches/linux/ or LINUX_TREE), the
# wrapper extracts it again, or, for your tree, syncs the build directory
# by content (linux/kernel-source.sh).
# Usage: utils/retest.sh ARCHES [HARNESS RETEST ARGUMENTS...]
set -eu

cd "$(dirname "$0")/.."
arches=${1:?usage: retest.sh ARCH[,ARCH...]|all [harness retest arguments]}
shift
# each before the harness's arguments, in the order given
for arch in $(echo "$arches" | tr ',' '\n' | tac); do
	set -- --arch "$arch" "$@"
done
exec cargo run -q --release -p rust-qemu-test -- retest "$@"
