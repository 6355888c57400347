#!/bin/sh
# The benchmark (make bench): make check from this state of the tree, then
# per arch the edit -> result loop (touch one sample's .rs, make retest,
# until its results are printed). Every figure comes from this one run:
# a table in output/bench/bench.md, the same figures in bench.json.
# Run it on a clean clone for the clean-build figures. The table is also
# the project's figures file, docs/benchmark.md (above the figures of
# earlier runs, each with its date and commit), to commit with it. --table only writes
# the table again from output/bench/figures.tsv. --kunit also runs kunit.py
# (the kernel's KUnit runner) on the same patched tree, x86_64 with the
# Rust doctests, and the same touch (rust/kernel/print.rs) in both loops,
# then the same touch in a kernel tree of make linux-tree, retested on
# x86_64 alone and on every arch (make retest ARCH=all LINUX_TREE=...)
# (--kunit-only: those two, on the existing outputs).
set -eu

cd "$(dirname "$0")/.."
out=output/bench
mkdir -p "$out"
raw=$out/figures.tsv	# "<arch>\t<figure>\t<value>", one figure a line
now() { date +%s; }
put() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$raw"; }
harness() { cargo run -q --release -p rust-qemu-test -- "$@"; }
# num FILE KEY: the first number field KEY of a JSON file ("-" if none)
num() { v=$(sed -n "s/.*\"$2\": *\([0-9.]*\).*/\1/p" "$1" 2>/dev/null | head -n 1); echo "${v:--}"; }
# seconds of each package in a Buildroot build-time.log, "<pkg> <s>"
pkg_seconds() {
	awk -F: '{ gsub(/ /, "", $2); gsub(/ /, "", $4) }
		$2 == "start" { t[$4] -= $1 } $2 == "end" { t[$4] += $1 }
		END { for (p in t) printf "%s %.0f\n", p, t[p] }' "$1"
}

# edit_loop ARCH BUILD_DIR: one sample's .rs touched in the kernel tree
# (linux-custom, or linux-um-custom), then the loop command
edit_loop() {
	for k in "$2"/linux-custom "$2"/linux-um-custom; do
		[ -d "$k" ] || continue
		touch "$k/samples/rust/rust_minimal.rs"
		make retest ARCH="$1" >"$out/retest-$1.log" 2>&1
		return
	done
	echo "no kernel build in $2" >"$out/retest-$1.log"
	return 1
}

measure() {
	: >"$raw"
	put all run "$(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD), $(nproc) CPUs"
	start=$(now)
	make check >"$out/check.log" 2>&1 || rc=$?
	put all make-check-s "$(($(now) - start))"
	put all make-check-result "$(grep '^check: ' "$out/check.log" | tail -n 1)"
	harness list | while read -r arch defconfig; do
		measure_arch "$arch" "output/$defconfig/build"
	done
}

# measure_arch ARCH BUILD_DIR: its figures from make check, then its loop
measure_arch() {
	arch=$1
	b=$2
	put "$arch" build-s "$(awk -F '\t' -v s="build-$arch" '$2 == s { print $3 }' output/logs/steps.tsv)"
	put "$arch" kernel-s "$(pkg_seconds "$b/build-time.log" | awk '$1 ~ /^linux(-um)?$/ { print $2 }')"
	put "$arch" other-s "$(pkg_seconds "$b/build-time.log" | awk '$1 !~ /^linux(-um)?$/ { s += $2 } END { print s }')"
	r=output/tests/$arch/results.json
	put "$arch" full-boot-s "$(num "$r" boot_duration_s)"
	put "$arch" full-tests-s "$(num "$r" test_duration_s)"
	t=$(now)
	if edit_loop "$arch" "$b"; then
		put "$arch" loop-s "$(($(now) - t))"
	else
		put "$arch" loop-s "failed (output/bench/retest-$arch.log)"
	fi
	put "$arch" quick-boot-s "$(num "$r" boot_duration_s)"
	put "$arch" quick-tests-s "$(num "$r" test_duration_s)"
}

