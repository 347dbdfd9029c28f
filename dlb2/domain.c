// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: scheduling domains in hardware, their queues and
 * ports, and the links of running domains.
 *
 * Creation is all or nothing: the description is checked as a whole, the
 * resources are allocated, the hardware programmed and started; any
 * failure undoes every step.  Destruction is in two steps around the
 * callbacks of the ports' P2P holders, which lifecycle.c calls with no
 * lock held (dlb2.h, "Locking"): dlb2_domain_kill() makes the ports dead
 * under the device lock, dlb2_domain_teardown() drains and resets the
 * hardware and gives the resources back under it again.  This file calls
 * only hw.c, resource.c, desc.c and the port object (cq.c); what users see
 * of a domain (configfs, sysfs, port devices, holders) is above it.
 */
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "domain.h"
#include "hw.h"
#include "regs.h"
#include "trace.h"

/* How often an unmap that waits for a consumer's completions is retried. */
#define DLB2_PENDING_RETRY	msecs_to_jiffies(10)

/* Take the lowest id of @owned in [start, end) not yet in @used. */
static unsigned int take_id(const unsigned long *owned, unsigned long *used,
			    unsigned int start, unsigned int end)
{
	unsigned int id;

	for (id = find_next_bit(owned, end, start); id < end;
	     id = find_next_bit(owned, end, id + 1))
		if (!test_and_set_bit(id, used))
			return id;
	return end;
}

static void free_sn_slots(struct dlb2 *dlb2, struct dlb2_domain *dom)
{
	unsigned int i;

	for (i = 0; i < dom->hw.num_queues; i++) {
		struct dlb2_queue *q = &dom->queues[i];

		if (q->hw.sn_group >= 0)
			dlb2_sn_slot_free(&dlb2->res, q->hw.sn_group,
					  q->hw.sn_slot);
		q->hw.sn_group = -1;
	}
}

/* Queue ids, SN slots; directed queue ids come with their port. */
static int setup_queues(struct dlb2 *dlb2, struct dlb2_domain *dom,
			const struct dlb2_domain_desc *desc, char *why,
			size_t len)
{
	DECLARE_BITMAP(used, DLB2_MAX_LDB_QUEUES) = { };
	unsigned int i, group, slot;
	int ret;

	/*
	 * No SN slot yet, for every queue: a failure frees the slots of all
	 * (free_sn_slots()), and group 0 slot 0 may be another domain's.
	 */
	for (i = 0; i < desc->num_queues; i++)
		dom->queues[i].hw.sn_group = -1;
	for (i = 0; i < desc->num_queues; i++) {
		struct dlb2_queue *q = &dom->queues[i];

		dom->hw.queues[i] = &q->hw;
		q->hw.desc = desc->queues[i];
		strscpy(q->name, q->hw.desc.name, sizeof(q->name));
		q->hw.desc.name = q->name;
		if (!q->hw.desc.ldb)
			continue;
		q->hw.id = take_id(dom->res.ldb_queues, used, 0,
				   DLB2_MAX_LDB_QUEUES);
		if (!q->hw.desc.sns)
			continue;
		ret = dlb2_sn_slot_alloc(&dlb2->res, q->hw.desc.sns, &group,
					 &slot);
		if (ret) {
			free_sn_slots(dlb2, dom);
			snprintf(why, len,
				 "no sequence-number group has room for %u SNs (queue %s)",
				 q->hw.desc.sns, q->name);
			return ret;
		}
		q->hw.sn_group = group;
		q->hw.sn_slot = slot;
	}
	return 0;
}

static void free_port(struct dlb2 *dlb2, struct dlb2_port *port)
{
	dlb2_port_cq_free(port, &dlb2->pdev->dev);
	dlb2_port_put(port);
}

