#!/bin/sh
# Download the packages of debian-cross.debs into CACHE/debian-cross
# (idempotent, checked against the pinned sha256). apt works on a private
# list directory with a 'deb' line of the package's suite: the host's apt
# sources never see that suite, and nothing is installed.
# Usage: fetch-debs.sh CACHE
set -eu

here=$(cd "$(dirname "$0")" && pwd)
dest=$1/debian-cross
mkdir -p "$dest"

# The wanted .debs that are not in the cache yet, as "suite package=version".
todo=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/debian-cross.debs" |
	while read -r _ suite pkg ver sum; do
		f=$dest/${pkg}_${ver}_all.deb
		[ -f "$f" ] && echo "$sum  $f" | sha256sum -c --status && continue
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

sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/debian-cross.debs" |
	while read -r _ _ pkg ver sum; do
		f=${pkg}_${ver}_all.deb
		[ -f "$apt/$f" ] || continue
		if ! echo "$sum  $apt/$f" | sha256sum -c --status; then
			echo "fetch-debs.sh: $f does not have the sha256 pinned in debian-cross.debs" >&2
			exit 1
		fi
		mv "$apt/$f" "$dest/$f"
	done
