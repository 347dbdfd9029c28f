// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: interrupts (hardware facts, section 8).
 *
 * Compressed MSI-X mode: vector 0 is the service interrupt (ingress alarms),
 * vector 1 serves every CQ.  Alarms are counted per kind and per port and
 * logged rate-limited.  A producer flooding illegal HCWs must not keep a
 * CPU busy, nor cost the other tenants their alarms: more than
 * DLB2_ALARM_STORM alarms of one domain's ports in one second stop that
 * domain's producer ports (SYS_*_PP_V = 0: the device drops their HCWs
 * before any check that could raise an alarm).  The device has a single,
 * device-wide enable per kind of alarm (SYS_INGRESS_ALARM_ENBL, facts
 * §8.2), no per-port or per-domain one, so stopping the offending ports is
 * the only cut-off that leaves the other domains' alarms on.  A stopped
 * port's HCWs raise ILLEGAL_PP, whose enable is therefore off while a
 * domain is stopped; only ports of no enabled domain raise it otherwise,
 * and no tenant can write to those (their mappings are revoked).  Alarms
 * that name no port of an enabled domain are counted device-wide, and more
 * than DLB2_ALARM_STORM of them in one second switch every ingress alarm
 * off, as before.  Writing ingress_alarms in sysfs undoes both.
 *
 * Locking: the window counts, dlb2_domain.alarms_stopped, dlb2.alarms_stops
 * and dlb2.ingress_alarms_off change in the alarm handler, which the IRQ
 * core never runs on two CPUs at once, and under the device lock with the
 * alarm vector disabled (disable_irq(), which waits for a running handler),
 * so never at the same time.  Readers outside both (sysfs, debugfs) use
 * READ_ONCE().
 */
#include <linux/bitfield.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/pci.h>

#include "domain.h"
#include "hw.h"
#include "regs.h"
#include "trace.h"

#define DLB2_ALARM_STORM	1000
/* The alarms one interrupt takes from SYS_ALARM_PF_SYND0 at most. */
#define DLB2_ALARMS_PER_IRQ	16

static const char *const alarm_names[DLB2_NUM_ALARMS] = {
	[DLB2_ALARM_ILLEGAL_ENQ] = "illegal enqueue (no credit, excess completion or bad fragment)",
	[DLB2_ALARM_EXCESS_TOKENS] = "excess token returns",
	[DLB2_ALARM_ILLEGAL_HCW] = "illegal HCW",
	[DLB2_ALARM_ILLEGAL_QID] = "illegal queue id",
	[DLB2_ALARM_DISABLED_QID] = "enqueue to a disabled queue",
	[DLB2_ALARM_OTHER] = "other ingress error",
};

static enum dlb2_alarm decode(u32 synd0)
{
	u32 source = FIELD_GET(DLB2_ALARM_SYND0_SOURCE, synd0);
	u32 unit = FIELD_GET(DLB2_ALARM_SYND0_UNIT, synd0);
	u32 aid = FIELD_GET(DLB2_ALARM_SYND0_AID, synd0);

	if (source == 1 && unit == 4 && aid == 1)
		return DLB2_ALARM_ILLEGAL_ENQ;
	if (source == 1 && unit == 4 && aid == 2)
		return DLB2_ALARM_EXCESS_TOKENS;
	if (source == 0 && aid == 5)
		return DLB2_ALARM_ILLEGAL_HCW;
	if (source == 0 && aid == 3)
		return DLB2_ALARM_ILLEGAL_QID;
	if (source == 0 && aid == 4)
		return DLB2_ALARM_DISABLED_QID;
	return DLB2_ALARM_OTHER;
}

/*
 * The enable of SYS_INGRESS_ALARM_ENBL that the cut-offs leave: the
 * device-wide one, and @stops stopped domains.
 */
static u32 alarm_enables(const struct dlb2 *dlb2, unsigned int stops)
{
	if (dlb2->ingress_alarms_off)
		return 0;
	if (stops)
		return DLB2_SYS_INGRESS_ALARM_ENBL_ALL &
		       ~DLB2_SYS_INGRESS_ALARM_ENBL_ILLEGAL_PP;
	return DLB2_SYS_INGRESS_ALARM_ENBL_ALL;
}

