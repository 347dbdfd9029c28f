/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Programming the Intel DLB 2.0 / 2.5 from outside the model: register
 * offsets (transcribed from dlb2-hardware-facts.md independently of the
 * model's own table) and the configuration sequences of its section 6.
 * Shared by the qtest (dlb2-test.c) and the in-guest benchmark
 * (tools/bench/dlb2-model-bench.c); each supplies the accessors.
 */
#ifndef DLB2_PROG_H
#define DLB2_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct DLB2Dev DLB2Dev;
struct DLB2Dev {
    int v25;            /* 0: DLB 2.0, 1: DLB 2.5 */
    unsigned int ndir;
    uint32_t (*rd)(DLB2Dev *t, uint32_t csr_off);
    void (*wr)(DLB2Dev *t, uint32_t csr_off, uint32_t val);
    /* an 8-byte write into the FUNC BAR (producer ports) */
    void (*func_wq)(DLB2Dev *t, uint64_t func_off, uint64_t val);
    /* read memory the device writes (CQ rings), by bus address */
    void (*mem_rd)(DLB2Dev *t, uint64_t addr, void *buf, size_t len);
};

static inline uint32_t rd(DLB2Dev *t, uint32_t off)
{
    return t->rd(t, off);
}

static inline void wr(DLB2Dev *t, uint32_t off, uint32_t val)
{
    t->wr(t, off, val);
}

/* CSR offsets: R(2.0 offset, 2.5 offset). */
#define R(a, b)     (t->v25 ? (b) : (a))
#define CM_DIAG_RESET_STS           R(0xb4000000, 0xa4000000)
#define CM_DIAG_IDLE_STATUS         R(0xb4000004, 0xa4000004)
#define CM_PM_STATUS                R(0xb4000014, 0xa4000014)
#define CM_PM_PMCSR_DISABLE         R(0xb4000018, 0xa4000018)
#define SYS_TOTAL_VAS               R(0x1000011c, 0x10000114)
#define SYS_TOTAL_LDB_CRDS          0x10000104
#define SYS_TOTAL_DIR_CRDS          0x10000108
#define SYS_TOTAL_CREDITS           0x10000100
#define SYS_INGRESS_ALARM_ENBL      0x10000300
#define SYS_MSIX_ACK                0x10000400
#define SYS_MSIX_PASSTHRU           0x10000404
#define SYS_MSIX_MODE               0x10000408
#define SYS_DIR_OCC_INT_STS0        0x10000440
#define SYS_LDB_OCC_INT_STS0        0x10000460
#define SYS_ALARM_PF_SYND0          0x10000500
#define SYS_ALARM_PF_SYND1          0x10000504
#define SYS_ALARM_PF_SYND2          0x10000508
#define SYS_LDB_VASQID_V(x)         (0x10000f24 + (x) * 0x1000)
#define SYS_DIR_VASQID_V(x)         (0x10000f28 + (x) * 0x1000)
#define SYS_LDB_QID_V(x)            (0x10000f50 + (x) * 0x1000)
#define SYS_LDB_QID_CFG_V(x)        (0x10000f58 + (x) * 0x1000)
#define SYS_DIR_QID_V(x)            (0x10000f60 + (x) * 0x1000)
#define SYS_LDB_CQ_ADDR_L(x)        (0x10000f80 + (x) * 0x1000)
#define SYS_LDB_CQ_ADDR_U(x)        (0x10000f84 + (x) * 0x1000)
#define SYS_LDB_PP2VAS(x)           (0x10000f88 + (x) * 0x1000)
#define SYS_LDB_PP_V(x)             (0x10000f90 + (x) * 0x1000)
#define SYS_LDB_CQ_ISR(x)           (0x10000f98 + (x) * 0x1000)
#define SYS_LDB_CQ2VF_PF_RO(x)      (0x10000f94 + (x) * 0x1000)
#define SYS_DIR_CQ_ADDR_L(x)        (0x10000fc0 + (x) * 0x1000)
#define SYS_DIR_CQ_ADDR_U(x)        (0x10000fc4 + (x) * 0x1000)
#define SYS_DIR_PP2VAS(x)           (0x10000fc8 + (x) * 0x1000)
#define SYS_DIR_PP_V(x)             (0x10000fd0 + (x) * 0x1000)
#define SYS_DIR_CQ_ISR(x)           (0x10000fd8 + (x) * 0x1000)
#define SYS_DIR_CQ2VF_PF_RO(x)      (0x10000fd4 + (x) * 0x1000)
#define SYS_DIR_CQ_AT(x)            (0x10000fdc + (x) * 0x1000)  /* 2.0 */
#define SYS_DIR_CQ_PASID(x)         (R(0x10000fe0, 0x10000fdc) + (x) * 0x1000)
#define CQ2VF_PF_RO_IS_PF           (1u << 4)
#define CQ_PASID_FMT2               (1u << 22)
#define AQED_QID_FID_LIM(x)         (0x20000000 + (x) * 0x1000)
#define AQED_QID_HID_WIDTH(x)       (0x20080000 + (x) * 0x1000)
#define ATM_QID2CQIDIX(q, k)        (0x30080000 + (q) * 0x1000 + (k) * 0x80000)
#define CHP_CFG_DIR_VAS_CRD(x)      (0x40000000 + (x) * 0x1000)  /* 2.0 */
#define CHP_CFG_LDB_VAS_CRD(x)      (0x40080000 + (x) * 0x1000)  /* 2.0 */
#define CHP_CFG_VAS_CRD(x)          (0x40000000 + (x) * 0x1000)  /* 2.5 */
#define CHP_ORD_QID_SN_MAP(x)       (R(0x40180000, 0x40100000) + (x) * 0x1000)
#define CHP_DIR_CQ_INT_DEPTH_THRSH(x) (R(0x40300000, 0x40380000) + (x) * 0x1000)
#define CHP_DIR_CQ_INT_ENB(x)       (R(0x40380000, 0x40400000) + (x) * 0x1000)
#define CHP_DIR_CQ_TKN_DEPTH_SEL(x) (R(0x40500000, 0x40580000) + (x) * 0x1000)
#define CHP_DIR_CQ_WPTR(x)          (R(0x40600000, 0x40680000) + (x) * 0x1000)
#define CHP_DIR_CQ2VAS(x)           (R(0x40680000, 0x40700000) + (x) * 0x1000)
#define CHP_HIST_LIST_BASE(x)       (R(0x40700000, 0x40780000) + (x) * 0x1000)
#define CHP_HIST_LIST_LIM(x)        (R(0x40780000, 0x40800000) + (x) * 0x1000)
#define CHP_LDB_CQ_INT_DEPTH_THRSH(x) (R(0x40980000, 0x40b00000) + (x) * 0x1000)
#define CHP_LDB_CQ_INT_ENB(x)       (R(0x40a00000, 0x40b80000) + (x) * 0x1000)
#define CHP_LDB_CQ_TKN_DEPTH_SEL(x) (R(0x40b80000, 0x40d00000) + (x) * 0x1000)
#define CHP_LDB_CQ_WPTR(x)          (R(0x40c80000, 0x40e00000) + (x) * 0x1000)
#define CHP_LDB_CQ2VAS(x)           (R(0x40d00000, 0x40e80000) + (x) * 0x1000)
#define CHP_CFG_CHP_CSR_CTRL        0x44000008
#define CHP_LDB_CQ_INTR_ARMED0      R(0x440000b0, 0x440000c4)
#define CHP_DIR_CQ_INTR_ARMED0      R(0x4400005c, 0x4400004c)
#define LSP_CQ2PRIOV(x)             (R(0xa0000000, 0x90000000) + (x) * 0x1000)
#define LSP_CQ2QID0(x)              (R(0xa0080000, 0x90080000) + (x) * 0x1000)
#define LSP_CQ2QID1(x)              (R(0xa0100000, 0x90100000) + (x) * 0x1000)
#define LSP_CQ_DIR_DSBL(x)          (R(0xa0180000, 0x90180000) + (x) * 0x1000)
#define LSP_CQ_DIR_TKN_CNT(x)       (R(0xa0200000, 0x90200000) + (x) * 0x1000)
#define LSP_CQ_DIR_TKN_DEPTH_SEL(x) (R(0xa0280000, 0x90280000) + (x) * 0x1000)
#define LSP_CQ_LDB_DSBL(x)          (R(0xa0400000, 0x90400000) + (x) * 0x1000)
#define LSP_CQ_LDB_INFL_CNT(x)      (R(0xa0480000, 0x90480000) + (x) * 0x1000)
#define LSP_CQ_LDB_INFL_LIM(x)      (R(0xa0500000, 0x90500000) + (x) * 0x1000)
#define LSP_CQ_LDB_TKN_CNT(x)       (R(0xa0580000, 0x90600000) + (x) * 0x1000)
#define LSP_CQ_LDB_TKN_DEPTH_SEL(x) (R(0xa0600000, 0x90680000) + (x) * 0x1000)
#define LSP_QID_DIR_ENQUEUE_CNT(x)  (R(0xa0900000, 0x90980000) + (x) * 0x1000)
#define LSP_QID_AQED_ACTIVE_LIM(x)  (R(0xa0a80000, 0x90c00000) + (x) * 0x1000)
#define LSP_QID_LDB_ENQUEUE_CNT(x)  (R(0xa0c80000, 0x90e00000) + (x) * 0x1000)
#define LSP_QID_LDB_INFL_CNT(x)     (R(0xa0d00000, 0x90e80000) + (x) * 0x1000)
#define LSP_QID_LDB_INFL_LIM(x)     (R(0xa0d80000, 0x90f00000) + (x) * 0x1000)
#define LSP_QID2CQIDIX(q, k)        (R(0xa0e00000, 0x90f80000) + \
                                     (q) * 0x1000 + (k) * 0x80000)
