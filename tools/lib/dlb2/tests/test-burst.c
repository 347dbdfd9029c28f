// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The burst paths of libdlb2_dp.h (one-command enqueue bursts, CQ entries
 * checked and copied four at a time, releases and token returns written
 * without building HCWs) against the data path they replaced, kept below
 * as it was as the reference: the same random operations on two identical
 * in-memory ports, one driven by each, must leave everything the same -
 * return values, entries copied out, the HCWs the device saw and what it
 * made of them, CQ index, tokens, completions, cached and pooled credits.
 * Then the edges by name: bursts over the ring's wrap, a group of four of
 * which only some entries are written, a payload written before its
 * status byte, bursts cut short by credits, tokens returned exactly, and
 * the bytes of releases in the 16-byte and MOVDIR64B modes.
 */
#include <stdlib.h>

#include "libdlb2.h"
#include "tap.h"

/* ------------------------------------- the reference: the old data path */

static int ref_enqueue_checked(struct dlb2_port *p, const struct dlb2_hcw *hcw,
			       unsigned int n)
{
	unsigned int i, c, tok, pool;
	int err = 0;

	for (i = 0; i < n; i++) {
		const struct dlb2_hcw *h = &hcw[i];

		c = dlb2_cmd_props(h->cmd);
		tok = c & DLB2_C_TOKN ? (h->lock_id & 0x3ff) + 1u :
		      c & DLB2_C_TOK1 ? 1u : 0u;
		if ((c & (DLB2_C_BAD | p->deny)) ||
		    ((c & DLB2_C_COMP) && !p->comps) || tok > p->tokens) {
			err = -EINVAL;
			break;
		}
		if (c & DLB2_C_CREDIT) {
			pool = dlb2_hcw_pool(p, h);
			if (!p->cache[pool] && !dlb2_credits_refill(p, pool)) {
				err = -ENOSPC;
				break;
			}
			p->cache[pool]--;
		}
		if (c & DLB2_C_COMP)
			p->comps--;
		p->tokens -= tok;
	}
	if (!i)
		return err;
	dlb2_pp_write(p, hcw, i);
	return (int)i;
}

static int ref_enqueue_burst(struct dlb2_port *p, const struct dlb2_hcw *hcw,
			     unsigned int n)
{
	unsigned int i, c, cr, all = 0, nqe = 0, ndir = 0, ncomp = 0;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		c = dlb2_cmd_props(hcw[i].cmd);
		all |= c;
		cr = (c / DLB2_C_CREDIT) & 1;
		nqe += cr;
		ndir += cr & ((hcw[i].sched & 3) == DLB2_SCHED_DIRECTED);
		ncomp += (c / DLB2_C_COMP) & 1;
	}
	if ((all & (DLB2_C_BAD | DLB2_C_TOK1 | DLB2_C_TOKN | p->deny)) ||
	    ncomp > p->comps)
		return ref_enqueue_checked(p, hcw, n);
	if (p->dir_pool) {
		if (!dlb2_credits_have(p, 0, nqe - ndir) ||
		    !dlb2_credits_have(p, p->dir_pool, ndir))
			return ref_enqueue_checked(p, hcw, n);
		p->cache[0] -= nqe - ndir;
		p->cache[p->dir_pool] -= ndir;
	} else {
		if (!dlb2_credits_have(p, 0, nqe))
			return ref_enqueue_checked(p, hcw, n);
		p->cache[0] -= nqe;
	}
	p->comps -= ncomp;
	dlb2_pp_write(p, hcw, n);
	return (int)n;
}

static void ref_return_tokens(struct dlb2_port *p)
{
	struct dlb2_hcw h;
	unsigned int n;

	while (p->tokens) {
		n = p->tokens < DLB2_MAX_TOKENS ? p->tokens : DLB2_MAX_TOKENS;
		dlb2_hcw_bat_t(&h, n);
		p->tokens -= n;
		dlb2_pp_write(p, &h, 1);
	}
}

static int ref_release(struct dlb2_port *p, unsigned int n)
{
	struct dlb2_hcw h[4];
	unsigned int i, k;

	if (!p->ldb || n > p->comps)
		return -EINVAL;
	p->comps -= n;
	for (i = 0; i < n; i += k) {
		k = n - i < 4 ? n - i : 4;
		for (unsigned int j = 0; j < k; j++)
			dlb2_hcw_comp(&h[j]);
		if (i + k == n && p->tokens && p->tokens <= DLB2_MAX_TOKENS) {
			dlb2_hcw_comp_t(&h[k - 1], p->tokens);
			p->tokens = 0;
		}
		dlb2_pp_write(p, h, k);
	}
	return (int)n;
}