/* Start or stop every producer port of @dom (alarm handler, or IRQ off). */
static void domain_pps_valid(struct dlb2 *dlb2, struct dlb2_domain *dom,
			     bool on)
{
	unsigned int i;

	for (i = 0; i < dom->hw.num_ports; i++)
		dlb2_hw_pp_valid(dlb2, &dom->ports[i]->hw, on);
}

/* Whether one more alarm of a one-second window makes it a storm. */
static bool storm(unsigned long *start, unsigned int *count)
{
	if (time_after(jiffies, *start + HZ)) {
		*start = jiffies;
		*count = 0;
	}
	return ++*count > DLB2_ALARM_STORM;
}

/*
 * A storm of @dom's ports: stop them, and with them their alarms.  The
 * stop is in effect (flushed) before it is published (ingress_alarms in
 * sysfs reads 0), so that from then on no HCW of the domain can raise an
 * alarm that would hold SYS_ALARM_PF_SYND0 against another domain's.
 */
static void stop_domain(struct dlb2 *dlb2, struct dlb2_domain *dom)
{
	domain_pps_valid(dlb2, dom, false);
	dlb2_csr_wr(dlb2, DLB2_SYS_INGRESS_ALARM_ENBL(dlb2->ver),
		    alarm_enables(dlb2, dlb2->alarms_stops + 1));
	dlb2_flush_csr(dlb2);
	WRITE_ONCE(dom->alarms_stopped, true);
	WRITE_ONCE(dlb2->alarms_stops, dlb2->alarms_stops + 1);
	dev_warn(&dlb2->pdev->dev,
		 "domain %u (%s): more than %d alarms in one second: its producer ports stopped\n",
		 dom->res.id, dom->name, DLB2_ALARM_STORM);
}

static void count_alarm(struct dlb2 *dlb2, u32 synd0)
{
	enum dlb2_alarm kind = decode(synd0);
	u32 synd = FIELD_GET(DLB2_ALARM_SYND0_SYNDROME, synd0);
	bool ldb = FIELD_GET(DLB2_ALARM_SYND0_SOURCE, synd0) ?
		   synd & BIT(7) : synd0 & DLB2_ALARM_SYND0_IS_LDB;
	unsigned int id = synd & 0x7f;
	struct dlb2_port *port = NULL;
	struct dlb2_domain *dom = NULL;

	if (ldb && id < DLB2_MAX_LDB_PORTS)
		port = READ_ONCE(dlb2->ldb_ports[id]);
	else if (!ldb && id < dlb2->res.num_dir_ports)
		port = READ_ONCE(dlb2->dir_ports[id]);
	/* NULL once killed; freed only after synchronize_irq() (teardown) */
	if (port)
		dom = READ_ONCE(port->dom);
	trace_dlb2_alarm(pci_name(dlb2->pdev), kind, synd0, ldb, id,
			 dom ? (int)dom->res.id : -1);
	atomic64_inc(&dlb2->alarms[kind]);
	if (port)
		atomic64_inc(&port->alarms);
	dev_err_ratelimited(&dlb2->pdev->dev, "%s from %s port %u\n",
			    alarm_names[kind], ldb ? "load-balanced" : "directed",
			    id);

	if (dom) {
		if (storm(&dom->alarm_window_start, &dom->alarm_window_count) &&
		    !dom->alarms_stopped)
			stop_domain(dlb2, dom);
		return;
	}
	/* No enabled domain's port: only the device can be cut off. */
	if (storm(&dlb2->alarm_window_start, &dlb2->alarm_window_count) &&
	    !dlb2->ingress_alarms_off) {
		WRITE_ONCE(dlb2->ingress_alarms_off, true);
		dlb2_csr_wr(dlb2, DLB2_SYS_INGRESS_ALARM_ENBL(dlb2->ver),
			    alarm_enables(dlb2, dlb2->alarms_stops));
		dev_warn(&dlb2->pdev->dev,
			 "more than %d alarms in one second from no domain's port: ingress alarms off\n",
			 DLB2_ALARM_STORM);
	}
}

