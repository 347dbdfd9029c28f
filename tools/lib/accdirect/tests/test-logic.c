// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of libaccdirect's pure logic (logic.c): the metadata entry and
 * its QE, QEs into 64-byte lines, the credit cache, what a dead agent's
 * grant slot gives back (at every crash point of the protocol) and the
 * lease, the signalling cadence of a send queue and the client's window.  TAP; no RDMA device.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accdirect.h"
#include "tests/tap.h"		/* libdlb2's TAP helpers */

static const struct accd_queue_map qmap = {
	.nr = 3,
	.qid = { 7, 2, 5 },
	.sched = { DLB2_SCHED_UNORDERED, DLB2_SCHED_ATOMIC, DLB2_SCHED_ORDERED },
};

static void t_layouts(void)
{
	CHECK_EQ(sizeof(struct accd_meta), 16);
	CHECK_EQ(sizeof(struct accd_resp), 16);
	CHECK_EQ(sizeof(struct dlb2_hcw), 16);
	CHECK_EQ(__builtin_offsetof(struct accd_meta, seq), 14);
	/* what goes in rdma_cm private data: 56 bytes connecting, 196 accepting */
	CHECK(sizeof(struct accd_hello) <= 56);
	CHECK(sizeof(struct accd_dlb_offer) <= 196);
	CHECK(sizeof(struct accd_payload_offer) <= 196);
	CHECK(sizeof(struct accd_ring_offer) <= 196);
}

static void t_meta_encode(void)
{
	static const uint8_t want[16] = {
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* addr */
		0x00, 0x04,		/* size 1024 */
		0x34, 0x12,		/* flow 0x1234 */
		0x02,			/* queue 2 */
		0x14,			/* sched: atomic, priority 5 */
		0x2b, 0x00,		/* seq: request 42 + 1 */
	};
	struct accd_qe_attr a = { .flow = 0x1234, .queue = 2,
				  .sched_type = DLB2_SCHED_ATOMIC, .prio = 5 };
	struct accd_meta m;

	memset(&m, 0xee, sizeof(m));
	CHECK_EQ(accd_meta_encode(&m, 42, 0x1122334455667788ull, 1024, &a), 0);
	CHECK_MEM(&m, want, 16);
	CHECK(accd_meta_ready(&m, 42));
	CHECK(!accd_meta_ready(&m, 41));
	CHECK(!accd_meta_ready(&m, 42 + 256));	/* the same entry a lap later */

	/* NULL: flow 0, queue 0, the queue's own type, priority 0 */
	CHECK_EQ(accd_meta_encode(&m, 0, 64, 64, NULL), 0);
	CHECK_EQ(m.flow, 0);
	CHECK_EQ(m.queue, 0);
	CHECK_EQ(m.sched, DLB2_SCHED(ACCD_SCHED_QUEUE, 0));
	CHECK_EQ(m.seq, 1);

	/* seq wraps at 2^16 */
	CHECK_EQ(accd_meta_encode(&m, 65535, 64, 64, NULL), 0);
	CHECK_EQ(m.seq, 0);
	CHECK(accd_meta_ready(&m, 65535));
	CHECK(accd_meta_ready(&m, 2 * 65536 - 1));

	a.prio = 8;
	CHECK_EQ(accd_meta_encode(&m, 1, 64, 64, &a), -EINVAL);
	a.prio = 7;
	a.sched_type = 4;
	CHECK_EQ(accd_meta_encode(&m, 1, 64, 64, &a), -EINVAL);
}

