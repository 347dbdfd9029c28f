// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * HCW encoding: the exact 16 bytes of each command, as built and as written
 * to the PP (captured, 16-byte stores, MOVDIR64B lines), and the rules the
 * enqueue path enforces (credits aside: test-credits.c).
 */
#include <stddef.h>
#include <stdlib.h>

#include "libdlb2.h"
#include "tap.h"

static const uint8_t new_bytes[16] = {
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* data, LE */
	0xb2, 0xa1,					/* opaque */
	0x2a,						/* qid */
	0x16,						/* ordered | prio 5 << 2 */
	0xef, 0xbe,					/* lock_id */
	0x00,						/* misc */
	0x08,						/* NEW */
};

static struct dlb2_port *mem_port(bool ldb, uint32_t capture)
{
	struct dlb2_mem_cfg cfg = {
		.version = DLB2_HW_V2, .ldb = ldb, .cq_depth = 8,
		.cq_stride = 16, .credits = { 64, 64 }, .capture = capture,
	};
	struct dlb2_port *p;

	if (dlb2_port_open_mem(&cfg, NULL, &p)) {
		diag("dlb2_port_open_mem failed");
		exit(2);
	}
	return p;
}

static void push(struct dlb2_port *p, unsigned int n)
{
	struct dlb2_cq_entry e = { .sched = DLB2_SCHED_ATOMIC };

	while (n--) {
		e.data++;
		CHECK_EQ(dlb2_mem_cq_push(p, &e), 0);
	}
}

static void layout(void)
{
	CHECK_EQ(sizeof(struct dlb2_hcw), 16);
	CHECK_EQ(offsetof(struct dlb2_hcw, opaque), 8);
	CHECK_EQ(offsetof(struct dlb2_hcw, qid), 10);
	CHECK_EQ(offsetof(struct dlb2_hcw, sched), 11);
	CHECK_EQ(offsetof(struct dlb2_hcw, lock_id), 12);
	CHECK_EQ(offsetof(struct dlb2_hcw, misc), 14);
	CHECK_EQ(offsetof(struct dlb2_hcw, cmd), 15);
	CHECK_EQ(sizeof(struct dlb2_cq_entry), 16);
	CHECK_EQ(offsetof(struct dlb2_cq_entry, flow_id), 12);
	CHECK_EQ(offsetof(struct dlb2_cq_entry, status), 15);
}

static void encode_new(void)
{
	struct dlb2_hcw h;

	memset(&h, 0xff, sizeof(h));
	dlb2_hcw_new(&h, 0x2a, DLB2_SCHED_ORDERED, 5, 0xbeef,
		     0x1122334455667788ull, 0xa1b2);
	CHECK_MEM(&h, new_bytes, 16);
}

static void encode_fwd_frag(void)
{
	uint8_t want[16];
	struct dlb2_hcw h;

	memcpy(want, new_bytes, 16);
	want[15] = 0x0a;
	dlb2_hcw_fwd(&h, 0x2a, DLB2_SCHED_ORDERED, 5, 0xbeef,
		     0x1122334455667788ull, 0xa1b2);
	CHECK_MEM(&h, want, 16);
	want[15] = 0x0c;
	dlb2_hcw_frag(&h, 0x2a, DLB2_SCHED_ORDERED, 5, 0xbeef,
		      0x1122334455667788ull, 0xa1b2);
	CHECK_MEM(&h, want, 16);
}

static void encode_sched_prio(void)
{
	struct dlb2_hcw h;

	dlb2_hcw_new(&h, 7, DLB2_SCHED_DIRECTED, 0, 0, 0, 0);
	CHECK_EQ(h.sched, 0x03);
	dlb2_hcw_new(&h, 7, DLB2_SCHED_UNORDERED, 7, 0, 0, 0);
	CHECK_EQ(h.sched, 0x1d);
	dlb2_hcw_new(&h, 7, DLB2_SCHED_ATOMIC, 9, 0, 0, 0);	/* prio masked */
	CHECK_EQ(h.sched, 0x04);
}

