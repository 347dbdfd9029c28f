/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest tests of the Intel DLB 2.0 / 2.5 device model (tools/qemu).
 *
 * Each test boots a q35 machine with one dlb2 device under qtest, programs
 * it the way DPDK's PF PMD and our driver do (register sequences of
 * dlb2-hardware-facts.md section 6), writes HCWs to producer ports and reads
 * the CQ rings back from guest memory.  Register offsets are transcribed
 * here independently of the model's own table.
 */
#include "qemu/osdep.h"
#include "libqtest.h"
#include "qapi/qmp/qdict.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "dlb2-prog.h"

#define BAR2_ADDR   0x100000000ull      /* CSR, 4 GiB, in q35's 64-bit hole */
#define BAR0_ADDR   0x200000000ull      /* FUNC, 64 MiB */
#define CQ_MEM      0x1000000ull        /* CQ rings, 64 KiB per port */
#define DLB2_DEVFN  QPCI_DEVFN(4, 0)

typedef struct T {
    DLB2Dev d;          /* first: the tests work on a DLB2Dev */
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
} T;

#define QT(t)       container_of(t, T, d)

/*
 * The model schedules asynchronously, 1 ns of virtual time after the write
 * that gave it work; qtest's virtual clock moves only when told.  Reads
 * through these accessors first let the device run; the asynchronous test
 * reads without them.
 */
static void qt_settle(DLB2Dev *t)
{
    qtest_clock_step(QT(t)->qts, 1);
}

static uint32_t qt_rd(DLB2Dev *t, uint32_t off)
{
    qt_settle(t);
    return qtest_readl(QT(t)->qts, BAR2_ADDR + off);
}

static void qt_wr(DLB2Dev *t, uint32_t off, uint32_t val)
{
    qtest_writel(QT(t)->qts, BAR2_ADDR + off, val);
}

static void qt_func_wq(DLB2Dev *t, uint64_t off, uint64_t val)
{
    qtest_writeq(QT(t)->qts, BAR0_ADDR + off, val);
}

static void qt_mem_rd(DLB2Dev *t, uint64_t addr, void *buf, size_t len)
{
    qt_settle(t);
    qtest_memread(QT(t)->qts, addr, buf, len);
}

/* Where each port's CQ ring lives in guest memory, zeroed on placement. */
static uint64_t cq_addr(DLB2Dev *t, bool ldb, unsigned int p)
{
    uint64_t addr = CQ_MEM + ((ldb ? 0 : 96) + p) * 0x10000ull;

    qtest_memset(QT(t)->qts, addr, 0, 0x10000);
    return addr;
}

