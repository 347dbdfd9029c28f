# SPDX-License-Identifier: GPL-2.0
#
# AccDirect top-level Makefile.
#
#   make [modules]      build dlb2.ko against KDIR (default: the running kernel)
#   make tools          libdlb2, dlb2ctl and the AccDirect programs
#   make install        the modules (against KDIR, into /lib/modules/KVER/
#                       updates) and the user space (PREFIX, /usr/local);
#                       DESTDIR for staging; install-modules, install-user
#                       for one half; make uninstall.  Documentation/install.rst
#   make man            the man pages, from Documentation/man/*.rst, in build/man
#   make check          host unit tests and the model's qtests, then in the VM
#                       harness the kselftests, KUnit tests and DPDK's dlb2
#                       self-test (tools/vm/check)
#   make check-debug    the same on the debug kernel (KASAN, lockdep, kmemleak)
#   make check-quick    fast host suites and the driver's own kselftests in
#                       the VM, once per DLB version (the edit-and-test loop)
#   make kernel-matrix  the modules with W=1 and sparse against the harness
#                       kernel, Debian's 6.1 and 6.12 and sid's newest (TAP)
#   make demo           boot the VM and show the DLB device and its driver
#   make bench          benchmarks, figures in build/bench (tools/bench)
#   make mutation       mutation score of dlb2/hw.c against the device model
#   make mutation-lifetime  mutation score of the lifetimes (issue 24)
#   make vm-kernel vm-qemu vm-rdma-core   build the harness kernel / QEMU /
#                       patched rdma-core (cached)
#   make clean
#
# See README.md and Documentation/testing.rst.

KDIR ?= /lib/modules/$(shell uname -r)/build
BUILD ?= $(CURDIR)/build
# the project's version (man pages); tools/*/Makefile read it too
VERSION := $(shell cat $(CURDIR)/VERSION)

# The harness kernel (VM_KERNEL=default|debug): its build directory (a KDIR)
# and source tree.  Its modules are built out of the source tree, in
# $(VM_MODDIR), through a tree of symbolic links to the sources.
VM_KERNEL ?= default
VM_KDIR = $(shell tools/vm/build-kernel --variant=$(VM_KERNEL) --print-dir)
VM_KSRC = $(VM_KDIR)/source
VM_MODDIR = $(BUILD)/modules-$(VM_KERNEL)
# Module sources: only these (Kbuild files, .mk, .c, .h) are linked into
# VM_MODDIR, never build products of an in-tree `make modules`.
MODULE_SRCS = Kbuild VERSION dlb2 include peermem_dlb selftests/drivers/dlb2/dlb2_edu

.PHONY: all modules bench check check-debug check-quick demo kernel-matrix mutation \
	mutation-lifetime selftests \
	tools vm-kernel vm-qemu vm-rdma-core vm-modules clean help man install \
	install-modules install-user uninstall

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Modules for the VM harness kernel, with W=1 and sparse (C=1); a warning
# fails the build, and the objects go so that the next build checks again.
vm-modules: vm-kernel
	@mkdir -p $(VM_MODDIR)
	@find $(VM_MODDIR) -xtype l -delete
	@cd $(CURDIR) && find $(MODULE_SRCS) \( -name Kbuild -o -name VERSION -o -name '*.mk' -o -name '*.[ch]' \) ! -name '*.mod.c' \
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

vm-rdma-core:
	@tools/vm/build-rdma-core >/dev/null

check:
	tools/vm/check

check-debug:
	tools/vm/check --kernel=debug

# The edit-and-test loop: fast host suites, the driver's own kselftests once
# per DLB version (tools/vm/check --quick).  make check is what counts.
check-quick:
	tools/vm/check --quick

demo:
	tools/vm/demo

# Benchmarks: figures, not tests (tools/bench/README.md); BENCH_OPTS passes
# options, e.g. BENCH_OPTS=--quick.
bench:
	tools/bench/run-bench $(BENCH_OPTS)

# Kernels and versions: tools/vm/kernel-matrix.versions; VM_KERNEL=debug
# takes the harness's debug kernel.
kernel-matrix:
	tools/vm/kernel-matrix --harness=$(VM_KERNEL)

