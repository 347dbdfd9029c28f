// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Credits: refills in quanta, per-pool accounting (DLB 2.0 LDB/DIR pools,
 * DLB 2.5 one pool), no HCW written without a credit, consumers giving
 * credits back, conservation in a loop-back pipeline, and concurrent
 * compare-and-swap on one pool from several threads.
 */
#include <pthread.h>
#include <stdlib.h>

#include "libdlb2.h"
#include "tap.h"

static uint64_t page[512] __attribute__((aligned(4096)));

#define POOL(i)	page[DLB2_CREDIT_POOL_OFFSET(i) / 8]

static struct dlb2_port *open_port(uint32_t version, bool ldb,
				   uint64_t ldb_credits, uint64_t dir_credits,
				   unsigned int quanta)
{
	struct dlb2_port_opts o = { .quanta = quanta };
	struct dlb2_mem_cfg cfg = {
		.version = version, .ldb = ldb, .cq_depth = 64,
		.cq_stride = 16, .credit_page = page, .capture = 4096,
	};
	struct dlb2_port *p;

	memset(page, 0, sizeof(page));
	POOL(0) = ldb_credits;
	POOL(1) = dir_credits;
	if (dlb2_port_open_mem(&cfg, &o, &p)) {
		diag("dlb2_port_open_mem failed");
		exit(2);
	}
	return p;
}

static void fill(struct dlb2_hcw *h, unsigned int n, uint8_t sched)
{
	while (n--)
		dlb2_hcw_new(&h[n], 1, sched, 0, 0, n, 0);
}

static void quanta(void)
{
	struct dlb2_port *p = open_port(DLB2_HW_V2, true, 100, 0, 32);
	struct dlb2_hcw h[40];

	fill(h, 40, DLB2_SCHED_ATOMIC);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 1), 1);
	CHECK_EQ(POOL(0), 68);
	CHECK_EQ(p->cache[0], 31);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 31), 31);
	CHECK_EQ(POOL(0), 68);
	CHECK_EQ(p->cache[0], 0);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 40), 40);	/* two refills */
	CHECK_EQ(POOL(0), 4);
	CHECK_EQ(p->cache[0], 24);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 28), 28);	/* 24 + the last 4 */
	CHECK_EQ(POOL(0), 0);
	CHECK_EQ(p->cache[0], 0);
	CHECK_EQ(dlb2_mem_state(p)->enqueued, 100);
	CHECK_EQ(dlb2_mem_state(p)->alarms, 0);
	dlb2_port_close(p);
}

/* Without a credit nothing is written, not even the HCWs before it. */
static void no_credit(void)
{
	struct dlb2_port *p = open_port(DLB2_HW_V2, true, 3, 0, 32);
	const struct dlb2_hcw *log;
	struct dlb2_hcw h[5];
	unsigned int n;

	fill(h, 5, DLB2_SCHED_ATOMIC);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 5), 3);
	log = dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 3);
	CHECK_EQ(log[2].data, 2);
	CHECK_EQ(dlb2_enqueue_burst(p, &h[3], 2), -ENOSPC);
	CHECK_EQ(dlb2_enqueue_burst(p, &h[3], 1), -ENOSPC);
	dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 3);
	CHECK_EQ(dlb2_mem_state(p)->hcws, 3);
	CHECK_EQ(dlb2_mem_state(p)->alarms, 0);
	CHECK_EQ(POOL(0), 0);
	/* directed credits do not help an ldb QE, nor the other way round */
	POOL(1) = 10;
	CHECK_EQ(dlb2_enqueue_burst(p, h, 1), -ENOSPC);
	POOL(1) = 0;
	POOL(0) = 10;
	fill(h, 1, DLB2_SCHED_DIRECTED);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 1), -ENOSPC);
	dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 3);
	dlb2_port_close(p);
}

static void pools_v2(void)
{
	struct dlb2_port *p = open_port(DLB2_HW_V2, false, 50, 40, 8);
	struct dlb2_hcw h[4];

	fill(h, 2, DLB2_SCHED_DIRECTED);
	fill(&h[2], 2, DLB2_SCHED_UNORDERED);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 4), 4);
	CHECK_EQ(POOL(0), 42);
	CHECK_EQ(POOL(1), 32);
	CHECK_EQ(p->cache[0], 6);
	CHECK_EQ(p->cache[1], 6);
	dlb2_credits_flush(p);
	CHECK_EQ(POOL(0), 48);
	CHECK_EQ(POOL(1), 38);
	dlb2_port_close(p);
}

