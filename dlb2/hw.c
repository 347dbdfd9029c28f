// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: register programming sequences.
 *
 * Each function follows the order of writes of the hardware facts, section
 * 6 (itself from DPDK's PF code); "flush" is a read of SYS_TOTAL_VAS.  The
 * caller holds the device lock (dlb2.h, "Locking").
 */
#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/log2.h>

#include "hw.h"
#include "regs.h"

/* Reads and writes of the domain-reset drain before it gives up. */
#define DLB2_DRAIN_ROUNDS	10000
/* One port: a round or two when the device works (dlb2_hw_port_drain_all()). */
#define DLB2_PORT_DRAIN_ROUNDS	64

void dlb2_flush_csr(struct dlb2 *dlb2)
{
	dlb2_csr_rd(dlb2, DLB2_SYS_TOTAL_VAS(dlb2->ver));
}

/**
 * dlb2_hw_gone() - has the device left the bus?
 * @dlb2: the device
 *
 * After a surprise removal or a fatal PCIe error every read answers all
 * ones, which the drain loops would take for counts.  The PCI core marks
 * such a device offline; a read of all ones from SYS_TOTAL_VAS (a count,
 * never all ones) catches the removal before it does.
 *
 * Return: true when the device no longer answers.
 */
bool dlb2_hw_gone(struct dlb2 *dlb2)
{
	return pci_channel_offline(dlb2->pdev) ||
	       dlb2_csr_rd(dlb2, DLB2_SYS_TOTAL_VAS(dlb2->ver)) == U32_MAX;
}

static void rmw(struct dlb2 *dlb2, u32 off, u32 clear, u32 set)
{
	dlb2_csr_wr(dlb2, off, (dlb2_csr_rd(dlb2, off) & ~clear) | set);
}

/* Hardware initialisation after reset (facts 6.1 step 7). */
void dlb2_hw_init(struct dlb2 *dlb2)
{
	/* Sparse CQ mode: one CQ entry per 64-byte line. */
	rmw(dlb2, DLB2_CHP_CFG_CHP_CSR_CTRL(dlb2->ver), 0,
	    DLB2_CHP_CFG_CHP_CSR_CTRL_SPARSE_LDB |
	    DLB2_CHP_CFG_CHP_CSR_CTRL_SPARSE_DIR);
	dlb2_csr_wr(dlb2, DLB2_SYS_INGRESS_ALARM_ENBL(dlb2->ver),
		    DLB2_SYS_INGRESS_ALARM_ENBL_ALL);
	dlb2_hw_sn_modes(dlb2);
	dlb2_flush_csr(dlb2);
}

/* SN group sizes; only changes groups without ordered queues (6.1 step 8). */
void dlb2_hw_sn_modes(struct dlb2 *dlb2)
{
	dlb2_csr_wr(dlb2, DLB2_RO_GRP_SN_MODE(dlb2->ver),
		    FIELD_PREP(DLB2_RO_GRP_SN_MODE_0, dlb2->res.sn_mode[0]) |
		    FIELD_PREP(DLB2_RO_GRP_SN_MODE_1, dlb2->res.sn_mode[1]));
}

/*
 * 6.2: the domain's credit pools.  DLB 2.5 has one pool: dlb2/desc.c folds
 * the directed credits into @ldb there and passes @dir as 0.
 */
void dlb2_hw_domain_credits(struct dlb2 *dlb2, unsigned int dom, u32 ldb,
			    u32 dir)
{
	if (dlb2->ver == DLB2_HW_V2_5) {
		dlb2_csr_wr(dlb2, DLB2_CHP_CFG_VAS_CRD(dlb2->ver, dom), ldb);
	} else {
		dlb2_csr_wr(dlb2, DLB2_CHP_CFG_LDB_VAS_CRD(dlb2->ver, dom), ldb);
		dlb2_csr_wr(dlb2, DLB2_CHP_CFG_DIR_VAS_CRD(dlb2->ver, dom), dir);
	}
}

/* AQED_QID_HID_WIDTH code of a lock-id compression level (6.3 step 4). */
static u32 hid_width_code(u32 lock_id_comp)
{
	if (!lock_id_comp || lock_id_comp == 65536)
		return 0;
	return ilog2(lock_id_comp) - 5;
}

/*
 * The domain's producers' write permission to one of its queues (6.3,
 * 6.4, 6.10): VASQID_V is indexed by domain and queue, per queue type.
 */
static void set_vasqid(struct dlb2 *dlb2, unsigned int dom,
		       const struct dlb2_hw_queue *q, bool on)
{
	if (q->desc.ldb)
		dlb2_csr_wr(dlb2, DLB2_SYS_LDB_VASQID_V(dlb2->ver, dom * DLB2_MAX_LDB_QUEUES +
							 q->id), on);
	else
		dlb2_csr_wr(dlb2, DLB2_SYS_DIR_VASQID_V(dlb2->ver, dom * dlb2->res.num_dir_ports +
							 q->id), on);
}

/* 6.3: a load-balanced queue (write permission stays off until start). */
void dlb2_hw_ldb_queue(struct dlb2 *dlb2, unsigned int dom,
		       const struct dlb2_hw_queue *q)
{
	const struct dlb2_queue_desc *d = &q->desc;
	unsigned int id = q->id;
	u32 sn_map = 0, cfg_v = 0;

	set_vasqid(dlb2, dom, q, false);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_LDB_INFL_LIM(dlb2->ver, id),
		    d->sns ? d->sns : DLB2_HIST_LIST_ENTRIES);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_AQED_ACTIVE_LIM(dlb2->ver, id),
		    d->atomic_inflights);
	dlb2_csr_wr(dlb2, DLB2_AQED_QID_HID_WIDTH(dlb2->ver, id),
		    hid_width_code(d->lock_id_comp));
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_QID_ITS(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_ATM_DEPTH_THRSH(dlb2->ver, id), d->depth_threshold);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_NALDB_DEPTH_THRSH(dlb2->ver, id),
		    d->depth_threshold);
	dlb2_csr_wr(dlb2, DLB2_AQED_QID_FID_LIM(dlb2->ver, id), 512);
	if (q->sn_group >= 0) {
		sn_map = FIELD_PREP(DLB2_ORD_QID_SN_MAP_MODE,
				    dlb2->res.sn_mode[q->sn_group]) |
			 FIELD_PREP(DLB2_ORD_QID_SN_MAP_SLOT, q->sn_slot) |
			 FIELD_PREP(DLB2_ORD_QID_SN_MAP_GRP, q->sn_group);
		cfg_v |= DLB2_LDB_QID_CFG_V_SN_CFG_V;
	}
	if (d->atomic_inflights)
		cfg_v |= DLB2_LDB_QID_CFG_V_FID_CFG_V;
	dlb2_csr_wr(dlb2, DLB2_CHP_ORD_QID_SN_MAP(dlb2->ver, id), sn_map);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_QID_CFG_V(dlb2->ver, id), cfg_v);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_QID_V(dlb2->ver, id), 1);
}