#define LSP_QID2CQIDIX2(q, k)       (R(0xa1600000, 0x91780000) + \
                                     (q) * 0x1000 + (k) * 0x80000)
#define LSP_QID_ATM_ACTIVE(x)       (R(0xa2180000, 0x92300000) + (x) * 0x1000)
#define LSP_QID_AQED_ACTIVE_CNT(x)  (R(0xa0a00000, 0x90b80000) + (x) * 0x1000)
#define LSP_LDB_SCHED_CTRL          R(0xa400002c, 0x9400002c)
#define RO_GRP_SN_MODE              R(0x94000000, 0x84000000)
#define RO_GRP_0_SLT_SHFT(x)        (R(0x96000000, 0x86000000) + (x) * 4)
#define CHP_ORD_QID_SN(x)           (R(0x40100000, 0x40080000) + (x) * 0x1000)
#define CHP_HIST_LIST_POP_PTR(x)    (R(0x40800000, 0x40880000) + (x) * 0x1000)
#define CHP_HIST_LIST_PUSH_PTR(x)   (R(0x40880000, 0x40900000) + (x) * 0x1000)

/* FUNC BAR offsets */
#define PP_DIR(p)                   (0x2000000 + (p) * 0x1000)
#define PP_LDB(p)                   (0x2100000 + (p) * 0x1000)
#define MSIX_TABLE                  0x1000000   /* 16 bytes per entry */
#define MSIX_VECTOR_CTRL(v)         (MSIX_TABLE + (v) * 16 + 12)
#define MSIX_PBA                    0x1001000

