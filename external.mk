include $(sort $(wildcard $(BR2_EXTERNAL_RUST_QEMU_PATH)/package/*/*.mk))

include $(sort $(wildcard $(BR2_EXTERNAL_RUST_QEMU_PATH)/toolchain/*/*.mk))
