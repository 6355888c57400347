################################################################################
#
# rust-tests
#
################################################################################

RUST_TESTS_VERSION = 1.0
RUST_TESTS_SITE = $(BR2_EXTERNAL_RUST_QEMU_PATH)/package/rust-tests/src
RUST_TESTS_SITE_METHOD = local
RUST_TESTS_LICENSE = GPL-2.0
RUST_TESTS_LICENSE_FILES = COPYING
RUST_TESTS_DEPENDENCIES = \
	$(if $(BR2_LINUX_KERNEL),linux) \
	$(if $(BR2_PACKAGE_LINUX_UM),linux-um)

# aarch64: also compat32, a static 32-bit ARM program for the compat-ioctl
# check (the kernel's AArch32 entry), built with Debian's armhf cross
# compiler, the arm defconfig's toolchain (support/debian-packages.txt; its
# major: GCC_VERSION of support/versions.env)
ifeq ($(BR2_aarch64),y)
RUST_TESTS_GCC_VERSION := \
	$(shell sed -n 's/^GCC_VERSION=//p' $(BR2_EXTERNAL_RUST_QEMU_PATH)/support/versions.env)
RUST_TESTS_MAKE_OPTS = CC32=arm-linux-gnueabihf-gcc-$(RUST_TESTS_GCC_VERSION)
# a 32-bit ARM program on purpose, which check-bin-arch would refuse (it
# excludes directories: this one holds compat32 only)
RUST_TESTS_BIN_ARCH_EXCLUDE = /usr/libexec/rust-tests
endif

# The runner, and its manifest reader for the build host (manifest-list)
define RUST_TESTS_BUILD_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(TARGET_CONFIGURE_OPTS) $(RUST_TESTS_MAKE_OPTS)
	$(HOST_MAKE_ENV) $(MAKE) -C $(@D) HOSTCC="$(HOSTCC)" manifest-list
endef

define RUST_TESTS_INSTALL_TARGET_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) DESTDIR=$(TARGET_DIR) $(RUST_TESTS_MAKE_OPTS) install
endef

# Once every package has installed: the listing of the boot tests on
# this machine (BR2_PACKAGE_RUST_TESTS_MACHINE; this manifest and the
# drop-ins of other packages) goes beside the manifest, for the harness,
# and the modules they load must be in the target.
define RUST_TESTS_CHECK_MODULES
	$(RUST_TESTS_PKGDIR)/check-modules.sh $(TARGET_DIR) $(RUST_TESTS_DIR)/manifest-list \
		"$(call qstrip,$(BR2_PACKAGE_RUST_TESTS_MACHINE))"
endef
RUST_TESTS_TARGET_FINALIZE_HOOKS += RUST_TESTS_CHECK_MODULES

# The kernel modules of the boot tests (src/modules: misuses that the kernel
# crate must refuse), built against this configuration's kernel
RUST_TESTS_MODULE_SUBDIRS = modules

$(eval $(rust-kernel-module))
$(eval $(generic-package))
