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
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>

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

/*
 * 6.11: pcim_iomap_region() requests and maps one BAR (device managed);
 * pcim_iomap_regions() and pcim_iomap_table() are deprecated.
 * Return: the mapping or an ERR_PTR.
 */
static inline void __iomem *dlb2_pcim_iomap_region(struct pci_dev *pdev,
						   int bar, const char *name)
{
#ifdef DLB2_HAVE_PCIM_IOMAP_REGION
	return pcim_iomap_region(pdev, bar, name);
#else
	int ret = pcim_iomap_regions(pdev, BIT(bar), name);

	return ret ? IOMEM_ERR_PTR(ret) : pcim_iomap_table(pdev)[bar];
#endif
}

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

/*
 * The p2pdma core's map type for a device writing into another's BAR.
 *
 * The core decides, in calc_map_type_and_dist() (drivers/pci/p2pdma.c),
 * between PCI_P2PDMA_MAP_BUS_ADDR (the two devices share an upstream
 * bridge, i.e. a switch or the same device, and no port on the path has
 * an ACS redirect enabled: the switch routes the write, so the device must
 * be given the PCI bus address, whatever its IOMMU does),
 * PCI_P2PDMA_MAP_THRU_HOST_BRIDGE (the path crosses the host bridge: a
 * DMA API mapping, an IOVA when the IOMMU translates) and
 * PCI_P2PDMA_MAP_NOT_SUPPORTED (through a host bridge that neither the CPU
 * nor the allow list vouches for).  No kernel of the matrix exports that
 * answer for a device: 6.1 and 6.12 keep pci_p2pdma_map_type() static (and
 * it needs ZONE_DEVICE pages of the BAR); 7.2 declares
 * pci_p2pdma_map_type(struct p2pdma_provider *, struct device *) in
 * pci-p2pdma.h but does not export it (Module.symvers), its only exported
 * user being dma_buf_phys_vec_to_sgt() for dma-buf importers.  And
 * Debian's 6.1 and 6.12 are built without CONFIG_PCI_P2PDMA, where every
 * path is NOT_SUPPORTED.
 *
 * So dlb2 asks the core what it exports, pci_p2pdma_distance() (negative
 * exactly when the core's answer is NOT_SUPPORTED or the device is not
 * PCI), and reproduces the other half, the topology, here:
 * dlb2_p2pdma_bus_addr() is the core's walk, with the core's test of a
 * port's ACS redirect (pci_bridge_has_acs_redir(), not exported either).
 * The core's map type is then NOT_SUPPORTED if the distance is negative,
 * else BUS_ADDR if dlb2_p2pdma_bus_addr(), else THRU_HOST_BRIDGE.  When a
 * kernel exports the core's answer, use it here instead.
 */

/* pci_bridge_has_acs_redir(): the port sends peer requests upstream. */
static inline bool dlb2_acs_redirects(struct pci_dev *pdev)
{
	u16 ctrl;

	if (!pdev->acs_cap ||
	    pci_read_config_word(pdev, pdev->acs_cap + PCI_ACS_CTRL, &ctrl))
		return false;
	return ctrl & (PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_EC);
}

/**
 * dlb2_p2pdma_bus_addr() - does a write of @client reach @provider by its
 * PCI bus address, without the host bridge?
 * @provider: the device whose BAR is written
 * @client: the device that writes
 *
 * The topology half of the p2pdma core's calc_map_type_and_dist(): true
 * when the two share an upstream bridge (or are one device) and neither
 * a port on the way up from either device to that bridge nor the bridge
 * itself redirects peer requests (ACS RR, CR or EC): the core's
 * PCI_P2PDMA_MAP_BUS_ADDR.  False: PCI_P2PDMA_MAP_THRU_HOST_BRIDGE, or
 * NOT_SUPPORTED when pci_p2pdma_distance() says so.
 *
 * Return: true for a bus-address path.
 */
static inline bool dlb2_p2pdma_bus_addr(struct pci_dev *provider,
					struct pci_dev *client)
{
	struct pci_dev *a, *b;
	bool redirect = false;

	for (a = provider; a; a = pci_upstream_bridge(a)) {
		redirect |= dlb2_acs_redirects(a);
		for (b = client; b; b = pci_upstream_bridge(b))
			if (a == b)
				goto common;
	}
	return false;		/* no common upstream bridge */
common:
	for (b = client; b != a; b = pci_upstream_bridge(b))
		redirect |= dlb2_acs_redirects(b);
	return !redirect;
}

#endif /* __DLB2_COMPAT_H */
