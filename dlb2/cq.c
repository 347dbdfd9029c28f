// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: the port object below its character device: its
 * reference count, its CQ ring (memory, the device's mapping, recovery
 * after its consumer went) and its death at revocation.
 *
 * CQ memory.  The device writes the ring and the consumer reads it through
 * its mapping.  The same pages serve the port's next opener (after
 * dlb2_port_release_cq()), so no reference to them may outlive the file:
 * the fault handler (port.c) maps them as PFNs (VM_IO | VM_PFNMAP) without
 * a page reference, which get_user_pages() refuses (no vmsplice(), RDMA
 * registration or O_DIRECT of the ring).  A mapping holds the file, the
 * file the port, and the port the pages, freed when the port object goes
 * (its last file closed), so they outlive every mapping.  They are split
 * (split_page()) so that each is freed on its own.  The device's mapping
 * (dma_map_page()) ends earlier, at domain teardown, while the device is
 * still there.  The DLB is part of x86 server processors, whose DMA is
 * cache-coherent: the consumer polls the ring without syncs, and the
 * driver's own writes (resets) are followed by a sync for the device.
 *
 * Locks: dlb2.h, "Locking".
 */
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "domain.h"
#include "hw.h"

/**
 * dlb2_port_cq_alloc() - allocate and map the CQ ring of a new port
 * @port: the port; @port->cq_entries set
 * @dev: the device that writes the ring
 *
 * Return: 0 or -ENOMEM.  The pages go with the port (dlb2_port_put()).
 */
int dlb2_port_cq_alloc(struct dlb2_port *port, struct device *dev)
{
	unsigned int order = get_order(dlb2_port_cq_map_size(port));
	struct page *pages;

	pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
	if (!pages)
		return -ENOMEM;
	split_page(pages, order);
	port->cq_pages = pages;
	port->cq_va = page_address(pages);
	port->cq_dma = dma_map_page(dev, pages, 0, dlb2_port_cq_map_size(port),
				    DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, port->cq_dma)) {
		port->cq_dma = 0;
		return -ENOMEM;
	}
	return 0;
}

/**
 * dlb2_port_cq_unmap() - end the device's access to the CQ ring
 * @port: a port whose CQ the device no longer writes (torn down)
 * @dev: the device
 */
void dlb2_port_cq_unmap(struct dlb2_port *port, struct device *dev)
{
	if (!port->cq_dma)
		return;
	dma_unmap_page(dev, port->cq_dma, dlb2_port_cq_map_size(port),
		       DMA_BIDIRECTIONAL);
	port->cq_dma = 0;
}

static void port_free(struct kref *ref)
{
	struct dlb2_port *port = container_of(ref, struct dlb2_port, ref);
	unsigned int i, pages = dlb2_port_cq_map_size(port) >> PAGE_SHIFT;

	/* No mapping is left: each held a file, which held the port. */
	for (i = 0; port->cq_pages && i < pages; i++)
		__free_page(port->cq_pages + i);
	kfree(port);
}

/**
 * dlb2_port_put() - drop a reference on a port
 * @port: the port
 */
void dlb2_port_put(struct dlb2_port *port)
{
	kref_put(&port->ref, port_free);
}

static bool unmap_pending(const struct dlb2_port *port)
{
	unsigned int s;

	for (s = 0; s < DLB2_MAX_LINKS; s++)
		if (port->slot_state[s] == DLB2_SLOT_UNMAP_PENDING)
			return true;
	return false;
}

/**
 * dlb2_port_cq_resume() - enable a port's CQ unless an unmap waits
 * @port: a load-balanced or directed port of an enabled domain
 */
void dlb2_port_cq_resume(struct dlb2_port *port)
{
	dlb2_hw_cq_enable(port->dom->dlb2, port, !unmap_pending(port));
}

/**
 * dlb2_port_release_cq() - recover a port whose consumer went away
 * @port: a live port; the device lock and port->lock held
 *
 * QEs in the CQ, and QEs the consumer dequeued without completing them, are
 * returned to the device (tokens popped, completions issued) and counted in
 * the port's "released" statistic; the ring starts again at entry 0 with
 * generation 1, so the next opener needs no state from the last one.
 */
void dlb2_port_release_cq(struct dlb2_port *port)
{
	struct dlb2 *dlb2 = port->dlb2;
	bool stopped;

	lockdep_assert_held(dlb2->lock);
	lockdep_assert_held(&port->lock);
	dlb2_hw_cq_enable(dlb2, port, false);
	/* The drain writes to the producer port, even one a storm stopped. */
	stopped = dlb2_alarms_port_hold(dlb2, port);
	dlb2_hw_port_drain_all(dlb2, port, &port->released);
	dlb2_alarms_port_release(dlb2, port, stopped);
	memset(port->cq_va, 0, dlb2_port_cq_map_size(port));
	dma_sync_single_for_device(&dlb2->pdev->dev, port->cq_dma,
				   dlb2_port_cq_map_size(port),
				   DMA_BIDIRECTIONAL);
	dlb2_hw_cq_reset(dlb2, port);
	WRITE_ONCE(port->isr_wptr, 0);		/* as the device's, reset */
	atomic_set(&port->irqs, 0);
	dlb2_port_cq_resume(port);
}

/**
 * dlb2_port_kill() - make a port dead for its file and its holders
 * @port: the port; the device lock held
 *
 * Every mapping of the open file (if any) faults from now on and its
 * waiters wake; no pin, map, CPU address or dma-buf attach succeeds any
 * more.  The holders' callbacks are not called here but by
 * dlb2_p2p_revoke_all(), once the caller has dropped the device lock.  The
 * file itself stays open until user space closes it; its operations
 * answer ENODEV.
 */
void dlb2_port_kill(struct dlb2_port *port)
{
	lockdep_assert_held(port->dev_lock);
	mutex_lock(&port->lock);
	port->dlb2 = NULL;
	port->dom = NULL;
	if (port->file)
		unmap_mapping_range(port->file->f_mapping, 0, 0, 1);
	mutex_unlock(&port->lock);
	wake_up_all(&port->wq);
}