static unsigned int ref_cq_poll(struct dlb2_port *p, struct dlb2_cq_entry *out,
				unsigned int max)
{
	uint32_t idx = p->cq_idx;
	unsigned int n;

	for (n = 0; n < max; n++) {
		const struct dlb2_cq_entry *e = dlb2_cq_entry_at(p, idx);
		uint8_t st = __atomic_load_n(&e->status, __ATOMIC_ACQUIRE);

		if ((st & DLB2_CQ_GEN) != dlb2_cq_gen(p, idx))
			break;
		memcpy(&out[n], e, sizeof(*e));
		idx += p->cq_step;
	}
	p->cq_idx = idx;
	return n;
}

static int ref_dequeue_burst(struct dlb2_port *p, struct dlb2_cq_entry *out,
			     unsigned int max)
{
	unsigned int n, pool = p->deq_pool;

	if (p->flags & DLB2_OPEN_DEFER_POP)
		ref_return_tokens(p);
	n = ref_cq_poll(p, out, max);
	if (!n) {
		if (++p->idle >= p->idle_flush)
			dlb2_dequeue_idle(p);
		return 0;
	}
	p->idle = 0;
	p->tokens += n;
	if (p->ldb)
		p->comps += n;
	p->cache[pool] += n;
	if (p->cache[pool] >= 2ull * p->quanta)
		dlb2_credits_put(p, pool, p->cache[pool] - p->quanta);
	if (!(p->flags & DLB2_OPEN_DEFER_POP))
		ref_return_tokens(p);
	return (int)n;
}

/* ------------------------------------------------------------ helpers */

#define MAXB		48	/* largest burst tried */
#define LOG		(1u << 14)

static uint64_t rng;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (unsigned int)(rng % n) : 0;
}

static struct dlb2_port *mem_port(uint32_t version, bool ldb, uint32_t depth,
				  uint32_t stride, unsigned int flags,
				  unsigned int quanta, uint64_t credits,
				  uint32_t capture)
{
	struct dlb2_port_opts o = { .flags = flags, .quanta = quanta,
				    .idle_flush = 5 };
	struct dlb2_mem_cfg cfg = {
		.version = version, .ldb = ldb, .cq_depth = depth,
		.cq_stride = stride, .credits = { credits, credits },
		.capture = capture,
	};
	struct dlb2_port *p;

	if (dlb2_port_open_mem(&cfg, &o, &p)) {
		diag("dlb2_port_open_mem failed");
		exit(2);
	}
	return p;
}

/* Ring slot @slot of @p, as the device writes it. */
static uint8_t *slot_at(struct dlb2_port *p, uint32_t slot)
{
	return (uint8_t *)p->cq_map +
	       (slot & (p->info.cq_entries - 1)) * p->info.cq_stride;
}

/* Everything the two ports (new and reference) must agree on. */
static bool same(struct dlb2_port *a, struct dlb2_port *b, const char *op,
		 unsigned int step)
{
	const struct dlb2_hcw *la, *lb;
	unsigned int na, nb;

	la = dlb2_mem_hcws(a, &na);
	lb = dlb2_mem_hcws(b, &nb);
	if (a->cq_idx != b->cq_idx || a->tokens != b->tokens ||
	    a->comps != b->comps || a->idle != b->idle ||
	    a->cache[0] != b->cache[0] || a->cache[1] != b->cache[1] ||
	    *a->pool[0] != *b->pool[0] || *a->pool[1] != *b->pool[1] ||
	    memcmp(dlb2_mem_state(a), dlb2_mem_state(b),
		   sizeof(struct dlb2_mem_state)) ||
	    na != nb || memcmp(la, lb, na * sizeof(*la))) {
		diag("step %u (%s): cq_idx %u/%u tokens %u/%u comps %u/%u "
		     "cache %llu,%llu/%llu,%llu pool %llu,%llu/%llu,%llu "
		     "hcws %u/%u", step, op, a->cq_idx, b->cq_idx, a->tokens,
		     b->tokens, a->comps, b->comps,
		     (unsigned long long)a->cache[0],
		     (unsigned long long)a->cache[1],
		     (unsigned long long)b->cache[0],
		     (unsigned long long)b->cache[1],
		     (unsigned long long)*a->pool[0],
		     (unsigned long long)*a->pool[1],
		     (unsigned long long)*b->pool[0],
		     (unsigned long long)*b->pool[1], na, nb);
		return false;
	}
	dlb2_mem_clear(a);
	dlb2_mem_clear(b);
	return true;
}

