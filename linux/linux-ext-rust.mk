################################################################################
#
# Rust support in the kernel build (BR2_LINUX_KERNEL_RUST, Config.ext.in)
#
################################################################################

# Buildroot's linux package includes this file (linux-ext-*.mk of every
# br2-external tree). Not an extension of LINUX_EXTENSIONS: it patches
# nothing itself, it adds to the linux package's flags and hooks.

# The host's Rust toolchain for every kernel make.
ifeq ($(BR2_LINUX_KERNEL_RUST),y)

LINUX_RUST_RUSTC = $(call qstrip,$(BR2_LINUX_KERNEL_RUST_RUSTC))
LINUX_RUST_RUSTDOC = $(call qstrip,$(BR2_LINUX_KERNEL_RUST_RUSTDOC))
LINUX_RUST_BINDGEN = $(call qstrip,$(BR2_LINUX_KERNEL_RUST_BINDGEN))
LINUX_RUST_LLVM = $(call qstrip,$(BR2_LINUX_KERNEL_RUST_LLVM))

# HOSTCC comes last and wins: the kernel passes it to rustc as
# -Clinker=$(HOSTCC), which breaks on the flags Buildroot adds to it.
# check-package TypoInPackageVariable
LINUX_MAKE_FLAGS += \
	RUSTC=$(LINUX_RUST_RUSTC) \
	HOSTRUSTC=$(LINUX_RUST_RUSTC) \
	RUSTDOC=$(LINUX_RUST_RUSTDOC) \
	BINDGEN=$(LINUX_RUST_BINDGEN) \
	$(if $(LINUX_RUST_LLVM),LLVM=$(LINUX_RUST_LLVM)) \
	HOSTCC="$(HOSTCC_NOCCACHE)"

# With LLVM=, the kernel calls clang directly, not Buildroot's toolchain
# wrapper (which adds ccache): add it as the kernel's docs show.
ifeq ($(BR2_CCACHE)$(if $(LINUX_RUST_LLVM),y),yy)
# check-package TypoInPackageVariable
LINUX_MAKE_FLAGS += CC="$(CCACHE) clang$(LINUX_RUST_LLVM)"
endif

# A gcc-only warning option that clang rejects (with CONFIG_WERROR).
ifneq ($(LINUX_RUST_LLVM),)
# check-package TypoInPackageVariable
LINUX_CFLAGS := $(filter-out -Wno-attribute-alias,$(LINUX_CFLAGS))
endif

LINUX_RUST_CHECK_ENV = \
	RUSTC="$(LINUX_RUST_RUSTC)" \
	RUSTDOC="$(LINUX_RUST_RUSTDOC)" \
	BINDGEN="$(LINUX_RUST_BINDGEN)" \
	LLVM="$(LINUX_RUST_LLVM)" \
	KERNEL_TARBALL="$(patsubst file://%,%,$(filter file://%,$(call qstrip,$(BR2_LINUX_KERNEL_CUSTOM_TARBALL_LOCATION))))"

# Before anything is downloaded or built: a wrong toolchain fails in
# seconds, not after the host tools have been built.
.PHONY: linux-rust-check-toolchain
linux-rust-check-toolchain:
	@$(LINUX_RUST_CHECK_ENV) \
		$(BR2_EXTERNAL_RUST_QEMU_PATH)/support/scripts/check-rust-toolchain.sh

dependencies: linux-rust-check-toolchain

# The kernel's own check, before its configuration: Kconfig would
# otherwise drop CONFIG_RUST without a word.
define LINUX_RUST_AVAILABLE
	$(LINUX_MAKE_ENV) $(BR2_MAKE) $(LINUX_MAKE_FLAGS) -C $(@D) rustavailable
endef
LINUX_POST_PATCH_HOOKS += LINUX_RUST_AVAILABLE

ifeq ($(BR2_LINUX_KERNEL_RUST_BUILTIN_PARAM_SAMPLES),y)
LINUX_POST_PATCH_HOOKS += RUST_QEMU_BUILTIN_PARAM_SAMPLES
endif

endif

# Built-in copies of the module parameters sample, for the boot tests
# (BR2_LINUX_KERNEL_RUST_BUILTIN_PARAM_SAMPLES; linux-um's own option).
define RUST_QEMU_BUILTIN_PARAM_SAMPLES
	$(BR2_EXTERNAL_RUST_QEMU_PATH)/support/scripts/linux-builtin-sample-copies.sh \
		$(@D) rust_module_parameters builtin_default builtin_custom
endef

# The patch series the kernel (linux, or linux-um: package/linux-um) was
# patched with: make retest (support/scripts/retest.sh) re-patches the
# kernel when it changed.
define RUST_QEMU_PATCH_SERIES
	cat $(BR2_EXTERNAL_RUST_QEMU_PATH)/patches/linux/*.patch | sha256sum | \
		cut -d' ' -f1 >$(BASE_DIR)/.rust-qemu-patch-series
endef
LINUX_POST_PATCH_HOOKS += RUST_QEMU_PATCH_SERIES

# Every symbol the configuration fragments set must be in the final .config
# (Kconfig drops what the architecture or a dependency does not allow).
define RUST_QEMU_CHECK_FRAGMENTS_APPLIED
	$(BR2_EXTERNAL_RUST_QEMU_PATH)/support/scripts/check-kconfig-fragments.sh \
		$(@D)/.config $(LINUX_KCONFIG_FRAGMENT_FILES)
endef
# check-package TypoInPackageVariable
LINUX_PRE_CONFIGURE_HOOKS += RUST_QEMU_CHECK_FRAGMENTS_APPLIED