static irqreturn_t dlb2_alarm_isr(int irq, void *data)
{
	struct dlb2 *dlb2 = data;
	u32 hw_synd = dlb2_csr_rd(dlb2, DLB2_SYS_ALARM_HW_SYND(dlb2->ver));
	unsigned int n;
	u32 synd0;

	/* Acknowledge first, so that an alarm meanwhile interrupts again. */
	dlb2_csr_wr(dlb2, DLB2_SYS_MSIX_ACK(dlb2->ver), BIT(DLB2_INT_ALARM));
	if ((hw_synd & DLB2_ALARM_SYND0_VALID) &&
	    (hw_synd & DLB2_ALARM_HW_SYND_ALARM)) {
		dev_err_ratelimited(&dlb2->pdev->dev,
				    "hardware alarm, syndrome %#x\n", hw_synd);
		trace_dlb2_hw_alarm(pci_name(dlb2->pdev), hw_synd);
		dlb2_csr_wr(dlb2, DLB2_SYS_ALARM_HW_SYND(dlb2->ver),
			    DLB2_ALARM_SYND0_VALID | DLB2_ALARM_SYND0_MORE);
	}
	/*
	 * SYND0 holds one alarm: one that comes while it is VALID leaves at
	 * most its MORE bit (facts §8.2).  So it is freed before the alarm is
	 * counted (which may stop a domain and log), and read again: an alarm
	 * latched meanwhile is taken here (its interrupt, sent after the
	 * acknowledgment above, then finds nothing).  The read also flushes
	 * the write that freed it.
	 */
	for (n = 0; n < DLB2_ALARMS_PER_IRQ; n++) {
		synd0 = dlb2_csr_rd(dlb2, DLB2_SYS_ALARM_PF_SYND0(dlb2->ver));
		if (!(synd0 & DLB2_ALARM_SYND0_VALID))
			break;
		dlb2_csr_wr(dlb2, DLB2_SYS_ALARM_PF_SYND0(dlb2->ver),
			    DLB2_ALARM_SYND0_VALID | DLB2_ALARM_SYND0_MORE);
		count_alarm(dlb2, synd0);
		/* MORE: others were lost while SYND0 held it; one more. */
		if (synd0 & DLB2_ALARM_SYND0_MORE)
			atomic64_inc(&dlb2->alarms[DLB2_ALARM_OTHER]);
	}
	return IRQ_HANDLED;
}

static void wake(struct dlb2_port *port)
{
	if (!port)
		return;
	atomic_inc(&port->irq.count);
	wake_up_interruptible(&port->irq.wq);
}

/* Wake the ports whose bits are set in one occupancy status register. */
static void wake_ports(struct dlb2 *dlb2, u32 off, struct dlb2_port **ports,
		       unsigned int first)
{
	unsigned long sts = dlb2_csr_rd(dlb2, off);
	unsigned int bit;

	if (!sts)
		return;
	dlb2_csr_wr(dlb2, off, sts);
	for_each_set_bit(bit, &sts, 32)
		wake(READ_ONCE(ports[first + bit]));
}

/*
 * Acknowledge vector 1 with Intel's workaround for hardware erratum
 * CSSY-1650, "lost MSI-X interrupts" (facts §8.1): a CQ interrupt that
 * became due while the vector was unacknowledged can be lost by a plain
 * write of SYS_MSIX_ACK.  With the vector masked in the MSI-X table and
 * SYS_MSIX_PASSTHRU set, the acknowledgment hands such an interrupt to the
 * MSI-X logic, which holds it pending until the mask is cleared.  The final
 * read flushes the posted writes, the unmask included.
 *
 * Locking: called only from dlb2_cq_isr(), which the IRQ core never runs
 * on two CPUs at once, so the sequence does not interleave with itself.
 * Nothing else writes SYS_MSIX_PASSTHRU, and the alarm handler's
 * acknowledgment sets only bit 0 of the write-one-to-clear SYS_MSIX_ACK.
 * The vector control word is shared with the PCI/MSI core, which masks the
 * vector under the IRQ descriptor's lock (shutdown, message updates): the
 * word read here is written back, instead of a plain 0 as in Intel's
 * drivers, so that a mask the core set stays and the reserved bits are
 * preserved as PCI requires; a core update within these few accesses is
 * not excluded, as in Intel's drivers.
 */