static void t_meta_to_hcw(void)
{
	static const uint8_t want[16] = {
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* data */
		0x00, 0x04,		/* opaque: size */
		0x05,			/* qid of queue 2 */
		0x14,			/* sched: atomic, priority 5 */
		0x34, 0x12,		/* lock_id: the flow */
		0x00,			/* misc */
		0x08,			/* cmd: NEW */
	};
	struct accd_qe_attr a = { .flow = 0x1234, .queue = 2,
				  .sched_type = DLB2_SCHED_ATOMIC, .prio = 5 };
	struct accd_meta m;
	struct dlb2_hcw h;

	accd_meta_encode(&m, 9, 0x1122334455667788ull, 1024, &a);
	CHECK(accd_meta_to_hcw(&m, &qmap, &h));
	CHECK_MEM(&h, want, 16);

	/* the queue's own type */
	a = (struct accd_qe_attr){ .queue = 1, .sched_type = ACCD_SCHED_QUEUE,
				   .prio = 3 };
	accd_meta_encode(&m, 9, 0x40, 64, &a);
	CHECK(accd_meta_to_hcw(&m, &qmap, &h));
	CHECK_EQ(h.qid, 2);
	CHECK_EQ(h.sched, DLB2_SCHED(DLB2_SCHED_ATOMIC, 3));
	a.queue = 2;
	accd_meta_encode(&m, 9, 0x40, 64, &a);
	accd_meta_to_hcw(&m, &qmap, &h);
	CHECK_EQ(h.sched, DLB2_SCHED(DLB2_SCHED_ORDERED, 3));

	/* a queue out of range: queue 0, reported */
	a.queue = 3;
	accd_meta_encode(&m, 9, 0x40, 64, &a);
	CHECK(!accd_meta_to_hcw(&m, &qmap, &h));
	CHECK_EQ(h.qid, 7);
	CHECK_EQ(h.cmd, DLB2_CMD_NEW);
}

static void hcws(struct dlb2_hcw *h, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		h[i] = (struct dlb2_hcw){ .data = 0x1000 + i, .opaque = i,
					  .qid = 1, .cmd = DLB2_CMD_NEW };
}

static void t_pack_lines(void)
{
	struct dlb2_hcw q[40], lines[10][4];
	static const struct dlb2_hcw zero;
	unsigned int i, n;

	hcws(q, 40);
	for (n = 0; n <= 9; n++) {
		memset(lines, 0xee, sizeof(lines));
		CHECK_EQ(accd_pack_lines(lines, 10, q, n), (n + 3) / 4);
		for (i = 0; i < (n + 3) / 4 * 4; i++) {
			struct dlb2_hcw *h = &lines[i / 4][i % 4];

			if (i < n)
				CHECK_MEM(h, &q[i], sizeof(*h));
			else		/* NOOP padding */
				CHECK_MEM(h, &zero, sizeof(*h));
		}
		/* nothing beyond the lines used */
		if (n < 37)
			CHECK_EQ(lines[(n + 3) / 4][0].cmd, 0xee);
	}
	/* at most max_lines */
	CHECK_EQ(accd_pack_lines(lines, 2, q, 40), 2);
	CHECK_EQ(lines[1][3].data, 0x1007);
	CHECK_EQ(accd_pack_lines(lines, 10, q, 40), 10);
	CHECK_EQ(lines[9][3].data, 0x1000 + 39);
}

static void t_credits(void)
{
	struct accd_credits c = { .quanta = 32 };

	/* a portion: quanta, or what is needed if more, or what is there */
	CHECK_EQ(accd_credits_portion(&c, 512, 1), 32);
	CHECK_EQ(accd_credits_portion(&c, 512, 40), 40);
	CHECK_EQ(accd_credits_portion(&c, 10, 1), 10);
	CHECK_EQ(accd_credits_portion(&c, 0, 1), 0);
	accd_credits_add(&c, 32);
	CHECK_EQ(c.cache, 32);
	CHECK_EQ(accd_credits_portion(&c, 512, 32), 0);	/* cached */
	CHECK_EQ(accd_credits_portion(&c, 512, 33), 32);
	CHECK_EQ(accd_credits_spend(&c, 4), 4);
	CHECK_EQ(accd_credits_spend(&c, 30), 28);	/* only what is cached */
	CHECK_EQ(c.cache, 0);
	CHECK_EQ(accd_credits_spend(&c, 1), 0);
	accd_credits_add(&c, 10);
	CHECK_EQ(accd_credits_spend(&c, 3), 3);
	CHECK_EQ(accd_credits_drain(&c), 7);
	CHECK_EQ(c.cache, 0);
	CHECK_EQ(accd_credits_drain(&c), 0);
	/* taken = spent + cache + returned */
	CHECK_EQ(c.taken, 42);
	CHECK_EQ(c.spent, 35);
	CHECK_EQ(c.returned, 7);
	CHECK_EQ(c.takes, 2);
	CHECK_EQ(c.taken, c.spent + c.cache + c.returned);
}

