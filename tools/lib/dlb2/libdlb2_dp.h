/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libdlb2 data path, inline for speed.  Included by libdlb2.h; do not
 * include on its own.
 *
 * Rules it keeps for the caller (the device raises an alarm otherwise):
 *  - an HCW carrying a QE (NEW, FWD, FRAG and their _T forms) is written only
 *    after a credit of the destination queue's type was taken from the
 *    port's cache, refilled from the domain pool in quanta;
 *  - tokens are returned only for QEs dequeued, completions are issued only
 *    for QEs dequeued on a load-balanced port, and never from a directed one.
 * An HCW breaking a rule stops the burst (-EINVAL, -ENOSPC without credit).
 */
#ifndef LIBDLB2_DP_H
#define LIBDLB2_DP_H

#include <errno.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

/* Bits of the command byte (facts §3). */
#define DLB2_HCW_TOKEN		0x01	/* cq_token */
#define DLB2_HCW_COMP		0x02	/* qe_comp */
#define DLB2_HCW_FRAG		0x04	/* qe_frag */
#define DLB2_HCW_VALID		0x08	/* qe_valid: carries a QE */

#define DLB2_MAX_TOKENS		1024	/* per BAT_T / COMP_T (10 bits) */

/* ------------------------------------------------------- HCW builders */

static inline void dlb2_hcw_qe(struct dlb2_hcw *h, uint8_t cmd, uint8_t qid,
			       uint8_t sched, uint8_t prio, uint16_t lock_id,
			       uint64_t data, uint16_t opaque)
{
	h->data = data;
	h->opaque = opaque;
	h->qid = qid;
	h->sched = DLB2_SCHED(sched & 3, prio & 7);
	h->lock_id = lock_id;
	h->misc = 0;
	h->cmd = cmd;
}

/* A new QE for queue @qid (DLB2_SCHED_DIRECTED for a directed queue). */
static inline void dlb2_hcw_new(struct dlb2_hcw *h, uint8_t qid, uint8_t sched,
				uint8_t prio, uint16_t lock_id, uint64_t data,
				uint16_t opaque)
{
	dlb2_hcw_qe(h, DLB2_CMD_NEW, qid, sched, prio, lock_id, data, opaque);
}

/* Forward: enqueue and complete the oldest dequeued QE (ldb ports). */
static inline void dlb2_hcw_fwd(struct dlb2_hcw *h, uint8_t qid, uint8_t sched,
				uint8_t prio, uint16_t lock_id, uint64_t data,
				uint16_t opaque)
{
	dlb2_hcw_qe(h, DLB2_CMD_FWD, qid, sched, prio, lock_id, data, opaque);
}

/* Fragment of the oldest dequeued (ordered) QE, not completing it. */
static inline void dlb2_hcw_frag(struct dlb2_hcw *h, uint8_t qid,
				 uint8_t sched, uint8_t prio, uint16_t lock_id,
				 uint64_t data, uint16_t opaque)
{
	dlb2_hcw_qe(h, DLB2_CMD_FRAG, qid, sched, prio, lock_id, data, opaque);
}

/* Control HCWs: everything zero but the command and the token count. */
static inline void dlb2_hcw_ctl(struct dlb2_hcw *h, uint8_t cmd,
				uint16_t lock_id)
{
	memset(h, 0, sizeof(*h));
	h->lock_id = lock_id;
	h->cmd = cmd;
}

/* Return @n (1..1024) tokens. */
static inline void dlb2_hcw_bat_t(struct dlb2_hcw *h, unsigned int n)
{
	dlb2_hcw_ctl(h, DLB2_CMD_BAT_T, (uint16_t)(n - 1));
}

static inline void dlb2_hcw_comp(struct dlb2_hcw *h)
{
	dlb2_hcw_ctl(h, DLB2_CMD_COMP, 0);
}

/* Complete the oldest QE and return @n (1..1024) tokens. */
static inline void dlb2_hcw_comp_t(struct dlb2_hcw *h, unsigned int n)
{
	dlb2_hcw_ctl(h, DLB2_CMD_COMP_T, (uint16_t)(n - 1));
}

