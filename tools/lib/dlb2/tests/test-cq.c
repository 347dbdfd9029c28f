// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * CQ ring and generation bit: several laps over rings of depth 8, 64 and
 * 1024 with 16- and 64-byte entries, bursts that straddle the wrap, stale
 * entries of the previous lap, and the token limit of a depth below 8.
 */
#include <stdlib.h>

#include "libdlb2.h"
#include "tap.h"

static struct dlb2_port *open_port(uint32_t depth, uint32_t stride,
				   bool ldb, unsigned int flags)
{
	struct dlb2_port_opts o = { .flags = flags };
	struct dlb2_mem_cfg cfg = {
		.version = DLB2_HW_V2, .ldb = ldb, .cq_depth = depth,
		.cq_stride = stride, .credits = { 8192, 4096 }, .capture = 1,
	};
	struct dlb2_port *p;

	if (dlb2_port_open_mem(&cfg, &o, &p)) {
		diag("dlb2_port_open_mem(%u, %u) failed", depth, stride);
		exit(2);
	}
	/* capture mode: the in-memory device sees the token returns */
	return p;
}

/* Status byte of ring slot @slot as the device left it. */
static uint8_t ring_status(struct dlb2_port *p, uint32_t slot)
{
	return p->cq[slot * p->info.cq_stride + 15];
}

/*
 * 3.5 laps in bursts of 1..7 entries (straddling the wrap at varying
 * places): every entry comes out once, in order, with its payload; the ring
 * holds the generation the device must write on each lap.
 */
static void laps(uint32_t depth, uint32_t stride, bool ldb)
{
	struct dlb2_port *p = open_port(depth, stride, ldb, 0);
	struct dlb2_cq_entry e = { 0 }, out[8];
	uint64_t pushed = 0, got = 0, total = depth * 7 / 2;
	unsigned int burst = 1, i;
	int n;

	CHECK_EQ(p->cq_step, stride / 16);
	while (got < total) {
		for (i = 0; i < burst && pushed < total; i++) {
			e.data = 1000 + pushed;
			e.opaque = (uint16_t)pushed;
			e.flow_id = (uint16_t)(pushed * 3);
			e.sched = ldb ? DLB2_SCHED_ORDERED : DLB2_SCHED_DIRECTED;
			e.status = 0x06;	/* depth level 3 */
			if (dlb2_mem_cq_push(p, &e))
				break;
			/* the test's own model of the gen bit */
			if ((ring_status(p, pushed % depth) & 1) !=
			    ((pushed / depth) % 2 == 0)) {
				CHECK_EQ(ring_status(p, pushed % depth) & 1,
					 (pushed / depth) % 2 == 0);
				goto out;
			}
			pushed++;
		}
		n = dlb2_dequeue_burst(p, out, 8);
		if (n != (int)i || !n) {
			CHECK_EQ(n, i);
			goto out;
		}
		for (i = 0; i < (unsigned int)n; i++, got++) {
			if (out[i].data != 1000 + got ||
			    out[i].opaque != (uint16_t)got ||
			    out[i].flow_id != (uint16_t)(got * 3) ||
			    DLB2_CQ_DEPTH_LEVEL(out[i].status) != 3) {
				CHECK_EQ(out[i].data, 1000 + got);
				CHECK_EQ(out[i].opaque, (uint16_t)got);
				CHECK_EQ(out[i].flow_id, (uint16_t)(got * 3));
				goto out;
			}
		}
		burst = burst % 7 + 1;
	}
	CHECK_EQ(got, total);
	CHECK_EQ(p->cq_idx, total * (stride / 16));
	CHECK_EQ(dlb2_dequeue_burst(p, out, 8), 0);
	CHECK_EQ(p->comps, ldb ? total : 0);
	CHECK_EQ(dlb2_mem_state(p)->tokens_out, 0);
	CHECK_EQ(dlb2_mem_state(p)->tokens_returned, total);
	CHECK_EQ(dlb2_mem_state(p)->alarms, 0);
out:
	p->comps = 0;
	dlb2_port_close(p);
}

#define LAPS(d, s, l) static void laps_##d##_##s##_##l(void) { laps(d, s, l); }
LAPS(8, 16, true)
LAPS(8, 64, false)
LAPS(64, 16, false)
LAPS(64, 64, true)
LAPS(1024, 16, true)
LAPS(1024, 64, false)

/*
 * After a full lap the ring is full of entries with gen 1, which are stale
 * now that the consumer expects 0; a zeroed ring is stale on the first lap.
 */
