/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel Dynamic Load Balancer (DLB 2.0 / 2.5) PCIe device model: shared state.
 *
 * The device has two memory BARs (dlb2-hardware-facts.md section 1.2):
 *   BAR0 "FUNC" (64 MiB): producer-port windows and the MSI-X table/PBA;
 *   BAR2 "CSR"  (4 GiB):  configuration and status registers.
 *
 * Files: dlb2.c (PCI function, reset), dlb2-csr.c (register file),
 * dlb2-func.c (producer-port windows, QE assembly), dlb2-hcw.c (HCW commands,
 * credits, completions, tokens), dlb2-sched.c (scheduling, CQ writes),
 * dlb2-irq.c (alarms and interrupts).  Documentation/qemu-dlb2-model.rst in
 * the AccDirect repository lists every choice made where the facts are silent.
 *
 * Each behaviour's comment carries a tag: FACT (facts §N) when the project's
 * hardware facts state it, INFERRED (facts §N: why) when it follows from
 * them, CHOICE when they are silent or say UNKNOWN; every CHOICE is a row of
 * the choices table in Documentation/qemu-dlb2-model.rst.
 *
 * Configuration lives in the register file, which is the only copy: the
 * model reads it when it needs it.  Live state (queued QEs, counters, history
 * lists, flows, sequence numbers) lives in the structures below and is what
 * the status registers read back.
 */
#ifndef HW_MISC_DLB2_H
#define HW_MISC_DLB2_H

#include "hw/pci/pci.h"
#include "qemu/queue.h"
#include "qemu/timer.h"
#include "qom/object.h"

#define TYPE_DLB2 "dlb2"
OBJECT_DECLARE_SIMPLE_TYPE(DLB2State, DLB2)

/* Hardware generations, numbered as in DPDK (DLB2_HW_V2 / DLB2_HW_V2_5). */
typedef enum DLB2Version {
    DLB2_V2_0 = 0,
    DLB2_V2_5 = 1,
    DLB2_NUM_VERSIONS
} DLB2Version;

#define DLB2_PCI_DEVICE_ID_V2_0     0x2710
#define DLB2_PCI_DEVICE_ID_V2_5     0x2714
#define DLB2_PCI_CLASS              0x0b40  /* co-processor: CHOICE */

/* The two BARs: FACT (facts §1.2); their sizes: CHOICE. */
#define DLB2_FUNC_BAR               0
#define DLB2_FUNC_BAR_SIZE          (64 * MiB)
#define DLB2_CSR_BAR                2
#define DLB2_CSR_BAR_SIZE           (4 * GiB)

/*
 * MSI-X: vector 0 = service (alarms), 1..64 = CQ vectors (packed mode):
 * FACT (facts §1.4); a table of 65 vectors: CHOICE.
 */
#define DLB2_MSIX_VECTORS           65
#define DLB2_MSIX_TABLE_OFFSET      0x1000000
#define DLB2_MSIX_PBA_OFFSET        0x1001000
#define DLB2_VEC_SERVICE            0
#define DLB2_VEC_CQ                 1

/*
 * Producer-port windows in the FUNC BAR, FACT (facts §1.3): two aliases of
 * DIR and LDB ports, INFERRED (facts §1.3: PF and VF drivers use either pair).
 */
#define DLB2_PP_BASE                0x2000000
#define DLB2_PP_SIZE                0x0400000
#define DLB2_PP_STRIDE              0x1000

#define DLB2_PCIE_CAP_OFFSET        0x60    /* CHOICE */

/* Resource counts: FACT (facts §2). */
#define DLB2_NUM_DOMAINS            32
#define DLB2_NUM_LDB_QUEUES         32
#define DLB2_NUM_LDB_PORTS          64
#define DLB2_MAX_DIR_PORTS          96      /* 64 on 2.0 */
#define DLB2_NUM_COS                4
#define DLB2_NUM_SN_GROUPS          2
#define DLB2_SN_SLOTS               16
#define DLB2_MAX_SNS                1024
#define DLB2_HIST_LIST_ENTRIES      2048
#define DLB2_QID_SLOTS              8
/* QE priority >> 1: INFERRED (facts §7.2: the lowest bit is ignored) */
#define DLB2_NUM_PRIO_BINS          4
#define DLB2_MAX_CQ_DEPTH           1024

