// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: peer-to-peer access to producer ports for other
 * kernel modules (include/linux/dlb2_p2p.h).
 *
 * A struct dlb2_p2p pins one port (a reference on struct dlb2_port) and
 * sits on the port's list of pins (port->p2p.pins) until it is put.
 * Locking (dlb2.h, "Locking"): port->p2p.lock protects the list and the
 * callback state of each pin, port->lock what the handle maps (the port
 * being live, the pin revoked, its DMA mappings), taken under p2p.lock.
 * Revoke callbacks run with neither (nor any other dlb2 lock) held:
 * dlb2_p2p_revoke_all() chooses the pins under p2p.lock, marks them
 * revoked, and calls them one by one without it;
 * dlb2_p2p_put() of a pin whose callback runs waits for it, and of a pin
 * whose callback is still to run takes it off, so it is never called.
 */
#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/panic.h>
#include <linux/module.h>
#include <linux/pci-p2pdma.h>
#include <linux/slab.h>
#include <linux/dlb2_p2p.h>

#include "compat.h"
#include "domain.h"
#include "trace.h"

/**
 * struct dlb2_p2p_map - one dlb2_p2p_map() of a pin, until its unmap
 * @node: on dlb2_p2p.maps, under port->lock
 * @dev: the device it is for
 * @addr: what dlb2_p2p_map() returned
 * @m: what was mapped (the pages around the range) and how
 */
struct dlb2_p2p_map {
	struct list_head node;
	struct device *dev;
	dma_addr_t addr;
	struct dlb2_p2p_mapping m;
};

/**
 * struct dlb2_p2p - a holder's pin on a producer-port window
 * @node: on port->p2p, under port->p2p.lock
 * @port: the port (a reference)
 * @revoke: the holder's callback
 * @priv: its argument
 * @revoked: revocation began: no map or CPU address any more (under
 *	     port->lock, set under p2p.lock too)
 * @todo: on a revoker's list of callbacks still to call, under p2p.lock
 * @in_callback: its callback runs (set under p2p.lock)
 * @info: what the range is
 * @maps: the live dlb2_p2p_map()s (struct dlb2_p2p_map), under port->lock
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
	struct list_head maps;
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
	INIT_LIST_HEAD(&p2p->maps);
	mutex_lock(&port->p2p.lock);
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
			.port_id = port->hw.id,
			.ldb = port->hw.ldb,
			.offset = offset,
			.len = len,
		};
		p2p->info.phys = port->dlb2->func_phys + offset +
				 dlb2_port_pp_offs(&port->hw);
		list_add_tail(&p2p->node, &port->p2p.pins);
	}
	mutex_unlock(&port->lock);
	mutex_unlock(&port->p2p.lock);
	trace_dlb2_p2p_pin(err ? NULL : p2p,
			   err ? domain_id : (int)p2p->info.domain_id,
			   port->hw.ldb, port->hw.id, port->name,
			   (const void *)revoke, offset, len, err);
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

	trace_dlb2_p2p_put(p2p, p2p->info.domain_id, p2p->info.ldb,
			   p2p->info.port_id, port->name,
			   (const void *)p2p->revoke, p2p->info.offset,
			   p2p->info.len, 0);
	mutex_lock(&port->p2p.lock);
	list_del(&p2p->node);
	if (!list_empty(&p2p->todo)) {
		list_del_init(&p2p->todo);
		WRITE_ONCE(port->p2p.pending, port->p2p.pending - 1);
		wake_up_all(&port->p2p.wq);
	}
	mutex_unlock(&port->p2p.lock);
	/* Its revoker clears it, under p2p.lock, once the callback returned. */
	wait_event(port->p2p.wq, !READ_ONCE(p2p->in_callback));
	/* A holder's bug, but no IOMMU mapping outlives the pin. */
	while (!list_empty(&p2p->maps)) {
		struct dlb2_p2p_map *map = list_first_entry(&p2p->maps,
							    struct dlb2_p2p_map,
							    node);

		WARN_ONCE(1, "dlb2: p2p pin of %s put with a mapping for %s\n",
			  port->name, dev_name(map->dev));
		dlb2_p2p_unmap(p2p, map->dev, map->addr);
	}
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

