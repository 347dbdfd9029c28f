/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel DLB 2.0 / 2.5 PF driver: differences between kernel versions.
 * The driver is written for Linux 6.1; newer interfaces are mapped here.
 */
#ifndef __DLB2_COMPAT_H
#define __DLB2_COMPAT_H

#include <linux/device.h>
#include <linux/mm.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
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
#else
#define dlb2_vm_flags_set	vm_flags_set
#define dlb2_vm_flags_clear	vm_flags_clear
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define dlb2_class_create(name)	class_create(THIS_MODULE, name)
#else
#define dlb2_class_create(name)	class_create(name)
#endif

#endif /* __DLB2_COMPAT_H */
