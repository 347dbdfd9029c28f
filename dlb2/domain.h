/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel DLB 2.0 / 2.5: scheduling domains, their queues and ports.
 *
 * configfs.c describes a domain (struct dlb2_domain_desc), a snapshot of
 * its configfs items checked as a whole (and by KUnit, without configfs);
 * domain.c checks it, allocates the hardware (resource.c), programs it
 * (hw.c) and starts it, all or nothing, and tears it down again: killed
 * under the device lock, its P2P holders called with no lock
 * (lifecycle.c), then reset and freed under the device lock (see
 * "Locking" in dlb2.h).
 */
#ifndef __DLB2_DOMAIN_H
#define __DLB2_DOMAIN_H

#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "dlb2.h"
#include "regs.h"

#define DLB2_NAME_MAX		32
#define DLB2_MAX_LINKS		8	/* QID slots of a load-balanced CQ */
#define DLB2_ANY_COS		(-1)

enum dlb2_sched { DLB2_Q_ATOMIC, DLB2_Q_ORDERED, DLB2_Q_UNORDERED };

/**
 * struct dlb2_queue_desc - a queue as configured
 * @name: configfs name
 * @ldb: load-balanced (else directed)
 * @sched: what a load-balanced queue is for
 * @depth_threshold: depth at which CQ entries report the queue as full
 * @sns: sequence numbers (ordered queues)
 * @atomic_inflights: atomic inflight entries
 * @lock_id_comp: distinct lock ids after compression (0: no compression)
 */
struct dlb2_queue_desc {
	const char *name;
	bool ldb;
	enum dlb2_sched sched;
	u32 depth_threshold;
	u32 sns;
	u32 atomic_inflights;
	u32 lock_id_comp;
};

/**
 * struct dlb2_port_desc - a port as configured
 * @name: configfs name
 * @ldb: load-balanced (else directed)
 * @cq_depth: CQ depth, 1..1024, a power of two
 * @hist_list: history-list entries (0: twice the CQ depth)
 * @intr: wait mode interrupt (else poll)
 * @cos: class of service or DLB2_ANY_COS
 * @num_links: entries used in @link_queue and @link_prio
 * @link_queue: linked queues, as indexes into the domain's queues
 * @link_prio: priority of each link, 0 (highest) .. 7
 */
struct dlb2_port_desc {
	const char *name;
	bool ldb;
	u32 cq_depth;
	u32 hist_list;
	bool intr;
	int cos;
	unsigned int num_links;
	unsigned int link_queue[DLB2_MAX_LINKS];
	u8 link_prio[DLB2_MAX_LINKS];
};

/**
 * struct dlb2_domain_desc - a domain as configured
 * @name: configfs name
 * @ldb_credits: credits for load-balanced queues
 * @dir_credits: credits for directed queues (2.5: added to one pool)
 * @num_queues: entries in @queues
 * @queues: its queues
 * @num_ports: entries in @ports
 * @ports: its ports
 */
struct dlb2_domain_desc {
	const char *name;
	u32 ldb_credits;
	u32 dir_credits;
	unsigned int num_queues;
	struct dlb2_queue_desc *queues;
	unsigned int num_ports;
	struct dlb2_port_desc *ports;
};

/* State of a (load-balanced CQ, QID slot) pair, facts 6.7. */
enum dlb2_slot_state {
	DLB2_SLOT_UNMAPPED,
	DLB2_SLOT_MAPPED,
	DLB2_SLOT_UNMAP_PENDING,	/* waits for the CQ's completions */
};

/**
 * struct dlb2_hw_queue - a queue as the hardware knows it: what hw.c programs
 * @id: hardware id
 * @sn_group: SN group of an ordered queue, or -1
 * @sn_slot: slot in that group
 * @desc: its configuration as programmed (its name is the queue's
 *	  dlb2_queue.name); not configfs's, which the user may change and
 *	  enable again while this domain, revoked, is still being torn down
 */
struct dlb2_hw_queue {
	unsigned int id;
	int sn_group;
	unsigned int sn_slot;
	struct dlb2_queue_desc desc;
};

/**
 * struct dlb2_queue - an enabled queue
 * @sysfs_dev: sysfs statistics device (queue.<name>)
 * @hw: the queue as programmed (hw.c)
 * @name: configfs name
 */
struct dlb2_queue {
	struct device *sysfs_dev;
	struct dlb2_hw_queue hw;
	char name[DLB2_NAME_MAX + 1];
};

/**
 * struct dlb2_hw_port - a port as the hardware knows it: what hw.c programs
 * @ldb: load-balanced (else directed)
 * @id: hardware id
 * @intr: CQ interrupt enabled
 * @cq_depth: configured CQ depth
 * @cq_entries: ring entries, max(cq_depth, 8)
 * @cq_dma: CQ ring (bus address)
 * @hist_base: first history-list entry
 * @hist_size: history-list entries
 * @slot_queue: queue of each QID slot (load-balanced)
 * @slot_prio: priority of each slot
 * @slot_state: state of each slot (under the device lock)
 */