/* The PCI device behind a DMA device (find_parent_pci_dev() of the core). */
static struct pci_dev *p2p_pci_dev(struct device *dev)
{
	for (; dev; dev = dev->parent)
		if (dev_is_pci(dev))
			return to_pci_dev(dev);
	return NULL;
}

/*
 * The p2pdma core's map type for @dma_dev writing to the DLB (compat.h):
 * the type the path needs, and in *why the reason the core's policy
 * refuses it (PCI_P2PDMA_MAP_NOT_SUPPORTED), or NULL.
 */
static enum dlb2_p2p_map_type p2p_map_type(struct dlb2 *dlb2,
					   struct device *dma_dev,
					   const char **why)
{
	struct pci_dev *client = p2p_pci_dev(dma_dev);

	*why = NULL;
	if (!client) {
		*why = "it is not a PCI device";
		return DLB2_P2P_MAP_THRU_HOST_BRIDGE;
	}
	if (!IS_ENABLED(CONFIG_PCI_P2PDMA))
		*why = "the kernel has no P2PDMA support (CONFIG_PCI_P2PDMA)";
	else if (pci_p2pdma_distance(dlb2->pdev, dma_dev, false) < 0)
		*why = "host bridge path, and the host bridge is not on the P2PDMA allow list";
	return dlb2_p2pdma_bus_addr(dlb2->pdev, client) ?
	       DLB2_P2P_MAP_BUS_ADDR : DLB2_P2P_MAP_THRU_HOST_BRIDGE;
}

/**
 * dlb2_p2p_map() - the address a DMA device writes the window at
 * @p2p: the pin
 * @dma_dev: the device that will write (a NIC, a DMA engine)
 * @dma_addr: set to the address for @dma_dev of the pinned range
 *
 * The p2pdma core's rule decides (dlb2/compat.h): when the two devices
 * share a PCIe switch and no port on the path redirects peer requests
 * upstream (ACS), the switch routes the writes and @dma_dev gets the BAR's
 * PCI bus address (PCI_P2PDMA_MAP_BUS_ADDR), whatever its IOMMU does;
 * when the path crosses the host bridge, a DMA API mapping
 * (dma_map_resource(): an IOVA when @dma_dev's IOMMU translates;
 * PCI_P2PDMA_MAP_THRU_HOST_BRIDGE).  A path the core refuses
 * (PCI_P2PDMA_MAP_NOT_SUPPORTED, or @dma_dev not a PCI device) is refused
 * unless the administrator set the DLB's p2p_override in sysfs: then it is
 * mapped as its topology says (through the host bridge: the DMA API) and
 * the kernel is tainted (TAINT_USER) since its policy was bypassed.
 * The pages that hold the range are mapped, within the pin's 4 KiB window
 * (dlb2_p2p_mapping() says what and how).  Devices that access memory with
 * the CPU (e.g. rxe) use dlb2_p2p_cpu_addr() instead.
 *
 * Return: 0; -ENODEV when the pin was revoked; -EXDEV when the path cannot
 * carry peer-to-peer writes (logged with the reason); -EIO when the DMA
 * mapping failed; -ENOMEM.
 */
int dlb2_p2p_map(struct dlb2_p2p *p2p, struct device *dma_dev,
		 dma_addr_t *dma_addr)
{
	struct dlb2_port *port = p2p->port;
	phys_addr_t phys, first;
	struct dlb2_p2p_map *map;
	const char *why = NULL;
	bool forced = false;
	struct dlb2 *dlb2;
	dma_addr_t addr = 0;
	int mode = 0;
	int ret = 0;

	/* Rounding to pages stays within the port's own window. */
	BUILD_BUG_ON(PAGE_SIZE > DLB2_PP_SIZE_BYTES);
	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		return -ENOMEM;
	mutex_lock(&port->lock);
	dlb2 = port->dlb2;
	if (!dlb2 || p2p->revoked) {
		ret = -ENODEV;
		goto out;
	}
	map->m.type = p2p_map_type(dlb2, dma_dev, &why);
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
		map->m.forced = true;
		forced = true;
	}
	phys = p2p->info.phys;
	first = round_down(phys, PAGE_SIZE);
	map->m.len = round_up(phys + p2p->info.len, PAGE_SIZE) - first;
	if (map->m.type == DLB2_P2P_MAP_BUS_ADDR) {
		map->m.start = pci_bus_address(dlb2->pdev, DLB2_FUNC_BAR) +
			       (first - dlb2->func_phys);
	} else {
		map->m.start = dma_map_resource(dma_dev, first, map->m.len,
						DMA_BIDIRECTIONAL, 0);
		if (dma_mapping_error(dma_dev, map->m.start)) {
			ret = -EIO;
			goto out;
		}
	}
	map->dev = dma_dev;
	map->addr = map->m.start + (phys - first);
	*dma_addr = map->addr;
	addr = map->addr;
	mode = map->m.type;
	list_add_tail(&map->node, &p2p->maps);
	map = NULL;
