// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The agent's enqueue engine (struct accd_enq) and metadata rings.
 *
 * QEs go into the producer port four to a 64-byte RDMA WRITE, a chain of
 * writes per ibv_post_send(), every signal_every-th signalled: the send
 * queue's completions are reaped when they are there, not waited for.
 * Credits come from the domain's credit word in portions: an RDMA READ,
 * then compare-and-swap (old, old - portion), never below zero, as
 * libdlb2's CPUs take theirs (credits.c).  By default they are taken ahead
 * of need (accd_enq_ahead()): when fewer than a quanta are cached, a READ
 * and then a compare-and-swap of a share of the pool are posted and moved
 * on as their completions are reaped, while the enqueues spend the cache;
 * an enqueue waits only when the cache runs dry.  On demand (the manager
 * before it, kept to compare) the enqueue that lacks credits posts the
 * READ and the compare-and-swap and waits for both.  One take is in flight
 * at a time.  An RC send queue completes in order, so a completion
 * retires every work request before it.
 *
 * With a grant slot (accdirect.h, struct accd_grant), the agent's state
 * there is written before each take, each chain of lines and each return,
 * on the same queue pair: the server's device executes the writes in
 * order with the atomics and the lines, so what the slot says when the
 * connection is fenced is true of what reached the server
 * (Documentation/accdirect/credits.rst).
 */
#include <errno.h>
#include <stddef.h>
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

/*
 * The grant slot's state as work request @wr (not posted yet), one more
 * beat: its bytes go in the line of the work request's own index, which
 * stays its own until it completes.
 */
static void enq_state_wr(struct accd_enq *e, struct ibv_send_wr *wr,
			 struct ibv_sge *sge)
{
	uint64_t idx = e->sq.posted;
	void *buf = e->lines[idx % e->sq.depth];

	_Static_assert(sizeof(e->grant) == ACCD_LINE_SIZE, "a line");
	e->grant.beat++;
	memcpy(buf, &e->grant, sizeof(e->grant));
	*sge = (struct ibv_sge){
		.addr = (uintptr_t)buf, .length = sizeof(e->grant),
		.lkey = e->lkey,
	};
	*wr = (struct ibv_send_wr){
		.sg_list = sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = e->grant_addr,
			     .rkey = e->grant_rkey },
	};
	if (e->inline_ok)
		wr->send_flags |= IBV_SEND_INLINE;
	if (accd_sq_post(&e->sq, false))
		wr->send_flags |= IBV_SEND_SIGNALED;
	wr->wr_id = idx;
}

/*
 * Post a signalled READ or atomic on the credit word: its work request's
 * id in *@id, where its result lands in *@res.  With a grant slot, @state
 * posts the slot's state write in front of it, and @take (a
 * compare-and-swap's take number; 0: none) a fenced write behind it of the
 * value the compare-and-swap found and @take into the slot: the device
 * sends it once the answer is there, whatever becomes of this program.
 * Takes alternate between two result buffers, so that the next take never
 * overwrites what the last one's fenced write still has to send (the next
 * take's compare-and-swap completes after that write).
 */