/* HCW commands (byte 15) and scheduling types (byte 11 bits 1:0). */
enum { NOOP = 0, BAT_T = 1, COMP = 2, COMP_T = 3, ARM = 5, NEW = 8, NEW_T = 9,
       FWD = 0xa, FWD_T = 0xb, FRAG = 0xc, FRAG_T = 0xd };
enum { ATOMIC = 0, UNORDERED = 1, ORDERED = 2, DIRECTED = 3 };

/* Write one HCW as two 8-byte stores, as TCG delivers a 16-byte store. */
static inline void hcw(DLB2Dev *t, uint64_t pp, uint8_t cmd, uint8_t qid,
                       uint8_t sched, uint8_t prio, uint16_t lock_id,
                       uint64_t data)
{
    uint64_t hi = (uint64_t)qid << 16 | (uint64_t)(sched | prio << 2) << 24 |
                  (uint64_t)lock_id << 32 | (uint64_t)cmd << 56;

    t->func_wq(t, pp, data);
    t->func_wq(t, pp + 8, hi);
}

static inline void set_credits(DLB2Dev *t, unsigned int dom, uint32_t ldb,
                               uint32_t dir)
{
    if (t->v25) {
        wr(t, CHP_CFG_VAS_CRD(dom), ldb + dir);
    } else {
        wr(t, CHP_CFG_LDB_VAS_CRD(dom), ldb);
        wr(t, CHP_CFG_DIR_VAS_CRD(dom), dir);
    }
}

