#!/bin/sh
# The rustc versions of rust.debs (beside this file), each unpacked into
# CACHE/toolchains/rust-<version>/ with bin/rustc and bin/rustdoc, which
# run it with its own libraries; the installed rustc is left alone.
# Idempotent. Usage: install-rust.sh CACHE
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cache=$1
debs=$cache/debian-rust
"$here/../fetch-debs.sh" "$here/rust.debs" "$debs"
multiarch=$(gcc -print-multiarch)

entries() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/rust.debs"; }
versions=$(entries | cut -d' ' -f1 | sort -u)
for v in $versions; do
	dir=$cache/toolchains/rust-$v
	case $("$dir/bin/rustc" --version 2>/dev/null) in "rustc $v "*) continue ;; esac
	echo ">>> setup: rustc $v into $dir"
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp/bin"
	entries | while read -r ver _ pkg debver _; do
		[ "$ver" = "$v" ] || continue
		dpkg-deb -x "$debs/${pkg}_${debver}_"*.deb "$dir.tmp/root"
	done
	for tool in rustc rustdoc; do
		cat >"$dir.tmp/bin/$tool" <<-WRAPPER
			#!/bin/sh
			# $tool $v of Debian 12's rustc-web (support/toolchains/rust.debs), with its libraries
			LD_LIBRARY_PATH=$dir/root/usr/lib/$multiarch\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} \\
				exec $dir/root/usr/bin/$tool "\$@"
		WRAPPER
		chmod +x "$dir.tmp/bin/$tool"
	done
	mv "$dir.tmp" "$dir"
	"$dir/bin/rustc" --version
done
