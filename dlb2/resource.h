/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel DLB 2.0 / 2.5: the device's resource pools and their allocator.
 *
 * Pure bookkeeping, no register access, so that it is unit-tested with
 * KUnit (resource_test.c).  A scheduling domain is allocated all or nothing:
 * either every resource it asks for is taken, or nothing changes.
 *
 * Locking: none inside; the caller serialises all calls on one
 * struct dlb2_resources (the driver holds its device mutex).
 */
#ifndef __DLB2_RESOURCE_H
#define __DLB2_RESOURCE_H

#include <linux/bitmap.h>
#include <linux/types.h>

#define DLB2_MAX_DOMAINS		32
#define DLB2_MAX_LDB_QUEUES		32
#define DLB2_MAX_LDB_PORTS		64
#define DLB2_MAX_DIR_PORTS		96	/* 64 on DLB 2.0 */
#define DLB2_NUM_COS			4	/* LDB port i is in class i / 16 */
#define DLB2_HIST_LIST_ENTRIES		2048
#define DLB2_ATOMIC_INFLIGHTS		2048
#define DLB2_SN_GROUPS			2
#define DLB2_SNS_PER_GROUP		1024

/**
 * struct dlb2_resources - what a DLB has, and what is still free
 * @num_dir_ports: directed port/queue pairs of this version (64 or 96)
 * @combined_credits: true on DLB 2.5 (one credit pool), false on 2.0
 * @domains: free scheduling domains (set bit = free), likewise the others
 * @ldb_queues: free load-balanced queues
 * @ldb_ports: free load-balanced ports
 * @dir_ports: free directed port/queue pairs
 * @hist_list: free history-list entries (domains take contiguous ranges)
 * @ldb_credits: free LDB credits (2.0), or all credits (2.5)
 * @dir_credits: free DIR credits (2.0 only)
 * @atomic_inflights: free atomic inflight entries
 * @sn_mode: sequence numbers per queue of each SN group (64 << mode)
 * @sn_slots: used ordered-queue slots of each SN group (bit = used)
 */
struct dlb2_resources {
	unsigned int num_dir_ports;
	bool combined_credits;
	DECLARE_BITMAP(domains, DLB2_MAX_DOMAINS);
	DECLARE_BITMAP(ldb_queues, DLB2_MAX_LDB_QUEUES);
	DECLARE_BITMAP(ldb_ports, DLB2_MAX_LDB_PORTS);
	DECLARE_BITMAP(dir_ports, DLB2_MAX_DIR_PORTS);
	DECLARE_BITMAP(hist_list, DLB2_HIST_LIST_ENTRIES);
	u32 ldb_credits;
	u32 dir_credits;
	u32 atomic_inflights;
	u8 sn_mode[DLB2_SN_GROUPS];
	unsigned long sn_slots[DLB2_SN_GROUPS];
};

/**
 * struct dlb2_domain_req - what a scheduling domain asks for
 * @ldb_queues: load-balanced queues
 * @ldb_ports: load-balanced ports per class of service
 * @ldb_ports_any: load-balanced ports from any class
 * @dir_ports: directed port/queue pairs
 * @ldb_credits: LDB credits (2.0) or credits (2.5)
 * @dir_credits: DIR credits (2.0); must be 0 on 2.5
 * @hist_list_entries: history-list entries, one contiguous range
 * @atomic_inflights: atomic inflight entries
 */
struct dlb2_domain_req {
	u32 ldb_queues;
	u32 ldb_ports[DLB2_NUM_COS];
	u32 ldb_ports_any;
	u32 dir_ports;
	u32 ldb_credits;
	u32 dir_credits;
	u32 hist_list_entries;
	u32 atomic_inflights;
};

/**
 * struct dlb2_domain_res - what a scheduling domain got
 * @id: domain id
 * @ldb_queues: its load-balanced queues (bit = owned), likewise the ports
 * @ldb_ports: its load-balanced ports
 * @dir_ports: its directed port/queue pairs
 * @hist_list_base: first history-list entry of its range
 * @req: what it asked for (the amounts it holds)
 */
struct dlb2_domain_res {
	unsigned int id;
	DECLARE_BITMAP(ldb_queues, DLB2_MAX_LDB_QUEUES);
	DECLARE_BITMAP(ldb_ports, DLB2_MAX_LDB_PORTS);
	DECLARE_BITMAP(dir_ports, DLB2_MAX_DIR_PORTS);
	unsigned int hist_list_base;
	struct dlb2_domain_req req;
};

void dlb2_resources_init(struct dlb2_resources *r, bool is_v2_5);
int dlb2_domain_alloc(struct dlb2_resources *r,
		      const struct dlb2_domain_req *req,
		      struct dlb2_domain_res *out);
void dlb2_domain_free(struct dlb2_resources *r, struct dlb2_domain_res *d);
unsigned int dlb2_hist_list_max_free(const struct dlb2_resources *r);
const char *dlb2_domain_lacks(const struct dlb2_resources *r,
			      const struct dlb2_domain_req *req);
int dlb2_sn_slot_alloc(struct dlb2_resources *r, unsigned int sns,
		       unsigned int *group, unsigned int *slot);
void dlb2_sn_slot_free(struct dlb2_resources *r, unsigned int group,
		       unsigned int slot);

#endif /* __DLB2_RESOURCE_H */
