/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel DLB 2.0 / 2.5 device model: queues, scheduling and CQ writes.
 *
 * Directed queue q feeds directed CQ q.  An LDB CQ takes work from the
 * queues mapped to its (up to 8) slots: the highest-priority slot first,
 * round-robin among slots of equal priority, then the highest-priority QE of
 * that queue (facts section 7.2).  Atomic QEs follow their flow's pinning,
 * ordered QEs get a sequence number and come out of the reorder buffer in
 * order (7.4-7.6).  A QE is written to the CQ ring by DMA with the
 * generation bit of the ring's current lap (4.2); that returns its credit
 * to the domain (5.1).
 *
 * Scheduling runs synchronously after every producer-port command and CSR
 * write, until no CQ can take more work.  The choices this file makes where
 * the facts are silent are listed in Documentation/qemu-dlb2-model.rst.
 */
#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "dlb2.h"
#include "trace.h"

#define DLB2_CSR_CTRL_SPARSE_LDB    (1u << 17)
#define DLB2_CSR_CTRL_SPARSE_DIR    (1u << 18)

static unsigned int dlb2_prio_bin(const DLB2HCW *hcw)
{
    return ((hcw->sched >> 2) & 7) >> 1;    /* model choice: 4 levels */
}

/* Hardware ring size of a CQ in entries (4 << select), 0 if unconfigured. */
static unsigned int dlb2_cq_depth(DLB2State *s, bool is_ldb,
                                  unsigned int port)
{
    unsigned int sel = dlb2_reg(s, is_ldb ? DLB2_R_CHP_LDB_CQ_TKN_DEPTH_SEL :
                                            DLB2_R_CHP_DIR_CQ_TKN_DEPTH_SEL,
                                port) & 0xf;

    return sel >= 1 && sel <= 8 ? 4u << sel : 0;
}

static bool dlb2_cq_can_take(DLB2State *s, bool is_ldb, unsigned int port)
{
    unsigned int depth = dlb2_cq_depth(s, is_ldb, port);
    uint32_t tokens = dlb2_port(s, is_ldb, port)->tokens;

    if (dlb2_reg(s, is_ldb ? DLB2_R_LSP_CQ_LDB_DSBL : DLB2_R_LSP_CQ_DIR_DSBL,
                 port) & 1) {
        return false;
    }
    return depth && tokens < depth;
}

/* Congestion bucket of the source queue reported in the CQ entry (4.1). */
static unsigned int dlb2_depth_bucket(uint32_t depth, uint32_t thresh)
{
    if (depth > thresh) {
        return 3;
    }
    if (depth * 4 > thresh * 3) {
        return 2;
    }
    if (depth * 2 > thresh) {
        return 1;
    }
    return 0;
}

/* Write one QE into a CQ ring: data first, the byte with the gen bit last. */
static void dlb2_cq_write(DLB2State *s, bool is_ldb, unsigned int port,
                          const DLB2HCW *hcw, unsigned int qid,
                          unsigned int bucket)
{
    unsigned int depth = dlb2_cq_depth(s, is_ldb, port);
    uint32_t *wptr = &dlb2_port(s, is_ldb, port)->wptr;
    uint32_t sparse_bit = is_ldb ? DLB2_CSR_CTRL_SPARSE_LDB :
                                   DLB2_CSR_CTRL_SPARSE_DIR;
    bool sparse = dlb2_reg(s, DLB2_R_CHP_CFG_CHP_CSR_CTRL, 0) & sparse_bit;
    uint64_t base = (uint64_t)dlb2_reg(s, is_ldb ? DLB2_R_SYS_LDB_CQ_ADDR_U :
                                                   DLB2_R_SYS_DIR_CQ_ADDR_U,
                                       port) << 32 |
                    (dlb2_reg(s, is_ldb ? DLB2_R_SYS_LDB_CQ_ADDR_L :
                                          DLB2_R_SYS_DIR_CQ_ADDR_L, port) &
                     ~0x3fu);
    unsigned int slot = *wptr % depth;
    uint8_t gen = (*wptr / depth) & 1 ? 0 : 1;
    uint64_t addr = base + slot * (sparse ? 64 : 16);
    uint8_t e[16];

    stq_le_p(e, hcw->data);
    stw_le_p(e + 8, hcw->opaque);
    e[10] = qid;
    e[11] = hcw->sched;
    stw_le_p(e + 12, hcw->lock_id);
    e[14] = 0;
    e[15] = gen | bucket << 1;
    pci_dma_write(PCI_DEVICE(s), addr, e, 15);
    smp_wmb();  /* a poller must not see the gen bit before the data */
    pci_dma_write(PCI_DEVICE(s), addr + 15, e + 15, 1);
    trace_dlb2_cq_write(is_ldb ? "ldb" : "dir", port, slot, gen, addr,
                        hcw->data);
    (*wptr)++;
}