static int enq_atomic_post(struct accd_enq *e, enum ibv_wr_opcode op,
			   uint64_t compare_add, uint64_t swap, bool state,
			   uint64_t take, uint64_t *id, uint64_t **res_out)
{
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge[3];
	uint64_t *res = e->atomic;
	unsigned int n = 0, i;
	int ret;

	if (!e->grant_addr) {
		state = false;
		take = 0;
	}
	if (take)
		res = &e->atomic[2 + 2 * (take & 1)];
	ret = enq_room(e, 1 + state + !!take);
	if (ret)
		return ret;
	if (state) {
		enq_state_wr(e, &wr[n], &sge[n]);
		n++;
	}
	sge[n] = (struct ibv_sge){
		.addr = (uintptr_t)res, .length = 8, .lkey = e->lkey,
	};
	wr[n] = (struct ibv_send_wr){
		.sg_list = &sge[n], .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	if (op == IBV_WR_RDMA_READ) {
		wr[n].wr.rdma.remote_addr = e->credit_addr;
		wr[n].wr.rdma.rkey = e->credit_rkey;
	} else {
		wr[n].wr.atomic.remote_addr = e->credit_addr;
		wr[n].wr.atomic.rkey = e->credit_rkey;
		wr[n].wr.atomic.compare_add = compare_add;
		wr[n].wr.atomic.swap = swap;
	}
	accd_sq_post(&e->sq, true);
	*id = wr[n++].wr_id = accd_sq_wr_id(&e->sq);
	if (take) {
		/* never inline: the bytes are read when it is sent */
		res[1] = take;
		sge[n] = (struct ibv_sge){
			.addr = (uintptr_t)res, .length = 16, .lkey = e->lkey,
		};
		wr[n] = (struct ibv_send_wr){
			.sg_list = &sge[n], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_FENCE,
			.wr.rdma = {
				.remote_addr = e->grant_addr +
					offsetof(struct accd_grant, cas_old),
				.rkey = e->grant_rkey,
			},
		};
		if (accd_sq_post(&e->sq, false))
			wr[n].send_flags |= IBV_SEND_SIGNALED;
		wr[n++].wr_id = accd_sq_wr_id(&e->sq);
	}
	for (i = 0; i + 1 < n; i++)
		wr[i].next = &wr[i + 1];
	ret = ibv_post_send(e->qp, wr, &bad);
	if (ret)
		return -ret;
	*res_out = res;
	return 0;
}

/* enq_atomic_post(), waited for: the result in *@old. */
static int enq_atomic(struct accd_enq *e, enum ibv_wr_opcode op,
		      uint64_t compare_add, uint64_t swap, bool state,
		      uint64_t take, uint64_t *old)
{
	uint64_t id, *res;
	int ret;

	ret = enq_atomic_post(e, op, compare_add, swap, state, take, &id, &res);
	if (!ret)
		ret = enq_poll(e, true, id);
	if (ret < 0)
		return ret;
	*old = __atomic_load_n(res, __ATOMIC_ACQUIRE);
	return 0;
}

/*
 * A take's compare-and-swap of @take credits from @avail, recorded in the
 * grant slot before it: posted, not waited for.
 */
static int enq_cas_post(struct accd_enq *e, uint64_t avail, uint64_t take,
			uint64_t *id, uint64_t **res)
{
	if (e->grant_addr) {
		e->grant.begun++;
		e->grant.expect = avail;
		e->grant.portion = take;
	}
	return enq_atomic_post(e, IBV_WR_ATOMIC_CMP_AND_SWP, avail,
			       avail - take, true, e->grant.begun, id, res);
}

/*
 * A take's compare-and-swap of @take from @avail completed with the word
 * at @old: true when it won (the credits are cached).
 */
static bool enq_cas_done(struct accd_enq *e, uint64_t avail, uint64_t take,
			 uint64_t old)
{
	bool won = old == avail;

	if (won) {
		accd_credits_add(&e->credits, take);
		e->grant.taken += take;
		e->ahead_dry = false;
	} else {
		e->cas_lost++;
	}
	/* the next write of the slot carries the outcome */
	e->grant.folded = e->grant.begun;
	return won;
}

/* Move the take ahead of need on once its work request completed. */
static int enq_take_step(struct accd_enq *e)
{
	uint64_t val, take;

	if (e->take == ACCD_TAKE_IDLE || e->sq.completed <= e->take_wr)
		return 0;
	val = __atomic_load_n(e->take_res, __ATOMIC_ACQUIRE);
	if (e->take == ACCD_TAKE_CAS) {
		if (enq_cas_done(e, e->take_expect, e->take_portion, val) ||
		    ++e->take_tries >= 64) {
			e->take = ACCD_TAKE_IDLE;
			return 0;
		}
	}
	/* the READ's value, or the one a lost compare-and-swap found */
	take = accd_credits_ahead(&e->credits, val, e->producers);
	if (!take) {
		/* the pool is empty: no more until a take on demand wins */
		e->ahead_dry = !val;
		e->take = ACCD_TAKE_IDLE;
		return 0;
	}
	e->take = ACCD_TAKE_CAS;
	e->take_expect = val;
	e->take_portion = take;
	return enq_cas_post(e, val, take, &e->take_wr, &e->take_res);
}

int accd_enq_ahead(struct accd_enq *e)
{
	int ret;

	if (e->on_demand)
		return 0;
	ret = enq_take_step(e);
	if (ret || e->take != ACCD_TAKE_IDLE || e->ahead_dry ||
	    e->credits.cache >= e->credits.quanta)
		return ret;
	e->reads++;
	e->ahead++;
	e->take_tries = 0;
	e->take = ACCD_TAKE_READ;
	return enq_atomic_post(e, IBV_WR_RDMA_READ, 0, 0, false, 0,
			       &e->take_wr, &e->take_res);
}

int accd_enq_credits(struct accd_enq *e, uint64_t need)
{
	uint64_t avail, take, old, id, *res;
	int ret = 0, tries;

	if (e->credits.cache >= need)
		return (int)e->credits.cache;
	e->waits++;
	/* the take ahead of need first: it was meant for this */
	while (!ret && e->take != ACCD_TAKE_IDLE) {
		ret = enq_poll(e, true, e->take_wr);
		if (ret >= 0)
			ret = enq_take_step(e);
	}
	if (ret < 0 || e->credits.cache >= need)
		return ret < 0 ? ret : (int)e->credits.cache;
	e->reads++;
	ret = enq_atomic(e, IBV_WR_RDMA_READ, 0, 0, false, 0, &avail);
	for (tries = 0; !ret && tries < 64; tries++) {
		take = accd_credits_portion(&e->credits, avail, need);
		if (!take)
			break;
		ret = enq_cas_post(e, avail, take, &id, &res);
		if (!ret)
			ret = enq_poll(e, true, id);
		if (ret < 0)
			break;
		ret = 0;
		old = __atomic_load_n(res, __ATOMIC_ACQUIRE);
		if (enq_cas_done(e, avail, take, old))
			break;
		avail = old;	/* lost a race: the CAS returned the value */
	}
	return ret ? ret : (int)e->credits.cache;
}

int accd_enq_beat(struct accd_enq *e)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	int ret;

	if (!e->grant_addr)
		return 0;
	ret = accd_enq_reap(e);
	if (ret < 0)
		return ret;
	if (!accd_sq_room(&e->sq))
		return 0;	/* busy: its writes carry the state */
	enq_state_wr(e, &wr, &sge);
	ret = ibv_post_send(e->qp, &wr, &bad);
	return ret ? -ret : 0;
}

