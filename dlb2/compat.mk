# SPDX-License-Identifier: GPL-2.0
#
# Kernel interfaces that changed after 6.1, detected in the headers of the
# kernel being built against; compat.h maps each DLB2_HAVE_* to one
# spelling.  Included by dlb2/Kbuild.
ifneq ($(shell grep -s 'void vm_flags_set' $(srctree)/include/linux/mm.h),)
ccflags-y += -DDLB2_HAVE_VM_FLAGS_SET
endif
ifneq ($(shell grep -s 'class_create(const char \*name)' $(srctree)/include/linux/device/class.h),)
ccflags-y += -DDLB2_HAVE_CLASS_CREATE_NAME
endif