static struct dlb2_port *alloc_port(struct dlb2 *dlb2, struct dlb2_domain *dom,
				    const struct dlb2_port_desc *d)
{
	struct dlb2_port *port = kzalloc(sizeof(*port), GFP_KERNEL);

	if (!port)
		return NULL;
	kref_init(&port->ref);
	mutex_init(&port->lock);
	mutex_init(&port->p2p.lock);
	INIT_LIST_HEAD(&port->p2p.pins);
	init_waitqueue_head(&port->p2p.wq);
	init_waitqueue_head(&port->irq.wq);
	port->dev_lock = &dlb2->fn->lock;
	port->dlb2 = dlb2;
	port->dom = dom;
	port->hw.ldb = d->ldb;
	port->hw.intr = d->intr;
	port->hw.cq_depth = d->cq_depth;
	port->hw.cq_entries = max_t(u32, d->cq_depth, 8);
	port->hw.hist_size = d->ldb ? dlb2_port_hist_list(d) : 0;
	strscpy(port->name, d->name, sizeof(port->name));
	if (dlb2_port_cq_alloc(port, &dlb2->pdev->dev)) {
		free_port(dlb2, port);
		return NULL;
	}
	return port;
}

/* Port ids, CQ memory, history lists, the slots of each port's links. */
static int setup_ports(struct dlb2 *dlb2, struct dlb2_domain *dom,
		       const struct dlb2_domain_desc *desc)
{
	DECLARE_BITMAP(used_ldb, DLB2_MAX_LDB_PORTS) = { };
	DECLARE_BITMAP(used_dir, DLB2_MAX_DIR_PORTS) = { };
	u32 hist = dom->res.hist_list_base;
	unsigned int i, l, pass;

	for (i = 0; i < desc->num_ports; i++) {
		dom->ports[i] = alloc_port(dlb2, dom, &desc->ports[i]);
		if (!dom->ports[i])
			return -ENOMEM;
		dom->hw.ports[i] = &dom->ports[i]->hw;
		dom->hw.num_ports = i + 1;
	}
	/* Ports of a given class first, then those of any class. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < desc->num_ports; i++) {
			const struct dlb2_port_desc *d = &desc->ports[i];
			unsigned int start = 0, end = DLB2_MAX_LDB_PORTS;
			bool any = d->cos == DLB2_ANY_COS;

			if (!d->ldb || any != pass)
				continue;
			if (d->cos != DLB2_ANY_COS) {
				start = d->cos * (DLB2_MAX_LDB_PORTS / DLB2_NUM_COS);
				end = start + DLB2_MAX_LDB_PORTS / DLB2_NUM_COS;
			}
			dom->ports[i]->hw.id = take_id(dom->res.ldb_ports,
						       used_ldb, start, end);
		}
	}
	for (i = 0; i < desc->num_ports; i++) {
		const struct dlb2_port_desc *d = &desc->ports[i];
		struct dlb2_port *port = dom->ports[i];

		if (d->ldb) {
			port->hw.hist_base = hist;
			hist += port->hw.hist_size;
			for (l = 0; l < d->num_links; l++) {
				port->hw.slot_queue[l] =
					&dom->queues[d->link_queue[l]].hw;
				port->hw.slot_prio[l] = d->link_prio[l];
			}
			continue;
		}
		port->hw.id = take_id(dom->res.dir_ports, used_dir, 0,
				      dlb2->res.num_dir_ports);
		if (d->num_links)
			dom->queues[d->link_queue[0]].hw.id = port->hw.id;
	}
	return 0;
}

static void program(struct dlb2 *dlb2, struct dlb2_domain *dom,
		    const struct dlb2_domain_desc *desc)
{
	unsigned int i, s, d = dom->res.id;

	dlb2_hw_sn_modes(dlb2);
	dlb2_hw_domain_credits(dlb2, d, dom->res.req.ldb_credits,
			       dom->res.req.dir_credits);
	for (i = 0; i < dom->hw.num_queues; i++) {
		if (dom->hw.queues[i]->desc.ldb)
			dlb2_hw_ldb_queue(dlb2, d, dom->hw.queues[i]);
		else
			dlb2_hw_dir_queue(dlb2, d, dom->hw.queues[i]);
	}
	for (i = 0; i < dom->hw.num_ports; i++) {
		struct dlb2_port *port = dom->ports[i];

		if (!port->hw.ldb) {
			dlb2_hw_dir_port(dlb2, d, &port->hw);
			WRITE_ONCE(dlb2->dir_ports[port->hw.id], port);
		} else {
			dlb2_hw_ldb_port(dlb2, d, &port->hw);
			WRITE_ONCE(dlb2->ldb_ports[port->hw.id], port);
			for (s = 0; s < desc->ports[i].num_links; s++) {
				port->hw.slot_state[s] = DLB2_SLOT_MAPPED;
				dlb2_hw_map(dlb2, &port->hw, s);
			}
			dlb2_hw_cq_enable(dlb2, &port->hw, true);
		}
		if (port->hw.intr)
			dlb2_hw_port_intr(dlb2, &port->hw, true);
	}
}

static void init_credit_page(struct dlb2_domain *dom)
{
	u64 *page = page_address(dom->credit_page);

	page[DLB2_CREDIT_POOL_OFFSET(DLB2_CREDIT_POOL_LDB) / 8] =
		dom->res.req.ldb_credits;
	page[DLB2_CREDIT_POOL_OFFSET(DLB2_CREDIT_POOL_DIR) / 8] =
		dom->res.req.dir_credits;
}

/*
 * Undo program() and setup_*(): the hardware is reset, memory freed, and
 * the resources go back to the device.  Device lock held; the ports are
 * revoked and no holder of theirs writes any more.
 */
static void teardown(struct dlb2 *dlb2, struct dlb2_domain *dom,
		     bool programmed)
{
	unsigned int i;
	ktime_t start;
	int ret;

	lockdep_assert_held(&dlb2->fn->lock);
	if (programmed) {
		/* A domain an alarm storm stopped drains like any other. */
		dlb2_alarms_domain_reset(dlb2, dom);
		start = ktime_get();
		ret = dlb2_hw_domain_reset(dlb2, dom->res.id, &dom->hw);
		trace_dlb2_domain_reset(pci_name(dlb2->pdev), dom->name,
					dom->res.id, ret,
					ktime_us_delta(ktime_get(), start));
		/*
		 * Unpublish, then wait for the handlers: the vectors are
		 * shared with other domains, whose interrupts may still run
		 * and look the ports up until they are unpublished.  Only
		 * then are the ports freed (dlb2.h, "Locking").
		 */
		for (i = 0; i < dom->hw.num_ports; i++) {
			struct dlb2_port *port = dom->ports[i];

			if (port->hw.ldb)
				WRITE_ONCE(dlb2->ldb_ports[port->hw.id], NULL);
			else
				WRITE_ONCE(dlb2->dir_ports[port->hw.id], NULL);
		}
		synchronize_irq(pci_irq_vector(dlb2->pdev, DLB2_INT_CQ));
		synchronize_irq(pci_irq_vector(dlb2->pdev, DLB2_INT_ALARM));
	}
	for (i = 0; i < dom->hw.num_ports; i++)
		free_port(dlb2, dom->ports[i]);
	free_sn_slots(dlb2, dom);
	dlb2_domain_free(&dlb2->res, &dom->res);
	if (dom->credit_page)
		__free_page(dom->credit_page);
	kfree(dom->hw.ports);
	kfree(dom->hw.queues);
	kfree(dom->ports);
	kfree(dom->queues);
	kfree(dom);
}

/**
 * dlb2_domain_create() - allocate, program and start a scheduling domain
 * @dlb2: the device
 * @desc: what the domain is
 * @why: set to the reason of a failure
 * @len: size of @why
 *
 * Called with the device lock held.  The domain runs and is in
 * dlb2.domains[] (its unmaps are retried by dlb2_pending_work()); nobody
 * else can reach it yet: its ports have no device node and no holder.
 *
 * Return: the domain, or an ERR_PTR: -EINVAL for an inconsistent
 * description, -ENOSPC when the device lacks a resource, -ENOMEM; nothing
 * is left allocated or programmed on failure.
 */
struct dlb2_domain *dlb2_domain_create(struct dlb2 *dlb2,
				       const struct dlb2_domain_desc *desc,
				       char *why, size_t len)
{
	bool is_v2_5 = dlb2->ver == DLB2_HW_V2_5;
	struct dlb2_domain_req req;
	struct dlb2_domain *dom;
	int ret;

	lockdep_assert_held(&dlb2->fn->lock);
	ret = dlb2_domain_check(desc, is_v2_5, why, len);
	if (ret)
		return ERR_PTR(ret);
	dlb2_domain_req(desc, is_v2_5, &req);

	dom = kzalloc(sizeof(*dom), GFP_KERNEL);
	if (!dom)
		return ERR_PTR(-ENOMEM);
	ret = dlb2_domain_alloc(&dlb2->res, &req, &dom->res);
	if (ret) {
		snprintf(why, len, "the device lacks %s",
			 dlb2_domain_lacks(&dlb2->res, &req));
		kfree(dom);
		return ERR_PTR(ret);
	}
	dom->dlb2 = dlb2;
	strscpy(dom->name, desc->name, sizeof(dom->name));
	INIT_LIST_HEAD(&dom->release_node);
	dom->queues = kcalloc(desc->num_queues, sizeof(*dom->queues),
			      GFP_KERNEL);
	dom->ports = kcalloc(desc->num_ports, sizeof(*dom->ports), GFP_KERNEL);
	dom->hw.queues = kcalloc(desc->num_queues, sizeof(*dom->hw.queues),
				 GFP_KERNEL);
	dom->hw.ports = kcalloc(desc->num_ports, sizeof(*dom->hw.ports),
				GFP_KERNEL);
	dom->credit_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if ((desc->num_queues && (!dom->queues || !dom->hw.queues)) ||
	    !dom->ports || !dom->hw.ports || !dom->credit_page) {
		ret = -ENOMEM;
		goto err_teardown;
	}
	dom->hw.num_queues = desc->num_queues;
	ret = setup_queues(dlb2, dom, desc, why, len);
	if (ret)
		goto err_teardown;
	ret = setup_ports(dlb2, dom, desc);
	if (ret)
		goto err_teardown;

	program(dlb2, dom, desc);
	dlb2_hw_start(dlb2, dom->res.id, &dom->hw);
	init_credit_page(dom);
	dlb2->domains[dom->res.id] = dom;
	return dom;

err_teardown:
	if (ret == -ENOMEM)
		snprintf(why, len, "out of memory");
	teardown(dlb2, dom, false);
	return ERR_PTR(ret);
}

/* Kill the ports and take the domain out of dlb2.domains[]; device lock held. */
static void unpublish(struct dlb2_domain *dom)
{
	struct dlb2 *dlb2 = dom->dlb2;
	unsigned int i;

	lockdep_assert_held(&dlb2->fn->lock);
	for (i = 0; i < dom->hw.num_ports; i++)
		dlb2_port_kill(dom->ports[i]);
	dlb2->domains[dom->res.id] = NULL;
}

/**
 * dlb2_domain_destroy() - undo dlb2_domain_create() of a domain never used
 * @dom: the domain; the device lock held
 *
 * For a domain whose enable failed after dlb2_domain_create(): its ports
 * had no opener and no P2P holder, so it is reset and freed at once.
 */
void dlb2_domain_destroy(struct dlb2_domain *dom)
{
	unpublish(dom);
	teardown(dom->dlb2, dom, true);
}

/**
 * dlb2_domain_kill() - make an enabled domain dead for its users
 * @dom: the domain; the device lock held
 *
 * Every port is killed (dlb2_port_kill(): mappings fault, no pin, map, CPU
 * address or dma-buf attach succeeds), the domain leaves dlb2.domains[] and
 * counts in dlb2.dying.  Its hardware and resources stay as they are until
 * dlb2_domain_teardown(), which the caller calls once it has dropped every
 * dlb2 lock and called the ports' holders.
 */
void dlb2_domain_kill(struct dlb2_domain *dom)
{
	struct dlb2 *dlb2 = dom->dlb2;

	unpublish(dom);
	WRITE_ONCE(dlb2->dying, dlb2->dying + 1);
}

/**
 * dlb2_domain_teardown() - drain, reset and free a killed domain
 * @dom: a domain dlb2_domain_kill() killed, whose ports' holders have been
 *	 called and have returned; no dlb2 lock held
 *
 * Under the device lock the hardware is drained and reset and the
 * resources are returned, so that no other domain gets a port an old
 * holder may still write to.
 */
void dlb2_domain_teardown(struct dlb2_domain *dom)
{
	struct dlb2 *dlb2 = dom->dlb2;
	struct mutex *lock = &dlb2->fn->lock;

	lockdep_assert_not_held(lock);
	mutex_lock(lock);
	teardown(dlb2, dom, true);
	/* Under the lock: a waiter frees dlb2 once it sees 0 and the lock. */
	WRITE_ONCE(dlb2->dying, dlb2->dying - 1);
	wake_up_all(&dlb2->dying_wq);
	mutex_unlock(lock);
}

/**
 * dlb2_domains_wait_released() - wait until every revoked domain is freed
 * @dlb2: the device; no dlb2 lock held
 *
 * For remove and reset, which must not let the device go (or be reset)
 * while another thread still revokes holders of, resets or frees a domain.
 */
void dlb2_domains_wait_released(struct dlb2 *dlb2)
{
	mutex_lock(&dlb2->fn->lock);
	while (dlb2->dying) {
		mutex_unlock(&dlb2->fn->lock);
		wait_event(dlb2->dying_wq, !READ_ONCE(dlb2->dying));
		mutex_lock(&dlb2->fn->lock);
	}
	mutex_unlock(&dlb2->fn->lock);
}

static int free_slot(struct dlb2_port *port)
{
	unsigned int s;

	for (s = 0; s < DLB2_MAX_LINKS; s++)
		if (port->hw.slot_state[s] == DLB2_SLOT_UNMAPPED)
			return s;
	return -ENOSPC;
}

/* The slot of @p through which @q is mapped, or -1. */
static int mapped_slot(const struct dlb2_port *p,
		       const struct dlb2_hw_queue *q)
{
	unsigned int s;

	for (s = 0; p->hw.ldb && s < DLB2_MAX_LINKS; s++)
		if (p->hw.slot_queue[s] == q && p->hw.slot_state[s] == DLB2_SLOT_MAPPED)
			return s;
	return -1;
}

/* Stop or resume the CQs of @dom through which @q is mapped. */
static void mapped_cqs_enable(struct dlb2_domain *dom,
			      const struct dlb2_hw_queue *q, bool on)
{
	unsigned int i;

	for (i = 0; i < dom->hw.num_ports; i++) {
		struct dlb2_port *c = dom->ports[i];

		if (mapped_slot(c, q) < 0)
			continue;
		if (on)
			dlb2_port_cq_resume(c);
		else
			dlb2_hw_cq_enable(dom->dlb2, &c->hw, false);
	}
}

/**
 * dlb2_domain_link() - map a queue to a load-balanced port of a running domain
 * @dom: the domain
 * @port: index of the port in the domain
 * @queue: index of the queue in the domain
 * @prio: priority of the link
 *
 * The hardware's dynamic map (6.7 step 5), in the order of DPDK's PF
 * driver: the queue stops being scheduled (inflight limit 0); this CQ and
 * every CQ already mapped to the queue stop, and the queue's inflight
 * count is read again (one more QE may have been scheduled after the
 * first read); the slot is mapped and the scheduler told about its work;
 * every slot mapped to the queue gets its inflight status back (the
 * scheduler does not re-evaluate them otherwise); the limit and the CQs
 * come back.  Where DPDK finishes a deferred map in the background, this
 * answers -EBUSY and leaves everything as it was.
 *
 * Return: 0; -EINVAL for a directed port or queue, -ENOSPC when all eight
 * slots are taken, -EBUSY while QEs of the queue are scheduled and not
 * completed (retry).
 */
int dlb2_domain_link(struct dlb2_domain *dom, unsigned int port,
		     unsigned int queue, u8 prio)
{
	struct dlb2_port *p = dom->ports[port];
	struct dlb2_hw_queue *q = &dom->queues[queue].hw;
	struct dlb2 *dlb2 = dom->dlb2;
	unsigned int i;
	int slot, s;
	u32 lim;

	if (!p->hw.ldb || !q->desc.ldb)
		return -EINVAL;
	slot = free_slot(p);
	if (slot < 0)
		return slot;
	if (dlb2_hw_map_quiesce(dlb2, q, &lim))
		return -EBUSY;
	dlb2_hw_cq_enable(dlb2, &p->hw, false);
	mapped_cqs_enable(dom, q, false);
	if (dlb2_hw_queue_inflight(dlb2, q)) {
		dlb2_hw_queue_infl_lim(dlb2, q, lim);
		mapped_cqs_enable(dom, q, true);
		dlb2_port_cq_resume(p);
		return -EBUSY;
	}
	p->hw.slot_queue[slot] = q;
	p->hw.slot_prio[slot] = prio;
	p->hw.slot_state[slot] = DLB2_SLOT_MAPPED;
	dlb2_hw_map(dlb2, &p->hw, slot);
	dlb2_hw_map_has_work(dlb2, &p->hw, slot);
	for (i = 0; i < dom->hw.num_ports; i++) {
		s = mapped_slot(dom->ports[i], q);
		if (s >= 0)
			dlb2_hw_slot_inflight_ok(dlb2, &dom->ports[i]->hw, s);
	}
	dlb2_hw_queue_infl_lim(dlb2, q, lim);
	mapped_cqs_enable(dom, q, true);
	return 0;
}

/**
 * dlb2_domain_unlink() - unmap a queue from a port of a running domain
 * @dom: the domain
 * @port: index of the port
 * @queue: index of the queue
 *
 * When the port still owes completions, its CQ stays disabled and the unmap
 * finishes in the background once the consumer completed them.
 */
void dlb2_domain_unlink(struct dlb2_domain *dom, unsigned int port,
			unsigned int queue)
{
	struct dlb2_port *p = dom->ports[port];
	struct dlb2_hw_queue *q = &dom->queues[queue].hw;
	unsigned int s;

	for (s = 0; s < DLB2_MAX_LINKS; s++) {
		if (p->hw.slot_queue[s] != q ||
		    p->hw.slot_state[s] != DLB2_SLOT_MAPPED)
			continue;
		if (dlb2_hw_unmap(dom->dlb2, &p->hw, s)) {
			p->hw.slot_state[s] = DLB2_SLOT_UNMAP_PENDING;
			schedule_delayed_work(&dom->dlb2->pending_work,
					      DLB2_PENDING_RETRY);
		} else {
			p->hw.slot_state[s] = DLB2_SLOT_UNMAPPED;
			p->hw.slot_queue[s] = NULL;
		}
	}
	dlb2_port_cq_resume(p);
}

/**
 * dlb2_pending_work() - retry unmaps that wait for completions
 * @work: dlb2.pending_work
 */
void dlb2_pending_work(struct work_struct *work)
{
	struct dlb2 *dlb2 = container_of(to_delayed_work(work), struct dlb2,
					 pending_work);
	bool again = false;
	unsigned int d, i, s;

	mutex_lock(&dlb2->fn->lock);
	for (d = 0; d < DLB2_MAX_DOMAINS; d++) {
		struct dlb2_domain *dom = dlb2->domains[d];

		for (i = 0; dom && i < dom->hw.num_ports; i++) {
			struct dlb2_port *p = dom->ports[i];

			for (s = 0; s < DLB2_MAX_LINKS; s++) {
				if (p->hw.slot_state[s] != DLB2_SLOT_UNMAP_PENDING)
					continue;
				if (dlb2_hw_unmap(dlb2, &p->hw, s)) {
					again = true;
					continue;
				}
				p->hw.slot_state[s] = DLB2_SLOT_UNMAPPED;
				p->hw.slot_queue[s] = NULL;
			}
			dlb2_port_cq_resume(p);
		}
	}
	if (again)
		schedule_delayed_work(&dlb2->pending_work, DLB2_PENDING_RETRY);
	mutex_unlock(&dlb2->fn->lock);
}