static inline void dlb2_hcw_arm(struct dlb2_hcw *h)
{
	dlb2_hcw_ctl(h, DLB2_CMD_ARM, 0);
}

/* ---------------------------------------------------------- PP writes */

#if defined(__x86_64__) || defined(__i386__)
/* MOVDIR64B %rdx -> (%rax), encoded for assemblers that lack it. */
static inline void dlb2_movdir64b(void *dst, const void *src)
{
	asm volatile(".byte 0x66,0x0f,0x38,0xf8,0x02"
		     : : "a" (dst), "d" (src) : "memory");
}

static inline void dlb2_sfence(void)
{
	_mm_sfence();
}

/* Lines of 4 HCWs, the last one padded with NOOPs. */
static inline void dlb2_pp_write_movdir64b(uint8_t *pp,
					   const struct dlb2_hcw *h,
					   unsigned int n)
{
	struct dlb2_hcw line[4] __attribute__((aligned(64)));

	dlb2_sfence();		/* QEs may point at memory just written */
	for (; n >= 4; n -= 4, h += 4)
		dlb2_movdir64b(pp, h);	/* no alignment needed for the source */
	if (n) {
		memset(line, 0, sizeof(line));
		memcpy(line, h, n * sizeof(*h));
		dlb2_movdir64b(pp, line);
	}
}

/*
 * One 16-byte store per HCW, all to PP offset 0; the sfence after each keeps
 * the write-combining buffer from merging two of them.
 */
