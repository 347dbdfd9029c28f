/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel Dynamic Load Balancer (DLB 2.0 / 2.5) PF driver: device structure.
 *
 * Locking: the one place that describes dlb2's locks and their order.
 *
 * The locks, outermost first; a lock is only ever taken while holding
 * locks above it in this list, never one below it:
 *
 *  0. The PCI device lock (device_lock()), held by the driver core around
 *     probe, remove, reset_prepare/reset_done and the AER handlers; then
 *     dlb2_functions_mutex (function.c, global), which protects the list
 *     of PCI functions and their ida while probe finds or makes its
 *     function.
 *  1. configfs: the fragment's frag_sem (read, held by configfs around an
 *     attribute's show and store; taken for writing by rmdir, which drops
 *     it before it takes su_mutex), then the subsystem's su_mutex
 *     (dlb2_subsys.su_mutex: held by configfs around make_group() and
 *     drop_item(), from make_group() to linking an item and from unlinking
 *     it to drop_item(); taken by the enable store, so that
 *     configfs_depend_item_unlocked() sees no item half made or half
 *     dropped; taken by probe around configfs_register_group()).  Nothing
 *     under them takes a lock of level 0.
 *  2. The device lock: dlb2_function.lock (function.c), one per PCI
 *     function, reached as dlb2.fn->lock.  The function outlives every
 *     binding (it lives until the module goes), so that a configfs item of
 *     an unbound (or not yet bound) device, and a port file of a revoked
 *     domain, lock the same mutex as the device; dlb2_function.dlb2 (the
 *     bound device or NULL) is set by probe and cleared by remove under it
 *     and so is stable for whoever holds it.  It protects the configfs
 *     tree of its device (the lists of domains, queues, ports and links,
 *     their descriptions, dlb2_cfs_domain.hw and .status), dlb2.state,
 *     dlb2.res, dlb2.domains[], dlb2.dying, the link state of every port
 *     (dlb2_hw_port.slot_*) and all register programming
 *     (hw.c: domain set-up, links, the pending-unmap worker, teardown,
 *     the CQ recovery of a closed port).  Different devices' locks are
 *     never held together.  There is no per-domain lock: a domain is
 *     changed only under its device's lock.
 *  3. dlb2_minors_lock (port.c, global): the minor -> port IDR of the
 *     port devices.  Taken under the device lock (dlb2_port_cdev_add(),
 *     dlb2_port_cdev_enable(), dlb2_port_cdev_del()) or alone (open, which
 *     takes a reference on the port and drops the lock before it takes
 *     port->lock).
 *  4. dlb2_port.p2p.lock (per port): the port's P2P holders (p2p.c).
 *     Never held while a holder's callback runs.
 *  5. dlb2_port.lock (per port): the port being live (dlb2/dom set), its
 *     open file, its holders' revoked flags and their DMA mappings;
 *     taken under the device lock (revoke, CQ recovery), under p2p.lock
 *     (pin, revoke_all), under the mmap lock (fault, mmap), under a
 *     dma-buf's reservation lock (attach, map and unmap, through
 *     dlb2_p2p_revoked(), dlb2_p2p_map() and dlb2_p2p_unmap()) and
 *     under the peer-memory core's umem mapping_lock (get_pages,
 *     dma_map, dma_unmap).  Under it: the file's
 *     i_mmap lock (unmap_mapping_range()), the page-table lock of the PTE
 *     the fault handler installs (so that no PTE is installed after a
 *     revocation's unmap_mapping_range()) and dma_map_resource().
 *
 * The only global locks are dlb2_functions_mutex and dlb2_minors_lock,
 * both with a narrow scope, and su_mutex (per subsystem, i.e. global),
 * which dlb2 takes only in the enable store.  The module's init and exit
 * run alone.
 *
 * Foreign locks that take dlb2's: the mmap lock (dlb2_p2p_get() drops it
 * before p2p.lock), a dma-buf's reservation lock (dma_resv; on 6.1 also
 * dma_buf.lock around vmap), the peer-memory core's mapping_lock and
 * peermem_dlb's pm_ctx.lock: each may be held when port->lock is taken,
 * none is taken under a dlb2 lock.  sysfs: the device attributes that
 * read dlb2.state and dlb2.res take the device lock inside kernfs's
 * active reference, and are removed by the driver core outside it; the
 * statistics devices of a domain (sysfs.c), unregistered under the device
 * lock (device_del() waits for their show()), take no lock.  debugfs:
 * the dump (debugfs.c) takes the device lock, then each port's p2p.lock
 * and lock, inside debugfs's reference on the file, which remove drops
 * (debugfs_remove_recursive()) with no dlb2 lock held.
 *
 * Holders' callbacks.  The revoke callbacks of a port's P2P holders
 * (dlb2_p2p_get() pins, peer-memory MRs through peermem_dlb, dma-bufs
 * through dmabuf.c, whose callback takes the reservation lock, calls
 * move_notify under it and waits for the fences) are called with NO dlb2
 * lock held: not the device lock, not su_mutex, not p2p.lock or
 * port->lock.  They wait for other processes (a peer-memory invalidation
 * waits until the MR's owner has finished setting it up, which takes
 * port->lock and p2p.lock), so holding any of those would stall or
 * deadlock.  Revocation is therefore in three steps: under the device
 * lock the domain's ports are unpublished and marked dead (every later
 * open, mmap, fault, pin, map, cpu_addr and dma-buf attach fails), the
 * domain leaves dlb2.domains[] and counts in dlb2.dying; with no lock,
 * each port's holders are called (dlb2_p2p_revoke_all(), which also waits
 * for callbacks that a concurrent revocation of the same port runs); then
 * under the device lock again the hardware is drained and reset and only
 * then are its resources returned to dlb2.res: no other domain gets the
 * ports while an old holder may still write.  Remove and reset wait until
 * dlb2.dying is 0.  Locks of others that may be held meanwhile: the
 * driver core's PCI device lock around remove and reset_prepare, and
 * configfs's frag_sem of the domain (read) around the enable store; so a
 * callback must not wait for the DLB's driver core operations or for an
 * rmdir of that domain.  (rmdir of an enabled domain, under su_mutex,
 * never reaches a callback: an enabled domain has ports, which it holds,
 * so rmdir fails with ENOTEMPTY.)
 *
 * Why counters and wait queues, not percpu_ref or completions: dlb2.dying
 * (revoked domains not yet freed) and dlb2_port.p2p.pending (revoke
 * callbacks chosen and not yet returned) are counts under a lock that
 * are read as counts (suspend refuses while dlb2.dying is not 0, debugfs
 * prints it), go to 0 and up again many times in a binding (a reset, a
 * second revoker), and their waiters hold no reference on the objects
 * whose end they wait for (a pin may be freed by its holder as soon as its
 * callback returned).  A percpu_ref cannot be read while live and must be
 * killed and resurrected around each wait; a completion is one event, not
 * a count.  Both counters change only under their lock (the device lock,
 * p2p.lock), and their waiters check them with wait_event().
 *
 * Interrupts.  The handlers read dlb2.ldb_ports[] and dlb2.dir_ports[]
 * without locks: a port is published there before its CQ interrupt is
 * enabled; at teardown (under the device lock, after the holders'
 * callbacks) its interrupt is disabled, it is unpublished,
 * synchronize_irq() waits for handlers that may have looked it up (the
 * vectors are shared by all domains), and only then is it freed.
 *
 * Layers.  The files call one another one way only, each calling only
 * files listed before it: function.c (a PCI function across its
 * bindings: the device lock, the number N), hw.c (register sequences, on
 * the hardware parts of queues, ports and domains: struct dlb2_hw_queue,
 * dlb2_hw_port and dlb2_hw_domain, which reach no lock, reference, file
 * or holder), resource.c and desc.c (bookkeeping without hardware), intr.c;
 * domain.c (domains in hardware) and cq.c (the port object: reference,
 * CQ ring, death); p2p.c (pins of other kernel modules); dmabuf.c;
 * port.c (character devices, user mappings); sysfs.c; lifecycle.c (a
 * domain as its users see it: enable, revoke, release); configfs.c;
 * debugfs.c (the dump for bug reports); main.c (probe, remove, reset,
 * AER).
 * tools/lint/dlb2-layers checks it (make check).
 */
