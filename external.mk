# The kernel's Rust glue first (the linux package has included it already;
# package/linux-um and the kernel-module packages use it), then the
# packages and the toolchain package.
include $(BR2_EXTERNAL_RUST_QEMU_PATH)/linux/rust-kernel.mk

include $(sort $(wildcard $(BR2_EXTERNAL_RUST_QEMU_PATH)/package/*/*.mk))

include $(sort $(wildcard $(BR2_EXTERNAL_RUST_QEMU_PATH)/toolchain/*/*.mk))