/* 6.4: a directed queue. */
void dlb2_hw_dir_queue(struct dlb2 *dlb2, unsigned int dom,
		       const struct dlb2_hw_queue *q)
{
	set_vasqid(dlb2, dom, q, false);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_QID_ITS(dlb2->ver, q->id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_DIR_DEPTH_THRSH(dlb2->ver, q->id),
		    q->desc.depth_threshold);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_QID_V(dlb2->ver, q->id), 1);
}

/* TOKEN_DEPTH_SELECT of a CQ depth: hardware depth = 4 << select, >= 8. */
static u32 depth_select(u32 depth)
{
	return depth <= 8 ? 1 : ilog2(depth) - 2;
}

/* Tokens preloaded so that only depth QEs fit in the 8-entry minimum ring. */
static u32 token_bias(const struct dlb2_hw_port *port)
{
	return port->cq_depth < 8 ? 8 - port->cq_depth : 0;
}

/* 6.5: a load-balanced port; its CQ is enabled, its slots are empty. */
void dlb2_hw_ldb_port(struct dlb2 *dlb2, unsigned int dom,
		      const struct dlb2_hw_port *port)
{
	unsigned int p = port->id;
	u32 sel = depth_select(port->cq_depth);

	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ_ADDR_L(dlb2->ver, p), lower_32_bits(port->cq_dma));
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ_ADDR_U(dlb2->ver, p), upper_32_bits(port->cq_dma));
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ2VF_PF_RO(dlb2->ver, p),
		    DLB2_CQ2VF_PF_RO_IS_PF | DLB2_CQ2VF_PF_RO_RO);
	dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ_TKN_DEPTH_SEL(dlb2->ver, p), sel);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_LDB_TKN_CNT(dlb2->ver, p), token_bias(port));
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_LDB_TKN_DEPTH_SEL(dlb2->ver, p), sel);
	dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ_WPTR(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_HIST_LIST_LIM(dlb2->ver, p),
		    port->hist_base + port->hist_size - 1);
	dlb2_csr_wr(dlb2, DLB2_CHP_HIST_LIST_BASE(dlb2->ver, p), port->hist_base);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_LDB_INFL_LIM(dlb2->ver, p), port->hist_size);
	dlb2_csr_wr(dlb2, DLB2_CHP_HIST_LIST_PUSH_PTR(dlb2->ver, p), port->hist_base);
	dlb2_csr_wr(dlb2, DLB2_CHP_HIST_LIST_POP_PTR(dlb2->ver, p), port->hist_base);
	if (dlb2->ver == DLB2_HW_V2)
		dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ_AT(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ_PASID(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ2VAS(dlb2->ver, p), dom);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ2PRIOV(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_PP2VAS(dlb2->ver, p), dom);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_PP_V(dlb2->ver, p), 1);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_LDB_DSBL(dlb2->ver, p), 0);
	dlb2_flush_csr(dlb2);
}

