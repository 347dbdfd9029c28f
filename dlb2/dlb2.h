/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel Dynamic Load Balancer (DLB 2.0 / 2.5) PF driver: device structure.
 *
 * Locking
 * - The device lock, one per PCI function (dlb2_cfs_dev.lock in
 *   configfs.c, reached as *dlb2.lock), serialises everything that
 *   changes the function's configuration: configfs stores, mkdir/rmdir,
 *   domain enable/disable, link changes, the pending-unmap worker, probe
 *   attaching the device to its configfs directory and remove detaching
 *   it.  It lives in the function's dlb2_<N> directory, which outlives
 *   every binding, so that configfs items of an unbound device lock the
 *   same mutex; dlb2_cfs_dev.dlb2 is set and cleared under it.  It nests
 *   inside the configfs subsystem's su_mutex (held by configfs around
 *   make_group() and drop_item(), taken by domain enable/disable) and
 *   outside dlb2_minors_lock (port.c) and dlb2_port.lock.  Different
 *   devices' locks are never held together.
 * - dlb2.state, dlb2.res, dlb2.domains[] and dlb2.dying are only touched
 *   under the device lock.
 * - The revoke callbacks of a port's P2P holders run with no dlb2 lock
 *   held: a domain is revoked under the device lock, its holders are
 *   called without it, then it is reset and freed under it again
 *   (domain.c); remove and reset wait until dlb2.dying is 0.
 * - The interrupt handlers read dlb2.ldb_ports[] and dlb2.dir_ports[]
 *   without locks: a port is published before its CQ interrupt is
 *   enabled; at teardown its interrupt is disabled, it is unpublished,
 *   synchronize_irq() waits for handlers that may have looked it up (the
 *   vectors are shared by all domains), and only then is it freed.
 */
#ifndef __DLB2_H
#define __DLB2_H

#include <linux/atomic.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/dlb2.h>

#include "resource.h"

#define DLB2_DRV_NAME		"dlb2"

struct dlb2_domain;
struct dlb2_port;
struct dlb2_cfs_dev;

/* Kinds of ingress alarm the service interrupt counts. */
enum dlb2_alarm {
	DLB2_ALARM_ILLEGAL_ENQ,		/* no credit, excess completion, bad frag */
	DLB2_ALARM_EXCESS_TOKENS,
	DLB2_ALARM_ILLEGAL_HCW,
	DLB2_ALARM_ILLEGAL_QID,
	DLB2_ALARM_DISABLED_QID,
	DLB2_ALARM_OTHER,
	DLB2_NUM_ALARMS,
};

/**
 * struct dlb2 - one DLB physical function
 * @pdev: the PCI device
 * @ver: hardware generation (DLB2_HW_V2, DLB2_HW_V2_5), from the device ID
 * @func_base: BAR0 mapping (producer-port windows, MSI-X table)
 * @csr_base: BAR2 mapping (configuration and status registers)
 * @func_phys: bus address of BAR0, for user mappings of producer ports
 * @num_dir_ports: 64 (2.0) or 96 (2.5)
 * @lock: the device lock (dlb2_cfs_dev.lock, see "Locking" above)
 * @state: whether domains can be enabled
 * @cfs: the device's configfs directory (dlb2_<N>)
 * @res: free hardware resources
 * @domains: enabled domains by hardware id
 * @dying: domains taken from user space whose holders are being revoked
 *	   and whose hardware is not yet reset and freed
 * @dying_wq: woken when @dying drops
 * @ldb_ports: enabled load-balanced ports by hardware id (interrupts)
 * @dir_ports: enabled directed ports by hardware id (interrupts)
 * @pending_work: retries unmaps that wait for a port's completions
 * @alarms: ingress alarms seen, by kind
 * @alarm_window_start: jiffies when the current one-second window began
 * @alarm_window_count: alarms in the current window
 * @ingress_alarms_off: alarms were switched off after an alarm storm
 * @domains_kobj: sysfs directory of the enabled domains
 * @p2p_override: map producer ports for peers the PCI topology check
 *		  refuses (sysfs p2p_override, the administrator's call)
 */
/* Whether domains can be enabled; see dlb2.state. */
enum dlb2_state {
	DLB2_STATE_READY,
	DLB2_STATE_RESETTING,	/* between reset_prepare and reset_done */
	DLB2_STATE_FAILED,	/* did not come back from a reset */
};

struct dlb2 {
	struct pci_dev *pdev;
	u32 ver;
	struct mutex *lock;	/* see "Locking" above */
	enum dlb2_state state;
	void __iomem *func_base;
	void __iomem *csr_base;
	phys_addr_t func_phys;
	unsigned int num_dir_ports;
	struct dlb2_cfs_dev *cfs;
	struct dlb2_resources res;
	struct dlb2_domain *domains[DLB2_MAX_DOMAINS];
	unsigned int dying;
	wait_queue_head_t dying_wq;
	struct dlb2_port *ldb_ports[DLB2_MAX_LDB_PORTS];
	struct dlb2_port *dir_ports[DLB2_MAX_DIR_PORTS];
	struct delayed_work pending_work;
	atomic64_t alarms[DLB2_NUM_ALARMS];
	unsigned long alarm_window_start;
	unsigned int alarm_window_count;
	bool ingress_alarms_off;
	struct kobject *domains_kobj;
	bool p2p_override;
};

static inline u32 dlb2_csr_rd(struct dlb2 *dlb2, u32 off)
{
	return ioread32(dlb2->csr_base + off);
}

static inline void dlb2_csr_wr(struct dlb2 *dlb2, u32 off, u32 val)
{
	iowrite32(val, dlb2->csr_base + off);
}

/* A read that makes sure earlier CSR writes reached the device. */
void dlb2_flush_csr(struct dlb2 *dlb2);

static inline const char *dlb2_ver_str(struct dlb2 *dlb2)
{
	return dlb2->ver == DLB2_HW_V2_5 ? "2.5" : "2.0";
}

/* configfs.c */
int dlb2_configfs_init(void);
void dlb2_configfs_exit(void);
int dlb2_configfs_attach(struct dlb2 *dlb2);
void dlb2_configfs_detach(struct dlb2 *dlb2);
void dlb2_configfs_reset(struct dlb2 *dlb2);
int dlb2_cfs_dev_id(struct dlb2 *dlb2);

/* intr.c */
int dlb2_intr_init(struct dlb2 *dlb2);
void dlb2_intr_exit(struct dlb2 *dlb2);
void dlb2_alarms_enable(struct dlb2 *dlb2);

/* port.c */
int dlb2_port_chrdev_init(void);
void dlb2_port_chrdev_exit(void);

/* sysfs.c */
extern const struct attribute_group *dlb2_dev_groups[];
void dlb2_sysfs_init(void);

#endif /* __DLB2_H */
