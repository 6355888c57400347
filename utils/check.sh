#!/bin/sh
# The project's test command (make check): lint, the harness's unit tests,
# then every defconfig built afresh and booted with all boot tests by the
# harness's loop (rust-qemu-test check: one arch boots while the next
# builds), which calls this script back as its hook around each build
# and boot for the steps below (its Buildroot goals, start-qemu.sh to a
# shell and poweroff, ...). Each step is a check, recorded in
# output/logs/steps.tsv by whichever process ran it; the last line counts
# them with the boot tests: "check: N passed, N failed". Exit 0 only if
# all passed.
# PRUNE=1: once a defconfig's checks are done, its build trees go (the
# images and the target directory stay), so that the disk
# holds three builds at most (CI: one booting, one waiting, one
# building). The cells of the toolchain axis
# (support/toolchains/axis.toml) marked check are built and booted in
# quick mode after the defconfigs; --toolchains (make check-toolchains):
# every cell, and nothing else.
# Usage: check.sh [--toolchains]
#        check.sh --hook build|built|booted ARCH OUTPUT DEFCONFIG [TOOLCHAIN]
set -eu
mode=all
[ "${1:-}" != --toolchains ] || mode=toolchains

cd "$(dirname "$0")/.."
# shellcheck source=support/versions.env
. ./support/versions.env
logs=$PWD/output/logs
steps=$logs/steps.tsv
mkdir -p "$logs"

# record ok|FAIL|SKIP NAME SECONDS: a check's outcome, in the steps file
record() {
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$steps"
}
# step NAME COMMAND...: run a check, its output to $logs/NAME.log;
# step_ok=1 if it passed; exit status 77: it could not run here (a skip,
# whose first line "SKIP ..." says why)
step() {
	step_name=$1
	shift
	step_start=$(date +%s)
	step_ok=0
	step_rc=0
	"$@" >"$logs/$step_name.log" 2>&1 || step_rc=$?
	secs=$(($(date +%s) - step_start))
	case $step_rc in
	0)
		step_ok=1
		record ok "$step_name" "$secs"
		printf 'ok   %s (%ss)\n' "$step_name" "$secs"
		;;
	77)
		# it could not run here, and says why
		record SKIP "$step_name" "$secs"
		printf 'SKIP %s (%ss): %s\n' "$step_name" "$secs" "$(grep -m 1 '^SKIP' "$logs/$step_name.log")"
		;;
	*)
		record FAIL "$step_name" "$secs"
		printf 'FAIL %s (%ss), last lines of %s:\n' "$step_name" "$secs" "$logs/$step_name.log"
		tail -n 30 "$logs/$step_name.log" | sed 's/^/     | /'
		;;
	esac
}

harness() {
	cargo run -q --release -p rust-qemu-test -- "$@"
}

