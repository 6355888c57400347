#!/bin/sh
# Check that every symbol set by the kernel configuration fragments has the
# same value in the final .config: Kconfig silently drops a symbol whose
# dependencies are not met. Fragments merge in order: a symbol's value is
# the one of the last fragment that sets it (an arch's fragment may turn
# off what a common one turns on).
# Usage: check-kconfig-fragments.sh [-x SYMBOL]... .config FRAGMENT...
# -x: a symbol the architecture does not have (not checked, said so).
set -eu

skip=
while [ "${1:-}" = -x ]; do
	skip="$skip $2"
	shift 2
done
config=$1
shift
[ -z "$skip" ] || echo ">>> Not on this architecture, not checked:$skip"
tab=$(printf '\t')
# wanted: "CONFIG_X=v<TAB>fragment" ("# CONFIG_X is not set": v = n), the
# last line of each symbol, in the order of the fragments
wanted() {
	for fragment; do
		sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)/\1/p' \
			-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1=n/p' "$fragment" |
			sed "s|\$|$tab${fragment##*/}|"
	done | awk -F'\t' '{ sym = $1; sub(/=.*/, "", sym); last[sym] = $0; at[sym] = NR }
		END { for (s in last) print at[s] "\t" last[s] }' | sort -n | cut -f2-
}
missing=$(wanted "$@" | while IFS=$tab read -r want fragment; do
	sym=${want%%=*}
	case " $skip " in *" $sym "*) continue ;; esac
	have=$(sed -n -e "s/^$sym=\(.*\)/\1/p" -e "s/^# $sym is not set/n/p" "$config")
	[ "${want#*=}" = "${have:-n}" ] && continue
	printf 'ERROR: %s (from %s) is %s in the kernel .config\n' "$want" "$fragment" "${have:-n}" >&2
	case $sym in
	CONFIG_RUST) printf '       Likely causes: "make rustavailable" failed (see above), MODVERSIONS on,\n       or riscv64 built without LLVM (BR2_LINUX_KERNEL_RUST_LLVM).\n' >&2 ;;
	*) printf '       Likely cause: an unmet dependency; see "Depends on" in make linux-menuconfig.\n' >&2 ;;
	esac
	echo "$sym"
done)
if [ -n "$missing" ]; then
	echo "The kernel configuration lacks symbols its fragments require (above)." >&2
	exit 1
fi
echo ">>> Kernel .config has every symbol of: $*"