/* After a QE went into a CQ: token, credit, counters, interrupt. */
static void dlb2_scheduled(DLB2State *s, bool is_ldb, unsigned int port,
                           DLB2QE *qe)
{
    bool to_ldb = (qe->hcw.sched & 3) != DLB2_SCHED_DIRECTED;
    DLB2Port *p = dlb2_port(s, is_ldb, port);

    p->tokens++;
    p->sched_count++;
    if (is_ldb) {
        s->ldb_sched_total++;
    } else {
        s->dir_sched_total++;
    }
    dlb2_credit_return(s, qe->domain, to_ldb);
    g_free(qe);
    dlb2_cq_irq_check(s, is_ldb, port);
}

/* Directed queue enqueue. */
void dlb2_dir_enqueue(DLB2State *s, DLB2QE *qe)
{
    DLB2DirQueue *q = &s->dir_queue[qe->hcw.qid];

    QTAILQ_INSERT_TAIL(&q->waiting[dlb2_prio_bin(&qe->hcw)], qe, next);
    q->depth++;
    s->dir_waiting++;
    q->enq_total++;
    trace_dlb2_enqueue("dir", qe->hcw.qid, qe->hcw.sched, qe->hcw.data);
}

void dlb2_ldb_enqueue(DLB2State *s, DLB2QE *qe)
{
    DLB2LdbQueue *q = &s->ldb_queue[qe->hcw.qid];

    QTAILQ_INSERT_TAIL(&q->waiting[dlb2_prio_bin(&qe->hcw)], qe, next);
    s->ldb_waiting++;
    if ((qe->hcw.sched & 3) == DLB2_SCHED_ATOMIC) {
        q->atomic++;
        q->enq_total_atm++;
    } else {
        q->nonatomic++;
        q->enq_total_naldb++;
    }
    trace_dlb2_enqueue("ldb", qe->hcw.qid, qe->hcw.sched, qe->hcw.data);
}

static bool dlb2_sched_dir(DLB2State *s, unsigned int port)
{
    DLB2DirQueue *q = &s->dir_queue[port];
    unsigned int bin;
    DLB2QE *qe;

    if (!q->depth || !dlb2_cq_can_take(s, false, port)) {
        return false;
    }
    for (bin = 0; bin < DLB2_NUM_PRIO_BINS; bin++) {
        qe = QTAILQ_FIRST(&q->waiting[bin]);
        if (qe) {
            break;
        }
    }
    QTAILQ_REMOVE(&q->waiting[bin], qe, next);
    q->depth--;
    s->dir_waiting--;
    dlb2_cq_write(s, false, port, &qe->hcw, port,
                  dlb2_depth_bucket(q->depth,
                                    dlb2_reg(s, DLB2_R_LSP_QID_DIR_DEPTH_THRSH,
                                             port)));
    dlb2_scheduled(s, false, port, qe);
    return true;
}

/* Flow of an atomic QE after lock-ID compression (AQED_QID_HID_WIDTH). */
static uint16_t dlb2_flow_id(DLB2State *s, unsigned int qid, uint16_t lock_id)
{
    unsigned int code = dlb2_reg(s, DLB2_R_AQED_QID_HID_WIDTH, qid) & 7;

    /* Model choice: compression keeps the low bits of the lock ID. */
    return code ? lock_id % (32u << code) : lock_id;
}

static DLB2Flow *dlb2_flow(DLB2LdbQueue *q, uint16_t flow, bool create)
{
    DLB2Flow *f = g_hash_table_lookup(q->flows, GUINT_TO_POINTER(flow));

    if (!f && create) {
        f = g_new0(DLB2Flow, 1);
        f->cq = -1;
        g_hash_table_insert(q->flows, GUINT_TO_POINTER(flow), f);
    }
    return f;
}

