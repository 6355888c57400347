################################################################################
#
# Offline mode: Buildroot's package override file (BR2_PACKAGE_OVERRIDE_FILE)
# for sources taken from Debian's archive. See offline/README.md.
#
# Buildroot includes this file after .config and before the packages'
# .mk files: a plain assignment here is overwritten by a package's own
# '=' assignment, hence the few 'override' lines below. Hooks named here
# are defined later by the packages and expanded only when they run.
#
# RUST_QEMU_OFFLINE_SRC (CACHE/src, filled by offline/provision.sh) is
# passed on the make command line by the project's wrapper.
#
################################################################################

ifeq ($(RUST_QEMU_OFFLINE_SRC),)
$(error offline/local.mk: RUST_QEMU_OFFLINE_SRC is not set: pass RUST_QEMU_OFFLINE_SRC=<cache>/src, after running offline/provision.sh <cache>)
endif

# This directory (offline/): its sources.tsv and patches/.
RUST_QEMU_OFFLINE_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

# Source trees unpacked from Debian's .orig tarballs (offline/sources.tsv,
# mode 'override'). An override skips Buildroot's extract and patch steps:
# provision.sh applied the patches that fit.
HOST_E2FSPROGS_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-e2fsprogs
HOST_KMOD_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-kmod
HOST_LIBTOOL_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-libtool
HOST_LIBZLIB_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-libzlib
HOST_M4_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-m4
HOST_PATCHELF_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-patchelf
HOST_PKGCONF_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-pkgconf
HOST_TAR_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-tar
HOST_UTIL_LINUX_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-util-linux

# host-tar: its configure refuses to run as root (CI runs as root) unless
# this is in the environment; Buildroot 2026.02.3 does not set it.
export FORCE_UNSAFE_CONFIGURE = 1

# host-tar: tar.mk's post-patch hook (keeps automake from re-running after
# Buildroot's patches touched Makefile.am), run after the rsync instead.
HOST_TAR_POST_RSYNC_HOOKS += HOST_TAR_NO_AUTORECONF

# host-e2fsprogs: Debian's 1.47.2 has a generated configure and needs no
# configure.ac patch, so no autoreconf ...
HOST_E2FSPROGS_AUTORECONF = NO
# ... and without it neither host-gettext (gettext-tiny, not in Debian) nor
# host-autoconf-archive (.orig 404 on the mirror): e2fsprogs.mk's list
# minus those two (host-skeleton: the generic '+=' is overridden too).
override HOST_E2FSPROGS_DEPENDENCIES = host-pkgconf host-util-linux host-skeleton

# host-kmod: Debian's .orig is a git snapshot without configure.
HOST_KMOD_AUTORECONF = YES
# host-kmod: what kmod's autogen.sh does without gtk-doc (automake needs
# the file that libkmod/docs/Makefile.am includes).
define HOST_KMOD_GTK_DOC_STUB
	touch $(@D)/libkmod/docs/gtk-doc.make
endef
HOST_KMOD_POST_RSYNC_HOOKS += HOST_KMOD_GTK_DOC_STUB

# host-patchelf: Debian's .orig is a git export without configure.
HOST_PATCHELF_AUTORECONF = YES

# offline-debian-binary PKG,VAR,PROGRAM: Buildroot's host package PKG
# (variables VAR_*) is Debian's installed /usr/bin/PROGRAM, linked into
# HOST_DIR/bin: nothing to build, no dependencies; the empty source dir
# (provision.sh, mode 'host') keeps the override machinery happy.
define offline-debian-binary
$(2)_OVERRIDE_SRCDIR = $$(RUST_QEMU_OFFLINE_SRC)/$(1)
override $(2)_DEPENDENCIES = host-skeleton
$(2)_CONFIGURE_CMDS = @:
$(2)_BUILD_CMDS = @:
define $(2)_INSTALL_CMDS
	@test -x /usr/bin/$(3) || { echo "offline: /usr/bin/$(3) missing: apt-get install $(3)" >&2; exit 1; }
	mkdir -p $$(HOST_DIR)/bin
	ln -sf /usr/bin/$(3) $$(HOST_DIR)/bin/$(3)
