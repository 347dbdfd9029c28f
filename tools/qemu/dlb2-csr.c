/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel DLB 2.0 / 2.5 device model: the CSR BAR register file.
 *
 * Every CSR is 32 bits wide and accessed with 32-bit loads and stores:
 * FACT (facts §1.2).  The register map of dlb2-regs.h is expanded for the
 * device's version into one storage word per register instance.  Plain
 * configuration registers read back what was written, INFERRED (facts §10:
 * plain storage), and their reset value until then, FACT (facts Appendix A);
 * the counters and status registers the drivers poll read the model's
 * live state; a few registers have side effects (write-1-to-clear status,
 * arming, the indirect scheduler control port).  Offsets outside the map read
 * 0 until written, keep what is written, and are logged as unimplemented:
 * CHOICE.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "dlb2.h"
#include "trace.h"

#define DLB2_REG_ABSENT 0xffffffffu
#define DLB2_QIDIX_WORDS 16         /* k = port / 4 */
#define DLB2_QIDIX_STRIDE 0x80000

typedef enum DLB2RegCount {
    ONE, LDB_PORT, DIR_PORT, LDB_QUEUE, DIR_QUEUE, DOMAIN, COS, SN_SLOT, VF,
    LDB_VASQID, DIR_VASQID, QIDIX,
} DLB2RegCount;

typedef struct DLB2RegDesc {
    const char *name;
    uint32_t offset[DLB2_NUM_VERSIONS];
    uint32_t stride;
    DLB2RegCount count;
    uint32_t reset;
} DLB2RegDesc;