static unsigned int dlb2_num_sns(DLB2State *s, unsigned int qid)
{
    unsigned int mode = dlb2_reg(s, DLB2_R_CHP_ORD_QID_SN_MAP, qid) & 7;

    return 64u << MIN(mode, 4u);
}

/* Pick the QE queue q can give CQ c now, or NULL. */
static DLB2QE *dlb2_pick(DLB2State *s, unsigned int qid, unsigned int cq,
                         unsigned int *bin_out)
{
    DLB2LdbQueue *q = &s->ldb_queue[qid];
    uint32_t aqed_lim = dlb2_reg(s, DLB2_R_LSP_QID_AQED_ACTIVE_LIM, qid) &
                        0xfff;
    uint32_t fid_lim = dlb2_reg(s, DLB2_R_AQED_QID_FID_LIM, qid) & 0x1fff;
    unsigned int bin;
    DLB2QE *qe;

    for (bin = 0; bin < DLB2_NUM_PRIO_BINS; bin++) {
        QTAILQ_FOREACH(qe, &q->waiting[bin], next) {
            unsigned int type = qe->hcw.sched & 3;
            DLB2Flow *f;

            if (type == DLB2_SCHED_ORDERED) {
                if (q->sn_busy >= dlb2_num_sns(s, qid)) {
                    continue;
                }
            } else if (type == DLB2_SCHED_ATOMIC) {
                f = dlb2_flow(q, dlb2_flow_id(s, qid, qe->hcw.lock_id), false);
                if (f && f->cq >= 0) {
                    if (f->cq != cq) {
                        continue;       /* pinned elsewhere (7.4) */
                    }
                } else if (q->aqed_active >= aqed_lim ||
                           g_hash_table_size(q->flows) >= fid_lim) {
                    continue;           /* no room for another active flow */
                }
            }
            *bin_out = bin;
            return qe;
        }
    }
    return NULL;
}

static bool dlb2_sched_ldb(DLB2State *s, unsigned int cq)
{
    DLB2LdbPort *p = &s->ldb_port[cq];
    uint32_t priov = dlb2_reg(s, DLB2_R_LSP_CQ2PRIOV, cq);
    uint64_t cq2qid = dlb2_reg(s, DLB2_R_LSP_CQ2QID0, cq) |
                      (uint64_t)dlb2_reg(s, DLB2_R_LSP_CQ2QID1, cq) << 32;
    uint32_t hl_lim = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_LIM, cq) & 0x1fff;
    uint32_t hl_base = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_BASE, cq) & 0x1fff;
    uint32_t hl_size = hl_lim - hl_base + 1;
    uint32_t infl_lim = dlb2_reg(s, DLB2_R_LSP_CQ_LDB_INFL_LIM, cq) & 0xfff;
    unsigned int prio, i, bin;
    uint32_t thresh;

    if (!(priov >> 24) || !dlb2_cq_can_take(s, true, cq) ||
        p->hist_count >= MIN(infl_lim, hl_size)) {
        return false;
    }
    /* Slots by priority (0 first), round-robin inside a priority. */
    for (prio = 0; prio < 8; prio++) {
        for (i = 0; i < DLB2_QID_SLOTS; i++) {
            unsigned int slot = (p->rr_slot + i) % DLB2_QID_SLOTS;
            unsigned int qid = (cq2qid >> (8 * slot)) & 0x7f;
            DLB2LdbQueue *q;
            DLB2HistEntry *e;
            DLB2QE *qe;

            if (!(priov & (1u << (24 + slot))) ||
                ((priov >> (3 * slot)) & 7) != prio ||
                qid >= DLB2_NUM_LDB_QUEUES) {
                continue;
            }
            q = &s->ldb_queue[qid];
            if (!(q->atomic + q->nonatomic) ||
                !(dlb2_reg(s, DLB2_R_SYS_LDB_QID_V, qid) & 1) ||
                q->inflight >= (dlb2_reg(s, DLB2_R_LSP_QID_LDB_INFL_LIM, qid) &
                                0xfff)) {
                continue;
            }
            qe = dlb2_pick(s, qid, cq, &bin);
            if (!qe) {
                continue;
            }

            QTAILQ_REMOVE(&q->waiting[bin], qe, next);
            s->ldb_waiting--;
            e = &p->hist[(p->hist_head + p->hist_count) %
                         DLB2_HIST_LIST_ENTRIES];
            p->hist_count++;
            q->inflight++;
            e->qid = qid;
            e->sched_type = qe->hcw.sched & 3;
            if (e->sched_type == DLB2_SCHED_ATOMIC) {
                DLB2Flow *f;

                e->flow = dlb2_flow_id(s, qid, qe->hcw.lock_id);
                f = dlb2_flow(q, e->flow, true);
                f->cq = cq;
                f->inflight++;
                q->atomic--;
                q->aqed_active++;
            } else {
                q->nonatomic--;
                if (e->sched_type == DLB2_SCHED_ORDERED) {
                    e->sn = q->sn_next;
                    q->sns[e->sn].busy = true;
                    q->sns[e->sn].done = false;
                    q->sn_next = (q->sn_next + 1) % dlb2_num_sns(s, qid);
                    q->sn_busy++;
                }
            }
            p->rr_slot = (slot + 1) % DLB2_QID_SLOTS;
            thresh = dlb2_reg(s, DLB2_R_LSP_QID_NALDB_DEPTH_THRSH, qid);
            dlb2_cq_write(s, true, cq, &qe->hcw, qid,
                          dlb2_depth_bucket(q->atomic + q->nonatomic, thresh));
            trace_dlb2_schedule(cq, qid, e->sched_type, e->flow, e->sn);
            dlb2_scheduled(s, true, cq, qe);
            return true;
        }
    }
    return false;
}

