/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel DLB 2.0 / 2.5 device model: ingress alarms and interrupts.
 *
 * Alarms are latched in SYS_ALARM_PF_SYND0/1/2, FACT (facts §8.2), (MORE
 * is set when one arrives while SYND0 is still VALID, CHOICE) and signalled
 * on MSI-X vector 0, FACT (facts §1.4).  CQ interrupts (8.1) fire once per
 * arm when the CQ holds at least the configured number of QEs, INFERRED
 * (facts §8.1): in compressed mode on vector 1, FACT (facts §8.1), with the
 * CQ's bit set in the occupancy status registers; in packed mode on vector
 * 1 + SYS_*_CQ_ISR.VECTOR, INFERRED (facts §1.4).  Vectors 0 and 1 are not
 * sent again until software acknowledges them in SYS_MSIX_ACK, INFERRED
 * (facts §8.1); an event meanwhile is sent on the acknowledgement, CHOICE.
 * With msix-erratum=on, vector 1 has the "lost MSI-X interrupts" erratum
 * whose workaround the drivers apply, FACT (facts §8.1), in the form
 * dlb2_msix_ack() gives it, CHOICE.
 */
#include "qemu/osdep.h"
#include "hw/pci/msix.h"
#include "dlb2.h"
#include "trace.h"

/*
 * Where each alarm is reported: SYND0 SOURCE, UNIT, AID, enable bit: FACT
 * (facts §8.2), but the AIDs of ILLEGAL_PP and ILLEGAL_QID_CFG (CHOICE), their
 * SOURCE 0 (INFERRED, facts §8.2) and the CHP alarms always on (CHOICE).
 */
static const struct {
    const char *name;
    uint8_t source, unit, aid;
    int8_t enable_bit;      /* SYS_INGRESS_ALARM_ENBL, -1: always on */
} dlb2_alarm_info[DLB2_NUM_ALARMS] = {
    [DLB2_ALARM_ILLEGAL_ENQ]     = { "illegal-enqueue", 1, 4, 1, -1 },
    [DLB2_ALARM_EXCESS_TOKENS]   = { "excess-token-pops", 1, 4, 2, -1 },
    [DLB2_ALARM_ILLEGAL_HCW]     = { "illegal-hcw", 0, 0, 5, 0 },
    [DLB2_ALARM_ILLEGAL_QID]     = { "illegal-qid", 0, 0, 3, 3 },
    [DLB2_ALARM_DISABLED_QID]    = { "disabled-qid", 0, 0, 4, 4 },
    [DLB2_ALARM_ILLEGAL_PP]      = { "illegal-pp", 0, 0, 6, 1 },
    [DLB2_ALARM_ILLEGAL_QID_CFG] = { "illegal-qid-cfg", 0, 0, 7, 5 },
};

static void dlb2_msix_send(DLB2State *s, unsigned int vec)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (vec < 2) {
        if (s->vec_latched[vec]) {
            trace_dlb2_msix_deferred(vec);
            s->vec_deferred[vec] = true;
            return;
        }
        s->vec_latched[vec] = true;
    }
    trace_dlb2_msix(vec);
    if (msix_enabled(pdev)) {
        msix_notify(pdev, vec);
    }
}

/*
 * SYS_MSIX_ACK, write one to clear: FACT (facts §8.1).  An event that came
 * while the vector was latched is sent now, CHOICE; with msix-erratum=on
 * (CSSY-1650, "lost MSI-X interrupts", FACT, facts §8.1: its name and the
 * workaround) the form of the bug is a CHOICE: vector 1's event is lost
 * unless SYS_MSIX_PASSTHRU bit 1 is set during the acknowledgement, when it
 * goes to the MSI-X logic, which keeps it pending while the drivers'
 * workaround has the vector masked and sends it on the unmask.  Vector 0
 * has no erratum, CHOICE (the drivers work around vector 1 only, facts §8.1).
 * Without the erratum SYS_MSIX_PASSTHRU is stored, not used, INFERRED
 * (facts §8.1: "PASSTHRU as storage").
 */
void dlb2_msix_ack(DLB2State *s, uint32_t val)
{
    uint32_t passthru = dlb2_reg(s, DLB2_R_SYS_MSIX_PASSTHRU, 0);
    unsigned int v;

    for (v = 0; v < 2; v++) {
        if (!(val & (1u << v))) {
            continue;
        }
        s->vec_latched[v] = false;
        if (!s->vec_deferred[v]) {
            continue;
        }
        s->vec_deferred[v] = false;
        if (v == DLB2_VEC_CQ && s->msix_erratum && !(passthru & (1u << v))) {
            trace_dlb2_msix_lost(v);
            continue;
        }
        dlb2_msix_send(s, v);
    }
}