int accd_enq_put(struct accd_enq *e, const struct dlb2_hcw *qes,
		 unsigned int n)
{
	struct ibv_send_wr wr[65], *bad;
	struct ibv_sge sge[65];
	unsigned int k, lines, i, w = 0, max = e->max_lines;
	bool state = e->grant_addr;
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
	/* as many as there are credits for, and room for (and the state) */
	room = accd_sq_room(&e->sq);
	room = room > state ? room - state : 0;
	k = n < e->credits.cache ? n : (unsigned int)e->credits.cache;
	if (k > room * ACCD_QES_PER_LINE)
		k = room * ACCD_QES_PER_LINE;
	if (!k) {
		e->empty++;
		return 0;
	}
	accd_credits_spend(&e->credits, k);
	/*
	 * Spent, in the grant slot before the lines: the server's device
	 * executes the slot's write first, so a dead agent's slot never
	 * counts fewer than the QEs that reached the port.
	 */
	if (state) {
		e->grant.spent += k;
		enq_state_wr(e, &wr[w], &sge[w]);
		w++;
	}
	lines = (k + ACCD_QES_PER_LINE - 1) / ACCD_QES_PER_LINE;
	for (i = 0; i < lines; i++, w++) {
		uint64_t idx = e->sq.posted;
		struct dlb2_hcw *line = e->lines[idx % e->sq.depth];
		unsigned int q = k - i * ACCD_QES_PER_LINE;

		accd_pack_lines((struct dlb2_hcw (*)[ACCD_QES_PER_LINE])line, 1,
				qes + i * ACCD_QES_PER_LINE,
				q < ACCD_QES_PER_LINE ? q : ACCD_QES_PER_LINE);
		sge[w] = (struct ibv_sge){
			.addr = (uintptr_t)line, .length = ACCD_LINE_SIZE,
			.lkey = e->lkey,
		};
		wr[w] = (struct ibv_send_wr){
			.sg_list = &sge[w], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.wr.rdma = { .remote_addr = e->pp_addr,
				     .rkey = e->pp_rkey },
		};
		if (e->inline_ok)
			wr[w].send_flags |= IBV_SEND_INLINE;
		if (accd_sq_post(&e->sq, false))
			wr[w].send_flags |= IBV_SEND_SIGNALED;
		wr[w].wr_id = idx;
	}
	for (i = 0; i + 1 < w; i++)
		wr[i].next = &wr[i + 1];
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

	/* a take ahead of need in flight ends here: its outcome, no retry */
	if (e->take != ACCD_TAKE_IDLE) {
		ret = enq_poll(e, true, e->take_wr);
		if (ret < 0)
			return ret;
		ret = 0;
		if (e->take == ACCD_TAKE_CAS)
			enq_cas_done(e, e->take_expect, e->take_portion,
				     __atomic_load_n(e->take_res, __ATOMIC_ACQUIRE));
		e->take = ACCD_TAKE_IDLE;
	}

	/* a signalled READ behind the unsignalled writes: all done then */
	if (!accd_sq_idle(&e->sq))
		ret = enq_atomic(e, IBV_WR_RDMA_READ, 0, 0, false, 0, &old);
	n = e->credits.cache;
	if (!ret && n) {
		/* returned, in the grant slot before the fetch-and-add */
		e->grant.returned += n;
		ret = enq_atomic(e, IBV_WR_ATOMIC_FETCH_AND_ADD, n, 0, true, 0,
				 &old);
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
