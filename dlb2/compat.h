/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel DLB 2.0 / 2.5 PF driver: differences between kernel versions.
 *
 * The driver is written for Linux 6.1.  Interfaces that changed later are
 * detected by Kbuild (DLB2_HAVE_*) and mapped here, so that the rest of the
 * driver has one spelling.
 */
#ifndef __DLB2_COMPAT_H
#define __DLB2_COMPAT_H

#include <linux/device.h>
#include <linux/mm.h>

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

#endif /* __DLB2_COMPAT_H */
