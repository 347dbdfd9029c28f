// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libaccdirect's pure logic (accdirect.h): request encoding, QEs into
 * lines, the credit cache, what a dead agent's grant slot gives back, the
 * signalling cadence of a send queue and the client's window.  No RDMA here; tests/test-logic.c checks all of it.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accdirect.h"

int accd_meta_encode(struct accd_meta *m, uint64_t req, uint64_t addr,
		     uint16_t size, const struct accd_qe_attr *a)
{
	static const struct accd_qe_attr dflt = {
		.sched_type = ACCD_SCHED_QUEUE,
	};

	if (!a)
		a = &dflt;
	if (a->sched_type > ACCD_SCHED_QUEUE || a->prio > 7)
		return -EINVAL;
	m->addr = addr;
	m->size = size;
	m->flow = a->flow;
	m->queue = a->queue;
	m->sched = DLB2_SCHED(a->sched_type, a->prio);
	/* last: the agent takes the entry once it sees this */
	__atomic_store_n(&m->seq, (uint16_t)(req + 1), __ATOMIC_RELEASE);
	return 0;
}

bool accd_meta_to_hcw(const struct accd_meta *m, const struct accd_queue_map *q,
		      struct dlb2_hcw *h)
{
	unsigned int i = m->queue, type = m->sched & 3;
	bool ok = i < q->nr;

	if (!ok)
		i = 0;
	if (type == ACCD_SCHED_QUEUE)
		type = q->sched[i] & 3;
	h->data = m->addr;
	h->opaque = m->size;
	h->qid = q->qid[i];
	h->sched = DLB2_SCHED(type, (m->sched >> 2) & 7);
	h->lock_id = m->flow;
	h->misc = 0;
	h->cmd = DLB2_CMD_NEW;
	return ok;
}

unsigned int accd_pack_lines(struct dlb2_hcw (*lines)[ACCD_QES_PER_LINE],
			     unsigned int max_lines, const struct dlb2_hcw *qes,
			     unsigned int n)
{
	unsigned int l, k;

	if (n > max_lines * ACCD_QES_PER_LINE)
		n = max_lines * ACCD_QES_PER_LINE;
	for (l = 0; n; l++, qes += k, n -= k) {
		k = n < ACCD_QES_PER_LINE ? n : ACCD_QES_PER_LINE;
		memcpy(lines[l], qes, k * sizeof(*qes));
		/* unused slots are NOOPs: all zero */
		memset(&lines[l][k], 0, (ACCD_QES_PER_LINE - k) * sizeof(*qes));
	}
	return l;
}

uint64_t accd_credits_portion(const struct accd_credits *c, uint64_t avail,
			      uint64_t need)
{
	uint64_t want;

	if (c->cache >= need)
		return 0;
	want = need - c->cache;
	if (want < c->quanta)
		want = c->quanta;
	return want < avail ? want : avail;
}

uint64_t accd_credits_ahead(const struct accd_credits *c, uint64_t avail,
			    unsigned int producers)
{
	uint64_t want = avail / (producers ? producers : 1);

	if (c->cache >= c->quanta)
		return 0;
	if (want < c->quanta)
		want = c->quanta;
	return want < avail ? want : avail;
}

void accd_credits_add(struct accd_credits *c, uint64_t n)
{
	c->cache += n;
	c->taken += n;
	c->takes++;
}

uint64_t accd_credits_spend(struct accd_credits *c, uint64_t n)
{
	if (n > c->cache)
		n = c->cache;
	c->cache -= n;
	c->spent += n;
	return n;
}

uint64_t accd_credits_drain(struct accd_credits *c)
{
	uint64_t n = c->cache;

	c->cache = 0;
	c->returned += n;
	return n;
}

