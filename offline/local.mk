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

# The rows of sources.tsv this file acts on, as
# <package>|<mode>|<Debian version>|<orig_file>|<pool dir>
# (orig_file: the .orig, or a 'host' package's programs)
RUST_QEMU_OFFLINE_ROWS := $(shell awk -F'\t' '$$6 == "override" || $$6 == "built" || $$6 == "host" { \
	p = substr($$4, 1, $$4 ~ /^lib/ ? 4 : 1); \
	print $$1 "|" $$6 "|" $$5 "|" $$7 "|https://deb.debian.org/debian/pool/main/" p "/" $$4 }' \
	$(RUST_QEMU_OFFLINE_DIR)/sources.tsv)

# Source trees unpacked from Debian's .orig tarballs (offline/sources.tsv,
# mode 'override'; 'built' and 'host' below). An override skips
# Buildroot's extract and patch steps: provision.sh applied the patches
# that fit.
HOST_LIBTOOL_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-libtool
HOST_LIBZLIB_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-libzlib
HOST_M4_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-m4
HOST_PKGCONF_OVERRIDE_SRCDIR = $(RUST_QEMU_OFFLINE_SRC)/host-pkgconf

# Host tools not built per output (sources.tsv modes 'built' and 'host'):
# the package's programs are links into HOST_DIR/bin or HOST_DIR/sbin (as
# where they are), to the build provision.sh made once in
# CACHE/host-tools/<package>/ ('built': tar, patchelf, arch-independent,
# the same for every output), or to the programs of Debian's installed
# binary package ('host': fakeroot, ccache, e2fsprogs' mke2fs, kmod's
# depmod). No dependencies but host-skeleton: neither host-util-linux (for
# e2fsprogs) nor the autotools (for kmod's and patchelf's autoreconf) are
# built.
RUST_QEMU_OFFLINE_TOOLS := $(patsubst %/,%,$(dir $(RUST_QEMU_OFFLINE_SRC)))/host-tools

define RUST_QEMU_OFFLINE_LINK_PROGRAMS
	for f in $($(PKG)_OFFLINE_PROGRAMS); do \
		test -x "$$f" || { echo "offline: $$f missing: run offline/provision.sh (support/setup-host.sh)" >&2; exit 1; }; \
		d=$(HOST_DIR)/$$(basename $$(dirname "$$f")); \
		mkdir -p "$$d" && ln -sf "$$f" "$$d/" || exit 1; \
	done
endef

# rust-qemu-offline-prebuilt PREFIX,FIELDS: package PREFIX (HOST_TAR) of
# the 'built' or 'host' row FIELDS is its programs (shell words, globs
# allowed); its source dir (legal-info's) is CACHE/src/<package>
define rust-qemu-offline-prebuilt
$(1)_OVERRIDE_SRCDIR = $$(RUST_QEMU_OFFLINE_SRC)/$(word 1,$(2))
override $(1)_DEPENDENCIES = host-skeleton
$(1)_OFFLINE_PROGRAMS = $(if $(filter built,$(word 2,$(2))),$(RUST_QEMU_OFFLINE_TOOLS)/$(word 1,$(2))/bin/*,$(subst $(comma), ,$(word 4,$(2))))
$(1)_AUTORECONF = NO
$(1)_LIBTOOL_PATCH = NO
override $(1)_CONFIGURE_CMDS = @:
override $(1)_BUILD_CMDS = @:
override $(1)_INSTALL_CMDS = $$(RUST_QEMU_OFFLINE_LINK_PROGRAMS)
endef
$(foreach r,$(RUST_QEMU_OFFLINE_ROWS),$(if $(filter built host,$(word 2,$(subst |, ,$(r)))),\
	$(eval $(call rust-qemu-offline-prebuilt,$(call UPPERCASE,$(firstword $(subst |, ,$(r)))),$(subst |, ,$(r))))))

# host-util-linux: host-e2fsprogs' Config.in.host selects it (for its
# libuuid and libblkid), which makes it a target of every output; Debian's
# e2fsprogs needs neither, so the selection is undone here. A host package
# that depends on host-util-linux still gets it built (libraries only).
override BR2_PACKAGE_HOST_UTIL_LINUX =

# legal-info, for a package of sources.tsv in mode 'override' or 'built' (Debian's
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

define RUST_QEMU_OFFLINE_COPYRIGHT
	cp $($(PKG)_OVERRIDE_SRCDIR)/copyright $($(PKG)_DIR)/copyright
endef

# rust-qemu-offline-legal PREFIX,FIELDS: the settings above for the
# package PREFIX (HOST_LIBZLIB) of the row FIELDS (RUST_QEMU_OFFLINE_ROWS)
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
$(foreach r,$(RUST_QEMU_OFFLINE_ROWS),\
	$(eval $(call rust-qemu-offline-legal,$(call UPPERCASE,$(firstword $(subst |, ,$(r)))),$(subst |, ,$(r)))))

# file:// sites are files on this machine, not the network: keep them
# usable with BR2_PRIMARY_SITE_ONLY (the kernel's custom tarball).
DOWNLOAD_URIS += $(if $(BR2_PRIMARY_SITE_ONLY),$(if $(filter file+file://%,$(call qstrip,$(1))),$(patsubst %/,%,$(dir $(call qstrip,$(1))))))