static inline uint32_t depth_select(unsigned int depth)
{
    return depth <= 8 ? 1 : 32 - __builtin_clz(depth) - 3;
}

/* A directed queue/port pair q in domain dom, CQ of depth at cq (zeroed). */
static inline void dir_pair(DLB2Dev *t, unsigned int dom, unsigned int q,
                            unsigned int depth, uint64_t cq)
{
    uint32_t sel = depth_select(depth);

    wr(t, SYS_DIR_VASQID_V(dom * t->ndir + q), 0);
    wr(t, SYS_DIR_QID_V(q), 1);
    wr(t, SYS_DIR_CQ_ADDR_L(q), (uint32_t)cq);
    wr(t, SYS_DIR_CQ_ADDR_U(q), cq >> 32);
    wr(t, SYS_DIR_CQ2VF_PF_RO(q), CQ2VF_PF_RO_IS_PF);
    wr(t, CHP_DIR_CQ_TKN_DEPTH_SEL(q), sel);
    wr(t, LSP_CQ_DIR_TKN_CNT(q), depth < 8 ? 8 - depth : 0);
    wr(t, LSP_CQ_DIR_TKN_DEPTH_SEL(q), sel);
    wr(t, CHP_DIR_CQ_WPTR(q), 0);
    wr(t, CHP_DIR_CQ2VAS(q), dom);
    wr(t, SYS_DIR_PP2VAS(q), dom);
    wr(t, SYS_DIR_PP_V(q), 1);
    wr(t, LSP_CQ_DIR_DSBL(q), 0);
}

/* SN group mode of a number of sequence numbers per queue: 64 << mode. */
static inline unsigned int sn_mode(unsigned int sns)
{
    return 32 - __builtin_clz(sns) - 7;
}

/*
 * LDB queue q: sns = sequence numbers (0: none), atm = atomic inflights.
 * An ordered queue takes slot q % slots of SN group 0, whose mode is set to
 * match (facts sections 6.1 step 8, 6.3).
 */
static inline void ldb_queue(DLB2Dev *t, unsigned int dom, unsigned int q,
                             unsigned int sns, unsigned int atm)
{
    unsigned int mode = sns ? sn_mode(sns) : 0;

    if (sns) {
        wr(t, RO_GRP_SN_MODE, (rd(t, RO_GRP_SN_MODE) & ~7u) | mode);
    }
    wr(t, SYS_LDB_VASQID_V(dom * 32 + q), 0);
    wr(t, LSP_QID_LDB_INFL_LIM(q), 2048);
    wr(t, LSP_QID_AQED_ACTIVE_LIM(q), atm);
    wr(t, AQED_QID_HID_WIDTH(q), 0);
    wr(t, AQED_QID_FID_LIM(q), 512);
    wr(t, CHP_ORD_QID_SN_MAP(q), sns ? mode | (q % (16 >> mode)) << 3 : 0);
    wr(t, SYS_LDB_QID_CFG_V(q), (sns != 0) | (atm != 0) << 1);
    wr(t, SYS_LDB_QID_V(q), 1);
}

/*
 * LDB port p with a CQ of depth at cq (zeroed) and a history list of hl
 * entries at hl_base.
 */
static inline void ldb_port(DLB2Dev *t, unsigned int dom, unsigned int p,
                            unsigned int depth, unsigned int hl_base,
                            unsigned int hl, uint64_t cq)
{
    uint32_t sel = depth_select(depth);

    wr(t, SYS_LDB_CQ_ADDR_L(p), (uint32_t)cq);
    wr(t, SYS_LDB_CQ_ADDR_U(p), cq >> 32);
    wr(t, SYS_LDB_CQ2VF_PF_RO(p), CQ2VF_PF_RO_IS_PF);
    wr(t, CHP_LDB_CQ_TKN_DEPTH_SEL(p), sel);
    wr(t, LSP_CQ_LDB_TKN_CNT(p), depth < 8 ? 8 - depth : 0);
    wr(t, LSP_CQ_LDB_TKN_DEPTH_SEL(p), sel);
    wr(t, CHP_LDB_CQ_WPTR(p), 0);
    wr(t, CHP_HIST_LIST_LIM(p), hl_base + hl - 1);
    wr(t, CHP_HIST_LIST_BASE(p), hl_base);
    wr(t, LSP_CQ_LDB_INFL_LIM(p), hl);
    wr(t, CHP_HIST_LIST_PUSH_PTR(p), hl_base);
    wr(t, CHP_HIST_LIST_POP_PTR(p), hl_base);
    wr(t, CHP_LDB_CQ2VAS(p), dom);
    wr(t, LSP_CQ2PRIOV(p), 0);
    wr(t, SYS_LDB_PP2VAS(p), dom);
    wr(t, SYS_LDB_PP_V(p), 1);
    wr(t, LSP_CQ_LDB_DSBL(p), 0);
}