#ifndef __DLB2_H
#define __DLB2_H

#include <linux/atomic.h>
#include <linux/interrupt.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/dlb2.h>

#include "resource.h"

#define DLB2_DRV_NAME		"dlb2"

struct dentry;
struct dlb2_domain;
struct dlb2_port;
struct seq_file;

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

/* Whether domains can be enabled; see dlb2.state. */
enum dlb2_state {
	DLB2_STATE_READY,
	DLB2_STATE_RESETTING,	/* between reset_prepare and reset_done */
	DLB2_STATE_FAILED,	/* did not come back from a reset */
};

/**
 * struct dlb2 - one DLB physical function
 * @pdev: the PCI device
 * @ver: hardware generation (DLB2_HW_V2, DLB2_HW_V2_5), from the device ID
 * @func_base: BAR0 mapping (producer-port windows, MSI-X table)
 * @csr_base: BAR2 mapping (configuration and status registers)
 * @func_phys: bus address of BAR0, for user mappings of producer ports
 * @fn: its PCI function, which owns the device lock (fn->lock, see
 *	"Locking" above) and the number N of dlb2_<N>
 * @state: whether domains can be enabled
 * @res: free hardware resources (and how many directed ports it has)
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
 * @ingress_alarms_off: alarms were switched off after a storm of alarms
 *			that named no enabled domain's port (intr.c)
 * @alarms_stops: enabled or killed domains whose producer ports an alarm
 *		  storm stopped (intr.c; dlb2_domain.alarms_stopped)
 * @p2p_override: map producer ports for peers the PCI topology check
 *		  refuses (sysfs p2p_override, the administrator's call)
 * @debugfs: its debugfs directory (debugfs.c), or an error or NULL
 */
