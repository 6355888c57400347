#!/bin/sh
# rustc with a cache of its outputs: the kernel's RUSTC (linux/rust-kernel.mk),
# what ccache is to its C. Usage: rustc-cache.sh ARGUMENTS...
# RUST_QEMU_RUSTC: the rustc; RUST_QEMU_RUSTC_CACHE_DIR: the cache (unset
# or empty: the rustc runs as is).
#
# Cached: a compilation whose every output is named (--emit=KIND=PATH, KIND
# dep-info, obj, metadata or link, dep-info among them), whose dep-info
# names the crates it uses too (-Zbinary_dep_depinfo=y, as the kernel's
# every rustc line) and that succeeds.
# Everything else (--version, --print, ...) runs the rustc as is.
# Looked up in two steps, as ccache's direct mode:
# - the invocation: the rustc's version and binary, the arguments, the
#   contents of the files they name (@file, --target=, the crate root) and
#   of the environment the kernel's proc macros read (RUST_MODFILE);
# - then the files the compilation read, as its dep-info listed them
#   (sources, include!d files, the crates' metadata: the kernel passes
#   -Zbinary_dep_depinfo=y) and its env-dep lines (env!): a stored
#   compilation matches when all of them are as they were.
# A hit copies the outputs back and replays what the rustc printed.
# The working directory (the kernel's objtree, where Buildroot builds it)
# is stored as @OBJTREE@, so a clone elsewhere hits the same entries.
set -eu
rustc=${RUST_QEMU_RUSTC:?rustc-cache.sh: no RUST_QEMU_RUSTC}
cache=${RUST_QEMU_RUSTC_CACHE_DIR:-}
[ -n "$cache" ] || exec "$rustc" "$@"

outputs=
depinfo=
binary=
for a; do
	case $a in
	-Zbinary_dep_depinfo=y | -Zbinary-dep-depinfo | -Zbinary-dep-depinfo=y) binary=y ;;
	--emit=dep-info=*) depinfo=${a#--emit=dep-info=} outputs="$outputs $depinfo" ;;
	--emit=obj=* | --emit=metadata=* | --emit=link=*) outputs="$outputs ${a#--emit=*=}" ;;
	--emit* | -o | -o?* | --print* | --test | -) exec "$rustc" "$@" ;;
	esac
done
if [ -z "$depinfo" ] || [ -z "$binary" ]; then exec "$rustc" "$@"; fi

# the working directory as @OBJTREE@ (to_stored) and back (from_stored);
# an output's file name in an entry
pattern=$(printf '%s' "$PWD" | sed 's/[][\.*^$|]/\\&/g')
replacement=$(printf '%s' "$PWD" | sed 's/[\&|]/\\&/g')
to_stored() { sed -e "s|$pattern/|@OBJTREE@/|g" -e "s|$pattern\$|@OBJTREE@|"; }
from_stored() { sed "s|@OBJTREE@|$replacement|g"; }
stored() { printf '%s' "$1" | tr '/' '%'; }

invocation=$(
	echo 'rustc-cache 1'
	"$rustc" -vV
	stat -L -c '%n %s %Y' "$(command -v "$rustc")"
	printf 'RUST_MODFILE=%s\nOBJTREE=%s\n' "${RUST_MODFILE-}" "${OBJTREE+set}"
	for a; do
		printf 'arg %s\n' "$a"
		f=${a#--target=}
		f=${f#@}
		case $f in -*) continue ;; esac
		[ ! -f "$f" ] || sha256sum <"$f"
	done | to_stored
)
key=$(printf '%s\n' "$invocation" | sha256sum | cut -c1-40)
dir=$cache/$(printf '%s' "$key" | cut -c1-2)/$key

# a hit: a stored compilation whose every file and env-dep is as it was
for entry in "$dir"/*/; do
	[ -f "$entry/ok" ] || continue
	from_stored <"$entry/files" | sha256sum --status -c - 2>/dev/null || continue
	while IFS='=' read -r name value; do
		[ "$(printenv "$name" | to_stored)" = "$value" ] || continue 2
	done <"$entry/env"
	for o in $outputs; do
		s=$entry/out/$(stored "$o")
		if [ "$o" = "$depinfo" ]; then from_stored <"$s" >"$o"; else cp "$s" "$o"; fi
	done
	cat "$entry/stderr" >&2
	touch "$entry"
	exit 0
done

# a miss: compile, then store what it read and wrote
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rc=0
"$rustc" "$@" 2>"$tmp/stderr" || rc=$?
cat "$tmp/stderr" >&2
[ "$rc" -eq 0 ] || exit "$rc"
# dep-info: "target: deps" rules, then one empty rule per file read
# (a space in a path is "\ "), and "# env-dep:NAME=VALUE" lines
# (a file it names that cannot be read: nothing stored)
sed -n 's/^\(\([^ :#]\|\\ \)*\):$/\1/p' "$depinfo" | sed 's/\\ / /g' |
	tr '\n' '\0' | xargs -0 -r sha256sum >"$tmp/sums" 2>/dev/null || exit 0
to_stored <"$tmp/sums" >"$tmp/files"
rm "$tmp/sums"
sed -n 's/^# env-dep:\([^=]*\)=/\1=/p' "$depinfo" | to_stored >"$tmp/env"
[ -s "$tmp/files" ] || exit 0
mkdir "$tmp/out"
for o in $outputs; do
	s=$tmp/out/$(stored "$o")
	if [ "$o" = "$depinfo" ]; then to_stored <"$o" >"$s"; else cp "$o" "$s"; fi
done
touch "$tmp/ok"
id=$(cat "$tmp/files" "$tmp/env" | sha256sum | cut -c1-40)
mkdir -p "$dir"
# one rename, so that a lookup never sees half an entry (the first wins)
mv -T "$tmp" "$dir/$id" 2>/dev/null || :
# entries unused for 14 days go (and what a killed compilation left), once a day
if [ -z "$(find "$cache/.trimmed" -mtime -1 2>/dev/null)" ]; then
	touch "$cache/.trimmed"
	find "$cache" -mindepth 3 -maxdepth 3 -type d -mtime +14 -exec rm -rf {} + 2>/dev/null || :
	find "$cache" -maxdepth 1 -name '.tmp.*' -mmin +60 -exec rm -rf {} + 2>/dev/null || :
fi
