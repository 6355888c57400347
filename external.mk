# The kernel's Rust glue first (the linux package has included it already;
# package/linux-um and the kernel-module packages use it), then the
# packages and the toolchain package.
include $(BR2_EXTERNAL_RUST_QEMU_PATH)/linux/rust-kernel.mk

include $(sort $(wildcard $(BR2_EXTERNAL_RUST_QEMU_PATH)/package/*/*.mk))

include $(sort $(wildcard $(BR2_EXTERNAL_RUST_QEMU_PATH)/toolchain/*/*.mk))

# busybox's Kconfig writes the time into include/autoconf.h, which each of
# its objects includes: no two builds matched in ccache's direct mode (every
# object preprocessed again, ~25 s a build). Without the time, as
# BR2_REPRODUCIBLE does it.
BUSYBOX_MAKE_ENV += KCONFIG_NOTIMESTAMP=1
