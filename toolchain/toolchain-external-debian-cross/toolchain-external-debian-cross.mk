################################################################################
#
# toolchain-external-debian-cross
#
################################################################################

# Debian's packaged cross compiler, made into the directory of a
# pre-installed toolchain by debian-cross.sh, before the infrastructure
# checks it (configure). The directory is generated, hence only inside
# HOST_DIR.
ifeq ($(BR_BUILDING)$(BR2_TOOLCHAIN_EXTERNAL_DEBIAN_CROSS),yy)
ifneq ($(TOOLCHAIN_EXTERNAL_INSTALL_DIR),$(HOST_DIR)/opt/debian-cross)
$(error BR2_TOOLCHAIN_EXTERNAL_DEBIAN_CROSS needs BR2_TOOLCHAIN_EXTERNAL_PREINSTALLED=y and BR2_TOOLCHAIN_EXTERNAL_PATH="$$(HOST_DIR)/opt/debian-cross")
endif
endif

define TOOLCHAIN_EXTERNAL_DEBIAN_CROSS_IMPORT
	$(TOOLCHAIN_EXTERNAL_DEBIAN_CROSS_PKGDIR)/debian-cross.sh \
		$(TOOLCHAIN_EXTERNAL_PREFIX) $(TOOLCHAIN_EXTERNAL_INSTALL_DIR)
endef
TOOLCHAIN_EXTERNAL_DEBIAN_CROSS_PRE_CONFIGURE_HOOKS += \
	TOOLCHAIN_EXTERNAL_DEBIAN_CROSS_IMPORT

$(eval $(toolchain-external-package))
