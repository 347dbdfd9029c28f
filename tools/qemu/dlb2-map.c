/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel DLB 2.0 / 2.5 device model: which queue a CQ may be scheduled, and
 * the configuration checks the scheduler relies on.
 *
 * A load-balanced queue q reaches QID slot s of LDB CQ c only when every
 * structure the hardware keeps for the mapping says so (facts section 6.7):
 * LSP_CQ2PRIOV has the slot's V bit, LSP_CQ2QID0/1 names q in the slot,
 * bit s of byte c % 4 is set in LSP_QID2CQIDIX(q, c / 4) and in
 * LSP_QID2CQIDIX2(q, c / 4) (and, for atomic QEs, ATM_QID2CQIDIX(q, c / 4)),
 * and the slot's scheduler status allows it: INFLIGHT_OK, and NALB_HASWORK
 * (non-atomic) or RLIST_HASWORK (atomic).  The has-work bits are set when a
 * QE of q is enqueued, for the slots mapped at that moment; a slot mapped
 * later learns of QEs already waiting only through LSP_LDB_SCHED_CTRL, as
 * the dynamic map procedure does (6.7 step 5e).  CHOICE: the facts name the
 * structures and the status bits, not which gates what.
 *
 * A CQ's map may only change while the CQ is disabled (LSP_CQ_LDB_DSBL = 1):
 * a write that would change the map of an enabled CQ is dropped and logged
 * as a guest error.  A queue may gain CQs only while it holds no QE or its
 * inflight limit is 0 (the dynamic map quiesces it first); otherwise the
 * added QID2CQIDIX bits are dropped and logged.  CHOICE: facts §6.7 says
 * only that the hardware needs the CQ disabled.
 *
 * Configuration checks (recomputed when one of their registers changes):
 * the history-list window of every LDB CQ in use must be valid and disjoint
 * from the others; an ordered queue's sequence-number slot (CHP_ORD_QID_SN_MAP)
 * must match its group's mode in RO_GRP_SN_MODE, exist in that mode and
 * belong to no other queue.  CHOICE: the facts name no such check.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "dlb2.h"
#include "trace.h"

#define DLB2_QIDIX_WORDS            16      /* per queue: k = cq / 4 */

#define DLB2_SCHED_CTRL_CQ(v)       ((v) & 0xff)
#define DLB2_SCHED_CTRL_QIDIX(v)    (((v) >> 8) & 7)
#define DLB2_SCHED_CTRL_VALUE       (1u << 11)
#define DLB2_SCHED_CTRL_NALB_V      (1u << 12)
#define DLB2_SCHED_CTRL_RLIST_V     (1u << 13)
#define DLB2_SCHED_CTRL_SLIST_V     (1u << 14)
#define DLB2_SCHED_CTRL_INFL_OK_V   (1u << 15)
#define DLB2_SCHED_CTRL_AQED_V      (1u << 16)

static bool dlb2_ldb_cq_enabled(DLB2State *s, unsigned int cq)
{
    return !(dlb2_reg(s, DLB2_R_LSP_CQ_LDB_DSBL, cq) & 1);
}

/* Registers whose value the configuration checks read. */
bool dlb2_reg_affects_cfg(DLB2RegId id)
{
    switch (id) {
    case DLB2_R_CHP_HIST_LIST_BASE:
    case DLB2_R_CHP_HIST_LIST_LIM:
    case DLB2_R_CHP_HIST_LIST_PUSH_PTR:
    case DLB2_R_CHP_HIST_LIST_POP_PTR:
    case DLB2_R_SYS_LDB_PP_V:
    case DLB2_R_LSP_CQ_LDB_DSBL:
    case DLB2_R_CHP_ORD_QID_SN_MAP:
    case DLB2_R_SYS_LDB_QID_V:
    case DLB2_R_SYS_LDB_QID_CFG_V:
    case DLB2_R_RO_GRP_SN_MODE:
        return true;
    default:
        return false;
    }
}

static bool dlb2_hl_in_use(DLB2State *s, unsigned int cq)
{
    return (dlb2_reg(s, DLB2_R_SYS_LDB_PP_V, cq) & 1) ||
           dlb2_ldb_cq_enabled(s, cq);
}