static void encode_ctl(void)
{
	static const uint8_t bat5[16] = { [12] = 0x04, [15] = 0x01 };
	static const uint8_t bat1024[16] = { [12] = 0xff, [13] = 0x03, [15] = 0x01 };
	static const uint8_t comp[16] = { [15] = 0x02 };
	static const uint8_t comp_t3[16] = { [12] = 0x02, [15] = 0x03 };
	static const uint8_t arm[16] = { [15] = 0x05 };
	struct dlb2_hcw h;

	memset(&h, 0xee, sizeof(h));
	dlb2_hcw_bat_t(&h, 5);
	CHECK_MEM(&h, bat5, 16);
	dlb2_hcw_bat_t(&h, 1024);
	CHECK_MEM(&h, bat1024, 16);
	memset(&h, 0xee, sizeof(h));
	dlb2_hcw_comp(&h);
	CHECK_MEM(&h, comp, 16);
	dlb2_hcw_comp_t(&h, 3);
	CHECK_MEM(&h, comp_t3, 16);
	memset(&h, 0xee, sizeof(h));
	dlb2_hcw_arm(&h);
	CHECK_MEM(&h, arm, 16);
}

static void captured_bytes(void)
{
	struct dlb2_port *p = mem_port(true, 16);
	const struct dlb2_hcw *log;
	struct dlb2_hcw h[2];
	unsigned int n;

	dlb2_hcw_new(&h[0], 0x2a, DLB2_SCHED_ORDERED, 5, 0xbeef,
		     0x1122334455667788ull, 0xa1b2);
	dlb2_hcw_new(&h[1], 1, DLB2_SCHED_DIRECTED, 0, 0, 42, 0);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 2), 2);
	log = dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 2);
	CHECK_MEM(&log[0], new_bytes, 16);
	CHECK_MEM(&log[1], &h[1], 16);
	CHECK_EQ(dlb2_mem_state(p)->alarms, 0);
	dlb2_port_close(p);
}

/* 16-byte stores all land at PP offset 0: the last HCW is there. */
static void sse_writes(void)
{
	struct dlb2_port *p = mem_port(true, 0);
	static const uint8_t zero[48];
	struct dlb2_hcw h[3];
	int i;

	CHECK_EQ(dlb2_port_set_pp_mode(p, DLB2_PP_SSE), 0);
	for (i = 0; i < 3; i++)
		dlb2_hcw_new(&h[i], i, DLB2_SCHED_ATOMIC, 0, i, 100 + i, 0);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 3), 3);
	CHECK_MEM(p->pp, &h[2], 16);
	CHECK_MEM(p->pp + 16, zero, 48);
	dlb2_port_close(p);
}

/* MOVDIR64B: whole lines at offset 0, the last one padded with NOOPs. */
static void movdir64b_writes(void)
{
	struct dlb2_port *p = mem_port(true, 0);
	uint8_t want[64] = { 0 };
	struct dlb2_hcw h[6];
	int i;

	CHECK_EQ(dlb2_port_set_pp_mode(p, DLB2_PP_MOVDIR64B), 0);
	for (i = 0; i < 6; i++)
		dlb2_hcw_new(&h[i], i, DLB2_SCHED_ATOMIC, 0, i, 100 + i, 0);
	memset(p->pp, 0xee, 64);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 4), 4);
	CHECK_MEM(p->pp, h, 64);
	memset(p->pp, 0xee, 64);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 6), 6);
	memcpy(want, &h[4], 32);
	CHECK_MEM(p->pp, want, 64);
	dlb2_port_close(p);
}

static void rules_dir_port(void)
{
	struct dlb2_port *p = mem_port(false, 16);
	struct dlb2_hcw h;
	unsigned int n;

	push(p, 1);
	dlb2_hcw_comp(&h);
	CHECK_EQ(dlb2_enqueue_burst(p, &h, 1), -EINVAL);
	dlb2_hcw_fwd(&h, 0, DLB2_SCHED_ATOMIC, 0, 0, 0, 0);
	CHECK_EQ(dlb2_enqueue_burst(p, &h, 1), -EINVAL);
	dlb2_hcw_frag(&h, 0, DLB2_SCHED_ATOMIC, 0, 0, 0, 0);
	CHECK_EQ(dlb2_enqueue_burst(p, &h, 1), -EINVAL);
	CHECK_EQ(dlb2_release(p, 1), -EINVAL);
	dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 0);
	dlb2_port_close(p);
}