/* 6.6: a directed port (its queue is programmed separately). */
void dlb2_hw_dir_port(struct dlb2 *dlb2, unsigned int dom,
		      const struct dlb2_hw_port *port)
{
	unsigned int p = port->id;
	u32 sel = depth_select(port->cq_depth);

	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_ADDR_L(dlb2->ver, p), lower_32_bits(port->cq_dma));
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_ADDR_U(dlb2->ver, p), upper_32_bits(port->cq_dma));
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ2VF_PF_RO(dlb2->ver, p),
		    DLB2_CQ2VF_PF_RO_IS_PF | DLB2_CQ2VF_PF_RO_RO);
	dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ_TKN_DEPTH_SEL(dlb2->ver, p), sel);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_DIR_TKN_CNT(dlb2->ver, p), token_bias(port));
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_DIR_TKN_DEPTH_SEL_DSI(dlb2->ver, p), sel);
	dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ_WPTR(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_FMT(dlb2->ver, p), 0);
	if (dlb2->ver == DLB2_HW_V2)
		dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_AT(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_PASID(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ2VAS(dlb2->ver, p), dom);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_PP2VAS(dlb2->ver, p), dom);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_PP_V(dlb2->ver, p), 1);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_DIR_DSBL(dlb2->ver, p), 0);
	dlb2_flush_csr(dlb2);
}

/*
 * CQ interrupt (8.1): fires on MSI-X vector DLB2_INT_CQ once an armed CQ
 * holds at least one QE.  In compressed mode every CQ's interrupt comes on
 * that vector, whatever VECTOR holds; VECTOR is 0, as the public drivers
 * write it (facts 1.4).  Configuring does not arm; user space arms with the
 * ARM command.
 */
void dlb2_hw_port_intr(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
		       bool on)
{
	u32 isr = on ? FIELD_PREP(DLB2_CQ_ISR_VECTOR, 0) |
		       FIELD_PREP(DLB2_CQ_ISR_EN_CODE, DLB2_CQ_ISR_EN_MSIX) : 0;
	u32 enb = on ? DLB2_CQ_INT_ENB_EN_DEPTH : 0;
	unsigned int p = port->id;

	if (port->ldb) {
		dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ_INT_DEPTH_THRSH(dlb2->ver, p), 0);
		dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ_ISR(dlb2->ver, p), isr);
		dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ_INT_ENB(dlb2->ver, p), enb);
	} else {
		dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ_INT_DEPTH_THRSH(dlb2->ver, p), 0);
		dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_ISR(dlb2->ver, p), isr);
		dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ_INT_ENB(dlb2->ver, p), enb);
	}
	dlb2_flush_csr(dlb2);
}

/*
 * A port's producer port accepts HCWs (@on) or drops them (facts §3.2).
 * One CSR write: the alarm handler calls it too, without the device lock
 * (intr.c, an alarm storm).
 */
void dlb2_hw_pp_valid(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
		      bool on)
{
	dlb2_csr_wr(dlb2, port->ldb ? DLB2_SYS_LDB_PP_V(dlb2->ver, port->id) :
				      DLB2_SYS_DIR_PP_V(dlb2->ver, port->id), on);
}

/* 6.9: start or stop scheduling to a CQ. */
void dlb2_hw_cq_enable(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
		       bool on)
{
	dlb2_csr_wr(dlb2, port->ldb ? DLB2_LSP_CQ_LDB_DSBL(dlb2->ver, port->id) :
				      DLB2_LSP_CQ_DIR_DSBL(dlb2->ver, port->id), !on);
	dlb2_flush_csr(dlb2);
}

/* Set or clear the (CQ p, slot) bit in the three QID-to-CQ index tables. */
static void qid2cqidix(struct dlb2 *dlb2, unsigned int q, unsigned int p,
		       unsigned int slot, bool set)
{
	u32 bit = BIT(slot + 8 * (p % 4));
	unsigned int k = p / 4;

	rmw(dlb2, DLB2_ATM_QID2CQIDIX(dlb2->ver, q, k), bit, set ? bit : 0);
	rmw(dlb2, DLB2_LSP_QID2CQIDIX(dlb2->ver, q, k), bit, set ? bit : 0);
	rmw(dlb2, DLB2_LSP_QID2CQIDIX2(dlb2->ver, q, k), bit, set ? bit : 0);
}

static void sched_ctrl(struct dlb2 *dlb2, unsigned int p, unsigned int slot,
		       u32 which, bool value)
{
	dlb2_csr_wr(dlb2, DLB2_LSP_LDB_SCHED_CTRL(dlb2->ver),
		    FIELD_PREP(DLB2_LDB_SCHED_CTRL_CQ, p) |
		    FIELD_PREP(DLB2_LDB_SCHED_CTRL_QIDIX, slot) |
		    (value ? DLB2_LDB_SCHED_CTRL_VALUE : 0) | which);
}

/**
 * dlb2_hw_map() - map a queue into a QID slot of a load-balanced CQ (6.7
 * step 4: the static map)
 * @dlb2: the device
 * @port: the port; port->slot_queue[slot] and slot_prio[slot] say what
 * @slot: the slot, 0..7
 *
 * The CQ is disabled while its map changes and left disabled: the caller
 * enables it again.  A map while the domain runs is the dynamic map of
 * dlb2_domain_link(), which calls this between dlb2_hw_map_quiesce() and
 * dlb2_hw_map_has_work().
 */