/*
 * CHOICE: the scheduler runs this long (virtual time) after the MMIO
 * write that gave it work, unless sync-sched=on (dlb2-sched.c).
 */
#define DLB2_SCHED_DELAY_NS         1

/*
 * CHOICE: a pending schedule older than this (host time) runs in the
 * next MMIO access instead of waiting for the main loop, which vCPUs that
 * hammer the device can keep from the big QEMU lock for seconds.
 */
#define DLB2_SCHED_MAX_DELAY_NS     (100 * 1000)

static inline unsigned int dlb2_num_dir_ports(DLB2Version ver)
{
    return ver == DLB2_V2_5 ? 96 : 64;
}

/* A 16-byte hardware control word, as written to a producer port. */
typedef struct DLB2HCW {
    uint64_t data;
    uint16_t opaque;
    uint8_t qid;
    uint8_t sched;          /* sched_type[1:0] priority[4:2] msg_type[7:5] */
    uint16_t lock_id;
    uint8_t flags;          /* meas[0] weight[2:1] no_dec[3] cmp_id[7:4] */
    uint8_t cmd;            /* token[0] comp[1] frag[2] valid[3] arm[4] */
} DLB2HCW;

#define DLB2_SCHED_ATOMIC           0
#define DLB2_SCHED_UNORDERED        1
#define DLB2_SCHED_ORDERED          2
#define DLB2_SCHED_DIRECTED         3

#define DLB2_HCW_TOKEN              0x01
#define DLB2_HCW_COMP               0x02
#define DLB2_HCW_FRAG               0x04
#define DLB2_HCW_VALID              0x08

/* A QE held inside the device, waiting to be scheduled or reordered. */
typedef struct DLB2QE {
    DLB2HCW hcw;
    uint8_t domain;
    QTAILQ_ENTRY(DLB2QE) next;
} DLB2QE;

typedef QTAILQ_HEAD(, DLB2QE) DLB2QEList;

/*
 * History-list entry: what a completion of a scheduled LDB QE must retire,
 * INFERRED (facts §7.5: the fields of the OOT driver's struct hl_t).
 */
typedef struct DLB2HistEntry {
    uint8_t qid;
    uint8_t sched_type;
    uint16_t flow;          /* atomic: flow after lock-ID compression */
    uint16_t sn;            /* ordered: sequence number */
} DLB2HistEntry;

/* What every port has, LDB or directed: its CQ and its HCW staging. */
typedef struct DLB2Port {
    uint32_t tokens;        /* LSP_CQ_*_TKN_CNT, including the depth<8 bias */
    uint32_t token_bias;    /* the value software preloaded (8 - depth) */
    uint32_t wptr;          /* CQ write pointer, in entries */
    uint64_t sched_count;
    bool armed;             /* CQ interrupt armed */
    uint8_t staged[16];     /* HCW assembly from writes narrower than 16 B */
    uint16_t staged_mask;
} DLB2Port;

/*
 * Per-slot scheduler status of an LDB CQ, one bit per QID slot, set and
 * cleared through LSP_LDB_SCHED_CTRL, FACT (facts §6.7 step 5e/f), and by
 * the scheduler itself, CHOICE (dlb2-map.c).
 */
typedef struct DLB2SlotStatus {
    uint8_t nalb_haswork;   /* the slot's queue has non-atomic work */
    uint8_t rlist_haswork;  /* the slot's queue has atomic work */
    uint8_t inflight_ok;    /* the slot may be scheduled */
    uint8_t aqed_nfull;     /* stored, not used: CHOICE */
} DLB2SlotStatus;