static void rules_ldb_port(void)
{
	struct dlb2_port *p = mem_port(true, 16);
	struct dlb2_cq_entry ev[4];
	struct dlb2_hcw h[3];
	unsigned int n;

	dlb2_hcw_comp(&h[0]);		/* nothing dequeued: no completion */
	CHECK_EQ(dlb2_enqueue_burst(p, h, 1), -EINVAL);
	dlb2_hcw_bat_t(&h[0], 1);	/* nor token */
	CHECK_EQ(dlb2_enqueue_burst(p, h, 1), -EINVAL);
	dlb2_hcw_ctl(&h[0], 0x4, 0);	/* undefined command */
	CHECK_EQ(dlb2_enqueue_burst(p, h, 1), -EINVAL);
	h[0].cmd = 0x18;
	CHECK_EQ(dlb2_enqueue_burst(p, h, 1), -EINVAL);
	CHECK_EQ(dlb2_release(p, 1), -EINVAL);
	dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 0);

	/* two dequeued: NEW, COMP, COMP go, a third COMP stops the burst */
	push(p, 2);
	CHECK_EQ(dlb2_dequeue_burst(p, ev, 4), 2);
	dlb2_mem_clear(p);
	dlb2_hcw_new(&h[0], 0, DLB2_SCHED_ATOMIC, 0, 0, 0, 0);
	dlb2_hcw_comp(&h[1]);
	dlb2_hcw_comp(&h[2]);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 3), 3);
	CHECK_EQ(p->comps, 0);
	CHECK_EQ(dlb2_enqueue_burst(p, &h[1], 1), -EINVAL);
	dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 3);
	CHECK_EQ(dlb2_mem_state(p)->alarms, 0);
	CHECK_EQ(dlb2_mem_state(p)->comps_out, 0);
	dlb2_port_close(p);
}

/*
 * What each command byte does (the data path's table, written in order for
 * C++), against the commands by name: every other byte is undefined.
 */
static void command_table(void)
{
	static const struct { uint8_t cmd; unsigned int props; } defined[] = {
		{ DLB2_CMD_NOOP, 0 },
		{ DLB2_CMD_BAT_T, DLB2_C_TOKN },
		{ DLB2_CMD_COMP, DLB2_C_COMP | DLB2_C_LDB },
		{ DLB2_CMD_COMP_T, DLB2_C_COMP | DLB2_C_LDB | DLB2_C_TOKN },
		{ DLB2_CMD_ARM, 0 },
		{ DLB2_CMD_NEW, DLB2_C_CREDIT },
		{ DLB2_CMD_NEW_T, DLB2_C_CREDIT | DLB2_C_TOK1 },
		{ DLB2_CMD_FWD, DLB2_C_CREDIT | DLB2_C_COMP | DLB2_C_LDB },
		{ DLB2_CMD_FWD_T, DLB2_C_CREDIT | DLB2_C_COMP | DLB2_C_LDB |
				  DLB2_C_TOK1 },
		{ DLB2_CMD_FRAG, DLB2_C_CREDIT | DLB2_C_LDB },
		{ DLB2_CMD_FRAG_T, DLB2_C_CREDIT | DLB2_C_LDB | DLB2_C_TOK1 },
	};
	unsigned int cmd, i, got, want;

	for (cmd = 0; cmd < 256; cmd++) {
		want = DLB2_C_BAD;
		for (i = 0; i < sizeof(defined) / sizeof(defined[0]); i++)
			if (defined[i].cmd == cmd)
				want = defined[i].props;
		got = dlb2_cmd_props((uint8_t)cmd);
		if (got != want)
			diag("command 0x%02x:", cmd);
		CHECK_EQ(got, want);
	}
}

/* Auto pop: one BAT_T per dequeue burst, lock_id = n - 1. */
static void auto_pop(void)
{
	static const uint8_t bat5[16] = { [12] = 0x04, [15] = 0x01 };
	struct dlb2_port *p = mem_port(false, 16);
	const struct dlb2_hcw *log;
	struct dlb2_cq_entry ev[8];
	unsigned int n;

	push(p, 5);
	CHECK_EQ(dlb2_dequeue_burst(p, ev, 8), 5);
	log = dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 1);
	CHECK_MEM(&log[0], bat5, 16);
	CHECK_EQ(p->tokens, 0);
	CHECK_EQ(dlb2_mem_state(p)->tokens_out, 0);
	CHECK_EQ(dlb2_dequeue_burst(p, ev, 8), 0);
	dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 1);			/* nothing for an empty poll */
	dlb2_port_close(p);
}

