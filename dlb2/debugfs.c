// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: a dump of a device's domains for bug reports.
 *
 *   /sys/kernel/debug/dlb2/<PCI name>/domains
 *
 * One file per PCI function, created at probe and removed at remove
 * (debugfs_remove_recursive() waits for a read in progress, so the device
 * outlives every read).  The format is documented in
 * Documentation/admin-guide/dlb2.rst ("What to send with a bug report"):
 * one line per object, "<kind> <name> key=value ...", indented by its
 * depth.  It is read under the device lock, and, for each port, its
 * p2p.lock and lock (dlb2.h, "Locking"), so it is consistent; the
 * counters read from the device are as sysfs shows them.  Built only with
 * CONFIG_DEBUG_FS (dlb2.h has the stubs).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "domain.h"
#include "hw.h"

static struct dentry *dlb2_debugfs_root;

static const char *const state_names[] = {
	[DLB2_STATE_READY] = "ready",
	[DLB2_STATE_RESETTING] = "resetting",
	[DLB2_STATE_FAILED] = "failed",
};

static const char *const sched_names[] = {
	[DLB2_Q_ATOMIC] = "atomic",
	[DLB2_Q_ORDERED] = "ordered",
	[DLB2_Q_UNORDERED] = "unordered",
};

static const char *const slot_names[] = {
	[DLB2_SLOT_UNMAPPED] = "unmapped",
	[DLB2_SLOT_MAPPED] = "mapped",
	[DLB2_SLOT_UNMAP_PENDING] = "unmap_pending",
};

static void show_device(struct seq_file *m, struct dlb2 *dlb2)
{
	const struct dlb2_resources *r = &dlb2->res;
	unsigned int k;

	seq_printf(m, "device %s dlb2_%d version=%s state=%s ingress_alarms=%s dying=%u p2p_override=%d\n",
		   pci_name(dlb2->pdev), dlb2->fn->id, dlb2_ver_str(dlb2),
		   state_names[dlb2->state],
		   READ_ONCE(dlb2->ingress_alarms_off) ? "off" :
		   READ_ONCE(dlb2->alarms_stops) ? "domains_stopped" : "on",
		   dlb2->dying, READ_ONCE(dlb2->p2p_override));
	seq_puts(m, "alarms");
	for (k = 0; k < DLB2_NUM_ALARMS; k++)
		seq_printf(m, " %s=%lld", dlb2_alarm_name(k),
			   atomic64_read(&dlb2->alarms[k]));
	seq_printf(m, "\nfree domains=%u ldb_queues=%u ldb_ports=%u dir_ports=%u ldb_credits=%u dir_credits=%u hist_list_entries=%u atomic_inflights=%u\n",
		   bitmap_weight(r->domains, DLB2_MAX_DOMAINS),
		   bitmap_weight(r->ldb_queues, DLB2_MAX_LDB_QUEUES),
		   bitmap_weight(r->ldb_ports, DLB2_MAX_LDB_PORTS),
		   bitmap_weight(r->dir_ports, DLB2_MAX_DIR_PORTS),
		   r->ldb_credits, r->dir_credits,
		   bitmap_weight(r->hist_list, DLB2_HIST_LIST_ENTRIES),
		   r->atomic_inflights);
}

static void show_queue(struct seq_file *m, struct dlb2 *dlb2,
		       const struct dlb2_queue *q)
{
	const struct dlb2_queue_desc *d = &q->hw.desc;

	seq_printf(m, "  queue %s type=%s id=%u depth=%u enqueued=%llu depth_threshold=%u",
		   q->name, d->ldb ? "ldb" : "dir", q->hw.id,
		   dlb2_hw_queue_depth(dlb2, &q->hw),
		   dlb2_hw_queue_enqueued(dlb2, &q->hw), d->depth_threshold);
	if (d->ldb)
		seq_printf(m, " sched=%s sequence_numbers=%u sn_group=%d atomic_inflights=%u lock_id_compression=%u",
			   sched_names[d->sched], d->sns, q->hw.sn_group,
			   d->atomic_inflights, d->lock_id_comp);
	seq_putc(m, '\n');
}

static void show_port(struct seq_file *m, struct dlb2 *dlb2,
		      struct dlb2_domain *dom, struct dlb2_port *p)
{
	unsigned int pins, revoked, s;
	bool open;