void dlb2_hw_map(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
		 unsigned int slot)
{
	const struct dlb2_hw_queue *q = port->slot_queue[slot];
	unsigned int p = port->id;
	u32 cq2qid = slot < 4 ? DLB2_LSP_CQ2QID0(dlb2->ver, p) : DLB2_LSP_CQ2QID1(dlb2->ver, p);

	dlb2_hw_cq_enable(dlb2, port, false);
	rmw(dlb2, DLB2_LSP_CQ2PRIOV(dlb2->ver, p), DLB2_CQ2PRIOV_PRIO(slot),
	    DLB2_CQ2PRIOV_V(slot) | port->slot_prio[slot] << (3 * slot));
	rmw(dlb2, cq2qid, DLB2_CQ2QID_QID(slot),
	    q->id << (8 * (slot % 4)));
	qid2cqidix(dlb2, q->id, p, slot, true);
	dlb2_flush_csr(dlb2);
}

/**
 * dlb2_hw_map_quiesce() - stop new schedules of a queue (6.7 step 5a, 5c)
 * @dlb2: the device
 * @q: a load-balanced queue of a running domain
 * @lim: its inflight limit, to give back to dlb2_hw_queue_infl_lim()
 *
 * Return: 0 with the limit at 0; -EAGAIN, the limit restored, while QEs of
 * the queue are scheduled and not completed.
 */
int dlb2_hw_map_quiesce(struct dlb2 *dlb2, const struct dlb2_hw_queue *q, u32 *lim)
{
	u32 infl_lim = DLB2_LSP_QID_LDB_INFL_LIM(dlb2->ver, q->id);

	*lim = dlb2_csr_rd(dlb2, infl_lim);
	dlb2_csr_wr(dlb2, infl_lim, 0);
	if (dlb2_hw_queue_inflight(dlb2, q)) {
		dlb2_hw_queue_infl_lim(dlb2, q, *lim);
		return -EAGAIN;
	}
	return 0;
}

/*
 * QEs of a load-balanced queue scheduled and not completed; the read
 * pushes the CSR writes before it.
 */
bool dlb2_hw_queue_inflight(struct dlb2 *dlb2, const struct dlb2_hw_queue *q)
{
	return dlb2_csr_rd(dlb2, DLB2_LSP_QID_LDB_INFL_CNT(dlb2->ver, q->id)) &
	       DLB2_INFL_CNT_MASK;
}

/* 6.7 step 5g: a load-balanced queue's inflight limit. */
void dlb2_hw_queue_infl_lim(struct dlb2 *dlb2, const struct dlb2_hw_queue *q,
			    u32 lim)
{
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_LDB_INFL_LIM(dlb2->ver, q->id), lim);
	dlb2_flush_csr(dlb2);
}

/**
 * dlb2_hw_map_has_work() - tell the scheduler about a slot mapped while
 * the domain runs (6.7 step 5e and the first write of 5f)
 * @dlb2: the device
 * @port: the port
 * @slot: the slot just mapped by dlb2_hw_map()
 *
 * As DPDK's PF driver: each has-work flag is set when the queue has that
 * kind of work and left alone otherwise (a flag cleared here could lose a
 * QE that arrived since the count was read), then the slot's inflight
 * status is cleared; the caller sets it again for every slot mapped to
 * the queue (dlb2_hw_slot_inflight_ok()).
 */
void dlb2_hw_map_has_work(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
			  unsigned int slot)
{
	const struct dlb2_hw_queue *q = port->slot_queue[slot];
	unsigned int p = port->id;

	sched_ctrl(dlb2, p, slot,
		   dlb2_csr_rd(dlb2, DLB2_LSP_QID_AQED_ACTIVE_CNT(dlb2->ver, q->id)) ?
		   DLB2_LDB_SCHED_CTRL_RLIST_HASWORK_V : 0, true);
	sched_ctrl(dlb2, p, slot,
		   dlb2_csr_rd(dlb2, DLB2_LSP_QID_LDB_ENQUEUE_CNT(dlb2->ver, q->id)) ?
		   DLB2_LDB_SCHED_CTRL_NALB_HASWORK_V : 0, true);
	dlb2_flush_csr(dlb2);
	sched_ctrl(dlb2, p, slot, DLB2_LDB_SCHED_CTRL_INFLIGHT_OK_V, false);
}

/* 6.7 step 5f: a mapped slot may be scheduled again. */
void dlb2_hw_slot_inflight_ok(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
			      unsigned int slot)
{
	sched_ctrl(dlb2, port->id, slot, DLB2_LDB_SCHED_CTRL_INFLIGHT_OK_V, true);
}

/**
 * dlb2_hw_unmap() - remove a queue from a QID slot of a load-balanced CQ
 * @dlb2: the device
 * @port: the port
 * @slot: the slot
 *
 * 6.8: needs every QE the CQ took to be completed.  The CQ is left
 * disabled (so that it takes no more QEs meanwhile); the caller enables it
 * again once no unmap of the port is pending.
 *
 * Return: 0 when unmapped, -EAGAIN when QEs are outstanding.
 */
