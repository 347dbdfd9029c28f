// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel Dynamic Load Balancer (DLB 2.0 / 2.5) PF driver: PCI probe and remove.
 *
 * Probe enables the function, maps the FUNC (BAR0) and CSR (BAR2) BARs, powers
 * the device on, resets it (FLR) and waits until it reports ready, sets a
 * 64-bit DMA mask, initialises the hardware and the interrupts (two MSI-X
 * vectors, compressed mode) and attaches the device to its configfs
 * directory, which gives it its device lock (dlb2.h, "Locking").  PCI
 * resources are device managed; the rest unwinds in reverse order on error
 * and in remove.  Shutdown stops the device's DMA; system sleep is refused
 * while a domain is enabled.
 */
#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "compat.h"
#include "dlb2.h"
#include "hw.h"
#include "regs.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

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

/*
 * Function-level reset, so that the driver starts from reset values whatever
 * ran before (a crashed user-space driver, a previous binding).
 */
static int dlb2_reset(struct dlb2 *dlb2)
{
	struct pci_dev *pdev = dlb2->pdev;
	int ret;

	/* Without FLR (none known), start from whatever state it has. */
	if (pcie_reset_flr(pdev, PCI_RESET_PROBE))
		return 0;
	pci_save_state(pdev);
	ret = pcie_flr(pdev);
	pci_restore_state(pdev);
	if (ret)
		return ret;
	return dlb2_power_on(dlb2);
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
	dlb2->fn = dlb2_function_get(pdev);
	if (IS_ERR(dlb2->fn))
		return PTR_ERR(dlb2->fn);
	dlb2_resources_init(&dlb2->res, dlb2->ver == DLB2_HW_V2_5);
	INIT_DELAYED_WORK(&dlb2->pending_work, dlb2_pending_work);
	init_waitqueue_head(&dlb2->dying_wq);

	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot enable device\n");

	dlb2->func_base = dlb2_pcim_iomap_region(pdev, DLB2_FUNC_BAR,
						 DLB2_DRV_NAME);
	if (IS_ERR(dlb2->func_base))
		return dev_err_probe(dev, PTR_ERR(dlb2->func_base),
				     "cannot map BAR %d\n", DLB2_FUNC_BAR);
	dlb2->csr_base = dlb2_pcim_iomap_region(pdev, DLB2_CSR_BAR,
						DLB2_DRV_NAME);
	if (IS_ERR(dlb2->csr_base))
		return dev_err_probe(dev, PTR_ERR(dlb2->csr_base),
				     "cannot map BAR %d\n", DLB2_CSR_BAR);
	dlb2->func_phys = pci_resource_start(pdev, DLB2_FUNC_BAR);

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return dev_err_probe(dev, ret, "no usable DMA configuration\n");

	ret = dlb2_power_on(dlb2);
	if (ret)
		return ret;
	ret = dlb2_reset(dlb2);
	if (ret)
		return dev_err_probe(dev, ret, "function-level reset failed\n");
	/*
	 * Bus mastering only now: before the reset the device may still hold
	 * CQ addresses of whoever ran it last (a kernel before kexec, a
	 * user-space driver), and would write there.
	 */
	pci_set_master(pdev);
	dlb2_hw_init(dlb2);

	ret = dlb2_intr_init(dlb2);
	if (ret)
		return dev_err_probe(dev, ret, "cannot set up interrupts\n");

	pci_set_drvdata(pdev, dlb2);
	pci_save_state(pdev);		/* for dlb2_slot_reset() */
	ret = dlb2_configfs_attach(dlb2);
	if (ret)
		goto err_intr;
	dlb2_debugfs_add(dlb2);
	dlb2_function_bind(dlb2);

	dev_info(dev, "DLB %s, %u scheduling domains, configfs dlb2_%d\n",
		 dlb2_ver_str(dlb2),
		 dlb2_csr_rd(dlb2, DLB2_SYS_TOTAL_VAS(dlb2->ver)),
		 dlb2->fn->id);
	return 0;

err_intr:
	dlb2_intr_exit(dlb2);
	return ret;
}

/*
 * Take every domain of @dlb2 away from user space and peers (its ports
 * revoked, the hardware drained and reset), with @status in configfs, and
 * wait until none is left, nor any pending unmap.  No domain can be enabled
 * meanwhile (the function unbound, or dlb2.state not READY).
 */
