################################################################################
#
# The kernel's Rust glue, one for both kernel packages
#
################################################################################

# Included by linux/linux-ext-rust.mk (Buildroot's linux package) and by
# package/linux-um/linux-um.mk, each of which then expands
#   $(eval $(call rust-kernel,PKG,pkg))
# for its make prefix PKG and package name pkg, with
#   PKG_RUST_LLVM = y            the kernel's C built with clang (LLVM=)
#   PKG_RUST_BUILTIN_PARAM_SAMPLES = y   built-in copies of a sample
#   PKG_RUST_NOT_ON_ARCH = ...   fragment symbols the architecture lacks
#   PKG_RUST_KERNEL_TARBALL      the kernel tarball, for the toolchain check
# Everything here happens once the kernel source is there: after Buildroot's
# patch step, or, for a kernel from your tree (LINUX_TREE,
# support/override.mk), after its rsync step, which replaces extract and
# patch.

ifneq ($(RUST_KERNEL_MK),y)
RUST_KERNEL_MK = y

RUST_KERNEL_DIR = $(BR2_EXTERNAL_RUST_QEMU_PATH)/linux

# The LLVM major of LLVM= (support/versions.env: its one place)
RUST_KERNEL_LLVM_VERSION := \
	$(shell sed -n 's/^LLVM_VERSION=//p' $(BR2_EXTERNAL_RUST_QEMU_PATH)/support/versions.env)

# The host's Rust toolchain (Config.in, BR2_RUST_QEMU_*), for both kernels
RUST_KERNEL_RUSTC = $(call qstrip,$(BR2_RUST_QEMU_RUSTC))
RUST_KERNEL_RUSTDOC = $(call qstrip,$(BR2_RUST_QEMU_RUSTDOC))
RUST_KERNEL_BINDGEN = $(call qstrip,$(BR2_RUST_QEMU_BINDGEN))
RUST_KERNEL_LIBCLANG_PATH = $(call qstrip,$(BR2_RUST_QEMU_LIBCLANG_PATH))
# The libclang bindgen loads, if not its own choice: for every kernel make
# and the toolchain check
RUST_KERNEL_LIBCLANG_ENV = \
	$(if $(RUST_KERNEL_LIBCLANG_PATH),LIBCLANG_PATH=$(RUST_KERNEL_LIBCLANG_PATH))

# The kernel's Rust objects cached as its C ones (BR2_CCACHE): rustc
# through linux/rustc-cache.sh, its cache in RUST_QEMU_RUSTC_CACHE_DIR (the
# top-level Makefile's; unset: no cache).
RUST_KERNEL_RUSTC_CACHE_DIR = $(if $(BR2_CCACHE),$(RUST_QEMU_RUSTC_CACHE_DIR))
RUST_KERNEL_RUSTC_CACHED = \
	$(if $(RUST_KERNEL_RUSTC_CACHE_DIR),$(RUST_KERNEL_DIR)/rustc-cache.sh,$(RUST_KERNEL_RUSTC))

# rust-kernel PKG,pkg: the glue of one kernel package
define rust-kernel

# check-package Indent
$(1)_RUST_LLVM_FLAG = $$(if $$(filter y,$$($(1)_RUST_LLVM)),-$$(RUST_KERNEL_LLVM_VERSION))

# HOSTCC comes last and wins: the kernel passes it to rustc as
# -Clinker=$$(HOSTCC), which breaks on the flags Buildroot adds to it.
# check-package Indent
$(1)_MAKE_FLAGS += \
	RUSTC=$$(RUST_KERNEL_RUSTC_CACHED) \
	HOSTRUSTC=$$(RUST_KERNEL_RUSTC) \
	RUSTDOC=$$(RUST_KERNEL_RUSTDOC) \
	BINDGEN=$$(RUST_KERNEL_BINDGEN) \
	$$(if $$($(1)_RUST_LLVM_FLAG),LLVM=$$($(1)_RUST_LLVM_FLAG)) \
	HOSTCC="$$(HOSTCC_NOCCACHE)"

