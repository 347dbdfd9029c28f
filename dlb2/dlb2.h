/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel Dynamic Load Balancer (DLB 2.0 / 2.5) PF driver: device structure.
 */
#ifndef __DLB2_H
#define __DLB2_H

#include <linux/pci.h>
#include <linux/types.h>

#define DLB2_DRV_NAME		"dlb2"

/* Hardware generations, numbered as DPDK numbers them. */
enum dlb2_hw_ver {
	DLB2_HW_V2 = 0,
	DLB2_HW_V2_5 = 1,
};

/**
 * struct dlb2 - one DLB physical function
 * @pdev: the PCI device
 * @ver: hardware generation, from the PCI device ID
 * @func_base: BAR0 mapping (producer-port windows, MSI-X table)
 * @csr_base: BAR2 mapping (configuration and status registers)
 *
 * Allocated with devm in probe; every field is set before the device is
 * visible to user space and is read-only afterwards.
 */
struct dlb2 {
	struct pci_dev *pdev;
	enum dlb2_hw_ver ver;
	void __iomem *func_base;
	void __iomem *csr_base;
};

static inline u32 dlb2_csr_rd(struct dlb2 *dlb2, u32 off)
{
	return ioread32(dlb2->csr_base + off);
}

static inline void dlb2_csr_wr(struct dlb2 *dlb2, u32 off, u32 val)
{
	iowrite32(val, dlb2->csr_base + off);
}

/* sysfs.c */
extern const struct attribute_group *dlb2_dev_groups[];

#endif /* __DLB2_H */
