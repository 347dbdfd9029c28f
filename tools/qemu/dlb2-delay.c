/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel DLB 2.0 / 2.5 device model: delayed effects of posted writes.
 *
 * Writes to the device are posted: how long after a store a HCW or a CSR
 * write takes effect inside the device, the facts do not say (they keep
 * DPDK's "flush" reads, facts §10, without saying what they wait for).
 * By default the model applies both inside the MMIO write.  Two
 * properties delay them, CHOICE, so that a driver that relies on an
 * effect it did not wait for fails against the model:
 *
 *   ingress-delay=NS     a HCW takes effect NS ns (virtual time) after the
 *                        write that completed it; nothing hurries it, as
 *                        nothing but polling tells software that the
 *                        device took a HCW;
 *   csr-write-delay=NS   a CSR write takes effect NS ns after it, or at
 *                        the next read of the device (a CSR or a producer
 *                        port), whichever comes first: a read flushes the
 *                        posted writes before it, as PCIe's ordering does
 *                        (a read completion does not pass posted writes).
 *
 * Each stream keeps its own order.  A HCW does not wait for the CSR writes
 * before it, nor a CSR write for HCWs (their effects are in different
 * parts of the device), CHOICE.  What is due is applied at every access to
 * the device and by a timer; a reset drops what is still posted.
 */
#include "qemu/osdep.h"
#include "dlb2.h"

typedef struct DLB2Posted {
    int64_t due;            /* QEMU_CLOCK_VIRTUAL */
    uint64_t seq;           /* order across both streams at equal due */
    bool is_csr;
    bool is_ldb;            /* HCW: LDB or DIR port */
    uint32_t port;          /* HCW: the port; CSR: the offset */
    uint32_t val;           /* CSR: the value */
    DLB2HCW hcw;
} DLB2Posted;

static void dlb2_delay_arm(DLB2State *s)
{
    DLB2Posted *h = g_queue_peek_head(s->posted_hcws);
    DLB2Posted *c = g_queue_peek_head(s->posted_csrs);
    int64_t due;

    if (!h && !c) {
        timer_del(s->delay_timer);
        return;
    }
    due = h && c ? MIN(h->due, c->due) : h ? h->due : c->due;
    timer_mod(s->delay_timer, due);
}

static void dlb2_posted_apply(DLB2State *s, DLB2Posted *p)
{
    if (p->is_csr) {
        dlb2_csr_apply(s, p->port, p->val);
    } else {
        dlb2_hcw_process(s, p->is_ldb, p->port, &p->hcw);
    }
    g_free(p);
}

/*
 * Apply the posted writes that are due (all CSR writes too with
 * flush_csr), oldest first.
 */
static void dlb2_delay_run(DLB2State *s, bool flush_csr)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    if (s->in_delay) {
        return;
    }
    s->in_delay = true;
    for (;;) {
        DLB2Posted *h = g_queue_peek_head(s->posted_hcws);
        DLB2Posted *c = g_queue_peek_head(s->posted_csrs);
        bool h_due = h && h->due <= now;
        bool c_due = c && (flush_csr || c->due <= now);

        if (h_due && (!c_due || h->seq < c->seq)) {
            dlb2_posted_apply(s, g_queue_pop_head(s->posted_hcws));
        } else if (c_due) {
            dlb2_posted_apply(s, g_queue_pop_head(s->posted_csrs));
        } else {
            break;
        }
    }
    s->in_delay = false;
    dlb2_delay_arm(s);
}

static bool dlb2_posted_any(DLB2State *s)
{
    return !g_queue_is_empty(s->posted_hcws) ||
           !g_queue_is_empty(s->posted_csrs);
}

void dlb2_delay_due(DLB2State *s)
{
    if (dlb2_posted_any(s)) {
        dlb2_delay_run(s, false);
    }
}

void dlb2_csr_flush(DLB2State *s)
{
    if (!g_queue_is_empty(s->posted_csrs)) {
        dlb2_delay_run(s, true);
    }
}

static void dlb2_post(DLB2State *s, GQueue *q, DLB2Posted *p, uint32_t ns)
{
    p->due = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + ns;
    p->seq = s->posted_seq++;
    g_queue_push_tail(q, p);
    if (!s->in_delay) {
        dlb2_delay_arm(s);  /* the other stream's head may be due later */
    }
}

bool dlb2_ingress_post(DLB2State *s, bool is_ldb, unsigned int port,
                       const DLB2HCW *hcw)
{
    DLB2Posted *p;

    if (!s->ingress_delay_ns) {
        return false;
    }
    p = g_new0(DLB2Posted, 1);
    p->is_ldb = is_ldb;
    p->port = port;
    p->hcw = *hcw;
    dlb2_post(s, s->posted_hcws, p, s->ingress_delay_ns);
    return true;
}

bool dlb2_csr_post(DLB2State *s, hwaddr addr, uint32_t val)
{
    DLB2Posted *p;

    if (!s->csr_delay_ns) {
        return false;
    }
    p = g_new0(DLB2Posted, 1);
    p->is_csr = true;
    p->port = addr;
    p->val = val;
    dlb2_post(s, s->posted_csrs, p, s->csr_delay_ns);
    return true;
}

static void dlb2_delay_timer_cb(void *opaque)
{
    dlb2_delay_run(opaque, false);
}

void dlb2_delay_init(DLB2State *s)
{
    s->delay_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, dlb2_delay_timer_cb, s);
    s->posted_hcws = g_queue_new();
    s->posted_csrs = g_queue_new();
}

/* A reset drops the writes still posted: CHOICE. */
void dlb2_delay_reset(DLB2State *s)
{
    DLB2Posted *p;

    timer_del(s->delay_timer);
    while ((p = g_queue_pop_head(s->posted_hcws))) {
        g_free(p);
    }
    while ((p = g_queue_pop_head(s->posted_csrs))) {
        g_free(p);
    }
    s->posted_seq = 0;
}

void dlb2_delay_fini(DLB2State *s)
{
    dlb2_delay_reset(s);
    timer_free(s->delay_timer);
    g_queue_free(s->posted_hcws);
    g_queue_free(s->posted_csrs);
}