static void pool_v2_5(void)
{
	struct dlb2_port *p = open_port(DLB2_HW_V2_5, false, 50, 999, 8);
	struct dlb2_hcw h[4];

	fill(h, 2, DLB2_SCHED_DIRECTED);
	fill(&h[2], 2, DLB2_SCHED_ORDERED);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 4), 4);
	CHECK_EQ(POOL(0), 42);
	CHECK_EQ(POOL(1), 999);			/* not a pool on 2.5 */
	CHECK_EQ(p->cache[0], 4);
	CHECK_EQ(p->cache[1], 0);
	dlb2_port_close(p);
	CHECK_EQ(POOL(0), 46);
}

/* Dequeues refill the cache of the port's type; surplus >= 2q goes back. */
static void consumer_returns(void)
{
	static const struct {
		uint32_t version;
		bool ldb;
		int pool;
	} cases[] = {
		{ DLB2_HW_V2, true, 0 }, { DLB2_HW_V2, false, 1 },
		{ DLB2_HW_V2_5, true, 0 }, { DLB2_HW_V2_5, false, 0 },
	};
	struct dlb2_cq_entry e = { 0 }, out[16];
	struct dlb2_port *p;
	unsigned int c, i;

	for (c = 0; c < 4; c++) {
		p = open_port(cases[c].version, cases[c].ldb, 0, 0, 4);
		e.sched = cases[c].ldb ? DLB2_SCHED_ATOMIC : DLB2_SCHED_DIRECTED;
		for (i = 0; i < 7; i++)
			dlb2_mem_cq_push(p, &e);
		CHECK_EQ(dlb2_dequeue_burst(p, out, 16), 7);
		CHECK_EQ(p->cache[cases[c].pool], 7);
		CHECK_EQ(POOL(cases[c].pool), 0);
		dlb2_mem_cq_push(p, &e);
		CHECK_EQ(dlb2_dequeue_burst(p, out, 16), 1);
		CHECK_EQ(p->cache[cases[c].pool], 4);
		CHECK_EQ(POOL(cases[c].pool), 4);
		CHECK_EQ(p->cache[!cases[c].pool], 0);
		if (cases[c].ldb)
			dlb2_release(p, 8);
		dlb2_port_close(p);
		CHECK_EQ(POOL(cases[c].pool), 8);
	}
}

/* A consumer that finds nothing for a while gives its cache back. */
static void idle_flush(void)
{
	struct dlb2_port_opts o = { .quanta = 4, .idle_flush = 10 };
	struct dlb2_mem_cfg cfg = {
		.version = DLB2_HW_V2, .cq_depth = 8, .cq_stride = 16,
		.credit_page = page, .capture = 16,
	};
	struct dlb2_cq_entry e = { .sched = DLB2_SCHED_DIRECTED }, out[8];
	struct dlb2_port *p;
	int i;

	memset(page, 0, sizeof(page));
	CHECK_EQ(dlb2_port_open_mem(&cfg, &o, &p), 0);
	for (i = 0; i < 5; i++)
		dlb2_mem_cq_push(p, &e);
	CHECK_EQ(dlb2_dequeue_burst(p, out, 8), 5);
	CHECK_EQ(p->cache[1], 5);
	for (i = 0; i < 9; i++)
		CHECK_EQ(dlb2_dequeue_burst(p, out, 8), 0);
	CHECK_EQ(p->cache[1], 5);
	CHECK_EQ(dlb2_dequeue_burst(p, out, 8), 0);
	CHECK_EQ(p->cache[1], 0);
	CHECK_EQ(POOL(1), 5);
	dlb2_port_close(p);
}

/*
 * One ldb port feeding itself through the in-memory device, random bursts:
 * pool + cache + QEs inside the device stays the domain's credits, and the
 * device never sees an enqueue without a hardware credit.
 */