static void dlb2_ack_cq_vector(struct dlb2 *dlb2)
{
	void __iomem *ctrl = dlb2->func_base + DLB2_MSIX_VECTOR_CTRL(DLB2_INT_CQ);
	u32 saved = ioread32(ctrl);

	iowrite32(saved | DLB2_MSIX_VECTOR_CTRL_MASK, ctrl);
	dlb2_csr_wr(dlb2, DLB2_SYS_MSIX_PASSTHRU(dlb2->ver), BIT(DLB2_INT_CQ));
	dlb2_csr_wr(dlb2, DLB2_SYS_MSIX_ACK(dlb2->ver), BIT(DLB2_INT_CQ));
	dlb2_csr_wr(dlb2, DLB2_SYS_MSIX_PASSTHRU(dlb2->ver), 0);
	iowrite32(saved, ctrl);
	dlb2_flush_csr(dlb2);
}

static irqreturn_t dlb2_cq_isr(int irq, void *data)
{
	struct dlb2 *dlb2 = data;
	unsigned int p;

	wake_ports(dlb2, DLB2_SYS_LDB_CQ_31_0_OCC_INT_STS(dlb2->ver), dlb2->ldb_ports, 0);
	wake_ports(dlb2, DLB2_SYS_LDB_CQ_63_32_OCC_INT_STS(dlb2->ver), dlb2->ldb_ports, 32);
	wake_ports(dlb2, DLB2_SYS_DIR_CQ_31_0_OCC_INT_STS(dlb2->ver), dlb2->dir_ports, 0);
	wake_ports(dlb2, DLB2_SYS_DIR_CQ_63_32_OCC_INT_STS(dlb2->ver), dlb2->dir_ports, 32);
	/*
	 * The status registers of DLB 2.5's directed CQs 64..95 are not
	 * public: wake those of the ports in interrupt mode whose CQ write
	 * pointer moved since the last wake, not every one of every domain.
	 */
	for (p = 64; p < dlb2->res.num_dir_ports; p++) {
		struct dlb2_port *port = READ_ONCE(dlb2->dir_ports[p]);
		u32 wptr;

		if (!port || !port->hw.intr)
			continue;
		wptr = dlb2_csr_rd(dlb2, DLB2_CHP_DIR_CQ_WPTR(dlb2->ver, p));
		if (wptr != port->irq.isr_wptr) {
			port->irq.isr_wptr = wptr;
			wake(port);
		}
	}
	dlb2_ack_cq_vector(dlb2);
	return IRQ_HANDLED;
}

/**
 * dlb2_intr_init() - MSI-X vectors and handlers, compressed mode
 * @dlb2: the device
 *
 * Return: 0 or a negative errno; vectors and handlers are device-managed.
 */
int dlb2_intr_init(struct dlb2 *dlb2)
{
	struct pci_dev *pdev = dlb2->pdev;
	int ret;

	ret = pci_alloc_irq_vectors(pdev, DLB2_PF_NUM_COMPRESSED_MODE_VECTORS,
				    DLB2_PF_NUM_COMPRESSED_MODE_VECTORS,
				    PCI_IRQ_MSIX);
	if (ret < 0)
		return ret;
	dlb2_csr_wr(dlb2, DLB2_SYS_MSIX_MODE(dlb2->ver), DLB2_SYS_MSIX_MODE_COMPRESSED);
	ret = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, DLB2_INT_ALARM),
			       dlb2_alarm_isr, 0, "dlb2-alarm", dlb2);
	if (ret)
		return ret;
	return devm_request_irq(&pdev->dev, pci_irq_vector(pdev, DLB2_INT_CQ),
				dlb2_cq_isr, 0, "dlb2-cq", dlb2);
}

/**
 * dlb2_intr_exit() - stop the device interrupting
 * @dlb2: the device; every domain is disabled
 */
void dlb2_intr_exit(struct dlb2 *dlb2)
{
	dlb2_csr_wr(dlb2, DLB2_SYS_INGRESS_ALARM_ENBL(dlb2->ver), 0);
	dlb2_csr_wr(dlb2, DLB2_SYS_MSIX_MODE(dlb2->ver), 0);
	dlb2_flush_csr(dlb2);
}

