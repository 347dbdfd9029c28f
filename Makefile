# SPDX-License-Identifier: GPL-2.0
#
# AccDirect top-level Makefile.
#
#   make [modules]      build dlb2.ko against KDIR (default: the running kernel)
#   make check          host unit tests, then every kselftest in the VM harness
#   make demo           boot the VM and show the DLB device and its driver
#   make vm-kernel vm-qemu   build the harness kernel / QEMU (cached)
#   make clean
#
# See README.md and Documentation/testing.rst.

KDIR ?= /lib/modules/$(shell uname -r)/build
BUILD ?= $(CURDIR)/build

# The harness kernel: its build directory (a KDIR) and its source tree.
VM_KDIR = $(shell tools/vm/build-kernel --print-dir)
VM_KSRC = $(VM_KDIR)/source

.PHONY: all modules check demo selftests vm-kernel vm-qemu vm-modules clean help

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Modules for the VM harness kernel, with W=1; a warning fails the build.
vm-modules: vm-kernel
	@$(MAKE) -s -C $(VM_KDIR) M=$(CURDIR) W=1 modules 2>$(BUILD)/modules.log || \
		{ cat $(BUILD)/modules.log; exit 1; }
	@if grep -q 'warning:' $(BUILD)/modules.log; then \
		cat $(BUILD)/modules.log; echo "module build has warnings"; exit 1; fi

selftests: vm-kernel
	@mkdir -p $(BUILD)/selftests/drivers/dlb2
	$(MAKE) -s -C selftests/drivers/dlb2 KSRC=$(VM_KSRC) \
		OUTPUT=$(BUILD)/selftests/drivers/dlb2

vm-kernel:
	@mkdir -p $(BUILD)
	@tools/vm/build-kernel >/dev/null

vm-qemu:
	@tools/vm/build-qemu >/dev/null

check:
	tools/vm/check

demo:
	tools/vm/demo

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)

help:
	@sed -n '3,12p' Makefile