int dlb2_hw_unmap(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
		  unsigned int slot)
{
	const struct dlb2_hw_queue *q = port->slot_queue[slot];
	unsigned int p = port->id;

	dlb2_hw_cq_enable(dlb2, port, false);
	if (dlb2_hw_cq_inflights(dlb2, port))
		return -EAGAIN;
	rmw(dlb2, DLB2_LSP_CQ2PRIOV(dlb2->ver, p), DLB2_CQ2PRIOV_V(slot), 0);
	qid2cqidix(dlb2, q->id, p, slot, false);
	dlb2_flush_csr(dlb2);
	sched_ctrl(dlb2, p, slot, DLB2_LDB_SCHED_CTRL_RLIST_HASWORK_V, false);
	sched_ctrl(dlb2, p, slot, DLB2_LDB_SCHED_CTRL_NALB_HASWORK_V, false);
	sched_ctrl(dlb2, p, slot, DLB2_LDB_SCHED_CTRL_INFLIGHT_OK_V, true);
	dlb2_flush_csr(dlb2);
	return 0;
}

/* 6.10: give the domain's producers write permission to its queues. */
void dlb2_hw_start(struct dlb2 *dlb2, unsigned int dom,
		   const struct dlb2_hw_domain *hd)
{
	unsigned int i;

	for (i = 0; i < hd->num_queues; i++)
		set_vasqid(dlb2, dom, hd->queues[i], true);
	dlb2_flush_csr(dlb2);
}

/* Counters are read masked to their width (facts 4.3): never ~0 as a count. */
u32 dlb2_hw_cq_tokens(struct dlb2 *dlb2, const struct dlb2_hw_port *port)
{
	u32 cnt = port->ldb ?
		  dlb2_csr_rd(dlb2, DLB2_LSP_CQ_LDB_TKN_CNT(dlb2->ver, port->id)) &
		  DLB2_LDB_TKN_CNT_MASK :
		  dlb2_csr_rd(dlb2, DLB2_LSP_CQ_DIR_TKN_CNT(dlb2->ver, port->id)) &
		  DLB2_DIR_TKN_CNT_MASK;
	u32 bias = token_bias(port);

	return cnt > bias ? cnt - bias : 0;
}

u32 dlb2_hw_cq_inflights(struct dlb2 *dlb2, const struct dlb2_hw_port *port)
{
	if (!port->ldb)
		return 0;
	return dlb2_csr_rd(dlb2, DLB2_LSP_CQ_LDB_INFL_CNT(dlb2->ver, port->id)) &
	       DLB2_INFL_CNT_MASK;
}

static u64 rd64(struct dlb2 *dlb2, u32 lo, u32 hi)
{
	u32 h = dlb2_csr_rd(dlb2, hi), l = dlb2_csr_rd(dlb2, lo);

	/* The low half wrapped between the reads: read both again. */
	if (dlb2_csr_rd(dlb2, hi) != h) {
		h = dlb2_csr_rd(dlb2, hi);
		l = dlb2_csr_rd(dlb2, lo);
	}
	return (u64)h << 32 | l;
}

u64 dlb2_hw_cq_scheduled(struct dlb2 *dlb2, const struct dlb2_hw_port *port)
{
	unsigned int p = port->id;

	if (port->ldb)
		return rd64(dlb2, DLB2_LSP_CQ_LDB_TOT_SCH_CNTL(dlb2->ver, p),
			    DLB2_LSP_CQ_LDB_TOT_SCH_CNTH(dlb2->ver, p));
	return rd64(dlb2, DLB2_LSP_CQ_DIR_TOT_SCH_CNTL(dlb2->ver, p),
		    DLB2_LSP_CQ_DIR_TOT_SCH_CNTH(dlb2->ver, p));
}

/* QEs in the queue: waiting, or (atomic) held for a flow that is pinned. */
u32 dlb2_hw_queue_depth(struct dlb2 *dlb2, const struct dlb2_hw_queue *q)
{
	if (!q->desc.ldb)
		return dlb2_csr_rd(dlb2, DLB2_LSP_QID_DIR_ENQUEUE_CNT(dlb2->ver, q->id));
	return dlb2_csr_rd(dlb2, DLB2_LSP_QID_LDB_ENQUEUE_CNT(dlb2->ver, q->id)) +
	       dlb2_csr_rd(dlb2, DLB2_LSP_QID_AQED_ACTIVE_CNT(dlb2->ver, q->id)) +
	       dlb2_csr_rd(dlb2, DLB2_LSP_QID_ATM_ACTIVE(dlb2->ver, q->id));
}

u64 dlb2_hw_queue_enqueued(struct dlb2 *dlb2, const struct dlb2_hw_queue *q)
{
	unsigned int id = q->id;

	if (!q->desc.ldb)
		return rd64(dlb2, DLB2_LSP_QID_DIR_TOT_ENQ_CNTL(dlb2->ver, id),
			    DLB2_LSP_QID_DIR_TOT_ENQ_CNTH(dlb2->ver, id));
	return rd64(dlb2, DLB2_LSP_QID_NALDB_TOT_ENQ_CNTL(dlb2->ver, id),
		    DLB2_LSP_QID_NALDB_TOT_ENQ_CNTH(dlb2->ver, id)) +
	       rd64(dlb2, DLB2_LSP_QID_ATM_TOT_ENQ_CNTL(dlb2->ver, id),
		    DLB2_LSP_QID_ATM_TOT_ENQ_CNTH(dlb2->ver, id));
}