/* Place the 64-bit BARs by hand: libqos only allocates below 4 GiB. */
static void map_bars(T *t)
{
    uint16_t cmd;

    qpci_config_writel(t->dev, PCI_BASE_ADDRESS_0, (uint32_t)BAR0_ADDR | 0xc);
    qpci_config_writel(t->dev, PCI_BASE_ADDRESS_1, BAR0_ADDR >> 32);
    qpci_config_writel(t->dev, PCI_BASE_ADDRESS_2, (uint32_t)BAR2_ADDR | 0xc);
    qpci_config_writel(t->dev, PCI_BASE_ADDRESS_3, BAR2_ADDR >> 32);
    cmd = qpci_config_readw(t->dev, PCI_COMMAND);
    qpci_config_writew(t->dev, PCI_COMMAND,
                       cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

/*
 * The model's rr arbitration (arbitration=rr, its default), named by the
 * tests whose assertions of which CQ or queue comes next are that option's,
 * not hardware's: which of several eligible CQs gets a QE, and in which
 * order a CQ serves queues of equal slot priority, the facts leave open
 * (facts §7.2, §7.3).  The test random-arbitration checks what holds under
 * any arbitration.
 */
#define RR "-global dlb2.arbitration=rr"

/*
 * DLB2_QTEST_PROPS="arbitration=random,seed=7": the model's properties for
 * every test, before the test's own (RR above wins), to run the suite with
 * other choices.
 */
static char *env_props(void)
{
    const char *e = getenv("DLB2_QTEST_PROPS");
    g_auto(GStrv) props = NULL;
    GString *g = g_string_new("");
    unsigned int i;

    props = g_strsplit(e ? e : "", ",", -1);
    for (i = 0; props[i]; i++) {
        if (*props[i]) {
            g_string_append_printf(g, " -global dlb2.%s", props[i]);
        }
    }
    return g_string_free(g, false);
}

/* A device still powered off (CM_CFG_PM_PMCSR_DISABLE = 1). */
static T *t_start_off(const void *data, const char *extra)
{
    T *q = g_new0(T, 1);
    DLB2Dev *t = &q->d;
    g_autofree char *props = env_props();

    t->v25 = GPOINTER_TO_INT(data);
    t->ndir = t->v25 ? 96 : 64;
    t->rd = qt_rd;
    t->wr = qt_wr;
    t->func_wq = qt_func_wq;
    t->mem_rd = qt_mem_rd;
    q->qts = qtest_initf("-machine q35 -nodefaults "
                         "-device dlb2,version=%s,addr=04.0%s %s",
                         t->v25 ? "2.5" : "2.0", props, extra ? extra : "");
    q->bus = qpci_new_pc(q->qts, NULL);
    q->dev = qpci_device_find(q->bus, DLB2_DEVFN);
    g_assert(q->dev);
    map_bars(q);
    return q;
}

/* A device powered on as drivers do first (facts section 6.1 step 2). */
static T *t_start(const void *data, const char *extra)
{
    T *q = t_start_off(data, extra);
    DLB2Dev *t = &q->d;

    wr(t, CM_PM_PMCSR_DISABLE, 0);
    return q;
}

static void t_end(T *t)
{
    g_free(t->dev);
    qpci_free_pc(t->bus);
    qtest_quit(t->qts);
    g_free(t);
}

/* QEs per semantic test: DLB2_QTEST_QES overrides (e.g. 1000000). */
static unsigned int test_qes(unsigned int dflt)
{
    const char *e = getenv("DLB2_QTEST_QES");

    return e ? strtoul(e, NULL, 0) : dflt;
}

static void test_reset_values(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;

    g_assert_cmphex(rd(t, CM_DIAG_RESET_STS), ==, 0x80000bff);
    g_assert_cmphex(rd(t, CM_DIAG_IDLE_STATUS), ==, 0x9d0fffff);
    g_assert_cmphex(rd(t, CM_PM_STATUS), ==, 0x0100403e);
    g_assert_cmphex(rd(t, SYS_TOTAL_VAS), ==, 32);
    if (t->v25) {
        g_assert_cmphex(rd(t, SYS_TOTAL_CREDITS), ==, 0x4000);
    } else {
        g_assert_cmphex(rd(t, SYS_TOTAL_LDB_CRDS), ==, 0x2000);
        g_assert_cmphex(rd(t, SYS_TOTAL_DIR_CRDS), ==, 0x1000);
    }
    g_assert_cmphex(rd(t, LSP_CQ_LDB_DSBL(0)), ==, 1);
    g_assert_cmphex(rd(t, LSP_CQ_DIR_DSBL(t->ndir - 1)), ==, 1);
    g_assert_cmphex(rd(t, AQED_QID_FID_LIM(31)), ==, 0x7ff);
    g_assert_cmphex(rd(t, CHP_CFG_CHP_CSR_CTRL), ==, 0x180002);
    /* Configuration registers read back; read-only totals do not change. */
    wr(t, LSP_CQ2PRIOV(63), 0x81000007);
    g_assert_cmphex(rd(t, LSP_CQ2PRIOV(63)), ==, 0x81000007);
    wr(t, SYS_TOTAL_VAS, 5);
    g_assert_cmphex(rd(t, SYS_TOTAL_VAS), ==, 32);
    t_end(q);
}

static void test_flr(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;
    uint8_t exp = qpci_find_capability(q->dev, PCI_CAP_ID_EXP, 0);
    uint32_t devcap;

    g_assert(exp);
    devcap = qpci_config_readl(q->dev, exp + PCI_EXP_DEVCAP);
    g_assert(devcap & PCI_EXP_DEVCAP_FLR);

    dir_pair(t, 0, 3, 8, cq_addr(t, false, 3));
    set_credits(t, 0, 0, 16);
    start(t, 0, 0, 1ull << 3);
    hcw(t, PP_DIR(3), NEW, 3, DIRECTED, 0, 0, 0x1234);
    g_assert_cmpuint(rd(t, LSP_CQ_DIR_TKN_CNT(3)), ==, 1);

    qpci_config_writew(q->dev, exp + PCI_EXP_DEVCTL,
                       qpci_config_readw(q->dev, exp + PCI_EXP_DEVCTL) |
                       PCI_EXP_DEVCTL_BCR_FLR);
    /* FLR cleared the BARs too; a driver restores its config space. */
    g_assert_cmphex(qpci_config_readl(q->dev, PCI_BASE_ADDRESS_3), ==, 0);
    map_bars(q);
    /* Everything is back to reset, but the power-on setting survives. */
    g_assert_cmphex(rd(t, LSP_CQ_DIR_DSBL(3)), ==, 1);
    g_assert_cmphex(rd(t, SYS_DIR_PP_V(3)), ==, 0);
    g_assert_cmphex(rd(t, LSP_CQ_DIR_TKN_CNT(3)), ==, 0);
    g_assert_cmphex(rd(t, CHP_CFG_VAS_CRD(0)), ==, 0);
    g_assert_cmphex(rd(t, CM_PM_PMCSR_DISABLE), ==, 0);
    t_end(q);
}

static void test_directed(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;
    CQ cq = cq_of(cq_addr(t, false, 5), 8, false);
    unsigned int i;
    QE qe;

    dir_pair(t, 1, 5, 8, cq_addr(t, false, 5));
    set_credits(t, 1, 0, 4);
    start(t, 1, 0, 1ull << 5);

    /* 3 laps over an 8-entry ring: the gen bit flips each lap. */
    for (i = 0; i < 24; i++) {
        hcw(t, PP_DIR(5), NEW, 5, DIRECTED, 0, 0xbeef, 0x1000 + i);
        g_assert(cq_pop(t, &cq, &qe));
        g_assert_cmphex(qe.data, ==, 0x1000 + i);
        g_assert_cmphex(qe.lock_id, ==, 0xbeef);
        g_assert_cmpuint(qe.sched & 3, ==, DIRECTED);
        g_assert_cmpuint(qe.gen_byte & 1, ==, (i / 8) & 1 ? 0 : 1);
        g_assert(!cq_pop(t, &cq, &qe));
        /* The credit came back when the QE was written to the CQ. */
        g_assert_cmpuint(rd(t, t->v25 ? CHP_CFG_VAS_CRD(1) :
                            CHP_CFG_DIR_VAS_CRD(1)), ==, 4);
        g_assert_cmpuint(rd(t, LSP_CQ_DIR_TKN_CNT(5)), ==, 1);
        hcw(t, PP_DIR(5), BAT_T, 0, 0, 0, 0, 0);
        g_assert_cmpuint(rd(t, LSP_CQ_DIR_TKN_CNT(5)), ==, 0);
    }
    g_assert_cmphex(rd(t, SYS_ALARM_PF_SYND0), ==, 0);
    t_end(q);
}

/* CQ depth bounds outstanding QEs; the depth < 8 preload counts as held. */
static void test_depth_and_tokens(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;
    CQ cq = cq_of(cq_addr(t, false, 2), 4, false);
    unsigned int i;
    QE qe;

    dir_pair(t, 0, 2, 4, cq_addr(t, false, 2));
    set_credits(t, 0, 0, 64);
    start(t, 0, 0, 1ull << 2);
    for (i = 0; i < 10; i++) {
        hcw(t, PP_DIR(2), NEW, 2, DIRECTED, 0, 0, i);
    }
    for (i = 0; i < 4; i++) {
        g_assert(cq_pop(t, &cq, &qe));
        g_assert_cmpuint(qe.data, ==, i);
    }
    g_assert(!cq_pop(t, &cq, &qe));
    g_assert_cmpuint(rd(t, LSP_QID_DIR_ENQUEUE_CNT(2)), ==, 6);
    /* Return 2 tokens with one BAT_T (lock_id = n - 1): 2 more come. */
    hcw(t, PP_DIR(2), BAT_T, 0, 0, 0, 1, 0);
    for (i = 4; i < 6; i++) {
        g_assert(cq_pop(t, &cq, &qe));
        g_assert_cmpuint(qe.data, ==, i);
    }
    g_assert(!cq_pop(t, &cq, &qe));
    g_assert_cmpuint(rd(t, LSP_QID_DIR_ENQUEUE_CNT(2)), ==, 4);
    t_end(q);
}

/* HCWs assembled from 1-byte writes (rep movsb) reach the CQ intact. */
static void test_byte_writes(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;
    CQ cq = cq_of(cq_addr(t, false, 0), 8, false);
    uint8_t b[16] = { 0 };
    unsigned int i;
    QE qe;

    dir_pair(t, 0, 0, 8, cq_addr(t, false, 0));
    set_credits(t, 0, 0, 8);
    start(t, 0, 0, 1);
    for (i = 0; i < 8; i++) {
        b[i] = 0x0123456789abcdefull >> (8 * i);
    }
    b[8] = b[9] = 0x5a;
    b[10] = 0;
    b[11] = DIRECTED | 3 << 2;
    b[12] = 77;
    b[15] = NEW;
    for (i = 0; i < 16; i++) {
        qtest_writeb(q->qts, BAR0_ADDR + PP_DIR(0) + 0x40 + i, b[i]);
    }
    g_assert(cq_pop(t, &cq, &qe));
    g_assert_cmphex(qe.data, ==, 0x0123456789abcdefull);
    g_assert_cmphex(qe.opaque, ==, 0x5a5a);
    g_assert_cmpuint(qe.lock_id, ==, 77);
    g_assert_cmpuint((qe.sched >> 2) & 7, ==, 3);
    t_end(q);
}

/*
 * Unordered QEs spread over the CQs mapped to the queue, none lost.  That
 * both CQs get some is the rr option's (RR).
 */
static void test_unordered(const void *data)
{
    T *q = t_start(data, RR);
    DLB2Dev *t = &q->d;
    CQ cq[2] = { cq_of(cq_addr(t, true, 0), 64, false),
                 cq_of(cq_addr(t, true, 7), 64, false) };
    unsigned int p[2] = { 0, 7 }, got[2] = { 0 }, i, c, n = 100;
    bool seen[100] = { false };
    QE qe;

    ldb_queue(t, 0, 4, 0, 0);
    ldb_port(t, 0, 0, 64, 0, 64,
                 cq_addr(t, true, 0));
    ldb_port(t, 0, 7, 64, 64, 64,
                 cq_addr(t, true, 7));
    map(t, 0, 4, 0, 0);
    map(t, 7, 4, 2, 0);
    set_credits(t, 0, 32, 0);
    start(t, 0, 1u << 4, 0);
    for (i = 0; i < n; i++) {
        hcw(t, PP_LDB(0), NEW, 4, UNORDERED, 0, 0, i);
        for (c = 0; c < 2; c++) {
            while (cq_pop(t, &cq[c], &qe)) {
                g_assert_cmpuint(qe.qid, ==, 4);
                g_assert(!seen[qe.data]);
                seen[qe.data] = true;
                got[c]++;
                hcw(t, PP_LDB(p[c]), COMP_T, 0, 0, 0, 0, 0);
            }
        }
    }
    g_assert_cmpuint(got[0] + got[1], ==, n);
    g_assert_cmpuint(got[0], >, 0);
    g_assert_cmpuint(got[1], >, 0);
    g_assert_cmpuint(rd(t, LSP_QID_LDB_INFL_CNT(4)), ==, 0);
    g_assert_cmpuint(rd(t, LSP_CQ_LDB_INFL_CNT(0)), ==, 0);
    g_assert_cmphex(rd(t, SYS_ALARM_PF_SYND0), ==, 0);
    t_end(q);
}

/*
 * Atomic: a flow is never in two CQs at once.  Random completions over n
 * QEs of 8 flows on 3 CQs; each QE carries (flow, sequence) so per-flow
 * order is checked too.  That idle flows move to another CQ is the rr
 * option's (RR).
 */
static void test_atomic(const void *data)
{
    T *q = t_start(data, RR);
    DLB2Dev *t = &q->d;
    enum { NCQ = 3, NFLOW = 8 };
    unsigned int ports[NCQ] = { 1, 2, 3 }, n = test_qes(20000), sent = 0;
    unsigned int done = 0;
    unsigned int held[NCQ] = { 0 }, owner[NFLOW], owned[NFLOW] = { 0 };
    unsigned int next_seq[NFLOW] = { 0 }, want_seq[NFLOW] = { 0 };
    unsigned int hold_flow[NCQ][64], moved = 0, i, c;
    CQ cq[NCQ];
    QE qe;

    for (i = 0; i < NFLOW; i++) {
        owner[i] = NCQ;     /* never scheduled yet */
    }

    ldb_queue(t, 0, 9, 0, 64);
    for (c = 0; c < NCQ; c++) {
        ldb_port(t, 0, ports[c], 16, c * 64, 64,
                 cq_addr(t, true, ports[c]));
        map(t, ports[c], 9, c, 0);
        cq[c] = cq_of(cq_addr(t, true, ports[c]), 16, false);
    }
    set_credits(t, 0, 48, 0);
    start(t, 0, 1u << 9, 0);

    while (done < n) {
        /* Enqueue a few while credits last (the test keeps count). */
        for (i = 0; i < 4 && sent < n && sent - done < 48; i++, sent++) {
            unsigned int f = g_test_rand_int_range(0, NFLOW);

            hcw(t, PP_LDB(ports[0]), NEW, 9, ATOMIC, 0, f,
                (uint64_t)f << 32 | next_seq[f]++);
        }
        for (c = 0; c < NCQ; c++) {
            while (cq_pop(t, &cq[c], &qe)) {
                unsigned int f = qe.data >> 32;

                g_assert_cmpuint(qe.lock_id, ==, f);
                g_assert_cmpuint((uint32_t)qe.data, ==, want_seq[f]);
                want_seq[f]++;
                if (owned[f]) {
                    g_assert_cmpuint(owner[f], ==, c);  /* never two CQs */
                } else {
                    moved += owner[f] != NCQ && owner[f] != c;
                    owner[f] = c;
                }
                owned[f]++;
                hold_flow[c][held[c]++] = f;
                hcw(t, PP_LDB(ports[c]), BAT_T, 0, 0, 0, 0, 0);
            }
        }
        /* Complete a random number of the oldest held QEs, per CQ. */
        for (c = 0; c < NCQ; c++) {
            unsigned int k = held[c] ?
                             g_test_rand_int_range(0, held[c] + 1) : 0;

            for (i = 0; i < k; i++) {
                owned[hold_flow[c][i]]--;
                hcw(t, PP_LDB(ports[c]), COMP, 0, 0, 0, 0, 0);
                done++;
            }
            memmove(hold_flow[c], hold_flow[c] + k,
                    (held[c] - k) * sizeof(hold_flow[c][0]));
            held[c] -= k;
        }
    }
    g_assert_cmpuint(moved, >, 0);  /* flows did migrate when idle */
    g_assert_cmpuint(rd(t, LSP_QID_ATM_ACTIVE(9)), ==, 0);
    g_assert_cmpuint(rd(t, LSP_QID_LDB_INFL_CNT(9)), ==, 0);
    g_assert_cmphex(rd(t, SYS_ALARM_PF_SYND0), ==, 0);
    t_end(q);
}

/*
 * Ordered: workers forward to a directed queue in random completion order;
 * the directed CQ sees ingress order.
 */
static void test_ordered(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;
    enum { NCQ = 2 };
    unsigned int ports[NCQ] = { 4, 5 }, n = test_qes(5000), sent = 0, out = 0;
    unsigned int i, c;
    unsigned int held[NCQ] = { 0 };
    CQ cq[NCQ], dcq = cq_of(cq_addr(t, false, 6), 64, false);
    QE qe, hold[NCQ][32];

    ldb_queue(t, 0, 2, 1024, 0);
    dir_pair(t, 0, 6, 64, cq_addr(t, false, 6));
    for (c = 0; c < NCQ; c++) {
        ldb_port(t, 0, ports[c], 32, c * 32, 32,
                 cq_addr(t, true, ports[c]));
        map(t, ports[c], 2, 0, 0);
        cq[c] = cq_of(cq_addr(t, true, ports[c]), 32, false);
    }
    set_credits(t, 0, 64, 64);
    start(t, 0, 1u << 2, 1ull << 6);

    while (out < n) {
        for (i = 0; i < 8 && sent < n && sent - out < 48; i++, sent++) {
            hcw(t, PP_DIR(6), NEW, 2, ORDERED, 0, 0, sent);
        }
        for (c = 0; c < NCQ; c++) {
            while (held[c] < 32 && cq_pop(t, &cq[c], &hold[c][held[c]])) {
                held[c]++;
                hcw(t, PP_LDB(ports[c]), BAT_T, 0, 0, 0, 0, 0);
            }
        }
        /* Forward a random CQ's oldest QEs first: completion order varies. */
        c = g_test_rand_int_range(0, NCQ);
        for (i = 0; i < held[c]; i++) {
            hcw(t, PP_LDB(ports[c]), FWD, 6, DIRECTED, 0, 0, hold[c][i].data);
        }
        held[c] = 0;
        while (cq_pop(t, &dcq, &qe)) {
            g_assert_cmpuint(qe.data, ==, out);
            out++;
            hcw(t, PP_DIR(6), BAT_T, 0, 0, 0, 0, 0);
        }
    }
    g_assert_cmpuint(rd(t, LSP_QID_LDB_INFL_CNT(2)), ==, 0);
    g_assert_cmphex(rd(t, SYS_ALARM_PF_SYND0), ==, 0);
    t_end(q);
}

/*
 * Slot priority first, then QE priority within the queue: FACT (facts
 * §7.2), whatever the arbitration (random-arbitration runs it too).
 */
static void priority_run(const void *data, const char *extra)
{
    T *q = t_start(data, extra);
    DLB2Dev *t = &q->d;
    CQ cq = cq_of(cq_addr(t, true, 10), 16, false);
    uint64_t want[] = { 30, 31, 20, 21, 10 };
    unsigned int i;
    QE qe;

    ldb_queue(t, 0, 0, 0, 0);
    ldb_queue(t, 0, 1, 0, 0);
    ldb_port(t, 0, 10, 16, 0, 16,
                 cq_addr(t, true, 10));
    map(t, 10, 0, 0, 6);        /* queue 0: low priority slot */
    map(t, 10, 1, 1, 1);        /* queue 1: high priority slot */
    set_credits(t, 0, 16, 0);
    start(t, 0, 3, 0);
    wr(t, LSP_CQ_LDB_DSBL(10), 1);
    hcw(t, PP_LDB(10), NEW, 0, UNORDERED, 0, 0, 10);
    hcw(t, PP_LDB(10), NEW, 1, UNORDERED, 6, 0, 20);    /* QE prio 6 */
    hcw(t, PP_LDB(10), NEW, 1, UNORDERED, 6, 0, 21);
    hcw(t, PP_LDB(10), NEW, 1, UNORDERED, 0, 0, 30);    /* QE prio 0 */
    hcw(t, PP_LDB(10), NEW, 1, UNORDERED, 1, 0, 31);    /* same bin as 0 */
    g_assert(!cq_pop(t, &cq, &qe));
    wr(t, LSP_CQ_LDB_DSBL(10), 0);
    for (i = 0; i < G_N_ELEMENTS(want); i++) {
        g_assert(cq_pop(t, &cq, &qe));
        g_assert_cmpuint(qe.data, ==, want[i]);
    }
    t_end(q);
}

static void test_priority(const void *data)
{
    priority_run(data, NULL);
}

/*
 * Slot priorities 2k and 2k+1 are one level (facts §7.2: the lowest bit is
 * ignored): a queue at slot priority 3 is not starved by one at 2.  That
 * the two alternate is the rr option's (RR).
 */
static void test_priority_levels(const void *data)
{
    T *q = t_start(data, RR);
    DLB2Dev *t = &q->d;
    CQ cq = cq_of(cq_addr(t, true, 10), 16, false);
    unsigned int i, from0 = 0;
    QE qe;

    ldb_queue(t, 0, 0, 0, 0);
    ldb_queue(t, 0, 1, 0, 0);
    ldb_port(t, 0, 10, 16, 0, 16,
                 cq_addr(t, true, 10));
    map(t, 10, 0, 0, 3);
    map(t, 10, 1, 1, 2);
    set_credits(t, 0, 16, 0);
    start(t, 0, 3, 0);
    wr(t, LSP_CQ_LDB_DSBL(10), 1);
    for (i = 0; i < 4; i++) {
        hcw(t, PP_LDB(10), NEW, 0, UNORDERED, 0, 0, 100 + i);
        hcw(t, PP_LDB(10), NEW, 1, UNORDERED, 0, 0, 200 + i);
    }
    wr(t, LSP_CQ_LDB_DSBL(10), 0);
    for (i = 0; i < 4; i++) {
        g_assert(cq_pop(t, &cq, &qe));
        from0 += qe.data < 200;
    }
    /* the two queues alternate: the first four hold two of each */
    g_assert_cmpuint(from0, ==, 2);
    t_end(q);
}

static void assert_alarm(DLB2Dev *t, unsigned int source, unsigned int aid,
                         bool is_ldb, unsigned int port)
{
    uint32_t synd0 = rd(t, SYS_ALARM_PF_SYND0);

    g_assert_cmphex(synd0 >> 31, ==, 1);                /* VALID */
    g_assert_cmpuint((synd0 >> 26) & 0xf, ==, source);
    g_assert_cmpuint((synd0 >> 16) & 0x3f, ==, aid);
    g_assert_cmpuint((synd0 >> 13) & 1, ==, is_ldb);
    g_assert_cmpuint(synd0 & 0x7f, ==, port);
    /* Signalled on MSI-X vector 0 (masked: pending bit set). */
    g_assert_cmphex(qtest_readl(QT(t)->qts, BAR0_ADDR + MSIX_PBA) & 1, ==, 1);
    wr(t, SYS_ALARM_PF_SYND0, 0xc0000000);             /* clear */
    g_assert_cmphex(rd(t, SYS_ALARM_PF_SYND0) >> 30, ==, 0);
    wr(t, SYS_MSIX_ACK, 1);
}

static void msix_enable(DLB2Dev *t)
{
    QPCIDevice *dev = QT(t)->dev;
    uint8_t cap = qpci_find_capability(dev, PCI_CAP_ID_MSIX, 0);

    g_assert(cap);
    qpci_config_writew(dev, cap + PCI_MSIX_FLAGS,
                       qpci_config_readw(dev, cap + PCI_MSIX_FLAGS) |
                       PCI_MSIX_FLAGS_ENABLE);
}

/* Credits: an enqueue without one raises the alarm and is dropped. */
static void test_credit_alarm(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;
    CQ cq = cq_of(cq_addr(t, true, 3), 8, false);
    unsigned int i;
    QE qe;

    msix_enable(t);
    ldb_queue(t, 2, 0, 0, 0);
    ldb_port(t, 2, 3, 8, 0, 8,
                 cq_addr(t, true, 3));
    map(t, 3, 0, 0, 0);
    set_credits(t, 2, 2, 0);
    start(t, 2, 1, 0);
    wr(t, LSP_CQ_LDB_DSBL(3), 1);
    for (i = 0; i < 3; i++) {
        hcw(t, PP_LDB(3), NEW, 0, UNORDERED, 0, 0, i);
    }
    g_assert_cmpuint(rd(t, t->v25 ? CHP_CFG_VAS_CRD(2) :
                        CHP_CFG_LDB_VAS_CRD(2)), ==, 0);
    assert_alarm(t, 1, 1, true, 3);             /* PP_ILLEGAL_ENQ */
    g_assert_cmpuint(rd(t, LSP_QID_LDB_ENQUEUE_CNT(0)), ==, 2);
    /* Scheduling gives the credits back; the dropped QE never comes. */
    wr(t, LSP_CQ_LDB_DSBL(3), 0);
    for (i = 0; i < 2; i++) {
        g_assert(cq_pop(t, &cq, &qe));
        g_assert_cmpuint(qe.data, ==, i);
    }
    g_assert(!cq_pop(t, &cq, &qe));
    g_assert_cmpuint(rd(t, t->v25 ? CHP_CFG_VAS_CRD(2) :
                        CHP_CFG_LDB_VAS_CRD(2)), ==, 2);
    t_end(q);
}

/* Excess token pops, excess completions and bad commands raise alarms. */
static void test_ingress_alarms(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;

    msix_enable(t);
    ldb_queue(t, 0, 0, 0, 0);
    ldb_port(t, 0, 1, 8, 0, 8,
                 cq_addr(t, true, 1));
    map(t, 1, 0, 0, 0);
    dir_pair(t, 0, 2, 8, cq_addr(t, false, 2));
    set_credits(t, 0, 8, 8);
    start(t, 0, 1, 1ull << 2);

    hcw(t, PP_LDB(1), BAT_T, 0, 0, 0, 0, 0);    /* no token outstanding */
    assert_alarm(t, 1, 2, true, 1);
    g_assert_cmpuint(rd(t, LSP_CQ_LDB_TKN_CNT(1)), ==, 0);

    hcw(t, PP_LDB(1), COMP, 0, 0, 0, 0, 0);     /* nothing to complete */
    assert_alarm(t, 1, 1, true, 1);

    /* SYS alarms are reported only when enabled. */
    hcw(t, PP_DIR(2), COMP, 0, 0, 0, 0, 0);     /* COMP from a DIR port */
    g_assert_cmphex(rd(t, SYS_ALARM_PF_SYND0) >> 31, ==, 0);
    wr(t, SYS_INGRESS_ALARM_ENBL, 0x3f);
    hcw(t, PP_DIR(2), COMP, 0, 0, 0, 0, 0);
    assert_alarm(t, 0, 5, false, 2);
    hcw(t, PP_LDB(1), 0x7, 0, 0, 0, 0, 0);      /* undefined command */
    assert_alarm(t, 0, 5, true, 1);
    hcw(t, PP_LDB(1), NEW, 200, UNORDERED, 0, 0, 0);
    assert_alarm(t, 0, 3, true, 1);             /* ILLEGAL_QID */
    hcw(t, PP_LDB(1), NEW, 5, UNORDERED, 0, 0, 0);
    assert_alarm(t, 0, 4, true, 1);             /* DISABLED_QID */
    g_assert_cmpuint(rd(t, LSP_QID_LDB_ENQUEUE_CNT(5)), ==, 0);

    /* A second alarm before the first is cleared sets MORE. */
    hcw(t, PP_LDB(1), COMP, 0, 0, 0, 0, 0);
    hcw(t, PP_LDB(1), COMP, 0, 0, 0, 0, 0);
    g_assert_cmphex(rd(t, SYS_ALARM_PF_SYND0) >> 30, ==, 3);
    t_end(q);
}

/* qom-set of the "inject-alarm" fault; true when QEMU took the value. */
static bool inject_alarm(T *q, unsigned int value)
{
    QDict *resp = qtest_qmp(q->qts,
                            "{'execute': 'qom-set', 'arguments': {"
                            " 'path': '/machine/peripheral-anon/device[0]',"
                            " 'property': 'inject-alarm', 'value': %u}}",
                            value);
    bool ok = qdict_haskey(resp, "return");

    qobject_unref(resp);
    return ok;
}

/*
 * The "inject-alarm" fault (a test instrument for the drivers' decoding of
 * syndromes): an illegal-HCW alarm naming any port id the field holds,
 * ports the device lacks included; reported only while enabled, as the
 * alarm itself; values that are no port and flag refused.
 */
static void test_inject_alarm(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;

    msix_enable(t);
    g_assert(inject_alarm(q, 0x80 | 64));       /* disabled: not reported */
    g_assert_cmphex(rd(t, SYS_ALARM_PF_SYND0) >> 31, ==, 0);
    wr(t, SYS_INGRESS_ALARM_ENBL, 0x3f);
    g_assert(inject_alarm(q, 0x80 | 64));
    assert_alarm(t, 0, 5, true, 64);
    g_assert(inject_alarm(q, 127));
    assert_alarm(t, 0, 5, false, 127);
    g_assert(inject_alarm(q, 3));
    assert_alarm(t, 0, 5, false, 3);
    g_assert(!inject_alarm(q, 0x100));
    g_assert_cmphex(rd(t, SYS_ALARM_PF_SYND0) >> 31, ==, 0);
    t_end(q);
}

/* Domains are isolated: a port cannot enqueue to another domain's queue. */
static void test_domain_isolation(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;
    CQ cq = cq_of(cq_addr(t, false, 1), 8, false);
    QE qe;

    dir_pair(t, 0, 0, 8, cq_addr(t, false, 0));
    dir_pair(t, 1, 1, 8, cq_addr(t, false, 1));
    set_credits(t, 0, 0, 8);
    set_credits(t, 1, 0, 8);
    start(t, 0, 0, 1);
    start(t, 1, 0, 2);
    wr(t, SYS_INGRESS_ALARM_ENBL, 0x3f);
    hcw(t, PP_DIR(0), NEW, 1, DIRECTED, 0, 0, 99);  /* domain 0 -> queue 1 */
    g_assert(!cq_pop(t, &cq, &qe));
    g_assert_cmpuint(rd(t, LSP_QID_DIR_ENQUEUE_CNT(1)), ==, 0);
    g_assert_cmpuint((rd(t, SYS_ALARM_PF_SYND0) >> 16) & 0x3f, ==, 4);
    t_end(q);
}

/* Sparse CQ mode: one QE per 64-byte line. */
static void test_sparse(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;
    CQ cq = cq_of(cq_addr(t, false, 3), 8, true);
    unsigned int i;
    QE qe;

    wr(t, CHP_CFG_CHP_CSR_CTRL, rd(t, CHP_CFG_CHP_CSR_CTRL) | 3u << 17);
    dir_pair(t, 0, 3, 8, cq_addr(t, false, 3));
    set_credits(t, 0, 0, 8);
    start(t, 0, 0, 1ull << 3);
    for (i = 0; i < 4; i++) {
        hcw(t, PP_DIR(3), NEW, 3, DIRECTED, 0, 0, 0x70 + i);
    }
    qt_settle(t);
    for (i = 0; i < 4; i++) {
        uint64_t v = qtest_readq(q->qts, cq.base + i * 64);

        g_assert_cmphex(v, ==, 0x70 + i);
        g_assert(cq_pop(t, &cq, &qe));
    }
    t_end(q);
}

/* CQ interrupt: fires once per arm at the depth threshold, on vector 1. */
static void test_cq_interrupt(const void *data)
{
    T *q = t_start(data, NULL);
    DLB2Dev *t = &q->d;

    msix_enable(t);
    wr(t, SYS_MSIX_MODE, 1);                    /* compressed */
    dir_pair(t, 0, 4, 8, cq_addr(t, false, 4));
    wr(t, CHP_DIR_CQ_INT_DEPTH_THRSH(4), 1);    /* fire at 2 QEs */
    wr(t, CHP_DIR_CQ_INT_ENB(4), 2);            /* EN_DEPTH */
    wr(t, SYS_DIR_CQ_ISR(4), 2 << 10);          /* MSI-X */
    set_credits(t, 0, 0, 8);
    start(t, 0, 0, 1ull << 4);

    hcw(t, PP_DIR(4), ARM, 0, 0, 0, 0, 0);
    hcw(t, PP_DIR(4), NEW, 4, DIRECTED, 0, 0, 1);
    g_assert_cmphex(rd(t, SYS_DIR_OCC_INT_STS0), ==, 0);
    hcw(t, PP_DIR(4), NEW, 4, DIRECTED, 0, 0, 2);
    g_assert_cmphex(rd(t, SYS_DIR_OCC_INT_STS0), ==, 1u << 4);
    g_assert_cmphex(qtest_readl(q->qts, BAR0_ADDR + MSIX_PBA) & 2, ==, 2);
    g_assert_cmphex(rd(t, CHP_DIR_CQ_INTR_ARMED0), ==, 0);   /* one-shot */
    wr(t, SYS_DIR_OCC_INT_STS0, 1u << 4);
    g_assert_cmphex(rd(t, SYS_DIR_OCC_INT_STS0), ==, 0);
    /* Re-arm through the CSR: fires at once, the CQ still holds 2. */
    wr(t, CHP_DIR_CQ_INTR_ARMED0, 1u << 4);
    g_assert_cmphex(rd(t, SYS_DIR_OCC_INT_STS0), ==, 1u << 4);
    t_end(q);
}

/*
 * The MSI-X acknowledgement of vector 1 and the "lost MSI-X interrupts"
 * erratum (CSSY-1650, facts §8.1), which the model has with
 * msix-erratum=on.  Vector 1 writes MSI_DATA to MSI_ADDR in guest memory,
 * unmasked.  Port 4's interrupt is sent and, before software acknowledges
 * it, port 5's becomes due: the device holds it back until the
 * acknowledgement.  Then software acknowledges, plainly (SYS_MSIX_ACK
 * alone) or with the drivers' workaround: mask vector 1, set
 * SYS_MSIX_PASSTHRU bit 1, acknowledge, clear PASSTHRU, unmask, read.
 */
#define MSI_ADDR    0x3000000ull
#define MSI_DATA    0x4711

/* Was vector 1's message written since the last look?  Clears it. */
static bool msi_seen(T *q)
{
    uint32_t v;

    qt_settle(&q->d);
    v = qtest_readl(q->qts, MSI_ADDR);
    qtest_writel(q->qts, MSI_ADDR, 0);
    return v == MSI_DATA;
}

static void msix_ack_case(const void *data, bool erratum, bool workaround)
{
    T *q = t_start(data, erratum ? "-global dlb2.msix-erratum=on" : NULL);
    DLB2Dev *t = &q->d;
    unsigned int p;

    msix_enable(t);
    qtest_writel(q->qts, BAR0_ADDR + MSIX_TABLE + 16, (uint32_t)MSI_ADDR);
    qtest_writel(q->qts, BAR0_ADDR + MSIX_TABLE + 16 + 4, MSI_ADDR >> 32);
    qtest_writel(q->qts, BAR0_ADDR + MSIX_TABLE + 16 + 8, MSI_DATA);
    qtest_writel(q->qts, BAR0_ADDR + MSIX_VECTOR_CTRL(1), 0);  /* unmask */
    qtest_writel(q->qts, MSI_ADDR, 0);
    wr(t, SYS_MSIX_MODE, 1);                    /* compressed */
    for (p = 4; p <= 5; p++) {
        dir_pair(t, 0, p, 8, cq_addr(t, false, p));
        wr(t, CHP_DIR_CQ_INT_DEPTH_THRSH(p), 0);    /* fire at 1 QE */
        wr(t, CHP_DIR_CQ_INT_ENB(p), 2);            /* EN_DEPTH */
        wr(t, SYS_DIR_CQ_ISR(p), 2 << 10);          /* MSI-X */
    }
    set_credits(t, 0, 0, 8);
    start(t, 0, 0, 3ull << 4);
    hcw(t, PP_DIR(4), ARM, 0, 0, 0, 0, 0);
    hcw(t, PP_DIR(5), ARM, 0, 0, 0, 0, 0);

    hcw(t, PP_DIR(4), NEW, 4, DIRECTED, 0, 0, 1);
    g_assert(msi_seen(q));
    /* The handler: status read and cleared, then port 5's becomes due. */
    g_assert_cmphex(rd(t, SYS_DIR_OCC_INT_STS0), ==, 1u << 4);
    wr(t, SYS_DIR_OCC_INT_STS0, 1u << 4);
    hcw(t, PP_DIR(5), NEW, 5, DIRECTED, 0, 0, 2);
    g_assert_cmphex(rd(t, SYS_DIR_OCC_INT_STS0), ==, 1u << 5);
    g_assert(!msi_seen(q));                     /* held: not acknowledged */

    if (workaround) {
        qtest_writel(q->qts, BAR0_ADDR + MSIX_VECTOR_CTRL(1), 1);
        wr(t, SYS_MSIX_PASSTHRU, 2);
        wr(t, SYS_MSIX_ACK, 2);
        /* Sent to the MSI-X logic, pending while the vector is masked. */
        g_assert(!msi_seen(q));
        g_assert_cmphex(qtest_readl(q->qts, BAR0_ADDR + MSIX_PBA) & 2, ==, 2);
        wr(t, SYS_MSIX_PASSTHRU, 0);
        qtest_writel(q->qts, BAR0_ADDR + MSIX_VECTOR_CTRL(1), 0);
        rd(t, SYS_TOTAL_VAS);                   /* flush */
        g_assert(msi_seen(q));
        g_assert_cmphex(qtest_readl(q->qts, BAR0_ADDR + MSIX_PBA) & 2, ==, 0);
    } else if (erratum) {
        wr(t, SYS_MSIX_ACK, 2);
        /* Lost: not sent, not pending; only the status bit tells. */
        g_assert(!msi_seen(q));
        qtest_clock_step(q->qts, 1000000);
        g_assert(!msi_seen(q));
        g_assert_cmphex(qtest_readl(q->qts, BAR0_ADDR + MSIX_PBA) & 2, ==, 0);
        g_assert_cmphex(rd(t, SYS_DIR_OCC_INT_STS0), ==, 1u << 5);
    } else {
        wr(t, SYS_MSIX_ACK, 2);
        g_assert(msi_seen(q));
    }
    /* Either way the latch is clear: the next interrupt is sent. */
    wr(t, SYS_DIR_OCC_INT_STS0, 1u << 5);
    wr(t, SYS_MSIX_ACK, 2);
    hcw(t, PP_DIR(4), ARM, 0, 0, 0, 0, 0);      /* CQ 4 holds 1: fires */
    g_assert(msi_seen(q));
    g_assert_cmphex(rd(t, SYS_DIR_OCC_INT_STS0), ==, 1u << 4);
    t_end(q);
}

/* msix-erratum=off: the held interrupt is sent on a plain acknowledgement. */
static void test_msix_ack(const void *data)
{
    msix_ack_case(data, false, false);
}

/* msix-erratum=off: and with the workaround, on the unmask. */
static void test_msix_ack_workaround(const void *data)
{
    msix_ack_case(data, false, true);
}

/* msix-erratum=on: a plain acknowledgement loses the held interrupt. */
static void test_msix_erratum_lost(const void *data)
{
    msix_ack_case(data, true, false);
}

/* msix-erratum=on: the drivers' workaround delivers it, on the unmask. */
static void test_msix_erratum_workaround(const void *data)
{
    msix_ack_case(data, true, true);
}

#include "dlb2-test-strict.c.inc"
#include "dlb2-test-props.c.inc"

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(const void *);
    } tests[] = {
        { "reset-values", test_reset_values },
        { "flr", test_flr },
        { "directed", test_directed },
        { "depth-and-tokens", test_depth_and_tokens },
        { "byte-writes", test_byte_writes },
        { "unordered", test_unordered },
        { "atomic", test_atomic },
        { "ordered", test_ordered },
        { "priority", test_priority },
        { "priority-levels", test_priority_levels },
        { "credit-alarm", test_credit_alarm },
        { "ingress-alarms", test_ingress_alarms },
        { "inject-alarm", test_inject_alarm },
        { "domain-isolation", test_domain_isolation },
        { "sparse", test_sparse },
        { "cq-interrupt", test_cq_interrupt },
        { "msix-ack", test_msix_ack },
        { "msix-ack-workaround", test_msix_ack_workaround },
        { "msix-erratum-lost", test_msix_erratum_lost },
        { "msix-erratum-workaround", test_msix_erratum_workaround },
        { "balance", test_balance },
        { "map-registers", test_map_registers },
        { "depth-select-mismatch", test_depth_select_mismatch },
        { "history-list", test_history_list },
        { "aqed-limit", test_aqed_limit },
        { "sn-groups", test_sn_groups },
        { "sn-state", test_sn_state },
        { "power-gate", test_power_gate },
        { "fragments", test_fragments },
        { "mixed-types", test_mixed_types },
        { "async", test_async },
        { "cq-function", test_cq_function },
        { "queue-valid", test_queue_valid },
        { "random-arbitration", test_random_arbitration },
        { "arm-token", test_arm_token },
        { "posted-writes", test_posted_writes },
    };
    unsigned int v, i;

    g_test_init(&argc, &argv, NULL);
    for (v = 0; v < 2; v++) {
        for (i = 0; i < G_N_ELEMENTS(tests); i++) {
            g_autofree char *path = g_strdup_printf("/dlb2/v%s/%s",
                                                    v ? "2.5" : "2.0",
                                                    tests[i].name);

            qtest_add_data_func(path, GINT_TO_POINTER(v), tests[i].fn);
        }
    }
    return g_test_run();
}