# Your kernel tree (README "Test your kernel tree"): a tree made from
# patches/linux/ gives the same files back; bad input is refused with
# nothing lost. Its edit then reaches the arches of TREE_ARCHES (below).
# The check builds patches/linux/, never a LINUX_TREE of yours.
export LINUX_TREE=
tree=$PWD/output/check-linux-tree
linux_tree_round_trip() {
	rm -rf "$tree" "$tree.tmp"
	utils/linux-tree.sh "$tree" || return 1
	keep=$(mktemp -d)
	cp -p patches/linux/* "$keep/"
	rc=0
	utils/linux-patches.sh "$tree" || rc=1
	diff -r "$keep" patches/linux || rc=1
	[ "$rc" -eq 0 ] || { rm -f patches/linux/*.patch && cp -p "$keep"/* patches/linux/; }
	rm -rf "$keep"
	return "$rc"
}
# refused CMD...: fails with an ERROR line, and patches/linux/ is unchanged
refused() {
	before=$(cat patches/linux/* | sha256sum)
	! "$@" 2>&1 | tee /dev/stderr | grep -q ERROR && { echo "not refused: $*"; return 1; }
	[ "$before" = "$(cat patches/linux/* | sha256sum)" ] || { echo "patches/linux/ changed: $*"; return 1; }
}
linux_tree_bad_input() {
	refused env LINUX_TREE="$PWD/output/no-such-tree" make retest ARCH=x86_64 &&
		refused env LINUX_TREE="$PWD/support" make retest ARCH=x86_64 &&
		refused env LINUX_TREE="$PWD" make retest ARCH=x86_64 &&
		echo '// uncommitted' >>"$tree/samples/rust/rust_minimal.rs" &&
		refused utils/linux-tree.sh "$tree" &&
		refused utils/linux-patches.sh "$tree" &&
		git -C "$tree" -c user.name=check -c user.email=check@localhost commit -qam "own commit" &&
		refused utils/linux-tree.sh "$tree" &&
		git -C "$tree" reset -q --hard rust-qemu-series &&
		[ "$(git -C "$tree" log -1 --format=%s)" != "own commit" ]
}
# tree_ready: 1 once the kernel tree's checks (beside the loop) made the
# tree, 0 if they failed (or never ended: 30 minutes)
tree_ready() {
	i=0
	while [ ! -s "$logs/tree-ok" ] && [ "$i" -lt 900 ]; do
		sleep 2
		i=$((i + 1))
	done
	cat "$logs/tree-ok" 2>/dev/null || echo 0
}
# tree_edit ARCH: a new pr_info! line in the tree's rust_minimal.rs (not
# committed, patches/linux/ untouched) reaches ARCH's kernel through
# make retest from the tree: its quick boot passes and prints the line.
# Both kernel packages (linux: aarch64; linux-um: um), and none of
# LAVA_ARCHES: the edit rebuilds the arch's images, which a lab run after
# it would boot (the KCIDB step refuses results of two kernel sources).
TREE_ARCHES=${TREE_ARCHES:-aarch64 um}
marker="edited in your kernel tree"
tree_edit() {
	f=$tree/samples/rust/rust_minimal.rs
	grep -q "$marker" "$f" ||
		sed -i "s|^\( *\)pr_info!(\"Rust minimal sample (init)\\\\n\");|&\n\1pr_info!(\"$marker\\\\n\");|" "$f"
	grep -q "$marker" "$f" || { echo "the edit of $f did not take"; return 1; }
	before=$(cat patches/linux/* | sha256sum)
	LINUX_TREE=$tree utils/retest.sh "$1" --results-dir output/tests-tree || return 1
	grep "rust_minimal: $marker" "output/tests-tree/$1/console.log" ||
		{ echo "no 'rust_minimal: $marker' in output/tests-tree/$1/console.log"; return 1; }
	[ "$before" = "$(cat patches/linux/* | sha256sum)" ] || { echo "patches/linux/ changed"; return 1; }
}
# The Buildroot goals the README names, on each output as its build left
# it: O= given (output/.current is not used), nothing is rebuilt, configs/
# is not written. legal-info, savedefconfig and source on every defconfig;
# the kernel's own goals on the first one (linux package).
# buildroot_goals OUT DEFCONFIG: source, legal-info and savedefconfig (one
# Buildroot make: its parsing alone takes ~12 s here); every license file
# was checked against a hash ("No hash found" is only a message in
# Buildroot's legal-info); savedefconfig into a temporary file
# (BR2_DEFCONFIG) writes the committed defconfig again, configs/
# unchanged; then what legal-info saved for the kernel (linux_legal_info)
buildroot_goals() {
	keep=$(mktemp -d)
	cp "$2" "$keep/committed"
	rc=0
	make O="$1" source legal-info savedefconfig BR2_DEFCONFIG="$keep/saved" >"$keep/log" 2>&1 || rc=1
	cat "$keep/log"
	if grep -q 'No hash found' "$keep/log"; then
		echo "legal-info: a license file has no hash (above)"
		rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		diff -u "$2" "$keep/saved" && cmp "$keep/committed" "$2" || rc=1
	fi
	rm -rf "$keep"
	[ "$rc" -eq 0 ] && linux_legal_info "$1"
}
# linux_legal_info OUT: legal-info saved for the kernel (linux, or
# linux-um) the tarball of patches/linux/linux.hash and patches/linux/ as
# the series
linux_legal_info() {
	tarball=$(awk '$1 == "sha256" && $3 ~ /\.tar\.xz$/ { print $3 }' patches/linux/linux.hash)
	hash=$(awk '$1 == "sha256" && $3 ~ /\.tar\.xz$/ { print $2 }' patches/linux/linux.hash)
	set -- "$1"/legal-info/sources/linux-*/"$tarball"
	if [ $# -ne 1 ] || [ ! -f "$1" ]; then
		echo "legal-info: not one kernel $tarball: $*"
		return 1
	fi
	echo "$hash  $1" | sha256sum -c - || return 1
	k=${1%/*}
	for p in patches/linux/*.patch; do
		cmp "$p" "$k/${p##*/}" || return 1
		echo "${p##*/}"
	done | diff -u - "$k/series" || return 1
	echo "legal-info: kernel = ${k##*/}/$tarball + $(wc -l <"$k/series") patches"
}
# kallsyms_complete OUT: no symbol of the kernel image or of a module
# built in OUT (the kernel's and the packages') is too long for kallsyms
# (KSYM_NAME_LEN of its source): scripts/kallsyms drops those of vmlinux
# (a backtrace names its addresses after the symbol before), a module's
# are cut at lookup. Read with llvm-nm (every arch's), so a kernel not
# rebuilt in this run is checked too.
kallsyms_complete() {
	k=$(echo "$1"/build/linux-*)
	max=$(sed -n 's/^#define KSYM_NAME_LEN[[:space:]]*\([0-9]*\).*/\1/p' "$k/include/linux/kallsyms.h")
	if [ -z "$max" ] || [ ! -f "$k/vmlinux" ]; then
		echo "no KSYM_NAME_LEN or no vmlinux in $k"
		return 1
	fi
	mods=$(find "$1/build" -name '*.ko' -type f | wc -l)
	[ "$mods" -gt 0 ] || { echo "no module (*.ko) in $1/build"; return 1; }
	{
		"llvm-nm-$LLVM_VERSION" "$k/vmlinux" || echo "FAILED llvm-nm"
		find "$1/build" -name '*.ko' -type f -exec "llvm-nm-$LLVM_VERSION" {} + || echo "FAILED llvm-nm"
	} | awk -v max="$max" -v mods="$mods" '
		$1 == "FAILED" { bad = 1 }
		length($NF) >= max { n++; print "too long for kallsyms (" length($NF) " >= " max "): " $NF }
		END {
			print n + 0 " symbols of vmlinux and " mods " modules too long for kallsyms"
			exit n > 0 || bad
		}'
}
# linux_savedefconfig OUT: the kernel's defconfig, with Rust on
linux_savedefconfig() {
	rm -f "$1/build/linux-custom/defconfig"
	make O="$1" linux-savedefconfig && grep -x 'CONFIG_RUST=y' "$1/build/linux-custom/defconfig"
}
# linux_menuconfig OUT: menuconfig in a pseudo-terminal, left with Escape
# until it ends (the harness's console dialogue "menuconfig": exit 0, "End
# of the configuration"; nothing changed, nothing saved). Buildroot then
# drops the kernel's build stamps; the configuration is the same, so they
# are put back and the next build does not rebuild the kernel.
linux_menuconfig() {
	k=$1/build/linux-custom
	keep=$(mktemp -d)
	cp -p "$k/.config" "$k"/.stamp_* "$keep/"
	rc=0
	TERM=vt100 LINES=24 COLUMNS=80 harness console menuconfig -- \
		script -qefc "make O='$1' linux-menuconfig" /dev/null || rc=$?
	if cmp "$keep/.config" "$k/.config"; then
		cp -p "$keep/.config" "$keep"/.stamp_* "$k/"
	else
		echo "linux-menuconfig changed the kernel configuration"
		rc=1
	fi
	rm -rf "$keep"
	return "$rc"
}

# shell_poweroff OUT: the README's promise: images/start-qemu.sh boots to a
# root shell that answers, and "poweroff" typed there ends QEMU with exit 0
# (the harness's console dialogue "shell")
shell_poweroff() {
	harness console shell -- "$1/images/start-qemu.sh"
}
# prune OUT: the build trees go; the images and the target directory stay
# (the arch matrix reads what the image says it is: etc/rust-qemu-release)
prune() {
	rm -rf "$1/build" "$1/host" "$1/legal-info"
	echo "pruned $1: $(du -sh "$1" | cut -f1) left (PRUNE=1)"
}
# enough_disk ARCH: a defconfig's build takes about 2.5 GB (x86_64: 2.2 GB)
enough_disk() {
	free=$(df -Pk output | awk 'NR == 2 { print int($4 / 1024) }')
	[ "$free" -ge 3000 ] && return
	echo "FAIL only $free MB free under output/: a defconfig's build needs about 2500 MB;" \
		"free some, or run 'make check PRUNE=1' (three builds on disk at most)"
	record FAIL "disk-space-$1" 0
	return 1
}

# The series' minimum rustc (RUST_MIN_VERSION, support/versions.env): an
# output's build pointed at an older rustc, or at one that is gone, stops
# in seconds, naming the minimum. The older rustc is a stand-in that
# only says its version: Debian 12 has none below 1.85.
rustc_below_minimum() {
	fake=$(mktemp -d)
	printf '#!/bin/sh\necho "rustc 1.84.1 (e71f9a9a9 2025-01-27)"\n' >"$fake/rustc"
	chmod +x "$fake/rustc"
	rc=0
	for rustc in "$fake/rustc" "$RUST_QEMU_CACHE/toolchains/rust-1.84.1/bin/rustc"; do
		start=$(date +%s)
		if make O="$1" BR2_RUST_QEMU_RUSTC="$rustc" >"$fake/log" 2>&1; then
			echo "the build went on with $rustc"
			rc=1
		fi
		cat "$fake/log"
		secs=$(($(date +%s) - start))
		grep -q "minimum of this tree's kernel\|rustc '$rustc' does not run" "$fake/log" ||
			{ echo "no message naming the minimum or the missing rustc"; rc=1; }
		[ "$secs" -le 60 ] || { echo "stopped after $secs s, not in seconds"; rc=1; }
	done
	rm -rf "$fake"
	return "$rc"
}

# hook PHASE ARCH OUTPUT DEFCONFIG [TOOLCHAIN]: the steps around one
# build and boot, called by the harness's loop (rust-qemu-test check
# --hook): before the build (non-zero: not built), after it (the build
# lane, while the previous arch boots), after the boot (the boot lane,
# while the next arch builds). The build lane is the loop's longest, so
# its steps run after the boot: the Buildroot goals, start-qemu.sh and
# your kernel tree's edit. A toolchain cell has only its build and quick
# boot, then its prune.
hook() {
	phase=$1 arch=$2 out=$3 d=$4 toolchain=${5:-}
	case $phase in
	build) enough_disk "$arch" ;;
	built) ;;
	booted)
		if [ -z "$toolchain" ]; then
			goals "$out" "$d"
			step "start-qemu-poweroff-$d" shell_poweroff "$out"
			case " $TREE_ARCHES " in
			*" $arch "*) [ "$(tree_ready)" != 1 ] || step "linux-tree-edit-$arch" tree_edit "$arch" ;;
			esac
		fi
		[ "${PRUNE:-0}" != 1 ] || prune "$out"
		;;
	*)
		echo "check.sh --hook: no phase '$phase'" >&2
		return 2
		;;
	esac
}
# goals OUT DEFCONFIG: the Buildroot goals the README names on a built output
goals() {
	# samples/rust/hostprogs: a Rust host program built by Kbuild, run
	# here (the kernel's build directory: linux-custom, or linux-um-custom)
	step "hostprogs-$2" sh -c "$1/build/linux-*/samples/rust/hostprogs/single |
		tr '\n' '|' | grep -qx 'Hello world!|The number is 42.|'"
	step "buildroot-goals-$2" buildroot_goals "$1" "configs/$2"
	step "kallsyms-$2" kallsyms_complete "$1"
	# the kernel's own goals on the first defconfig of the linux package
	if [ ! -e "$logs/first-linux" ] && [ -d "$1/build/linux-custom" ]; then
		echo "$2" >"$logs/first-linux"
		step "linux-savedefconfig-$2" linux_savedefconfig "$1"
		step "linux-menuconfig-$2" linux_menuconfig "$1"
		step rustc-below-minimum rustc_below_minimum "$1"
	fi
}
if [ "${1:-}" = --hook ]; then
	shift
	hook "$@"
	exit