/*
 * Write one HCW into a producer port from the kernel.  Every CPU with a DLB
 * has MOVDIR64B; without it (the device model under TCG without our QEMU
 * patch) two 8-byte stores, which the model assembles.
 */
static void pp_write(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
		     const struct dlb2_hcw *hcw)
{
	void __iomem *pp = dlb2->func_base + dlb2_port_pp_offs(port);
	struct dlb2_hcw line[4] __aligned(64) = { *hcw };

	if (boot_cpu_has(X86_FEATURE_MOVDIR64B)) {
		iosubmit_cmds512(pp, line, 1);
	} else {
		const u64 *w = (const u64 *)hcw;

		writeq(w[0], pp);
		writeq(w[1], pp + 8);
	}
	/* Make sure the HCW reached the device (os_fence_hcw in DPDK). */
	mb();
	readq(pp);
}

/**
 * dlb2_hw_port_drain() - return a port's tokens and complete its QEs
 * @dlb2: the device
 * @port: the port
 *
 * What a consumer owes the device: one token per QE in its CQ, and for a
 * load-balanced port a completion per QE scheduled to it (6.11 step 5).
 *
 * Return: the number of QEs drained (tokens returned); 0 also when the
 * device is gone (dlb2_hw_gone()), so that the callers' loops end.
 */
unsigned int dlb2_hw_port_drain(struct dlb2 *dlb2,
				const struct dlb2_hw_port *port)
{
	u32 tokens = dlb2_hw_cq_tokens(dlb2, port);
	u32 infl = dlb2_hw_cq_inflights(dlb2, port);
	struct dlb2_hcw hcw = { };

	if ((!tokens && !infl) || dlb2_hw_gone(dlb2))
		return 0;
	if (tokens) {
		hcw.cmd = DLB2_CMD_BAT_T;
		hcw.lock_id = tokens - 1;
	}
	if (infl) {
		hcw.cmd |= DLB2_CMD_COMP;
		infl--;
	}
	pp_write(dlb2, port, &hcw);
	hcw = (struct dlb2_hcw){ .cmd = DLB2_CMD_COMP };
	while (infl--)
		pp_write(dlb2, port, &hcw);
	return tokens;
}

/**
 * dlb2_hw_port_drain_all() - drain a port until it owes the device nothing
 * @dlb2: the device
 * @port: the port, its CQ disabled
 * @drained: QEs drained are added here, or NULL
 *
 * A port whose CQ is disabled drains in a round or two: the QEs already
 * scheduled to it land, then nothing more comes.  A device whose counts
 * do not go down must not keep the caller (which holds the device lock)
 * spinning: at most DLB2_PORT_DRAIN_ROUNDS rounds, rescheduling between
 * them, and a port left undrained is logged.
 */
void dlb2_hw_port_drain_all(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
			    atomic64_t *drained)
{
	unsigned int round, n;

	for (round = 0; round < DLB2_PORT_DRAIN_ROUNDS; round++) {
		n = dlb2_hw_port_drain(dlb2, port);
		if (!n)
			return;
		if (drained)
			atomic64_add(n, drained);
		cond_resched();
	}
	dev_warn(&dlb2->pdev->dev,
		 "%s port %u: QEs left in the device after draining\n",
		 port->ldb ? "load-balanced" : "directed", port->id);
}

/**
 * dlb2_hw_cq_reset() - start a drained, disabled CQ again from entry 0
 * @dlb2: the device
 * @port: the port; its ring was zeroed by the caller
 */
void dlb2_hw_cq_reset(struct dlb2 *dlb2, const struct dlb2_hw_port *port)
{
	dlb2_csr_wr(dlb2, port->ldb ? DLB2_CHP_LDB_CQ_WPTR(dlb2->ver, port->id) :
				      DLB2_CHP_DIR_CQ_WPTR(dlb2->ver, port->id), 0);
	dlb2_flush_csr(dlb2);
}

static bool domain_drained(struct dlb2 *dlb2, const struct dlb2_hw_domain *hd)
{
	unsigned int i;

	for (i = 0; i < hd->num_queues; i++)
		if (dlb2_hw_queue_depth(dlb2, hd->queues[i]))
			return false;
	for (i = 0; i < hd->num_ports; i++)
		if (dlb2_hw_cq_tokens(dlb2, hd->ports[i]) ||
		    dlb2_hw_cq_inflights(dlb2, hd->ports[i]))
			return false;
	return true;
}

static bool queue_mapped(const struct dlb2_hw_domain *hd,
			 const struct dlb2_hw_queue *q)
{
	unsigned int i, s;

	for (i = 0; i < hd->num_ports; i++)
		for (s = 0; s < DLB2_MAX_LINKS; s++)
			if (hd->ports[i]->slot_queue[s] == q &&
			    hd->ports[i]->slot_state[s] == DLB2_SLOT_MAPPED)
				return true;
	return false;
}

/*
 * A load-balanced queue with QEs that no port serves: map it to the first
 * load-balanced port so that the drain empties it (6.11 step 9).
 */
static void map_for_drain(struct dlb2 *dlb2, const struct dlb2_hw_domain *hd,
			  struct dlb2_hw_queue *q)
{
	struct dlb2_hw_port *port = NULL;
	unsigned int i, s;
	u32 lim;