# check-package Indent
$(1)_MAKE_ENV += $$(RUST_KERNEL_LIBCLANG_ENV) \
	RUST_QEMU_RUSTC=$$(RUST_KERNEL_RUSTC) \
	RUST_QEMU_RUSTC_CACHE_DIR=$$(RUST_KERNEL_RUSTC_CACHE_DIR)

# With LLVM=, the kernel calls clang directly, not Buildroot's toolchain
# wrapper (which adds ccache): add it as the kernel's docs show.
ifeq ($$(BR2_CCACHE)$$($(1)_RUST_LLVM),yy)
# check-package Indent
$(1)_MAKE_FLAGS += CC="$$(CCACHE) clang$$($(1)_RUST_LLVM_FLAG)"
endif

# Before anything is downloaded or built: a wrong toolchain fails in
# seconds, not after the host tools have been built.
.PHONY: $(2)-rust-check-toolchain
$(2)-rust-check-toolchain:
	@RUSTC="$$(RUST_KERNEL_RUSTC)" RUSTDOC="$$(RUST_KERNEL_RUSTDOC)" \
		BINDGEN="$$(RUST_KERNEL_BINDGEN)" LLVM="$$($(1)_RUST_LLVM_FLAG)" \
		$$(RUST_KERNEL_LIBCLANG_ENV) \
		KERNEL_TARBALL="$$(if $$($(1)_OVERRIDE_SRCDIR),,$$($(1)_RUST_KERNEL_TARBALL))" \
		$$(RUST_KERNEL_DIR)/check-rust-toolchain.sh

dependencies: $(2)-rust-check-toolchain

# Once the source is there (patched, or rsynced from your tree):
# - the kernel's own check, before its configuration: Kconfig would
#   otherwise drop CONFIG_RUST without a word;
# - the built-in copies of the module parameters sample, for the boot
#   tests (as Rust-for-Linux's CI tested built-in parameters);
# - which source it is, for the wrapper (linux/kernel-source.sh): a change
#   of series or of LINUX_TREE extracts the kernel again.
define $(1)_RUST_SOURCE_READY
	$$($(1)_MAKE_ENV) $$(BR2_MAKE) $$($(1)_MAKE_FLAGS) -C $$(@D) rustavailable
	$$(if $$(filter y,$$($(1)_RUST_BUILTIN_PARAM_SAMPLES)),\
		$$(RUST_KERNEL_DIR)/builtin-sample-copies.sh $$(@D) \
			rust_module_parameters builtin_default builtin_custom)
	LINUX_TREE="$$($(1)_OVERRIDE_SRCDIR)" $$(RUST_KERNEL_DIR)/kernel-source.sh id \
		>$$(BASE_DIR)/.rust-qemu-kernel-source
endef

# The source's files, listed in the build directory once it is there, so
# that a later rsync from your tree (or a switch to it, which keeps the
# build directory: linux/kernel-source.sh keep) removes the files the tree
# lacks and, after a switch, copies by content. Not listed: Buildroot's
# own records at the top of the build directory.
define $(1)_RUST_LIST_PATCHED
	$$(RUST_KERNEL_DIR)/kernel-source.sh list $$(@D) --exclude='/.stamp_*' \
		--exclude=/.applied_patches_list --exclude='/.files-list*' \
		>$$(@D)/.rust-qemu-source-files
endef
define $(1)_RUST_SYNC
	$$(RUST_KERNEL_DIR)/kernel-source.sh sync $$($(1)_OVERRIDE_SRCDIR) $$(@D) \
		$$(RSYNC_VCS_EXCLUSIONS)
endef
define $(1)_RUST_LIST_RSYNCED
	$$(RUST_KERNEL_DIR)/kernel-source.sh list $$($(1)_OVERRIDE_SRCDIR) \
		$$(RSYNC_VCS_EXCLUSIONS) >$$(@D)/.rust-qemu-source-files