struct dlb2 {
	struct pci_dev *pdev;
	u32 ver;
	struct dlb2_function *fn;
	enum dlb2_state state;
	void __iomem *func_base;
	void __iomem *csr_base;
	phys_addr_t func_phys;
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
	unsigned int alarms_stops;
	bool p2p_override;
	struct dentry *debugfs;
};

/**
 * struct dlb2_function - a PCI function, across its bindings (function.c)
 * @node: on the list of functions, under its mutex
 * @lock: the device lock (see "Locking" above)
 * @id: N of dlb2_<N> (configfs, sysfs) and of /dev/dlb2/<N>
 * @pci_name: its PCI address
 * @dlb2: the bound device, or NULL; set and cleared under @lock, by probe
 *	  and remove (dlb2_function_bind(), dlb2_function_unbind())
 */
struct dlb2_function {
	struct list_head node;
	struct mutex lock;	/* see "Locking" above */
	int id;
	char pci_name[32];
	struct dlb2 *dlb2;
};

/* function.c */
struct dlb2_function *dlb2_function_get(struct pci_dev *pdev);
void dlb2_function_bind(struct dlb2 *dlb2);
void dlb2_function_unbind(struct dlb2 *dlb2);
void dlb2_functions_exit(void);

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
void dlb2_configfs_stop(struct dlb2 *dlb2, const char *status);
void dlb2_configfs_dump(struct dlb2 *dlb2, struct seq_file *m);

/* debugfs.c: nothing without CONFIG_DEBUG_FS */
#ifdef CONFIG_DEBUG_FS
void dlb2_debugfs_init(void);
void dlb2_debugfs_exit(void);
void dlb2_debugfs_add(struct dlb2 *dlb2);
void dlb2_debugfs_del(struct dlb2 *dlb2);
#else
static inline void dlb2_debugfs_init(void) { }
static inline void dlb2_debugfs_exit(void) { }
static inline void dlb2_debugfs_add(struct dlb2 *dlb2) { }
static inline void dlb2_debugfs_del(struct dlb2 *dlb2) { }
#endif

/* intr.c */
int dlb2_intr_init(struct dlb2 *dlb2);
void dlb2_intr_exit(struct dlb2 *dlb2);
void dlb2_alarms_enable(struct dlb2 *dlb2);
void dlb2_alarms_domain_reset(struct dlb2 *dlb2, struct dlb2_domain *dom);
bool dlb2_alarms_port_hold(struct dlb2 *dlb2, const struct dlb2_port *port);
void dlb2_alarms_port_release(struct dlb2 *dlb2, const struct dlb2_port *port,
			      bool stopped);

/* port.c */
int dlb2_port_chrdev_init(void);
void dlb2_port_chrdev_exit(void);

/* sysfs.c */
extern const struct attribute_group *dlb2_dev_groups[];
int dlb2_sysfs_init(void);
void dlb2_sysfs_exit(void);
const char *dlb2_alarm_name(enum dlb2_alarm kind);

#endif /* __DLB2_H */
