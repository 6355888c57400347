################################################################################
#
# Rust support in the kernel build (BR2_LINUX_KERNEL_RUST, Config.ext.in)
#
################################################################################

# Buildroot's linux package includes this file (linux-ext-*.mk of every
# br2-external tree). Not an extension of LINUX_EXTENSIONS: it patches
# nothing itself, it adds the kernel's Rust glue (linux/rust-kernel.mk,
# shared with package/linux-um) to the linux package's flags and hooks.

include $(call qstrip,$(BR2_EXTERNAL_RUST_QEMU_PATH))/linux/rust-kernel.mk

ifeq ($(BR2_LINUX_KERNEL_RUST),y)

# check-package TypoInPackageVariable
LINUX_RUST_LLVM = $(BR2_LINUX_KERNEL_RUST_LLVM)
# check-package TypoInPackageVariable
LINUX_RUST_BUILTIN_PARAM_SAMPLES = $(BR2_RUST_QEMU_BUILTIN_PARAM_SAMPLES)
# check-package TypoInPackageVariable
LINUX_RUST_KERNEL_TARBALL = \
	$(patsubst file://%,%,$(filter file://%,$(call qstrip,$(BR2_LINUX_KERNEL_CUSTOM_TARBALL_LOCATION))))

$(eval $(call rust-kernel,LINUX,linux))

# ppc64: every module of the target in the large code model, as 0034
# builds Rust modules (the loader does not range-check the medium model's
# relocations): checked once every package has installed its modules.
ifeq ($(BR2_powerpc64)$(BR2_powerpc64le),y)
define LINUX_RUST_CHECK_MODULE_CODE_MODEL
	$(RUST_KERNEL_DIR)/check-module-code-model.sh $(TARGET_DIR) $(TARGET_READELF)
endef
# check-package TypoInPackageVariable
LINUX_TARGET_FINALIZE_HOOKS += LINUX_RUST_CHECK_MODULE_CODE_MODEL
endif

# A gcc-only warning option that clang rejects (with CONFIG_WERROR).
ifeq ($(LINUX_RUST_LLVM),y)
# check-package TypoInPackageVariable
LINUX_CFLAGS := $(filter-out -Wno-attribute-alias,$(LINUX_CFLAGS))
endif

endif
