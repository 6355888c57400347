#!/bin/sh
# The Kconfig guards of the patch series (linux/kconfig-guards), each case
# configured with the kernel's own Kconfig in a kernel tree of the series
# (make linux-tree): its defconfig, the settings added, olddefconfig, then
# every expected value. Prints one line per case; exit 1 if one failed.
# First, the series' minimum rustc (its scripts/min-tool-version.sh) must
# be RUST_MIN_VERSION of support/versions.env, which the build checks.
# Usage: kconfig-guards.sh TREE
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:?usage: kconfig-guards.sh TREE}
# shellcheck source=support/versions.env
. "$top/support/versions.env"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
n=0
min=$(sh "$tree/scripts/min-tool-version.sh" rustc)
if [ "$min" = "$RUST_MIN_VERSION" ]; then
	echo "ok   the series' minimum rustc (scripts/min-tool-version.sh) is RUST_MIN_VERSION $min"
else
	echo "FAIL the series' minimum rustc is $min (scripts/min-tool-version.sh), RUST_MIN_VERSION $RUST_MIN_VERSION"
	failed=1
fi
# @RUSTC_BELOW_MIN@: Debian's rustc, saying it is the release before the
# minimum (1.85.0: 1.84.0)
below=$(echo "$RUST_MIN_VERSION" | awk -F. '{ print $1 "." $2 - 1 ".0" }')
printf '#!/bin/sh\n/usr/bin/rustc "$@" | sed "s/^rustc [0-9.]*/rustc %s/"\n' "$below" >"$work/rustc-below"
chmod +x "$work/rustc-below"
sed -e '/^#/d' -e '/^ *$/d' -e "s/@LLVM@/$LLVM_VERSION/g" -e "s/@GCC@/$GCC_VERSION/g" \
	-e "s|@RUSTC_BELOW_MIN@|$work/rustc-below|g" "$top/linux/kconfig-guards" >"$work/cases"
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
