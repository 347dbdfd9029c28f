// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: the allocator of the device's resource pools.
 * See resource.h; resource counts from the hardware facts, section 2.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/minmax.h>

#include "resource.h"

#define DLB2_LDB_PORTS_PER_COS	(DLB2_MAX_LDB_PORTS / DLB2_NUM_COS)

/**
 * dlb2_resources_init() - every resource of a device free
 * @r: the pools
 * @is_v2_5: DLB 2.5 (96 directed ports, one combined credit pool)
 */
void dlb2_resources_init(struct dlb2_resources *r, bool is_v2_5)
{
	*r = (struct dlb2_resources){
		.num_dir_ports = is_v2_5 ? 96 : 64,
		.combined_credits = is_v2_5,
		.ldb_credits = is_v2_5 ? 16384 : 8192,
		.dir_credits = is_v2_5 ? 0 : 4096,
		.atomic_inflights = DLB2_ATOMIC_INFLIGHTS,
	};
	bitmap_fill(r->domains, DLB2_MAX_DOMAINS);
	bitmap_fill(r->ldb_queues, DLB2_MAX_LDB_QUEUES);
	bitmap_fill(r->ldb_ports, DLB2_MAX_LDB_PORTS);
	bitmap_fill(r->dir_ports, r->num_dir_ports);
	bitmap_fill(r->hist_list, DLB2_HIST_LIST_ENTRIES);
}
EXPORT_SYMBOL_IF_KUNIT(dlb2_resources_init);

/* Move the n lowest set bits of @from, within [start, end), to @to. */
static void take_bits(unsigned long *from, unsigned long *to,
		      unsigned int start, unsigned int end, u32 n)
{
	unsigned int bit;

	for (bit = find_next_bit(from, end, start); n && bit < end;
	     bit = find_next_bit(from, end, bit + 1), n--) {
		clear_bit(bit, from);
		set_bit(bit, to);
	}
}

/* How many bits of [start, end) are set (free). */
static unsigned int free_in(const unsigned long *map, unsigned int start,
			    unsigned int end)
{
	unsigned int bit = start, n = 0;

	for_each_set_bit_from(bit, map, end)
		n++;
	return n;
}

/* The first free history-list range of n entries, or -ENOSPC. */
static int hist_list_find(const struct dlb2_resources *r, u32 n)
{
	unsigned long base;

	if (!n)
		return 0;
	/* Free entries are set bits: look for n contiguous set bits. */
	for (base = find_first_bit(r->hist_list, DLB2_HIST_LIST_ENTRIES);
	     base + n <= DLB2_HIST_LIST_ENTRIES;
	     base = find_next_bit(r->hist_list, DLB2_HIST_LIST_ENTRIES,
				  base + 1)) {
		unsigned long end = find_next_zero_bit(r->hist_list,
						       DLB2_HIST_LIST_ENTRIES,
						       base);

		if (end - base >= n)
			return base;
		base = end;
	}
	return -ENOSPC;
}

/**
 * dlb2_domain_alloc() - allocate a scheduling domain, all or nothing
 * @r: the pools
 * @req: what the domain asks for
 * @out: filled with what it got
 *
 * Return: 0; -EINVAL for a request that no device could satisfy (DIR
 * credits on 2.5, LDB queues without LDB ports); -ENOSPC when the device
 * lacks a resource, in which case nothing was taken.
 */
int dlb2_domain_alloc(struct dlb2_resources *r,
		      const struct dlb2_domain_req *req,
		      struct dlb2_domain_res *out)
{
	u32 ldb_ports = req->ldb_ports_any, spare = 0;
	unsigned int cos, id;
	int hl_base;

	for (cos = 0; cos < DLB2_NUM_COS; cos++)
		ldb_ports += req->ldb_ports[cos];
	if ((r->combined_credits && req->dir_credits) ||
	    (req->ldb_queues && !ldb_ports))
		return -EINVAL;