/* Group mode of an ordered queue's SN group (RO_GRP_SN_MODE). */
static unsigned int dlb2_sn_group_mode(DLB2State *s, unsigned int qid)
{
    unsigned int grp = (dlb2_reg(s, DLB2_R_CHP_ORD_QID_SN_MAP, qid) >> 8) & 1;

    return (dlb2_reg(s, DLB2_R_RO_GRP_SN_MODE, 0) >> (8 * grp)) & 7;
}

static bool dlb2_ordered_queue(DLB2State *s, unsigned int qid)
{
    return (dlb2_reg(s, DLB2_R_SYS_LDB_QID_V, qid) & 1) &&
           (dlb2_reg(s, DLB2_R_SYS_LDB_QID_CFG_V, qid) & 1);
}

void dlb2_cfg_check(DLB2State *s)
{
    unsigned int a, b;

    if (!s->cfg_dirty) {
        return;
    }
    s->cfg_dirty = false;
    s->hl_bad = 0;
    for (a = 0; a < DLB2_NUM_LDB_PORTS; a++) {
        if (!dlb2_hl_in_use(s, a)) {
            continue;
        }
        if (!dlb2_hl_window_ok(s, a)) {
            s->hl_bad |= 1ull << a;
        }
        for (b = a + 1; b < DLB2_NUM_LDB_PORTS; b++) {
            if (dlb2_hl_in_use(s, b) && dlb2_hl_windows_overlap(s, a, b)) {
                s->hl_bad |= 1ull << a | 1ull << b;
            }
        }
    }
    s->sn_bad = 0;
    for (a = 0; a < DLB2_NUM_LDB_QUEUES; a++) {
        uint32_t map = dlb2_reg(s, DLB2_R_CHP_ORD_QID_SN_MAP, a) & 0x1ff;
        unsigned int mode = dlb2_sn_group_mode(s, a);

        if (!dlb2_ordered_queue(s, a)) {
            continue;
        }
        if ((map & 7) != mode || mode > 4 ||
            ((map >> 3) & 0xf) >= 16u >> mode) {
            s->sn_bad |= 1u << a;
        }
        for (b = a + 1; b < DLB2_NUM_LDB_QUEUES; b++) {
            if (dlb2_ordered_queue(s, b) &&
                (dlb2_reg(s, DLB2_R_CHP_ORD_QID_SN_MAP, b) & 0x1f8) ==
                (map & 0x1f8)) {
                s->sn_bad |= 1u << a | 1u << b;
            }
        }
    }
    s->cfg_bad_logged = false;
}

/*
 * An invalid history-list window or SN slot held a QE back (or refused
 * one): logged with -d guest_errors, once per configuration.  Not when
 * the check merely sees it: a reset in Intel's order (DPDK's
 * dlb2_domain_reset_ldb_queue_registers(): SN_MAP, then QID_V, then
 * QID_CFG_V) passes through such states while the queue is empty.
 */
void dlb2_cfg_bad_used(DLB2State *s)
{
    if (s->cfg_bad_logged) {
        return;
    }
    s->cfg_bad_logged = true;
    qemu_log_mask(LOG_GUEST_ERROR, "dlb2: history-list windows invalid "
                  "for CQs 0x%" PRIx64 ", sequence-number slots invalid "
                  "for queues 0x%x\n", s->hl_bad, s->sn_bad);
}

/* Sequence numbers of an ordered queue: its group's mode, FACT (facts §2). */
unsigned int dlb2_num_sns(DLB2State *s, unsigned int qid)
{
    return 64u << MIN(dlb2_sn_group_mode(s, qid), 4u);
}

/*
 * The reorder unit's release pointer of an ordered queue's SN slot: the
 * oldest sequence number not yet released.  CHOICE (facts §7.6, §11: the
 * register's function is UNKNOWN): it is the slot's
 * RO_GRP_<group>_SLT_SHFT.CHANGE field, kept by the reorder unit apart from
 * the next SN the CHP hands out (CHP_ORD_QID_SN); software resets both when
 * a queue is freed, and a queue whose two disagree stalls (its oldest SN is
 * handed out only after a wrap).
 */