typedef struct DLB2LdbPort {
    DLB2Port c;
    DLB2SlotStatus st;
} DLB2LdbPort;

/* Per atomic flow of an LDB queue. */
typedef struct DLB2Flow {
    int16_t cq;             /* pinned CQ, -1 when not pinned */
    uint16_t inflight;      /* scheduled, not completed */
} DLB2Flow;

/* Per sequence number of an ordered queue. */
typedef struct DLB2SeqNum {
    bool busy;              /* handed out, not yet released */
    bool done;              /* completed (COMP or FWD) */
    DLB2QEList frags;       /* QEs forwarded or fragmented under this SN */
} DLB2SeqNum;

typedef struct DLB2LdbQueue {
    DLB2QEList waiting[DLB2_NUM_PRIO_BINS];
    uint32_t nonatomic, atomic;     /* waiting QEs by kind */
    uint32_t inflight;              /* LSP_QID_LDB_INFL_CNT */
    uint32_t aqed_active;           /* atomic QEs scheduled, not completed */
    uint64_t enq_total_atm, enq_total_naldb;
    GHashTable *flows;              /* flow id -> DLB2Flow */
    DLB2SeqNum *sns;                /* ordered: DLB2_MAX_SNS entries */
    uint32_t sn_next;               /* CHP_ORD_QID_SN: next to hand out */
    uint32_t sn_busy;               /* handed out, not yet released */
    unsigned int rr_cq;             /* last CQ served: round-robin, CHOICE */
} DLB2LdbQueue;

typedef struct DLB2DirQueue {
    DLB2QEList waiting[DLB2_NUM_PRIO_BINS];
    uint32_t depth;
    uint64_t enq_total;
} DLB2DirQueue;

/* Alarm identifiers reported in SYS_ALARM_PF_SYND0: FACT (facts §8.2). */
typedef enum DLB2Alarm {
    DLB2_ALARM_ILLEGAL_ENQ,         /* no credit, excess completion, bad frag */
    DLB2_ALARM_EXCESS_TOKENS,
    DLB2_ALARM_ILLEGAL_HCW,
    DLB2_ALARM_ILLEGAL_QID,
    DLB2_ALARM_DISABLED_QID,
    DLB2_ALARM_ILLEGAL_PP,
    DLB2_ALARM_ILLEGAL_QID_CFG,
    DLB2_NUM_ALARMS
} DLB2Alarm;

/* Registers of the CSR map (dlb2-regs.h), by name. */
typedef enum DLB2RegId {
#define DLB2_REG(n, o20, o25, stride, cnt, reset) DLB2_R_##n,
#include "dlb2-regs.h"
#undef DLB2_REG
    DLB2_NUM_REG_IDS
} DLB2RegId;

struct DLB2State {
    PCIDevice parent_obj;

    /* Properties */
    char *version_str;
    bool sync_sched;            /* schedule inside the MMIO write (debug) */
    bool msix_erratum;          /* "msix-erratum": CSSY-1650 (dlb2-irq.c) */
    bool off_bus;               /* "off-bus": a surprise removal (dlb2.c) */
    bool stuck_tokens;          /* "stuck-tokens": a fault (dlb2.c) */
    uint32_t injected_alarm;    /* "inject-alarm": a fault (dlb2.c) */

    DLB2Version ver;

    MemoryRegion func_bar;      /* container: PP windows + MSI-X */
    MemoryRegion pp_mmio;
    MemoryRegion csr_bar;

    /* Register file (dlb2-csr.c). */
    uint32_t *regs;             /* one word per register instance */
    unsigned int reg_first[DLB2_NUM_REG_IDS];     /* index into regs */
    unsigned int reg_instances[DLB2_NUM_REG_IDS]; /* 0: absent here */
    GHashTable *reg_index;      /* offset -> (id + 1) << 16 | instance */
    GHashTable *unknown_regs;   /* offsets outside the map -> value */
    uint32_t pmcsr_disable;     /* survives FLR and system reset (dlb2-csr.c) */

