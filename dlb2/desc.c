// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: checking a domain description as a whole, and the
 * resources it needs.  No hardware access: unit-tested with KUnit
 * (desc_test.c).
 */
#include <kunit/visibility.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "domain.h"

/**
 * dlb2_port_hist_list() - history-list entries of a load-balanced port
 * @p: the port
 *
 * Return: what it asked for, or twice its CQ depth when it did not ask.
 */
u32 dlb2_port_hist_list(const struct dlb2_port_desc *p)
{
	return p->hist_list ? p->hist_list : 2 * p->cq_depth;
}

/* How many links of the domain's ports point at queue @q. */
static unsigned int links_to(const struct dlb2_domain_desc *desc,
			     unsigned int q)
{
	unsigned int p, l, n = 0;

	for (p = 0; p < desc->num_ports; p++)
		for (l = 0; l < desc->ports[p].num_links; l++)
			n += desc->ports[p].link_queue[l] == q;
	return n;
}

#define WHY(...)	({ snprintf(why, len, __VA_ARGS__); -EINVAL; })

/**
 * dlb2_domain_check() - is a domain description consistent?
 * @desc: the description; each attribute already passed its own check
 * @is_v2_5: for DLB 2.5 (one credit pool)
 * @why: set to the reason when it is not
 * @len: size of @why
 *
 * Return: 0, or -EINVAL with the reason in @why.
 */
int dlb2_domain_check(const struct dlb2_domain_desc *desc, bool is_v2_5,
		      char *why, size_t len)
{
	bool ldb_q = false, dir_q = false, ldb_p = false;
	unsigned int i, l;

	if (!desc->num_ports)
		return WHY("the domain has no ports");
	for (i = 0; i < desc->num_queues; i++) {
		const struct dlb2_queue_desc *q = &desc->queues[i];
		unsigned int users;

		if (!q->ldb) {
			dir_q = true;
			users = links_to(desc, i);
			if (users != 1)
				return WHY("directed queue %s is linked by %u ports, not 1",
					   q->name, users);
			continue;
		}
		ldb_q = true;
		if (q->sched == DLB2_Q_ORDERED && !q->sns)
			return WHY("ordered queue %s has no sequence_numbers",
				   q->name);
		if (q->sched != DLB2_Q_ORDERED && q->sns)
			return WHY("queue %s has sequence_numbers but is not ordered",
				   q->name);
		if (q->sched == DLB2_Q_ATOMIC && !q->atomic_inflights)
			return WHY("atomic queue %s has no atomic_inflights",
				   q->name);
	}
	for (i = 0; i < desc->num_ports; i++) {
		const struct dlb2_port_desc *p = &desc->ports[i];

		ldb_p |= p->ldb;
		if (!p->ldb && p->num_links > 1)
			return WHY("directed port %s links %u queues, at most 1",
				   p->name, p->num_links);
		for (l = 0; l < p->num_links; l++)
			if (desc->queues[p->link_queue[l]].ldb != p->ldb)
				return WHY("port %s and queue %s are not of the same type",
					   p->name,
					   desc->queues[p->link_queue[l]].name);
	}
	if (ldb_q && !ldb_p)
		return WHY("load-balanced queues need a load-balanced port");
	if (is_v2_5) {
		if ((ldb_q || dir_q) && !desc->ldb_credits && !desc->dir_credits)
			return WHY("the domain has queues but no credits");
	} else {
		if (ldb_q && !desc->ldb_credits)
			return WHY("the domain has load-balanced queues but ldb_credits is 0");
		if (dir_q && !desc->dir_credits)
			return WHY("the domain has directed queues but dir_credits is 0");
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(dlb2_domain_check);

/**
 * dlb2_domain_req() - the resources a domain description needs
 * @desc: a description that passed dlb2_domain_check()
 * @is_v2_5: for DLB 2.5 (one credit pool: the credits are added)
 * @req: filled in
 */
void dlb2_domain_req(const struct dlb2_domain_desc *desc, bool is_v2_5,
		     struct dlb2_domain_req *req)
{
	unsigned int i;

	memset(req, 0, sizeof(*req));
	req->ldb_credits = desc->ldb_credits;
	req->dir_credits = desc->dir_credits;
	if (is_v2_5) {
		req->ldb_credits += req->dir_credits;
		req->dir_credits = 0;
	}
	for (i = 0; i < desc->num_queues; i++) {
		if (desc->queues[i].ldb) {
			req->ldb_queues++;
			req->atomic_inflights += desc->queues[i].atomic_inflights;
		}
	}
	for (i = 0; i < desc->num_ports; i++) {
		const struct dlb2_port_desc *p = &desc->ports[i];

		if (!p->ldb) {
			req->dir_ports++;
			continue;
		}
		if (p->cos == DLB2_ANY_COS)
			req->ldb_ports_any++;
		else
			req->ldb_ports[p->cos]++;
		req->hist_list_entries += dlb2_port_hist_list(p);
	}
}
EXPORT_SYMBOL_IF_KUNIT(dlb2_domain_req);