static void stale_entries(void)
{
	static const uint32_t strides[] = { 16, 64 };
	struct dlb2_cq_entry e = { 0 }, out[64];
	struct dlb2_port *p;
	unsigned int s, i;

	for (s = 0; s < 2; s++) {
		p = open_port(64, strides[s], false, 0);
		CHECK_EQ(dlb2_dequeue_burst(p, out, 64), 0);
		CHECK(!dlb2_cq_ready(p));
		for (i = 0; i < 64; i++) {
			e.data = i;
			CHECK_EQ(dlb2_mem_cq_push(p, &e), 0);
		}
		CHECK(dlb2_cq_ready(p));
		CHECK_EQ(dlb2_dequeue_burst(p, out, 64), 64);
		CHECK_EQ(out[63].data, 63);
		CHECK_EQ(p->cq_idx, 64 * strides[s] / 16);
		CHECK_EQ(dlb2_cq_gen(p, p->cq_idx), 0);
		CHECK(!dlb2_cq_ready(p));
		CHECK_EQ(dlb2_dequeue_burst(p, out, 64), 0);
		e.data = 77;
		CHECK_EQ(dlb2_mem_cq_push(p, &e), 0);
		CHECK_EQ(dlb2_dequeue_burst(p, out, 64), 1);
		CHECK_EQ(out[0].data, 77);
		CHECK_EQ(ring_status(p, 0) & 1, 0);
		dlb2_port_close(p);
	}
}

/* An entry is taken only when its gen byte matches, whatever the rest. */
static void gen_byte_decides(void)
{
	struct dlb2_port *p = open_port(8, 16, false, 0);
	struct dlb2_cq_entry *slot = (struct dlb2_cq_entry *)p->cq_map, out[2];

	memset(slot, 0xff, 15);		/* payload there, gen still 0 */
	CHECK_EQ(dlb2_dequeue_burst(p, out, 2), 0);
	slot->status = 0x21;		/* gen 1 + error: delivered as is */
	CHECK_EQ(dlb2_dequeue_burst(p, out, 2), 1);
	CHECK_EQ(out[0].status, 0x21);
	CHECK_EQ(out[0].data, ~0ull);
	dlb2_port_close(p);
}

/* Depth 4: a ring of 8 entries of which only 4 may hold QEs. */
static void small_depth(void)
{
	struct dlb2_port *p = open_port(4, 16, false, DLB2_OPEN_DEFER_POP);
	struct dlb2_cq_entry e = { 0 }, out[8];
	unsigned int i;

	CHECK_EQ(p->info.cq_entries, 8);
	CHECK_EQ(p->cq_mask, 7);
	for (i = 0; i < 4; i++)
		CHECK_EQ(dlb2_mem_cq_push(p, &e), 0);
	CHECK_EQ(dlb2_mem_cq_push(p, &e), -ENOSPC);
	CHECK_EQ(dlb2_dequeue_burst(p, out, 8), 4);
	CHECK_EQ(dlb2_mem_cq_push(p, &e), -ENOSPC);	/* tokens deferred */
	CHECK_EQ(dlb2_dequeue_burst(p, out, 8), 0);	/* returns them */
	for (i = 0; i < 4; i++)
		CHECK_EQ(dlb2_mem_cq_push(p, &e), 0);
	CHECK_EQ(dlb2_dequeue_burst(p, out, 8), 4);
	CHECK_EQ(p->cq_idx, 8);
	CHECK_EQ(dlb2_cq_gen(p, p->cq_idx), 0);
	dlb2_port_close(p);
}

/* The unmasked index may wrap around 2^32: ring sizes divide it. */
static void index_wraps(void)
{
	struct dlb2_port *p = open_port(64, 64, false, 0);

	/* 256 units per lap; an even number of laps before 2^32 */
	CHECK_EQ(dlb2_cq_gen(p, 0xffffff00u), 0);
	CHECK_EQ(dlb2_cq_gen(p, 0xfffffe00u), 1);
	CHECK_EQ(dlb2_cq_gen(p, 0xffffff00u + 256), 1);	/* wrapped to 0 */
	CHECK_EQ((uintptr_t)dlb2_cq_entry_at(p, 0xffffff04u) - (uintptr_t)p->cq, 64);
	dlb2_port_close(p);
}

/* The in-memory wait: timeout, a QE present, deferred tokens returned. */
static void wait_mem(void)
{
	struct dlb2_port *p = open_port(8, 16, false, DLB2_OPEN_DEFER_POP);
	struct dlb2_cq_entry e = { 0 }, out[8];
	const struct dlb2_hcw *log;
	unsigned int n;

	CHECK_EQ(dlb2_wait(p, 20), 0);
	CHECK_EQ(dlb2_mem_cq_push(p, &e), 0);
	CHECK_EQ(dlb2_wait(p, 20), 1);
	CHECK_EQ(dlb2_dequeue_burst(p, out, 8), 1);
	CHECK_EQ(p->tokens, 1);
	dlb2_mem_clear(p);
	CHECK_EQ(dlb2_wait(p, 0), 0);
	log = dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 1);
	CHECK_EQ(n ? log[0].cmd : 0, DLB2_CMD_BAT_T);
	CHECK_EQ(p->tokens, 0);
	dlb2_port_close(p);
}

int main(void)
{
	RUN(laps_8_16_true);
	RUN(laps_8_64_false);
	RUN(laps_64_16_false);
	RUN(laps_64_64_true);
	RUN(laps_1024_16_true);
	RUN(laps_1024_64_false);
	RUN(stale_entries);
	RUN(gen_byte_decides);
	RUN(small_depth);
	RUN(index_wraps);
	RUN(wait_mem);
	return tap_done();
}
