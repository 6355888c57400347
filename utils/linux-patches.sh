#!/bin/sh
# make linux-patches [LINUX_TREE=<dir>]: your kernel tree's commits since
# rust-qemu-base (make linux-tree) as the series' files of patches/linux/,
# numbered in order (git format-patch), which stays the one source of
# truth; files of patches that are gone are removed. The tree must be
# clean (uncommitted changes are not in a commit). Format: one patch per
# file, "[PATCH]" subjects, a zero "From" line and no signature, so that a
# tree made from patches/linux/ gives the same files back.
# Usage: linux-patches.sh [--same] DIR   (--same: exit 0 if the tree's
# commits are patches/linux/ already, 1 if not; nothing written)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
same=
if [ "${1:-}" = --same ]; then
	same=1
	shift
fi
dir=${1:?usage: linux-patches.sh [--same] DIR}
series=$top/patches/linux

me=linux-patches
# shellcheck source=support/lib.sh
. "$top/support/lib.sh"

LINUX_TREE=$dir "$top/linux/kernel-source.sh" check
[ -n "$same" ] || [ -z "$(git -C "$dir" status --porcelain)" ] ||
	die "$dir has uncommitted changes: commit them first (nothing was written)"
new=$(mktemp -d)
trap 'rm -rf "$new"' EXIT
git -C "$dir" -c core.abbrev=9 format-patch -q --zero-commit --no-signature -N \
	-o "$new" rust-qemu-base..HEAD
if [ -n "$same" ]; then
	diff -r -q -x STATUS.md -x linux.hash "$series" "$new" >/dev/null
	exit
fi
if diff -r -q -x STATUS.md -x linux.hash "$series" "$new" >/dev/null; then
	echo ">>> linux-patches: patches/linux/ holds the commits of $dir already"
	exit 0
fi
rm -f "$series"/*.patch
cp "$new"/*.patch "$series"/
git -C "$dir" tag -f rust-qemu-series >/dev/null
set -- "$new"/*.patch
echo ">>> linux-patches: patches/linux/ now holds the $# commits of $dir (git status patches/)"
for p; do
	n=${p##*/}
	n=${n%%-*}
	grep -q "^| $n |" "$series/STATUS.md" ||
		echo ">>> linux-patches: patches/linux/STATUS.md has no row for ${p##*/}: add one (what it ports, from where)"
done
