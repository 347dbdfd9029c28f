/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel DLB 2.0 / 2.5 device model: queues, scheduling and CQ writes.
 *
 * Directed queue q feeds directed CQ q.  An LDB CQ takes work from the
 * queues mapped to its (up to 8) slots: the highest-priority slot first,
 * FACT (facts §7.2), round-robin among slots of equal priority, INFERRED
 * (facts §7.2), then the highest-priority QE of that queue, FACT (facts
 * §7.2).  Atomic QEs follow their flow's pinning,
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
#include "qemu/log.h"
#include "qapi/error.h"
#include "sysemu/qtest.h"
#include "dlb2.h"
#include "trace.h"

#define DLB2_CSR_CTRL_SPARSE_LDB    (1u << 17)
#define DLB2_CSR_CTRL_SPARSE_DIR    (1u << 18)
#define DLB2_CQ2VF_PF_RO_IS_PF      (1u << 4)
#define DLB2_CQ_PASID_FMT2          (1u << 22)

static unsigned int dlb2_prio_bin(const DLB2HCW *hcw)
{
    /* 4 levels: INFERRED (facts §7.2: the lowest priority bit is ignored) */
    return ((hcw->sched >> 2) & 7) >> 1;
}

/*
 * Hardware ring size of a CQ in entries (4 << select), FACT (facts §4.3); 0
 * if unconfigured (a select outside 1-8: not scheduled, CHOICE).
 */
static unsigned int dlb2_cq_depth(DLB2State *s, bool is_ldb,
                                  unsigned int port)
{
    unsigned int sel = dlb2_reg(s, is_ldb ? DLB2_R_CHP_LDB_CQ_TKN_DEPTH_SEL :
                                            DLB2_R_CHP_DIR_CQ_TKN_DEPTH_SEL,
                                port) & 0xf;

    return sel >= 1 && sel <= 8 ? 4u << sel : 0;
}

/*
 * A CQ can take a QE when it is enabled, FACT (facts §6.9), its LSP and CHP
 * depth selects agree, CHOICE, and it holds fewer tokens than its depth,
 * INFERRED (facts §4.3: the token semantics).
 */
static bool dlb2_cq_can_take(DLB2State *s, bool is_ldb, unsigned int port)
{
    unsigned int depth = dlb2_cq_depth(s, is_ldb, port);
    uint32_t tokens = dlb2_port(s, is_ldb, port)->tokens;

    if (dlb2_reg(s, is_ldb ? DLB2_R_LSP_CQ_LDB_DSBL : DLB2_R_LSP_CQ_DIR_DSBL,
                 port) & 1) {
        return false;
    }
    return depth && tokens < depth && dlb2_cq_depths_agree(s, is_ldb, port);
}

/*
 * The CQ's domain (CHP_*_CQ2VAS) is the QE's: INFERRED (facts §7.1: domains
 * are isolated).
 */
static bool dlb2_cq_in_domain(DLB2State *s, bool is_ldb, unsigned int port,
                              unsigned int domain)
{
    return (dlb2_reg(s, is_ldb ? DLB2_R_CHP_LDB_CQ2VAS : DLB2_R_CHP_DIR_CQ2VAS,
                     port) & 0x1f) == domain;
}

/*
 * An LDB CQ can take a QE: as any CQ, plus a valid history-list window of
 * its own with room, and fewer outstanding QEs than LSP_CQ_LDB_INFL_LIM:
 * INFERRED (facts §7.3).
 */
static bool dlb2_ldb_cq_ready(DLB2State *s, unsigned int cq)
{
    uint32_t infl_lim = dlb2_reg(s, DLB2_R_LSP_CQ_LDB_INFL_LIM, cq) & 0xfff;
    uint32_t hl_lim = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_LIM, cq) & 0x1fff;
    uint32_t hl_base = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_BASE, cq) & 0x1fff;
    uint32_t hl_size = hl_lim - hl_base + 1;

    return dlb2_cq_can_take(s, true, cq) && !(s->hl_bad & (1ull << cq)) &&
           dlb2_hl_count(s, cq) < MIN(infl_lim, hl_size);
}

/*
 * Congestion bucket of the source queue reported in the CQ entry: FACT
 * (facts §4.1).  The depth and threshold its callers pass: CHOICE.
 */
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

