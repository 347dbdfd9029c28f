/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libdlb2-rdma: the remote side of AccDirect.  A process on another host
 * (or a SmartNIC's cores) shares a DLB domain's credit pool and enqueues
 * into a producer port, all by one-sided RDMA to memory regions the server
 * registered: the credit word of the domain credit page (remote atomics) and
 * the producer-port window (RDMA WRITE, through peermem_dlb or a dma-buf).
 *
 * Credits: the remote side reads the credit word, then takes n with a
 * compare-and-swap (old, old - n), never below zero; it gives credits back
 * with fetch-and-add.  Host CPUs use lock cmpxchg / lock xadd on the same
 * word (libdlb2.h), so the NIC's atomics must be atomic with respect to the
 * CPU.  dlb2_rc_init() accepts a device that reports IBV_ATOMIC_GLOB; one
 * that reports IBV_ATOMIC_HCA (mlx5) only when its PCIe path is verified
 * for AtomicOps (pcie_atomics.h: the NIC requests them, the switches route
 * them, the root port completes them) or an administrator overrides the
 * check (DLB2_RDMA_ATOMICS_OVERRIDE=1 or DLB2_RC_ATOMICS_OVERRIDE, logged
 * on stderr every time); never IBV_ATOMIC_NONE.  dlb2_credit_race() is the
 * qualification: CPUs and the device taking and giving credits together.
 *
 * Link with libdlb2_rdma.a -libverbs -pthread; installed: #include
 * <dlb2/libdlb2_rdma.h>, pkg-config libdlb2_rdma.
 */
#ifndef LIBDLB2_RDMA_H
#define LIBDLB2_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "dlb2_user.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct dlb2_rc - a connected queue pair to a DLB server
 * @qp: reliable-connected queue pair, connected
 * @cq: its send completion queue
 * @mr: registration of @buf
 * @buf: staging memory: atomics' results and HCW lines
 * @credit_addr, @credit_rkey: the remote credit word
 * @pp_addr, @pp_rkey: the remote producer-port window
 */
struct dlb2_rc {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint64_t *buf;
	uint64_t credit_addr;
	uint32_t credit_rkey;
	uint64_t pp_addr;
	uint32_t pp_rkey;
};

/*
 * The server side: registering a producer-port window for RDMA WRITE.
 *
 * Two kernel interfaces can do it.  Upstream kernels register device
 * memory from a dma-buf: the port's (DLB2_IOC_EXPORT_DMABUF) given to
 * ibv_reg_dmabuf_mr(), for RDMA drivers that take dma-buf MRs (mlx5; rxe
 * with patch 5 of patches/linux).  Kernels with the peer-memory interface
 * (MLNX_OFED, Ubuntu, patches/linux 1-2) take ibv_reg_mr() on the window's
 * mapping through peermem_dlb.  Either way the MR's address is the
 * mapping's, so the peer writes the same addresses.
 */
enum dlb2_mr_path {
	DLB2_MR_AUTO,		/* dma-buf, else peer memory */
	DLB2_MR_DMABUF,		/* ibv_reg_dmabuf_mr() on the port's dma-buf */
	DLB2_MR_PEERMEM,	/* ibv_reg_mr() on the mapping (peermem_dlb) */
};

/*
 * Register the producer-port window of the port open as @port_fd and
 * mapped at @pp (DLB2_PP_SIZE bytes, DLB2_MMAP_PP_OFFSET) in @pd with
 * IBV_ACCESS_* @access, through @path.  DLB2_MR_AUTO tries dma-buf and
 * falls back to peer memory when the kernel or the RDMA driver has no
 * dma-buf MRs (EOPNOTSUPP, EPROTONOSUPPORT, ENOSYS).  *@used (may be NULL)
 * is set to the path taken.  Returns the MR, or NULL with errno set (with
 * DLB2_MR_AUTO after a fallback, the peer-memory attempt's).
 */
struct ibv_mr *dlb2_rdma_reg_pp(struct ibv_pd *pd, int port_fd, void *pp,
				int access, enum dlb2_mr_path path,
				enum dlb2_mr_path *used);
/* "auto", "dmabuf", "peermem" */
const char *dlb2_mr_path_name(enum dlb2_mr_path path);
/* The reverse: 0, or -EINVAL for another string. */
int dlb2_mr_path_parse(const char *name, enum dlb2_mr_path *path);

/* dlb2_rc_init() flags */
#define DLB2_RC_FORCE	0x1	/* run with any atomics, silently (tests only) */
/*
 * Administrator override: accept IBV_ATOMIC_HCA whose PCIe path could not
 * be verified (logged on stderr, every time).  The environment variable
 * DLB2_RDMA_ATOMICS_OVERRIDE=1 does the same for every caller.
 */
#define DLB2_RC_ATOMICS_OVERRIDE 0x2

struct dlb2_pcie_atomics;	/* pcie_atomics.h */

/*
 * Can the device share a credit pool with CPUs?  0 when its atomics are
 * global (IBV_ATOMIC_GLOB, or IBV_ATOMIC_HCA with a verified PCIe path or an
 * override), -EOPNOTSUPP when not, or -errno.  dlb2_rc_strerror() then
 * says why: the check that failed and the fix.  With @res (may be NULL)
 * the check's details: the path, hop by hop.
 */
int dlb2_rc_check_device(struct ibv_context *ctx);
int dlb2_rc_check_device_flags(struct ibv_context *ctx, unsigned int flags,
			       struct dlb2_pcie_atomics *res);
/*
 * Why this thread's last check refused its device, one line: "libdlb2_rdma:
 * refusing mlx5_0: its atomics (IBV_ATOMIC_HCA) are not known to be atomic
 * with the CPUs': mlx5_0: requester-enable check failed: ... Fix: ...".
 */
const char *dlb2_rc_strerror(char *buf, size_t len);

/*
 * Set up @rc for @qp/@cq (protection domain @pd).  Returns 0, -EOPNOTSUPP
 * when dlb2_rc_check_device_flags() refuses the device and DLB2_RC_FORCE is
 * not given, or -errno.
 */
int dlb2_rc_init(struct dlb2_rc *rc, struct ibv_pd *pd, struct ibv_qp *qp,
		 struct ibv_cq *cq, unsigned int flags);
void dlb2_rc_fini(struct dlb2_rc *rc);

/* Take @n credits: @n on success, 0 when the pool has fewer, -errno. */
int dlb2_rc_take(struct dlb2_rc *rc, uint64_t n);
/* Give @n credits back: 0 or -errno. */
int dlb2_rc_give(struct dlb2_rc *rc, uint64_t n);
/* RDMA-WRITE @n (1..4) HCWs as one line into the producer port. */
int dlb2_rc_enqueue(struct dlb2_rc *rc, const struct dlb2_hcw *hcw,
		    unsigned int n);

/*
 * The conserved-credit race.  Each side takes one credit from the word when
 * there is one and gives it back, again and again: CPU threads with lock
 * cmpxchg / lock xadd, the device with dlb2_rc_take() / dlb2_rc_give().
 * Every pair leaves the word as it was, so a word that ends different from
 * where it started lost updates: the device's atomics are not atomic with
 * the CPUs'.
 */
/* A CPU side: @ops take/give pairs on @word (0: until *@stop); the pairs
 * that took a credit are added to *@taken; returns the pairs done. */
unsigned long dlb2_credit_cpu_churn(uint64_t *word, unsigned long ops,
				    const volatile int *stop,
				    unsigned long *taken);
/* The device's side: the same with @rc's credit word; -errno on an error. */
long dlb2_rc_churn(struct dlb2_rc *rc, unsigned long ops,
		   const volatile int *stop, unsigned long *taken);

/**
 * struct dlb2_credit_race - dlb2_credit_race() parameters and results
 * @cpu_threads: CPU threads (1..64)
 * @ops: take/give pairs of each side (each CPU thread, and the device)
 * @seconds: instead, run this long (when > 0; @ops is then ignored)
 * @before, @after: the credit word at the start and at the end
 * @cpu_pairs, @cpu_taken: pairs done by all CPU threads, of which took one
 * @rc_pairs, @rc_taken: the same for the device
 * @lost: |@after - @before|: updates lost (at least; a lost take and a lost
 *	  give cancel out)
 * @elapsed: seconds
 */
struct dlb2_credit_race {
	unsigned int cpu_threads;
	unsigned long ops;
	double seconds;
	uint64_t before, after;
	unsigned long cpu_pairs, cpu_taken, rc_pairs, rc_taken;
	uint64_t lost;
	double elapsed;
};

/*
 * Race @r->cpu_threads CPU threads on @word (in this process) against
 * @rc's device on the same word (@rc's credit address and rkey must name
 * @word, e.g. through a loop-back queue pair).  0 (see @r->lost) or -errno.
 */
int dlb2_credit_race(struct dlb2_rc *rc, uint64_t *word,
		     struct dlb2_credit_race *r);

#ifdef __cplusplus
}
#endif

#endif /* LIBDLB2_RDMA_H */
