// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: interrupts (hardware facts, section 8).
 *
 * Compressed MSI-X mode: vector 0 is the service interrupt (ingress alarms),
 * vector 1 serves every CQ.  Alarms are counted per kind and per port and
 * logged rate-limited; more than DLB2_ALARM_STORM in one second switches
 * the ingress alarms off (a producer flooding illegal HCWs must not keep a
 * CPU busy), until an administrator writes ingress_alarms in sysfs.
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
	else if (!ldb && id < dlb2->num_dir_ports)
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

	if (time_after(jiffies, dlb2->alarm_window_start + HZ)) {
		dlb2->alarm_window_start = jiffies;
		dlb2->alarm_window_count = 0;
	}
	if (++dlb2->alarm_window_count > DLB2_ALARM_STORM &&
	    !dlb2->ingress_alarms_off) {
		dlb2_csr_wr(dlb2, DLB2_SYS_INGRESS_ALARM_ENBL(dlb2->ver), 0);
		dlb2->ingress_alarms_off = true;
		dev_warn(&dlb2->pdev->dev,
			 "more than %d alarms in one second: ingress alarms off\n",
			 DLB2_ALARM_STORM);
	}
}

static irqreturn_t dlb2_alarm_isr(int irq, void *data)
{
	struct dlb2 *dlb2 = data;
	u32 hw_synd = dlb2_csr_rd(dlb2, DLB2_SYS_ALARM_HW_SYND(dlb2->ver));
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
	synd0 = dlb2_csr_rd(dlb2, DLB2_SYS_ALARM_PF_SYND0(dlb2->ver));
	if (!(synd0 & DLB2_ALARM_SYND0_VALID))
		return IRQ_HANDLED;
	count_alarm(dlb2, synd0);
	/* MORE: others were lost while SYND0 held this one; count one more. */
	if (synd0 & DLB2_ALARM_SYND0_MORE)
		atomic64_inc(&dlb2->alarms[DLB2_ALARM_OTHER]);
	dlb2_csr_wr(dlb2, DLB2_SYS_ALARM_PF_SYND0(dlb2->ver),
		    DLB2_ALARM_SYND0_VALID | DLB2_ALARM_SYND0_MORE);
	return IRQ_HANDLED;
}

static void wake(struct dlb2_port *port)
{
	if (!port)
		return;
	atomic_inc(&port->irqs);
	wake_up_interruptible(&port->wq);
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
	for (p = 64; p < dlb2->num_dir_ports; p++) {
		struct dlb2_port *port = READ_ONCE(dlb2->dir_ports[p]);
		u32 wptr;

		if (!port || !port->intr)
			continue;
		wptr = dlb2_csr_rd(dlb2, DLB2_CHP_DIR_CQ_WPTR(dlb2->ver, p));
		if (wptr != port->isr_wptr) {
			port->isr_wptr = wptr;
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
 * @dlb2: the device
 */
void dlb2_alarms_enable(struct dlb2 *dlb2)
{
	disable_irq(pci_irq_vector(dlb2->pdev, DLB2_INT_ALARM));
	dlb2->alarm_window_count = 0;
	dlb2->ingress_alarms_off = false;
	dlb2_csr_wr(dlb2, DLB2_SYS_INGRESS_ALARM_ENBL(dlb2->ver),
		    DLB2_SYS_INGRESS_ALARM_ENBL_ALL);
	enable_irq(pci_irq_vector(dlb2->pdev, DLB2_INT_ALARM));
}
