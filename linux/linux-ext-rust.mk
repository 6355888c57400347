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
LINUX_RUST_BUILTIN_PARAM_SAMPLES = $(BR2_LINUX_KERNEL_RUST_BUILTIN_PARAM_SAMPLES)
# check-package TypoInPackageVariable
LINUX_RUST_KERNEL_TARBALL = \
	$(patsubst file://%,%,$(filter file://%,$(call qstrip,$(BR2_LINUX_KERNEL_CUSTOM_TARBALL_LOCATION))))

$(eval $(call rust-kernel,LINUX,linux))

# A gcc-only warning option that clang rejects (with CONFIG_WERROR).
ifeq ($(LINUX_RUST_LLVM),y)
# check-package TypoInPackageVariable
LINUX_CFLAGS := $(filter-out -Wno-attribute-alias,$(LINUX_CFLAGS))
endif

endif