/* A random walk of takes and spends keeps the books. */
static void t_credits_walk(void)
{
	struct accd_credits c = { .quanta = 16 };
	uint64_t pool = 100, in_device = 0, take;
	unsigned int i, need, bad = 0;

	srand(12);
	for (i = 0; i < 10000; i++) {
		need = 1 + rand() % 24;
		take = accd_credits_portion(&c, pool, need);
		if (take > pool || (c.cache >= need && take))
			bad++;
		pool -= take;
		if (take)
			accd_credits_add(&c, take);
		in_device += accd_credits_spend(&c, need);
		/* the workers give some back */
		take = in_device ? rand() % (in_device + 1) : 0;
		in_device -= take;
		pool += take;
		if (c.taken != c.spent + c.cache + c.returned ||
		    pool + c.cache + in_device != 100)
			bad++;
	}
	pool += accd_credits_drain(&c);
	CHECK_EQ(bad, 0);
	CHECK_EQ(pool + in_device, 100);
	CHECK_EQ(c.taken, c.spent + c.returned);
}

/* A dead agent's grant slot: exact counts for each state it can be in. */
static void t_grant_reclaim(void)
{
	struct accd_grant g;
	struct accd_reclaim r;

	CHECK_EQ(sizeof(struct accd_grant_state), 64);
	CHECK_EQ(sizeof(struct accd_grant), 128);
	CHECK_EQ(__builtin_offsetof(struct accd_grant, cas_old), 64);
	CHECK_EQ(__builtin_offsetof(struct accd_grant, cas_take), 72);

	/* a clean shutdown: everything spent or returned */
	memset(&g, 0, sizeof(g));
	g.s = (struct accd_grant_state){ .taken = 96, .spent = 64,
					 .returned = 32, .begun = 3, .folded = 3 };
	accd_grant_reclaim(&g, &r);
	CHECK(!r.bad);
	CHECK_EQ(r.held, 0);
	CHECK_EQ(r.doubt, 0);

	/* killed with 26 cached: 26 back */
	g.s = (struct accd_grant_state){ .taken = 96, .spent = 70,
					 .begun = 4, .folded = 4 };
	accd_grant_reclaim(&g, &r);
	CHECK(!r.bad);
	CHECK_EQ(r.held, 26);
	CHECK_EQ(r.doubt, 0);

	/* a take in flight whose fenced result landed: it won 32 */
	g.s = (struct accd_grant_state){ .taken = 64, .spent = 50, .begun = 3,
					 .folded = 2, .expect = 400, .portion = 32 };
	g.cas_take = 3;
	g.cas_old = 400;
	accd_grant_reclaim(&g, &r);
	CHECK_EQ(r.held, 46);
	CHECK_EQ(r.doubt, 0);
	/* ... it lost: the word had moved */
	g.cas_old = 399;
	accd_grant_reclaim(&g, &r);
	CHECK_EQ(r.held, 14);
	CHECK_EQ(r.doubt, 0);
	/* ... no result: the last take's, equal by chance, is not this one's */
	g.cas_take = 2;
	g.cas_old = 400;
	accd_grant_reclaim(&g, &r);
	CHECK(!r.bad);
	CHECK_EQ(r.held, 14);
	CHECK_EQ(r.doubt, 32);

	/* slots that cannot be: nothing given back */
	g.s = (struct accd_grant_state){ .taken = 10, .spent = 11 };
	accd_grant_reclaim(&g, &r);
	CHECK(r.bad);
	CHECK_EQ(r.held, 0);
	g.s = (struct accd_grant_state){ .taken = 10, .spent = 5, .returned = 6 };
	accd_grant_reclaim(&g, &r);
	CHECK(r.bad);
	g.s = (struct accd_grant_state){ .taken = 10, .begun = 3, .folded = 1 };
	accd_grant_reclaim(&g, &r);
	CHECK(r.bad);
	g.s = (struct accd_grant_state){ .taken = 10, .begun = 1, .folded = 2 };
	accd_grant_reclaim(&g, &r);
	CHECK(r.bad);
}

/*
 * The protocol against every crash: an agent (its state updates as enq.c
 * makes them) takes credits in portions by compare-and-swap, spends them
 * on chains of QEs and returns the rest, while another producer takes and
 * gives back credits on the same word (lost races).  Its operations are
 * posts in the order its device executes them: [state, CAS, fenced
 * result] per take, [state, lines] per chain, [state, fetch-and-add] for
 * the return.  A crash after any prefix of them; the server reclaims
 * from the slot.  After each whole post the pool, the other producer's
 * cache and the QEs in the device make the total exactly; inside a post
 * at most that post's credits are missing (never one too many), and only
 * there.
 */
