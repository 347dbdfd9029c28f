/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel DLB 2.0 / 2.5 PF driver: differences between kernel versions.
 *
 * The driver is written for Linux 6.1.  Interfaces that changed later are
 * detected in the kernel's headers by compat.mk (DLB2_HAVE_*) and mapped
 * here, so that the rest of the driver has one spelling.  The dlb2_edu test
 * module includes this file too.  Checked against 6.1, 6.12 and Debian's
 * newest kernel by tools/vm/kernel-matrix.
 */
#ifndef __DLB2_COMPAT_H
#define __DLB2_COMPAT_H

#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/module.h>

#ifdef DLB2_HAVE_VM_FLAGS_SET		/* 6.3: vm_flags are read-only */
#define dlb2_vm_flags_set	vm_flags_set
#define dlb2_vm_flags_clear	vm_flags_clear
#else
static inline void dlb2_vm_flags_set(struct vm_area_struct *vma,
				     vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void dlb2_vm_flags_clear(struct vm_area_struct *vma,
				       vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

#ifdef DLB2_HAVE_CLASS_CREATE_NAME	/* 6.4: class_create() lost its owner */
#define dlb2_class_create(name)	class_create(name)
#else
#define dlb2_class_create(name)	class_create(THIS_MODULE, name)
#endif

#ifdef DLB2_HAVE_DEVNODE_CONST		/* 6.2: devnode() gets a const device */
#define DLB2_DEVNODE_CONST	const
#else
#define DLB2_DEVNODE_CONST
#endif

/* 6.13: MODULE_IMPORT_NS() takes a string; the same module info either way */
#ifdef DLB2_HAVE_IMPORT_NS_STRING
#define DLB2_IMPORT_NS(ns)	MODULE_IMPORT_NS(ns)
#else
#define DLB2_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
#endif

/*
 * Later than 6.12 (7.2 has it): a dynamic dma-buf's move_notify is
 * invalidate_mappings, for the exporter's call and the importer's callback.
 */
#ifdef DLB2_HAVE_DMA_BUF_INVALIDATE_MAPPINGS
#define dlb2_dma_buf_invalidate_mappings	dma_buf_invalidate_mappings
#define DLB2_INVALIDATE_MAPPINGS		invalidate_mappings
#else
#define dlb2_dma_buf_invalidate_mappings	dma_buf_move_notify
#define DLB2_INVALIDATE_MAPPINGS		move_notify
#endif

#endif /* __DLB2_COMPAT_H */