	for (i = 0; i < hd->num_ports && !port; i++)
		if (hd->ports[i]->ldb)
			port = hd->ports[i];
	if (!port)
		return;
	for (s = 0; s < DLB2_MAX_LINKS; s++)
		if (port->slot_state[s] == DLB2_SLOT_UNMAPPED)
			break;
	if (s == DLB2_MAX_LINKS) {
		s = 0;
		dlb2_hw_port_drain_all(dlb2, port, NULL);
		if (dlb2_hw_unmap(dlb2, port, s))
			return;
	}
	/* the dynamic map of dlb2_domain_link(); no other CQ serves q */
	if (dlb2_hw_map_quiesce(dlb2, q, &lim)) {
		dlb2_hw_cq_enable(dlb2, port, true);
		return;
	}
	port->slot_queue[s] = q;
	port->slot_prio[s] = 0;
	port->slot_state[s] = DLB2_SLOT_MAPPED;
	dlb2_hw_map(dlb2, port, s);
	dlb2_hw_map_has_work(dlb2, port, s);
	dlb2_hw_slot_inflight_ok(dlb2, port, s);
	dlb2_hw_queue_infl_lim(dlb2, q, lim);
	dlb2_hw_cq_enable(dlb2, port, true);
}

/* Unmaps that waited for a consumer's completions: finish them now. */
static void finish_unmaps(struct dlb2 *dlb2, const struct dlb2_hw_domain *hd)
{
	unsigned int i, s;

	for (i = 0; i < hd->num_ports; i++) {
		struct dlb2_hw_port *port = hd->ports[i];

		for (s = 0; s < DLB2_MAX_LINKS; s++) {
			if (port->slot_state[s] != DLB2_SLOT_UNMAP_PENDING)
				continue;
			dlb2_hw_port_drain_all(dlb2, port, NULL);
			if (!dlb2_hw_unmap(dlb2, port, s))
				port->slot_state[s] = DLB2_SLOT_UNMAPPED;
		}
		dlb2_hw_cq_enable(dlb2, port, true);
	}
}

/* Return: 0, -ENODEV when the device is gone, -EBUSY when QEs are left. */
static int drain(struct dlb2 *dlb2, unsigned int dom,
		 const struct dlb2_hw_domain *hd)
{
	unsigned int round, i;

	finish_unmaps(dlb2, hd);
	for (round = 0; round < DLB2_DRAIN_ROUNDS; round++) {
		unsigned int drained = 0;

		if (domain_drained(dlb2, hd))
			return 0;
		if (dlb2_hw_gone(dlb2))
			return -ENODEV;
		for (i = 0; i < hd->num_ports; i++)
			drained += dlb2_hw_port_drain(dlb2, hd->ports[i]);
		for (i = 0; i < hd->num_queues; i++) {
			struct dlb2_hw_queue *q = hd->queues[i];

			if (q->desc.ldb && !queue_mapped(hd, q) &&
			    dlb2_hw_queue_depth(dlb2, q))
				map_for_drain(dlb2, hd, q);
		}
		if (!drained)
			usleep_range(10, 20);
		else
			cond_resched();
	}
	dev_warn(&dlb2->pdev->dev,
		 "domain %u: QEs left in the device after draining\n", dom);
	return -EBUSY;
}