fi

# The arches and their defconfigs: every board/qemu/<arch>/ with its
# configs/*_rust_defconfig, "<arch> <defconfig>" per line (harness list).
# DEFCONFIGS (space-separated) picks some.
if ! arch_table=$(harness list); then
	echo "FAIL the harness does not build (cargo run -p rust-qemu-test)"
	echo "check: 0 passed, 1 failed"
	exit 1
fi
defconfigs=${DEFCONFIGS:-$(printf '%s\n' "$arch_table" | cut -d' ' -f2)}
# the cells: "<cell> <defconfig> <toolchain> check|extra"; those marked
# check of the defconfigs checked, or with --toolchains every cell (CELLS,
# space-separated, picks some)
cells=$(harness list --cells)
if [ "$mode" = toolchains ]; then
	defconfigs=
	[ -z "${CELLS:-}" ] ||
		cells=$(printf '%s\n' "$cells" | awk -v want=" $CELLS " 'index(want, " " $1 " ")')
else
	want=" $(printf '%s' "$defconfigs" | tr '\n' ' ') "
	cells=$(printf '%s\n' "$cells" | awk -v want="$want" '$4 == "check" && index(want, " " $2 " ")')
fi

: >"$steps"
rm -f "$logs/first-linux"
if [ "$mode" = all ]; then
	step lint utils/lint.sh
	step harness-unit-tests cargo test --release --workspace
	runner_unit_tests() {
		make -C package/rust-tests/src test
		set -- $?
		make -C package/rust-tests/src clean
		return "$1"
	}
	step runner-unit-tests runner_unit_tests
	# the kernel's rustc cache, with Debian's rustc (BR2_RUST_QEMU_RUSTC)
	step rustc-cache-tests linux/rustc-cache-test.sh /usr/bin/rustc