static const uint8_t cmds[] = {
	DLB2_CMD_NEW, DLB2_CMD_NEW, DLB2_CMD_NEW, DLB2_CMD_FWD, DLB2_CMD_FRAG,
	DLB2_CMD_NEW_T, DLB2_CMD_FWD_T, DLB2_CMD_FRAG_T, DLB2_CMD_COMP,
	DLB2_CMD_COMP_T, DLB2_CMD_BAT_T, DLB2_CMD_NOOP, DLB2_CMD_ARM, 0x4,
	0x6, 0xe, 0x18, 0x88,
};

static void random_hcws(struct dlb2_hcw *h, unsigned int n)
{
	unsigned int kind = rnd(4), i;
	uint8_t cmd = cmds[rnd(sizeof(cmds))], sched = rnd(4);

	for (i = 0; i < n; i++) {
		/* kind 0, 1: one command; 0 also one scheduling type */
		if (kind >= 2 && (kind == 3 || !rnd(8)))
			cmd = cmds[rnd(sizeof(cmds))];
		if (kind >= 1)
			sched = rnd(4);
		dlb2_hcw_qe(&h[i], cmd, rnd(32), sched, rnd(8),
			    rnd(4) ? rnd(3) : rnd(65536),
			    ((uint64_t)rnd(1u << 31) << 32) | i, rnd(65536));
		h[i].misc = rnd(8) ? 0 : rnd(256);
	}
}

/*
 * @steps random operations on a twin pair: enqueue bursts of every kind,
 * the device scheduling QEs (and sometimes writing a payload whose status
 * byte is still stale), dequeues of 0..MAXB, releases, token returns.
 */
static bool twins(uint32_t version, bool ldb, uint32_t depth, uint32_t stride,
		  unsigned int flags, unsigned int steps)
{
	unsigned int quanta = 1 + rnd(40);
	uint64_t credits = 8 + rnd(300);
	struct dlb2_port *a = mem_port(version, ldb, depth, stride, flags,
				       quanta, credits, LOG);
	struct dlb2_port *b = mem_port(version, ldb, depth, stride, flags,
				       quanta, credits, LOG);
	struct dlb2_cq_entry oa[MAXB + 1], ob[MAXB + 1], e;
	struct dlb2_hcw h[MAXB];
	unsigned int step, n, k, wr = 0;
	const char *op = "";
	bool ok = true;
	int ra, rb;

	for (step = 0; step < steps && ok; step++) {
		ra = rb = 0;
		switch (rnd(6)) {
		case 0:
		case 1:
			op = "enqueue";
			n = rnd(MAXB + 1);
			random_hcws(h, n);
			ra = dlb2_enqueue_burst(a, h, n);
			rb = ref_enqueue_burst(b, h, n);
			break;
		case 2:
			op = "device";
			for (k = rnd(2 * depth); k; k--) {
				memset(&e, 0, sizeof(e));
				e.data = ((uint64_t)step << 32) | wr;
				e.opaque = rnd(65536);
				e.qid = rnd(32);
				/* what a port of this type is scheduled */
				e.sched = ldb ? rnd(3) : DLB2_SCHED_DIRECTED;
				e.flow_id = rnd(65536);
				e.debug = rnd(256);
				e.status = rnd(256) & ~DLB2_CQ_GEN;
				ra = dlb2_mem_cq_push(a, &e);
				rb = dlb2_mem_cq_push(b, &e);
				if (ra || rb)
					break;
				wr++;
			}
			if (!ra && !rb && rnd(3) == 0) {
				/* the next slot's payload, status not yet */
				memset(slot_at(a, wr), 0xa5, 15);
				memset(slot_at(b, wr), 0xa5, 15);
			}
			break;
		case 3:
		case 4:
			op = "dequeue";
			n = rnd(MAXB + 1);
			memset(oa, 0x5a, sizeof(oa));
			memset(ob, 0x5a, sizeof(ob));
			ra = dlb2_dequeue_burst(a, oa, n);
			rb = ref_dequeue_burst(b, ob, n);
			/* what was copied, and nothing beyond it */
			if (ra == rb && memcmp(oa, ob, sizeof(oa)))
				ra = -1000;
			break;
		default:
			if (rnd(4) == 0) {
				op = "return_tokens";
				dlb2_return_tokens(a);
				ref_return_tokens(b);
				break;
			}
			op = "release";
			n = rnd(a->comps + 3);
			ra = dlb2_release(a, n);
			rb = ref_release(b, n);
			break;
		}
		if (ra != rb) {
			diag("step %u (%s): returned %d, the reference %d",
			     step, op, ra, rb);
			ok = false;
		} else {
			ok = same(a, b, op, step);
		}
	}
	if (ok && dlb2_mem_state(a)->alarms) {
		diag("%llu device alarms",
		     (unsigned long long)dlb2_mem_state(a)->alarms);
		ok = false;
	}
	if (!ok)
		diag("v%s %s depth %u stride %u flags %#x quanta %u credits %llu",
		     version == DLB2_HW_V2 ? "2.0" : "2.5", ldb ? "ldb" : "dir",
		     depth, stride, flags, quanta, (unsigned long long)credits);
	a->comps = b->comps = 0;
	dlb2_port_close(a);
	dlb2_port_close(b);
	return ok;
}

