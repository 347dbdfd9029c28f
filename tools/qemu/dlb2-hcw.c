/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel DLB 2.0 / 2.5 device model: hardware control words.
 *
 * Each HCW written to a producer port is a command (facts section 3.1): the
 * low nibble of byte 15 is {token, completion, fragment, valid}.  This file
 * checks the command and its queue, takes the credit of an enqueue from the
 * port's domain, retires completions from the port's history list (restoring
 * order for ordered queues), returns CQ tokens and arms CQ interrupts.
 * Anything illegal raises an ingress alarm and the QE is dropped.
 */
#include "qemu/osdep.h"
#include "dlb2.h"
#include "trace.h"

#define DLB2_CMD_NOOP       0x0
#define DLB2_CMD_BAT_T      0x1
#define DLB2_CMD_COMP       0x2
#define DLB2_CMD_COMP_T     0x3
#define DLB2_CMD_ARM        0x5
#define DLB2_CMD_NEW        0x8
#define DLB2_CMD_NEW_T      0x9
#define DLB2_CMD_FWD        0xa
#define DLB2_CMD_FWD_T      0xb
#define DLB2_CMD_FRAG       0xc
#define DLB2_CMD_FRAG_T     0xd

static uint32_t *dlb2_credit_pool(DLB2State *s, unsigned int domain,
                                  bool to_ldb)
{
    /* 2.5 has one combined pool per domain: FACT (facts §5.1). */
    if (s->ver == DLB2_V2_5 || to_ldb) {
        return &s->credits_ldb[domain];
    }
    return &s->credits_dir[domain];
}

void dlb2_credit_return(DLB2State *s, unsigned int domain, bool to_ldb)
{
    (*dlb2_credit_pool(s, domain, to_ldb))++;
}

/*
 * Check an enqueue's destination against the port's domain and the queue's
 * configuration.  Raises the alarm and returns false when the QE must be
 * dropped.
 */
static bool dlb2_enqueue_allowed(DLB2State *s, bool is_ldb, unsigned int port,
                                 unsigned int domain, const DLB2HCW *hcw)
{
    unsigned int type = hcw->sched & 3, qid = hcw->qid;
    unsigned int ndir = dlb2_num_dir_ports(s->ver);
    uint32_t cfg;

    /*
     * A QID past the last queue is ILLEGAL_QID: FACT (facts §3) from 128 up,
     * CHOICE below 128.  No write permission is DISABLED_QID: FACT (facts
     * §7.1).
     */
    if (type == DLB2_SCHED_DIRECTED) {
        if (qid >= ndir) {
            dlb2_alarm(s, DLB2_ALARM_ILLEGAL_QID, is_ldb, port, hcw);
            return false;
        }
        if (!(dlb2_reg(s, DLB2_R_SYS_DIR_VASQID_V, domain * ndir + qid) & 1)) {
            dlb2_alarm(s, DLB2_ALARM_DISABLED_QID, is_ldb, port, hcw);
            return false;
        }
        return true;
    }
    if (qid >= DLB2_NUM_LDB_QUEUES) {
        dlb2_alarm(s, DLB2_ALARM_ILLEGAL_QID, is_ldb, port, hcw);
        return false;
    }
    if (!(dlb2_reg(s, DLB2_R_SYS_LDB_VASQID_V,
                   domain * DLB2_NUM_LDB_QUEUES + qid) & 1)) {
        dlb2_alarm(s, DLB2_ALARM_DISABLED_QID, is_ldb, port, hcw);
        return false;
    }
    /*
     * A queue with sequence numbers takes atomic and ordered QEs, one
     * without takes atomic and unordered; atomic needs atomic inflights;
     * ordered needs a valid sequence-number slot (facts sections 3.1,
     * 6.3, 7.6; dlb2-map.c).  The rules: FACT (facts §6.3); the alarm and
     * the slot check: CHOICE (facts §3.1, §11: which alarm is unknown).
     */
    cfg = dlb2_reg(s, DLB2_R_SYS_LDB_QID_CFG_V, qid);
    dlb2_cfg_check(s);
    if ((type == DLB2_SCHED_ORDERED &&
         (!(cfg & 1) || (s->sn_bad & (1u << qid)))) ||
        (type == DLB2_SCHED_UNORDERED && (cfg & 1)) ||
        (type == DLB2_SCHED_ATOMIC && !(cfg & 2))) {
        if (type == DLB2_SCHED_ORDERED && (s->sn_bad & (1u << qid))) {
            dlb2_cfg_bad_used(s);
        }
        dlb2_alarm(s, DLB2_ALARM_ILLEGAL_QID_CFG, is_ldb, port, hcw);
        return false;
    }
    return true;
}