fi
# Your kernel tree's checks: one core's work (unpacking, git, Kconfig),
# beside the loop's builds; the hook's tree_edit waits for them.
tree_checks() {
	step linux-tree-round-trip linux_tree_round_trip
	ok=$step_ok
	step linux-tree-bad-input linux_tree_bad_input
	# The series' Kconfig guards (linux/kconfig-guards): the kernel's own
	# Kconfig in that tree keeps Rust off where the series must
	[ "$ok" -eq 0 ] || step kconfig-guards utils/kconfig-guards.sh "$tree"
	echo "$ok" >"$logs/tree-ok"
}
rm -f "$logs/tree-ok"
tree_pid=
if [ "$mode" = all ]; then
	tree_checks &
	tree_pid=$!
fi
export TREE_ARCHES

# Each defconfig, then each cell: built, its steps (hook), booted and
# tested by the harness's loop, one arch booting while the next builds.
# An arch without results counts as a failure in the end.
archs=
for d in $defconfigs; do
	arch=$(printf '%s\n' "$arch_table" | awk -v d="$d" '$2 == d { print $1 }')
	if [ -z "$arch" ]; then
		echo "FAIL $d names no arch (harness list)"
		record FAIL "arch-of-$d" 0
		continue
	fi
	archs="$archs --arch $arch"
