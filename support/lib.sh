# shellcheck shell=sh
# Sourced by the tree's shell scripts: the cache directory and the
# messages, each once. Set "me" (the prefix of messages) first.
# The cache: RUST_QEMU_CACHE (the Makefile exports it, taking its default
# from here), else under XDG_CACHE_HOME or ~/.cache.
: "${RUST_QEMU_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/br-rust-qemu}"
say() { printf '>>> %s: %s\n' "${me:?}" "$*"; }
warn() { printf '%s: warning: %s\n' "${me:?}" "$*" >&2; }
# debian_packages TOP: TOP/support/debian-packages.txt with the compiler
# majors GCC_VERSION and LLVM_VERSION (support/versions.env, sourced first)
# in place of @GCC@ and @LLVM@
debian_packages() {
	sed -e "s/@GCC@/${GCC_VERSION:?}/g" -e "s/@LLVM@/${LLVM_VERSION:?}/g" "$1/support/debian-packages.txt"
}
# die MESSAGE [HINT...]: the error, then each hint (what to do) on a line
die() {
	printf '%s: ERROR: %s\n' "${me:?}" "$1" >&2
	shift
	for hint; do printf '       %s\n' "$hint" >&2; done
	exit 1
}
