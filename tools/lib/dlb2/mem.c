// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libdlb2: the in-memory port.  PP, CQ ring and credit page are ordinary
 * memory, so the data path runs unchanged without a device.  The caller
 * plays the device: dlb2_mem_cq_push() schedules a QE into the CQ (gen bit,
 * token limit), and in capture mode every HCW written to the PP is logged
 * and checked against the rules the device enforces (struct dlb2_mem_state).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct dlb2_mem {
	struct dlb2_hcw *log;		/* captured HCWs */
	uint32_t cap, n;
	uint32_t wr;			/* device write index, in entries */
	bool own_credit_page;
	struct dlb2_mem_state st;
};

void dlb2_mem_free(struct dlb2_port *p);

static void *zalloc(size_t align, size_t len)
{
	void *m = aligned_alloc(align, (len + align - 1) & ~(align - 1));

	if (m)
		memset(m, 0, len);
	return m;
}

int dlb2_port_open_mem(const struct dlb2_mem_cfg *cfg,
		       const struct dlb2_port_opts *opts, struct dlb2_port **pp)
{
	struct dlb2_port_info *i;
	struct dlb2_port *p;
	struct dlb2_mem *m;
	uint64_t *page;
	unsigned int k;
	int err;

	*pp = NULL;
	if (cfg->version > DLB2_HW_V2_5 || !cfg->cq_depth || cfg->cq_depth > 1024 ||
	    (cfg->cq_depth & (cfg->cq_depth - 1)) ||
	    (cfg->cq_stride != 16 && cfg->cq_stride != 64))
		return -EINVAL;
	p = zalloc(64, sizeof(*p));
	m = calloc(1, sizeof(*m));
	if (!p || !m)
		goto nomem;
	p->mem = m;
	p->fd = -1;
	i = &p->info;
	i->version = cfg->version;
	i->flags = cfg->ldb ? DLB2_PORT_LDB : 0;
	i->cq_depth = cfg->cq_depth;
	i->cq_entries = cfg->cq_depth < 8 ? 8 : cfg->cq_depth;
	i->cq_stride = cfg->cq_stride;
	i->cq_size = i->cq_entries * i->cq_stride;
	i->hist_list = cfg->ldb ? (cfg->hist_list ?: 2 * cfg->cq_depth) : 0;
	i->num_pools = cfg->version == DLB2_HW_V2 ? 2 : 1;
	for (k = 0; k < i->num_pools; k++)
		i->credits[k] = cfg->credits[k];

	p->pp_map = zalloc(4096, DLB2_PP_SIZE);
	p->pp = p->pp_map;
	p->cq_map = zalloc(4096, i->cq_size);
	p->cq = p->cq_map;
	page = cfg->credit_page;
	if (!page) {
		page = zalloc(4096, DLB2_CREDIT_PAGE_SIZE);
		m->own_credit_page = true;
		for (k = 0; page && k < i->num_pools; k++)
			page[DLB2_CREDIT_POOL_OFFSET(k) / 8] = cfg->credits[k];
	}
	p->credit_map = page;
	if (cfg->capture)
		m->log = calloc(cfg->capture, sizeof(*m->log));
	m->cap = cfg->capture;
	if (!p->pp || !p->cq || !page || (cfg->capture && !m->log))
		goto nomem;
	for (k = 0; k < i->num_pools; k++)
		m->st.hw_credits[k] = page[DLB2_CREDIT_POOL_OFFSET(k) / 8];
	err = dlb2_port_setup(p, opts, page);
	if (err) {
		dlb2_mem_free(p);
		return err;
	}
	if (cfg->capture)
		p->pp_mode = DLB2_PP_CAPTURE;
	*pp = p;
	return 0;
nomem:
	if (p && p->mem)
		dlb2_mem_free(p);
	else
		free(p), free(m);
	return -ENOMEM;
}

void dlb2_mem_free(struct dlb2_port *p)
{
	struct dlb2_mem *m = p->mem;

	free(p->pp_map);
	free(p->cq_map);
	if (m->own_credit_page)
		free(p->credit_map);
	free(m->log);
	free(m);
	free(p);
}

static unsigned int entry_pool(const struct dlb2_port *p, uint8_t sched)
{
	return (sched & 3) == DLB2_SCHED_DIRECTED ? p->dir_pool : 0;
}

int dlb2_mem_cq_push(struct dlb2_port *p, const struct dlb2_cq_entry *e)
{
	struct dlb2_mem *m = p->mem;
	struct dlb2_cq_entry *slot;
	uint32_t entries = p->info.cq_entries;
	uint8_t gen;

	if (!m)
		return -EINVAL;
	if (m->st.tokens_out >= p->info.cq_depth)
		return -ENOSPC;
	slot = (struct dlb2_cq_entry *)((uint8_t *)p->cq_map +
					(m->wr & (entries - 1)) * p->info.cq_stride);
	/* 1 on the first pass over the ring, 0 on the second, ... */
	gen = !((m->wr / entries) & 1);
	memcpy(slot, e, offsetof(struct dlb2_cq_entry, status));
	__atomic_store_n(&slot->status, (uint8_t)((e->status & ~DLB2_CQ_GEN) | gen),
			 __ATOMIC_RELEASE);
	m->wr++;
	m->st.tokens_out++;
	if (p->ldb)
		m->st.comps_out++;
	/* the device frees the QE's storage: its credit goes back */
	m->st.hw_credits[entry_pool(p, e->sched)]++;
	return 0;
}

/* Check one HCW as the device would. */
static void mem_check(struct dlb2_port *p, const struct dlb2_hcw *h)
{
	struct dlb2_mem_state *st = &p->mem->st;
	unsigned int c = dlb2_cmd_props(h->cmd), tok, pool;

	if ((c & DLB2_C_BAD) || ((c & DLB2_C_LDB) && !p->ldb)) {
		st->alarms++;
		return;
	}
	tok = c & DLB2_C_TOKN ? (h->lock_id & 0x3ff) + 1u :
	      c & DLB2_C_TOK1 ? 1u : 0u;
	if (tok > st->tokens_out) {
		st->alarms++;
		tok = st->tokens_out;
	}
	st->tokens_out -= tok;
	st->tokens_returned += tok;
	if (c & DLB2_C_COMP) {
		if (st->comps_out)
			st->comps_out--;
		else
			st->alarms++;
		st->comps++;
	}
	if (c & DLB2_C_CREDIT) {
		pool = dlb2_hcw_pool(p, h);
		if (st->hw_credits[pool] > 0)
			st->hw_credits[pool]--;
		else
			st->alarms++;
		st->enqueued++;
	}
	if (h->cmd == DLB2_CMD_ARM)
		st->arms++;
}

void dlb2_mem_pp_write(struct dlb2_port *p, const struct dlb2_hcw *hcw,
		       unsigned int n)
{
	struct dlb2_mem *m = p->mem;

	for (; n; n--, hcw++) {
		if (hcw->cmd == DLB2_CMD_NOOP)
			continue;
		if (m->n < m->cap)
			m->log[m->n++] = *hcw;
		m->st.hcws++;
		mem_check(p, hcw);
	}
}

const struct dlb2_hcw *dlb2_mem_hcws(struct dlb2_port *p, unsigned int *n)
{
	*n = p->mem ? p->mem->n : 0;
	return p->mem ? p->mem->log : NULL;
}

void dlb2_mem_clear(struct dlb2_port *p)
{
	if (p->mem)
		p->mem->n = 0;
}

const struct dlb2_mem_state *dlb2_mem_state(struct dlb2_port *p)
{
	return p->mem ? &p->mem->st : NULL;
}
