include $(sort $(wildcard $(BR2_EXTERNAL_RUST_QEMU_PATH)/package/*/*.mk))

# The external toolchain of the defconfigs is Debian's packaged cross
# compiler, imported through a directory generated into the output tree
# (see toolchain/debian-cross.sh). Generate it before Buildroot checks it.
ifeq ($(BR2_TOOLCHAIN_EXTERNAL_CUSTOM),y)
RUST_QEMU_TOOLCHAIN_DIR = $(call qstrip,$(BR2_TOOLCHAIN_EXTERNAL_PATH))
ifeq ($(RUST_QEMU_TOOLCHAIN_DIR),$(HOST_DIR)/opt/debian-cross)
$(RUST_QEMU_TOOLCHAIN_DIR)/.stamp_generated:
	$(BR2_EXTERNAL_RUST_QEMU_PATH)/toolchain/debian-cross.sh \
		$(call qstrip,$(BR2_TOOLCHAIN_EXTERNAL_CUSTOM_PREFIX)) $(@D)

$(BUILD_DIR)/toolchain-external-custom/.stamp_configured: \
	$(RUST_QEMU_TOOLCHAIN_DIR)/.stamp_generated
endif
endif