/* Deferred tokens ride on the last completion of a release. */
static void release_comp_t(void)
{
	static const uint8_t comp[16] = { [15] = 0x02 };
	static const uint8_t comp_t3[16] = { [12] = 0x02, [15] = 0x03 };
	struct dlb2_port_opts o = { .flags = DLB2_OPEN_DEFER_POP };
	struct dlb2_mem_cfg cfg = {
		.version = DLB2_HW_V2, .ldb = true, .cq_depth = 8,
		.cq_stride = 64, .credits = { 64, 64 }, .capture = 16,
	};
	const struct dlb2_hcw *log;
	struct dlb2_cq_entry ev[8];
	struct dlb2_port *p;
	unsigned int n;

	CHECK_EQ(dlb2_port_open_mem(&cfg, &o, &p), 0);
	push(p, 3);
	CHECK_EQ(dlb2_dequeue_burst(p, ev, 8), 3);
	dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 0);			/* deferred */
	CHECK_EQ(p->tokens, 3);
	CHECK_EQ(dlb2_release(p, 3), 3);
	log = dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 3);
	CHECK_MEM(&log[0], comp, 16);
	CHECK_MEM(&log[1], comp, 16);
	CHECK_MEM(&log[2], comp_t3, 16);
	CHECK_EQ(p->tokens, 0);
	CHECK_EQ(dlb2_mem_state(p)->alarms, 0);
	CHECK_EQ(dlb2_mem_state(p)->tokens_out, 0);
	CHECK_EQ(dlb2_mem_state(p)->comps_out, 0);
	dlb2_port_close(p);
}

static void forward(void)
{
	struct dlb2_port *p = mem_port(true, 16);
	const struct dlb2_hcw *log;
	struct dlb2_cq_entry ev[4];
	struct dlb2_hcw h[2];
	unsigned int n;

	push(p, 2);
	CHECK_EQ(dlb2_dequeue_burst(p, ev, 4), 2);
	dlb2_mem_clear(p);
	dlb2_hcw_new(&h[0], 3, DLB2_SCHED_ATOMIC, 1, 9, ev[0].data, 0);
	dlb2_hcw_new(&h[1], 3, DLB2_SCHED_ATOMIC, 1, 9, ev[1].data, 0);
	CHECK_EQ(dlb2_forward_burst(p, h, 2), 2);
	log = dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 2);
	CHECK_EQ(log[0].cmd, DLB2_CMD_FWD);
	CHECK_EQ(log[1].data, 2);
	CHECK_EQ(p->comps, 0);
	CHECK_EQ(dlb2_mem_state(p)->comps_out, 0);
	CHECK_EQ(dlb2_mem_state(p)->enqueued, 2);
	CHECK_EQ(dlb2_mem_state(p)->alarms, 0);
	dlb2_port_close(p);
}

/* Closing completes what an ldb port holds and returns its tokens. */
static void close_cleans_up(void)
{
	struct dlb2_port_opts o = { .flags = DLB2_OPEN_DEFER_POP };
	struct dlb2_mem_cfg cfg = {
		.version = DLB2_HW_V2_5, .ldb = true, .cq_depth = 8,
		.cq_stride = 16, .credits = { 64 }, .capture = 16,
	};
	struct dlb2_cq_entry ev[8];
	const struct dlb2_hcw *log;
	struct dlb2_port *p;
	unsigned int n;

	CHECK_EQ(dlb2_port_open_mem(&cfg, &o, &p), 0);
	push(p, 2);
	CHECK_EQ(dlb2_dequeue_burst(p, ev, 8), 2);
	/* what close does, observed before the port is freed */
	CHECK_EQ(dlb2_release(p, p->comps), 2);
	dlb2_return_tokens(p);
	log = dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 2);
	CHECK_EQ(log[0].cmd, DLB2_CMD_COMP);
	CHECK_EQ(log[1].cmd, DLB2_CMD_COMP_T);
	CHECK_EQ(log[1].lock_id, 1);
	CHECK_EQ(dlb2_mem_state(p)->tokens_out, 0);
	CHECK_EQ(dlb2_mem_state(p)->alarms, 0);
	dlb2_port_close(p);
}

int main(void)
{
	RUN(layout);
	RUN(encode_new);
	RUN(encode_fwd_frag);
	RUN(encode_sched_prio);
	RUN(encode_ctl);
	RUN(captured_bytes);
	RUN(sse_writes);
	if (dlb2_cpu_has_movdir64b())
		RUN(movdir64b_writes);
	else
		printf("ok %d - movdir64b_writes # SKIP no MOVDIR64B\n", ++tap_n);
	RUN(rules_dir_port);
	RUN(rules_ldb_port);
	RUN(command_table);
	RUN(auto_pop);
	RUN(release_comp_t);
	RUN(forward);
	RUN(close_cleans_up);
	return tap_done();
}
