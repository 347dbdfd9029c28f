// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: peer-to-peer access to producer ports for other
 * kernel modules (include/linux/dlb2_p2p.h).
 *
 * A struct dlb2_p2p pins one port (a reference on struct dlb2_port) and
 * sits on the port's p2p list until it is put.  Locking (dlb2.h,
 * "Locking"): port->p2p_lock protects the list and the callback state of
 * each pin, port->lock what the handle maps (the port being live, the pin
 * revoked), taken under p2p_lock.  Revoke callbacks run with neither (nor
 * any other dlb2 lock) held: dlb2_p2p_revoke_all() chooses the pins under
 * p2p_lock, marks them revoked, and calls them one by one without it;
 * dlb2_p2p_put() of a pin whose callback runs waits for it, and of a pin
 * whose callback is still to run takes it off, so it is never called.
 */
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/panic.h>
#include <linux/module.h>
#include <linux/pci-p2pdma.h>
#include <linux/slab.h>
#include <linux/dlb2_p2p.h>

#include "domain.h"
#include "regs.h"

/**
 * struct dlb2_p2p - a holder's pin on a producer-port window
 * @node: on port->p2p, under port->p2p_lock
 * @port: the port (a reference)
 * @revoke: the holder's callback
 * @priv: its argument
 * @revoked: revocation began: no map or CPU address any more (under
 *	     port->lock, set under p2p_lock too)
 * @todo: on a revoker's list of callbacks still to call, under p2p_lock
 * @in_callback: its callback runs (set under p2p_lock)
 * @info: what the range is
 */
struct dlb2_p2p {
	struct list_head node;
	struct dlb2_port *port;
	dlb2_p2p_revoke_t revoke;
	void *priv;
	bool revoked;
	struct list_head todo;
	bool in_callback;
	struct dlb2_p2p_info info;
};

/**
 * dlb2_p2p_pin() - pin a range of a port's producer-port window
 * @port: the port (the caller holds a reference)
 * @offset: start of the range in the window
 * @len: its length
 * @domain_id: the hardware domain the port must belong to, or -1
 * @revoke: called when the port goes away
 * @priv: its argument
 *
 * Return: the pin, or an ERR_PTR as dlb2_p2p_get().
 */
struct dlb2_p2p *dlb2_p2p_pin(struct dlb2_port *port, u32 offset, u32 len,
			      int domain_id, dlb2_p2p_revoke_t revoke,
			      void *priv)
{
	struct dlb2_p2p *p2p;
	int err = 0;

	p2p = kzalloc(sizeof(*p2p), GFP_KERNEL);
	if (!p2p)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&p2p->todo);
	mutex_lock(&port->p2p_lock);
	mutex_lock(&port->lock);
	if (!port->dlb2) {
		err = -ENODEV;
	} else if (domain_id >= 0 && port->dom->res.id != domain_id) {
		err = -EACCES;
	} else {
		kref_get(&port->ref);
		p2p->port = port;
		p2p->revoke = revoke;
		p2p->priv = priv;
		p2p->info = (struct dlb2_p2p_info){
			.domain_id = port->dom->res.id,
			.port_id = port->id,
			.ldb = port->ldb,
			.offset = offset,
			.len = len,
		};
		p2p->info.phys = port->dlb2->func_phys + offset +
				 (port->ldb ? DLB2_LDB_PP_OFFS(port->id) :
					      DLB2_DIR_PP_OFFS(port->id));
		list_add_tail(&p2p->node, &port->p2p);
	}
	mutex_unlock(&port->lock);
	mutex_unlock(&port->p2p_lock);
	if (err == -ENODEV)
		pr_info_ratelimited("dlb2: p2p refused: port %s is no longer live (domain disabled, reset or unbound)\n",
				    port->name);
	else if (err == -EACCES)
		pr_info_ratelimited("dlb2: p2p refused: port %s is not in domain %d\n",
				    port->name, domain_id);
	if (err) {
		kfree(p2p);
		return ERR_PTR(err);
	}
	return p2p;
}

#define refuse(err, fmt, ...) ({					\
	pr_info_ratelimited("dlb2: p2p refused: " fmt "\n", ##__VA_ARGS__); \
	ERR_PTR(err);							\
})

/**
 * dlb2_p2p_get() - pin the producer-port window behind a user address range
 * @mm: the address space (usually current->mm), not locked by the caller
 * @addr: start of the range
 * @len: its length; the range must lie within one port's PP mapping
 * @domain_id: the hardware domain the port must belong to, or -1 for any
 * @revoke: called when the port goes away (see dlb2_p2p_revoke_t)
 * @priv: its argument; must stay valid until dlb2_p2p_put() returns
 *
 * Return: the pin, or an ERR_PTR: -EINVAL when the range is not (all) in a
 * mapping of a dlb2 producer port, -ENODEV when its port is no longer live
 * (domain disabled, device reset or unbound), -EACCES when it belongs to
 * another domain than @domain_id, -ENOMEM.  Each refusal is logged.
 */
