#!/bin/sh
# ppc64: every kernel module of the target must be in the large code model,
# as the kernel builds C modules (-mcmodel=large) and, with patch 0034, Rust
# ones: the module loader applies the medium model's 32-bit TOC-relative
# relocations without a range check, and module text and data may be
# allocated further apart than 2 GiB. Medium-model code shows as
# R_PPC64_REL16_HA/LO (the TOC pointer computed from the entry point) and
# R_PPC64_TOC16_* against anything but the module's .toc section (data
# reached directly from the TOC pointer); large-model code has neither.
# Usage: check-module-code-model.sh TARGET_DIR READELF
set -eu

target=$1
readelf=$2
checked=0
bad=
for ko in $(find "$target/lib/modules" -name '*.ko' | sort); do
	checked=$((checked + 1))
	found=$("$readelf" -rW "$ko" | awk '
		$3 ~ /^R_PPC64_REL16_(HA|LO)$/ { print $3 " " $5; next }
		$3 ~ /^R_PPC64_TOC16/ && $5 != ".toc" { print $3 " " $5 }' | sort -u | head -n 3)
	[ -z "$found" ] || bad="$bad
  ${ko##*/}: $(echo "$found" | tr '\n' ';')"
done
if [ "$checked" -eq 0 ]; then
	echo "check-module-code-model.sh: no module in $target/lib/modules" >&2
	exit 1
fi
if [ -n "$bad" ]; then
	echo "ERROR: kernel modules in the medium code model (their loader does not range-check these relocations):$bad" >&2
	echo "       Rust modules take -Ccode-model=large from arch/powerpc/Makefile (patch 0034)." >&2
	exit 1
fi
echo ">>> $checked kernel modules, all in the large code model (no medium-model relocation)"
