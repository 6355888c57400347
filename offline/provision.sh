#!/bin/sh
# Provision the package sources of an offline Buildroot build from
# Debian's archive, as listed in offline/sources.tsv:
#   exact    -> CACHE_DIR/dl/<raw name>/<Buildroot's file name>
#   override -> CACHE_DIR/src/<package>/ (unpacked .orig + patches)
#   built    -> the same, then built once into CACHE_DIR/host-tools/<package>/
#   host     -> Debian's installed programs, checked
# Each .orig is located with apt (deb-src indexes) and downloaded by
# apt's own helper, which checks the SHA256 of the signed index; the
# .orig files are kept in CACHE_DIR/debian/. Idempotent: a second run
# only re-checks checksums and stamps.
# Usage: offline/provision.sh CACHE_DIR
# Environment: BUILDROOT_DIR (default CACHE_DIR/buildroot-<version of
# support/versions.env>), whose package/*/ patches and .hash files are used.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
tsv=$here/sources.tsv
localmk=$here/local.mk
apt_helper=/usr/lib/apt/apt-helper
tab=$(printf '\t')

me=offline
# shellcheck source=support/lib.sh
. "$top/support/lib.sh"

[ $# -eq 1 ] || die "usage: $0 CACHE_DIR"
mkdir -p "$1"
cache=$(cd "$1" && pwd)

if [ -z "${BUILDROOT_DIR:-}" ]; then
	[ -r "$top/support/versions.env" ] || die "no BUILDROOT_DIR and no $top/support/versions.env"
	BUILDROOT_VERSION=$(sed -n 's/^BUILDROOT_VERSION=//p' "$top/support/versions.env")
	BUILDROOT_DIR=$cache/buildroot-$BUILDROOT_VERSION
fi
br=$BUILDROOT_DIR
[ -d "$br/package" ] || die "Buildroot not found in $br (run support/setup-host.sh, or set BUILDROOT_DIR)"
[ -x "$apt_helper" ] || die "$apt_helper not found (Debian's apt package)"
command -v patch >/dev/null || die "patch not found: apt-get install patch"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

sha256() { sha256sum "$1" | cut -d' ' -f1; }

sources_hint="apt has no deb-src index for it. Run support/setup-host.sh (it installs support/apt.sources: deb-src for bookworm, bookworm-updates, bookworm-security, trixie), or, if those lines are already in /etc/apt/sources.list.d/, run: apt-get update"

# uri_of SRC VERSION FILE: the URI of FILE in the source package
# SRC=VERSION, from apt's deb-src index; prints "URI SHA256", or fails.
uri_of() {
	apt-get source --only-source --print-uris -qq "$1=$2" </dev/null >"$tmp/uris" 2>"$tmp/apt.err" || return 1
	sed -n "s/^'\([^']*\)' $3 [0-9]* SHA256:\([0-9a-f]*\)\$/\1 \2/p" "$tmp/uris" | head -n 1 | grep .
}

# fetch SRC VERSION FILE SHA256: CACHE/debian/FILE, downloaded if needed.
fetch() {
	out=$cache/debian/$3
	if [ -f "$out" ] && [ "$(sha256 "$out")" = "$4" ]; then
		return 0
	fi
	if ! found=$(uri_of "$1" "$2" "$3"); then
		# The pinned revision may have left the index (a point release):
		# any revision with the very same .orig will do.
		found=
		for v in $(apt-cache showsrc --only-source "$1" 2>/dev/null </dev/null | sed -n 's/^Version: //p'); do
			[ "$v" = "$2" ] && continue
			f=$(uri_of "$1" "$v" "$3") || continue
			[ "${f#* }" = "$4" ] || continue
			warn "$1 $2 is no longer in apt's index; $1 $v has the same $3"
			found=$f
			break
		done
		if [ -z "$found" ]; then
			[ -s "$tmp/apt.err" ] && sed 's/^/  apt: /' "$tmp/apt.err" >&2
			die "$1 $2 ($3): $sources_hint. If the index is current, $1 $2 left Debian: update offline/sources.tsv."
		fi
	fi
	uri=${found% *}
	[ "${found#* }" = "$4" ] ||
		die "$3: apt's index has SHA256 ${found#* }, offline/sources.tsv pins $4"
	say "downloading $uri"
	mkdir -p "$cache/debian"
	rm -f "$out.part"
	"$apt_helper" download-file "$uri" "$out.part" "SHA256:$4" </dev/null >"$tmp/dl.log" 2>&1 || {
		sed 's/^/  apt-helper: /' "$tmp/dl.log" >&2
		rm -f "$out.part"
		die "download of $uri failed (Debian mirror reachable? file still in the pool?)"
	}
	mv "$out.part" "$out"
}

# patch_list PACKAGE RAWNAME PATCHES: the patch files, one per line.
patch_list() {
	case $3 in
	-) ;;
	br | offline | br,offline) ;;
	*) die "$1: bad patches field '$3' in sources.tsv" ;;
	esac
	case $3 in br*)
		ls "$br/package/$2"/*.patch 2>/dev/null || die "$1: no patches in $br/package/$2"
		;;
	esac
	case $3 in *offline)
		ls "$here/patches/$1"/*.patch 2>/dev/null || die "$1: no patches in $here/patches/$1"
		;;
	esac
}

# check_licenses PACKAGE DIR: DIR's license files match PACKAGE's hash
# file in this layer, patches/<package>/<name>.hash, which legal-info
# uses instead of Buildroot's (local.mk). Every 'override' and 'host'
# package has one. Prints the first mismatch and fails.
check_licenses() {
	hashfile=$here/patches/$1/${1#host-}.hash
	[ -f "$hashfile" ] || { echo "no $hashfile (its license files' hashes, for legal-info)"; return 1; }
	n=0
	while read -r algo h f; do
		case $algo in '#'* | '') continue ;; esac
		got=missing
		[ -f "$2/$f" ] && got=$(sha256 "$2/$f")
		[ "$algo $got" = "sha256 $h" ] ||
			{ echo "$2/$f: sha256 $got, but $hashfile has: $algo $h (check the license, then update the hash file)"; return 1; }
		n=$((n + 1))
	done <"$hashfile"
	[ "$n" -gt 0 ] || { echo "$hashfile lists no license file"; return 1; }
}

n_exact=0 n_override=0
while IFS=$tab read -r pkg brver brsrc dsrc dver mode orig osha patches _ <&3; do
	case $pkg in '#'* | '') continue ;; esac
	raw=${pkg#host-}
	case $mode in
	exact)
		hashfile=$br/package/$raw/$raw.hash
		grep -Eq "^sha256[[:space:]]+${osha}[[:space:]]+${brsrc}\$" "$hashfile" ||
			die "$pkg: $hashfile does not list sha256 $osha for $brsrc: offline/sources.tsv is not for this Buildroot"
		dl=$cache/dl/$raw/$brsrc
		if [ -f "$dl" ] && [ "$(sha256 "$dl")" = "$osha" ]; then
			n_exact=$((n_exact + 1))
			continue
		fi
		fetch "$dsrc" "$dver" "$orig" "$osha"
		mkdir -p "$cache/dl/$raw"
		cp "$cache/debian/$orig" "$dl.part"
		mv "$dl.part" "$dl"
		say "$pkg $brver: $dl (Debian $dsrc $dver, identical)"
		n_exact=$((n_exact + 1))
		;;
	override | built)
		up=$(printf '%s' "$pkg" | tr 'a-z-' 'A-Z_')
		[ "$mode" = built ] ||
			grep -q "^${up}_OVERRIDE_SRCDIR = \$(RUST_QEMU_OFFLINE_SRC)/$pkg\$" "$localmk" ||
			die "$pkg: no '${up}_OVERRIDE_SRCDIR = \$(RUST_QEMU_OFFLINE_SRC)/$pkg' in $localmk"
		grep -q "[[:space:]]$brsrc\$" "$br/package/$raw/$raw.hash" ||
			die "$pkg: Buildroot in $br no longer wants $brsrc: offline/sources.tsv is not for this Buildroot"
		list=$(patch_list "$pkg" "$raw" "$patches")
		# The stamp: what the source tree was made from.
		# shellcheck disable=SC2086 # one patch path per word
		key="$dsrc $dver $osha $patches $(if [ -n "$list" ]; then cat $list | sha256sum | cut -d' ' -f1; fi)"
		dest=$cache/src/$pkg
		stamp=$cache/src/.$pkg.stamp
		if [ -d "$dest" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
			msg=$(check_licenses "$pkg" "$dest") || die "$pkg: $msg"
			n_override=$((n_override + 1))
			continue
		fi
		fetch "$dsrc" "$dver" "$orig" "$osha"
		work=$cache/src/.$pkg.tmp
		rm -rf "$work" "$stamp"
		mkdir -p "$work"
		tar -xf "$cache/debian/$orig" -C "$work" --strip-components=1 --no-same-owner
		for p in $list; do
			# As Buildroot's support/scripts/apply-patches.sh does.
			patch -F0 -g0 -p1 -E --no-backup-if-mismatch -d "$work" -t -N -s <"$p" >"$tmp/patch.log" 2>&1 || {
				sed 's/^/  patch: /' "$tmp/patch.log" >&2
				die "$pkg: $p does not apply to Debian's $dsrc $dver"
			}
		done
		msg=$(check_licenses "$pkg" "$work") || die "$pkg: $msg"
		rm -rf "$dest"
		mv "$work" "$dest"
		printf '%s\n' "$key" >"$stamp"
		say "$pkg: $dest (Debian $dsrc $dver$(for p in $list; do printf ' +%s' "${p##*/}"; done))"
		n_override=$((n_override + 1))
		;;
	host)
		# Replaced by programs of the Debian binary package $dsrc
		# (local.mk links them); the source dir keeps Buildroot's
		# override machinery happy and holds what legal-info saves: a
		# README and the binary package's copyright file (the package's
		# license file).
		inst=$(dpkg-query -W -f '${Version}' "$dsrc" 2>/dev/null) || die "$pkg: Debian's $dsrc is not installed: apt-get install $dsrc"
		for prog in $(printf '%s' "$orig" | tr ',' ' '); do
			[ -x "$prog" ] || die "$pkg: $prog missing (Debian's $dsrc $inst): apt-get install --reinstall $dsrc"
		done
		dest=$cache/src/$pkg
		mkdir -p "$dest"
		printf '%s\n' "No source on purpose: Buildroot's $pkg is not built; the programs $orig" \
			"of Debian's binary package $dsrc $inst replace it (offline/local.mk)." \
			"copyright: that package's /usr/share/doc/$dsrc/copyright." >"$dest/README"
		cp "/usr/share/doc/$dsrc/copyright" "$dest/copyright" 2>/dev/null || rm -f "$dest/copyright"
		msg=$(check_licenses "$pkg" "$dest") || warn "$pkg: $msg: legal-info will fail"
		;;
	local)
		[ -f "$orig" ] || die "$pkg: $orig is missing (Debian binary package; support/setup-host.sh installs it)"
		;;
	none) ;;
	*) die "$pkg: unknown mode '$mode' in sources.tsv" ;;
	esac