static void reset_ldb_port(struct dlb2 *dlb2, const struct dlb2_hw_port *port)
{
	unsigned int p = port->id;

	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_PP2VAS(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ2VAS(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_PP_V(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_LDB_DSBL(dlb2->ver, p), 1);
	dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ_DEPTH(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_LDB_INFL_LIM(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_HIST_LIST_LIM(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_HIST_LIST_BASE(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_HIST_LIST_POP_PTR(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_HIST_LIST_PUSH_PTR(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ_INT_DEPTH_THRSH(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ_TMR_THRSH(dlb2->ver, p), 1);
	dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ_INT_ENB(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ_ISR(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_LDB_TKN_DEPTH_SEL(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ_TKN_DEPTH_SEL(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_LDB_CQ_WPTR(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_LDB_TKN_CNT(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ_ADDR_L(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ_ADDR_U(dlb2->ver, p), 0);
	if (dlb2->ver == DLB2_HW_V2)
		dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ_AT(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ_PASID(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_CQ2VF_PF_RO(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_LDB_TOT_SCH_CNTL(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_LDB_TOT_SCH_CNTH(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ2QID0(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ2QID1(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ2PRIOV(dlb2->ver, p), 0);
}

static void reset_dir_port(struct dlb2 *dlb2, const struct dlb2_hw_port *port)
{
	unsigned int p = port->id;

	dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ2VAS(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_DIR_DSBL(dlb2->ver, p), 1);
	/* clear the CQ's write-buffer state: 2.0 by port number, 2.5 per CQ */
	if (dlb2->ver == DLB2_HW_V2)
		dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_OPT_CLR(dlb2->ver), p);
	else
		dlb2_csr_wr(dlb2, DLB2_SYS_WB_DIR_CQ_STATE(dlb2->ver, p),
			    DLB2_WB_DIR_CQ_STATE_CQ_OPT_CLR);
	dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ_DEPTH(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ_INT_DEPTH_THRSH(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ_TMR_THRSH(dlb2->ver, p), 1);
	dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ_INT_ENB(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_ISR(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_DIR_TKN_DEPTH_SEL_DSI(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ_TKN_DEPTH_SEL(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_DIR_CQ_WPTR(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_DIR_TKN_CNT(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_ADDR_L(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_ADDR_U(dlb2->ver, p), 0);
	if (dlb2->ver == DLB2_HW_V2)
		dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_AT(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_PASID(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ_FMT(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_CQ2VF_PF_RO(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_DIR_TOT_SCH_CNTL(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_CQ_DIR_TOT_SCH_CNTH(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_PP2VAS(dlb2->ver, p), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_PP_V(dlb2->ver, p), 0);
}

static void reset_ldb_queue(struct dlb2 *dlb2, const struct dlb2_hw_queue *q)
{
	unsigned int id = q->id, k;

	dlb2_csr_wr(dlb2, DLB2_LSP_QID_NALDB_TOT_ENQ_CNTL(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_NALDB_TOT_ENQ_CNTH(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_ATM_TOT_ENQ_CNTL(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_ATM_TOT_ENQ_CNTH(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_NALDB_MAX_DEPTH(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_LDB_INFL_LIM(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_AQED_ACTIVE_LIM(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_ATM_DEPTH_THRSH(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_NALDB_DEPTH_THRSH(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_QID_ITS(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_ORD_QID_SN(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_CHP_ORD_QID_SN_MAP(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_QID_V(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_LDB_QID_CFG_V(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_AQED_QID_HID_WIDTH(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_AQED_QID_FID_LIM(dlb2->ver, id), 0x7ff);
	if (q->sn_group >= 0)
		dlb2_csr_wr(dlb2, q->sn_group ?
			    DLB2_RO_GRP_1_SLT_SHFT(dlb2->ver, q->sn_slot) :
			    DLB2_RO_GRP_0_SLT_SHFT(dlb2->ver, q->sn_slot), 0);
	for (k = 0; k < DLB2_MAX_LDB_PORTS / 4; k++) {
		dlb2_csr_wr(dlb2, DLB2_LSP_QID2CQIDIX(dlb2->ver, id, k), 0);
		dlb2_csr_wr(dlb2, DLB2_LSP_QID2CQIDIX2(dlb2->ver, id, k), 0);
		dlb2_csr_wr(dlb2, DLB2_ATM_QID2CQIDIX(dlb2->ver, id, k), 0);
	}
}

static void reset_dir_queue(struct dlb2 *dlb2, const struct dlb2_hw_queue *q)
{
	unsigned int id = q->id;

	dlb2_csr_wr(dlb2, DLB2_LSP_QID_DIR_MAX_DEPTH(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_DIR_TOT_ENQ_CNTL(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_DIR_TOT_ENQ_CNTH(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_LSP_QID_DIR_DEPTH_THRSH(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_QID_ITS(dlb2->ver, id), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_DIR_QID_V(dlb2->ver, id), 0);
}

/**
 * dlb2_hw_domain_reset() - stop, drain and reset a started domain (6.11)
 * @dlb2: the device
 * @dom: the domain's hardware id
 * @hd: its queues and ports; user space can no longer reach the ports
 *
 * Afterwards every register of the domain's queues and ports has its reset
 * value and the device holds no QE of the domain.
 *
 * Return: 0; -EBUSY when the drain left QEs in the device (logged), -ENODEV
 * when the device is gone; the registers are reset either way.
 */
int dlb2_hw_domain_reset(struct dlb2 *dlb2, unsigned int dom,
			 const struct dlb2_hw_domain *hd)
{
	unsigned int i;
	int ret;

	for (i = 0; i < hd->num_ports; i++) {
		struct dlb2_hw_port *port = hd->ports[i];

		dlb2_hw_port_intr(dlb2, port, false);
		dlb2_csr_wr(dlb2, port->ldb ? DLB2_CHP_LDB_CQ_WD_ENB(dlb2->ver, port->id) :
					      DLB2_CHP_DIR_CQ_WD_ENB(dlb2->ver, port->id), 0);
		if (port->ldb)
			dlb2_csr_wr(dlb2, DLB2_CHP_SN_CHK_ENBL(dlb2->ver, port->id), 0);
	}
	for (i = 0; i < hd->num_queues; i++)
		set_vasqid(dlb2, dom, hd->queues[i], false);
	dlb2_flush_csr(dlb2);
	ret = drain(dlb2, dom, hd);

	for (i = 0; i < hd->num_ports; i++)
		dlb2_hw_cq_enable(dlb2, hd->ports[i], false);
	for (i = 0; i < hd->num_ports; i++) {
		if (hd->ports[i]->ldb)
			reset_ldb_port(dlb2, hd->ports[i]);
		else
			reset_dir_port(dlb2, hd->ports[i]);
	}
	for (i = 0; i < hd->num_queues; i++) {
		if (hd->queues[i]->desc.ldb)
			reset_ldb_queue(dlb2, hd->queues[i]);
		else
			reset_dir_queue(dlb2, hd->queues[i]);
	}
	dlb2_hw_domain_credits(dlb2, dom, 0, 0);
	dlb2_flush_csr(dlb2);
	return ret;
}
