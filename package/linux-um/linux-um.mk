################################################################################
#
# linux-um
#
################################################################################

# User-Mode Linux: the kernel of the linux package (Debian's
# linux-source-6.12, BR2_LINUX_KERNEL_CUSTOM_TARBALL_LOCATION of the qemu
# defconfigs) with ARCH=um. Buildroot's linux package builds only for the
# target architecture with the cross-compiler, so it cannot build it.
# Same tarball, same hash (linux-um.hash is a link to the linux package's
# patches/linux/linux.hash), same patch series (below). Its version is
# "custom", as the linux package's for a custom tarball: so both kernels
# build from it and from your tree (an override) in <pkg>-custom, and a
# switch to the tree keeps the build directory (linux/kernel-source.sh keep).
LINUX_UM_VERSION = custom
LINUX_UM_SOURCE = linux-source-6.12.tar.xz
LINUX_UM_SITE = file:///usr/src
LINUX_UM_DL_SUBDIR = linux
LINUX_UM_LICENSE = GPL-2.0
LINUX_UM_LICENSE_FILES = COPYING
LINUX_UM_INSTALL_IMAGES = YES
LINUX_UM_DEPENDENCIES = host-kmod
LINUX_UM_KCONFIG_DEPENDENCIES = \
	$(BR2_BISON_HOST_DEPENDENCY) \
	$(BR2_FLEX_HOST_DEPENDENCY) \
	$(BR2_MAKE_HOST_DEPENDENCY)

# clang builds the kernel C (LLVM=, linux/rust-kernel.mk): with gcc, 6.12
# gives bindgen no target for ARCH=um (rust/Makefile has no
# BINDGEN_TARGET_um: upstream's 6b2dab17d6fa, v6.15). With LLVM, bindgen
# takes clang's own flags (CLANG_TARGET_FLAGS_um), so the source stays
# exactly the linux package's: no UML-only patch.
LINUX_UM_RUST_LLVM = y
LINUX_UM_RUST_BUILTIN_PARAM_SAMPLES = $(BR2_RUST_QEMU_BUILTIN_PARAM_SAMPLES)
LINUX_UM_RUST_KERNEL_TARBALL = $(patsubst file://%,%,$(LINUX_UM_SITE))/$(LINUX_UM_SOURCE)
# The symbols of the common fragments that ARCH=um does not have in 6.12:
# SMP (UML is uniprocessor before 6.17) and the 8250 UART (needs I/O
# memory, which UML has not: board/qemu/um/linux.fragment; its console is
# con0).
LINUX_UM_RUST_NOT_ON_ARCH = CONFIG_SMP CONFIG_SERIAL_8250 CONFIG_SERIAL_8250_CONSOLE

# KCFLAGS: 6.12's asm-generic/io.h defines port I/O on a NULL PCI_IOBASE
# for UML; clang (-Wextra, default in 6.12) warns in every file that
# includes it, an error with CONFIG_WERROR (C and bindgen alike).
# KRUSTFLAGS: Rust code as UML's C (-mcmodel=large, not PIC): with
# arch/um's -Crelocation-model=pie the modules have R_X86_64_GOTPCREL
# relocations, which UML's module loader rejects ("Unknown rela
# relocation: 9", modprobe: invalid module format).
# A program of the build host (SUBARCH=x86: what the kernel derives
# from an x86_64 host): no CROSS_COMPILE; HOST_MAKE_ENV's PATH
# (host-kmod's depmod). The Rust toolchain, LLVM= and HOSTCC: the glue.
LINUX_UM_MAKE = $(BR2_MAKE)
LINUX_UM_MAKE_ENV = $(HOST_MAKE_ENV)
LINUX_UM_MAKE_FLAGS = \
	ARCH=um \
	SUBARCH=x86 \
	INSTALL_MOD_PATH=$(TARGET_DIR) \
	DEPMOD=$(HOST_DIR)/sbin/depmod \
	KCFLAGS=-Wno-null-pointer-arithmetic \
	KRUSTFLAGS="-Crelocation-model=static -Ccode-model=large"

ifeq ($(BR2_STRIP_strip),y)
LINUX_UM_MAKE_FLAGS += INSTALL_MOD_STRIP=1
endif

LINUX_UM_KCONFIG_FILE = $(call qstrip,$(BR2_PACKAGE_LINUX_UM_CONFIG_FILE))
LINUX_UM_KCONFIG_FRAGMENT_FILES = $(call qstrip,$(BR2_PACKAGE_LINUX_UM_CONFIG_FRAGMENT_FILES))
LINUX_UM_KCONFIG_EDITORS = menuconfig xconfig gconfig nconfig
LINUX_UM_KCONFIG_OPTS = $(LINUX_UM_MAKE_FLAGS)

# The patch series of the linux package: BR2_GLOBAL_PATCH_DIR/linux/
# (Buildroot itself applies BR2_GLOBAL_PATCH_DIR/linux-um/).
define LINUX_UM_APPLY_LINUX_PATCHES
	$(foreach dir,$(wildcard $(addsuffix /linux,$(call qstrip,$(BR2_GLOBAL_PATCH_DIR)))),\
		$(APPLY_PATCHES) $(@D) $(dir) \*.patch$(sep))
endef
LINUX_UM_POST_PATCH_HOOKS += LINUX_UM_APPLY_LINUX_PATCHES

# Builds vmlinux, the 'linux' program and the modules.
define LINUX_UM_BUILD_CMDS
	$(LINUX_UM_MAKE_ENV) $(LINUX_UM_MAKE) $(LINUX_UM_MAKE_FLAGS) -C $(@D) all
endef

define LINUX_UM_INSTALL_IMAGES_CMDS
	$(INSTALL) -m 0755 -D $(@D)/linux $(BINARIES_DIR)/linux-um
endef

# The modules, without the links to the build directory (as linux.mk).
define LINUX_UM_INSTALL_TARGET_CMDS
	$(LINUX_UM_MAKE_ENV) $(BR2_MAKE1) $(LINUX_UM_MAKE_FLAGS) -C $(@D) modules_install
	rm -f $(TARGET_DIR)/lib/modules/$$(cat $(@D)/include/config/kernel.release)/build
	rm -f $(TARGET_DIR)/lib/modules/$$(cat $(@D)/include/config/kernel.release)/source
endef

# depmod once every package has installed its modules, as linux.mk.
define LINUX_UM_RUN_DEPMOD
	release=$$(cat $(LINUX_UM_DIR)/include/config/kernel.release) && \
	if test -d $(TARGET_DIR)/lib/modules/$$release; then \
		$(HOST_DIR)/sbin/depmod -a -b $(TARGET_DIR) $$release; \
	fi
endef
LINUX_UM_TARGET_FINALIZE_HOOKS += LINUX_UM_RUN_DEPMOD

# The kernel's Rust glue, as for the linux package (linux/rust-kernel.mk,
# included by external.mk before the packages)
ifeq ($(BR2_PACKAGE_LINUX_UM),y)
$(eval $(call rust-kernel,LINUX_UM,linux-um))
endif

$(eval $(kconfig-package))