void dlb2_alarm(DLB2State *s, DLB2Alarm alarm, bool is_ldb, unsigned int port,
                const DLB2HCW *hcw)
{
    uint32_t synd0 = dlb2_reg(s, DLB2_R_SYS_ALARM_PF_SYND0, 0);
    int enable_bit = dlb2_alarm_info[alarm].enable_bit;

    const char *name = dlb2_alarm_info[alarm].name;
    const char *type = is_ldb ? "ldb" : "dir";

    s->alarm_count[alarm]++;
    if (enable_bit >= 0 &&
        !(dlb2_reg(s, DLB2_R_SYS_INGRESS_ALARM_ENBL, 0) & (1u << enable_bit))) {
        trace_dlb2_alarm(name, type, port, "disabled");
        return;     /* counted, dropped, not reported: FACT (facts §8.2) */
    }
    if (synd0 & (1u << 31)) {
        trace_dlb2_alarm(name, type, port, "MORE");
        dlb2_reg_set(s, DLB2_R_SYS_ALARM_PF_SYND0, 0, synd0 | (1u << 30));
        return;     /* MORE: the previous one is not consumed, CHOICE */
    }
    trace_dlb2_alarm(name, type, port, "reported");
    synd0 = (port & 0x7f) | (!dlb2_alarm_info[alarm].source ? 0 : is_ldb << 7) |
            (uint32_t)is_ldb << 13 |
            (uint32_t)dlb2_alarm_info[alarm].aid << 16 |
            (uint32_t)dlb2_alarm_info[alarm].unit << 22 |
            (uint32_t)dlb2_alarm_info[alarm].source << 26 | 1u << 31;
    dlb2_reg_set(s, DLB2_R_SYS_ALARM_PF_SYND0, 0, synd0);
    /* The HCW's fields: FACT (facts §8.2); DSI = the port: CHOICE. */
    dlb2_reg_set(s, DLB2_R_SYS_ALARM_PF_SYND1, 0,
                 port | (uint32_t)hcw->qid << 16 |
                 (uint32_t)(hcw->sched & 3) << 24 |
                 (uint32_t)((hcw->sched >> 2) & 7) << 26 |
                 (uint32_t)(hcw->sched >> 5) << 29);
    dlb2_reg_set(s, DLB2_R_SYS_ALARM_PF_SYND2, 0,
                 hcw->lock_id | (uint32_t)(hcw->flags & 1) << 16 |
                 (uint32_t)(hcw->cmd & 0x1f) << 24);
    dlb2_msix_send(s, DLB2_VEC_SERVICE);
}

void dlb2_cq_irq_check(DLB2State *s, bool is_ldb, unsigned int port)
{
    DLB2Port *p = dlb2_port(s, is_ldb, port);
    uint32_t enb = dlb2_reg(s, is_ldb ? DLB2_R_CHP_LDB_CQ_INT_ENB :
                                        DLB2_R_CHP_DIR_CQ_INT_ENB, port);
    uint32_t thresh = (dlb2_reg(s, is_ldb ? DLB2_R_CHP_LDB_CQ_INT_DEPTH_THRSH :
                                            DLB2_R_CHP_DIR_CQ_INT_DEPTH_THRSH,
                                port) & 0x1fff) + 1;
    uint32_t isr = dlb2_reg(s, is_ldb ? DLB2_R_SYS_LDB_CQ_ISR :
                                        DLB2_R_SYS_DIR_CQ_ISR, port);
    uint32_t *occ = is_ldb ? s->occ_ldb : s->occ_dir;

    /* Outstanding QEs are the tokens held, less the depth<8 preload: CHOICE. */
    if (!p->armed || !(enb & 2) || p->tokens < p->token_bias ||
        p->tokens - p->token_bias < thresh) {
        return;
    }
    p->armed = false;
    occ[port / 32] |= 1u << (port % 32);
    trace_dlb2_cq_irq(is_ldb ? "ldb" : "dir", port);
    if (((isr >> 10) & 3) != 2) {
        return;     /* EN_CODE is not MSI-X: status only, CHOICE */
    }
    if (dlb2_reg(s, DLB2_R_SYS_MSIX_MODE, 0) & 1) {
        dlb2_msix_send(s, DLB2_VEC_CQ);
    } else {
        dlb2_msix_send(s, DLB2_VEC_CQ + (isr & 0x3f));
    }
}