done 3<"$tsv"

# build_tool PACKAGE: CACHE/host-tools/PACKAGE/ built from CACHE/src/PACKAGE
# with the host's compiler (no ccache), as Buildroot's host package would
# be, in a scratch copy (src/ stays what legal-info archives).
build_tool() {
	b=$cache/host-tools/.$1.build
	rm -rf "$b" "$cache/host-tools/$1"
	mkdir -p "$cache/host-tools"
	cp -a "$cache/src/$1" "$b"
	conf=
	case $1 in
	host-tar)
		# as tar.mk: Buildroot's patches touched Makefile.am; no automake
		touch "$b/src/Makefile.in" "$b/tests/Makefile.in"
		conf="--without-selinux --disable-nls"
		;;
	host-patchelf)
		# a git export: no configure (Debian's autoconf, automake)
		command -v autoreconf >/dev/null || die "$1: autoreconf not found: apt-get install autoconf automake"
		;;
	esac
	say "$1: building once into $cache/host-tools/$1"
	# shellcheck disable=SC2086 # conf: one option per word
	(cd "$b" && { [ -x configure ] || autoreconf -fi; } &&
		FORCE_UNSAFE_CONFIGURE=1 ./configure --prefix="$cache/host-tools/$1" $conf &&
		make -j"$(nproc)" && make install) >"$b.log" 2>&1 || {
		tail -n 20 "$b.log" >&2
		die "$1: build failed (log: $b.log)"
	}
	rm -rf "$b" "$b.log"
}

# The 'built' packages, again when their source tree changed.
n_built=0
while IFS=$tab read -r pkg _ _ _ _ mode _ <&3; do
	[ "$mode" = built ] || continue
	stamp=$cache/host-tools/.$pkg.stamp
	if ! [ -f "$stamp" ] || ! cmp -s "$stamp" "$cache/src/.$pkg.stamp"; then
		rm -f "$stamp"
		build_tool "$pkg"
		cp "$cache/src/.$pkg.stamp" "$stamp"
	fi
	n_built=$((n_built + 1))
done 3<"$tsv"

say "sources ready in $cache: $n_exact identical tarballs in dl/, $n_override source trees in src/, $n_built of them built in host-tools/"