    /* Live state. */
    DLB2LdbPort ldb_port[DLB2_NUM_LDB_PORTS];
    DLB2Port dir_port[DLB2_MAX_DIR_PORTS];
    DLB2LdbQueue ldb_queue[DLB2_NUM_LDB_QUEUES];
    DLB2DirQueue dir_queue[DLB2_MAX_DIR_PORTS];
    uint32_t credits_ldb[DLB2_NUM_DOMAINS];     /* 2.5: the combined pool */
    uint32_t credits_dir[DLB2_NUM_DOMAINS];
    uint64_t ldb_sched_total, dir_sched_total;
    uint64_t alarm_count[DLB2_NUM_ALARMS];
    /* CQ interrupt status bits; occ_dir[2] (2.5 DIR CQs 64-95): CHOICE */
    uint32_t occ_ldb[2], occ_dir[3];
    bool vec_latched[2];        /* vector 0/1 sent, not yet acknowledged */
    bool vec_deferred[2];       /* an event came while latched */
    unsigned int rr_qid;        /* round-robin start among LDB queues: CHOICE */
    uint32_t dir_waiting;       /* QEs waiting in directed queues */
    uint32_t ldb_waiting;       /* QEs waiting in LDB queues */
    bool in_schedule;
    bool schedule_again;
    QEMUTimer *sched_timer;     /* asynchronous scheduling (dlb2-sched.c) */
    int64_t sched_armed_ns;     /* host time the timer was armed */

    /* The history list, shared by all LDB CQs in windows (dlb2-hist.c). */
    DLB2HistEntry hist[DLB2_HIST_LIST_ENTRIES];

    /*
     * Configuration checks, recomputed when a register they read changes
     * (dlb2-map.c): LDB CQs whose history-list window is invalid or
     * overlaps another's, LDB queues whose sequence-number slot is invalid.
     * CHOICE: the facts name no such check.
     */
    bool cfg_dirty;
    uint64_t hl_bad;
    uint32_t sn_bad;
    bool cfg_bad_logged;        /* dlb2_cfg_bad_used() logged them */

    /*
     * Behaviours the facts leave open, each a property (dlb2.c) and a
     * CHOICE row of Documentation/qemu-dlb2-model.rst; the defaults are
     * the model's behaviour before they were properties.
     */
    char *arbitration_str;      /* "arbitration": rr or random */
    bool arb_random;
    uint32_t seed;              /* "seed" of the random arbitration */
    uint64_t rng;               /* its xorshift state, seeded at reset */
    bool arm_token;             /* "arm-token": ARM returns a token */
    uint32_t ingress_delay_ns;  /* "ingress-delay" (dlb2-delay.c) */
    uint32_t csr_delay_ns;      /* "csr-write-delay" (dlb2-delay.c) */
    QEMUTimer *delay_timer;
    GQueue *posted_hcws, *posted_csrs;
    uint64_t posted_seq;
    bool in_delay;
};

static inline DLB2Port *dlb2_port(DLB2State *s, bool is_ldb, unsigned int port)
{
    return is_ldb ? &s->ldb_port[port].c : &s->dir_port[port];
}

/* dlb2-csr.c */
void dlb2_csr_init(DLB2State *s);
void dlb2_csr_reset(DLB2State *s);
void dlb2_csr_fini(DLB2State *s);
uint32_t dlb2_reg(DLB2State *s, DLB2RegId id, unsigned int idx);
void dlb2_csr_apply(DLB2State *s, hwaddr addr, uint32_t val);
void dlb2_reg_set(DLB2State *s, DLB2RegId id, unsigned int idx, uint32_t val);
extern const MemoryRegionOps dlb2_csr_ops;

