#!/bin/sh
# Check the host Rust toolchain for a Rust-enabled Linux 6.12 build, in
# about a second, before anything is built. The kernel's own, complete
# check ('make rustavailable') runs again before the kernel is configured.
# Environment: RUSTC, RUSTDOC, BINDGEN, LLVM (e.g. "-22" or empty),
# KERNEL_TARBALL (optional). Exits non-zero with every problem found.
set -eu

# The minimum versions (RUST_MIN_VERSION, BINDGEN_MIN_VERSION: the series'
# and Linux 6.12's, with the reason) and the bindgen-cli the project pins
# (BINDGEN_VERSION)
# shellcheck source=support/versions.env
. "$(dirname "$0")/../support/versions.env"
min_rustc=$RUST_MIN_VERSION
min_bindgen=$BINDGEN_MIN_VERSION
install_bindgen="cargo install --locked bindgen-cli --version $BINDGEN_VERSION"

errors=0
fail() {
	printf 'ERROR: %s\n' "$1" >&2
	shift
	for hint; do printf '       %s\n' "$hint" >&2; done
	errors=$((errors + 1))
}
# version_ge A B: A >= B for dotted versions
version_ge() {
	[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}
first_version() {
	sed -n 's/[^0-9]*\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -n1
}

RUSTC=${RUSTC:-/usr/bin/rustc}
RUSTDOC=${RUSTDOC:-/usr/bin/rustdoc}
BINDGEN=${BINDGEN:-bindgen}
LLVM=${LLVM:-}

debian_rust="apt-get install rustc-web rust-web-src (Debian 12), then RUSTC=/usr/bin/rustc"

if ! rustc_v=$("$RUSTC" --version 2>/dev/null | first_version) || [ -z "$rustc_v" ]; then
	fail "rustc '$RUSTC' does not run" "$debian_rust;" \
		"a toolchain cell's rustc (support/toolchains/): make setup unpacks it into the cache."
else
	version_ge "$rustc_v" "$min_rustc" ||
		fail "rustc $rustc_v ('$RUSTC') is older than $min_rustc, the minimum of this tree's kernel" \
			"(Linux 6.12 needs 1.78.0; the series of patches/linux/ is tested with $min_rustc and" \
			"newer and declares it: patch 0036, support/versions.env)." "$debian_rust"
	sysroot=$("$RUSTC" --print sysroot)
	[ -f "$sysroot/lib/rustlib/src/rust/library/core/src/lib.rs" ] ||
		fail "rustc $rustc_v ('$RUSTC') has no rust-src (looked in $sysroot/lib/rustlib/src)" \
			"The kernel builds 'core' from source. $debian_rust;" \
			"with rustup: rustup component add rust-src."
	rustdoc_v=$("$RUSTDOC" --version 2>/dev/null | first_version) || rustdoc_v=
	[ "$rustdoc_v" = "$rustc_v" ] ||
		fail "rustdoc '$RUSTDOC' (${rustdoc_v:-does not run}) differs from rustc $rustc_v" \
			"The doctests need the rustdoc of the same toolchain: set RUSTDOC next to RUSTC."
fi

if ! bindgen_v=$("$BINDGEN" --version 2>/dev/null | first_version) || [ -z "$bindgen_v" ]; then
	fail "bindgen '$BINDGEN' does not run" "$install_bindgen"
else
	version_ge "$bindgen_v" "$min_bindgen" ||
		fail "bindgen $bindgen_v is older than $min_bindgen, the minimum of Linux 6.12 (support/versions.env)" \
			"$install_bindgen"
	probe=$(mktemp)
	if ! out=$(printf 'struct s { int a; };\n' | "$BINDGEN" /dev/stdin -o "$probe" 2>&1) &&
		! out=$(printf 'struct s { int a; };\n' >"$probe.h" && "$BINDGEN" "$probe.h" 2>&1); then
		fail "bindgen $bindgen_v cannot parse C: $(printf '%s' "$out" | head -n1)" \
			"bindgen needs libclang: apt-get install libclang-$LLVM_VERSION-dev (or set LIBCLANG_PATH)"
	fi
	rm -f "$probe" "$probe.h"
fi

if [ -n "$LLVM" ]; then
	for tool in clang ld.lld llvm-ar llvm-nm llvm-objcopy llvm-readelf llvm-strip; do
		command -v "$tool$LLVM" >/dev/null ||
			fail "LLVM=$LLVM needs '$tool$LLVM', which is not in PATH" \
				"apt-get install clang$LLVM lld$LLVM llvm$LLVM"
	done
fi

if [ -n "${KERNEL_TARBALL:-}" ] && [ ! -r "$KERNEL_TARBALL" ]; then
	fail "kernel source tarball $KERNEL_TARBALL is missing" \
		"apt-get install linux-source-6.12"
fi

if [ "$errors" -gt 0 ]; then
	printf 'The host cannot build a Rust-enabled kernel: %d problem(s) above.\n' "$errors" >&2
	exit 1
fi
printf '>>> Rust toolchain: rustc %s, bindgen %s%s\n' "$rustc_v" "$bindgen_v" "${LLVM:+, LLVM=$LLVM}"