/**
 * dlb2_alarms_enable() - ingress alarms on again after a storm
 * @dlb2: the device; the device lock held
 *
 * The producer ports of every enabled domain an alarm storm stopped start
 * again, and every kind of ingress alarm is enabled.  A stopped domain
 * already killed (no longer in dlb2.domains[]) stays stopped until its
 * teardown (dlb2_alarms_domain_reset()).
 */
void dlb2_alarms_enable(struct dlb2 *dlb2)
{
	unsigned int d;

	lockdep_assert_held(&dlb2->fn->lock);
	disable_irq(pci_irq_vector(dlb2->pdev, DLB2_INT_ALARM));
	for (d = 0; d < DLB2_MAX_DOMAINS; d++) {
		struct dlb2_domain *dom = dlb2->domains[d];

		if (!dom)
			continue;
		dom->alarm_window_count = 0;
		if (!dom->alarms_stopped)
			continue;
		domain_pps_valid(dlb2, dom, true);
		WRITE_ONCE(dom->alarms_stopped, false);
		WRITE_ONCE(dlb2->alarms_stops, dlb2->alarms_stops - 1);
	}
	dlb2->alarm_window_count = 0;
	WRITE_ONCE(dlb2->ingress_alarms_off, false);
	dlb2_csr_wr(dlb2, DLB2_SYS_INGRESS_ALARM_ENBL(dlb2->ver),
		    alarm_enables(dlb2, dlb2->alarms_stops));
	enable_irq(pci_irq_vector(dlb2->pdev, DLB2_INT_ALARM));
}

/**
 * dlb2_alarms_domain_reset() - a domain's producer ports ready for its reset
 * @dlb2: the device; the device lock held
 * @dom: a killed domain (no port of it names it any more, so no storm can
 *	 stop it again), before the driver drains it through its producer
 *	 ports
 *
 * If a storm stopped the domain, its producer ports accept HCWs again (the
 * drain writes to them; the reset then disables them), and ILLEGAL_PP is
 * enabled again unless another domain is stopped.
 */
void dlb2_alarms_domain_reset(struct dlb2 *dlb2, struct dlb2_domain *dom)
{
	lockdep_assert_held(&dlb2->fn->lock);
	disable_irq(pci_irq_vector(dlb2->pdev, DLB2_INT_ALARM));
	if (dom->alarms_stopped) {
		domain_pps_valid(dlb2, dom, true);
		WRITE_ONCE(dom->alarms_stopped, false);
		WRITE_ONCE(dlb2->alarms_stops, dlb2->alarms_stops - 1);
		dlb2_csr_wr(dlb2, DLB2_SYS_INGRESS_ALARM_ENBL(dlb2->ver),
			    alarm_enables(dlb2, dlb2->alarms_stops));
	}
	enable_irq(pci_irq_vector(dlb2->pdev, DLB2_INT_ALARM));
}

/**
 * dlb2_alarms_port_hold() - let the driver write to a port's producer port
 * @dlb2: the device; the device lock held
 * @port: a live port about to be drained by the driver (CQ recovery)
 *
 * The alarm handler is held off until dlb2_alarms_port_release(), so that
 * no storm stops the port meanwhile; a port a storm stopped accepts HCWs
 * until then.
 *
 * Return: whether the port was stopped, for dlb2_alarms_port_release().
 */
bool dlb2_alarms_port_hold(struct dlb2 *dlb2, const struct dlb2_port *port)
{
	bool stopped;

	lockdep_assert_held(&dlb2->fn->lock);
	disable_irq(pci_irq_vector(dlb2->pdev, DLB2_INT_ALARM));
	stopped = port->dom->alarms_stopped;
	if (stopped)
		dlb2_hw_pp_valid(dlb2, &port->hw, true);
	return stopped;
}

/**
 * dlb2_alarms_port_release() - end of dlb2_alarms_port_hold()
 * @dlb2: the device; the device lock held
 * @port: the port
 * @stopped: what dlb2_alarms_port_hold() returned: stop the port again
 */
void dlb2_alarms_port_release(struct dlb2 *dlb2, const struct dlb2_port *port,
			      bool stopped)
{
	if (stopped)
		dlb2_hw_pp_valid(dlb2, &port->hw, false);
	enable_irq(pci_irq_vector(dlb2->pdev, DLB2_INT_ALARM));
}