/* dlb2-delay.c */
void dlb2_delay_init(DLB2State *s);
void dlb2_delay_reset(DLB2State *s);
void dlb2_delay_fini(DLB2State *s);
void dlb2_delay_due(DLB2State *s);
void dlb2_csr_flush(DLB2State *s);
bool dlb2_ingress_post(DLB2State *s, bool is_ldb, unsigned int port,
                       const DLB2HCW *hcw);
bool dlb2_csr_post(DLB2State *s, hwaddr addr, uint32_t val);

/* dlb2-func.c */
extern const MemoryRegionOps dlb2_pp_ops;

/* dlb2-hcw.c */
void dlb2_hcw_process(DLB2State *s, bool is_ldb, unsigned int port,
                      const DLB2HCW *hcw);
void dlb2_credit_return(DLB2State *s, unsigned int domain, bool to_ldb);
void dlb2_qe_route(DLB2State *s, DLB2QE *qe);

/* dlb2-hist.c */
unsigned int dlb2_hl_count(DLB2State *s, unsigned int port);
bool dlb2_hl_push(DLB2State *s, unsigned int port, const DLB2HistEntry *e);
bool dlb2_hl_pop(DLB2State *s, unsigned int port, DLB2HistEntry *e);
const DLB2HistEntry *dlb2_hl_oldest(DLB2State *s, unsigned int port);
bool dlb2_hl_window_ok(DLB2State *s, unsigned int port);
bool dlb2_hl_windows_overlap(DLB2State *s, unsigned int a, unsigned int b);

/* dlb2-map.c */
bool dlb2_reg_affects_cfg(DLB2RegId id);
void dlb2_cfg_check(DLB2State *s);
void dlb2_cfg_bad_used(DLB2State *s);
bool dlb2_map_write(DLB2State *s, DLB2RegId id, unsigned int idx,
                    uint32_t *val);
uint64_t dlb2_qid_cqs(DLB2State *s, unsigned int qid);
uint8_t dlb2_slots_for(DLB2State *s, unsigned int cq, unsigned int qid,
                       bool atomic);
void dlb2_slots_haswork(DLB2State *s, unsigned int qid, bool atomic);
void dlb2_sched_ctrl(DLB2State *s, uint32_t val);
void dlb2_qid_inflight_status(DLB2State *s, unsigned int qid, bool completion);
unsigned int dlb2_num_sns(DLB2State *s, unsigned int qid);
unsigned int dlb2_sn_oldest(DLB2State *s, unsigned int qid);
void dlb2_sn_oldest_set(DLB2State *s, unsigned int qid, unsigned int sn);
bool dlb2_cq_depths_agree(DLB2State *s, bool is_ldb, unsigned int port);

/* dlb2-sched.c */
bool dlb2_sched_parse(DLB2State *s, Error **errp);
void dlb2_sched_init(DLB2State *s);
void dlb2_sched_reset(DLB2State *s);
void dlb2_sched_fini(DLB2State *s);
void dlb2_schedule(DLB2State *s);
void dlb2_schedule_now(DLB2State *s);
void dlb2_schedule_overdue(DLB2State *s);
void dlb2_ldb_enqueue(DLB2State *s, DLB2QE *qe);
void dlb2_dir_enqueue(DLB2State *s, DLB2QE *qe);
void dlb2_ldb_retire(DLB2State *s, unsigned int port, const DLB2HistEntry *e);
void dlb2_ordered_attach(DLB2State *s, const DLB2HistEntry *e, DLB2QE *qe);

/* dlb2-irq.c */
void dlb2_alarm(DLB2State *s, DLB2Alarm alarm, bool is_ldb, unsigned int port,
                const DLB2HCW *hcw);
void dlb2_hw_alarm(DLB2State *s, unsigned int syndrome);
void dlb2_cq_irq_check(DLB2State *s, bool is_ldb, unsigned int port);
void dlb2_msix_ack(DLB2State *s, uint32_t val);

#endif /* HW_MISC_DLB2_H */
