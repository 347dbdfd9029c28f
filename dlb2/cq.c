// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: the port object below its character device: its
 * reference count, its CQ ring (memory, the device's mapping, recovery
 * after its consumer went) and its death at revocation.
 *
 * CQ memory.  The device writes the ring and the consumer reads it through
 * its mapping, without syncs, so the ring comes from the coherent DMA API
 * (dma_alloc_attrs()): it works where streaming mappings are bounced
 * (swiotlb=force, SEV and TDX guests, whose coherent memory is shared with
 * the device).  DMA_ATTR_FORCE_CONTIGUOUS keeps it one physically
 * contiguous block, which dma_mmap_attrs() maps into user space with
 * remap_pfn_range() (VM_IO | VM_PFNMAP, in the pgprot the DMA API needs:
 * decrypted in a confidential guest): get_user_pages() refuses such a
 * mapping, so nothing can pin the ring (no vmsplice(), RDMA registration
 * or O_DIRECT of it), since the same ring serves the port's next opener
 * (after dlb2_port_release_cq()).  The ring is freed at domain teardown
 * (dlb2_port_cq_free()), while the device is still there and after the
 * revocation (dlb2_port_kill()) zapped every mapping of it and made new
 * ones fail; a port that outlives its domain (its file still open) has no
 * ring.  The driver's own writes (resets) need no sync.
 *
 * Locks: dlb2.h, "Locking".
 */
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "domain.h"
#include "hw.h"

/* One contiguous block, so that dma_mmap_attrs() maps it as PFNs. */
#define DLB2_CQ_DMA_ATTRS	DMA_ATTR_FORCE_CONTIGUOUS

/**
 * dlb2_port_cq_alloc() - allocate the CQ ring of a new port
 * @port: the port; @port->hw.cq_entries set
 * @dev: the device that writes the ring
 *
 * Return: 0 or -ENOMEM.  The ring goes with dlb2_port_cq_free().
 */
int dlb2_port_cq_alloc(struct dlb2_port *port, struct device *dev)
{
	port->cq_va = dma_alloc_attrs(dev, dlb2_port_cq_map_size(&port->hw),
				      &port->hw.cq_dma, GFP_KERNEL,
				      DLB2_CQ_DMA_ATTRS);
	return port->cq_va ? 0 : -ENOMEM;
}

/**
 * dlb2_port_cq_free() - free the CQ ring: the device no longer writes it
 * @port: a port torn down (its CQ disabled), killed if it was ever enabled
 * @dev: the device
 */
void dlb2_port_cq_free(struct dlb2_port *port, struct device *dev)
{
	if (!port->cq_va)
		return;
	dma_free_attrs(dev, dlb2_port_cq_map_size(&port->hw), port->cq_va,
		       port->hw.cq_dma, DLB2_CQ_DMA_ATTRS);
	port->cq_va = NULL;
	port->hw.cq_dma = 0;
}

/**
 * dlb2_port_cq_mmap() - map the CQ ring into a user mapping
 * @port: a live port; port->lock held
 * @dev: the device
 * @vma: the mapping, of exactly dlb2_port_cq_map_size() bytes
 *
 * Return: 0 or a negative errno.  The PTEs are all in place when it
 * returns; dlb2_port_kill() zaps them.
 */
int dlb2_port_cq_mmap(struct dlb2_port *port, struct device *dev,
		      struct vm_area_struct *vma)
{
	unsigned long pgoff = vma->vm_pgoff;
	int ret;

	lockdep_assert_held(&port->lock);
	/*
	 * Pages that get_user_pages() could pin would outlive the file: the
	 * DMA API maps a vmalloc'ed buffer page by page (vm_map_pages()), a
	 * contiguous one as PFNs.  On an error the core unmaps the vma.
	 */
	if (WARN_ON_ONCE(is_vmalloc_addr(port->cq_va)))
		return -EIO;
	/* The ring from its start; vm_pgoff names the region (port.c). */
	vma->vm_pgoff = 0;
	ret = dma_mmap_attrs(dev, vma, port->cq_va, port->hw.cq_dma,
			     dlb2_port_cq_map_size(&port->hw), DLB2_CQ_DMA_ATTRS);
	vma->vm_pgoff = pgoff;
	if (!ret && WARN_ON_ONCE(!(vma->vm_flags & VM_PFNMAP)))
		ret = -EIO;
	return ret;
}

static void port_free(struct kref *ref)
{
	struct dlb2_port *port = container_of(ref, struct dlb2_port, ref);

	/* Its ring went at teardown (dlb2_port_cq_free()). */
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
		if (port->hw.slot_state[s] == DLB2_SLOT_UNMAP_PENDING)
			return true;
	return false;
}

/**
 * dlb2_port_cq_resume() - enable a port's CQ unless an unmap waits
 * @port: a load-balanced or directed port of an enabled domain
 */
void dlb2_port_cq_resume(struct dlb2_port *port)
{
	dlb2_hw_cq_enable(port->dom->dlb2, &port->hw, !unmap_pending(port));
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

	lockdep_assert_held(&dlb2->fn->lock);
	lockdep_assert_held(&port->lock);
	dlb2_hw_cq_enable(dlb2, &port->hw, false);
	/* The drain writes to the producer port, even one a storm stopped. */
	stopped = dlb2_alarms_port_hold(dlb2, port);
	dlb2_hw_port_drain_all(dlb2, &port->hw, &port->released);
	dlb2_alarms_port_release(dlb2, port, stopped);
	memset(port->cq_va, 0, dlb2_port_cq_map_size(&port->hw));
	dlb2_hw_cq_reset(dlb2, &port->hw);
	WRITE_ONCE(port->irq.isr_wptr, 0);		/* as the device's, reset */
	atomic_set(&port->irq.count, 0);
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
	if (port->cdev.file)
		unmap_mapping_range(port->cdev.file->f_mapping, 0, 0, 1);
	mutex_unlock(&port->lock);
	wake_up_all(&port->irq.wq);
}
