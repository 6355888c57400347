################################################################################
#
# rust-module-example
#
################################################################################

# An out-of-tree Rust module (src/: Kbuild, the .rs file, its boot tests).
# The kernel-module infrastructure builds it with the kernel's own make
# flags, so the kernel's Rust toolchain and flags reach it: Buildroot's,
# or for User-Mode Linux the same steps against linux-um
# (rust-kernel-module, linux/rust-kernel.mk).
RUST_MODULE_EXAMPLE_VERSION = 1.0
RUST_MODULE_EXAMPLE_SITE = $(BR2_EXTERNAL_RUST_QEMU_PATH)/package/rust-module-example/src
RUST_MODULE_EXAMPLE_SITE_METHOD = local
RUST_MODULE_EXAMPLE_LICENSE = GPL-2.0
RUST_MODULE_EXAMPLE_LICENSE_FILES = COPYING

# Its tests, run by rust-tests with the samples' (include manifest.d)
define RUST_MODULE_EXAMPLE_INSTALL_TARGET_CMDS
	$(INSTALL) -D -m 0644 $(@D)/manifest \
		$(TARGET_DIR)/usr/share/rust-tests/manifest.d/rust-module-example
endef

$(eval $(rust-kernel-module))
$(eval $(generic-package))
