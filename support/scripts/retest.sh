#!/bin/sh
# The edit -> result loop (make retest [ARCH=x86_64|all|<arch>,<arch>...]):
# for each arch, rebuild what changed in its existing output, boot it in
# quick mode, then one table of every arch's results; exit non-zero if an
# arch failed (or, named in ARCH, was never built). The kernel is rebuilt
# incrementally (<kernel>-rebuild; from your kernel tree, LINUX_TREE: its
# changed files rsynced first), and so are the out-of-tree module packages,
# the on-target runner and its manifest; the root filesystem image is made
# again. The wrapper extracts the kernel again when its source changed
# (patches/linux/ or LINUX_TREE: linux/kernel-source.sh).
# Usage: support/scripts/retest.sh ARCHES [HARNESS RUN ARGUMENTS...]
set -eu

cd "$(dirname "$0")/../.."
arches=${1:?usage: retest.sh ARCH[,ARCH...]|all [harness run arguments]}
shift
harness() { cargo run -q --release -p rust-qemu-test -- "$@"; }

# "<arch> <output> <defconfig> [<toolchain>]": the arches, then the cells
# of the toolchain axis (support/toolchains/axis.toml), which ARCH may name
table=$(harness list | awk '{ print $1, $2, $2 }' &&
	harness list --cells | awk '{ print $1, $2 "+" $3, $2, $3 }')
all=
if [ "$arches" = all ]; then
	all=1
	arches=$(harness list | cut -d' ' -f1)
else
	arches=$(echo "$arches" | tr ',' ' ')
fi

# retest_one ARCH OUTPUT [HARNESS RUN ARGUMENTS...]: rebuild, then boot
# in quick mode
retest_one() {
	arch=$1
	out=$(pwd)/output/$2
	shift 2
	# The kernel package: Buildroot's linux, or linux-um (UML)
	kernel=linux
	grep -q '^BR2_PACKAGE_LINUX_UM=y' "$out/.config" && kernel=linux-um
	# rust-tests too: its source (package/rust-tests/src, the runner and
	# the manifest) is copied into the output only by a (re)build; and every
	# kernel-module package of the output, against the rebuilt kernel
	# shellcheck disable=SC2016 # the make expressions, literally
	modules=$(grep -lE '^\$\(eval \$\((rust-)?kernel-module\)\)' package/*/*.mk | while read -r mk; do
		pkg=$(basename "$mk" .mk)
		sym=BR2_PACKAGE_$(echo "$pkg" | tr a-z- A-Z_)
		if grep -q "^$sym=y" "$out/.config"; then echo "$pkg-rebuild"; fi
	done)
	start=$(date +%s)
	# shellcheck disable=SC2086 # one goal per word
	make O="$out" "$kernel-rebuild" $modules rust-tests-rebuild all || return 3
	echo ">>> retest: $arch rebuilt in $(($(date +%s) - start)) s"
	harness run --arch "$arch" --kernel-arg rusttest=quick "$@"
}

# harness summary reads the results where harness run wrote them
summary_args=
prev=
for a; do
	[ "$prev" != --results-dir ] || summary_args="--results-dir $a"
	prev=$a
done

rows=
rc=0
for arch in $arches; do
	read -r output defconfig toolchain <<EOF
$(printf '%s\n' "$table" | awk -v a="$arch" '$1 == a { print $2, $3, $4 }')
EOF
	if [ -z "$output" ]; then
		echo "retest: no arch '$arch'; the arches are: $(printf '%s\n' "$table" | cut -d' ' -f1 | tr '\n' ' ')" >&2
		exit 2
	fi
	if [ ! -f "output/$output/.config" ]; then
		rows="$rows$arch|not built: make $defconfig${toolchain:+ TOOLCHAIN=$toolchain} && make|||
"
		[ -n "$all" ] || rc=2
		continue
	fi
	start=$(date +%s)
	arc=0
	retest_one "$arch" "$output" "$@" || arc=$?
	secs=$(($(date +%s) - start))
	case $arc in
	0) result=ok ;;
	3) result="FAIL: build (above)" ;;
	*) result="FAIL (harness exit $arc)" ;;
	esac
	[ "$arc" -eq 0 ] || rc=1
	counts='' failing=''
	# shellcheck disable=SC2086 # none or two words
	if [ "$arc" -ne 3 ] && summary=$(harness summary --arch "$arch" $summary_args 2>/dev/null); then
		counts=$(printf '%s\n' "$summary" | tail -n 1)
		failing=$(printf '%s\n' "$summary" | sed -e '$d' -e '/^failures:$/d' | tr '\n' ';')
	fi
	rows="$rows$arch|$result|$counts|$secs|$failing
"
done

echo
printf '%-20s %-28s %-34s %6s  %s\n' arch result counts seconds "failing tests"
printf '%s' "$rows" | while IFS='|' read -r a r c s f; do
	printf '%-20s %-28s %-34s %6s  %s\n' "$a" "$r" "$c" "$s" "$f"
done
exit "$rc"