/*
 * Whether a CQ's writes can complete (CHOICE, in this one place): the
 * model is a PF without SR-IOV, ATS or PASID, so the writes of a CQ owned by
 * a VF (SYS_*_CQ2VF_PF_RO.IS_PF clear), with translated addresses (2.0:
 * SYS_*_CQ_AT not 0) or tagged with a PASID (SYS_*_CQ_PASID.FMT2) are
 * requests no host completes: the QE is scheduled and lost.
 */
static bool dlb2_cq_dma_valid(DLB2State *s, bool is_ldb, unsigned int port)
{
    DLB2RegId at = is_ldb ? DLB2_R_SYS_LDB_CQ_AT : DLB2_R_SYS_DIR_CQ_AT;
    uint32_t vf = dlb2_reg(s, is_ldb ? DLB2_R_SYS_LDB_CQ2VF_PF_RO :
                                       DLB2_R_SYS_DIR_CQ2VF_PF_RO, port);
    uint32_t pasid = dlb2_reg(s, is_ldb ? DLB2_R_SYS_LDB_CQ_PASID :
                                          DLB2_R_SYS_DIR_CQ_PASID, port);
    const char *why = NULL;

    if (!(vf & DLB2_CQ2VF_PF_RO_IS_PF)) {
        why = "owned by a VF (IS_PF clear)";
    } else if (s->reg_instances[at] && dlb2_reg(s, at, port)) {
        why = "uses translated addresses (CQ_AT)";
    } else if (pasid & DLB2_CQ_PASID_FMT2) {
        why = "is tagged with a PASID (FMT2)";
    }
    if (why) {
        qemu_log_mask(LOG_GUEST_ERROR, "dlb2: %s CQ %u %s: write dropped\n",
                      is_ldb ? "LDB" : "DIR", port, why);
    }
    return !why;
}

/*
 * Write one QE into a CQ ring: data first, the byte with the gen bit last,
 * with the generation bit of the lap: INFERRED (facts §4.2, §10).  The
 * debug byte is 0, a directed QE's qid its queue's: CHOICE.
 */
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
    if (dlb2_cq_dma_valid(s, is_ldb, port)) {
        /* A write that fails is ignored, the QE counts as written: CHOICE. */
        pci_dma_write(PCI_DEVICE(s), addr, e, 15);
        smp_wmb();  /* a poller must not see the gen bit before the data */
        pci_dma_write(PCI_DEVICE(s), addr + 15, e + 15, 1);
    }
    trace_dlb2_cq_write(is_ldb ? "ldb" : "dir", port, slot, gen, addr,
                        hcw->data);
    (*wptr)++;
}

/*
 * After a QE went into a CQ: token, INFERRED (facts §4.3); credit, FACT
 * (facts §5.1); counters, FACT (facts §7.9); interrupt.
 */
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

/* Directed queue enqueue: FIFO per priority, INFERRED (facts §7.8). */
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

    bool atomic = (qe->hcw.sched & 3) == DLB2_SCHED_ATOMIC;

    QTAILQ_INSERT_TAIL(&q->waiting[dlb2_prio_bin(&qe->hcw)], qe, next);
    s->ldb_waiting++;
    if (atomic) {
        q->atomic++;
        q->enq_total_atm++;
    } else {
        q->nonatomic++;
        q->enq_total_naldb++;
    }
    dlb2_slots_haswork(s, qe->hcw.qid, atomic);
    trace_dlb2_enqueue("ldb", qe->hcw.qid, qe->hcw.sched, qe->hcw.data);
}