done
for cell in $(printf '%s\n' "$cells" | cut -d' ' -f1); do archs="$archs --arch $cell"; done
if [ "$mode" = all ]; then
	rm -f output/tests/*/results.json
else
	for cell in $(printf '%s\n' "$cells" | cut -d' ' -f1); do rm -f "output/tests/$cell/results.json"; done
fi
harness_rc=0
if [ -n "$archs" ]; then
	{
		rc=0
		# shellcheck disable=SC2086 # one word per argument
		harness check $archs --hook "utils/check.sh --hook" --steps "$steps" --logs "$logs" || rc=$?
		echo "$rc" >"$logs/loop.rc"
	} | tee "$logs/boot-tests.log"
	harness_rc=$(cat "$logs/loop.rc")
fi
[ -z "$tree_pid" ] || wait "$tree_pid"

# The harness's failure paths on a real QEMU (its tests cover them on
# recorded consoles): a kernel panic and a hung guest must give exit 2,
# naming the reason, on the first arch that booted.
# expect_failure REASON ARGS...: the harness exits 2 and prints REASON
expect_failure() {
	reason=$1
	shift
	rc=0
	out=$(harness run --arch "$first_arch" "$@" 2>&1) || rc=$?
	printf '%s\n' "$out"
	[ "$rc" -eq 2 ] || { echo "expected exit 2, got $rc"; return 1; }
	case $out in *"$reason"*) ;; *) echo "no '$reason' in the output"; return 1 ;; esac
}
first_arch=
for a in $archs; do
	[ "$a" != --arch ] && [ -f "output/tests/$a/results.json" ] && first_arch=$a && break
done
if [ "$mode" = all ] && [ -n "$first_arch" ]; then
	step real-qemu-panic-detected expect_failure 'infrastructure failure (kernel-panic)' \
		--results-dir output/tests-failure/panic --kernel-arg root=/dev/nosuchdisk --kernel-arg rootwait=0
	step real-qemu-hang-detected expect_failure 'infrastructure failure (boot-timeout)' \
		--results-dir output/tests-failure/hang --kernel-arg init=/bin/sh --timeout-multiplier 0.1
fi

# LAVA (README "Run it in a LAVA lab"): a job for every built QEMU arch,
# validated (and a broken one rejected), then those of LAVA_ARCHES run by
# LAVA's own dispatcher and judged as their direct boots were
lava_jobs() {
	rm -rf output/lava
	harness lava-jobs || return 1
	set -- output/lava/*/job.yaml
	if [ ! -f "$1" ]; then
		echo "SKIP lava-jobs: no QEMU arch was built in this run (um is no LAVA device)"
		return 77
	fi
	utils/lava-validate.sh output/lava
}
labs=
if [ "$mode" = all ] && [ -n "$first_arch" ]; then
	step lava-jobs lava_jobs
	lava=
	for a in ${LAVA_ARCHES:-x86_64 riscv64}; do
		rm -rf "output/tests/$a@lava"
		[ ! -f "output/tests/$a/results.json" ] || lava="$lava --arch $a"
	done
	# shellcheck disable=SC2086 # one word per argument
	[ -z "$lava" ] || step lava-run harness lava-run $lava
	for a in ${LAVA_ARCHES:-x86_64 riscv64}; do
		[ ! -f "output/tests/$a@lava/results.json" ] || labs="$labs --arch $a@lava"
	done
