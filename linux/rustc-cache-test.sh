#!/bin/sh
# The tests of linux/rustc-cache.sh (make check's rustc-cache-tests), on a
# small crate shaped as the kernel's: a module file, an include! of a file
# under OBJTREE (env!), an env!, an @file of --cfg, a crate it uses (its
# metadata in the dep-info: -Zbinary-dep-depinfo), outputs named by --emit.
# A stand-in rustc counts the compilations that reached it.
# Usage: rustc-cache-test.sh [RUSTC]
set -eu
real=${1:-rustc}
cache_sh=$(cd "$(dirname "$0")" && pwd)/rustc-cache.sh
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
printf '#!/bin/sh\necho "$*" >>%s/calls\nexec %s "$@"\n' "$t" "$(command -v "$real")" >"$t/rustc"
chmod +x "$t/rustc"
export RUST_QEMU_RUSTC="$t/rustc" RUST_QEMU_RUSTC_CACHE_DIR="$t/cache" TESTENV=one RUSTC_BOOTSTRAP=1
failures=0

mkdir "$t/a"
cat >"$t/a/lib.rs" <<'EOF'
#![no_std]
mod m;
pub const E: &str = env!("TESTENV");
include!(concat!(env!("OBJTREE"), "/gen.rs"));
#[cfg(foo)]
pub fn f() -> u32 { let unused = 1; m::M + d::D }
EOF
# dep D: the crate used, built without the cache
dep() {
	echo "#![no_std] pub const D: u32 = $1;" >"$t/a/d.rs"
	(cd "$t/a" && "$real" --edition=2021 --crate-type rlib --emit=metadata=libd.rmeta d.rs)
}
dep 1
echo 'pub const M: u32 = 1;' >"$t/a/m.rs"
echo 'pub const G: u32 = 2;' >"$t/a/gen.rs"
echo '--cfg=foo' >"$t/a/cfg"

# compile DIR: the crate in DIR through the cache; its stderr in DIR/err
compile() {
	(cd "$1" && rm -f lib.o lib.d libt.rmeta &&
		OBJTREE=$PWD "$cache_sh" --edition=2021 --crate-type rlib --crate-name t @cfg \
			-Zbinary-dep-depinfo --extern d -L. \
			--emit=dep-info=lib.d --emit=obj=lib.o --emit=metadata=libt.rmeta lib.rs 2>err)
}
# calls: the compilations (and --version) that reached rustc; not its -vV
calls() { grep -c -e '--emit=obj' -e '^--version' "$t/calls" || :; }
# expect WHAT CALLS: the compilations so far, as they should be
expect() {
	if [ "$(calls)" -eq "$2" ]; then
		echo "ok - $1"
	else
		echo "not ok - $1: $(calls) compilations, $2 expected"
		failures=$((failures + 1))
	fi
}
# same WHAT A B: files A and B are the same
same() {
	if cmp -s "$2" "$3"; then echo "ok - $1"; else
		echo "not ok - $1: $2 and $3 differ"
		failures=$((failures + 1))
	fi
}

compile "$t/a"
expect "a first compilation reaches rustc" 1
cp "$t/a/lib.o" "$t/first.o"
cp "$t/a/lib.d" "$t/first.d"
compile "$t/a"
expect "the same again is a hit" 1
same "a hit writes the object rustc wrote" "$t/first.o" "$t/a/lib.o"
same "a hit writes the dep-info rustc wrote" "$t/first.d" "$t/a/lib.d"
if grep -q unused "$t/a/err"; then echo "ok - a hit replays the warnings"; else
	echo "not ok - a hit replays the warnings: none in $t/a/err"
	failures=$((failures + 1))
fi

cp -r "$t/a" "$t/b"
compile "$t/b"
expect "a copy elsewhere (another OBJTREE) is a hit" 1
if grep -q "$t/b/gen.rs" "$t/b/lib.d" && ! grep -q "$t/a/" "$t/b/lib.d"; then
	echo "ok - its dep-info names its own OBJTREE"
else
	echo "not ok - its dep-info names its own OBJTREE:"
	cat "$t/b/lib.d"
	failures=$((failures + 1))
fi

echo 'pub const M: u32 = 3;' >"$t/a/m.rs"
compile "$t/a"
expect "an edited module file is a miss" 2
echo 'pub const G: u32 = 4;' >"$t/a/gen.rs"
compile "$t/a"
expect "an edited include!d file is a miss" 3
echo 'pub const M: u32 = 1;' >"$t/a/m.rs"
echo 'pub const G: u32 = 2;' >"$t/a/gen.rs"
compile "$t/a"
expect "both edits undone: a hit again" 3
dep 2
compile "$t/a"
expect "an edited crate it uses is a miss" 4
dep 1
TESTENV=two compile "$t/a"
expect "another value of an env! variable is a miss" 5
echo '--cfg=bar' >"$t/a/cfg"
compile "$t/a"
expect "an edited @file is a miss" 6
echo '--cfg=foo' >"$t/a/cfg"
RUST_MODFILE=x compile "$t/a"
expect "another RUST_MODFILE is a miss" 7

echo 'pub const M: u32 = ;' >"$t/a/m.rs"
if compile "$t/a"; then
	echo "not ok - a failing compilation fails"
	failures=$((failures + 1))
else
	echo "ok - a failing compilation fails"
fi
compile "$t/a" || :
expect "and is not stored" 9

(cd "$t/a" && "$cache_sh" --crate-type rlib --emit=dep-info=x.d --emit=obj=x.o d.rs)
(cd "$t/a" && "$cache_sh" --crate-type rlib --emit=dep-info=x.d --emit=obj=x.o d.rs)
expect "without -Zbinary-dep-depinfo: no cache" 11
"$cache_sh" --version >/dev/null
expect "--version reaches rustc" 12
RUST_QEMU_RUSTC_CACHE_DIR="" compile "$t/b"
expect "no cache directory: every compilation reaches rustc" 13

[ "$failures" -eq 0 ] || { echo "$failures of the rustc cache's tests failed"; exit 1; }
echo "rustc cache: all passed"
