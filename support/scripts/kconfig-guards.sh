#!/bin/sh
# The Kconfig guards of the patch series (linux/kconfig-guards), each case
# configured with the kernel's own Kconfig in a kernel tree of the series
# (make linux-tree): its defconfig, the settings added, olddefconfig, then
# every expected value. Prints one line per case; exit 1 if one failed.
# Usage: kconfig-guards.sh TREE
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
tree=${1:?usage: kconfig-guards.sh TREE}
# shellcheck source=support/versions.env
. "$top/support/versions.env"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
n=0
sed -e '/^#/d' -e '/^ *$/d' -e "s/@LLVM@/$LLVM_VERSION/g" -e "s/@GCC@/$GCC_VERSION/g" \
	"$top/linux/kconfig-guards" >"$work/cases"
while IFS='|' read -r vars defconfig settings expected; do
	n=$((n + 1))
	o=$work/$n
	# shellcheck disable=SC2086 # make variables, one a word
	if ! make -s -C "$tree" O="$o" $vars $defconfig >"$o.log" 2>&1 ||
		{ printf '%s\n' $settings >>"$o/.config" &&
			! make -s -C "$tree" O="$o" $vars olddefconfig >>"$o.log" 2>&1; }; then
		echo "FAIL $vars $defconfig: Kconfig failed: $(tail -n 3 "$o.log" | tr '\n' ' ')"
		failed=1
		continue
	fi
	bad=
	for want in $expected; do
		sym=${want%%=*}
		have=$(sed -n "s/^$sym=//p" "$o/.config")
		[ "${have:-n}" = "${want#*=}" ] || bad="$bad $sym=${have:-n} (want ${want#*=})"
	done
	if [ -n "$bad" ]; then
		echo "FAIL $vars $defconfig +$settings:$bad"
		failed=1
	else
		echo "ok   $vars $defconfig +$settings:$expected"
	fi
done <"$work/cases"
exit "$failed"