# kunit_compare: kunit.py on a fresh copy of the patched tree (a kernel
# tree it may build in: Buildroot's is configured in place), cleanly, then
# after a touch of rust/kernel/print.rs; ours after the same touch.
kunit_compare() {
	src=$PWD/$out/kunit-src
	tarball=$(sed -n 's|^BR2_LINUX_KERNEL_CUSTOM_TARBALL_LOCATION="file://\(.*\)"$|\1|p' \
		configs/qemu_x86_64_rust_defconfig)
	rm -rf "$src" "$src.build"
	mkdir -p "$src"
	tar -xf "$tarball" -C "$src" --strip-components=1
	for p in patches/linux/*.patch; do patch -s -p1 -d "$src" <"$p"; done
	kunit() {
		(cd "$src" && ./tools/testing/kunit/kunit.py run --arch=x86_64 --build_dir="$src.build" \
			--jobs="$(nproc)" --kconfig_add CONFIG_RUST=y --kconfig_add CONFIG_RUST_KERNEL_DOCTESTS=y \
			--make_options RUSTC=/usr/bin/rustc --make_options HOSTRUSTC=/usr/bin/rustc \
			--make_options RUSTDOC=/usr/bin/rustdoc --make_options "BINDGEN=$(command -v bindgen)")
	}
	for run in clean touch; do
		[ "$run" = clean ] || touch "$src/rust/kernel/print.rs"
		t=$(now)
		if kunit >"$out/kunit-$run.log" 2>&1; then
			put kunit "$run-s" "$(($(now) - t))"
		else
			put kunit "$run-s" "failed (output/bench/kunit-$run.log)"
		fi
		put kunit "$run-result" "$(grep -o 'Ran [0-9]* tests.*' "$out/kunit-$run.log" | tail -n 1)"
	done
	touch output/qemu_x86_64_rust_defconfig/build/linux-custom/rust/kernel/print.rs
	t=$(now)
	if make retest ARCH=x86_64 >"$out/retest-print.log" 2>&1; then
		put x86_64 touch-print-s "$(($(now) - t))"
	else
		put x86_64 touch-print-s "failed (output/bench/retest-print.log)"
	fi
}

# step_s LOG PKG STEP: seconds of one step of one package in a Buildroot
# build-time.log (summed over the runs it holds since TREE_T0)
step_s() {
	awk -F: -v p="$2" -v s="$3" -v t0="$TREE_T0" '{ gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $4) }
		$1 >= t0 && $4 == p && $3 == s { if ($2 == "start") t -= $1; else t += $1 }
		END { printf "%.1f\n", t }' "$1"
}
# tree_compare: your kernel tree (make linux-tree), every output switched
# to it once (not timed: a full kernel build each), then the same touch of
# rust/kernel/print.rs in the tree as kunit.py's: make retest of x86_64
# alone, then of every arch; where the time goes from Buildroot's
# build-time.log (the kernel's rsync and build steps) and the guests'.
tree_compare() {
	tree=$PWD/$out/linux-tree
	rm -rf "$tree" "$tree.tmp"
	utils/linux-tree.sh "$tree" >"$out/linux-tree.log" 2>&1
	export LINUX_TREE="$tree"
	make retest ARCH=all >"$out/retest-tree-switch.log" 2>&1 || :
	touch "$tree/rust/kernel/print.rs"
	t=$(now)
	if make retest ARCH=x86_64 >"$out/retest-tree-x86_64.log" 2>&1; then
		put x86_64 tree-print-s "$(($(now) - t))"
	else
		put x86_64 tree-print-s "failed (output/bench/retest-tree-x86_64.log)"
	fi
	touch "$tree/rust/kernel/print.rs"
	TREE_T0=$(now)
	if make retest ARCH=all FORMAT=tsv >"$out/retest-tree-all.log" 2>&1; then
		put all tree-print-all-s "$(($(now) - TREE_T0))"
	else
		put all tree-print-all-s "failed (output/bench/retest-tree-all.log)"
	fi
	harness list | while read -r arch defconfig; do
		b=output/$defconfig/build
		k=linux
		[ ! -d "$b/linux-um-custom" ] || k=linux-um
		put "$arch" tree-rsync-s "$(step_s "$b/build-time.log" "$k" rsync)"
		put "$arch" tree-kernel-s "$(step_s "$b/build-time.log" "$k" build)"
		# the table's row: arch, build, verdict, 3 counts, build s, ...
		put "$arch" tree-rebuild-s "$(awk -F '\t' -v a="$arch" '$1 == a && NF == 9 { print $7 }' \
			"$out/retest-tree-all.log")"
		put "$arch" tree-boot-s "$(num "output/tests/$arch/results.json" boot_duration_s)"
		put "$arch" tree-tests-s "$(num "output/tests/$arch/results.json" test_duration_s)"
	done
	unset LINUX_TREE
}

rc=0
TREE_T0=0
case ${1:-} in
--table) ;;
--kunit) measure && kunit_compare && tree_compare ;;
--kunit-only)
	: >"$raw"
	put all run "$(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD), $(nproc) CPUs, loops only"
	kunit_compare && tree_compare
	;;
*) measure ;;
esac

# fig ARCH FIGURE: a figure of this run
fig() {
	awk -F'\t' -v a="$1" -v f="$2" '$1 == a && $2 == f {
		if ($3 ~ /^[0-9]+\.[0-9]+$/) printf "%.1f\n", $3; else print $3 }' "$raw"
}
{
	echo "# Benchmark: $(fig all run)"
	echo
	if [ -n "$(fig all make-check-s)" ]; then
		echo "make check: $(fig all make-check-s) s, $(fig all make-check-result)"
		echo
		echo "| arch | build (s) | of which kernel / rest (Buildroot s) | full boot + tests (guest s) | edit -> result (s) | quick boot + tests (guest s) |"
		echo "| --- | --- | --- | --- | --- | --- |"
		harness list | while read -r arch _; do
			echo "| $arch | $(fig "$arch" build-s) | $(fig "$arch" kernel-s) / $(fig "$arch" other-s) |" \
				"$(fig "$arch" full-boot-s) + $(fig "$arch" full-tests-s) | $(fig "$arch" loop-s) |" \
				"$(fig "$arch" quick-boot-s) + $(fig "$arch" quick-tests-s) |"
		done
	fi
	if [ -n "$(fig kunit clean-s)" ]; then
		echo
		echo "kunit.py on the same patched tree (x86_64, Rust doctests): clean $(fig kunit clean-s) s" \
			"($(fig kunit clean-result)); after a touch of rust/kernel/print.rs $(fig kunit touch-s) s" \
			"($(fig kunit touch-result)). Ours after the same touch (make retest, quick boot):" \
			"$(fig x86_64 touch-print-s) s."
	fi
	if [ -n "$(fig all tree-print-all-s)" ]; then
		echo
		echo "The same touch in your kernel tree (make linux-tree), make retest LINUX_TREE=...:" \
			"x86_64 alone $(fig x86_64 tree-print-s) s; every arch (ARCH=all) $(fig all tree-print-all-s) s:"
		echo
		echo "| arch | kernel rsync (s) | kernel build (s) | whole rebuild (s) | quick boot + tests (guest s) |"
		echo "| --- | --- | --- | --- | --- |"
		harness list | while read -r arch _; do
			echo "| $arch | $(fig "$arch" tree-rsync-s) | $(fig "$arch" tree-kernel-s) |" \
				"$(fig "$arch" tree-rebuild-s) |" \
				"$(fig "$arch" tree-boot-s) + $(fig "$arch" tree-tests-s) |"
		done
	fi
} >"$out/bench.md"
awk -F'\t' 'BEGIN { printf "[" } { gsub(/"/, "\\\"", $3); printf "%s\n  {\"arch\": \"%s\", \"figure\": \"%s\", \"value\": \"%s\"}", (NR > 1 ? "," : ""), $1, $2, $3 }
	END { print "\n]" }' "$raw" >"$out/bench.json"
cat "$out/bench.md"
# the figures file: this run right after its marker line, newest first
doc=docs/benchmark.md
{
	sed -n '1,/^<!-- runs -->$/p' "$doc"
	echo
	sed 's/^# Benchmark:/## Run:/' "$out/bench.md"
	sed -n '/^<!-- runs -->$/,$p' "$doc" | sed 1d
} >"$doc.tmp" && mv "$doc.tmp" "$doc"
exit "$rc"