fi

# the tree of the kernel-tree checks (make check only)
[ "$mode" != all ] || [ "${PRUNE:-0}" != 1 ] || rm -rf "$tree"

# The boot tests' counts from the results.json files, and the arch matrix.
# kcidb ARGS: the run's KCIDB document (output/tests/kcidb.json), valid
# for kcidb-io's validator, which rejects a broken copy
kcidb() {
	harness kcidb "$@" && utils/kcidb-validate.sh output/tests/kcidb.json
}
passed=0
failed=0
skipped=0
if [ -n "$archs" ]; then
	# shellcheck disable=SC2086 # one word per argument
	set -- $archs
	# the matrix of every arch and cell with results (--toolchains: the
	# arches of an earlier make check too)
	if [ "$mode" = all ]; then harness matrix "$@"; else harness matrix; fi | tail -n 1
	# the lab runs are runs of the same builds: in KCIDB and the counts
	# shellcheck disable=SC2086 # one word per argument
	set -- "$@" $labs
	step kcidb kcidb "$@"
	# every failing test again (the end of a long log), then the counts:
	# the summary's last tab-separated row is the total
	harness summary "$@" | sed '$d'
	IFS=$(printf '\t') read -r _ _ passed failed skipped <<EOF2
$(harness summary --format tsv "$@" | tail -n 1)
EOF2
	case "${passed:-x}${failed:-x}${skipped:-x}" in
	*[!0-9]*)
		echo "FAIL boot-tests: no counts from the results.json files (harness exit $harness_rc)"
		passed=0 failed=1 skipped=0
		;;
	*) [ "$harness_rc" -eq 0 ] || [ "$failed" -gt 0 ] || failed=$((failed + 1)) ;;
	esac
fi
# the steps of every process: this one's, the loop's and its hooks'
passed=$((passed + $(grep -c '^ok' "$steps" || :)))
failed=$((failed + $(grep -c '^FAIL' "$steps" || :)))
skipped=$((skipped + $(grep -c '^SKIP' "$steps" || :)))
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
