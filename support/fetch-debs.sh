#!/bin/sh
# Download the Debian packages of a list into a directory of the cache
# (idempotent, each checked against its pinned sha256). apt works on a
# private list directory with a 'deb' line of each package's suite: the
# host's apt sources never see that suite, and nothing is installed.
# LIST: "<tag> <suite> <package> <version> <sha256>" per line, # comments
# (toolchain/toolchain-external-debian-cross/debian-cross.debs,
# support/toolchains/rust.debs).
# Usage: fetch-debs.sh LIST DEST
set -eu

list=$1
dest=$2
mkdir -p "$dest"
entries() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list"; }
# the .deb of package $1, version $2 in directory $3 (any architecture)
deb() { set -- "$3/${1}_${2}_"*.deb && [ -f "$1" ] && echo "$1"; }

# The wanted .debs that are not in DEST yet, as "suite package=version".
todo=$(entries | while read -r _ suite pkg ver sum; do
	f=$(deb "$pkg" "$ver" "$dest") && echo "$sum  $f" | sha256sum -c --status && continue
	echo "$suite $pkg=$ver"
done)
[ -z "$todo" ] && exit 0

apt=$(mktemp -d)
trap 'rm -rf "$apt"' EXIT
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
for suite in $(echo "$todo" | cut -d' ' -f1 | sort -u); do
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main"
done >"$apt/sources.list"
set -- -q -o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
	-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o Debug::NoLocking=1 \
	-o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false \
	-o APT::Sandbox::User="$(id -un)"
apt-get "$@" update >/dev/null
# shellcheck disable=SC2046
(cd "$apt" && apt-get "$@" download $(echo "$todo" | cut -d' ' -f2))

entries | while read -r _ _ pkg ver sum; do
	f=$(deb "$pkg" "$ver" "$apt") || continue
	if ! echo "$sum  $f" | sha256sum -c --status; then
		echo "fetch-debs.sh: ${f##*/} does not have the sha256 pinned in $list" >&2
		exit 1
	fi
	mv "$f" "$dest/"
done