struct dlb2_p2p *dlb2_p2p_get(struct mm_struct *mm, unsigned long addr,
			      size_t len, int domain_id,
			      dlb2_p2p_revoke_t revoke, void *priv)
{
	struct vm_area_struct *vma;
	struct dlb2_port *port;
	struct dlb2_p2p *p2p;
	u32 offset;

	if (!len || addr + len < addr)
		return refuse(-EINVAL, "empty range at %#lx", addr);
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	port = vma ? dlb2_port_of_pp_vma(vma) : NULL;
	if (!port) {
		mmap_read_unlock(mm);
		return refuse(-EINVAL, "%#lx is not in a dlb2 producer-port mapping",
			      addr);
	}
	if (addr + len > vma->vm_end) {
		mmap_read_unlock(mm);
		return refuse(-EINVAL, "%#lx+%#zx spans more than one producer port",
			      addr, len);
	}
	offset = addr - vma->vm_start;
	kref_get(&port->ref);
	mmap_read_unlock(mm);

	p2p = dlb2_p2p_pin(port, offset, len, domain_id, revoke, priv);
	dlb2_port_put(port);
	return p2p;
}
EXPORT_SYMBOL_GPL(dlb2_p2p_get);

/**
 * dlb2_p2p_put() - drop a pin
 * @p2p: the pin; the holder unmapped every dlb2_p2p_map() of it
 *
 * Waits for a revoke callback of this pin that is running; so it must not
 * be called from that callback.  A callback that a revocation has yet to
 * call is not called any more.
 */
void dlb2_p2p_put(struct dlb2_p2p *p2p)
{
	struct dlb2_port *port = p2p->port;

	mutex_lock(&port->p2p_lock);
	list_del(&p2p->node);
	if (!list_empty(&p2p->todo)) {
		list_del_init(&p2p->todo);
		WRITE_ONCE(port->p2p_pending, port->p2p_pending - 1);
		wake_up_all(&port->p2p_wq);
	}
	mutex_unlock(&port->p2p_lock);
	/* Its revoker clears it, under p2p_lock, once the callback returned. */
	wait_event(port->p2p_wq, !READ_ONCE(p2p->in_callback));
	kfree(p2p);
	dlb2_port_put(port);
}
EXPORT_SYMBOL_GPL(dlb2_p2p_put);

/**
 * dlb2_p2p_info() - what a pin covers
 * @p2p: the pin
 * @info: filled in
 */
void dlb2_p2p_info(struct dlb2_p2p *p2p, struct dlb2_p2p_info *info)
{
	*info = p2p->info;
}
EXPORT_SYMBOL_GPL(dlb2_p2p_info);

/**
 * dlb2_p2p_revoked() - was the pin revoked?
 * @p2p: the pin
 *
 * Return: true once its port went away.
 */
