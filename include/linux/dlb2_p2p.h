/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel DLB 2.0 / 2.5: the in-kernel peer-to-peer interface of dlb2.ko.
 *
 * Lets another kernel module (peermem_dlb for RDMA NICs, tests driving a
 * DMA engine) write hardware control words into a DLB producer port (PP)
 * that user space mapped from a dlb2 port device:
 *
 *	p2p = dlb2_p2p_get(current->mm, va, len, -1, my_revoke, my_ctx);
 *	ret = dlb2_p2p_map(p2p, dma_dev, &dma_addr);	 (or dlb2_p2p_cpu_addr())
 *	... the peer writes HCWs at dma_addr ...
 *	dlb2_p2p_unmap(p2p, dma_dev, dma_addr);	 (undoes exactly that map)
 *	dlb2_p2p_put(p2p);
 *
 * Only mappings made by dlb2's own port mmap qualify, and a range never
 * spans more than one producer port.  When the port goes away (its domain
 * is disabled, the device is reset or unbound) dlb2 calls the revoke
 * callback; from then on dlb2_p2p_map() fails, and the holder must stop its
 * device writing to the window before the callback returns.  Once it has
 * returned dlb2 undoes the pin's DMA mappings itself (the holder's
 * dlb2_p2p_unmap() of them then does nothing), and the holder puts the
 * pin at its leisure.
 *
 * Documented in Documentation/accdirect/p2p-api.rst.
 */
#ifndef __LINUX_DLB2_P2P_H
#define __LINUX_DLB2_P2P_H

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/mm_types.h>
#include <linux/types.h>

struct dlb2_p2p;

/**
 * typedef dlb2_p2p_revoke_t - the window is being taken away
 * @priv: what the holder passed to dlb2_p2p_get()
 *
 * Called in process context with no dlb2 lock held; may sleep and may
 * wait for other processes.  Called at most once per dlb2_p2p_get(), and
 * not at all once dlb2_p2p_put() has taken the pin off.  dlb2 resets the
 * port and gives it to another domain only after every callback of the
 * port has returned.
 */
typedef void (*dlb2_p2p_revoke_t)(void *priv);

/**
 * struct dlb2_p2p_info - what a holder may want to know about its window
 * @domain_id: hardware id of the port's scheduling domain
 * @port_id: hardware id of the port
 * @ldb: load-balanced port (else directed)
 * @offset: offset of the range in the 4 KiB producer-port window
 * @len: length of the range
 * @phys: CPU physical address of the range
 */
struct dlb2_p2p_info {
	u32 domain_id;
	u32 port_id;
	bool ldb;
	u32 offset;
	u32 len;
	phys_addr_t phys;
};

/**
 * enum dlb2_p2p_map_type - how dlb2_p2p_map() made a window reachable
 * @DLB2_P2P_MAP_BUS_ADDR: the devices share a PCIe switch and nothing on
 *	the path redirects upstream (ACS): the device writes the BAR's PCI
 *	bus address and the switch routes it (PCI_P2PDMA_MAP_BUS_ADDR)
 * @DLB2_P2P_MAP_THRU_HOST_BRIDGE: the writes go through the host bridge:
 *	a DMA API mapping (dma_map_resource()), an IOVA when the device's
 *	IOMMU translates (PCI_P2PDMA_MAP_THRU_HOST_BRIDGE)
 */
enum dlb2_p2p_map_type {
	DLB2_P2P_MAP_BUS_ADDR = 1,
	DLB2_P2P_MAP_THRU_HOST_BRIDGE,
};

/**
 * struct dlb2_p2p_mapping - one dlb2_p2p_map() of a pin for a device
 * @type: how it was mapped
 * @forced: the kernel's P2P policy refused the path and the administrator's
 *	    p2p_override made the mapping anyway
 * @start: DMA address of the first byte mapped: the start of the page that
 *	   holds the pinned range (the window's first byte on x86)
 * @len: bytes mapped from @start, whole pages within the window
 */
struct dlb2_p2p_mapping {
	enum dlb2_p2p_map_type type;
	bool forced;
	dma_addr_t start;
	size_t len;
};

struct dlb2_p2p *dlb2_p2p_get(struct mm_struct *mm, unsigned long addr,
			      size_t len, int domain_id,
			      dlb2_p2p_revoke_t revoke, void *priv);
void dlb2_p2p_put(struct dlb2_p2p *p2p);
void dlb2_p2p_info(struct dlb2_p2p *p2p, struct dlb2_p2p_info *info);
int dlb2_p2p_map(struct dlb2_p2p *p2p, struct device *dma_dev,
		 dma_addr_t *dma_addr);
void dlb2_p2p_unmap(struct dlb2_p2p *p2p, struct device *dma_dev,
		    dma_addr_t dma_addr);
int dlb2_p2p_mapping(struct dlb2_p2p *p2p, struct device *dma_dev,
		     dma_addr_t dma_addr, struct dlb2_p2p_mapping *m);
void __iomem *dlb2_p2p_cpu_addr(struct dlb2_p2p *p2p);
bool dlb2_p2p_revoked(struct dlb2_p2p *p2p);

#endif /* __LINUX_DLB2_P2P_H */