/* ------------------------------------------------------------- tests */

static void same_as_before(void)
{
	static const uint32_t depths[] = { 1, 4, 8, 16, 64, 128 };
	unsigned int v, l, d, s, f, bad = 0;

	rng = 0x9e3779b97f4a7c15ull;
	for (v = 0; v < 2; v++)
		for (l = 0; l < 2; l++)
			for (d = 0; d < 6; d++)
				for (s = 0; s < 2; s++)
					for (f = 0; f < 2; f++)
						bad += !twins(v ? DLB2_HW_V2_5 :
							      DLB2_HW_V2, l,
							      depths[d],
							      s ? 64 : 16,
							      f ? DLB2_OPEN_DEFER_POP
								: 0, 3000);
	CHECK_EQ(bad, 0);
}

/*
 * Bursts that start anywhere before the wrap and go on over it, for both
 * strides: every entry once, in order, the generation flipping there.
 */
static void over_the_wrap(void)
{
	static const uint32_t strides[] = { 16, 64 };
	struct dlb2_cq_entry e = { 0 }, out[40];
	unsigned int s, start, k, i, got = 0, pushed = 0;
	struct dlb2_port *p;
	int n;

	for (s = 0; s < 2; s++) {
		for (start = 40; start < 64; start++) {
			p = mem_port(DLB2_HW_V2, false, 64, strides[s], 0, 32,
				     4096, LOG);
			pushed = got = 0;
			/* move the consumer to @start */
			while (got < start) {
				k = start - got < 32 ? start - got : 32;
				for (i = 0; i < k; i++, pushed++) {
					e.data = pushed;
					dlb2_mem_cq_push(p, &e);
				}
				got += dlb2_dequeue_burst(p, out, k);
			}
			for (i = 0; i < 30; i++, pushed++) {
				e.data = pushed;
				CHECK_EQ(dlb2_mem_cq_push(p, &e), 0);
			}
			n = dlb2_dequeue_burst(p, out, 40);
			CHECK_EQ(n, 30);
			for (i = 0; i < 30 && n == 30; i++)
				if (out[i].data != start + i)
					CHECK_EQ(out[i].data, start + i);
			CHECK_EQ(p->cq_idx, (start + 30) * strides[s] / 16);
			CHECK_EQ(dlb2_cq_gen(p, p->cq_idx), 0);
			CHECK_EQ(dlb2_dequeue_burst(p, out, 40), 0);
			dlb2_port_close(p);
		}
	}
}

/*
 * Four entries are checked before any is copied: a group of which only
 * the first one, two or three are written yields exactly those, and no
 * entry after them is copied out, even with its payload already there.
 */
