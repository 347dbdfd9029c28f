/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libdlb2-rdma: the remote side of AccDirect.  A process on another host
 * (or a SmartNIC's cores) shares a DLB domain's credit pool and enqueues
 * into a producer port, all by one-sided RDMA to memory regions the server
 * registered: the credit word of the domain credit page (remote atomics) and
 * the producer-port window (RDMA WRITE, through peermem_dlb or a dma-buf).
 *
 * Credits: the remote side reads the credit word, then takes n with a
 * compare-and-swap (old, old - n), never below zero; it gives credits back
 * with fetch-and-add.  Host CPUs use lock cmpxchg / lock xadd on the same
 * word (libdlb2.h), so the NIC's atomics must be atomic with respect to the
 * CPU: IBV_ATOMIC_GLOB.  dlb2_rc_init() refuses other devices.
 *
 * Link with libdlb2_rdma.a -libverbs.
 */
#ifndef LIBDLB2_RDMA_H
#define LIBDLB2_RDMA_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "dlb2_user.h"

/**
 * struct dlb2_rc - a connected queue pair to a DLB server
 * @qp: reliable-connected queue pair, connected
 * @cq: its send completion queue
 * @mr: registration of @buf
 * @buf: staging memory: atomics' results and HCW lines
 * @credit_addr, @credit_rkey: the remote credit word
 * @pp_addr, @pp_rkey: the remote producer-port window
 */
struct dlb2_rc {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint64_t *buf;
	uint64_t credit_addr;
	uint32_t credit_rkey;
	uint64_t pp_addr;
	uint32_t pp_rkey;
};

/* dlb2_rc_init() flags */
#define DLB2_RC_FORCE	0x1	/* run without IBV_ATOMIC_GLOB (tests only) */

/*
 * Can the device share a credit pool with CPUs?  0 when its atomics are
 * global, -EOPNOTSUPP when they are not, or -errno.
 */
int dlb2_rc_check_device(struct ibv_context *ctx);

/*
 * Set up @rc for @qp/@cq (protection domain @pd).  Returns 0, -EOPNOTSUPP
 * when the device's atomics are not global (atomic_cap != IBV_ATOMIC_GLOB)
 * and DLB2_RC_FORCE is not given, or -errno.
 */
int dlb2_rc_init(struct dlb2_rc *rc, struct ibv_pd *pd, struct ibv_qp *qp,
		 struct ibv_cq *cq, unsigned int flags);
void dlb2_rc_fini(struct dlb2_rc *rc);

/* Take @n credits: @n on success, 0 when the pool has fewer, -errno. */
int dlb2_rc_take(struct dlb2_rc *rc, uint64_t n);
/* Give @n credits back: 0 or -errno. */
int dlb2_rc_give(struct dlb2_rc *rc, uint64_t n);
/* RDMA-WRITE @n (1..4) HCWs as one line into the producer port. */
int dlb2_rc_enqueue(struct dlb2_rc *rc, const struct dlb2_hcw *hcw,
		    unsigned int n);

#endif /* LIBDLB2_RDMA_H */