static inline void dlb2_pp_write_sse(uint8_t *pp, const struct dlb2_hcw *h,
				     unsigned int n)
{
	dlb2_sfence();
	for (; n; n--, h++) {
		_mm_stream_si128((__m128i *)pp,
				 _mm_loadu_si128((const __m128i *)h));
		dlb2_sfence();
	}
}
#else
static inline void dlb2_sfence(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static inline void dlb2_pp_write_movdir64b(uint8_t *pp,
					   const struct dlb2_hcw *h,
					   unsigned int n)
{
	(void)pp; (void)h; (void)n;
}

static inline void dlb2_pp_write_sse(uint8_t *pp, const struct dlb2_hcw *h,
				     unsigned int n)
{
	for (; n; n--, h++) {
		memcpy(pp, h, sizeof(*h));
		dlb2_sfence();
	}
}
#endif

static inline void dlb2_pp_write(struct dlb2_port *p, const struct dlb2_hcw *h,
				 unsigned int n)
{
	if (p->pp_mode == DLB2_PP_MOVDIR64B)
		dlb2_pp_write_movdir64b(p->pp, h, n);
	else if (p->pp_mode == DLB2_PP_SSE)
		dlb2_pp_write_sse(p->pp, h, n);
	else
		dlb2_mem_pp_write(p, h, n);
}

/* ------------------------------------------------------------ enqueue */

/* What each command does, for the accounting (index: command byte). */
#define DLB2_C_BAD	0x01	/* undefined: never written */
#define DLB2_C_CREDIT	0x02	/* carries a QE: one credit */
#define DLB2_C_COMP	0x04	/* completes the oldest QE */
#define DLB2_C_LDB	0x08	/* load-balanced ports only */
#define DLB2_C_TOK1	0x10	/* returns one token */
#define DLB2_C_TOKN	0x20	/* returns lock_id + 1 tokens */

static inline unsigned int dlb2_cmd_props(uint8_t cmd)
{
	/* every byte value, so that no range check is needed */
	static const uint8_t props[256] = {
		[0x10 ... 0xff]	  = DLB2_C_BAD,
		[DLB2_CMD_NOOP]	  = 0,
		[DLB2_CMD_BAT_T]  = DLB2_C_TOKN,
		[DLB2_CMD_COMP]	  = DLB2_C_COMP | DLB2_C_LDB,
		[DLB2_CMD_COMP_T] = DLB2_C_COMP | DLB2_C_LDB | DLB2_C_TOKN,
		[0x4]		  = DLB2_C_BAD,
		[DLB2_CMD_ARM]	  = 0,
		[0x6 ... 0x7]	  = DLB2_C_BAD,
		[DLB2_CMD_NEW]	  = DLB2_C_CREDIT,
		[DLB2_CMD_NEW_T]  = DLB2_C_CREDIT | DLB2_C_TOK1,
		[DLB2_CMD_FWD]	  = DLB2_C_CREDIT | DLB2_C_COMP | DLB2_C_LDB,
		[DLB2_CMD_FWD_T]  = DLB2_C_CREDIT | DLB2_C_COMP | DLB2_C_LDB |
				    DLB2_C_TOK1,
		[DLB2_CMD_FRAG]	  = DLB2_C_CREDIT | DLB2_C_LDB,
		[DLB2_CMD_FRAG_T] = DLB2_C_CREDIT | DLB2_C_LDB | DLB2_C_TOK1,
		[0xe ... 0xf]	  = DLB2_C_BAD,
	};

	return props[cmd];
}

/* Credit pool a QE for this destination draws from. */
static inline unsigned int dlb2_hcw_pool(const struct dlb2_port *p,
					 const struct dlb2_hcw *h)
{
	return (h->sched & 3) == DLB2_SCHED_DIRECTED ? p->dir_pool : 0;
}

/*
 * The burst one HCW at a time: stops exactly at the first HCW without a
 * credit or against a rule.
 */
static inline int dlb2_enqueue_checked(struct dlb2_port *p,
				       const struct dlb2_hcw *hcw,
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

/* Make sure the cache holds @n credits of @pool (refills in quanta). */
static inline bool dlb2_credits_have(struct dlb2_port *p, unsigned int pool,
				     uint64_t n)
{
	while (p->cache[pool] < n)
		if (!dlb2_credits_refill(p, pool))
			return false;
	return true;
}

/**
 * dlb2_enqueue_burst() - write up to @n HCWs to the port's PP
 *
 * Takes the credits the QEs need and accounts for completions and token
 * returns the HCWs carry.  Stops at the first HCW that has no credit or
 * breaks a rule; the HCWs before it are written.
 *
 * Return: HCWs written; if none, -ENOSPC (no credit) or -EINVAL.
 */
static inline int dlb2_enqueue_burst(struct dlb2_port *p,
				     const struct dlb2_hcw *hcw,
				     unsigned int n)
{
	unsigned int i, c, cr, all = 0, nqe = 0, ndir = 0, ncomp = 0;

	if (!n)
		return 0;
	/* what the whole burst needs */
	for (i = 0; i < n; i++) {
		c = dlb2_cmd_props(hcw[i].cmd);
		all |= c;
		cr = (c / DLB2_C_CREDIT) & 1;
		nqe += cr;
		ndir += cr & ((hcw[i].sched & 3) == DLB2_SCHED_DIRECTED);
		ncomp += (c / DLB2_C_COMP) & 1;
	}
	/* token returns, bad commands, or short of something: one by one */
	if ((all & (DLB2_C_BAD | DLB2_C_TOK1 | DLB2_C_TOKN | p->deny)) ||
	    ncomp > p->comps)
		return dlb2_enqueue_checked(p, hcw, n);
	if (p->dir_pool) {
		if (!dlb2_credits_have(p, 0, nqe - ndir) ||
		    !dlb2_credits_have(p, p->dir_pool, ndir))
			return dlb2_enqueue_checked(p, hcw, n);
		p->cache[0] -= nqe - ndir;
		p->cache[p->dir_pool] -= ndir;
	} else {
		if (!dlb2_credits_have(p, 0, nqe))
			return dlb2_enqueue_checked(p, hcw, n);
		p->cache[0] -= nqe;
	}
	p->comps -= ncomp;
	dlb2_pp_write(p, hcw, n);
	return (int)n;
}

/* Return every token of QEs dequeued so far. */
static inline void dlb2_return_tokens(struct dlb2_port *p)
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

/**
 * dlb2_release() - complete the @n oldest dequeued QEs (ldb ports)
 *
 * Deferred tokens ride on the last completion (COMP_T).
 * Return: @n, or -EINVAL (directed port, or fewer than @n outstanding).
 */
static inline int dlb2_release(struct dlb2_port *p, unsigned int n)
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

/*
 * Forward @n QEs: each completes the oldest dequeued QE and enqueues the
 * HCW (its command is set to FWD).  Return as dlb2_enqueue_burst().
 */
static inline int dlb2_forward_burst(struct dlb2_port *p, struct dlb2_hcw *hcw,
				     unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		hcw[i].cmd = DLB2_CMD_FWD;
	return dlb2_enqueue_burst(p, hcw, n);
}

/* ------------------------------------------------------------ dequeue */

/* The ring entry at the consumer's index (16-byte units). */
static inline const struct dlb2_cq_entry *
dlb2_cq_entry_at(const struct dlb2_port *p, uint32_t idx)
{
	return (const struct dlb2_cq_entry *)(p->cq + ((idx & p->cq_mask) << 4));
}

/*
 * Generation the next valid entry at @idx carries: 1 on the first pass
 * over the ring, then flipping each lap.
 */
static inline uint8_t dlb2_cq_gen(const struct dlb2_port *p, uint32_t idx)
{
	return !((idx >> p->cq_shift) & 1);
}

/* Whether the next entry is valid; reads only its status byte. */
static inline bool dlb2_cq_ready(const struct dlb2_port *p)
{
	const struct dlb2_cq_entry *e = dlb2_cq_entry_at(p, p->cq_idx);

	return (__atomic_load_n(&e->status, __ATOMIC_ACQUIRE) & DLB2_CQ_GEN) ==
	       dlb2_cq_gen(p, p->cq_idx);
}

/* Copy out up to @max new entries and advance, with no token or credit. */
static inline unsigned int dlb2_cq_poll(struct dlb2_port *p,
					struct dlb2_cq_entry *out,
					unsigned int max)
{
	uint32_t idx = p->cq_idx;
	unsigned int n;

	for (n = 0; n < max; n++) {
		const struct dlb2_cq_entry *e = dlb2_cq_entry_at(p, idx);
		uint8_t st = __atomic_load_n(&e->status, __ATOMIC_ACQUIRE);

		/* the gen byte first: the rest is valid once it matches */
		if ((st & DLB2_CQ_GEN) != dlb2_cq_gen(p, idx))
			break;
		memcpy(&out[n], e, sizeof(*e));
		idx += p->cq_step;
	}
	p->cq_idx = idx;
	return n;
}

void dlb2_dequeue_idle(struct dlb2_port *p);

/**
 * dlb2_dequeue_burst() - take up to @max scheduled QEs from the CQ
 *
 * Credits go back to the port's cache (the surplus to the pool); tokens are
 * returned at once, or with DLB2_OPEN_DEFER_POP at the next dequeue, wait,
 * release or dlb2_return_tokens().  On a load-balanced port every QE must be
 * completed later, in dequeue order (dlb2_release(), FWD).  An entry the
 * device flagged (status & DLB2_CQ_ERROR) is returned like any other.
 *
 * Return: entries copied to @out.
 */
static inline int dlb2_dequeue_burst(struct dlb2_port *p,
				     struct dlb2_cq_entry *out,
				     unsigned int max)
{
	unsigned int n, pool = p->deq_pool;

	if (p->flags & DLB2_OPEN_DEFER_POP)
		dlb2_return_tokens(p);
	n = dlb2_cq_poll(p, out, max);
	if (!n) {
		if (++p->idle >= p->idle_flush)
			dlb2_dequeue_idle(p);
		return 0;
	}
	p->idle = 0;
	p->tokens += n;
	if (p->ldb)
		p->comps += n;
	/* the device gave the credits back to its pool when it scheduled */
	p->cache[pool] += n;
	if (p->cache[pool] >= 2ull * p->quanta)
		dlb2_credits_put(p, pool, p->cache[pool] - p->quanta);
	if (!(p->flags & DLB2_OPEN_DEFER_POP))
		dlb2_return_tokens(p);
	return (int)n;
}

#endif /* LIBDLB2_DP_H */
