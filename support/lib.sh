# shellcheck shell=sh
# Sourced by the tree's shell scripts: the cache directory and the
# messages, each once. Set "me" (the prefix of messages) first.
# The cache: RUST_QEMU_CACHE (the Makefile exports it, taking its default
# from here), else under XDG_CACHE_HOME or ~/.cache.
: "${RUST_QEMU_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/br-rust-qemu}"
say() { printf '>>> %s: %s\n' "${me:?}" "$*"; }
warn() { printf '%s: warning: %s\n' "${me:?}" "$*" >&2; }
die() {
	printf '%s: ERROR: %s\n' "${me:?}" "$*" >&2
	exit 1
}