/*
 * Static map of queue q into slot s of LDB port p (facts section 6.7): the
 * CQ is disabled while its map changes, then enabled again if it was.
 */
static inline void map(DLB2Dev *t, unsigned int p, unsigned int q,
                       unsigned int s, unsigned int prio)
{
    uint32_t dsbl = rd(t, LSP_CQ_LDB_DSBL(p));
    uint32_t priov = rd(t, LSP_CQ2PRIOV(p));
    uint32_t reg = s < 4 ? LSP_CQ2QID0(p) : LSP_CQ2QID1(p);
    uint32_t shift = 8 * (s % 4), bit = 1u << (s + 8 * (p % 4));

    wr(t, LSP_CQ_LDB_DSBL(p), 1);
    priov &= ~(7u << (3 * s));
    wr(t, LSP_CQ2PRIOV(p), priov | 1u << (24 + s) | prio << (3 * s));
    wr(t, reg, (rd(t, reg) & ~(0x7fu << shift)) | q << shift);
    wr(t, ATM_QID2CQIDIX(q, p / 4), rd(t, ATM_QID2CQIDIX(q, p / 4)) | bit);
    wr(t, LSP_QID2CQIDIX(q, p / 4), rd(t, LSP_QID2CQIDIX(q, p / 4)) | bit);
    wr(t, LSP_QID2CQIDIX2(q, p / 4), rd(t, LSP_QID2CQIDIX2(q, p / 4)) | bit);
    wr(t, LSP_CQ_LDB_DSBL(p), dsbl);
}

/* Start the domain: queue write permission (facts section 6.10). */
static inline void start(DLB2Dev *t, unsigned int dom, uint64_t ldb_q,
                         uint64_t dir_q)
{
    unsigned int q;

    for (q = 0; q < 32; q++) {
        if (ldb_q & (1ull << q)) {
            wr(t, SYS_LDB_VASQID_V(dom * 32 + q), 1);
        }
    }
    for (q = 0; q < 64; q++) {
        if (dir_q & (1ull << q)) {
            wr(t, SYS_DIR_VASQID_V(dom * t->ndir + q), 1);
        }
    }
}

/* A CQ reader: standard (16 B) or sparse (64 B) entries, gen-bit tracking. */
typedef struct CQ {
    uint64_t base;
    unsigned int depth, idx, stride;
} CQ;

typedef struct QE {
    uint64_t data;
    uint16_t opaque;
    uint8_t qid, sched;
    uint16_t lock_id;
    uint8_t gen_byte;
} QE;

static inline CQ cq_of(uint64_t base, unsigned int depth, bool sparse)
{
    return (CQ){ base, depth < 8 ? 8 : depth, 0, sparse ? 64 : 16 };
}

/* The next QE of the CQ if there is one (expected gen = lap parity). */
static inline bool cq_pop(DLB2Dev *t, CQ *cq, QE *qe)
{
    uint8_t e[16];
    uint8_t want = (cq->idx / cq->depth) & 1 ? 0 : 1;
    unsigned int i;

    t->mem_rd(t, cq->base + (cq->idx % cq->depth) * cq->stride, e, 16);
    if ((e[15] & 1) != want) {
        return false;
    }
    qe->data = 0;
    for (i = 0; i < 8; i++) {
        qe->data |= (uint64_t)e[i] << (8 * i);
    }
    qe->opaque = e[8] | e[9] << 8;
    qe->qid = e[10];
    qe->sched = e[11];
    qe->lock_id = e[12] | e[13] << 8;
    qe->gen_byte = e[15];
    cq->idx++;
    return true;
}

#endif /* DLB2_PROG_H */
