#!/bin/sh
# make linux-tree [LINUX_TREE=<dir>]: your kernel tree, a git tree of the
# kernel every defconfig builds: Debian's tarball as pinned
# (patches/linux/linux.hash), a commit of the tree's own that lets git see
# new files (Debian's .gitignore ignores the whole top level), tag
# rust-qemu-base, then one commit per patch of patches/linux/ (git am:
# author, date, message), tag rust-qemu-series.
# Again on an existing tree: nothing if it holds the series; the series
# again if patches/linux/ changed and the tree has nothing of its own;
# refused, with nothing lost, if it has uncommitted changes or commits of
# its own. Usage: linux-tree.sh DIR
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: linux-tree.sh DIR}
# shellcheck source=support/versions.env
. "$top/support/versions.env"
tarball=/usr/src/$(awk '$1 == "sha256" && $3 ~ /\.tar\.xz$/ { print $3 }' "$top/patches/linux/linux.hash")
sha=$(awk '$1 == "sha256" && $3 ~ /\.tar\.xz$/ { print $2 }' "$top/patches/linux/linux.hash")

me=linux-tree
# shellcheck source=support/lib.sh
. "$top/support/lib.sh"

# The tree's commits are the same on every machine: one identity and the
# patches' own dates (git am --committer-date-is-author-date).
export GIT_AUTHOR_NAME="br-rust-qemu" GIT_AUTHOR_EMAIL="br-rust-qemu@localhost"
export GIT_COMMITTER_NAME="br-rust-qemu" GIT_COMMITTER_EMAIL="br-rust-qemu@localhost"
g() { git -C "$dir" "$@"; }

# apply_series: the patches of patches/linux/ on the base, tagged
apply_series() {
	g am -q --committer-date-is-author-date "$top"/patches/linux/*.patch ||
		die "a patch of patches/linux/ does not apply (git -C $dir am --show-current-patch)"
	g tag -f rust-qemu-series >/dev/null
	say "$dir: $(g rev-list --count rust-qemu-base..HEAD) commits on rust-qemu-base (Debian's $LINUX_SOURCE_VERSION)"
}

if [ -e "$dir" ]; then
	LINUX_TREE=$dir "$top/linux/kernel-source.sh" check
	[ -z "$(g status --porcelain)" ] ||
		die "$dir has uncommitted changes: commit them (then make linux-patches) or stash them; nothing was changed"
	if "$top/utils/linux-patches.sh" --same "$dir"; then
		g tag -f rust-qemu-series >/dev/null
		say "$dir holds patches/linux/ already: nothing to do"
		exit 0
	fi
	[ "$(g rev-parse HEAD)" = "$(g rev-parse -q --verify 'rust-qemu-series^{commit}')" ] ||
		die "$dir has commits of its own (git -C $dir log --oneline rust-qemu-series..HEAD):" \
			"make linux-patches writes them into patches/linux/; nothing was changed"
	say "patches/linux/ changed: the series again on rust-qemu-base"
	g checkout -q --detach rust-qemu-base
	g branch -f -q main rust-qemu-base
	g checkout -q main
	apply_series
	exit 0
fi

[ -r "$tarball" ] || die "$tarball is missing: apt-get install linux-source-6.12=$LINUX_SOURCE_VERSION"
echo "$sha  $tarball" | sha256sum -c --quiet - ||
	die "$tarball is not the pinned one (patches/linux/linux.hash)"
say "$tarball into $dir"
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
tar -xf "$tarball" -C "$dir.tmp" --strip-components=1
dir=$dir.tmp
g init -q -b main
g add -A -f .
date="$(date -u -r "$tarball" '+%Y-%m-%d %H:%M:%S') +0000"
GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date g commit -q -m "Debian linux-source-6.12 $LINUX_SOURCE_VERSION" \
	-m "${tarball##*/}, sha256 $sha (patches/linux/linux.hash), as Buildroot extracts it."
# Debian packaging's rule "/*" (with "!/debian/") ignores every file at the
# top level: a new file of yours would be left out of git add -A, and so
# of make linux-patches. Not exported: rust-qemu-base is this commit.
sed -i -e '\|^/\*$|d' -e '\|^!/debian/$|d' "$dir/.gitignore"
GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date g commit -q -a -m "linux-tree: git sees new files again" \
	-m "Debian packaging's .gitignore ignores the whole top level (\"/*\"), which would leave new files out of git add -A. This commit is the tree's own: make linux-patches exports the commits after it (tag rust-qemu-base)."
g tag rust-qemu-base
apply_series
mv "$dir" "${dir%.tmp}"
say "build every defconfig from it: make LINUX_TREE=${dir%.tmp} ... (make retest ARCH=all LINUX_TREE=...)"