static void dlb2_stop_domains(struct dlb2 *dlb2, const char *status)
{
	dlb2_configfs_stop(dlb2, status);
	dlb2_domains_wait_released(dlb2);
	cancel_delayed_work_sync(&dlb2->pending_work);
}

/*
 * Unbind: every domain is disabled (ports revoked from user space, hardware
 * drained and reset) before the device goes; open port files stay valid and
 * answer ENODEV.  The configfs directory stays for the next bind.
 */
static void dlb2_remove(struct pci_dev *pdev)
{
	struct dlb2 *dlb2 = pci_get_drvdata(pdev);

	dlb2_function_unbind(dlb2);
	dlb2_debugfs_del(dlb2);
	dlb2_stop_domains(dlb2, "error: device removed");
	dlb2_intr_exit(dlb2);
}

/* No domain is enabled on @dlb2 from now on, until @state changes again. */
static void dlb2_set_state(struct dlb2 *dlb2, enum dlb2_state state)
{
	mutex_lock(&dlb2->fn->lock);
	dlb2->state = state;
	mutex_unlock(&dlb2->fn->lock);
}

/*
 * A reset of the function (e.g. sysfs reset) wipes every domain's hardware
 * state: take the domains away from user space and peers first, as an
 * unbind does, and initialise the device again afterwards.
 */
static void dlb2_reset_prepare(struct pci_dev *pdev)
{
	struct dlb2 *dlb2 = pci_get_drvdata(pdev);

	dlb2_set_state(dlb2, DLB2_STATE_RESETTING);	/* until reset_done */
	dlb2_stop_domains(dlb2, "error: device reset");
}

/*
 * Initialise the device again after a reset; until here no domain could be
 * enabled (dlb2.state RESETTING).  Return: the state it is left in.
 */
static enum dlb2_state dlb2_reinit(struct dlb2 *dlb2)
{
	struct pci_dev *pdev = dlb2->pdev;
	enum dlb2_state state = DLB2_STATE_FAILED;

	if (!dlb2_power_on(dlb2)) {
		dlb2_hw_init(dlb2);
		dlb2_csr_wr(dlb2, DLB2_SYS_MSIX_MODE(dlb2->ver),
			    DLB2_SYS_MSIX_MODE_COMPRESSED);
		state = DLB2_STATE_READY;
	} else {
		dev_err(&pdev->dev,
			"did not come back from a reset: unusable until rebound\n");
	}
	mutex_lock(&dlb2->fn->lock);
	/* hw_init turned the alarms on: so do the flags. */
	if (state == DLB2_STATE_READY)
		dlb2_alarms_enable(dlb2);
	dlb2->state = state;
	mutex_unlock(&dlb2->fn->lock);
	return state;
}

static void dlb2_reset_done(struct pci_dev *pdev)
{
	dlb2_reinit(pci_get_drvdata(pdev));
}

/*
 * AER: an uncorrectable error froze the link, or the device is gone for
 * good.  Either way the domains go, as for a reset (their drains stop at
 * once: dlb2_hw_gone()), and the device is FAILED: a frozen one until
 * dlb2_slot_reset() initialises it again after the link reset, a gone one
 * until it is unbound.  Not RESETTING while the recovery runs: when it
 * fails (the link reset fails, or another driver below the same port votes
 * against it), the PCI core of Linux 6.1 and 6.12 tells no driver
 * (pcie_do_recovery() only sends a uevent), so RESETTING would stay for
 * ever, and the device, which the link reset may have wiped, would look
 * as if it were coming back.
 */