bool dlb2_p2p_revoked(struct dlb2_p2p *p2p)
{
	bool ret;

	mutex_lock(&p2p->port->lock);
	ret = p2p->revoked || !p2p->port->dlb2;
	mutex_unlock(&p2p->port->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(dlb2_p2p_revoked);

/* Why a DMA device cannot reach the DLB's BAR, or NULL when it can. */
static const char *p2p_path_problem(struct dlb2 *dlb2, struct device *dma_dev)
{
	if (!dev_is_pci(dma_dev))
		return "it is not a PCI device";
	if (pci_p2pdma_distance(dlb2->pdev, dma_dev, false) < 0)
		return "no common PCIe switch, and the host bridge is not on the P2PDMA allow list";
	return NULL;
}

/**
 * dlb2_p2p_map() - the address a DMA device writes the window at
 * @p2p: the pin
 * @dma_dev: the device that will write (a NIC, a DMA engine)
 * @dma_addr: set to the address for @dma_dev
 *
 * The device's IOMMU domain decides: none or identity (pass-through): the
 * BAR's bus address; translating: an IOMMU mapping (dma_map_resource()).
 * The PCIe path must be able to carry peer-to-peer writes
 * (pci_p2pdma_distance()); when it cannot, the map is refused unless the
 * administrator set the device's p2p_override in sysfs (a forced map taints
 * the kernel with TAINT_USER).  Devices that
 * access memory with the CPU (e.g. rxe) use dlb2_p2p_cpu_addr() instead.
 *
 * Return: 0; -ENODEV when the pin was revoked; -EXDEV when the path cannot
 * carry peer-to-peer writes (logged with the reason); -EIO when the IOMMU
 * mapping failed.
 */
int dlb2_p2p_map(struct dlb2_p2p *p2p, struct device *dma_dev,
		 dma_addr_t *dma_addr)
{
	struct dlb2_port *port = p2p->port;
	struct iommu_domain *domain;
	const char *why;
	struct dlb2 *dlb2;
	dma_addr_t addr;
	int ret = 0;

	mutex_lock(&port->lock);
	dlb2 = port->dlb2;
	if (!dlb2 || p2p->revoked) {
		ret = -ENODEV;
		goto out;
	}
	why = p2p_path_problem(dlb2, dma_dev);
	if (why && !READ_ONCE(dlb2->p2p_override)) {
		dev_warn_ratelimited(&dlb2->pdev->dev,
				     "p2p refused: %s cannot write to the DLB: %s; set p2p_override to force\n",
				     dev_name(dma_dev), why);
		ret = -EXDEV;
		goto out;
	}
	if (why) {
		dev_info_ratelimited(&dlb2->pdev->dev,
				     "p2p forced (p2p_override) for %s: %s\n",
				     dev_name(dma_dev), why);
		/* The kernel's P2P policy was bypassed: say so in the taint. */
		if (!test_taint(TAINT_USER))
			add_taint(TAINT_USER, LOCKDEP_STILL_OK);
	}
	domain = iommu_get_domain_for_dev(dma_dev);
	if (!domain || domain->type == IOMMU_DOMAIN_IDENTITY) {
		*dma_addr = pci_bus_address(dlb2->pdev, DLB2_FUNC_BAR) +
			    (p2p->info.phys - dlb2->func_phys);
		goto out;
	}
	addr = dma_map_resource(dma_dev, p2p->info.phys, p2p->info.len,
				DMA_BIDIRECTIONAL, 0);
	if (dma_mapping_error(dma_dev, addr))
		ret = -EIO;
	else
		*dma_addr = addr;
out:
	mutex_unlock(&port->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(dlb2_p2p_map);

/**
 * dlb2_p2p_unmap() - undo dlb2_p2p_map()
 * @p2p: the pin (revoked or not)
 * @dma_dev: the device it was mapped for
 * @dma_addr: what dlb2_p2p_map() returned
 */
void dlb2_p2p_unmap(struct dlb2_p2p *p2p, struct device *dma_dev,
		    dma_addr_t dma_addr)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dma_dev);

	if (domain && domain->type != IOMMU_DOMAIN_IDENTITY)
		dma_unmap_resource(dma_dev, dma_addr, p2p->info.len,
				   DMA_BIDIRECTIONAL, 0);
}
EXPORT_SYMBOL_GPL(dlb2_p2p_unmap);

/**
 * dlb2_p2p_cpu_addr() - a kernel mapping of the window, for devices whose
 * "DMA" is done by the CPU (software RDMA such as rxe)
 * @p2p: the pin
 *
 * Writes must be 8-byte stores (writeq(), __iowrite64_copy()) or wider.
 * The mapping stays valid until the revoke callback returns.
 *
 * Return: the address of the range, or NULL when the pin was revoked.
 */
void __iomem *dlb2_p2p_cpu_addr(struct dlb2_p2p *p2p)
{
	struct dlb2_port *port = p2p->port;
	void __iomem *va = NULL;

	mutex_lock(&port->lock);
	if (port->dlb2 && !p2p->revoked)
		va = port->dlb2->func_base +
		     (p2p->info.phys - port->dlb2->func_phys);
	mutex_unlock(&port->lock);
	return va;
}
EXPORT_SYMBOL_GPL(dlb2_p2p_cpu_addr);

/**
 * dlb2_p2p_revoke_all() - tell every holder of a port's pins it goes away
 * @port: a port dlb2_port_revoke() marked dead, or whose file is being
 *	  released; the caller holds a reference on it
 *
 * Called with no dlb2 lock held (dlb2.h, "Locking"): from
 * dlb2_domain_release() and the port file's release.  The pins not yet
 * revoked are marked revoked under p2p_lock (and port->lock, for
 * dlb2_p2p_map()), then their callbacks are called one at a time without
 * any lock.  Returns once those callbacks and the ones that a concurrent
 * call for the same port runs have returned, so that the caller may then
 * reuse or free the port.  Pins taken afterwards (through a new open of a
 * live port) are not affected.
 */
void dlb2_p2p_revoke_all(struct dlb2_port *port)
{
	struct dlb2_p2p *p2p;
	LIST_HEAD(todo);

	lockdep_assert_not_held(port->dev_lock);
	might_sleep();
	mutex_lock(&port->p2p_lock);
	list_for_each_entry(p2p, &port->p2p, node) {
		if (p2p->revoked)
			continue;
		mutex_lock(&port->lock);
		p2p->revoked = true;
		mutex_unlock(&port->lock);
		list_add_tail(&p2p->todo, &todo);
		WRITE_ONCE(port->p2p_pending, port->p2p_pending + 1);
	}
	while (!list_empty(&todo)) {
		p2p = list_first_entry(&todo, struct dlb2_p2p, todo);
		list_del_init(&p2p->todo);
		WRITE_ONCE(p2p->in_callback, true);
		mutex_unlock(&port->p2p_lock);

		if (p2p->revoke)
			p2p->revoke(p2p->priv);

		mutex_lock(&port->p2p_lock);
		/* From here on dlb2_p2p_put() may free p2p. */
		WRITE_ONCE(p2p->in_callback, false);
		WRITE_ONCE(port->p2p_pending, port->p2p_pending - 1);
		wake_up_all(&port->p2p_wq);
	}
	mutex_unlock(&port->p2p_lock);
	wait_event(port->p2p_wq, !READ_ONCE(port->p2p_pending));
}