out:
	trace_dlb2_p2p_map(p2p, dev_name(dma_dev), mode, forced, why ?: "",
			   addr, ret);
	mutex_unlock(&port->lock);
	kfree(map);
	return ret;
}
EXPORT_SYMBOL_GPL(dlb2_p2p_map);

/* Undo one map, as it was made, and free it; off the pin's list already. */
static void p2p_map_free(struct dlb2_p2p_map *map)
{
	if (map->m.type == DLB2_P2P_MAP_THRU_HOST_BRIDGE)
		dma_unmap_resource(map->dev, map->m.start, map->m.len,
				   DMA_BIDIRECTIONAL, 0);
	kfree(map);
}

/* The live map of @dma_dev at @dma_addr, under port->lock. */
static struct dlb2_p2p_map *p2p_find_map(struct dlb2_p2p *p2p,
					 struct device *dma_dev,
					 dma_addr_t dma_addr)
{
	struct dlb2_p2p_map *map;

	lockdep_assert_held(&p2p->port->lock);
	list_for_each_entry(map, &p2p->maps, node)
		if (map->dev == dma_dev && map->addr == dma_addr)
			return map;
	return NULL;
}

/**
 * dlb2_p2p_mapping() - how a dlb2_p2p_map() mapped the window
 * @p2p: the pin
 * @dma_dev: the device it was mapped for
 * @dma_addr: what dlb2_p2p_map() returned
 * @m: filled in: the map type, whether p2p_override forced it, and the
 *     DMA address range that is mapped (whole pages around the range)
 *
 * Return: 0, or -ENOENT when there is no such live mapping.
 */