struct dlb2_hw_port {
	bool ldb;
	unsigned int id;
	bool intr;
	u32 cq_depth;
	u32 cq_entries;
	dma_addr_t cq_dma;
	u32 hist_base;
	u32 hist_size;
	struct dlb2_hw_queue *slot_queue[DLB2_MAX_LINKS];
	u8 slot_prio[DLB2_MAX_LINKS];
	enum dlb2_slot_state slot_state[DLB2_MAX_LINKS];
};

/**
 * struct dlb2_port_irq - a port's CQ interrupt (intr.c)
 * @wq: waiters for CQ interrupts
 * @count: CQ interrupts not yet read
 * @isr_wptr: the CQ write pointer the interrupt handler last woke the port
 *	      at (DLB 2.5's directed ports 64..95 only; handler only)
 */
struct dlb2_port_irq {
	wait_queue_head_t wq;
	atomic_t count;
	u32 isr_wptr;
};

/**
 * struct dlb2_port_p2p - a port's pins of other kernel modules (p2p.c)
 * @lock: protects @pins, @pending and each pin's callback state; never
 *	  held while a callback runs
 * @pins: the pins on the producer port (struct dlb2_p2p)
 * @pending: revoke callbacks chosen to run and not yet returned
 * @wq: woken when a callback returns
 */
struct dlb2_port_p2p {
	struct mutex lock;	/* see the kernel-doc above */
	struct list_head pins;
	unsigned int pending;
	wait_queue_head_t wq;
};

/**
 * struct dlb2_port_cdev - a port's character device (port.c)
 * @file: the one open file, or NULL (under dlb2_port.lock)
 * @dev: the device (/dev/dlb2/<N>/<domain>/<port>)
 * @devt: its device number
 */
struct dlb2_port_cdev {
	struct file *file;
	struct device *dev;
	dev_t devt;
};

/**
 * struct dlb2_port - an enabled port: the object (cq.c) and, one member
 *		      each, what the layers above keep of it
 * @ref: held by the domain while enabled, by an open file and by each
 *	 P2P holder
 * @lock: protects @dlb2, @dom, @cdev.file, and the revocation of pins
 *	  (dlb2.h, "Locking")
 * @dev_lock: the device lock (dlb2_function.lock), for the file's
 *	      release: unlike @dlb2 it stays valid after revocation (the
 *	      function lives as long as the module)
 * @dlb2: the device, NULL once the port is revoked
 * @dom: its domain, NULL once revoked
 * @cq_va: CQ ring, dlb2_port_cq_map_size() bytes of coherent DMA memory
 *	   (cq.c); NULL once freed at teardown (dlb2_port_cq_free())
 * @hw: the port as programmed (hw.c)
 * @irq: its CQ interrupt (intr.c)
 * @p2p: its P2P holders (p2p.c)
 * @cdev: its character device (port.c)
 * @sysfs_dev: sysfs statistics device (port.<name>, sysfs.c)
 * @released: QEs the driver completed or popped for dead consumers
 * @alarms: ingress alarms raised by this port
 * @name: configfs name
 */
struct dlb2_port {
	struct kref ref;
	struct mutex lock;	/* see the kernel-doc above */
	struct mutex *dev_lock;
	struct dlb2 *dlb2;
	struct dlb2_domain *dom;
	void *cq_va;
	struct dlb2_hw_port hw;
	struct dlb2_port_irq irq;
	struct dlb2_port_p2p p2p;
	struct dlb2_port_cdev cdev;
	struct device *sysfs_dev;
	atomic64_t released;
	atomic64_t alarms;
	char name[DLB2_NAME_MAX + 1];
};

/**
 * dlb2_port_pp_offs() - where a port's producer port is in BAR0
 * @port: the port
 *
 * Return: the offset of its 4 KiB window from the start of BAR0.
 */
static inline u32 dlb2_port_pp_offs(const struct dlb2_hw_port *port)
{
	return port->ldb ? DLB2_LDB_PP_OFFS(port->id) :
			   DLB2_DIR_PP_OFFS(port->id);
}

/* Bytes of a port's CQ ring (sparse mode: 64 per entry), and of its mapping. */
static inline u32 dlb2_port_cq_size(const struct dlb2_hw_port *port)
{
	return port->cq_entries * 64;
}

static inline u32 dlb2_port_cq_map_size(const struct dlb2_hw_port *port)
{
	return PAGE_ALIGN(dlb2_port_cq_size(port));
}

/**
 * struct dlb2_hw_domain - a domain as hw.c's domain-wide sequences walk it
 * @num_queues: entries in @queues
 * @queues: its queues' hardware parts (&dlb2_domain.queues[i].hw)
 * @num_ports: entries in @ports
 * @ports: its ports' hardware parts (&dlb2_domain.ports[i]->hw)
 *
 * Pointers into the domain's queues and ports, set as they are created;
 * no state of its own.
 */