static bool dlb2_sched_dir(DLB2State *s, unsigned int port)
{
    DLB2DirQueue *q = &s->dir_queue[port];
    unsigned int bin;
    DLB2QE *qe;

    /* As for LDB queues: an invalid queue keeps its QEs (facts 6.4), CHOICE. */
    if (!q->depth || !(dlb2_reg(s, DLB2_R_SYS_DIR_QID_V, port) & 1) ||
        !dlb2_cq_can_take(s, false, port)) {
        return false;
    }
    for (bin = 0; bin < DLB2_NUM_PRIO_BINS; bin++) {
        qe = QTAILQ_FIRST(&q->waiting[bin]);
        if (qe) {
            break;
        }
    }
    if (!dlb2_cq_in_domain(s, false, port, qe->domain)) {
        return false;
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

/*
 * Flow of an atomic QE after lock-ID compression (AQED_QID_HID_WIDTH): the
 * flow counts, FACT (facts §6.3).
 */
static uint16_t dlb2_flow_id(DLB2State *s, unsigned int qid, uint16_t lock_id)
{
    unsigned int code = dlb2_reg(s, DLB2_R_AQED_QID_HID_WIDTH, qid) & 7;

    /* CHOICE: compression keeps the low bits of the lock ID. */
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

/*
 * Pick the QE queue qid can give CQ cq now, or NULL: the highest-priority,
 * oldest QE of a kind the CQ's slots allow (nonatomic, atomic) that the
 * queue's limits let go (facts 7.3, 7.4, 7.6).
 */
static DLB2QE *dlb2_pick(DLB2State *s, unsigned int qid, unsigned int cq,
                         bool nonatomic, bool atomic, unsigned int *bin_out)
{
    DLB2LdbQueue *q = &s->ldb_queue[qid];
    uint32_t aqed_lim = dlb2_reg(s, DLB2_R_LSP_QID_AQED_ACTIVE_LIM, qid) &
                        0xfff;
    uint32_t fid_lim = dlb2_reg(s, DLB2_R_AQED_QID_FID_LIM, qid) & 0x1fff;
    unsigned int bin;
    DLB2QE *qe;

    /*
     * The AQED limit holds for pinned flows too: INFERRED (facts §7.4: the
     * DPDK doc's head-of-line blocking).
     */
    if (q->aqed_active >= aqed_lim) {
        atomic = false;
    }
    if (!atomic && !nonatomic) {
        return NULL;
    }
    for (bin = 0; bin < DLB2_NUM_PRIO_BINS; bin++) {
        QTAILQ_FOREACH(qe, &q->waiting[bin], next) {
            unsigned int type = qe->hcw.sched & 3;
            DLB2Flow *f;

            if (!dlb2_cq_in_domain(s, true, cq, qe->domain)) {
                continue;
            }
            if (type == DLB2_SCHED_ATOMIC) {
                if (!atomic) {
                    continue;
                }
                f = dlb2_flow(q, dlb2_flow_id(s, qid, qe->hcw.lock_id), false);
                if (f ? f->cq != cq :
                    g_hash_table_size(q->flows) >= fid_lim) {
                    /*
                     * pinned elsewhere, or no room for a flow: INFERRED
                     * (facts §7.4)
                     */
                    continue;
                }
            } else if (!nonatomic) {
                continue;
            } else if (type == DLB2_SCHED_ORDERED &&
                       (s->sn_bad & (1u << qid))) {
                /* A bad SN slot: CHOICE. */
                dlb2_cfg_bad_used(s);
                continue;
            } else if (type == DLB2_SCHED_ORDERED &&
                       q->sn_busy >= dlb2_num_sns(s, qid)) {
                /* No SN free: CHOICE. */
                continue;
            }
            *bin_out = bin;
            return qe;
        }
    }
    return NULL;
}

/*
 * The QE queue qid can give CQ cq now, or NULL; *slots and *bin say how.
 * Below its inflight limit: INFERRED (facts §7.3); an invalid queue gives
 * nothing: CHOICE.
 */
static DLB2QE *dlb2_pick_for_cq(DLB2State *s, unsigned int qid,
                                unsigned int cq, uint8_t *slots,
                                unsigned int *bin)
{
    DLB2LdbQueue *q = &s->ldb_queue[qid];
    uint8_t na, at;

    if (!(q->atomic + q->nonatomic) ||
        !(dlb2_reg(s, DLB2_R_SYS_LDB_QID_V, qid) & 1) ||
        q->inflight >= (dlb2_reg(s, DLB2_R_LSP_QID_LDB_INFL_LIM, qid) &
                        0xfff)) {
        return NULL;
    }
    na = q->nonatomic ? dlb2_slots_for(s, cq, qid, false) : 0;
    at = q->atomic ? dlb2_slots_for(s, cq, qid, true) : 0;
    *slots = na | at;
    return *slots ? dlb2_pick(s, qid, cq, na, at, bin) : NULL;
}

/*
 * The effective level of a slot's 3-bit priority: only 4 levels are
 * effective, the lowest bit ignored, FACT (facts §7.2; the model uses
 * prio >> 1, as the facts' MODEL-CHOICE says).
 */
static unsigned int dlb2_slot_level(uint32_t priov, unsigned int slot)
{
    return ((priov >> (3 * slot)) & 7) >> 1;
}

/* The best (lowest) effective level among slots of CQ cq. */
static unsigned int dlb2_slot_prio(uint32_t priov, uint8_t slots)
{
    unsigned int slot, best = 4;

    for (slot = 0; slot < DLB2_QID_SLOTS; slot++) {
        if (slots & (1u << slot)) {
            best = MIN(best, dlb2_slot_level(priov, slot));
        }
    }
    return best;
}

/*
 * Whether CQ cq has work of a better slot priority than prio from another
 * queue than qid: it takes that first, FACT (facts §7.2).
 */
static bool dlb2_cq_has_better(DLB2State *s, unsigned int cq,
                               unsigned int qid, unsigned int prio)
{
    uint32_t priov = dlb2_reg(s, DLB2_R_LSP_CQ2PRIOV, cq);
    uint64_t cq2qid = dlb2_reg(s, DLB2_R_LSP_CQ2QID0, cq) |
                      (uint64_t)dlb2_reg(s, DLB2_R_LSP_CQ2QID1, cq) << 32;
    unsigned int slot, other, bin;
    uint8_t slots;

    for (slot = 0; slot < DLB2_QID_SLOTS; slot++) {
        other = (cq2qid >> (8 * slot)) & 0x7f;
        if (!(priov & (1u << (24 + slot))) ||
            dlb2_slot_level(priov, slot) >= prio || other == qid ||
            other >= DLB2_NUM_LDB_QUEUES) {
            continue;
        }
        if (dlb2_pick_for_cq(s, other, cq, &slots, &bin) &&
            dlb2_slot_prio(priov, slots) < prio) {
            return true;
        }
    }
    return false;
}

/*
 * Deliver qe of queue qid to LDB CQ cq: history list, counters, CQ write;
 * flow pinning and the next SN: INFERRED (facts §7.4-7.6).
 */
static void dlb2_deliver_ldb(DLB2State *s, unsigned int qid, unsigned int cq,
                             DLB2QE *qe, unsigned int bin)
{
    DLB2LdbQueue *q = &s->ldb_queue[qid];
    DLB2HistEntry e = { .qid = qid, .sched_type = qe->hcw.sched & 3 };
    uint32_t thresh;

    QTAILQ_REMOVE(&q->waiting[bin], qe, next);
    s->ldb_waiting--;
    q->inflight++;
    dlb2_qid_inflight_status(s, qid, false);
    if (e.sched_type == DLB2_SCHED_ATOMIC) {
        DLB2Flow *f;

        e.flow = dlb2_flow_id(s, qid, qe->hcw.lock_id);
        f = dlb2_flow(q, e.flow, true);
        f->cq = cq;
        f->inflight++;
        q->atomic--;
        q->aqed_active++;
    } else {
        q->nonatomic--;
        if (e.sched_type == DLB2_SCHED_ORDERED) {
            e.sn = q->sn_next;
            q->sns[e.sn].busy = true;
            q->sns[e.sn].done = false;
            q->sn_next = (q->sn_next + 1) % dlb2_num_sns(s, qid);
            q->sn_busy++;
        }
    }
    /* dlb2_ldb_cq_ready() made sure that the window has room. */
    dlb2_hl_push(s, cq, &e);
    thresh = dlb2_reg(s, DLB2_R_LSP_QID_NALDB_DEPTH_THRSH, qid);
    dlb2_cq_write(s, true, cq, &qe->hcw, qid,
                  dlb2_depth_bucket(q->atomic + q->nonatomic, thresh));
    trace_dlb2_schedule(cq, qid, e.sched_type, e.flow, e.sn);
    dlb2_scheduled(s, true, cq, qe);
}

/*
 * A number below n from the random arbitration's PRNG (xorshift64*,
 * seeded from the "seed" property at every reset): deterministic given
 * the seed and the accesses.
 */
static unsigned int dlb2_rand(DLB2State *s, unsigned int n)
{
    uint64_t x = s->rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->rng = x;
    return ((x * 0x2545f4914f6cdd1dull) >> 32) % n;
}

/*
 * Give one QE of LDB queue qid to a CQ that can take it (facts §7.3): which
 * one, when several can, is UNKNOWN (facts §7.3, §11), CHOICE: with
 * arbitration=rr (the default) the next one round-robin over the CQs
 * mapped to the queue from the one served last; with arbitration=random
 * one of them all, uniformly.
 */
static bool dlb2_sched_ldb_queue(DLB2State *s, unsigned int qid)
{
    DLB2LdbQueue *q = &s->ldb_queue[qid];
    uint64_t cqs;
    unsigned int i, bin, n = 0, pick_cq = 0, pick_bin = 0;
    DLB2QE *pick = NULL;

    if (!(q->atomic + q->nonatomic)) {
        return false;
    }
    cqs = dlb2_qid_cqs(s, qid);
    for (i = 1; cqs && i <= DLB2_NUM_LDB_PORTS; i++) {
        unsigned int cq = (q->rr_cq + i) % DLB2_NUM_LDB_PORTS;
        uint8_t slots;
        DLB2QE *qe;

        if (!(cqs & (1ull << cq))) {
            continue;
        }
        if (s->hl_bad & (1ull << cq)) {
            dlb2_cfg_bad_used(s);   /* a QE waits for this CQ */
        }
        if (!dlb2_ldb_cq_ready(s, cq)) {
            continue;
        }
        qe = dlb2_pick_for_cq(s, qid, cq, &slots, &bin);
        if (!qe || dlb2_cq_has_better(s, cq, qid,
                                      dlb2_slot_prio(dlb2_reg(s,
                                          DLB2_R_LSP_CQ2PRIOV, cq), slots))) {
            continue;
        }
        if (!s->arb_random) {
            dlb2_deliver_ldb(s, qid, cq, qe, bin);
            q->rr_cq = cq;
            return true;
        }
        /* One of the n eligible CQs so far, each with chance 1/n. */
        if (dlb2_rand(s, ++n) == 0) {
            pick = qe;
            pick_cq = cq;
            pick_bin = bin;
        }
    }
    if (pick) {
        dlb2_deliver_ldb(s, qid, pick_cq, pick, pick_bin);
        return true;
    }
    return false;
}

/*
 * arbitration=random: one QE from an LDB queue picked uniformly among
 * those with waiting QEs, the next pick among those left when it cannot
 * give one now.  CHOICE (dlb2_schedule_now()).
 */
static bool dlb2_sched_ldb_random(DLB2State *s)
{
    unsigned int qids[DLB2_NUM_LDB_QUEUES], n = 0, qid, i;

    for (qid = 0; qid < DLB2_NUM_LDB_QUEUES; qid++) {
        if (s->ldb_queue[qid].atomic + s->ldb_queue[qid].nonatomic) {
            qids[n++] = qid;
        }
    }
    while (n) {
        i = dlb2_rand(s, n);
        if (dlb2_sched_ldb_queue(s, qids[i])) {
            return true;
        }
        qids[i] = qids[--n];
    }
    return false;
}

/*
 * Release the QEs of completed sequence numbers, oldest first: INFERRED
 * (facts §7.6).
 */
static void dlb2_ordered_release(DLB2State *s, unsigned int qid)
{
    DLB2LdbQueue *q = &s->ldb_queue[qid];
    unsigned int n = dlb2_num_sns(s, qid);
    unsigned int oldest = dlb2_sn_oldest(s, qid);

    while (q->sn_busy && q->sns[oldest].done) {
        DLB2SeqNum *sn = &q->sns[oldest];
        DLB2QE *qe;

        while ((qe = QTAILQ_FIRST(&sn->frags))) {
            QTAILQ_REMOVE(&sn->frags, qe, next);
            dlb2_qe_route(s, qe);
        }
        sn->busy = sn->done = false;
        q->sn_busy--;
        oldest = (oldest + 1) % n;
        dlb2_sn_oldest_set(s, qid, oldest);
    }
}

void dlb2_ordered_attach(DLB2State *s, const DLB2HistEntry *e, DLB2QE *qe)
{
    QTAILQ_INSERT_TAIL(&s->ldb_queue[e->qid].sns[e->sn].frags, qe, next);
}

/*
 * A completion retired history entry e of LDB CQ port: INFERRED (facts
 * §7.4-7.6).
 */
void dlb2_ldb_retire(DLB2State *s, unsigned int port, const DLB2HistEntry *e)
{
    DLB2LdbQueue *q = &s->ldb_queue[e->qid];

    q->inflight--;
    dlb2_qid_inflight_status(s, e->qid, true);
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

/* Schedule until no CQ can take more work. */
void dlb2_schedule_now(DLB2State *s)
{
    unsigned int ndir = dlb2_num_dir_ports(s->ver), p;
    bool progress;

    if (s->in_schedule || s->off_bus) {
        s->schedule_again = true;   /* e.g. a CQ write that hit our BAR */
        return;
    }
    s->in_schedule = true;
    dlb2_cfg_check(s);
    do {
        s->schedule_again = false;
        do {
            progress = false;
            for (p = 0; s->dir_waiting && p < ndir; p++) {
                progress |= dlb2_sched_dir(s, p);
            }
            /*
             * Directed queues first, then up to one QE per LDB queue per
             * round.  Which queue a CQ serves among its slots of equal
             * priority is round-robin, INFERRED (facts §7.2), but how is
             * not known, CHOICE: with arbitration=rr the queues are
             * visited round-robin, one QE each; with arbitration=random
             * each QE comes from a queue picked at random.
             */
            for (p = 0; s->ldb_waiting && p < DLB2_NUM_LDB_QUEUES; p++) {
                if (s->arb_random) {
                    if (!dlb2_sched_ldb_random(s)) {
                        break;
                    }
                    progress = true;
                    continue;
                }
                progress |= dlb2_sched_ldb_queue(s, (s->rr_qid + p) %
                                                    DLB2_NUM_LDB_QUEUES);
            }
            s->rr_qid = (s->rr_qid + 1) % DLB2_NUM_LDB_QUEUES;
        } while (progress);
    } while (s->schedule_again);
    s->in_schedule = false;
}

static void dlb2_sched_timer_cb(void *opaque)
{
    dlb2_schedule_now(opaque);
}

/*
 * Something changed that may let waiting QEs move.  By default the
 * scheduler runs later, off the vCPU that wrote the register or HCW
 * (DLB2_SCHED_DELAY_NS of virtual time, so that a qtest decides when with
 * clock_step); with sync-sched=on it runs now, inside the write.  CHOICE.
 */
void dlb2_schedule(DLB2State *s)
{
    if (s->sync_sched) {
        dlb2_schedule_now(s);
    } else if (!timer_pending(s->sched_timer)) {
        s->sched_armed_ns = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
        timer_mod(s->sched_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                                  DLB2_SCHED_DELAY_NS);
    } else {
        dlb2_schedule_overdue(s);
    }
}

/*
 * Called on every MMIO access: a schedule the main loop has not run for
 * DLB2_SCHED_MAX_DELAY_NS runs now, so that the device's latency stays
 * bounded however busy the vCPUs keep the big lock.  Under qtest, virtual
 * time alone decides (the test steps the clock), so that tests are exact.
 * CHOICE.
 */
void dlb2_schedule_overdue(DLB2State *s)
{
    if (!qtest_enabled() && timer_pending(s->sched_timer) &&
        qemu_clock_get_ns(QEMU_CLOCK_REALTIME) - s->sched_armed_ns >
        DLB2_SCHED_MAX_DELAY_NS) {
        timer_del(s->sched_timer);
        dlb2_schedule_now(s);
    }
}

static void dlb2_qe_list_free(DLB2QEList *l)
{
    DLB2QE *qe;

    while ((qe = QTAILQ_FIRST(l))) {
        QTAILQ_REMOVE(l, qe, next);
        g_free(qe);
    }
}

/* The "arbitration" property: rr (the default) or random. */
bool dlb2_sched_parse(DLB2State *s, Error **errp)
{
    if (!s->arbitration_str || !strcmp(s->arbitration_str, "rr")) {
        s->arb_random = false;
    } else if (!strcmp(s->arbitration_str, "random")) {
        s->arb_random = true;
    } else {
        error_setg(errp, "dlb2: arbitration must be rr or random, not '%s'",
                   s->arbitration_str);
        return false;
    }
    return true;
}

void dlb2_sched_init(DLB2State *s)
{
    unsigned int i, b, n;

    s->sched_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, dlb2_sched_timer_cb, s);
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

/*
 * What holds waiting QEs back, traced when a reset finds QEs still waiting
 * (trace event dlb2_stuck): a post-mortem of a stalled run.
 */
static void dlb2_trace_stuck(DLB2State *s)
{
    unsigned int qid, cq;

    if (!trace_event_get_state_backends(TRACE_DLB2_STUCK)) {
        return;
    }
    dlb2_cfg_check(s);
    for (qid = 0; qid < DLB2_NUM_LDB_QUEUES; qid++) {
        DLB2LdbQueue *q = &s->ldb_queue[qid];
        uint64_t cqs = dlb2_qid_cqs(s, qid);
        g_autoptr(GString) g = g_string_new(NULL);
        unsigned int n, held = 0, oldest = dlb2_sn_oldest(s, qid);

        for (n = 0; n < DLB2_MAX_SNS; n++) {
            DLB2QE *qe;

            QTAILQ_FOREACH(qe, &q->sns[n].frags, next) {
                held++;
            }
        }
        if (!(q->atomic + q->nonatomic + q->inflight + q->sn_busy + held)) {
            continue;
        }
        g_string_printf(g, "queue %u: atomic %u nonatomic %u inflight %u "
                        "aqed %u flows %u sn_busy %u/%u next %u oldest %u "
                        "(busy %d done %d) reorder-held %u;", qid, q->atomic,
                        q->nonatomic, q->inflight, q->aqed_active,
                        g_hash_table_size(q->flows), q->sn_busy,
                        dlb2_num_sns(s, qid), q->sn_next, oldest,
                        q->sns[oldest].busy, q->sns[oldest].done,
                        held);
        for (cq = 0; cq < DLB2_NUM_LDB_PORTS; cq++) {
            DLB2SlotStatus *st = &s->ldb_port[cq].st;

            if (!(cqs & (1ull << cq))) {
                continue;
            }
            g_string_append_printf(g, " cq %u: ready %d tokens %u hl %u "
                                   "na %02x at %02x ok %02x haswork %02x/%02x",
                                   cq, dlb2_ldb_cq_ready(s, cq),
                                   s->ldb_port[cq].c.tokens,
                                   dlb2_hl_count(s, cq),
                                   dlb2_slots_for(s, cq, qid, false),
                                   dlb2_slots_for(s, cq, qid, true),
                                   st->inflight_ok, st->nalb_haswork,
                                   st->rlist_haswork);
        }
        trace_dlb2_stuck(g->str);
    }
}

/*
 * Device reset: every QE, flow, sequence number and counter goes, INFERRED
 * (facts §3.2: the FLR clears everything).
 */
void dlb2_sched_reset(DLB2State *s)
{
    unsigned int i, b, n;

    dlb2_trace_stuck(s);
    timer_del(s->sched_timer);
    memset(s->ldb_port, 0, sizeof(s->ldb_port));
    for (i = 0; i < DLB2_NUM_LDB_PORTS; i++) {
        s->ldb_port[i].st.inflight_ok = 0xff;   /* 1 after reset: CHOICE */
    }
    memset(s->hist, 0, sizeof(s->hist));
    s->cfg_dirty = true;
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
        q->sn_next = q->sn_busy = 0;
        q->rr_cq = DLB2_NUM_LDB_PORTS - 1;
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
    s->rr_qid = 0;
    /* Never 0, which xorshift would keep. */
    s->rng = ((uint64_t)s->seed + 1) * 0x9e3779b97f4a7c15ull;
}

void dlb2_sched_fini(DLB2State *s)
{
    unsigned int i;

    dlb2_sched_reset(s);
    timer_free(s->sched_timer);
    for (i = 0; i < DLB2_NUM_LDB_QUEUES; i++) {
        g_hash_table_destroy(s->ldb_queue[i].flows);
        g_free(s->ldb_queue[i].sns);
    }
}