/* Release the QEs of completed sequence numbers, oldest first (7.6). */
static void dlb2_ordered_release(DLB2State *s, unsigned int qid)
{
    DLB2LdbQueue *q = &s->ldb_queue[qid];
    unsigned int n = dlb2_num_sns(s, qid);

    while (q->sn_busy && q->sns[q->sn_oldest].done) {
        DLB2SeqNum *sn = &q->sns[q->sn_oldest];
        DLB2QE *qe;

        while ((qe = QTAILQ_FIRST(&sn->frags))) {
            QTAILQ_REMOVE(&sn->frags, qe, next);
            dlb2_qe_route(s, qe);
        }
        sn->busy = sn->done = false;
        q->sn_busy--;
        q->sn_oldest = (q->sn_oldest + 1) % n;
    }
}

void dlb2_ordered_attach(DLB2State *s, const DLB2HistEntry *e, DLB2QE *qe)
{
    QTAILQ_INSERT_TAIL(&s->ldb_queue[e->qid].sns[e->sn].frags, qe, next);
}

/* A completion retired history entry e of LDB CQ port. */
void dlb2_ldb_retire(DLB2State *s, unsigned int port, const DLB2HistEntry *e)
{
    DLB2LdbQueue *q = &s->ldb_queue[e->qid];

    q->inflight--;
    if (e->sched_type == DLB2_SCHED_ATOMIC) {
        DLB2Flow *f = dlb2_flow(q, e->flow, false);

        q->aqed_active--;
        if (f && --f->inflight == 0) {
            g_hash_table_remove(q->flows, GUINT_TO_POINTER(e->flow));
        }
    } else if (e->sched_type == DLB2_SCHED_ORDERED) {
        q->sns[e->sn].done = true;
        dlb2_ordered_release(s, e->qid);
    }
}

/* LSP_LDB_SCHED_CTRL: the model recomputes has-work state on its own. */
void dlb2_sched_ctrl(DLB2State *s, uint32_t val)
{
    trace_dlb2_sched_ctrl(val);
}

void dlb2_schedule(DLB2State *s)
{
    unsigned int ndir = dlb2_num_dir_ports(s->ver), p;
    bool progress;

    if (s->in_schedule) {
        s->schedule_again = true;   /* e.g. a CQ write that hit our BAR */
        return;
    }
    s->in_schedule = true;
    do {
        s->schedule_again = false;
        do {
            progress = false;
            for (p = 0; s->dir_waiting && p < ndir; p++) {
                progress |= dlb2_sched_dir(s, p);
            }
            /* One QE per CQ per round: round-robin over eligible CQs. */
            for (p = 0; s->ldb_waiting && p < DLB2_NUM_LDB_PORTS; p++) {
                progress |= dlb2_sched_ldb(s, (s->rr_cq + p) %
                                              DLB2_NUM_LDB_PORTS);
            }
            s->rr_cq = (s->rr_cq + 1) % DLB2_NUM_LDB_PORTS;
        } while (progress);
    } while (s->schedule_again);
    s->in_schedule = false;
}