/*
 * Take a credit for a QE about to enter the device; false: no credit,
 * PP_ILLEGAL_ENQ, FACT (facts §5.1), and the QE dropped, INFERRED (facts
 * §5.1, §11: "very likely").
 */
static bool dlb2_take_credit(DLB2State *s, bool is_ldb, unsigned int port,
                             unsigned int domain, const DLB2HCW *hcw)
{
    uint32_t *pool = dlb2_credit_pool(s, domain,
                                      (hcw->sched & 3) != DLB2_SCHED_DIRECTED);

    if (*pool == 0) {
        dlb2_alarm(s, DLB2_ALARM_ILLEGAL_ENQ, is_ldb, port, hcw);
        return false;
    }
    (*pool)--;
    return true;
}

static DLB2QE *dlb2_qe_new(const DLB2HCW *hcw, unsigned int domain)
{
    DLB2QE *qe = g_new0(DLB2QE, 1);

    qe->hcw = *hcw;
    qe->domain = domain;
    return qe;
}

/* Send a QE to its destination queue (it holds a credit already). */
void dlb2_qe_route(DLB2State *s, DLB2QE *qe)
{
    if ((qe->hcw.sched & 3) == DLB2_SCHED_DIRECTED) {
        dlb2_dir_enqueue(s, qe);
    } else {
        dlb2_ldb_enqueue(s, qe);
    }
}

static void dlb2_return_tokens(DLB2State *s, bool is_ldb, unsigned int port,
                               unsigned int n, const DLB2HCW *hcw)
{
    uint32_t *tokens = &dlb2_port(s, is_ldb, port)->tokens;

    trace_dlb2_tokens(is_ldb ? "ldb" : "dir", port, n, *tokens);
    /* The "stuck-tokens" fault: token returns are lost (dlb2.c). */
    if (s->stuck_tokens) {
        return;
    }
    /*
     * More than held: EXCESS_TOKEN_POPS, FACT (facts §4.3); the pop is
     * refused whole, the count unchanged, CHOICE.
     */
    if (n > *tokens) {
        dlb2_alarm(s, DLB2_ALARM_EXCESS_TOKENS, is_ldb, port, hcw);
        return;
    }
    *tokens -= n;
}

/*
 * Retire the oldest scheduled QE of an LDB port, INFERRED (facts §7.5); with
 * none outstanding, an excess completion: PP_ILLEGAL_ENQ, FACT (facts §7.5).
 */
static void dlb2_complete(DLB2State *s, unsigned int port, const DLB2HCW *hcw)
{
    DLB2HistEntry e;

    if (!dlb2_hl_pop(s, port, &e)) {
        dlb2_alarm(s, DLB2_ALARM_ILLEGAL_ENQ, true, port, hcw);  /* excess */
        return;
    }
    trace_dlb2_complete(port, e.qid, e.sched_type);
    dlb2_ldb_retire(s, port, &e);
}

