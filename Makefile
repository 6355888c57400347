# Top-level wrapper around the pinned Buildroot, with this tree as
# BR2_EXTERNAL, one output directory per defconfig:
#   make qemu_x86_64_rust_defconfig && make     -> output/qemu_x86_64_rust_defconfig/
#   (every defconfig of configs/ alike)
#   make <defconfig> TOOLCHAIN=rustc-1.85.0 && make -> output/<defconfig>+rustc-1.85.0/
#   (a cell of the toolchain axis: support/toolchains/)
# Every other goal (linux-menuconfig, legal-info, ...) goes to Buildroot for
# the last configured defconfig, or for O=<dir>. Own goals: setup, check,
# check-toolchains, retest [ARCH=x86_64|all|<arch>,<arch>], linux-tree,
# linux-patches, bench, arch-matrix, lava-jobs, help-rust-qemu. LINUX_TREE=<dir>: every
# kernel from your kernel tree (remembered; LINUX_TREE= goes back to
# patches/linux/). Host set-up runs first when needed.

include support/versions.env

# the cache directory's default: support/lib.sh
ifeq ($(origin RUST_QEMU_CACHE),undefined)
RUST_QEMU_CACHE := $(shell . support/lib.sh && echo "$$RUST_QEMU_CACHE")
endif
BUILDROOT_DIR ?= $(RUST_QEMU_CACHE)/buildroot-$(BUILDROOT_VERSION)
export RUST_QEMU_CACHE
export BR2_DL_DIR ?= $(RUST_QEMU_CACHE)/dl
# host-tar's configure refuses to run as root unless told (CI runs as root)
export FORCE_UNSAFE_CONFIGURE := 1
# One compiler cache for every output (BR2_CCACHE in the defconfigs): host
# tools and busybox build once for all arches, kernels once per arch and
# patch series. CCACHE_DIR: Debian's ccache (offline/local.mk); BASEDIR:
# paths inside the output directory hash alike in every output.
export BR2_CCACHE_DIR ?= $(RUST_QEMU_CACHE)/ccache
export CCACHE_DIR = $(BR2_CCACHE_DIR)
# and the kernel's Rust objects (linux/rustc-cache.sh)
export RUST_QEMU_RUSTC_CACHE_DIR ?= $(RUST_QEMU_CACHE)/rustc
# bindgen-cli as installed by support/setup-host.sh
export PATH := $(RUST_QEMU_CACHE)/host/bin:$(PATH)

# Offline mode (offline/): package sources from Debian's archive, never the
# network. auto: on when Buildroot's source mirror does not resolve.
OFFLINE ?= auto
ifeq ($(OFFLINE),auto)
override OFFLINE := $(shell getent hosts sources.buildroot.net >/dev/null 2>&1 && echo 0 || echo 1)
endif
export OFFLINE
ifeq ($(OFFLINE),1)
BR_OFFLINE_ARGS = \
	BR2_PRIMARY_SITE=file://$(RUST_QEMU_CACHE)/no-mirror \
	BR2_PRIMARY_SITE_ONLY=y \
	RUST_QEMU_OFFLINE_SRC=$(RUST_QEMU_CACHE)/src
endif