void accd_grant_reclaim(const struct accd_grant *g, struct accd_reclaim *r)
{
	const struct accd_grant_state *st = &g->s;

	*r = (struct accd_reclaim){ 0 };
	/* never more than was taken: that would make credits */
	if (st->spent > st->taken || st->returned > st->taken - st->spent ||
	    st->folded > st->begun || st->begun - st->folded > 1) {
		r->bad = true;
		return;
	}
	r->held = st->taken - st->spent - st->returned;
	if (st->folded == st->begun)
		return;
	/* take @begun in flight: its result, if its fenced write landed */
	if (g->cas_take != st->begun)
		r->doubt = st->portion;
	else if (g->cas_old == st->expect)
		r->held += st->portion;
}

bool accd_lease_expired(uint64_t beat, double now, double lease,
			uint64_t *last_beat, double *last_seen)
{
	if (beat != *last_beat) {
		*last_beat = beat;
		*last_seen = now;
		return false;
	}
	return lease > 0 && now - *last_seen > lease;
}

void accd_sq_init(struct accd_sq *q, uint32_t depth, uint32_t signal_every)
{
	memset(q, 0, sizeof(*q));
	q->depth = depth ? depth : 1;
	if (!signal_every || signal_every > q->depth)
		signal_every = q->depth;
	q->signal_every = signal_every;
}

bool accd_sq_post(struct accd_sq *q, bool force)
{
	bool sig = force || q->posted % q->signal_every == q->signal_every - 1;

	q->posted++;
	q->signalled += sig;
	return sig;
}

void accd_sq_complete(struct accd_sq *q, uint64_t id)
{
	if (id + 1 > q->completed && id < q->posted)
		q->completed = id + 1;
}

uint64_t accd_sq_done_tag(const struct accd_sq *q, const uint64_t *tags,
			  uint64_t before, uint64_t cur)
{
	if (q->completed == before)
		return cur;
	return tags[(q->completed - 1) % q->depth];
}

int accd_backoff_parse(const char *s, struct accd_backoff *b)
{
	unsigned int *f[3] = { &b->spin, &b->yield, &b->sleep_us };
	unsigned long v;
	unsigned int i;
	char *end;

	*b = (struct accd_backoff){ 0 };
	for (i = 0; i < 3; i++) {
		if (*s != ',' && *s) {
			if (*s < '0' || *s > '9')
				return -EINVAL;
			v = strtoul(s, &end, 10);
			if (v > 1000000)
				return -EINVAL;
			*f[i] = v;
			s = end;
		}
		if (!*s)
			return 0;
		if (*s++ != ',' || i == 2)
			return -EINVAL;
	}
	return -EINVAL;
}

void accd_backoff_wait(const struct accd_backoff *b, unsigned int *idle)
{
	unsigned int spin = b->spin ? b->spin : 4;
	unsigned int yield = b->yield ? b->yield : 32;

	if (++*idle < spin)
		return;
	if (*idle < yield)
		sched_yield();
	else
		usleep(b->sleep_us ? b->sleep_us : 20);
}

int accd_window_init(struct accd_window *w, uint32_t size, uint32_t nr_slots)
{
	memset(w, 0, sizeof(*w));
	if (!nr_slots || !size || size > nr_slots)
		return -EINVAL;
	w->done = calloc(nr_slots, 1);
	if (!w->done)
		return -ENOMEM;
	w->size = size;
	w->nr_slots = nr_slots;
	return 0;
}

void accd_window_fini(struct accd_window *w)
{
	free(w->done);
	w->done = NULL;
}

int accd_window_open(struct accd_window *w, uint64_t *req)
{
	if (accd_window_full(w))
		return -EAGAIN;
	w->done[w->next % w->nr_slots] = 0;
	*req = w->next++;
	return 0;
}

int64_t accd_window_answer(struct accd_window *w, uint32_t slot)
{
	uint64_t req;

	if (slot >= w->nr_slots || w->oldest == w->next)
		return -EINVAL;
	/* the request in flight in @slot: the one in [oldest, next) */
	req = w->oldest + (slot + w->nr_slots - w->oldest % w->nr_slots) %
			  w->nr_slots;
	if (req >= w->next || w->done[slot])
		return -EINVAL;
	w->done[slot] = 1;
	while (w->oldest < w->next && w->done[w->oldest % w->nr_slots])
		w->oldest++;
	return (int64_t)req;
}