static DLB2RegId dlb2_sn_slot_reg(DLB2State *s, unsigned int qid,
                                  unsigned int *slot)
{
    uint32_t map = dlb2_reg(s, DLB2_R_CHP_ORD_QID_SN_MAP, qid);

    *slot = (map >> 3) & 0xf;
    return map & (1u << 8) ? DLB2_R_RO_GRP_1_SLT_SHFT :
                             DLB2_R_RO_GRP_0_SLT_SHFT;
}

unsigned int dlb2_sn_oldest(DLB2State *s, unsigned int qid)
{
    unsigned int slot;
    DLB2RegId id = dlb2_sn_slot_reg(s, qid, &slot);

    return (dlb2_reg(s, id, slot) & 0x3ff) % dlb2_num_sns(s, qid);
}

void dlb2_sn_oldest_set(DLB2State *s, unsigned int qid, unsigned int sn)
{
    unsigned int slot;
    DLB2RegId id = dlb2_sn_slot_reg(s, qid, &slot);

    dlb2_reg_set(s, id, slot, sn & 0x3ff);
}

/*
 * The LSP and CHP token depth selects of a CQ must agree (facts 4.3):
 * CHOICE (the facts only have software write both alike).
 */
bool dlb2_cq_depths_agree(DLB2State *s, bool is_ldb, unsigned int port)
{
    uint32_t chp = dlb2_reg(s, is_ldb ? DLB2_R_CHP_LDB_CQ_TKN_DEPTH_SEL :
                                        DLB2_R_CHP_DIR_CQ_TKN_DEPTH_SEL, port);
    uint32_t lsp = dlb2_reg(s, is_ldb ? DLB2_R_LSP_CQ_LDB_TKN_DEPTH_SEL :
                                        DLB2_R_LSP_CQ_DIR_TKN_DEPTH_SEL_DSI,
                            port);

    return (chp & 0xf) == (lsp & 0xf);
}

/*
 * May queue qid gain CQs?  Only while it has no QE (before its domain
 * starts: the static map) or cannot schedule any (its inflight limit is 0:
 * the dynamic map, facts 6.7 step 5a).  CHOICE.
 */
static bool dlb2_qid_quiesced(DLB2State *s, unsigned int qid)
{
    const DLB2LdbQueue *q = &s->ldb_queue[qid];

    return !(dlb2_reg(s, DLB2_R_LSP_QID_LDB_INFL_LIM, qid) & 0xfff) ||
           !(q->atomic + q->nonatomic + q->inflight);
}

/*
 * A CSR write to a map register: false when it must be dropped because it
 * would change the map of an enabled CQ; *val may be narrowed to the bytes
 * of a QID2CQIDIX word that belong to disabled CQs, and loses the bits it
 * would add to a queue that is not quiesced (dlb2_qid_quiesced()).  CHOICE.
 */
bool dlb2_map_write(DLB2State *s, DLB2RegId id, unsigned int idx,
                    uint32_t *val)
{
    uint32_t old = dlb2_reg(s, id, idx), keep = 0;
    unsigned int b;

    switch (id) {
    case DLB2_R_LSP_CQ2PRIOV:
    case DLB2_R_LSP_CQ2QID0:
    case DLB2_R_LSP_CQ2QID1:
        if (*val == old || !dlb2_ldb_cq_enabled(s, idx)) {
            return true;
        }
        qemu_log_mask(LOG_GUEST_ERROR, "dlb2: map of enabled LDB CQ %u "
                      "changed: write dropped\n", idx);
        return false;
    case DLB2_R_LSP_QID2CQIDIX_00:
    case DLB2_R_LSP_QID2CQIDIX2_00:
    case DLB2_R_ATM_QID2CQIDIX_00:
        for (b = 0; b < 4; b++) {
            uint32_t mask = 0xffu << (8 * b);

            if ((*val ^ old) & mask &&
                dlb2_ldb_cq_enabled(s, (idx % DLB2_QIDIX_WORDS) * 4 + b)) {
                keep |= mask;
            }
        }
        if (keep) {
            qemu_log_mask(LOG_GUEST_ERROR, "dlb2: QID %u map of enabled LDB "
                          "CQs changed: bytes 0x%x kept\n",
                          idx / DLB2_QIDIX_WORDS, keep);
            *val = (*val & ~keep) | (old & keep);
        }
        if (*val & ~old && !dlb2_qid_quiesced(s, idx / DLB2_QIDIX_WORDS)) {
            qemu_log_mask(LOG_GUEST_ERROR, "dlb2: QID %u mapped to more CQs "
                          "while it has QEs and a non-zero inflight limit: "
                          "bits 0x%x dropped\n", idx / DLB2_QIDIX_WORDS,
                          *val & ~old);
            *val &= old;
        }
        return true;
    default:
        return true;
    }
}