void dlb2_hcw_process(DLB2State *s, bool is_ldb, unsigned int port,
                      const DLB2HCW *hcw)
{
    unsigned int cmd = hcw->cmd & 0xf, domain;
    const DLB2HistEntry *oldest;
    DLB2QE *qe;

    trace_dlb2_hcw(is_ldb ? "ldb" : "dir", port, hcw->cmd, hcw->qid,
                   hcw->sched, hcw->lock_id, hcw->data);
    if (s->pmcsr_disable) {
        return;     /* powered off: nothing reaches the device, CHOICE */
    }
    if (!(dlb2_reg(s, is_ldb ? DLB2_R_SYS_LDB_PP_V : DLB2_R_SYS_DIR_PP_V,
                   port) & 1)) {
        /*
         * An unconfigured producer port: ILLEGAL_PP, reported only when
         * enabled in SYS_INGRESS_ALARM_ENBL (DPDK, which writes to every
         * port at probe, leaves it disabled; facts sections 3.2, 8.2).
         * The drop: FACT (facts §3.2); the alarm: INFERRED (facts §3.2:
         * "HW presumably flags ILLEGAL_PP").
         */
        trace_dlb2_drop_pp(is_ldb ? "ldb" : "dir", port);
        dlb2_alarm(s, DLB2_ALARM_ILLEGAL_PP, is_ldb, port, hcw);
        return;
    }
    domain = dlb2_reg(s, is_ldb ? DLB2_R_SYS_LDB_PP2VAS : DLB2_R_SYS_DIR_PP2VAS,
                      port) & 0x1f;

    /*
     * Commands: FACT (facts §3.1).  Byte 15 bits 7:4 (int_arm, error) and
     * byte 14 (no_dec, cmp_id, meas, weight) are ignored: CHOICE.
     */
    switch (cmd) {
    case DLB2_CMD_NOOP:
        return;
    case DLB2_CMD_BAT_T:
        /* lock_id[9:0] + 1 tokens: FACT (facts §3.1). */
        dlb2_return_tokens(s, is_ldb, port, (hcw->lock_id & 0x3ff) + 1, hcw);
        break;
    case DLB2_CMD_ARM:
        /*
         * Arms, FACT (facts §4.4).  Whether it also returns a token is
         * UNKNOWN (facts §11), CHOICE: none by default; with arm-token=on
         * one, as its token bit says (facts §3.1: DPDK's ARM is cq_token +
         * qe_frag), popped before the arm: an ARM from a port that holds
         * no token is an excess pop (EXCESS_TOKEN_POPS) and still arms.
         */
        if (s->arm_token) {
            dlb2_return_tokens(s, is_ldb, port, 1, hcw);
        }
        dlb2_port(s, is_ldb, port)->armed = true;
        dlb2_cq_irq_check(s, is_ldb, port);
        if (s->arm_token) {
            break;      /* the token may let the CQ take more */
        }
        return;
    case DLB2_CMD_NEW:
    case DLB2_CMD_NEW_T:
        if (dlb2_enqueue_allowed(s, is_ldb, port, domain, hcw) &&
            dlb2_take_credit(s, is_ldb, port, domain, hcw)) {
            dlb2_qe_route(s, dlb2_qe_new(hcw, domain));
        }
        if (cmd == DLB2_CMD_NEW_T) {
            /* One token: INFERRED (facts §3.1: lock_id is the flow). */
            dlb2_return_tokens(s, is_ldb, port, 1, hcw);
        }
        break;
    case DLB2_CMD_COMP:
    case DLB2_CMD_COMP_T:
    case DLB2_CMD_FWD:
    case DLB2_CMD_FWD_T:
    case DLB2_CMD_FRAG:
    case DLB2_CMD_FRAG_T:
        if (!is_ldb) {
            /*
             * Completions and fragments exist only for LDB ports: a DIR
             * port's is ILLEGAL_HCW, FACT (facts §3.1).
             */
            dlb2_alarm(s, DLB2_ALARM_ILLEGAL_HCW, is_ldb, port, hcw);
            return;
        }
        oldest = dlb2_hl_oldest(s, port);
        if (cmd & DLB2_HCW_VALID) {
            bool frag = cmd & DLB2_HCW_FRAG;

            /*
             * CHOICE: a QE that cannot be enqueued is dropped, but the
             * completion and token parts of the command still apply, so
             * that the port's history list does not wedge.  A FRAG whose
             * oldest entry is not ordered is an illegal fragment, and FWD
             * and FRAG attach their QE to an ordered oldest entry's SN:
             * INFERRED (facts §7.6).
             */
            if (frag && (!oldest || oldest->sched_type != DLB2_SCHED_ORDERED)) {
                dlb2_alarm(s, DLB2_ALARM_ILLEGAL_ENQ, is_ldb, port, hcw);
            } else if (dlb2_enqueue_allowed(s, is_ldb, port, domain, hcw) &&
                       dlb2_take_credit(s, is_ldb, port, domain, hcw)) {
                qe = dlb2_qe_new(hcw, domain);
                if (oldest && oldest->sched_type == DLB2_SCHED_ORDERED) {
                    dlb2_ordered_attach(s, oldest, qe);
                } else {
                    dlb2_qe_route(s, qe);
                }
            }
        }
        if (cmd & DLB2_HCW_COMP) {
            dlb2_complete(s, port, hcw);
        }
        if (cmd & DLB2_HCW_TOKEN) {
            /*
             * COMP_T returns lock_id + 1 tokens, FACT (facts §3.1); FWD_T
             * and FRAG_T one, INFERRED (facts §3.1).
             */
            dlb2_return_tokens(s, is_ldb, port,
                               cmd == DLB2_CMD_COMP_T ?
                               (hcw->lock_id & 0x3ff) + 1 : 1, hcw);
        }
        break;
    default:
        /* 0x4, 0x6, 0x7, 0xE, 0xF: CHOICE (facts §3.1: encodings unknown). */
        dlb2_alarm(s, DLB2_ALARM_ILLEGAL_HCW, is_ldb, port, hcw);
        return;
    }
    dlb2_schedule(s);
}