struct dlb2_hw_domain {
	unsigned int num_queues;
	struct dlb2_hw_queue **queues;
	unsigned int num_ports;
	struct dlb2_hw_port **ports;
};

/**
 * struct dlb2_domain - an enabled scheduling domain
 * @dlb2: its device
 * @res: the hardware resources it holds (its hardware id: @res.id)
 * @hw: its queues and ports as hw.c walks them, and their numbers
 * @sysfs_dev: sysfs statistics device (dlb2_<N>.<name>, class dlb2_domain),
 *	       parent of its queues' and ports'
 * @credit_page: the domain credit page (user-mappable, struct dlb2_credit
 *	       pools of include/uapi/linux/dlb2.h); mappings and pins of it
 *	       hold page references of their own
 * @queues: its queues, in configuration order (@hw.num_queues)
 * @ports: its ports, in configuration order (@hw.num_ports)
 * @release_node: on a list of revoked domains that their revoker releases
 * @alarm_window_start: jiffies when the current one-second window of its
 *			ports' alarms began (intr.c, "Locking")
 * @alarm_window_count: its ports' alarms in that window
 * @alarms_stopped: an alarm storm of its ports stopped its producer ports
 *		    (intr.c), until dlb2_alarms_enable() or its teardown
 * @name: configfs name
 */
struct dlb2_domain {
	struct dlb2 *dlb2;
	struct dlb2_domain_res res;
	struct dlb2_hw_domain hw;
	struct device *sysfs_dev;
	struct page *credit_page;
	struct dlb2_queue *queues;
	struct dlb2_port **ports;
	struct list_head release_node;
	unsigned long alarm_window_start;
	unsigned int alarm_window_count;
	bool alarms_stopped;
	char name[DLB2_NAME_MAX + 1];
};

/*
 * Layers (dlb2.h): a file calls only files listed before it here.
 * function.c, hw.c, resource.c, desc.c, intr.c; domain.c and cq.c; p2p.c;
 * dmabuf.c; port.c; sysfs.c; lifecycle.c; configfs.c; debugfs.c; main.c.
 */

/* desc.c */
int dlb2_domain_check(const struct dlb2_domain_desc *desc, bool is_v2_5,
		      char *why, size_t len);
void dlb2_domain_req(const struct dlb2_domain_desc *desc, bool is_v2_5,
		     struct dlb2_domain_req *req);
u32 dlb2_port_hist_list(const struct dlb2_port_desc *p);

/* domain.c */
struct dlb2_domain *dlb2_domain_create(struct dlb2 *dlb2,
				       const struct dlb2_domain_desc *desc,
				       char *why, size_t len);
void dlb2_domain_destroy(struct dlb2_domain *dom);
void dlb2_domain_kill(struct dlb2_domain *dom);
void dlb2_domain_teardown(struct dlb2_domain *dom);
void dlb2_domains_wait_released(struct dlb2 *dlb2);
int dlb2_domain_link(struct dlb2_domain *dom, unsigned int port,
		     unsigned int queue, u8 prio);
void dlb2_domain_unlink(struct dlb2_domain *dom, unsigned int port,
			unsigned int queue);
void dlb2_pending_work(struct work_struct *work);

/* cq.c: the port object */
int dlb2_port_cq_alloc(struct dlb2_port *port, struct device *dev);
void dlb2_port_cq_free(struct dlb2_port *port, struct device *dev);
int dlb2_port_cq_mmap(struct dlb2_port *port, struct device *dev,
		      struct vm_area_struct *vma);
void dlb2_port_put(struct dlb2_port *port);
void dlb2_port_cq_resume(struct dlb2_port *port);
void dlb2_port_release_cq(struct dlb2_port *port);
void dlb2_port_kill(struct dlb2_port *port);

/* p2p.c */
void dlb2_p2p_revoke_all(struct dlb2_port *port);
unsigned int dlb2_p2p_count(struct dlb2_port *port, unsigned int *revoked);
struct dlb2_p2p *dlb2_p2p_pin(struct dlb2_port *port, u32 offset, u32 len,
			      int domain_id, void (*revoke)(void *priv),
			      void *priv);

/* dmabuf.c */
int dlb2_dmabuf_export(struct dlb2_port *port, int flags);

/* port.c */
int dlb2_port_cdev_add(struct dlb2_port *port, int dev_id);
void dlb2_port_cdev_enable(struct dlb2_port *port);
void dlb2_port_cdev_del(struct dlb2_port *port);

/* sysfs.c */
int dlb2_domain_sysfs_add(struct dlb2_domain *dom);
void dlb2_domain_sysfs_del(struct dlb2_domain *dom);

/* lifecycle.c */
struct dlb2_domain *dlb2_domain_enable(struct dlb2 *dlb2,
				       const struct dlb2_domain_desc *desc,
				       char *why, size_t len);
void dlb2_domain_revoke(struct dlb2_domain *dom);
void dlb2_domain_release(struct dlb2_domain *dom);

#endif /* __DLB2_DOMAIN_H */