static uint32_t dlb2_qidix(DLB2State *s, DLB2RegId id, unsigned int qid,
                           unsigned int cq)
{
    return (dlb2_reg(s, id, qid * DLB2_QIDIX_WORDS + cq / 4) >>
            (8 * (cq % 4))) & 0xff;
}

/* LDB CQs with a slot for queue qid in LSP_QID2CQIDIX: FACT (facts §6.7). */
uint64_t dlb2_qid_cqs(DLB2State *s, unsigned int qid)
{
    uint64_t cqs = 0;
    unsigned int k, b;

    for (k = 0; k < DLB2_QIDIX_WORDS; k++) {
        uint32_t w = dlb2_reg(s, DLB2_R_LSP_QID2CQIDIX_00,
                              qid * DLB2_QIDIX_WORDS + k);

        for (b = 0; w && b < 4; b++, w >>= 8) {
            if (w & 0xff) {
                cqs |= 1ull << (k * 4 + b);
            }
        }
    }
    return cqs;
}

/* The slots of CQ cq that map queue qid: valid, naming qid, in QID2CQIDIX. */
static uint8_t dlb2_slots_mapped(DLB2State *s, unsigned int cq, unsigned int qid)
{
    uint32_t priov = dlb2_reg(s, DLB2_R_LSP_CQ2PRIOV, cq);
    uint64_t cq2qid = dlb2_reg(s, DLB2_R_LSP_CQ2QID0, cq) |
                      (uint64_t)dlb2_reg(s, DLB2_R_LSP_CQ2QID1, cq) << 32;
    uint8_t m = dlb2_qidix(s, DLB2_R_LSP_QID2CQIDIX_00, qid, cq) & (priov >> 24);
    unsigned int slot;

    for (slot = 0; slot < DLB2_QID_SLOTS; slot++) {
        if (((cq2qid >> (8 * slot)) & 0x7f) != qid) {
            m &= ~(1u << slot);
        }
    }
    return m;
}

/* The slots of CQ cq through which queue qid may give it a QE now: CHOICE. */
uint8_t dlb2_slots_for(DLB2State *s, unsigned int cq, unsigned int qid,
                       bool atomic)
{
    DLB2SlotStatus *st = &s->ldb_port[cq].st;
    uint32_t priov = dlb2_reg(s, DLB2_R_LSP_CQ2PRIOV, cq);
    uint64_t cq2qid = dlb2_reg(s, DLB2_R_LSP_CQ2QID0, cq) |
                      (uint64_t)dlb2_reg(s, DLB2_R_LSP_CQ2QID1, cq) << 32;
    uint8_t m = dlb2_qidix(s, DLB2_R_LSP_QID2CQIDIX_00, qid, cq) &
                dlb2_qidix(s, DLB2_R_LSP_QID2CQIDIX2_00, qid, cq) &
                (priov >> 24) & st->inflight_ok &
                (atomic ? st->rlist_haswork : st->nalb_haswork);
    unsigned int slot;

    if (atomic) {
        m &= dlb2_qidix(s, DLB2_R_ATM_QID2CQIDIX_00, qid, cq);
    }
    for (slot = 0; slot < DLB2_QID_SLOTS; slot++) {
        if ((m & (1u << slot)) && ((cq2qid >> (8 * slot)) & 0x7f) != qid) {
            m &= ~(1u << slot);
        }
    }
    return m;
}

