# SPDX-License-Identifier: GPL-2.0
#
# Kernel interfaces that changed after 6.1, detected in the headers of the
# kernel being built against; compat.h maps each DLB2_HAVE_* to one
# spelling.  Included by dlb2/Kbuild and by the dlb2_edu test module.
ifneq ($(shell grep -s 'void vm_flags_set' $(srctree)/include/linux/mm.h),)
ccflags-y += -DDLB2_HAVE_VM_FLAGS_SET
endif
ifneq ($(shell grep -s 'class_create(const char \*name)' $(srctree)/include/linux/device/class.h),)
ccflags-y += -DDLB2_HAVE_CLASS_CREATE_NAME
endif
ifneq ($(shell grep -s 'devnode.*const struct device' $(srctree)/include/linux/device/class.h),)
ccflags-y += -DDLB2_HAVE_DEVNODE_CONST
endif
ifneq ($(shell grep -s 'MODULE_INFO(import_ns$(comma) ns)' $(srctree)/include/linux/module.h),)
ccflags-y += -DDLB2_HAVE_IMPORT_NS_STRING
endif
ifneq ($(shell grep -s 'void dma_buf_invalidate_mappings' $(srctree)/include/linux/dma-buf.h),)
ccflags-y += -DDLB2_HAVE_DMA_BUF_INVALIDATE_MAPPINGS
endif
ifneq ($(shell grep -s 'void __iomem \*pcim_iomap_region' $(srctree)/include/linux/pci.h),)
ccflags-y += -DDLB2_HAVE_PCIM_IOMAP_REGION
endif
ifneq ($(shell grep -s 'define __assign_str(dst)' $(srctree)/include/trace/stages/stage6_event_callback.h),)
ccflags-y += -DDLB2_HAVE_ASSIGN_STR_1
endif