enum { SIM_STATE, SIM_CAS, SIM_RESULT, SIM_LINES, SIM_FAA, SIM_OTHER };

struct sim_op {
	int op;
	unsigned int post;
	bool last;			/* the post's last operation */
	uint64_t amount;		/* portion, QEs, returned, or other's */
	struct accd_grant_state st;	/* SIM_STATE: what is written */
	uint64_t expect, take;		/* SIM_CAS, SIM_RESULT */
};

struct sim {
	uint64_t pool, other, landed;	/* the server's world */
	struct accd_grant slot;
	uint64_t cas_old[2];		/* the agent's result buffers */
};

static void sim_exec(struct sim *w, const struct sim_op *o)
{
	switch (o->op) {
	case SIM_STATE:
		w->slot.s = o->st;
		break;
	case SIM_CAS:
		w->cas_old[o->take & 1] = w->pool;
		if (w->pool == o->expect)
			w->pool -= o->amount;
		break;
	case SIM_RESULT:
		w->slot.cas_old = w->cas_old[o->take & 1];
		w->slot.cas_take = o->take;
		break;
	case SIM_LINES:
		w->landed += o->amount;
		break;
	case SIM_FAA:
		w->pool += o->amount;
		break;
	case SIM_OTHER:		/* takes (amount > 0) or gives back */
		w->pool -= (int64_t)o->amount;
		w->other += (int64_t)o->amount;
		break;
	}
}

static void t_grant_crashes(void)
{
	enum { TOTAL = 512, OPS = 6000 };
	static struct sim_op ops[OPS];
	struct accd_credits c = { .quanta = 32 };
	struct accd_grant_state st = { 0 };
	struct sim w = { .pool = TOTAL }, v;
	unsigned int n = 0, post = 0, i, j, wrong = 0, inexact = 0, doubts = 0;
	uint64_t avail, take, need, k, post_amount[OPS];
	struct accd_reclaim r;
	int64_t d;

	srand(26);
	/* the agent runs, its operations executed as posted */
	while (n < OPS - 8) {
		/* the other producer, between the agent's posts */
		if (rand() % 3 == 0) {
			d = rand() % 2 ? (int64_t)(rand() % (w.pool + 1)) :
					 -(int64_t)(rand() % (w.other + 1));
			ops[n] = (struct sim_op){ .op = SIM_OTHER, .post = ++post,
						  .last = true, .amount = (uint64_t)d };
			post_amount[post] = 0;
			sim_exec(&w, &ops[n++]);
		}
		need = 1 + rand() % 40;
		if (c.cache < need) {
			avail = w.pool;		/* the READ */
			take = accd_credits_portion(&c, avail, need);
			/* another producer may move the word before the CAS */
			if (take && rand() % 4 == 0 && w.pool) {
				ops[n] = (struct sim_op){ .op = SIM_OTHER,
							  .post = ++post, .last = true,
							  .amount = 1 };
				post_amount[post] = 0;
				sim_exec(&w, &ops[n++]);
			}
			if (take) {
				st.begun++;
				st.expect = avail;
				st.portion = take;
				post++;
				post_amount[post] = take;
				ops[n] = (struct sim_op){ .op = SIM_STATE, .post = post, .st = st };
				sim_exec(&w, &ops[n++]);
				ops[n] = (struct sim_op){ .op = SIM_CAS, .post = post,
							  .amount = take, .expect = avail,
							  .take = st.begun };
				sim_exec(&w, &ops[n++]);
				ops[n] = (struct sim_op){ .op = SIM_RESULT, .post = post,
							  .last = true, .take = st.begun };
				sim_exec(&w, &ops[n++]);
				if (w.cas_old[st.begun & 1] == avail) {
					accd_credits_add(&c, take);
					st.taken += take;
				}
				st.folded = st.begun;
			}
		}
		k = accd_credits_spend(&c, need);
		if (!k)
			continue;
		st.spent += k;
		post++;
		post_amount[post] = k;
		ops[n] = (struct sim_op){ .op = SIM_STATE, .post = post, .st = st };
		sim_exec(&w, &ops[n++]);
		for (j = 0; j < (k + 3) / 4; j++) {
			uint64_t q = k - 4 * j < 4 ? k - 4 * j : 4;

			ops[n] = (struct sim_op){ .op = SIM_LINES, .post = post,
						  .last = 4 * j + q == k, .amount = q };
			sim_exec(&w, &ops[n++]);
		}
	}
	/* the clean end: the rest returned */
	k = accd_credits_drain(&c);
	st.returned += k;
	post++;
	post_amount[post] = k;
	ops[n] = (struct sim_op){ .op = SIM_STATE, .post = post, .st = st };
	sim_exec(&w, &ops[n++]);
	ops[n] = (struct sim_op){ .op = SIM_FAA, .post = post, .last = true, .amount = k };
	sim_exec(&w, &ops[n++]);
	CHECK_EQ(w.pool + w.other + w.landed, TOTAL);

	/* a crash after each prefix: replay it, reclaim, count */
	for (i = 0; i <= n; i++) {
		memset(&v, 0, sizeof(v));
		v.pool = TOTAL;
		for (j = 0; j < i; j++)
			sim_exec(&v, &ops[j]);
		accd_grant_reclaim(&v.slot, &r);
		if (r.bad)
			wrong++;
		d = TOTAL - (int64_t)(v.pool + r.held + v.other + v.landed);
		doubts += r.doubt > 0;
		/* never a credit too many; exact between posts */
		if (d < 0 || (!i || ops[i - 1].last ? d != 0 :
			      (uint64_t)d > post_amount[ops[i - 1].post]))
			wrong++;
		inexact += d != 0;
	}
	CHECK_EQ(wrong, 0);
	CHECK(n > 4000);
	CHECK(inexact > 0 && doubts > 0);	/* the windows were crossed */
	diag("%u operations, %u posts; crashes inside a post missing credits: %u, with a take in doubt: %u",
	     n, post, inexact, doubts);
}