static const DLB2RegDesc dlb2_regs[DLB2_NUM_REG_IDS] = {
#define DLB2_REG(n, o20, o25, str, cnt, rst) \
    [DLB2_R_##n] = { #n, { o20, o25 }, str, cnt, rst },
#include "dlb2-regs.h"
#undef DLB2_REG
};

static unsigned int dlb2_count(DLB2State *s, DLB2RegCount c)
{
    unsigned int ndir = dlb2_num_dir_ports(s->ver);

    switch (c) {
    case ONE:           return 1;
    case LDB_PORT:      return DLB2_NUM_LDB_PORTS;
    case DIR_PORT:      return ndir;
    case LDB_QUEUE:     return DLB2_NUM_LDB_QUEUES;
    case DIR_QUEUE:     return ndir;
    case DOMAIN:        return DLB2_NUM_DOMAINS;
    case COS:           return DLB2_NUM_COS;
    case SN_SLOT:       return DLB2_SN_SLOTS;
    case VF:            return 16;
    case LDB_VASQID:    return DLB2_NUM_DOMAINS * DLB2_NUM_LDB_QUEUES;
    case DIR_VASQID:    return DLB2_NUM_DOMAINS * ndir;
    case QIDIX:         return DLB2_NUM_LDB_QUEUES * DLB2_QIDIX_WORDS;
    }
    g_assert_not_reached();
}

static uint32_t dlb2_instance_offset(const DLB2RegDesc *d, DLB2Version ver,
                                     unsigned int i)
{
    if (d->count == QIDIX) {
        return d->offset[ver] + (i / DLB2_QIDIX_WORDS) * d->stride +
               (i % DLB2_QIDIX_WORDS) * DLB2_QIDIX_STRIDE;
    }
    return d->offset[ver] + i * d->stride;
}

uint32_t dlb2_reg(DLB2State *s, DLB2RegId id, unsigned int idx)
{
    assert(idx < s->reg_instances[id]);
    return s->regs[s->reg_first[id] + idx];
}

void dlb2_reg_set(DLB2State *s, DLB2RegId id, unsigned int idx, uint32_t val)
{
    assert(idx < s->reg_instances[id]);
    s->regs[s->reg_first[id] + idx] = val;
}

/* Which register instance an offset is, if any. */
static bool dlb2_reg_lookup(DLB2State *s, hwaddr addr, DLB2RegId *id,
                            unsigned int *idx)
{
    uint32_t v = GPOINTER_TO_UINT(g_hash_table_lookup(s->reg_index,
                                                      GUINT_TO_POINTER(addr)));

    if (!v) {
        return false;
    }
    *id = (v >> 16) - 1;
    *idx = v & 0xffff;
    return true;
}

/* CHP_{LDB,DIR}_CQ_INTR_ARMED{0,1}: which ports a register covers. */
static bool dlb2_armed_is_ldb(DLB2RegId id)
{
    return id == DLB2_R_CHP_LDB_CQ_INTR_ARMED0 ||
           id == DLB2_R_CHP_LDB_CQ_INTR_ARMED1;
}

static unsigned int dlb2_armed_base(DLB2RegId id)
{
    return id == DLB2_R_CHP_LDB_CQ_INTR_ARMED1 ||
           id == DLB2_R_CHP_DIR_CQ_INTR_ARMED1 ? 32 : 0;
}

/* Registers whose value is the model's live state. */
static bool dlb2_live_read(DLB2State *s, DLB2RegId id, unsigned int i,
                           uint32_t *val)
{
    switch (id) {
    /* Tokens held, with the depth<8 preload: FACT (facts §4.3). */
    case DLB2_R_LSP_CQ_LDB_TKN_CNT:
        *val = s->ldb_port[i].c.tokens;
        return true;
    case DLB2_R_LSP_CQ_DIR_TKN_CNT:
        *val = s->dir_port[i].tokens;
        return true;
    /* The CQ's history-list entries: INFERRED (facts §7.5). */
    case DLB2_R_LSP_CQ_LDB_INFL_CNT:
        *val = dlb2_hl_count(s, i);
        return true;
    /* The device's CQ write pointer: FACT (facts §4.2). */
    case DLB2_R_CHP_LDB_CQ_WPTR:
        *val = s->ldb_port[i].c.wptr & 0x7ff;
        return true;
    case DLB2_R_CHP_DIR_CQ_WPTR:
        *val = s->dir_port[i].wptr & 0x1fff;
        return true;
    /* Scheduled, not completed: INFERRED (facts §7.3). */
    case DLB2_R_LSP_QID_LDB_INFL_CNT:
        *val = s->ldb_queue[i].inflight;
        return true;
    /* Waiting QEs, non-atomic here, atomic in AQED: CHOICE (facts §7.4). */
    case DLB2_R_LSP_QID_LDB_ENQUEUE_CNT:
        *val = s->ldb_queue[i].nonatomic;
        return true;
    case DLB2_R_LSP_QID_ATM_ACTIVE:
        *val = 0;   /* CHOICE: waiting atomic QEs are in the AQED */
        return true;
    case DLB2_R_LSP_QID_AQED_ACTIVE_CNT:
        *val = s->ldb_queue[i].atomic;
        return true;
    /* INFERRED (facts §7.6: the next SN to hand out). */
    case DLB2_R_CHP_ORD_QID_SN:
        *val = s->ldb_queue[i].sn_next;
        return true;
    /* The directed queue's depth: FACT (facts §7.8). */
    case DLB2_R_LSP_QID_DIR_ENQUEUE_CNT:
        *val = s->dir_queue[i].depth;
        return true;
    /* The pool's current count, not the value written: CHOICE. */
    case DLB2_R_CHP_CFG_LDB_VAS_CRD:
    case DLB2_R_CHP_CFG_VAS_CRD:
        *val = s->credits_ldb[i];
        return true;
    case DLB2_R_CHP_CFG_DIR_VAS_CRD:
        *val = s->credits_dir[i];
        return true;
    /* Schedule and enqueue totals: FACT (facts §7.9). */
    case DLB2_R_LSP_CQ_LDB_TOT_SCH_CNTL:
        *val = s->ldb_port[i].c.sched_count;
        return true;
    case DLB2_R_LSP_CQ_LDB_TOT_SCH_CNTH:
        *val = s->ldb_port[i].c.sched_count >> 32;
        return true;
    case DLB2_R_LSP_CQ_DIR_TOT_SCH_CNTL:
        *val = s->dir_port[i].sched_count;
        return true;
    case DLB2_R_LSP_CQ_DIR_TOT_SCH_CNTH:
        *val = s->dir_port[i].sched_count >> 32;
        return true;
    case DLB2_R_LSP_QID_ATM_TOT_ENQ_CNTL:
        *val = s->ldb_queue[i].enq_total_atm;
        return true;
    case DLB2_R_LSP_QID_ATM_TOT_ENQ_CNTH:
        *val = s->ldb_queue[i].enq_total_atm >> 32;
        return true;
    case DLB2_R_LSP_QID_NALDB_TOT_ENQ_CNTL:
        *val = s->ldb_queue[i].enq_total_naldb;
        return true;
    case DLB2_R_LSP_QID_NALDB_TOT_ENQ_CNTH:
        *val = s->ldb_queue[i].enq_total_naldb >> 32;
        return true;
    case DLB2_R_LSP_QID_DIR_TOT_ENQ_CNTL:
        *val = s->dir_queue[i].enq_total;
        return true;
    case DLB2_R_LSP_QID_DIR_TOT_ENQ_CNTH:
        *val = s->dir_queue[i].enq_total >> 32;
        return true;
    case DLB2_R_LSP_LDB_SCH_CNT_L:
        *val = s->ldb_sched_total;
        return true;
    case DLB2_R_LSP_LDB_SCH_CNT_H:
        *val = s->ldb_sched_total >> 32;
        return true;
    case DLB2_R_LSP_DIR_SCH_CNT_L:
        *val = s->dir_sched_total;
        return true;
    case DLB2_R_LSP_DIR_SCH_CNT_H:
        *val = s->dir_sched_total >> 32;
        return true;
    /* Occupancy interrupt status: FACT (facts §8.1). */
    case DLB2_R_SYS_LDB_CQ_31_0_OCC_INT_STS:
        *val = s->occ_ldb[0];
        return true;
    case DLB2_R_SYS_LDB_CQ_63_32_OCC_INT_STS:
        *val = s->occ_ldb[1];
        return true;
    case DLB2_R_SYS_DIR_CQ_31_0_OCC_INT_STS:
        *val = s->occ_dir[0];
        return true;
    case DLB2_R_SYS_DIR_CQ_63_32_OCC_INT_STS:
        *val = s->occ_dir[1];
        return true;
    case DLB2_R_CHP_LDB_CQ_INTR_ARMED0:
    case DLB2_R_CHP_LDB_CQ_INTR_ARMED1:
    case DLB2_R_CHP_DIR_CQ_INTR_ARMED0:
    case DLB2_R_CHP_DIR_CQ_INTR_ARMED1: {
        unsigned int base = dlb2_armed_base(id), p;

        /* The armed bitmap: INFERRED (facts §8.1: presumably readable). */
        *val = 0;
        for (p = 0; p < 32; p++) {
            *val |= (uint32_t)dlb2_port(s, dlb2_armed_is_ldb(id),
                                        base + p)->armed << p;
        }
        return true;
    }
    case DLB2_R_CM_CFG_PM_PMCSR_DISABLE:
        *val = s->pmcsr_disable;
        return true;
    default:
        return false;
    }
}

/* Registers whose writes act on the live state; true when fully handled. */
static bool dlb2_live_write(DLB2State *s, DLB2RegId id, unsigned int i,
                            uint32_t val)
{
    switch (id) {
    /* Software's preload, the depth<8 bias: FACT (facts §4.3, §6.5). */
    case DLB2_R_LSP_CQ_LDB_TKN_CNT:
        s->ldb_port[i].c.tokens = s->ldb_port[i].c.token_bias = val & 0x7ff;
        return true;
    case DLB2_R_LSP_CQ_DIR_TKN_CNT:
        s->dir_port[i].tokens = s->dir_port[i].token_bias = val & 0x1fff;
        return true;
    /* Reset to 0 when the port is configured: FACT (facts §4.2). */
    case DLB2_R_CHP_LDB_CQ_WPTR:
        s->ldb_port[i].c.wptr = val & 0x7ff;
        return true;
    case DLB2_R_CHP_DIR_CQ_WPTR:
        s->dir_port[i].wptr = val & 0x1fff;
        return true;
    /* The domain's pool: FACT (facts §5.1). */
    case DLB2_R_CHP_CFG_LDB_VAS_CRD:
    case DLB2_R_CHP_CFG_VAS_CRD:
        s->credits_ldb[i] = val & 0x7fff;
        return true;
    case DLB2_R_CHP_CFG_DIR_VAS_CRD:
        s->credits_dir[i] = val & 0x3fff;
        return true;
    /* Any write clears the 64-bit count: CHOICE. */
    case DLB2_R_LSP_CQ_LDB_TOT_SCH_CNTL:
    case DLB2_R_LSP_CQ_LDB_TOT_SCH_CNTH:
        s->ldb_port[i].c.sched_count = 0;
        return true;
    case DLB2_R_LSP_CQ_DIR_TOT_SCH_CNTL:
    case DLB2_R_LSP_CQ_DIR_TOT_SCH_CNTH:
        s->dir_port[i].sched_count = 0;
        return true;
    case DLB2_R_LSP_QID_ATM_TOT_ENQ_CNTL:
    case DLB2_R_LSP_QID_ATM_TOT_ENQ_CNTH:
        s->ldb_queue[i].enq_total_atm = 0;
        return true;
    case DLB2_R_LSP_QID_NALDB_TOT_ENQ_CNTL:
    case DLB2_R_LSP_QID_NALDB_TOT_ENQ_CNTH:
        s->ldb_queue[i].enq_total_naldb = 0;
        return true;
    case DLB2_R_LSP_QID_DIR_TOT_ENQ_CNTL:
    case DLB2_R_LSP_QID_DIR_TOT_ENQ_CNTH:
        s->dir_queue[i].enq_total = 0;
        return true;
    /* Write 1 to clear: FACT (facts §8.1). */
    case DLB2_R_SYS_LDB_CQ_31_0_OCC_INT_STS:
        s->occ_ldb[0] &= ~val;
        return true;
    case DLB2_R_SYS_LDB_CQ_63_32_OCC_INT_STS:
        s->occ_ldb[1] &= ~val;
        return true;
    case DLB2_R_SYS_DIR_CQ_31_0_OCC_INT_STS:
        s->occ_dir[0] &= ~val;
        return true;
    case DLB2_R_SYS_DIR_CQ_63_32_OCC_INT_STS:
        s->occ_dir[1] &= ~val;
        return true;
    case DLB2_R_CHP_LDB_CQ_INTR_ARMED0:
    case DLB2_R_CHP_LDB_CQ_INTR_ARMED1:
    case DLB2_R_CHP_DIR_CQ_INTR_ARMED0:
    case DLB2_R_CHP_DIR_CQ_INTR_ARMED1: {
        bool is_ldb = dlb2_armed_is_ldb(id);
        unsigned int base = dlb2_armed_base(id), p;

        /*
         * Write one to arm, INFERRED (facts §8.1: drivers write one bit);
         * writing 0 does not disarm, CHOICE.
         */
        for (p = 0; p < 32; p++) {
            if (!(val & (1u << p))) {
                continue;
            }
            dlb2_port(s, is_ldb, base + p)->armed = true;
            dlb2_cq_irq_check(s, is_ldb, base + p);
        }
        return true;
    }
    case DLB2_R_SYS_MSIX_ACK:
        dlb2_msix_ack(s, val);
        return true;
    case DLB2_R_SYS_ALARM_PF_SYND0:
    case DLB2_R_SYS_ALARM_HW_SYND:
        /* Write VALID|MORE to clear: FACT (facts §8.2). */
        dlb2_reg_set(s, id, i, dlb2_reg(s, id, i) & ~(val & 0xc0000000u));
        return true;
    case DLB2_R_LSP_LDB_SCHED_CTRL:
        dlb2_reg_set(s, id, i, val);
        dlb2_sched_ctrl(s, val);
        return true;
    case DLB2_R_CM_CFG_PM_PMCSR_DISABLE:
        /* DISABLE, bit 0, cleared to power on: FACT (facts §6.1). */
        s->pmcsr_disable = val & 1;
        return true;
    case DLB2_R_CHP_ORD_QID_SN:
        /*
         * The next sequence number, INFERRED (facts §7.6); software only
         * ever resets it.  The release pointer is the SN slot's
         * (dlb2_sn_oldest()).
         */
        s->ldb_queue[i].sn_next = (val & 0x3ff) % dlb2_num_sns(s, i);
        return true;
    case DLB2_R_CM_DIAG_RESET_STS:
    case DLB2_R_CM_CFG_DIAGNOSTIC_IDLE_STATUS:
    case DLB2_R_CM_CFG_PM_STATUS:
    case DLB2_R_SYS_TOTAL_VAS:
    case DLB2_R_SYS_TOTAL_LDB_CRDS:
    case DLB2_R_SYS_TOTAL_DIR_CRDS:
    case DLB2_R_SYS_TOTAL_CREDITS:
        return true;    /* read-only: CHOICE */
    default:
        return false;
    }
}

static uint64_t dlb2_csr_read(void *opaque, hwaddr addr, unsigned size)
{
    DLB2State *s = opaque;
    unsigned int idx;
    DLB2RegId id;
    uint32_t val;

    if (s->off_bus) {
        return UINT32_MAX;  /* no completer: the root port answers ones */
    }
    dlb2_delay_due(s);
    dlb2_csr_flush(s);      /* a read flushes posted writes (dlb2-delay.c) */
    dlb2_schedule_overdue(s);
    if (!dlb2_reg_lookup(s, addr, &id, &idx)) {
        val = GPOINTER_TO_UINT(g_hash_table_lookup(s->unknown_regs,
                                                   GUINT_TO_POINTER(addr)));
        qemu_log_mask(LOG_UNIMP, "dlb2: read of unknown CSR 0x%" HWADDR_PRIx
                      "\n", addr);
        trace_dlb2_csr_read(addr, "?", 0, val);
        return val;
    }
    if (s->pmcsr_disable && id != DLB2_R_CM_CFG_PM_PMCSR_DISABLE) {
        val = 0;    /* powered off: nothing answers but PMCSR, CHOICE */
    } else if (!dlb2_live_read(s, id, idx, &val)) {
        val = dlb2_reg(s, id, idx);
    }
    trace_dlb2_csr_read(addr, dlb2_regs[id].name, idx, val);
    return val;
}

/* A CSR write takes effect: now, or later with csr-write-delay. */
void dlb2_csr_apply(DLB2State *s, hwaddr addr, uint32_t val)
{
    unsigned int idx;
    DLB2RegId id;

    if (!dlb2_reg_lookup(s, addr, &id, &idx)) {
        qemu_log_mask(LOG_UNIMP, "dlb2: write of unknown CSR 0x%" HWADDR_PRIx
                      " = 0x%x\n", addr, val);
        trace_dlb2_csr_write(addr, "?", 0, val);
        g_hash_table_insert(s->unknown_regs, GUINT_TO_POINTER(addr),
                            GUINT_TO_POINTER(val));
        return;
    }
    trace_dlb2_csr_write(addr, dlb2_regs[id].name, idx, val);
    if (s->pmcsr_disable && id != DLB2_R_CM_CFG_PM_PMCSR_DISABLE) {
        /* Powered off: the write is dropped, CHOICE. */
        qemu_log_mask(LOG_GUEST_ERROR, "dlb2: write of %s while powered off "
                      "(CM_CFG_PM_PMCSR_DISABLE): dropped\n",
                      dlb2_regs[id].name);
        return;
    }
    if (!dlb2_map_write(s, id, idx, &val)) {
        return;
    }
    if (!dlb2_live_write(s, id, idx, val)) {
        dlb2_reg_set(s, id, idx, val);
    }
    if (id == DLB2_R_LSP_QID_LDB_INFL_LIM) {
        dlb2_qid_inflight_status(s, idx, false);
    }
    if (dlb2_reg_affects_cfg(id)) {
        s->cfg_dirty = true;
    }
    /* A configuration change may make waiting QEs schedulable. */
    dlb2_schedule(s);
}

static void dlb2_csr_write(void *opaque, hwaddr addr, uint64_t val64,
                           unsigned size)
{
    DLB2State *s = opaque;

    if (s->off_bus) {
        return;
    }
    dlb2_delay_due(s);
    if (!dlb2_csr_post(s, addr, val64)) {
        dlb2_csr_apply(s, addr, val64);
    }
}

const MemoryRegionOps dlb2_csr_ops = {
    .read = dlb2_csr_read,
    .write = dlb2_csr_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

void dlb2_csr_init(DLB2State *s)
{
    unsigned int total = 0, r, i;

    for (r = 0; r < DLB2_NUM_REG_IDS; r++) {
        s->reg_first[r] = total;
        s->reg_instances[r] = dlb2_regs[r].offset[s->ver] == DLB2_REG_ABSENT ?
                           0 : dlb2_count(s, dlb2_regs[r].count);
        total += s->reg_instances[r];
    }
    s->regs = g_new0(uint32_t, total);
    s->reg_index = g_hash_table_new(g_direct_hash, g_direct_equal);
    s->unknown_regs = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (r = 0; r < DLB2_NUM_REG_IDS; r++) {
        for (i = 0; i < s->reg_instances[r]; i++) {
            uint32_t off = dlb2_instance_offset(&dlb2_regs[r], s->ver, i);

            /* Two names for one offset would be a bug in dlb2-regs.h. */
            assert(!g_hash_table_contains(s->reg_index, GUINT_TO_POINTER(off)));
            g_hash_table_insert(s->reg_index, GUINT_TO_POINTER(off),
                                GUINT_TO_POINTER(((r + 1) << 16) | i));
        }
    }
    /*
     * PMCSR_DISABLE is 1 at power-on, FACT (facts §6.1), and set only here:
     * it survives FLR, FACT (facts §6.1: it survives device reset), and a
     * system reset, CHOICE (the facts do not say).
     */
    s->pmcsr_disable = 1;
    dlb2_csr_reset(s);
}

void dlb2_csr_reset(DLB2State *s)
{
    unsigned int r, i;

    for (r = 0; r < DLB2_NUM_REG_IDS; r++) {
        for (i = 0; i < s->reg_instances[r]; i++) {
            s->regs[s->reg_first[r] + i] = dlb2_regs[r].reset;
        }
    }
    g_hash_table_remove_all(s->unknown_regs);
}

void dlb2_csr_fini(DLB2State *s)
{
    g_hash_table_destroy(s->reg_index);
    g_hash_table_destroy(s->unknown_regs);
    g_free(s->regs);
}
