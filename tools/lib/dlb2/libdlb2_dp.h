/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libdlb2 data path, inline for speed.  Included by libdlb2.h, and
 * includes it: either may be included first.
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
#include "libdlb2.h"

#ifdef __cplusplus
extern "C" {
#endif

#define dlb2_likely(x)		__builtin_expect(!!(x), 1)
#define dlb2_unlikely(x)	__builtin_expect(!!(x), 0)

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
	__asm__ __volatile__(".byte 0x66,0x0f,0x38,0xf8,0x02"
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
	/* MOVDIR64B needs no alignment of its source (nor a realigned stack) */
	struct dlb2_hcw line[4];

	dlb2_sfence();		/* QEs may point at memory just written */
	for (; n >= 4; n -= 4, h += 4)
		dlb2_movdir64b(pp, h);	/* no alignment needed for the source */
	if (n) {
		memset(line, 0, sizeof(line));
		memcpy(line, h, n * sizeof(*h));
		dlb2_movdir64b(pp, line);
	}
}

/* One HCW to PP offset 0, then the sfence that closes it. */
static inline void dlb2_pp_store_sse(uint8_t *pp, const struct dlb2_hcw *h)
{
	_mm_stream_si128((__m128i *)pp, _mm_loadu_si128((const __m128i *)h));
	dlb2_sfence();
}

/*
 * One 16-byte store per HCW, all to PP offset 0; the sfence after each keeps
 * the write-combining buffer from merging two of them.  Four per loop turn.
 */
static inline void dlb2_pp_write_sse(uint8_t *pp, const struct dlb2_hcw *h,
				     unsigned int n)
{
	dlb2_sfence();
	for (; n >= 4; n -= 4, h += 4) {
		dlb2_pp_store_sse(pp, &h[0]);
		dlb2_pp_store_sse(pp, &h[1]);
		dlb2_pp_store_sse(pp, &h[2]);
		dlb2_pp_store_sse(pp, &h[3]);
	}
	for (; n; n--, h++)
		dlb2_pp_store_sse(pp, h);
}

/*
 * The "rep" writers store @n HCWs (n >= 1): n - 1 times @h, then @last (a
 * release: COMPs, the last perhaps a COMP_T), exactly as the writers above
 * store those n HCWs, without the caller building them.
 */
static inline void dlb2_pp_write_rep_movdir64b(uint8_t *pp,
					       const struct dlb2_hcw *h,
					       const struct dlb2_hcw *last,
					       unsigned int n)
{
	struct dlb2_hcw line[4];
	unsigned int i;

	for (i = 0; i < 4; i++)
		line[i] = *h;
	dlb2_sfence();
	for (; n > 4; n -= 4)
		dlb2_movdir64b(pp, line);
	line[n - 1] = *last;
	for (i = n; i < 4; i++)
		memset(&line[i], 0, sizeof(line[i]));
	dlb2_movdir64b(pp, line);
}

static inline void dlb2_pp_write_rep_sse(uint8_t *pp, const struct dlb2_hcw *h,
					 const struct dlb2_hcw *last,
					 unsigned int n)
{
	__m128i v = _mm_loadu_si128((const __m128i *)h);

	dlb2_sfence();
	for (; n > 4; n -= 4) {
		_mm_stream_si128((__m128i *)pp, v);
		dlb2_sfence();
		_mm_stream_si128((__m128i *)pp, v);
		dlb2_sfence();
		_mm_stream_si128((__m128i *)pp, v);
		dlb2_sfence();
		_mm_stream_si128((__m128i *)pp, v);
		dlb2_sfence();
	}
	for (; n > 1; n--) {
		_mm_stream_si128((__m128i *)pp, v);
		dlb2_sfence();
	}
	dlb2_pp_store_sse(pp, last);
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

static inline void dlb2_pp_write_rep_movdir64b(uint8_t *pp,
					       const struct dlb2_hcw *h,
					       const struct dlb2_hcw *last,
					       unsigned int n)
{
	(void)pp; (void)h; (void)last; (void)n;
}

static inline void dlb2_pp_write_rep_sse(uint8_t *pp, const struct dlb2_hcw *h,
					 const struct dlb2_hcw *last,
					 unsigned int n)
{
	for (; n > 1; n--)
		dlb2_pp_write_sse(pp, h, 1);
	dlb2_pp_write_sse(pp, last, 1);
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

static inline void dlb2_pp_write_rep(struct dlb2_port *p,
				     const struct dlb2_hcw *h,
				     const struct dlb2_hcw *last,
				     unsigned int n)
{
	if (p->pp_mode == DLB2_PP_MOVDIR64B) {
		dlb2_pp_write_rep_movdir64b(p->pp, h, last, n);
	} else if (p->pp_mode == DLB2_PP_SSE) {
		dlb2_pp_write_rep_sse(p->pp, h, last, n);
	} else {
		for (; n > 1; n--)
			dlb2_mem_pp_write(p, h, 1);
		dlb2_mem_pp_write(p, last, 1);
	}
}

/* ------------------------------------------------------------ enqueue */

/* What each command does, for the accounting (index: command byte). */
#define DLB2_C_BAD	0x01	/* undefined: never written */
#define DLB2_C_CREDIT	0x02	/* carries a QE: one credit */
#define DLB2_C_COMP	0x04	/* completes the oldest QE */
#define DLB2_C_LDB	0x08	/* load-balanced ports only */
#define DLB2_C_TOK1	0x10	/* returns one token */
#define DLB2_C_TOKN	0x20	/* returns lock_id + 1 tokens */

/* 16 undefined command bytes */
#define DLB2_C_BAD16	DLB2_C_BAD, DLB2_C_BAD, DLB2_C_BAD, DLB2_C_BAD, \
			DLB2_C_BAD, DLB2_C_BAD, DLB2_C_BAD, DLB2_C_BAD, \
			DLB2_C_BAD, DLB2_C_BAD, DLB2_C_BAD, DLB2_C_BAD, \
			DLB2_C_BAD, DLB2_C_BAD, DLB2_C_BAD, DLB2_C_BAD

static inline unsigned int dlb2_cmd_props(uint8_t cmd)
{
	/*
	 * Every byte value, so that no range check is needed; in order,
	 * without designators, so that C++ takes it too.
	 */
	static const uint8_t props[256] = {
		0,						/* NOOP */
		DLB2_C_TOKN,					/* BAT_T */
		DLB2_C_COMP | DLB2_C_LDB,			/* COMP */
		DLB2_C_COMP | DLB2_C_LDB | DLB2_C_TOKN,		/* COMP_T */
		DLB2_C_BAD,					/* 0x4 */
		0,						/* ARM */
		DLB2_C_BAD,					/* 0x6 */
		DLB2_C_BAD,					/* 0x7 */
		DLB2_C_CREDIT,					/* NEW */
		DLB2_C_CREDIT | DLB2_C_TOK1,			/* NEW_T */
		DLB2_C_CREDIT | DLB2_C_COMP | DLB2_C_LDB,	/* FWD */
		DLB2_C_CREDIT | DLB2_C_COMP | DLB2_C_LDB |
			DLB2_C_TOK1,				/* FWD_T */
		DLB2_C_CREDIT | DLB2_C_LDB,			/* FRAG */
		DLB2_C_CREDIT | DLB2_C_LDB | DLB2_C_TOK1,	/* FRAG_T */
		DLB2_C_BAD,					/* 0xe */
		DLB2_C_BAD,					/* 0xf */
		DLB2_C_BAD16, DLB2_C_BAD16, DLB2_C_BAD16,	/* 0x10..0xff */
		DLB2_C_BAD16, DLB2_C_BAD16, DLB2_C_BAD16,
		DLB2_C_BAD16, DLB2_C_BAD16, DLB2_C_BAD16,
		DLB2_C_BAD16, DLB2_C_BAD16, DLB2_C_BAD16,
		DLB2_C_BAD16, DLB2_C_BAD16, DLB2_C_BAD16,
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
static __attribute__((noinline, cold, unused))
int dlb2_enqueue_checked(struct dlb2_port *p, const struct dlb2_hcw *hcw,
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

/* A burst of several commands: what it needs, counted HCW by HCW. */
static __attribute__((noinline, unused))
int dlb2_enqueue_counted(struct dlb2_port *p, const struct dlb2_hcw *hcw,
			 unsigned int n)
{
	unsigned int i, c, cr, all = 0, nqe = 0, ndir = 0, ncomp = 0;

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

/*
 * Bytes 8..15 of an HCW (opaque, qid, sched, lock_id, misc, cmd) as one
 * word, and where the command and the scheduling type are in it.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DLB2_HI_CMD_SHIFT	56
#define DLB2_HI_SCHED_SHIFT	24
#else
#define DLB2_HI_CMD_SHIFT	0
#define DLB2_HI_SCHED_SHIFT	32
#endif
#define DLB2_HI_CMD		(0xffull << DLB2_HI_CMD_SHIFT)
#define DLB2_HI_SCHED_TYPE	(0x3ull << DLB2_HI_SCHED_SHIFT)

static inline uint64_t dlb2_hcw_hi(const struct dlb2_hcw *h)
{
	uint64_t w;

	memcpy(&w, (const uint8_t *)h + 8, sizeof(w));
	return w;
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
	uint64_t any = 0, every = ~0ull, w, diff;
	unsigned int i, c, pool, ndir;

	if (dlb2_unlikely(!n))
		return 0;
	/*
	 * The usual burst: one command.  Two instructions per HCW tell: the
	 * bits that differ between the HCWs are those set in some, not all.
	 */
	for (i = 0; i < n; i++) {
		w = dlb2_hcw_hi(&hcw[i]);
		any |= w;
		every &= w;
	}
	diff = any ^ every;
	if (dlb2_unlikely(diff & DLB2_HI_CMD))
		return dlb2_enqueue_counted(p, hcw, n);
	/* what the one command needs, n times */
	c = dlb2_cmd_props((uint8_t)(every >> DLB2_HI_CMD_SHIFT));
	if (dlb2_unlikely((c & (DLB2_C_BAD | DLB2_C_TOK1 | DLB2_C_TOKN |
				p->deny)) ||
			  ((c & DLB2_C_COMP) && n > p->comps)))
		return dlb2_enqueue_checked(p, hcw, n);
	if (!(c & DLB2_C_CREDIT)) {
		/* no credit needed */
	} else if (dlb2_likely(!p->dir_pool || !(diff & DLB2_HI_SCHED_TYPE))) {
		/* one pool (the scheduling type decides only on DLB 2.0) */
		pool = ((every >> DLB2_HI_SCHED_SHIFT) & 3) ==
		       DLB2_SCHED_DIRECTED ? p->dir_pool : 0;
		if (dlb2_unlikely(!dlb2_credits_have(p, pool, n)))
			return dlb2_enqueue_checked(p, hcw, n);
		p->cache[pool] -= n;
	} else {
		/* DLB 2.0, QEs for load-balanced and directed queues */
		for (i = 0, ndir = 0; i < n; i++)
			ndir += (hcw[i].sched & 3) == DLB2_SCHED_DIRECTED;
		if (!dlb2_credits_have(p, 0, n - ndir) ||
		    !dlb2_credits_have(p, p->dir_pool, ndir))
			return dlb2_enqueue_checked(p, hcw, n);
		p->cache[0] -= n - ndir;
		p->cache[p->dir_pool] -= ndir;
	}
	if (c & DLB2_C_COMP)
		p->comps -= n;
	dlb2_pp_write(p, hcw, n);
	return (int)n;
}

/* BAT_Ts returning @t (>= 1) tokens, 1024 at most each. */
static inline void dlb2_write_bat_t(struct dlb2_port *p, uint32_t t)
{
	struct dlb2_hcw h;

	for (; dlb2_unlikely(t > DLB2_MAX_TOKENS); t -= DLB2_MAX_TOKENS) {
		dlb2_hcw_bat_t(&h, DLB2_MAX_TOKENS);
		dlb2_pp_write(p, &h, 1);
	}
	dlb2_hcw_bat_t(&h, t);
	dlb2_pp_write(p, &h, 1);
}

/* Return every token of QEs dequeued so far. */
static inline void dlb2_return_tokens(struct dlb2_port *p)
{
	uint32_t t = p->tokens;

	if (!t)
		return;
	p->tokens = 0;
	dlb2_write_bat_t(p, t);
}

/**
 * dlb2_release() - complete the @n oldest dequeued QEs (ldb ports)
 *
 * Deferred tokens ride on the last completion (COMP_T).
 * Return: @n, or -EINVAL (directed port, or fewer than @n outstanding).
 */
static inline int dlb2_release(struct dlb2_port *p, unsigned int n)
{
	struct dlb2_hcw comp, last;

	if (dlb2_unlikely(!p->ldb || n > p->comps))
		return -EINVAL;
	if (dlb2_unlikely(!n))
		return 0;
	p->comps -= n;
	dlb2_hcw_comp(&comp);
	if (p->tokens && p->tokens <= DLB2_MAX_TOKENS) {
		dlb2_hcw_comp_t(&last, p->tokens);
		p->tokens = 0;
	} else {
		last = comp;
	}
	dlb2_pp_write_rep(p, &comp, &last, n);
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

/*
 * Copy out up to @k entries from @e on, @stride bytes apart, all of one lap
 * of the ring, so all valid ones carry generation @gen; stop at the first
 * that does not.  Each entry's status byte is read before its data: four
 * status bytes first, then (acquire) the four entries they validate.
 * Inlined with @gen a constant, the check of four is three ANDs (gen 1) or
 * ORs (gen 0) and one test.
 */
static inline __attribute__((always_inline)) unsigned int
dlb2_cq_copy(const uint8_t *e, size_t stride, uint8_t gen,
	     struct dlb2_cq_entry *__restrict out, unsigned int k)
{
	const size_t st = offsetof(struct dlb2_cq_entry, status);
	uint8_t s0, s1, s2, s3, s;
	unsigned int i = k;

	for (; i >= 4; i -= 4, out += 4, e += 4 * stride) {
		s0 = __atomic_load_n(&e[st], __ATOMIC_RELAXED);
		s1 = __atomic_load_n(&e[stride + st], __ATOMIC_RELAXED);
		s2 = __atomic_load_n(&e[2 * stride + st], __ATOMIC_RELAXED);
		s3 = __atomic_load_n(&e[3 * stride + st], __ATOMIC_RELAXED);
		s = gen ? s0 & s1 & s2 & s3 : s0 | s1 | s2 | s3;
		if (dlb2_unlikely((s & DLB2_CQ_GEN) != gen))
			break;		/* the rest one by one */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		memcpy(&out[0], e, sizeof(*out));
		memcpy(&out[1], e + stride, sizeof(*out));
		memcpy(&out[2], e + 2 * stride, sizeof(*out));
		memcpy(&out[3], e + 3 * stride, sizeof(*out));
	}
	for (; i; i--, out++, e += stride) {
		s = __atomic_load_n(&e[st], __ATOMIC_ACQUIRE);
		if ((s & DLB2_CQ_GEN) != gen)
			break;
		memcpy(out, e, sizeof(*out));
	}
	return k - i;
}

static unsigned int dlb2_cq_poll_laps(struct dlb2_port *p,
				      struct dlb2_cq_entry *out,
				      unsigned int max);

/* Copy out up to @max new entries and advance, with no token or credit. */
static inline __attribute__((always_inline)) unsigned int
dlb2_cq_poll(struct dlb2_port *p, struct dlb2_cq_entry *out, unsigned int max)
{
	uint32_t idx = p->cq_idx, step = p->cq_step, mask = p->cq_mask;
	uint32_t off = idx & mask, shift = p->cq_shift;
	const uint8_t *cq = p->cq, *e;
	unsigned int n;
	uint8_t s;

	/*
	 * Up to the end of the ring the entries are of one generation:
	 * a burst of four or more that stays there is copied by groups.
	 */
	if (max >= 4 && off + (uint64_t)max * step <= mask + 1ull) {
		e = cq + (off << 4);
		if (dlb2_cq_gen(p, idx))
			n = dlb2_cq_copy(e, (size_t)step << 4, 1, out, max);
		else
			n = dlb2_cq_copy(e, (size_t)step << 4, 0, out, max);
		p->cq_idx = idx + n * step;
		return n;
	}
	if (dlb2_unlikely(max >= 4))
		return dlb2_cq_poll_laps(p, out, max);
	/* a few: one by one, each with the generation of its lap */
	for (n = 0; n < max; n++, idx += step) {
		e = cq + ((idx & mask) << 4);
		s = __atomic_load_n(&e[offsetof(struct dlb2_cq_entry, status)],
				    __ATOMIC_ACQUIRE);
		if ((s & DLB2_CQ_GEN) != !((idx >> shift) & 1))
			break;
		memcpy(&out[n], e, sizeof(*out));
	}
	p->cq_idx = idx;
	return n;
}

/* The same lap by lap: up to the wrap, then on with the next generation. */
static __attribute__((noinline, unused))
unsigned int dlb2_cq_poll_laps(struct dlb2_port *p, struct dlb2_cq_entry *out,
			       unsigned int max)
{
	unsigned int k, got, n = 0;

	while (n < max) {
		k = (p->cq_mask + 1 - (p->cq_idx & p->cq_mask)) /
		    p->cq_step;
		if (k > max - n)
			k = max - n;
		got = dlb2_cq_poll(p, out + n, k);
		n += got;
		if (got < k)
			break;
	}
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
	bool defer = p->flags & DLB2_OPEN_DEFER_POP;
	uint64_t c;

	if (defer)
		dlb2_return_tokens(p);
	n = dlb2_cq_poll(p, out, max);
	if (!n) {
		if (++p->idle >= p->idle_flush)
			dlb2_dequeue_idle(p);
		return 0;
	}
	p->idle = 0;
	if (p->ldb)
		p->comps += n;
	/* the device gave the credits back to its pool when it scheduled */
	c = p->cache[pool] + n;
	p->cache[pool] = c;
	if (dlb2_unlikely(c >= 2ull * p->quanta))
		dlb2_credits_put(p, pool, c - p->quanta);
	if (defer) {
		p->tokens += n;
	} else {
		/* with those not returned yet, if any */
		c = p->tokens + n;
		p->tokens = 0;
		dlb2_write_bat_t(p, (uint32_t)c);
	}
	return (int)n;
}

#ifdef __cplusplus
}
#endif

#endif /* LIBDLB2_DP_H */