static void dlb2_qe_list_free(DLB2QEList *l)
{
    DLB2QE *qe;

    while ((qe = QTAILQ_FIRST(l))) {
        QTAILQ_REMOVE(l, qe, next);
        g_free(qe);
    }
}

void dlb2_sched_init(DLB2State *s)
{
    unsigned int i, b, n;

    for (i = 0; i < DLB2_NUM_LDB_PORTS; i++) {
        s->ldb_port[i].hist = g_new0(DLB2HistEntry, DLB2_HIST_LIST_ENTRIES);
    }
    for (i = 0; i < DLB2_NUM_LDB_QUEUES; i++) {
        DLB2LdbQueue *q = &s->ldb_queue[i];

        for (b = 0; b < DLB2_NUM_PRIO_BINS; b++) {
            QTAILQ_INIT(&q->waiting[b]);
        }
        q->flows = g_hash_table_new_full(g_direct_hash, g_direct_equal,
                                         NULL, g_free);
        q->sns = g_new0(DLB2SeqNum, DLB2_MAX_SNS);
        for (n = 0; n < DLB2_MAX_SNS; n++) {
            QTAILQ_INIT(&q->sns[n].frags);
        }
    }
    for (i = 0; i < DLB2_MAX_DIR_PORTS; i++) {
        for (b = 0; b < DLB2_NUM_PRIO_BINS; b++) {
            QTAILQ_INIT(&s->dir_queue[i].waiting[b]);
        }
    }
}

/* Device reset: every QE, flow, sequence number and counter goes. */
void dlb2_sched_reset(DLB2State *s)
{
    unsigned int i, b, n;

    for (i = 0; i < DLB2_NUM_LDB_PORTS; i++) {
        DLB2LdbPort *p = &s->ldb_port[i];
        DLB2HistEntry *hist = p->hist;

        memset(p, 0, sizeof(*p));
        p->hist = hist;
    }
    memset(s->dir_port, 0, sizeof(s->dir_port));
    for (i = 0; i < DLB2_NUM_LDB_QUEUES; i++) {
        DLB2LdbQueue *q = &s->ldb_queue[i];

        for (b = 0; b < DLB2_NUM_PRIO_BINS; b++) {
            dlb2_qe_list_free(&q->waiting[b]);
        }
        for (n = 0; n < DLB2_MAX_SNS; n++) {
            dlb2_qe_list_free(&q->sns[n].frags);
            q->sns[n].busy = q->sns[n].done = false;
        }
        g_hash_table_remove_all(q->flows);
        q->atomic = q->nonatomic = q->inflight = q->aqed_active = 0;
        q->enq_total_atm = q->enq_total_naldb = 0;
        q->sn_next = q->sn_oldest = q->sn_busy = 0;
    }
    for (i = 0; i < DLB2_MAX_DIR_PORTS; i++) {
        DLB2DirQueue *q = &s->dir_queue[i];

        for (b = 0; b < DLB2_NUM_PRIO_BINS; b++) {
            dlb2_qe_list_free(&q->waiting[b]);
        }
        q->depth = 0;
        q->enq_total = 0;
    }
    memset(s->credits_ldb, 0, sizeof(s->credits_ldb));
    memset(s->credits_dir, 0, sizeof(s->credits_dir));
    memset(s->alarm_count, 0, sizeof(s->alarm_count));
    memset(s->occ_ldb, 0, sizeof(s->occ_ldb));
    memset(s->occ_dir, 0, sizeof(s->occ_dir));
    memset(s->vec_latched, 0, sizeof(s->vec_latched));
    memset(s->vec_deferred, 0, sizeof(s->vec_deferred));
    s->ldb_sched_total = s->dir_sched_total = 0;
    s->dir_waiting = s->ldb_waiting = 0;
    s->rr_cq = 0;
}

void dlb2_sched_fini(DLB2State *s)
{
    unsigned int i;

    dlb2_sched_reset(s);
    for (i = 0; i < DLB2_NUM_LDB_PORTS; i++) {
        g_free(s->ldb_port[i].hist);
    }
    for (i = 0; i < DLB2_NUM_LDB_QUEUES; i++) {
        g_hash_table_destroy(s->ldb_queue[i].flows);
        g_free(s->ldb_queue[i].sns);
    }
}