int dlb2_p2p_mapping(struct dlb2_p2p *p2p, struct device *dma_dev,
		     dma_addr_t dma_addr, struct dlb2_p2p_mapping *m)
{
	struct dlb2_p2p_map *map;
	int ret = -ENOENT;

	mutex_lock(&p2p->port->lock);
	map = p2p_find_map(p2p, dma_dev, dma_addr);
	if (map) {
		*m = map->m;
		ret = 0;
	}
	mutex_unlock(&p2p->port->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(dlb2_p2p_mapping);

/**
 * dlb2_p2p_unmap() - undo dlb2_p2p_map()
 * @p2p: the pin (revoked or not)
 * @dma_dev: the device it was mapped for
 * @dma_addr: what dlb2_p2p_map() returned
 *
 * Undoes what that map did, as it did it (remembered per mapping, never
 * recomputed: the device's IOMMU domain or the topology may have changed
 * since).  Once the pin's revoke callback has returned, dlb2 has undone
 * them itself and this does nothing.
 */
void dlb2_p2p_unmap(struct dlb2_p2p *p2p, struct device *dma_dev,
		    dma_addr_t dma_addr)
{
	struct dlb2_p2p_map *map;
	bool revoked;

	mutex_lock(&p2p->port->lock);
	map = p2p_find_map(p2p, dma_dev, dma_addr);
	if (map)
		list_del(&map->node);
	revoked = p2p->revoked;
	mutex_unlock(&p2p->port->lock);
	if (!map && revoked)
		return;		/* unmapped after the revoke callback */
	if (WARN_ONCE(!map, "dlb2: p2p unmap of %pad for %s that is not mapped\n",
		      &dma_addr, dev_name(dma_dev)))
		return;
	trace_dlb2_p2p_unmap(p2p, dev_name(dma_dev), map->m.type, dma_addr,
			     false);
	p2p_map_free(map);
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

/*
 * After a holder's revoke callback returned: the DMA mappings of its pin
 * that it has not undone go now, so that no IOVA of the old holder still
 * reaches the port once it is reset and given to another domain (a holder
 * may unmap lazily, or, a dma-buf importer, after a fence the wait for
 * which timed out).  The holder's later dlb2_p2p_unmap() of them does
 * nothing.  Called with no dlb2 lock held.  Return: how many it undid.
 */
static unsigned int p2p_unmap_revoked(struct dlb2_p2p *p2p)
{
	struct dlb2_p2p_map *map, *tmp;
	unsigned int n = 0;
	LIST_HEAD(maps);

	mutex_lock(&p2p->port->lock);
	list_splice_init(&p2p->maps, &maps);
	mutex_unlock(&p2p->port->lock);
	list_for_each_entry_safe(map, tmp, &maps, node) {
		trace_dlb2_p2p_unmap(p2p, dev_name(map->dev), map->m.type,
				     map->addr, true);
		p2p_map_free(map);
		n++;
	}
	return n;
}

/**
 * dlb2_p2p_count() - how many pins a port has, for debugfs
 * @port: the port
 * @revoked: set to how many of them are revoked
 *
 * Return: the number of pins not yet put.
 */
unsigned int dlb2_p2p_count(struct dlb2_port *port, unsigned int *revoked)
{
	struct dlb2_p2p *p2p;
	unsigned int n = 0;

	*revoked = 0;
	mutex_lock(&port->p2p.lock);
	list_for_each_entry(p2p, &port->p2p.pins, node) {
		n++;
		*revoked += p2p->revoked;
	}
	mutex_unlock(&port->p2p.lock);
	return n;
}

/**
 * dlb2_p2p_revoke_all() - tell every holder of a port's pins it goes away
 * @port: a port dlb2_port_kill() marked dead, or whose file is being
 *	  released; the caller holds a reference on it
 *
 * Called with no dlb2 lock held (dlb2.h, "Locking"): from
 * dlb2_domain_release() and the port file's release.  The pins not yet
 * revoked are marked revoked under p2p.lock (and port->lock, for
 * dlb2_p2p_map()), then their callbacks are called one at a time without
 * any lock.  Returns once those callbacks and the ones that a concurrent
 * call for the same port runs have returned, so that the caller may then
 * reuse or free the port.  Pins taken afterwards (through a new open of a
 * live port) are not affected.
 */
void dlb2_p2p_revoke_all(struct dlb2_port *port)
{
	struct dlb2_p2p *p2p;
	unsigned int unmapped;
	LIST_HEAD(todo);
	ktime_t start;

	lockdep_assert_not_held(port->dev_lock);
	might_sleep();
	mutex_lock(&port->p2p.lock);
	list_for_each_entry(p2p, &port->p2p.pins, node) {
		if (p2p->revoked)
			continue;
		mutex_lock(&port->lock);
		p2p->revoked = true;
		mutex_unlock(&port->lock);
		list_add_tail(&p2p->todo, &todo);
		WRITE_ONCE(port->p2p.pending, port->p2p.pending + 1);
	}
	while (!list_empty(&todo)) {
		p2p = list_first_entry(&todo, struct dlb2_p2p, todo);
		list_del_init(&p2p->todo);
		WRITE_ONCE(p2p->in_callback, true);
		mutex_unlock(&port->p2p.lock);

		trace_dlb2_p2p_revoke(p2p, p2p->info.domain_id, p2p->info.ldb,
				      p2p->info.port_id, port->name,
				      (const void *)p2p->revoke,
				      p2p->info.offset, p2p->info.len, 0);
		start = ktime_get();
		if (p2p->revoke)
			p2p->revoke(p2p->priv);
		unmapped = p2p_unmap_revoked(p2p);
		trace_dlb2_p2p_revoke_done(p2p, (const void *)p2p->revoke,
					   ktime_us_delta(ktime_get(), start),
					   unmapped);

		mutex_lock(&port->p2p.lock);
		/* From here on dlb2_p2p_put() may free p2p. */
		WRITE_ONCE(p2p->in_callback, false);
		WRITE_ONCE(port->p2p.pending, port->p2p.pending - 1);
		wake_up_all(&port->p2p.wq);
	}
	mutex_unlock(&port->p2p.lock);
	wait_event(port->p2p.wq, !READ_ONCE(port->p2p.pending));
}