# A cell of the toolchain axis (support/toolchains/axis.toml): with a
# defconfig goal, TOOLCHAIN=<name> adds the configuration fragment
# support/toolchains/<name>.config, in output/<defconfig>+<name>.
TOOLCHAIN_FRAGMENT = $(CURDIR)/support/toolchains/$(TOOLCHAIN).config
ifneq ($(TOOLCHAIN),)
ifeq ($(wildcard $(TOOLCHAIN_FRAGMENT)),)
$(error TOOLCHAIN=$(TOOLCHAIN): there is no support/toolchains/$(TOOLCHAIN).config; the toolchains are: \
	$(basename $(notdir $(wildcard support/toolchains/*.config))))
endif
endif

# The output directory: output/<defconfig>[+<toolchain>], remembered in
# output/.current. A defconfig goal names one of configs/ (or Buildroot's
# own); anything else stops here, before an output directory exists.
DEFCONFIG := $(filter %_defconfig,$(MAKECMDGOALS))
ifneq ($(DEFCONFIG),)
ifeq ($(wildcard $(addprefix configs/,$(DEFCONFIG)) $(addprefix $(BUILDROOT_DIR)/configs/,$(DEFCONFIG))),)
$(error $(DEFCONFIG): no such defconfig; this tree's are: $(notdir $(wildcard configs/*_defconfig)))
endif
endif
ifneq ($(DEFCONFIG),)
O ?= $(CURDIR)/output/$(DEFCONFIG)$(if $(TOOLCHAIN),+$(TOOLCHAIN))
else
O ?= $(CURDIR)/output/$(shell cat output/.current 2>/dev/null)
endif

export CCACHE_BASEDIR = $(O)

# Your kernel tree (make linux-tree, README "Test your kernel tree"):
# LINUX_TREE=<dir> on the command line builds the kernel of every output
# from it and is remembered in output/.linux-tree, until LINUX_TREE= (empty)
# goes back to Debian's tarball and patches/linux/. From the environment it
# is used, not remembered. support/override.mk hands it to Buildroot.
LINUX_TREE_FILE = $(CURDIR)/output/.linux-tree
LINUX_TREE_ORIGIN := $(origin LINUX_TREE)
ifeq ($(LINUX_TREE_ORIGIN),undefined)
LINUX_TREE := $(shell cat $(LINUX_TREE_FILE) 2>/dev/null)
endif
ifneq ($(LINUX_TREE),)
override LINUX_TREE := $(abspath $(LINUX_TREE))
endif
export LINUX_TREE

BR_MAKE = $(MAKE) -C $(BUILDROOT_DIR) O=$(O) BR2_EXTERNAL=$(CURDIR) $(BR_OFFLINE_ARGS) \
	BR2_PACKAGE_OVERRIDE_FILE=$(CURDIR)/support/override.mk
SETUP_STAMP = $(RUST_QEMU_CACHE)/.setup-$(BUILDROOT_VERSION)-offline$(OFFLINE)
# what only make check and the toolchain axis need, set up when first needed
CHECK_STAMP = $(RUST_QEMU_CACHE)/.setup-check-$(BUILDROOT_VERSION)-offline$(OFFLINE)

WRAPPER_GOALS = setup check check-toolchains retest linux-tree linux-patches bench arch-matrix lava-jobs \
	help-rust-qemu
BR_GOALS = $(filter-out $(WRAPPER_GOALS),$(MAKECMDGOALS))

.PHONY: _buildroot $(WRAPPER_GOALS) $(BR_GOALS)
_buildroot: $(SETUP_STAMP) $(if $(TOOLCHAIN),$(CHECK_STAMP))
ifneq ($(DEFCONFIG),)
	@mkdir -p output && echo $(notdir $(O)) >output/.current
else ifeq ($(wildcard $(O)/.config),)
	@echo "No configuration in $(O): run 'make <defconfig>' first (ls configs/)." >&2
	@exit 1
endif
	@linux/kernel-source.sh check
	@$(LINUX_TREE_REMEMBER)
	$(if $(LINUX_TREE),@echo ">>> kernel: your tree $(LINUX_TREE) (LINUX_TREE; LINUX_TREE= for patches/linux/)")
	@pkg=$$(linux/kernel-source.sh stale $(O)); [ -z "$$pkg" ] || { \
		echo ">>> the kernel source changed, now $$(linux/kernel-source.sh id)"; \
		if linux/kernel-source.sh keep $(O) $$pkg; then \
			umask 0022 && $(BR_MAKE) $$pkg-clean-for-reconfigure; \
		else \
			echo ">>> $$pkg-dirclean: extracted again"; \
			umask 0022 && $(BR_MAKE) $$pkg-dirclean && \
			rm -rf $(O)/build/$$pkg-custom $(O)/build/$$pkg-[0-9]*; \
		fi; }
ifneq ($(DEFCONFIG),)
	umask 0022 && $(BR_MAKE) $(DEFCONFIG)
	$(if $(TOOLCHAIN),cat $(TOOLCHAIN_FRAGMENT) >>$(O)/.config && umask 0022 && $(BR_MAKE) olddefconfig)
	$(if $(filter-out $(DEFCONFIG),$(BR_GOALS)),umask 0022 && $(BR_MAKE) $(filter-out $(DEFCONFIG),$(BR_GOALS)))
else
	umask 0022 && $(BR_MAKE) $(BR_GOALS)
endif

ifeq ($(LINUX_TREE_ORIGIN),command line)
LINUX_TREE_REMEMBER = mkdir -p $(dir $(LINUX_TREE_FILE)) && \
	$(if $(LINUX_TREE),echo $(LINUX_TREE) >$(LINUX_TREE_FILE),rm -f $(LINUX_TREE_FILE))
endif

$(BR_GOALS): _buildroot
	@:

$(SETUP_STAMP): support/setup-host.sh support/debian-packages.txt support/apt.sources support/versions.env \
		offline/provision.sh offline/sources.tsv toolchain/toolchain-external-debian-cross/debian-cross.debs
	support/setup-host.sh
	@mkdir -p $(@D) && touch $@

$(CHECK_STAMP): $(SETUP_STAMP) support/toolchains/rust.debs $(wildcard support/toolchains/bindgen-*.config)
	support/setup-host.sh check
	@touch $@

# everything, the check's tools too
setup:
	support/setup-host.sh check
	@mkdir -p $(dir $(SETUP_STAMP)) && touch $(SETUP_STAMP) $(CHECK_STAMP)

# The README's test command: lint, harness unit tests, each defconfig built,
# its Buildroot goals, booted with every test (utils/check.sh).
# DEFCONFIGS="<defconfig> ...": only those; PRUNE=1: each build's trees
# deleted once its checks are done (one on the disk at a time).
check: $(CHECK_STAMP)
	utils/check.sh

# Every cell of the toolchain axis (support/toolchains/axis.toml), built
# and booted in quick mode; make check runs those marked check.
check-toolchains: $(CHECK_STAMP)
	utils/check.sh --toolchains

# The edit -> result loop: rebuild what changed in each ARCH's output
# (x86_64, all, or a comma-separated list), boot it in quick mode while
# the next one builds, one summary table (utils/retest.sh).
# TESTS=A,B: only those top-level tests of the manifest (what a failure
# says to run again). FORMAT=tsv: the table as tab-separated lines.
ARCH ?= x86_64
retest: $(SETUP_STAMP)
	@linux/kernel-source.sh check
	@$(LINUX_TREE_REMEMBER)
	utils/retest.sh $(ARCH) $(if $(TESTS),--only $(TESTS)) $(if $(FORMAT),--format $(FORMAT))

# Your kernel tree: a git tree of Debian's tarball plus one commit per
# patch of patches/linux/ (utils/linux-tree.sh), and back: its
# commits as the series' files (utils/linux-patches.sh).
LINUX_TREE_DIR = $(or $(LINUX_TREE),$(RUST_QEMU_CACHE)/linux)
linux-tree: $(SETUP_STAMP)
	utils/linux-tree.sh $(LINUX_TREE_DIR)
linux-patches:
	utils/linux-patches.sh $(LINUX_TREE_DIR)

# The benchmark: make check, then the edit -> result loop per arch; the
# table in output/bench/ (utils/bench.sh). KUNIT=1: also kunit.py
# on the same patched tree, and the same touch in both loops.
bench: $(CHECK_STAMP)
	utils/bench.sh $(if $(KUNIT),--kunit)

# LAVA: a job and a device file for each built QEMU arch and cell
# (output/lava/<arch>/); LAVA_BASE_URL=https://...: the URL under which a
# lab serves each output's images/ (README "Run it in a LAVA lab")
lava-jobs: $(SETUP_STAMP)
	cargo run -q --release -p rust-qemu-test -- lava-jobs

arch-matrix: $(SETUP_STAMP)
	cargo run -q --release -p rust-qemu-test -- matrix

help-rust-qemu:
	@sed -n '1,/^$$/s/^# \{0,1\}//p' Makefile