	/* Check everything before taking anything. */
	id = find_first_bit(r->domains, DLB2_MAX_DOMAINS);
	if (id >= DLB2_MAX_DOMAINS)
		return -ENOSPC;
	for (cos = 0; cos < DLB2_NUM_COS; cos++) {
		unsigned int start = cos * DLB2_LDB_PORTS_PER_COS;
		unsigned int avail = free_in(r->ldb_ports, start,
					     start + DLB2_LDB_PORTS_PER_COS);

		if (avail < req->ldb_ports[cos])
			return -ENOSPC;
		spare += avail - req->ldb_ports[cos];
	}
	hl_base = hist_list_find(r, req->hist_list_entries);
	if (spare < req->ldb_ports_any ||
	    free_in(r->ldb_queues, 0, DLB2_MAX_LDB_QUEUES) < req->ldb_queues ||
	    free_in(r->dir_ports, 0, r->num_dir_ports) < req->dir_ports ||
	    r->ldb_credits < req->ldb_credits ||
	    r->dir_credits < req->dir_credits ||
	    r->atomic_inflights < req->atomic_inflights || hl_base < 0)
		return -ENOSPC;

	*out = (struct dlb2_domain_res){ .id = id, .req = *req };
	clear_bit(id, r->domains);
	take_bits(r->ldb_queues, out->ldb_queues, 0, DLB2_MAX_LDB_QUEUES,
		  req->ldb_queues);
	for (cos = 0; cos < DLB2_NUM_COS; cos++)
		take_bits(r->ldb_ports, out->ldb_ports,
			  cos * DLB2_LDB_PORTS_PER_COS,
			  (cos + 1) * DLB2_LDB_PORTS_PER_COS, req->ldb_ports[cos]);
	take_bits(r->ldb_ports, out->ldb_ports, 0, DLB2_MAX_LDB_PORTS,
		  req->ldb_ports_any);
	take_bits(r->dir_ports, out->dir_ports, 0, r->num_dir_ports,
		  req->dir_ports);
	bitmap_clear(r->hist_list, hl_base, req->hist_list_entries);
	out->hist_list_base = hl_base;
	r->ldb_credits -= req->ldb_credits;
	r->dir_credits -= req->dir_credits;
	r->atomic_inflights -= req->atomic_inflights;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(dlb2_domain_alloc);

/**
 * dlb2_domain_free() - give everything of a domain back
 * @r: the pools
 * @d: what dlb2_domain_alloc() gave the domain
 */
void dlb2_domain_free(struct dlb2_resources *r, struct dlb2_domain_res *d)
{
	set_bit(d->id, r->domains);
	bitmap_or(r->ldb_queues, r->ldb_queues, d->ldb_queues,
		  DLB2_MAX_LDB_QUEUES);
	bitmap_or(r->ldb_ports, r->ldb_ports, d->ldb_ports, DLB2_MAX_LDB_PORTS);
	bitmap_or(r->dir_ports, r->dir_ports, d->dir_ports, DLB2_MAX_DIR_PORTS);
	bitmap_set(r->hist_list, d->hist_list_base, d->req.hist_list_entries);
	r->ldb_credits += d->req.ldb_credits;
	r->dir_credits += d->req.dir_credits;
	r->atomic_inflights += d->req.atomic_inflights;
}
EXPORT_SYMBOL_IF_KUNIT(dlb2_domain_free);

/**
 * dlb2_sn_slot_alloc() - a sequence-number slot for an ordered queue
 * @r: the pools
 * @sns: sequence numbers the queue needs: 64, 128, 256, 512 or 1024
 * @group: set to the SN group
 * @slot: set to the slot in that group
 *
 * A group serves queues of one size only (16 slots of 64 SNs ... one of
 * 1024); an unused group takes the size asked for.
 *
 * Return: 0, -EINVAL for another size, -ENOSPC when no group has room.
 */
int dlb2_sn_slot_alloc(struct dlb2_resources *r, unsigned int sns,
		       unsigned int *group, unsigned int *slot)
{
	unsigned int g, mode, slots;

	if (sns < 64 || sns > DLB2_SNS_PER_GROUP || !is_power_of_2(sns))
		return -EINVAL;
	mode = ilog2(sns / 64);
	slots = DLB2_SNS_PER_GROUP / sns;

	/* A group already of this size first, then an unused one. */
	for (g = 0; g < DLB2_SN_GROUPS; g++) {
		if (r->sn_slots[g] && r->sn_mode[g] == mode &&
		    find_first_zero_bit(&r->sn_slots[g], slots) < slots)
			break;
	}
	if (g == DLB2_SN_GROUPS) {
		for (g = 0; g < DLB2_SN_GROUPS && r->sn_slots[g]; g++)
			;
		if (g == DLB2_SN_GROUPS)
			return -ENOSPC;
		r->sn_mode[g] = mode;
	}
	*group = g;
	*slot = find_first_zero_bit(&r->sn_slots[g], slots);
	set_bit(*slot, &r->sn_slots[g]);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(dlb2_sn_slot_alloc);

/**
 * dlb2_sn_slot_free() - give a sequence-number slot back
 * @r: the pools
 * @group: its group
 * @slot: its slot
 */
void dlb2_sn_slot_free(struct dlb2_resources *r, unsigned int group,
		       unsigned int slot)
{
	clear_bit(slot, &r->sn_slots[group]);
}
EXPORT_SYMBOL_IF_KUNIT(dlb2_sn_slot_free);

/**
 * dlb2_domain_lacks() - which resource a failed dlb2_domain_alloc() lacked
 * @r: the pools
 * @req: the request that failed with -ENOSPC
 *
 * Return: a short name of the first resource the device has too little of.
 */
const char *dlb2_domain_lacks(const struct dlb2_resources *r,
			      const struct dlb2_domain_req *req)
{
	u32 ldb_ports = req->ldb_ports_any;
	unsigned int cos;

	if (find_first_bit(r->domains, DLB2_MAX_DOMAINS) >= DLB2_MAX_DOMAINS)
		return "scheduling domains";
	if (free_in(r->ldb_queues, 0, DLB2_MAX_LDB_QUEUES) < req->ldb_queues)
		return "load-balanced queues";
	for (cos = 0; cos < DLB2_NUM_COS; cos++) {
		unsigned int start = cos * DLB2_LDB_PORTS_PER_COS;

		if (free_in(r->ldb_ports, start, start + DLB2_LDB_PORTS_PER_COS) <
		    req->ldb_ports[cos])
			return "load-balanced ports of the class of service";
		ldb_ports += req->ldb_ports[cos];
	}
	if (free_in(r->ldb_ports, 0, DLB2_MAX_LDB_PORTS) < ldb_ports)
		return "load-balanced ports";
	if (free_in(r->dir_ports, 0, r->num_dir_ports) < req->dir_ports)
		return "directed ports";
	if (r->ldb_credits < req->ldb_credits)
		return r->combined_credits ? "credits" : "load-balanced credits";
	if (r->dir_credits < req->dir_credits)
		return "directed credits";
	if (r->atomic_inflights < req->atomic_inflights)
		return "atomic inflights";
	if (hist_list_find(r, req->hist_list_entries) < 0)
		return "contiguous history-list entries";
	return "nothing";
}
EXPORT_SYMBOL_IF_KUNIT(dlb2_domain_lacks);

/**
 * dlb2_hist_list_max_free() - the longest free history-list range
 * @r: the pools
 *
 * Return: its length, the most one domain can still get.
 */
unsigned int dlb2_hist_list_max_free(const struct dlb2_resources *r)
{
	unsigned int start, end, best = 0;

	for_each_set_bitrange(start, end, r->hist_list, DLB2_HIST_LIST_ENTRIES)
		best = max(best, end - start);
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(dlb2_hist_list_max_free);