static pci_ers_result_t dlb2_error_detected(struct pci_dev *pdev,
					    pci_channel_state_t state)
{
	struct dlb2 *dlb2 = pci_get_drvdata(pdev);

	if (state == pci_channel_io_normal) {
		dev_warn(&pdev->dev, "PCIe error, channel still usable: domains kept\n");
		return PCI_ERS_RESULT_CAN_RECOVER;
	}
	dev_err(&pdev->dev, "PCIe error (channel %s): domains disabled\n",
		state == pci_channel_io_frozen ? "frozen" : "failed");
	dlb2_set_state(dlb2, DLB2_STATE_FAILED);
	dlb2_stop_domains(dlb2, "error: device reset");
	return state == pci_channel_io_perm_failure ?
	       PCI_ERS_RESULT_DISCONNECT : PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t dlb2_slot_reset(struct pci_dev *pdev)
{
	pci_restore_state(pdev);
	pci_save_state(pdev);
	return dlb2_reinit(pci_get_drvdata(pdev)) == DLB2_STATE_READY ?
	       PCI_ERS_RESULT_RECOVERED : PCI_ERS_RESULT_DISCONNECT;
}

/*
 * Reboot, power-off, kexec: stop the device's DMA and interrupts, so that
 * no CQ write or MSI reaches memory that the next kernel (or firmware)
 * owns.  The domains are not torn down: user space goes with the kernel,
 * and revoking holders could wait for processes that no longer run.
 */
static void dlb2_shutdown(struct pci_dev *pdev)
{
	struct dlb2 *dlb2 = pci_get_drvdata(pdev);

	dlb2_set_state(dlb2, DLB2_STATE_FAILED);
	dlb2_intr_exit(dlb2);
	pci_clear_master(pdev);
}

/*
 * System sleep.  The device keeps no domain across D3 and user space would
 * keep mappings of ports that no longer exist: suspend is refused while a
 * domain is enabled or still being torn down (EBUSY, logged), and the
 * device is initialised again on resume.
 */
static int dlb2_suspend(struct device *dev)
{
	struct dlb2 *dlb2 = dev_get_drvdata(dev);
	unsigned int d, n = 0;

	mutex_lock(&dlb2->fn->lock);
	for (d = 0; d < DLB2_MAX_DOMAINS; d++)
		n += !!dlb2->domains[d];
	n += dlb2->dying;
	if (!n && dlb2->state == DLB2_STATE_READY)
		dlb2->state = DLB2_STATE_RESETTING;	/* until resume */
	mutex_unlock(&dlb2->fn->lock);
	if (n) {
		dev_err(dev, "suspend refused: %u domains enabled; disable them first\n",
			n);
		return -EBUSY;
	}
	dlb2_intr_exit(dlb2);
	return 0;
}

static int dlb2_resume(struct device *dev)
{
	return dlb2_reinit(dev_get_drvdata(dev)) == DLB2_STATE_READY ? 0 : -EIO;
}

static DEFINE_SIMPLE_DEV_PM_OPS(dlb2_pm_ops, dlb2_suspend, dlb2_resume);

static const struct pci_error_handlers dlb2_err_handlers = {
	.error_detected = dlb2_error_detected,
	.slot_reset = dlb2_slot_reset,
	.reset_prepare = dlb2_reset_prepare,
	.reset_done = dlb2_reset_done,
};

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
	.shutdown = dlb2_shutdown,
	.dev_groups = dlb2_dev_groups,
	.err_handler = &dlb2_err_handlers,
	.driver.pm = pm_sleep_ptr(&dlb2_pm_ops),
};

static int __init dlb2_init(void)
{
	int ret;

	ret = dlb2_sysfs_init();
	if (ret)
		return ret;
	dlb2_debugfs_init();
	ret = dlb2_port_chrdev_init();
	if (ret)
		goto err_sysfs;
	ret = dlb2_configfs_init();
	if (ret)
		goto err_chrdev;
	ret = pci_register_driver(&dlb2_pci_driver);
	if (ret)
		goto err_configfs;
	return 0;

err_configfs:
	dlb2_configfs_exit();
	dlb2_functions_exit();
err_chrdev:
	dlb2_port_chrdev_exit();
err_sysfs:
	dlb2_debugfs_exit();
	dlb2_sysfs_exit();
	return ret;
}

static void __exit dlb2_exit(void)
{
	pci_unregister_driver(&dlb2_pci_driver);
	dlb2_configfs_exit();
	dlb2_functions_exit();
	dlb2_port_chrdev_exit();
	dlb2_debugfs_exit();
	dlb2_sysfs_exit();
}

module_init(dlb2_init);
module_exit(dlb2_exit);

MODULE_DESCRIPTION("Intel Dynamic Load Balancer 2.0/2.5 driver");
MODULE_AUTHOR("AccDirect developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(DLB2_VERSION);
