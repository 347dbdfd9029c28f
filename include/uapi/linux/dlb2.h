/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * Intel Dynamic Load Balancer (DLB 2.0 / 2.5): user-space interface of the
 * port character devices (/dev/dlb2/<N>/<domain>/<port>).
 *
 * Documented in Documentation/userspace-api/dlb2.rst.
 */
#ifndef _UAPI_LINUX_DLB2_H
#define _UAPI_LINUX_DLB2_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Hardware generations (struct dlb2_port_info.version). */
#define DLB2_HW_V2			0
#define DLB2_HW_V2_5			1

/**
 * struct dlb2_hcw - a hardware control word, what producers write (16 bytes)
 * @data: opaque payload, copied to the consumer's CQ entry
 * @opaque: copied to the CQ entry
 * @qid: destination queue (hardware id; a directed or a load-balanced queue,
 *	 as the scheduling type says)
 * @sched: bits 1:0 scheduling type (DLB2_SCHED_*), bits 4:2 priority
 *	   (0 = highest), bits 7:5 message type (copied)
 * @lock_id: flow id of atomic QEs; in token returns, the number of tokens
 *	     returned minus one
 * @misc: 0 (bits 2:1: QE weight on DLB 2.5)
 * @cmd: command (DLB2_CMD_*)
 */
struct dlb2_hcw {
	__u64 data;
	__u16 opaque;
	__u8 qid;
	__u8 sched;
	__u16 lock_id;
	__u8 misc;
	__u8 cmd;
};

/**
 * struct dlb2_cq_entry - a scheduled QE as the device writes it (16 bytes)
 * @data: as enqueued
 * @opaque: as enqueued
 * @qid: load-balanced queue the QE came from (not meaningful for directed)
 * @sched: as enqueued (directed QEs read DLB2_SCHED_DIRECTED)
 * @flow_id: the enqueued lock_id
 * @debug: undefined
 * @status: bit 0 generation (DLB2_CQ_GEN), bits 2:1 depth of the source
 *	    queue relative to its depth threshold, bit 5 error
 */
struct dlb2_cq_entry {
	__u64 data;
	__u16 opaque;
	__u8 qid;
	__u8 sched;
	__u16 flow_id;
	__u8 debug;
	__u8 status;
};

#define DLB2_SCHED_ATOMIC		0
#define DLB2_SCHED_UNORDERED		1
#define DLB2_SCHED_ORDERED		2
#define DLB2_SCHED_DIRECTED		3
#define DLB2_SCHED(type, prio)		((type) | (prio) << 2)

/* Commands (struct dlb2_hcw.cmd). */
#define DLB2_CMD_NOOP			0x0
#define DLB2_CMD_BAT_T			0x1	/* return lock_id + 1 tokens */
#define DLB2_CMD_COMP			0x2	/* complete the oldest QE (LDB) */
#define DLB2_CMD_COMP_T			0x3	/* COMP and return tokens */
#define DLB2_CMD_ARM			0x5	/* arm the CQ interrupt */
#define DLB2_CMD_NEW			0x8	/* enqueue; takes a credit */
#define DLB2_CMD_NEW_T			0x9
#define DLB2_CMD_FWD			0xa	/* NEW + COMP (LDB) */
#define DLB2_CMD_FWD_T			0xb
#define DLB2_CMD_FRAG			0xc	/* ordered fragment (LDB) */
#define DLB2_CMD_FRAG_T			0xd

#define DLB2_CQ_GEN			0x01
#define DLB2_CQ_DEPTH_LEVEL(status)	(((status) >> 1) & 0x3)
#define DLB2_CQ_ERROR			0x20

/*
 * mmap() layout of a port device.  Each region must be mapped on its own,
 * whole (offset and length exactly as below), with the protection given.
 */
#define DLB2_MMAP_PP_OFFSET		0x00000	/* producer port, write-only */
#define DLB2_PP_SIZE			0x1000
#define DLB2_MMAP_CQ_OFFSET		0x10000	/* CQ ring, read-only, no pins */
#define DLB2_CQ_MAX_SIZE		0x10000	/* cq_size in dlb2_port_info */
#define DLB2_MMAP_CREDIT_OFFSET		0x20000	/* domain credit page, r/w */
#define DLB2_CREDIT_PAGE_SIZE		0x1000

/*
 * The domain credit page: one 64-bit counter of free device credits per
 * pool, each on its own 64-byte line.  DLB 2.0 has a load-balanced and a
 * directed pool; DLB 2.5 one combined pool (index 0).  Producers take
 * credits with atomic compare-and-swap, consumers give back one per QE they
 * dequeue.  The driver sets the counters when the domain is enabled.
 */
#define DLB2_CREDIT_POOL_LDB		0
#define DLB2_CREDIT_POOL_DIR		1
#define DLB2_CREDIT_POOL_STRIDE		64
#define DLB2_CREDIT_POOL_OFFSET(pool)	((pool) * DLB2_CREDIT_POOL_STRIDE)

/* struct dlb2_port_info.flags */
#define DLB2_PORT_LDB			0x1	/* load-balanced (else directed) */
#define DLB2_PORT_INTERRUPT		0x2	/* wait_mode interrupt */

/**
 * struct dlb2_port_info - what DLB2_IOC_PORT_INFO returns
 * @version: DLB2_HW_V2 or DLB2_HW_V2_5
 * @flags: DLB2_PORT_*
 * @domain_id: hardware id of the scheduling domain
 * @port_id: hardware id of the port
 * @dir_queue_id: directed port: hardware id of its queue (the same id)
 * @cq_depth: most QEs the CQ holds before tokens are returned
 * @cq_entries: entries of the ring (max(cq_depth, 8))
 * @cq_stride: bytes from one CQ entry to the next (16, or 64 in sparse mode)
 * @cq_size: bytes of the CQ ring (cq_entries * cq_stride); its mapping is
 *	     that rounded up to whole pages
 * @hist_list: history-list entries (load-balanced ports): QEs dequeued and
 *	       not yet completed, at most
 * @num_pools: credit pools of the domain (2 on DLB 2.0, 1 on DLB 2.5)
 * @reserved: 0
 * @credits: credits the domain owns, per pool
 */
struct dlb2_port_info {
	__u32 version;
	__u32 flags;
	__u32 domain_id;
	__u32 port_id;
	__u32 dir_queue_id;
	__u32 cq_depth;
	__u32 cq_entries;
	__u32 cq_stride;
	__u32 cq_size;
	__u32 hist_list;
	__u32 num_pools;
	__u32 reserved;
	__u64 credits[2];
};

#define DLB2_IOC_MAGIC			0xd2
#define DLB2_IOC_PORT_INFO		_IOR(DLB2_IOC_MAGIC, 0x00, struct dlb2_port_info)
/*
 * A dma-buf of the port's producer-port window (4 KiB), for importers that
 * write device memory (ibv_reg_dmabuf_mr()).  The argument is 0 or
 * O_CLOEXEC; returns the new file descriptor.  Only dynamic peer-to-peer
 * importers may map it (a pin fails with EOPNOTSUPP).  Revoked when the
 * port goes away or its file is released (the last descriptor and mapping
 * closed), like every peer-to-peer holder of the port: importers are told
 * (move_notify), the revocation waits for the fences in the buffer's
 * reservation object, and attaches and maps fail with ENODEV afterwards.
 */
#define DLB2_IOC_EXPORT_DMABUF		_IO(DLB2_IOC_MAGIC, 0x01)

#endif /* _UAPI_LINUX_DLB2_H */