endef
endef

# host-fakeroot: no fakeroot .orig is downloadable; Debian's installed
# fakeroot replaces it (and no host-acl/host-attr are needed).
$(eval $(call offline-debian-binary,host-fakeroot,HOST_FAKEROOT,fakeroot))

# host-ccache (BR2_CCACHE): Debian's installed ccache, not ccache 4.12.3
# built with cmake and four more host libraries. It reads CCACHE_DIR,
# which the project's Makefile sets to BR2_CCACHE_DIR (Buildroot's own
# build is patched to read BR_CACHE_DIR instead).
$(eval $(call offline-debian-binary,host-ccache,HOST_CCACHE,ccache))

# legal-info, for a package of sources.tsv in mode 'override' (Debian's
# source) or 'host' (a Debian binary package replaces it):
# - its license files are checked against this layer's hash file only,
#   patches/<package>/<name>.hash, calculated from Debian's files
#   (provision.sh checks the prepared sources against it): Buildroot's
#   .hash describes another version, and check-hash fails on a wrong hash
#   in any of a package's hash files (zlib 1.3.1's LICENSE is not 1.3.2's);
# - the manifest names the Debian version, .orig and pool directory it
#   comes from, not Buildroot's version and upstream tarball;
# - a 'host' package's license file is the copyright file of the binary
#   package, which provision.sh copies next to its README (taken from
#   there when legal-info runs: older outputs have none in their build
#   dir).
# sources.tsv rows as <package>|<mode>|<Debian version>|<.orig>|<pool dir>
RUST_QEMU_OFFLINE_LEGAL_ROWS := $(shell awk -F'\t' '$$6 == "override" || $$6 == "host" { \
	p = substr($$4, 1, $$4 ~ /^lib/ ? 4 : 1); \
	print $$1 "|" $$6 "|" $$5 "|" $$7 "|https://deb.debian.org/debian/pool/main/" p "/" $$4 }' \
	$(RUST_QEMU_OFFLINE_DIR)/sources.tsv)

define RUST_QEMU_OFFLINE_COPYRIGHT
	cp $($(PKG)_OVERRIDE_SRCDIR)/copyright $($(PKG)_DIR)/copyright
endef

# rust-qemu-offline-legal PREFIX,FIELDS: the settings above for the
# package PREFIX (HOST_LIBZLIB) of the row FIELDS (as listed above)
define rust-qemu-offline-legal
override $(1)_HASH_FILES = $(RUST_QEMU_OFFLINE_DIR)/patches/$(word 1,$(2))/$(patsubst host-%,%,$(word 1,$(2))).hash
override $(1)_DL_VERSION = $(word 3,$(2))
override $(1)_ACTUAL_SOURCE_SITE = $(word 5,$(2))
ifeq ($(word 2,$(2)),host)
override $(1)_ACTUAL_SOURCE_TARBALL = not built: a Debian binary package
override $(1)_LICENSE_FILES = copyright
$(1)_PRE_LEGAL_INFO_HOOKS += RUST_QEMU_OFFLINE_COPYRIGHT
else
override $(1)_ACTUAL_SOURCE_TARBALL = $(word 4,$(2))
endif
endef
$(foreach r,$(RUST_QEMU_OFFLINE_LEGAL_ROWS),\
	$(eval $(call rust-qemu-offline-legal,$(call UPPERCASE,$(firstword $(subst |, ,$(r)))),$(subst |, ,$(r)))))

# file:// sites are files on this machine, not the network: keep them
# usable with BR2_PRIMARY_SITE_ONLY (the kernel's custom tarball).
DOWNLOAD_URIS += $(if $(BR2_PRIMARY_SITE_ONLY),$(if $(filter file+file://%,$(call qstrip,$(1))),$(patsubst %/,%,$(dir $(call qstrip,$(1))))))
