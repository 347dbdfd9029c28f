# SPDX-License-Identifier: GPL-2.0
#
# AccDirect top-level Makefile.
#
#   make [modules]      build dlb2.ko against KDIR (default: the running kernel)
#   make tools          libdlb2, dlb2ctl and the AccDirect programs
#   make check          host unit tests and the model's qtests, then in the VM
#                       harness the kselftests, KUnit tests and DPDK's dlb2
#                       self-test (tools/vm/check)
#   make check-debug    the same on the debug kernel (KASAN, lockdep, kmemleak)
#   make kernel-matrix  the modules with W=1 and sparse against the harness
#                       kernel, Debian's 6.12 and sid's newest (TAP)
#   make demo           boot the VM and show the DLB device and its driver
#   make mutation       mutation score of dlb2/hw.c against the device model
#   make vm-kernel vm-qemu   build the harness kernel / QEMU (cached)
#   make clean
#
# See README.md and Documentation/testing.rst.

KDIR ?= /lib/modules/$(shell uname -r)/build
BUILD ?= $(CURDIR)/build

# The harness kernel (VM_KERNEL=default|debug): its build directory (a KDIR)
# and source tree.  Its modules are built out of the source tree, in
# $(VM_MODDIR), through a tree of symbolic links to the sources.
VM_KERNEL ?= default
VM_KDIR = $(shell tools/vm/build-kernel --variant=$(VM_KERNEL) --print-dir)
VM_KSRC = $(VM_KDIR)/source
VM_MODDIR = $(BUILD)/modules-$(VM_KERNEL)
# Module sources: only these (Kbuild files, .mk, .c, .h) are linked into
# VM_MODDIR, never build products of an in-tree `make modules`.
MODULE_SRCS = Kbuild dlb2 include peermem_dlb selftests/drivers/dlb2/dlb2_edu

.PHONY: all modules check check-debug demo kernel-matrix mutation selftests \
	tools vm-kernel vm-qemu vm-modules clean help

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Modules for the VM harness kernel, with W=1 and sparse (C=1); a warning
# fails the build, and the objects go so that the next build checks again.
vm-modules: vm-kernel
	@mkdir -p $(VM_MODDIR)
	@find $(VM_MODDIR) -xtype l -delete
	@cd $(CURDIR) && find $(MODULE_SRCS) \( -name Kbuild -o -name '*.mk' -o -name '*.[ch]' \) ! -name '*.mod.c' \
		-exec sh -c 'mkdir -p "$(VM_MODDIR)/$$(dirname {})" && \
			ln -sfn "$(CURDIR)/{}" "$(VM_MODDIR)/{}"' \;
	@$(MAKE) -s -C $(VM_KDIR) M=$(VM_MODDIR) W=1 C=1 modules >$(VM_MODDIR)/build.log 2>&1 || \
		{ cat $(VM_MODDIR)/build.log; exit 1; }
	@if grep -q 'warning:' $(VM_MODDIR)/build.log; then \
		cat $(VM_MODDIR)/build.log; find $(VM_MODDIR) -name '*.o' -delete; \
		echo "module build has warnings"; exit 1; fi
	@tools/vm/build-rxe-baseline $(VM_KDIR) $(VM_MODDIR)/rxe-lock-atomics

# kselftests, and the user-space tools they run (libdlb2, dlb2ctl).
selftests: vm-kernel tools
	@mkdir -p $(BUILD)/selftests/drivers/dlb2
	$(MAKE) -s -C selftests/drivers/dlb2 KSRC=$(VM_KSRC) \
		OUTPUT=$(BUILD)/selftests/drivers/dlb2

tools:
	@$(MAKE) -s -C tools/lib/dlb2
	@$(MAKE) -s -C tools/dlb2ctl
	@$(MAKE) -s -C tools/accdirect

vm-kernel:
	@mkdir -p $(BUILD)
	@tools/vm/build-kernel --variant=$(VM_KERNEL) >/dev/null

vm-qemu:
	@tools/vm/build-qemu >/dev/null

check:
	tools/vm/check

check-debug:
	tools/vm/check --kernel=debug

demo:
	tools/vm/demo

# Kernels and versions: tools/vm/kernel-matrix.versions; VM_KERNEL=debug
# takes the harness's debug kernel for 6.1.
kernel-matrix:
	tools/vm/kernel-matrix --harness=$(VM_KERNEL)

# Mutants of dlb2/hw.c against the kselftests in the VM (tools/vm/mutate);
# MUTATE_OPTS passes options, e.g. MUTATE_OPTS=--only=ldbp-wptr-one.
mutation:
	tools/vm/mutate $(MUTATE_OPTS)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -s -C tools/lib/dlb2 clean
	-$(MAKE) -s -C tools/dlb2ctl clean
	-$(MAKE) -s -C tools/accdirect clean
	rm -rf $(BUILD)

help:
	@sed -n '3,18p' Makefile