/* The lease: the beat must move within it. */
static void t_lease(void)
{
	uint64_t last = 0;
	double seen = 100;

	CHECK(!accd_lease_expired(0, 105, 10, &last, &seen));
	CHECK(!accd_lease_expired(0, 110, 10, &last, &seen));
	CHECK(accd_lease_expired(0, 110.5, 10, &last, &seen));
	/* a beat renews it */
	CHECK(!accd_lease_expired(1, 111, 10, &last, &seen));
	CHECK_EQ(last, 1);
	CHECK(!accd_lease_expired(1, 120, 10, &last, &seen));
	CHECK(accd_lease_expired(1, 121.5, 10, &last, &seen));
	/* no lease */
	CHECK(!accd_lease_expired(1, 1e6, 0, &last, &seen));
	CHECK(!accd_lease_expired(1, 1e6, -1, &last, &seen));
}

static void t_sq_cadence(void)
{
	struct accd_sq q;
	unsigned int i, sig = 0;
	char pattern[33] = "";

	accd_sq_init(&q, 16, 4);
	for (i = 0; i < 16; i++) {
		bool s = accd_sq_post(&q, false);

		pattern[i] = s ? 'S' : '.';
		sig += s;
	}
	CHECK_STR(pattern, "...S...S...S...S");
	CHECK_EQ(sig, 4);
	CHECK_EQ(q.signalled, 4);
	CHECK_EQ(accd_sq_room(&q), 0);
	/* the second signalled one completes: the first eight are done */
	accd_sq_complete(&q, 7);
	CHECK_EQ(q.completed, 8);
	CHECK_EQ(accd_sq_room(&q), 8);
	accd_sq_complete(&q, 3);	/* an older one: no change */
	CHECK_EQ(q.completed, 8);
	accd_sq_complete(&q, 99);	/* never posted: ignored */
	CHECK_EQ(q.completed, 8);
	CHECK(!accd_sq_idle(&q));
	/* a forced signal, and the cadence goes on by index */
	CHECK(accd_sq_post(&q, true));
	CHECK_EQ(accd_sq_wr_id(&q), 16);
	CHECK(!accd_sq_post(&q, false));
	CHECK(!accd_sq_post(&q, false));
	CHECK(accd_sq_post(&q, false));	/* index 19 */
	accd_sq_complete(&q, 19);
	CHECK(accd_sq_idle(&q));
	CHECK_EQ(accd_sq_room(&q), 16);

	/* signal_every 0 or beyond the depth: the depth */
	accd_sq_init(&q, 8, 0);
	CHECK_EQ(q.signal_every, 8);
	accd_sq_init(&q, 8, 100);
	CHECK_EQ(q.signal_every, 8);
	accd_sq_init(&q, 8, 1);
	CHECK(accd_sq_post(&q, false));
	CHECK(accd_sq_post(&q, false));
}

