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

define RUST_TESTS_BUILD_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(TARGET_CONFIGURE_OPTS)
endef

define RUST_TESTS_INSTALL_TARGET_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) DESTDIR=$(TARGET_DIR) install
endef

$(eval $(generic-package))