static void partly_written_group(void)
{
	struct dlb2_cq_entry e = { 0 }, out[16], sentinel;
	struct dlb2_port *p;
	unsigned int valid, i;
	int n;

	memset(&sentinel, 0x5a, sizeof(sentinel));
	for (valid = 0; valid < 8; valid++) {
		p = mem_port(DLB2_HW_V2, true, 16, 64, DLB2_OPEN_DEFER_POP, 32,
			     64, 16);
		for (i = 0; i < valid; i++) {
			e.data = 100 + i;
			CHECK_EQ(dlb2_mem_cq_push(p, &e), 0);
		}
		/* the device is writing the next one: payload, no status */
		memset(slot_at(p, valid), 0xee, 15);
		for (i = 0; i < 16; i++)
			out[i] = sentinel;
		n = dlb2_dequeue_burst(p, out, 8);
		CHECK_EQ(n, valid);
		for (i = 0; i < valid; i++)
			CHECK_EQ(out[i].data, 100 + i);
		for (i = valid; i < 16; i++)
			CHECK_MEM(&out[i], &sentinel, sizeof(sentinel));
		CHECK_EQ(p->tokens, valid);
		CHECK_EQ(p->comps, valid);
		/* the status byte lands: now it is taken */
		e.data = 100 + valid;
		CHECK_EQ(dlb2_mem_cq_push(p, &e), 0);
		CHECK_EQ(dlb2_dequeue_burst(p, out, 8), 1);
		CHECK_EQ(out[0].data, 100 + valid);
		dlb2_release(p, p->comps);
		dlb2_port_close(p);
	}
}

/*
 * One-command bursts cut short by credits: exactly the HCWs that had a
 * credit are written, the pool taken in quanta, nothing after the first
 * without one; DLB 2.0's directed pool and DLB 2.5's single pool.
 */
static void cut_by_credits(void)
{
	struct dlb2_hcw h[40];
	const struct dlb2_hcw *log;
	struct dlb2_port *p;
	unsigned int n, i;

	/* 2.0, directed QEs: the directed pool only */
	p = mem_port(DLB2_HW_V2, false, 8, 16, 0, 32, 35, 64);
	for (i = 0; i < 40; i++)
		dlb2_hcw_new(&h[i], 1, DLB2_SCHED_DIRECTED, i & 7, i, i, 0);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 40), 35);
	log = dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 35);
	CHECK_MEM(log, h, 35 * sizeof(*h));
	CHECK_EQ(p->cache[1], 0);
	CHECK_EQ(*p->pool[1], 0);
	CHECK_EQ(p->cache[0], 0);
	CHECK_EQ(*p->pool[0], 35);		/* the other pool untouched */
	CHECK_EQ(dlb2_enqueue_burst(p, &h[35], 5), -ENOSPC);
	CHECK_EQ(dlb2_mem_state(p)->alarms, 0);
	dlb2_port_close(p);

	/* 2.5: mixed scheduling types, one pool, one command */
	p = mem_port(DLB2_HW_V2_5, true, 8, 16, 0, 8, 21, 64);
	for (i = 0; i < 40; i++)
		dlb2_hcw_new(&h[i], 1, i % 4, 0, i, i, 0);
	CHECK_EQ(dlb2_enqueue_burst(p, h, 10), 10);	/* two refills */
	CHECK_EQ(p->cache[0], 6);
	CHECK_EQ(*p->pool[0], 5);
	CHECK_EQ(dlb2_enqueue_burst(p, &h[10], 30), 11);
	CHECK_EQ(p->cache[0], 0);
	CHECK_EQ(*p->pool[0], 0);
	log = dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 21);
	CHECK_MEM(log, h, 21 * sizeof(*h));
	CHECK_EQ(dlb2_mem_state(p)->alarms, 0);
	dlb2_port_close(p);
}

