// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The agent's enqueue engine (struct accd_enq) and metadata rings.
 *
 * QEs go into the producer port four to a 64-byte RDMA WRITE, a chain of
 * writes per ibv_post_send(), every signal_every-th signalled: the send
 * queue's completions are reaped when they are there, not waited for.
 * Credits come from the domain's credit word in portions: an RDMA READ,
 * then compare-and-swap (old, old - portion), never below zero, as
 * libdlb2's CPUs take theirs (credits.c).  Those are waited for: the
 * enqueue needs their result, and a portion pays for quanta QEs.  An RC
 * send queue completes in order, so a completion retires every work
 * request before it.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* Retire the completions there are; with @until, until request @until is. */
static int enq_poll(struct accd_enq *e, bool wait, uint64_t until)
{
	int n, done = 0;

	for (;;) {
		n = accd_sq_reap(e->cq, &e->sq);
		if (n < 0)
			return n;
		done += n;
		if (!wait || e->sq.completed > until)
			return done;
	}
}

/* Room for @n work requests, waiting for completions if needed. */
static int enq_room(struct accd_enq *e, uint32_t n)
{
	int ret = 0;

	while (accd_sq_room(&e->sq) < n && ret >= 0)
		ret = enq_poll(e, true, e->sq.completed);
	return ret < 0 ? ret : 0;
}

int accd_enq_reap(struct accd_enq *e)
{
	return enq_poll(e, false, 0);
}

/* A signalled READ or atomic on the credit word, waited for: its result. */
static int enq_atomic(struct accd_enq *e, enum ibv_wr_opcode op,
		      uint64_t compare_add, uint64_t swap, uint64_t *old)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->atomic, .length = 8, .lkey = e->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	uint64_t id;
	int ret;

	ret = enq_room(e, 1);
	if (ret)
		return ret;
	if (op == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = e->credit_addr;
		wr.wr.rdma.rkey = e->credit_rkey;
	} else {
		wr.wr.atomic.remote_addr = e->credit_addr;
		wr.wr.atomic.rkey = e->credit_rkey;
		wr.wr.atomic.compare_add = compare_add;
		wr.wr.atomic.swap = swap;
	}
	accd_sq_post(&e->sq, true);
	id = wr.wr_id = accd_sq_wr_id(&e->sq);
	ret = ibv_post_send(e->qp, &wr, &bad);
	if (ret)
		return -ret;
	ret = enq_poll(e, true, id);
	if (ret < 0)
		return ret;
	*old = __atomic_load_n(e->atomic, __ATOMIC_ACQUIRE);
	return 0;
}

int accd_enq_credits(struct accd_enq *e, uint64_t need)
{
	uint64_t avail, take, old;
	int ret, tries;

	if (e->credits.cache >= need)
		return (int)e->credits.cache;
	e->reads++;
	ret = enq_atomic(e, IBV_WR_RDMA_READ, 0, 0, &avail);
	for (tries = 0; !ret && tries < 64; tries++) {
		take = accd_credits_portion(&e->credits, avail, need);
		if (!take)
			break;
		ret = enq_atomic(e, IBV_WR_ATOMIC_CMP_AND_SWP, avail,
				 avail - take, &old);
		if (ret)
			break;
		if (old == avail) {
			accd_credits_add(&e->credits, take);
			break;
		}
		e->cas_lost++;
		avail = old;	/* lost a race: the CAS returned the value */
	}
	return ret ? ret : (int)e->credits.cache;
}

int accd_enq_put(struct accd_enq *e, const struct dlb2_hcw *qes,
		 unsigned int n)
{
	struct ibv_send_wr wr[64], *bad;
	struct ibv_sge sge[64];
	unsigned int k, lines, i, max = e->max_lines;
	uint32_t room;
	int ret;

	if (max > 64)
		max = 64;
	if (n > max * ACCD_QES_PER_LINE)
		n = max * ACCD_QES_PER_LINE;
	if (!n)
		return 0;
	ret = accd_enq_reap(e);
	if (ret < 0)
		return ret;
	if (e->credits.cache < n) {
		ret = accd_enq_credits(e, n);
		if (ret < 0)
			return ret;
	}
	/* as many as there are credits for, and room for */
	room = accd_sq_room(&e->sq);
	k = n < e->credits.cache ? n : (unsigned int)e->credits.cache;
	if (k > room * ACCD_QES_PER_LINE)
		k = room * ACCD_QES_PER_LINE;
	if (!k) {
		e->empty++;
		return 0;
	}
	accd_credits_spend(&e->credits, k);
	lines = (k + ACCD_QES_PER_LINE - 1) / ACCD_QES_PER_LINE;
	for (i = 0; i < lines; i++) {
		uint64_t idx = e->sq.posted;
		struct dlb2_hcw *line = e->lines[idx % e->sq.depth];
		unsigned int q = k - i * ACCD_QES_PER_LINE;

		accd_pack_lines((struct dlb2_hcw (*)[ACCD_QES_PER_LINE])line, 1,
				qes + i * ACCD_QES_PER_LINE,
				q < ACCD_QES_PER_LINE ? q : ACCD_QES_PER_LINE);
		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)line, .length = ACCD_LINE_SIZE,
			.lkey = e->lkey,
		};
		wr[i] = (struct ibv_send_wr){
			.sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.next = i + 1 < lines ? &wr[i + 1] : NULL,
			.wr.rdma = { .remote_addr = e->pp_addr,
				     .rkey = e->pp_rkey },
		};
		if (e->inline_ok)
			wr[i].send_flags |= IBV_SEND_INLINE;
		if (accd_sq_post(&e->sq, false))
			wr[i].send_flags |= IBV_SEND_SIGNALED;
		wr[i].wr_id = idx;
	}
	ret = ibv_post_send(e->qp, wr, &bad);
	if (ret)
		return -ret;
	e->lines_posted += lines;
	e->qes += k;
	return (int)k;
}

int accd_enq_drain(struct accd_enq *e)
{
	uint64_t old, n;
	int ret = 0;

	/* a signalled READ behind the unsignalled writes: all done then */
	if (!accd_sq_idle(&e->sq))
		ret = enq_atomic(e, IBV_WR_RDMA_READ, 0, 0, &old);
	n = e->credits.cache;
	if (!ret && n) {
		ret = enq_atomic(e, IBV_WR_ATOMIC_FETCH_AND_ADD, n, 0, &old);
		if (!ret)
			accd_credits_drain(&e->credits);
	}
	return ret;
}

unsigned int accd_ring_ready(const struct accd_ring *r, unsigned int max)
{
	unsigned int k;

	for (k = 0; k < max && k < r->nr; k++)
		if (!accd_meta_ready(&r->m[(r->head + k) % r->nr], r->head + k))
			break;
	return k;
}

unsigned int accd_ring_take(struct accd_ring *r, const struct accd_queue_map *q,
			    struct dlb2_hcw *h, unsigned int n)
{
	unsigned int i, bad = 0;

	for (i = 0; i < n; i++)
		bad += !accd_meta_to_hcw(&r->m[(r->head + i) % r->nr], q, &h[i]);
	r->head += n;
	return bad;
}
