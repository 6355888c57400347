#!/bin/sh
# Generate images/start-qemu.sh from the line of board/qemu/*/readme.txt
# tagged "# <defconfig>", as Buildroot's own board/qemu does. If that line
# has "-dtb output/images/<name>.dtb", also generate the DTB: QEMU's own
# device tree for that command line with the overlay common/<name>.dtso
# applied. A line may also start with a program of the images instead
# of QEMU (output/images/linux-um for UML): its "dtb=output/images/<name>.dtb"
# is the overlay on an empty tree; a copy-on-write file it names
# (ubd0=output/images/<cow>,<backing file>) is removed: UML would refuse
# it after the backing file is rebuilt.
# Arguments (BR2_ROOTFS_POST_SCRIPT_ARGS): $1 images dir, $2 the defconfig.
set -eu

board_dir=$(dirname "$0")
defconfig=$(basename "$2")
readme=$(grep -l " # $defconfig\$" "$board_dir"/*/readme.txt || true)
cmd=$(sed -n -e "s|^[[:space:]]*\(qemu-system-.*\) # $defconfig\$|\1|p" \
	-e "s|^[[:space:]]*\(output/images/.*\) # $defconfig\$|\1|p" "${readme:-/dev/null}")
if [ -z "$cmd" ]; then
	echo "post-image.sh: no line tagged '# $defconfig' in $board_dir/*/readme.txt" >&2
	exit 1
fi

dtb=$(printf '%s\n' "$cmd" | sed -n 's#.* \(-dtb \|dtb=\)output/images/\([^ ]*\)\.dtb.*#\2#p')
if [ -n "$dtb" ]; then
	qemu=${cmd%% *}
	[ "${qemu#output/images/}" = "$qemu" ] || qemu=
	for tool in $qemu dtc fdtoverlay; do
		if ! command -v "$tool" >/dev/null; then
			echo "post-image.sh: $tool not found; it makes images/$dtb.dtb:" \
				"support/setup-host.sh installs it (QEMU, device-tree-compiler)" >&2
			exit 1
		fi
	done
	if [ -n "$qemu" ]; then
		dump=$(printf '%s\n' "$cmd" | sed -e "s| -dtb output/images/$dtb.dtb||" \
			-e "s|output/images/|$BINARIES_DIR/|g")
		eval "$dump -machine dumpdtb=$BINARIES_DIR/$dtb-base.dtb" >/dev/null
	else
		printf '/dts-v1/;\n/ { #address-cells = <2>; #size-cells = <2>; };\n' |
			dtc -q -I dts -O dtb -o "$BINARIES_DIR/$dtb-base.dtb" -
	fi
	dtc -q -I dts -O dtb -o "$BINARIES_DIR/$dtb.dtbo" "$board_dir/common/$dtb.dtso"
	fdtoverlay -i "$BINARIES_DIR/$dtb-base.dtb" -o "$BINARIES_DIR/$dtb.dtb" \
		"$BINARIES_DIR/$dtb.dtbo"
	rm "$BINARIES_DIR/$dtb-base.dtb" "$BINARIES_DIR/$dtb.dtbo"
fi

cow=$(printf '%s\n' "$cmd" | sed -n 's|.* ubd[0-9]*=output/images/\([^ ,]*\),.*|\1|p')
[ -z "$cow" ] || rm -f "$BINARIES_DIR/$cow"

sed -e "s|@QEMU_CMD_LINE@|$(printf '%s' "$cmd" | sed -e 's|^output/images/|./|' -e 's|output/images/||g')|" \
	"$board_dir/start-qemu.sh.in" >"$BINARIES_DIR/start-qemu.sh"
chmod +x "$BINARIES_DIR/start-qemu.sh"