/* Any full queue has a signalled request in flight: no deadlock. */
/*
 * The client's landed count: a full queue's newest completed slot belongs
 * to a write posted a queue's depth later, whose payload has not landed.
 */
static void t_sq_done_tag(void)
{
	uint64_t tags[4], landed = 0, before;
	struct accd_sq q;
	unsigned int i;

	accd_sq_init(&q, 4, 2);
	for (i = 0; i < 4; i++) {
		accd_sq_post(&q, false);
		tags[accd_sq_wr_id(&q) % 4] = 10 * (i + 1);
	}
	CHECK_EQ(accd_sq_done_tag(&q, tags, q.completed, landed), 0);
	before = q.completed;
	accd_sq_complete(&q, 1);
	landed = accd_sq_done_tag(&q, tags, before, landed);
	CHECK_EQ(landed, 20);
	/* two more fill the queue again, over the completed ones' slots */
	for (i = 4; i < 6; i++) {
		accd_sq_post(&q, false);
		tags[accd_sq_wr_id(&q) % 4] = 10 * (i + 1);
	}
	CHECK_EQ(accd_sq_room(&q), 0);
	/* no completion: the count stays, though slot 1 now says 60 */
	CHECK_EQ(accd_sq_done_tag(&q, tags, q.completed, landed), 20);
	before = q.completed;
	accd_sq_complete(&q, 3);
	landed = accd_sq_done_tag(&q, tags, before, landed);
	CHECK_EQ(landed, 40);
	before = q.completed;
	accd_sq_complete(&q, 5);
	landed = accd_sq_done_tag(&q, tags, before, landed);
	CHECK_EQ(landed, 60);
	CHECK(accd_sq_idle(&q));
}

static void t_sq_progress(void)
{
	unsigned int depth, every, i, bad = 0;
	struct accd_sq q;

	for (depth = 1; depth <= 64; depth++) {
		for (every = 1; every <= depth; every++) {
			uint64_t last_sig = UINT64_MAX;

			accd_sq_init(&q, depth, every);
			for (i = 0; i < 3 * depth; i++) {
				if (!accd_sq_room(&q)) {
					/* the oldest signalled one in flight */
					if (last_sig == UINT64_MAX ||
					    last_sig < q.completed) {
						bad++;
						break;
					}
					accd_sq_complete(&q, q.completed +
						(every - 1 - q.completed % every));
					if (!accd_sq_room(&q)) {
						bad++;
						break;
					}
				}
				if (accd_sq_post(&q, false))
					last_sig = accd_sq_wr_id(&q);
			}
		}
	}
	CHECK_EQ(bad, 0);
}

static void t_window(void)
{
	struct accd_window w;
	uint64_t r;
	unsigned int i;

	CHECK_EQ(accd_window_init(&w, 5, 4), -EINVAL);
	CHECK_EQ(accd_window_init(&w, 0, 4), -EINVAL);
	CHECK_EQ(accd_window_init(&w, 4, 8), 0);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(accd_window_open(&w, &r), 0);
		CHECK_EQ(r, i);
	}
	CHECK(accd_window_full(&w));
	CHECK_EQ(accd_window_open(&w, &r), -EAGAIN);
	/* out of order: 2, then 0 (oldest moves to 1), then 1 (to 3) */
	CHECK_EQ(accd_window_answer(&w, 2), 2);
	CHECK_EQ(w.oldest, 0);
	CHECK_EQ(accd_window_answer(&w, 2), -EINVAL);	/* twice */
	CHECK_EQ(accd_window_answer(&w, 5), -EINVAL);	/* no request */
	CHECK_EQ(accd_window_answer(&w, 8), -EINVAL);	/* no slot */
	CHECK_EQ(accd_window_answer(&w, 0), 0);
	CHECK_EQ(w.oldest, 1);
	CHECK_EQ(accd_window_open(&w, &r), 0);
	CHECK_EQ(r, 4);
	CHECK_EQ(accd_window_answer(&w, 1), 1);
	CHECK_EQ(w.oldest, 3);
	/* the window goes by the oldest: 5 and 6 fit, 7 does not */
	CHECK_EQ(accd_window_open(&w, &r), 0);
	CHECK_EQ(accd_window_open(&w, &r), 0);
	CHECK_EQ(r, 6);
	CHECK_EQ(accd_window_open(&w, &r), -EAGAIN);
	/* request 6 in slot 6, 4 in slot 4; wrap: request 8 in slot 0 */
	CHECK_EQ(accd_window_answer(&w, 6), 6);
	CHECK_EQ(accd_window_answer(&w, 3), 3);
	CHECK_EQ(accd_window_answer(&w, 4), 4);
	CHECK_EQ(accd_window_answer(&w, 5), 5);
	CHECK_EQ(w.oldest, 7);
	CHECK_EQ(w.next, 7);
	CHECK_EQ(accd_window_answer(&w, 7), -EINVAL);	/* nothing in flight */
	CHECK_EQ(accd_window_open(&w, &r), 0);
	CHECK_EQ(accd_window_open(&w, &r), 0);
	CHECK_EQ(r, 8);
	CHECK_EQ(accd_window_answer(&w, 0), 8);
	CHECK_EQ(accd_window_answer(&w, 7), 7);
	CHECK_EQ(w.oldest, 9);
	accd_window_fini(&w);
}

