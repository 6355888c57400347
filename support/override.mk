################################################################################
#
# Buildroot's package override file (BR2_PACKAGE_OVERRIDE_FILE) of every
# output, passed by the Makefile. Buildroot includes it before the
# packages.
#
################################################################################

# Your kernel tree (LINUX_TREE, made by make linux-tree): both kernel
# packages take their source from it instead of Debian's tarball and
# patches/linux/. Buildroot rsyncs it into the build directory (the build
# products stay there, out of the tree) and skips extract and patch; the
# kernel's Rust glue runs its source hooks after the rsync instead
# (linux/rust-kernel.mk).
ifneq ($(LINUX_TREE),)
LINUX_OVERRIDE_SRCDIR = $(LINUX_TREE)
LINUX_UM_OVERRIDE_SRCDIR = $(LINUX_TREE)
endif

# The offline layer: Buildroot's package sources from Debian's archive
ifeq ($(OFFLINE),1)
include $(call qstrip,$(BR2_EXTERNAL_RUST_QEMU_PATH))/offline/local.mk
endif

# Your own override file, where Buildroot looks for it by default
-include $(CONFIG_DIR)/local.mk