# Mutants of dlb2/hw.c against the kselftests in the VM (tools/vm/mutate);
# MUTATE_OPTS passes options, e.g. MUTATE_OPTS=--only=ldbp-wptr-one.
mutation:
	tools/vm/mutate $(MUTATE_OPTS)

# Mutants of the lifetimes (port, CQ, pins, dma-buf, domains, resources,
# configfs, interrupts, peermem_dlb) against the whole guest suite.
mutation-lifetime:
	tools/vm/mutate --set=lifetime $(MUTATE_OPTS)

# ------------------------------------------------------------- install
#
# Directories (GNU names, all overridable): user space under PREFIX, udev
# rules and sysusers.d under PREFIX/lib too (systemd reads /usr/local/lib/
# and /usr/lib/), the configuration directory dlb2 in sysconfdir (/etc,
# whatever PREFIX: dlb2-apply@.service reads it), the modules in
# /lib/modules/KVER/INSTALL_MOD_DIR of DESTDIR, for KVER the release of KDIR.
PREFIX ?= /usr/local
bindir ?= $(PREFIX)/bin
sbindir ?= $(PREFIX)/sbin
libdir ?= $(PREFIX)/lib
includedir ?= $(PREFIX)/include
mandir ?= $(PREFIX)/share/man
exampledir ?= $(PREFIX)/share/doc/dlb2-tools/examples
bashcompdir ?= $(PREFIX)/share/bash-completion/completions
udevrulesdir ?= $(PREFIX)/lib/udev/rules.d
sysusersdir ?= $(PREFIX)/lib/sysusers.d
systemdunitdir ?= $(PREFIX)/lib/systemd/system
sysconfdir ?= /etc
INSTALL_MOD_DIR ?= updates
INSTALL ?= install
INSTALL_VARS = DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) bindir=$(bindir) \
	sbindir=$(sbindir) libdir=$(libdir) includedir=$(includedir)
KVER = $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)

# The AccDirect programs exist where libibverbs does (tools/accdirect).
HAVE_VERBS := $(wildcard /usr/include/infiniband/verbs.h)
MAN_PAGES := dlb2ctl.8 dlb2.json.5 libdlb2.3 \
	$(if $(HAVE_VERBS),accdirect-server.1 accdirect-agent.1 accdirect-client.1 \
		accdirect-qualify.1)
RST2MAN ?= $(firstword $(shell command -v rst2man rst2man.py 2>/dev/null) rst2man)

man: $(addprefix $(BUILD)/man/,$(MAN_PAGES))

# a warning of docutils fails; the version is the file VERSION's, put in
# the page's docinfo (its :Version: field) here rather than kept in each page
$(BUILD)/man/%: Documentation/man/%.rst VERSION
	@mkdir -p $(BUILD)/man
	sed '/^:Manual group:/a :Version: $(VERSION)' $< >$@.rst
	$(RST2MAN) --halt=warning $@.rst $@
	@rm -f $@.rst

install: install-modules install-user

# dlb2.ko, and peermem_dlb.ko where the kernel has the peer-memory interface,
# built without the test modules (dlb2_kunit, dlb2_edu) and installed by
# Kbuild's modules_install; depmod runs unless DESTDIR is set.
install-modules:
	@if [ ! -f $(KDIR)/Makefile ]; then \
		echo "install: no kernel build directory $(KDIR): modules not installed (KDIR=...)" >&2; \
	else \
		$(MAKE) -C $(KDIR) M=$(CURDIR) DLB2_TEST_MODULES=n modules && \
		$(MAKE) -C $(KDIR) M=$(CURDIR) DLB2_TEST_MODULES=n \
			INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
			$(if $(DESTDIR),DEPMOD=true) modules_install && \
		{ [ -z "$(DESTDIR)" ] || echo "install: DESTDIR set, depmod not run: run 'depmod $(KVER)' where the modules land" >&2; }; \
	fi