/* Random answer orders: every request answered once, the window kept. */
static void t_window_random(void)
{
	struct accd_window w;
	uint64_t r, inflight[16];
	unsigned int n = 0, i, bad = 0, answered = 0;
	int64_t got;

	srand(7);
	accd_window_init(&w, 12, 16);
	while (answered < 5000) {
		while (n < 16 && !accd_window_open(&w, &r)) {
			if (r >= w.oldest + w.size)
				bad++;
			inflight[n++] = r;
		}
		i = rand() % n;
		got = accd_window_answer(&w, inflight[i] % w.nr_slots);
		if (got != (int64_t)inflight[i])
			bad++;
		inflight[i] = inflight[--n];
		answered++;
	}
	CHECK_EQ(bad, 0);
	/* from the oldest unanswered on: answered ones behind it count */
	CHECK(w.next - w.oldest >= n);
	CHECK(w.next - w.oldest <= w.size);
	CHECK(n == 0 || w.oldest <= inflight[0]);
	accd_window_fini(&w);
}

static void t_backoff(void)
{
	struct accd_backoff b;
	unsigned int idle = 0, i;

	CHECK_EQ(accd_backoff_parse("4,64,20", &b), 0);
	CHECK_EQ(b.spin, 4);
	CHECK_EQ(b.yield, 64);
	CHECK_EQ(b.sleep_us, 20);
	CHECK_EQ(accd_backoff_parse(",,100", &b), 0);	/* defaults but sleep */
	CHECK_EQ(b.spin, 0);
	CHECK_EQ(b.yield, 0);
	CHECK_EQ(b.sleep_us, 100);
	CHECK_EQ(accd_backoff_parse("8", &b), 0);
	CHECK_EQ(b.spin, 8);
	CHECK_EQ(b.yield, 0);
	CHECK_EQ(accd_backoff_parse("", &b), 0);
	CHECK_EQ(accd_backoff_parse("1,2,3,4", &b), -EINVAL);
	CHECK_EQ(accd_backoff_parse("x", &b), -EINVAL);
	CHECK_EQ(accd_backoff_parse("1;2", &b), -EINVAL);
	CHECK_EQ(accd_backoff_parse("-1", &b), -EINVAL);
	CHECK_EQ(accd_backoff_parse("2000000", &b), -EINVAL);
	/* the count goes up by one per empty poll */
	accd_backoff_parse("3,5,1", &b);
	for (i = 0; i < 6; i++)
		accd_backoff_wait(&b, &idle);
	CHECK_EQ(idle, 6);
}

int main(void)
{
	RUN(t_layouts);
	RUN(t_meta_encode);
	RUN(t_meta_to_hcw);
	RUN(t_pack_lines);
	RUN(t_credits);
	RUN(t_credits_walk);
	RUN(t_grant_reclaim);
	RUN(t_grant_crashes);
	RUN(t_lease);
	RUN(t_sq_cadence);
	RUN(t_sq_done_tag);
	RUN(t_sq_progress);
	RUN(t_window);
	RUN(t_window_random);
	RUN(t_backoff);
	return tap_done();
}
