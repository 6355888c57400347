#!/bin/sh
# Generate images/start-qemu.sh from the line of board/qemu/*/readme.txt
# tagged "# <defconfig>", as Buildroot's own board/qemu does.
# Arguments (BR2_ROOTFS_POST_SCRIPT_ARGS): $1 images dir, $2 the defconfig.
set -eu

board_dir=$(dirname "$0")
defconfig=$(basename "$2")
cmd=$(sed -n "s|^[[:space:]]*\(qemu-system-.*\) # $defconfig\$|\1|p" "$board_dir"/*/readme.txt)
if [ -z "$cmd" ]; then
	echo "post-image.sh: no line tagged '# $defconfig' in $board_dir/*/readme.txt" >&2
	exit 1
fi
sed -e "s|@QEMU_CMD_LINE@|$(printf '%s' "$cmd" | sed 's|output/images/||g')|" \
	"$board_dir/start-qemu.sh.in" >"$BINARIES_DIR/start-qemu.sh"
chmod +x "$BINARIES_DIR/start-qemu.sh"