# libdlb2 (shared, static, headers, pkg-config), dlb2ctl in sbin (it sets
# up domains: root), the AccDirect programs in bin, man pages, bash
# completion, the example configuration (dlb2.json(5)), the udev rule of
# the port devices and the sysusers.d entry of their group, the unit that
# applies /etc/dlb2 when a DLB is bound, and that directory, empty
# (dlb2ctl save -o /etc/dlb2/NAME.json fills it).
install-user: tools man
	$(MAKE) -s -C tools/lib/dlb2 install $(INSTALL_VARS)
	$(MAKE) -s -C tools/dlb2ctl install $(INSTALL_VARS)
	$(MAKE) -s -C tools/accdirect install $(INSTALL_VARS)
	$(INSTALL) -d $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man3 \
		$(DESTDIR)$(mandir)/man5 $(DESTDIR)$(mandir)/man8 \
		$(DESTDIR)$(exampledir) $(DESTDIR)$(bashcompdir) \
		$(DESTDIR)$(udevrulesdir) $(DESTDIR)$(sysusersdir) \
		$(DESTDIR)$(systemdunitdir) $(DESTDIR)$(sysconfdir)/dlb2
	for m in $(MAN_PAGES); do \
		$(INSTALL) -m 644 $(BUILD)/man/$$m $(DESTDIR)$(mandir)/man$${m##*.}/$$m || exit; \
	done
	$(INSTALL) -m 644 tools/dlb2ctl/dlb2ctl.bash-completion $(DESTDIR)$(bashcompdir)/dlb2ctl
	$(INSTALL) -m 644 tools/lib/dlb2/examples/pipeline.json $(DESTDIR)$(exampledir)/pipeline.json
	$(INSTALL) -m 644 tools/dist/60-dlb2.rules $(DESTDIR)$(udevrulesdir)/60-dlb2.rules
	$(INSTALL) -m 644 tools/dist/dlb2.sysusers.conf $(DESTDIR)$(sysusersdir)/dlb2.conf
	sed -e 's|@sbindir@|$(sbindir)|' -e 's|@sysconfdir@|$(sysconfdir)|' \
		tools/dist/dlb2-apply@.service.in \
		>$(DESTDIR)$(systemdunitdir)/dlb2-apply@.service
	chmod 644 $(DESTDIR)$(systemdunitdir)/dlb2-apply@.service

# sysconfdir/dlb2 goes only when empty: saved configurations stay.
uninstall:
	$(MAKE) -s -C tools/lib/dlb2 uninstall $(INSTALL_VARS)
	$(MAKE) -s -C tools/dlb2ctl uninstall $(INSTALL_VARS)
	$(MAKE) -s -C tools/accdirect uninstall $(INSTALL_VARS)
	rm -f $(addprefix $(DESTDIR)$(mandir)/man1/,accdirect-server.1 accdirect-agent.1 \
		accdirect-client.1 accdirect-qualify.1) \
	      $(DESTDIR)$(mandir)/man3/libdlb2.3 $(DESTDIR)$(mandir)/man8/dlb2ctl.8 \
	      $(DESTDIR)$(mandir)/man5/dlb2.json.5 $(DESTDIR)$(exampledir)/pipeline.json \
	      $(DESTDIR)$(bashcompdir)/dlb2ctl $(DESTDIR)$(udevrulesdir)/60-dlb2.rules \
	      $(DESTDIR)$(sysusersdir)/dlb2.conf $(DESTDIR)$(systemdunitdir)/dlb2-apply@.service
	@rmdir $(DESTDIR)$(exampledir) $(DESTDIR)$(dir $(exampledir)) 2>/dev/null || :
	@rmdir $(DESTDIR)$(sysconfdir)/dlb2 2>/dev/null || \
		{ [ ! -d $(DESTDIR)$(sysconfdir)/dlb2 ] || echo "uninstall: $(DESTDIR)$(sysconfdir)/dlb2 is not empty: kept" >&2; }
	@if [ -n "$(KVER)" ]; then \
		rm -f $(DESTDIR)/lib/modules/$(KVER)/$(INSTALL_MOD_DIR)/dlb2/dlb2.ko \
		      $(DESTDIR)/lib/modules/$(KVER)/$(INSTALL_MOD_DIR)/peermem_dlb/peermem_dlb.ko; \
		[ -n "$(DESTDIR)" ] || depmod $(KVER); \
	fi

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -s -C tools/lib/dlb2 clean
	-$(MAKE) -s -C tools/dlb2ctl clean
	-$(MAKE) -s -C tools/accdirect clean
	rm -rf $(BUILD)

help:
	@sed -n '3,24p' Makefile