/* A QE of queue qid arrived: the slots mapped to it now have work, CHOICE. */
void dlb2_slots_haswork(DLB2State *s, unsigned int qid, bool atomic)
{
    uint64_t cqs = dlb2_qid_cqs(s, qid);

    while (cqs) {
        unsigned int cq = ctz64(cqs);
        DLB2SlotStatus *st = &s->ldb_port[cq].st;
        uint8_t slots = dlb2_qidix(s, DLB2_R_LSP_QID2CQIDIX_00, qid, cq);

        cqs &= cqs - 1;
        if (atomic) {
            st->rlist_haswork |= slots;
        } else {
            st->nalb_haswork |= slots;
        }
    }
}

/*
 * A queue's inflight status, INFERRED (facts §6.7 step 5f and the DPDK
 * comment it quotes: the scheduler re-evaluates a mapping only when the
 * queue's inflight status changes, which is why the dynamic map sets
 * INFLIGHT_OK of every (CQ, slot) mapped to the queue).  A queue at its
 * inflight limit (LSP_QID_LDB_INFL_LIM) clears INFLIGHT_OK of each slot
 * mapped to it (valid in LSP_CQ2PRIOV, naming it in LSP_CQ2QID, set in
 * LSP_QID2CQIDIX); a completion that leaves it below the limit sets them
 * again.  CHOICE (when "at the limit" is evaluated): when a QE of the
 * queue is scheduled (@completion false) and when its limit is written
 * (the write of 0 that starts a dynamic map clears them at once); a
 * limit written above the count sets nothing: only SCHED_CTRL or a
 * completion does.  DPDK's domain reset, which writes the limit 0 after
 * clearing the ports' valid bits, is unaffected.
 */
void dlb2_qid_inflight_status(DLB2State *s, unsigned int qid, bool completion)
{
    uint32_t lim = dlb2_reg(s, DLB2_R_LSP_QID_LDB_INFL_LIM, qid) & 0xfff;
    bool below = s->ldb_queue[qid].inflight < lim;
    uint64_t cqs;

    if (below != completion) {
        return;
    }
    cqs = dlb2_qid_cqs(s, qid);
    while (cqs) {
        unsigned int cq = ctz64(cqs);
        DLB2SlotStatus *st = &s->ldb_port[cq].st;
        uint8_t slots = dlb2_slots_mapped(s, cq, qid);

        cqs &= cqs - 1;
        st->inflight_ok = below ? st->inflight_ok | slots :
                                  st->inflight_ok & ~slots;
    }
}

/*
 * LSP_LDB_SCHED_CTRL: an indirect write of one (CQ, slot) status flag, FACT
 * (facts §6.7 step 5e).
 */
void dlb2_sched_ctrl(DLB2State *s, uint32_t val)
{
    unsigned int cq = DLB2_SCHED_CTRL_CQ(val);
    uint8_t bit = 1u << DLB2_SCHED_CTRL_QIDIX(val);
    bool set = val & DLB2_SCHED_CTRL_VALUE;
    DLB2SlotStatus *st;

    trace_dlb2_sched_ctrl(val);
    if (cq >= DLB2_NUM_LDB_PORTS) {
        /* No such CQ: ignored, CHOICE. */
        qemu_log_mask(LOG_GUEST_ERROR, "dlb2: LSP_LDB_SCHED_CTRL names CQ "
                      "%u\n", cq);
        return;
    }
    st = &s->ldb_port[cq].st;
#define DLB2_UPDATE(sel, field) \
    if (val & (sel)) { \
        st->field = set ? st->field | bit : st->field & ~bit; \
    }
    DLB2_UPDATE(DLB2_SCHED_CTRL_NALB_V, nalb_haswork);
    DLB2_UPDATE(DLB2_SCHED_CTRL_RLIST_V, rlist_haswork);
    DLB2_UPDATE(DLB2_SCHED_CTRL_INFL_OK_V, inflight_ok);
    DLB2_UPDATE(DLB2_SCHED_CTRL_AQED_V, aqed_nfull);
#undef DLB2_UPDATE
    /* SLIST_HASWORK_V (the replay list) has nothing to act on here: CHOICE. */
}