	pins = dlb2_p2p_count(p, &revoked);
	mutex_lock(&p->lock);
	open = p->cdev.file;
	mutex_unlock(&p->lock);
	seq_printf(m, "  port %s type=%s id=%u cq_depth=%u wait_mode=%s",
		   p->name, p->hw.ldb ? "ldb" : "dir", p->hw.id, p->hw.cq_depth,
		   p->hw.intr ? "interrupt" : "poll");
	if (p->hw.ldb)
		seq_printf(m, " history_list=%u hist_list_base=%u", p->hw.hist_size,
			   p->hw.hist_base);
	seq_printf(m, " open=%d pins=%u pins_revoked=%u dequeued=%llu outstanding=%u inflight=%u released=%lld alarms=%lld\n",
		   open, pins, revoked, dlb2_hw_cq_scheduled(dlb2, &p->hw),
		   dlb2_hw_cq_tokens(dlb2, &p->hw), dlb2_hw_cq_inflights(dlb2, &p->hw),
		   atomic64_read(&p->released), atomic64_read(&p->alarms));
	if (!p->hw.ldb) {
		unsigned int i;

		/* its queue has its id (domain.c) */
		for (i = 0; i < dom->hw.num_queues; i++)
			if (!dom->queues[i].hw.desc.ldb &&
			    dom->queues[i].hw.id == p->hw.id)
				seq_printf(m, "    link %s\n", dom->queues[i].name);
		return;
	}
	for (s = 0; s < DLB2_MAX_LINKS; s++) {
		if (p->hw.slot_state[s] == DLB2_SLOT_UNMAPPED)
			continue;
		seq_printf(m, "    link %s slot=%u priority=%u state=%s\n",
			   p->hw.slot_queue[s] ? p->hw.slot_queue[s]->desc.name : "-", s,
			   p->hw.slot_prio[s], slot_names[p->hw.slot_state[s]]);
	}
}

static void show_domain(struct seq_file *m, struct dlb2 *dlb2,
			struct dlb2_domain *dom)
{
	const struct dlb2_domain_req *req = &dom->res.req;
	u64 *page = page_address(dom->credit_page);
	unsigned int i;

	seq_printf(m, "domain %s id=%u ldb_credits=%u dir_credits=%u pool_ldb=%llu pool_dir=%llu hist_list_base=%u hist_list_entries=%u atomic_inflights=%u queues=%u ports=%u\n",
		   dom->name, dom->res.id, req->ldb_credits, req->dir_credits,
		   READ_ONCE(page[DLB2_CREDIT_POOL_OFFSET(DLB2_CREDIT_POOL_LDB) / 8]),
		   READ_ONCE(page[DLB2_CREDIT_POOL_OFFSET(DLB2_CREDIT_POOL_DIR) / 8]),
		   dom->res.hist_list_base, req->hist_list_entries,
		   req->atomic_inflights, dom->hw.num_queues, dom->hw.num_ports);
	if (READ_ONCE(dom->alarms_stopped))
		seq_puts(m, "  producer ports stopped by an alarm storm\n");
	for (i = 0; i < dom->hw.num_queues; i++)
		show_queue(m, dlb2, &dom->queues[i]);
	for (i = 0; i < dom->hw.num_ports; i++)
		show_port(m, dlb2, dom, dom->ports[i]);
}

static int domains_show(struct seq_file *m, void *unused)
{
	struct dlb2 *dlb2 = m->private;
	unsigned int d;

	mutex_lock(&dlb2->fn->lock);
	show_device(m, dlb2);
	dlb2_configfs_dump(dlb2, m);
	for (d = 0; d < DLB2_MAX_DOMAINS; d++)
		if (dlb2->domains[d])
			show_domain(m, dlb2, dlb2->domains[d]);
	mutex_unlock(&dlb2->fn->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(domains);

/**
 * dlb2_debugfs_add() - a probed device's directory, <PCI name>/domains
 * @dlb2: the device, attached to its configfs directory (its lock set)
 *
 * Like every debugfs user, the driver goes on without it on failure.
 */
void dlb2_debugfs_add(struct dlb2 *dlb2)
{
	dlb2->debugfs = debugfs_create_dir(pci_name(dlb2->pdev),
					   dlb2_debugfs_root);
	debugfs_create_file("domains", 0400, dlb2->debugfs, dlb2,
			    &domains_fops);
}

/**
 * dlb2_debugfs_del() - remove it, waiting for reads in progress
 * @dlb2: the device; no dlb2 lock held (a read takes the device lock)
 */
void dlb2_debugfs_del(struct dlb2 *dlb2)
{
	debugfs_remove_recursive(dlb2->debugfs);
	dlb2->debugfs = NULL;
}

/** dlb2_debugfs_init() - /sys/kernel/debug/dlb2 */
void dlb2_debugfs_init(void)
{
	dlb2_debugfs_root = debugfs_create_dir(DLB2_DRV_NAME, NULL);
}

/** dlb2_debugfs_exit() - remove it */
void dlb2_debugfs_exit(void)
{
	debugfs_remove_recursive(dlb2_debugfs_root);
}
