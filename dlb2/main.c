// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel Dynamic Load Balancer (DLB 2.0 / 2.5) PF driver: PCI probe and remove.
 *
 * Probe enables the function, maps the FUNC (BAR0) and CSR (BAR2) BARs, powers
 * the device on and waits until it reports ready, sets a 64-bit DMA mask and
 * allocates the two MSI-X vectors of compressed mode.  Everything is device
 * managed, so every error path and remove unwind in reverse order.
 */
#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "dlb2.h"
#include "regs.h"

#define DLB2_READY_TIMEOUT_US	(1000 * USEC_PER_MSEC)
#define DLB2_READY_POLL_US	(1 * USEC_PER_MSEC)

static bool dlb2_is_ready(struct dlb2 *dlb2)
{
	u32 pm = dlb2_csr_rd(dlb2, DLB2_CM_CFG_PM_STATUS(dlb2->ver));
	u32 idle = dlb2_csr_rd(dlb2, DLB2_CM_CFG_DIAGNOSTIC_IDLE_STATUS(dlb2->ver));

	return FIELD_GET(DLB2_CM_CFG_PM_STATUS_PMSM, pm) &&
	       (idle & DLB2_CM_CFG_DIAGNOSTIC_IDLE_STATUS_DLB_FUNC_IDLE);
}

/*
 * Power the device on (the first MMIO access it must see) and wait until the
 * power state machine and the function report ready.
 */
static int dlb2_power_on(struct dlb2 *dlb2)
{
	u32 off = DLB2_CM_CFG_PM_PMCSR_DISABLE(dlb2->ver);
	bool ready;
	int ret;

	dlb2_csr_wr(dlb2, off, dlb2_csr_rd(dlb2, off) &
		    ~DLB2_CM_CFG_PM_PMCSR_DISABLE_DISABLE);

	ret = read_poll_timeout(dlb2_is_ready, ready, ready, DLB2_READY_POLL_US,
				DLB2_READY_TIMEOUT_US, false, dlb2);
	if (ret)
		dev_err(&dlb2->pdev->dev, "device not ready after %lu ms\n",
			DLB2_READY_TIMEOUT_US / USEC_PER_MSEC);
	return ret;
}

static int dlb2_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct dlb2 *dlb2;
	int ret;

	dlb2 = devm_kzalloc(dev, sizeof(*dlb2), GFP_KERNEL);
	if (!dlb2)
		return -ENOMEM;
	dlb2->pdev = pdev;
	dlb2->ver = id->driver_data;

	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot enable device\n");

	ret = pcim_iomap_regions(pdev, BIT(DLB2_FUNC_BAR) | BIT(DLB2_CSR_BAR),
				 DLB2_DRV_NAME);
	if (ret)
		return dev_err_probe(dev, ret, "cannot map BARs\n");
	dlb2->func_base = pcim_iomap_table(pdev)[DLB2_FUNC_BAR];
	dlb2->csr_base = pcim_iomap_table(pdev)[DLB2_CSR_BAR];

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return dev_err_probe(dev, ret, "no usable DMA configuration\n");
	pci_set_master(pdev);

	ret = dlb2_power_on(dlb2);
	if (ret)
		return ret;

	/* Released by pcim on unbind, as the device is managed. */
	ret = pci_alloc_irq_vectors(pdev, DLB2_PF_NUM_COMPRESSED_MODE_VECTORS,
				    DLB2_PF_NUM_COMPRESSED_MODE_VECTORS,
				    PCI_IRQ_MSIX);
	if (ret < 0)
		return dev_err_probe(dev, ret, "cannot allocate MSI-X vectors\n");
	dlb2_csr_wr(dlb2, DLB2_SYS_MSIX_MODE, DLB2_SYS_MSIX_MODE_COMPRESSED);

	pci_set_drvdata(pdev, dlb2);
	dev_info(dev, "DLB %s, %u scheduling domains\n",
		 dlb2->ver == DLB2_HW_V2_5 ? "2.5" : "2.0",
		 dlb2_csr_rd(dlb2, DLB2_SYS_TOTAL_VAS(dlb2->ver)));
	return 0;
}

static void dlb2_remove(struct pci_dev *pdev)
{
	struct dlb2 *dlb2 = pci_get_drvdata(pdev);

	/* Back to the reset interrupt mode; devres frees vectors and mappings. */
	dlb2_csr_wr(dlb2, DLB2_SYS_MSIX_MODE, 0);
}

static const struct pci_device_id dlb2_id_table[] = {
	/*
	 * PFs only.  The VFs (0x2711, 0x2715) have no CSR BAR and are driven
	 * through the PF mailbox, which this driver does not implement.
	 */
	{ PCI_VDEVICE(INTEL, 0x2710), .driver_data = DLB2_HW_V2 },
	{ PCI_VDEVICE(INTEL, 0x2714), .driver_data = DLB2_HW_V2_5 },
	{ }
};
MODULE_DEVICE_TABLE(pci, dlb2_id_table);

static struct pci_driver dlb2_pci_driver = {
	.name = DLB2_DRV_NAME,
	.id_table = dlb2_id_table,
	.probe = dlb2_probe,
	.remove = dlb2_remove,
	.dev_groups = dlb2_dev_groups,
};
module_pci_driver(dlb2_pci_driver);

MODULE_DESCRIPTION("Intel Dynamic Load Balancer 2.0/2.5 driver");
MODULE_AUTHOR("AccDirect developers");
MODULE_LICENSE("GPL");