static void loopback_conserves(void)
{
	struct dlb2_port *p = open_port(DLB2_HW_V2, true, 40, 0, 8);
	const struct dlb2_mem_state *st = dlb2_mem_state(p);
	struct dlb2_cq_entry out[16];
	struct dlb2_hcw h[16];
	unsigned int i, n, k, inside = 0, moved = 0;
	const struct dlb2_hcw *log;
	int r, bad = 0;

	srand(1);
	for (i = 0; i < 5000 && !bad; i++) {
		fill(h, 16, DLB2_SCHED_ATOMIC);
		dlb2_mem_clear(p);
		r = dlb2_enqueue_burst(p, h, 1 + rand() % 16);
		if (r > 0)
			inside += r;
		/* the device schedules some of what it holds */
		log = dlb2_mem_hcws(p, &n);
		(void)log;
		k = inside ? (unsigned int)rand() % (inside + 1) : 0;
		for (n = 0; n < k; n++) {
			struct dlb2_cq_entry e = { .sched = DLB2_SCHED_ATOMIC };

			if (dlb2_mem_cq_push(p, &e))
				break;
			inside--;
			moved++;
		}
		r = dlb2_dequeue_burst(p, out, 1 + rand() % 16);
		if (r > 0)
			dlb2_release(p, r);
		if (POOL(0) + p->cache[0] + inside + st->tokens_out != 40 ||
		    st->hw_credits[0] != (int64_t)(40 - inside)) {
			diag("step %u: pool %llu cache %llu inside %u in CQ %u hw %lld",
			     i, (unsigned long long)POOL(0),
			     (unsigned long long)p->cache[0], inside,
			     st->tokens_out, (long long)st->hw_credits[0]);
			bad = 1;
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(moved > 10000);
	CHECK_EQ(st->alarms, 0);
	dlb2_port_close(p);
}

/* ---------------------------------------------------- concurrent CAS */

#define THREADS		4
#define CAS_ROUNDS	200000
#define CAS_CREDITS	1000

struct worker {
	pthread_t t;
	struct dlb2_port *p;
	unsigned int seed;
	uint64_t taken;		/* phase 2: credits taken in total */
};

static pthread_barrier_t barrier;

static void *churn(void *arg)
{
	struct worker *w = arg;
	struct dlb2_port *p = w->p;
	uint64_t n;
	int i;

	pthread_barrier_wait(&barrier);
	/* phase 1: take and give back at random */
	for (i = 0; i < CAS_ROUNDS; i++) {
		p->quanta = 1 + rand_r(&w->seed) % 7;
		if (rand_r(&w->seed) & 1)
			dlb2_credits_refill(p, 0);
		n = p->cache[0] ? rand_r(&w->seed) % (p->cache[0] + 1) : 0;
		dlb2_credits_put(p, 0, n);
	}
	dlb2_credits_flush(p);
	pthread_barrier_wait(&barrier);
	/* phase 2: everybody drains the pool */
	p->quanta = 3;
	while (dlb2_credits_refill(p, 0))
		;
	w->taken = p->cache[0];
	p->cache[0] = 0;
	return NULL;
}

static void concurrent_cas(void)
{
	struct dlb2_port_opts o = { .quanta = 1 };
	struct dlb2_mem_cfg cfg = {
		.version = DLB2_HW_V2_5, .cq_depth = 8, .cq_stride = 16,
		.credit_page = page,
	};
	struct worker w[THREADS];
	uint64_t total = 0;
	int i;

	memset(page, 0, sizeof(page));
	POOL(0) = CAS_CREDITS;
	pthread_barrier_init(&barrier, NULL, THREADS);
	for (i = 0; i < THREADS; i++) {
		w[i].seed = i + 1;
		CHECK_EQ(dlb2_port_open_mem(&cfg, &o, &w[i].p), 0);
	}
	for (i = 0; i < THREADS; i++)
		pthread_create(&w[i].t, NULL, churn, &w[i]);
	for (i = 0; i < THREADS; i++) {
		pthread_join(w[i].t, NULL);
		total += w[i].taken;
		dlb2_port_close(w[i].p);
	}
	pthread_barrier_destroy(&barrier);
	CHECK_EQ(total, CAS_CREDITS);
	CHECK_EQ(POOL(0), 0);
}

int main(void)
{
	RUN(quanta);
	RUN(no_credit);
	RUN(pools_v2);
	RUN(pool_v2_5);
	RUN(consumer_returns);
	RUN(idle_flush);
	RUN(loopback_conserves);
	RUN(concurrent_cas);
	return tap_done();
}