/* Each dequeue returns exactly its tokens; deferred ones add up. */
static void tokens_exact(void)
{
	struct dlb2_cq_entry e = { 0 }, out[32];
	const struct dlb2_hcw *log;
	struct dlb2_port *p;
	unsigned int n, i;

	p = mem_port(DLB2_HW_V2, false, 64, 64, 0, 32, 64, 64);
	for (i = 0; i < 37; i++)
		dlb2_mem_cq_push(p, &e);
	CHECK_EQ(dlb2_dequeue_burst(p, out, 32), 32);
	CHECK_EQ(dlb2_dequeue_burst(p, out, 32), 5);
	log = dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 2);
	CHECK_EQ(log[0].cmd, DLB2_CMD_BAT_T);
	CHECK_EQ(log[0].lock_id, 31);
	CHECK_EQ(log[1].cmd, DLB2_CMD_BAT_T);
	CHECK_EQ(log[1].lock_id, 4);
	CHECK_EQ(p->tokens, 0);
	CHECK_EQ(dlb2_mem_state(p)->tokens_out, 0);
	dlb2_port_close(p);

	p = mem_port(DLB2_HW_V2, true, 64, 16, DLB2_OPEN_DEFER_POP, 32, 64, 64);
	for (i = 0; i < 13; i++)
		dlb2_mem_cq_push(p, &e);
	CHECK_EQ(dlb2_dequeue_burst(p, out, 5), 5);
	CHECK_EQ(dlb2_dequeue_burst(p, out, 7), 7);	/* BAT_T: 5 first */
	CHECK_EQ(p->tokens, 7);
	CHECK_EQ(dlb2_release(p, 9), 9);		/* COMP_T: 7 */
	CHECK_EQ(dlb2_dequeue_burst(p, out, 7), 1);
	CHECK_EQ(dlb2_release(p, 4), 4);		/* COMP_T: 1 */
	log = dlb2_mem_hcws(p, &n);
	CHECK_EQ(n, 1 + 9 + 4);
	if (n == 14) {
		CHECK_EQ(log[0].cmd, DLB2_CMD_BAT_T);
		CHECK_EQ(log[0].lock_id, 4);
		for (i = 1; i < 9; i++)
			CHECK_EQ(log[i].cmd, DLB2_CMD_COMP);
		CHECK_EQ(log[9].cmd, DLB2_CMD_COMP_T);
		CHECK_EQ(log[9].lock_id, 6);
		CHECK_EQ(log[12].cmd, DLB2_CMD_COMP);
		CHECK_EQ(log[13].cmd, DLB2_CMD_COMP_T);
		CHECK_EQ(log[13].lock_id, 0);
	}
	CHECK_EQ(p->tokens, 0);
	CHECK_EQ(p->comps, 0);
	CHECK_EQ(dlb2_mem_state(p)->tokens_out, 0);
	CHECK_EQ(dlb2_mem_state(p)->comps_out, 0);
	CHECK_EQ(dlb2_mem_state(p)->alarms, 0);
	dlb2_port_close(p);
}

/*
 * What a release stores, in the CPU's modes: the last HCW at PP offset 0
 * (16-byte stores), the last line of four, NOOP-padded (MOVDIR64B).
 */
static void release_bytes(void)
{
	static const uint8_t comp[16] = { [15] = 0x02 };
	uint8_t comp_t[16] = { [15] = 0x03 }, line[64];
	struct dlb2_cq_entry e = { 0 }, out[16];
	unsigned int mode, n, i, k;
	struct dlb2_port *p;

	for (mode = 0; mode < 2; mode++) {
		if (mode == 1 && !dlb2_cpu_has_movdir64b()) {
			diag("no MOVDIR64B: its release bytes not checked");
			break;
		}
		for (n = 1; n <= 9; n++) {
			for (k = 0; k < 2; k++) {	/* tokens deferred or not */
				p = mem_port(DLB2_HW_V2, true, 16, 16,
					     k ? DLB2_OPEN_DEFER_POP : 0, 32,
					     64, 0);
				CHECK_EQ(dlb2_port_set_pp_mode(p, mode ?
					 DLB2_PP_MOVDIR64B : DLB2_PP_SSE), 0);
				for (i = 0; i < n; i++)
					dlb2_mem_cq_push(p, &e);
				CHECK_EQ(dlb2_dequeue_burst(p, out, 16), n);
				memset(p->pp, 0xee, 64);
				CHECK_EQ(dlb2_release(p, n), n);
				comp_t[12] = n - 1;
				memset(line, 0xee, sizeof(line));
				if (mode) {
					/* the last line: 1..4 HCWs, then NOOPs */
					memset(line, 0, sizeof(line));
					for (i = 0; i < (n - 1) % 4 + 1; i++)
						memcpy(&line[16 * i], comp, 16);
				} else {
					/* every store at offset 0: the last */
					memcpy(line, comp, 16);
					i = 1;
				}
				if (k)
					memcpy(&line[16 * (i - 1)], comp_t, 16);
				CHECK_MEM(p->pp, line, 64);
				dlb2_port_close(p);
			}
		}
	}
}

int main(void)
{
	RUN(same_as_before);
	RUN(over_the_wrap);
	RUN(partly_written_group);
	RUN(cut_by_credits);
	RUN(tokens_exact);
	RUN(release_bytes);
	return tap_done();
}
