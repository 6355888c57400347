#!/bin/sh
# Which kernel source a build takes, said in one line, and the check of
# your kernel tree (LINUX_TREE, made by make linux-tree):
#   kernel-source.sh id      "series <sha256>": Debian's tarball and the
#                            patches/linux/ series; "tree <dir>": LINUX_TREE
#   kernel-source.sh check   LINUX_TREE is a git tree based on the pinned
#                            tarball, or an error that says what to do
#   kernel-source.sh stale OUT   the kernel package of output OUT (linux
#                            or linux-um) if it was built from another
#                            source than id names, else nothing
#   kernel-source.sh keep OUT PKG   after stale: PKG's build directory
#                            stays if the new source is your tree, the
#                            tree builds in that directory (PKG-custom)
#                            and it lists its former source's files (then
#                            synced by content at PKG's rsync); exit 1:
#                            extract again (dirclean)
#   kernel-source.sh list SRC [RSYNC OPTION...]   the source files of SRC
#   kernel-source.sh sync TREE DIR [RSYNC OPTION...]   PKG's rsync step,
#                            before Buildroot's (which copies by date):
#                            the files of DIR's former source that TREE
#                            lacks go; after keep, each file of TREE whose
#                            content differs is copied (a file with the
#                            same content keeps its date, so Kbuild
#                            rebuilds only what changed)
# Environment: LINUX_TREE (empty or unset: the tarball and the series).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${LINUX_TREE:-}
me=kernel-source
# shellcheck source=support/lib.sh
. "$top/support/lib.sh"

# The pinned tarball's sha256 (patches/linux/linux.hash)
tarball_sha256() {
	awk '$1 == "sha256" && $3 ~ /\.tar\.xz$/ { print $2 }' "$top/patches/linux/linux.hash"
}

id() {
	if [ -n "$tree" ]; then
		echo "tree $(cd "$tree" && pwd)"
	else
		echo "series $(cat "$top"/patches/linux/*.patch | sha256sum | cut -d' ' -f1)"
	fi
}

check() {
	[ -n "$tree" ] || return 0
	make_it="make linux-tree LINUX_TREE=$tree makes one"
	[ -d "$tree" ] || die "LINUX_TREE=$tree does not exist" "$make_it"
	git -C "$tree" rev-parse --git-dir >/dev/null 2>&1 ||
		die "LINUX_TREE=$tree is not a git tree" "$make_it (in a new directory)"
	sha=$(tarball_sha256)
	if ! base=$(git -C "$tree" rev-parse -q --verify 'refs/tags/rust-qemu-base^{commit}') ||
		! git -C "$tree" log -2 --format=%B "$base" | grep -qF "sha256 $sha" ||
		! git -C "$tree" merge-base --is-ancestor "$base" HEAD; then
		die "LINUX_TREE=$tree is not based on the pinned kernel: no tag rust-qemu-base" \
			"naming the tarball's sha256 $sha (patches/linux/linux.hash) below HEAD." \
			"$make_it (in a new directory)"
	fi
}

stale() {
	out=$1
	recorded=$(cat "$out/.rust-qemu-kernel-source" 2>/dev/null) || return 0
	[ "$recorded" != "$(id)" ] || return 0
	if grep -q '^BR2_PACKAGE_LINUX_UM=y' "$out/.config"; then echo linux-um; else echo linux; fi
}

# The build directory of a kernel package in OUT, which lists its source's
# files (written at its patch or rsync step)
SOURCE_FILES=.rust-qemu-source-files
RESYNC=.rust-qemu-resync
# Only <pkg>-custom: Buildroot builds a kernel from your tree there (an
# override's version is "custom"), and both kernel packages their tarball
# too (version "custom"); an output built before linux-um's was is
# extracted again (dirclean).
keep() {
	dir=$1/build/$2-custom
	[ -n "$tree" ] && [ -f "$dir/$SOURCE_FILES" ] || return 1
	touch "$dir/$RESYNC"
	say "$dir stays: synced from $tree by content (a changed file is rebuilt)"
}

list() {
	src=$1
	shift
	empty=$(mktemp -d)
	rsync -rln --out-format=%n "$@" "$src/" "$empty/" | grep -v '/$' | LC_ALL=C sort
	rmdir "$empty"
}

sync() {
	from=$1 dir=$2
	shift 2
	[ -f "$dir/$SOURCE_FILES" ] || return 0
	new=$(mktemp)
	list "$from" "$@" >"$new"
	LC_ALL=C comm -23 "$dir/$SOURCE_FILES" "$new" | while IFS= read -r f; do
		echo "deleted in $from: $f"
		rm -f "$dir/$f"
	done
	rm -f "$new"
	[ -f "$dir/$RESYNC" ] || return 0
	rsync -rlpc --chmod=u=rwX,go=rX "$@" "$from/" "$dir/"
	rm -f "$dir/$RESYNC"
}

case ${1:-} in
id) id ;;
check) check ;;
stale) stale "${2:?usage: kernel-source.sh stale OUT}" ;;
keep) keep "${2:?usage: kernel-source.sh keep OUT PKG}" "${3:?usage: kernel-source.sh keep OUT PKG}" ;;
list)
	shift
	[ $# -ge 1 ] || die "usage: kernel-source.sh list SRC [RSYNC OPTION...]"
	list "$@"
	;;
sync)
	shift
	[ $# -ge 2 ] || die "usage: kernel-source.sh sync TREE DIR [RSYNC OPTION...]"
	sync "$@"
	;;
*) die "usage: kernel-source.sh id|check|stale OUT|keep OUT PKG|list SRC|sync TREE DIR" ;;
esac