endef
$(1)_POST_PATCH_HOOKS += $(1)_RUST_LIST_PATCHED $(1)_RUST_SOURCE_READY
$(1)_PRE_RSYNC_HOOKS += $(1)_RUST_SYNC
$(1)_POST_RSYNC_HOOKS += $(1)_RUST_LIST_RSYNCED $(1)_RUST_SOURCE_READY

# Every symbol the configuration fragments set must be in the final
# .config (Kconfig drops what the architecture or a dependency does not
# allow).
define $(1)_RUST_CHECK_FRAGMENTS
	$$(RUST_KERNEL_DIR)/check-kconfig-fragments.sh \
		$$(addprefix -x ,$$($(1)_RUST_NOT_ON_ARCH)) \
		$$(@D)/.config $$($(1)_KCONFIG_FRAGMENT_FILES)
endef
$(1)_PRE_CONFIGURE_HOOKS += $(1)_RUST_CHECK_FRAGMENTS

# The version of the libclang that bindgen loaded, recorded beside the
# kernel's .config (which records rustc's, bindgen's and the C compiler's)
# for the harness: what the kernel's own check asks bindgen, in the
# kernel build's environment.
define $(1)_RUST_RECORD_LIBCLANG
	$$($(1)_MAKE_ENV) LC_ALL=C $$(RUST_KERNEL_BINDGEN) \
		$$(@D)/scripts/rust_is_available_bindgen_libclang.h 2>&1 >/dev/null | \
		sed -nE 's/.*clang version ([0-9]+\.[0-9]+\.[0-9]+).*/\1/p' | head -n 1 \
		>$$(@D)/.rust-qemu-libclang
endef
$(1)_POST_BUILD_HOOKS += $(1)_RUST_RECORD_LIBCLANG

endef

# rust-kernel-module: for a kernel-module package of this tree,
#   $(eval $(rust-kernel-module))   in place of   $(eval $(kernel-module))
# Buildroot's kernel-module infrastructure (package/pkg-kernel-module.mk)
# builds against the linux package only; with User-Mode Linux the kernel
# is package/linux-um, and the same two steps (build, install the modules
# with the kernel's own make flags) run against it. Buildroot's own macro
# is left as it is.
rust-kernel-module = $(if $(BR2_PACKAGE_LINUX_UM),\
	$(call inner-rust-kernel-module-um,$(pkgname),$(call UPPERCASE,$(pkgname))),\
	$(kernel-module))

# RUST_KERNEL_UM_MODULES_MAKE PKG,GOAL: make GOAL in each of PKG's module
# directories, against linux-um
define RUST_KERNEL_UM_MODULES_MAKE
	$(foreach d,$($(1)_MODULE_SUBDIRS), \
		$(LINUX_UM_MAKE_ENV) $(LINUX_UM_MAKE) -C $(LINUX_UM_DIR) \
			$(LINUX_UM_MAKE_FLAGS) $($(1)_MODULE_MAKE_OPTS) \
			PWD=$(@D)/$(d) M=$(@D)/$(d) $(2)$(sep))
endef

define inner-rust-kernel-module-um
define $(2)_KERNEL_MODULES_BUILD
	@$$(call MESSAGE,"Building kernel module(s) for User-Mode Linux")
	$$(call RUST_KERNEL_UM_MODULES_MAKE,$(2),modules)
endef
define $(2)_KERNEL_MODULES_INSTALL
	@$$(call MESSAGE,"Installing kernel module(s) for User-Mode Linux")
	$$(call RUST_KERNEL_UM_MODULES_MAKE,$(2),modules_install)
endef
$(2)_DEPENDENCIES += linux-um
$(2)_MODULE_SUBDIRS ?= .
$(2)_POST_BUILD_HOOKS += $(2)_KERNEL_MODULES_BUILD
$(2)_POST_INSTALL_TARGET_HOOKS += $(2)_KERNEL_MODULES_INSTALL
endef

endif
