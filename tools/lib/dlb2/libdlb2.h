/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libdlb2: user-space library of the AccDirect DLB 2.0/2.5 driver.
 *
 *  - setup: configfs (/sys/kernel/config/dlb2) from C, or from a JSON file;
 *  - ports: open /dev/dlb2/<N>/<domain>/<port>, map PP, CQ and credit page;
 *  - data path (libdlb2_dp.h, inline): enqueue and dequeue bursts, tokens,
 *    completions, credits; blocking wait;
 *  - an in-memory port for tests and benchmarks without a device.
 *
 * Functions return a count or 0 on success, -errno on failure.  Setup
 * functions also record what failed (dlb2_last_error()).  A port is used by
 * one thread at a time; ports of a domain share its credit page safely.
 *
 * Installed: #include <dlb2/libdlb2.h>, link -ldlb2 (pkg-config libdlb2).
 * In the source tree: -I<repo>/tools/lib/dlb2, link libdlb2.a or libdlb2.so.
 * The port devices' interface (include/uapi/linux/dlb2.h) comes with it as
 * "dlb2_user.h", beside this header.
 */
#ifndef LIBDLB2_H
#define LIBDLB2_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dlb2_user.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DLB2_NAME_MAX		32	/* domain, queue, port names */
/*
 * Size of struct dlb2_error's path: Linux's PATH_MAX, which <limits.h>
 * defines only for POSIX (not for strict ISO C).
 */
#define DLB2_PATH_MAX		4096
#define DLB2_MAX_LINKS		8	/* queues a load-balanced port links */
#define DLB2_UNSET		(-1)	/* attribute left at the driver default */
#define DLB2_COS_ANY		(-2)	/* port cos "any" */

/* ---------------------------------------------------------------- errors */

/**
 * struct dlb2_error - what the last failing setup call of this thread did
 * @err: negative errno
 * @op: what was attempted ("mkdir", "write", "read", "rmdir", "open", ...)
 * @path: the configfs or device path it failed on
 * @value: the value being written, if any
 * @status: the domain's configfs "status" text at the time of the error
 *	    (empty when it could not be read)
 */
struct dlb2_error {
	int err;
	char op[16];
	char path[DLB2_PATH_MAX];
	char value[64];
	char status[256];
};

const struct dlb2_error *dlb2_last_error(void);
/* One line: "write /sys/.../enable = 1: Invalid argument (status: ...)". */
const char *dlb2_strerror(char *buf, size_t len);

/* Roots, for tests or unusual mounts; NULL restores the default. */
void dlb2_set_configfs_root(const char *dir);	/* /sys/kernel/config/dlb2 */
void dlb2_set_dev_root(const char *dir);	/* /dev/dlb2 */
const char *dlb2_configfs_root(void);

/* ----------------------------------------------------- configfs set-up */

enum dlb2_type { DLB2_LDB, DLB2_DIR };
enum dlb2_qsched { DLB2_QATOMIC, DLB2_QORDERED, DLB2_QUNORDERED };
enum dlb2_wait_mode { DLB2_WAIT_POLL, DLB2_WAIT_INTERRUPT };

/* Every field DLB2_UNSET (use DLB2_QUEUE_ATTR_INIT) is left alone. */
struct dlb2_queue_attr {
	int type;			/* enum dlb2_type */
	int sched;			/* enum dlb2_qsched, ldb only */
	int depth_threshold;
	int sequence_numbers;
	int atomic_inflights;
	int lock_id_compression;
};

struct dlb2_port_attr {
	int type;			/* enum dlb2_type */
	int cq_depth;
	int history_list;		/* ldb only */
	int wait_mode;			/* enum dlb2_wait_mode */
	int cos;			/* 0..3 or DLB2_COS_ANY, ldb only */
};

#define DLB2_QUEUE_ATTR_INIT { DLB2_UNSET, DLB2_UNSET, DLB2_UNSET, \
			       DLB2_UNSET, DLB2_UNSET, DLB2_UNSET }
#define DLB2_PORT_ATTR_INIT { DLB2_UNSET, DLB2_UNSET, DLB2_UNSET, \
			      DLB2_UNSET, DLB2_UNSET }

int dlb2_domain_create(int dev, const char *domain);
/* ldb or dir < 0: not written.  On DLB 2.5 the pool is ldb + dir. */
int dlb2_domain_set_credits(int dev, const char *domain, int ldb, int dir);
int dlb2_queue_add(int dev, const char *domain, const char *queue,
		   const struct dlb2_queue_attr *attr);
int dlb2_port_add(int dev, const char *domain, const char *port,
		  const struct dlb2_port_attr *attr);
/* priority < 0: left at the default (0). */
int dlb2_link_add(int dev, const char *domain, const char *port,
		  const char *queue, int priority);
int dlb2_link_del(int dev, const char *domain, const char *port,
		  const char *queue);
/* On failure the reason is in dlb2_last_error()->status. */
int dlb2_domain_enable(int dev, const char *domain);
int dlb2_domain_disable(int dev, const char *domain);
int dlb2_domain_status(int dev, const char *domain, char *buf, size_t len);
/* Hardware ids: *id = -1 while the domain is disabled. */
int dlb2_domain_id(int dev, const char *domain, int *id);
int dlb2_queue_id(int dev, const char *domain, const char *queue, int *id);
int dlb2_port_id(int dev, const char *domain, const char *port, int *id);
/* Disable, then rmdir links, ports, queues and the domain.  -ENOENT if none. */
int dlb2_domain_destroy(int dev, const char *domain);
/* Read a configfs or sysfs attribute into @buf without the trailing
 * newline: 0 or -errno. */
int dlb2_read_attr(const char *path, char *buf, size_t len);
/* Valid configfs name: 1..32 characters of [A-Za-z0-9_.-]. */
bool dlb2_name_valid(const char *name);

/* ------------------------------------------------- JSON configuration */

struct dlb2_link_spec {
	char queue[DLB2_NAME_MAX + 1];
	int priority;			/* DLB2_UNSET: default */
};

struct dlb2_queue_spec {
	char name[DLB2_NAME_MAX + 1];
	struct dlb2_queue_attr attr;
};

struct dlb2_port_spec {
	char name[DLB2_NAME_MAX + 1];
	struct dlb2_port_attr attr;
	int nlinks;
	struct dlb2_link_spec links[DLB2_MAX_LINKS];
};

struct dlb2_domain_spec {
	char name[DLB2_NAME_MAX + 1];
	int device;
	int ldb_credits;		/* DLB2_UNSET: default */
	int dir_credits;
	bool enable;
	int nqueues, nports;
	struct dlb2_queue_spec *queues;
	struct dlb2_port_spec *ports;
};

struct dlb2_spec {
	int ndomains;
	struct dlb2_domain_spec *domains;
};

/*
 * Parse a configuration (schema in README.md).  @name labels messages
 * ("file:line:col: domains[0].ports[1].cq_depth: ...").  On error returns
 * -EINVAL (-ENOMEM, or -errno of reading the file) with a message in @err.
 */
int dlb2_spec_parse(const char *text, size_t len, const char *name,
		    struct dlb2_spec **spec, char *err, size_t errlen);
int dlb2_spec_load(const char *path, struct dlb2_spec **spec,
		   char *err, size_t errlen);
void dlb2_spec_free(struct dlb2_spec *spec);

/*
 * Create every domain of @spec and enable those marked so.  All or nothing:
 * on failure, domains this call created are destroyed again, and the error
 * (with the domain status captured before the rollback) is in
 * dlb2_last_error().
 */
int dlb2_spec_apply(const struct dlb2_spec *spec);

/* ---------------------------------------------------------------- ports */

/* How HCWs reach the PP. */
enum dlb2_pp_mode {
	DLB2_PP_MOVDIR64B,	/* 64-byte direct stores, 4 HCWs each */
	DLB2_PP_SSE,		/* 16-byte non-temporal stores + sfence */
	DLB2_PP_CAPTURE,	/* in-memory port: HCWs appended to a log */
};

/* struct dlb2_port_opts.flags */
#define DLB2_OPEN_DEFER_POP	0x1	/* return tokens at the next dequeue or wait */
#define DLB2_OPEN_FORCE_SSE	0x2	/* never use MOVDIR64B */

struct dlb2_port_opts {
	unsigned int flags;
	unsigned int quanta;		/* credits taken per refill; 0: 32 */
	unsigned int idle_flush;	/* empty dequeues in a row before the
					 * cached credits go back; 0: 1024
					 */
};

struct dlb2_mem;

/**
 * struct dlb2_port - an open port.  Fields are read by the inline data
 * path (libdlb2_dp.h); treat them as read-only.
 */
struct dlb2_port {
	/* data path */
	uint8_t *pp;			/* PP window */
	const uint8_t *cq;		/* CQ ring */
	uint32_t cq_idx;		/* next entry, unmasked, 16-byte units */
	uint32_t cq_mask;		/* ring size in 16-byte units - 1 */
	uint32_t cq_shift;		/* log2(ring size in 16-byte units) */
	uint32_t cq_step;		/* 16-byte units per entry: 1 or 4 */
	uint32_t tokens;		/* dequeued, tokens not yet returned */
	uint32_t comps;			/* ldb: dequeued, not yet completed */
	uint32_t pp_mode;		/* enum dlb2_pp_mode */
	uint32_t flags;			/* DLB2_OPEN_* */
	bool ldb;			/* load-balanced port */
	uint8_t deny;			/* DLB2_C_LDB on directed ports */
	uint8_t dir_pool;		/* pool of directed queues: 1 (2.0), 0 */
	uint8_t deq_pool;		/* pool the dequeued QEs refill */
	uint32_t quanta;
	uint32_t idle;			/* consecutive empty dequeues */
	uint32_t idle_flush;
	uint64_t cache[2];		/* cached credits, per pool */
	uint64_t *pool[2];		/* the domain's counters */

	/* the rest */
	struct dlb2_port_info info;
	int fd;				/* -1 for an in-memory port */
	void *pp_map, *cq_map, *credit_map;
	struct dlb2_mem *mem;
};

/* Open /dev/dlb2/<dev>/<domain>/<port> (or a path).  opts may be NULL. */
int dlb2_port_open(int dev, const char *domain, const char *port,
		   const struct dlb2_port_opts *opts, struct dlb2_port **p);
int dlb2_port_open_path(const char *path, const struct dlb2_port_opts *opts,
			struct dlb2_port **p);
/* Return tokens and cached credits, unmap, close.  NULL is ignored. */
void dlb2_port_close(struct dlb2_port *p);
/* Change how HCWs are written (e.g. DLB2_PP_SSE for valgrind). */
int dlb2_port_set_pp_mode(struct dlb2_port *p, enum dlb2_pp_mode mode);
/* Whether this CPU has MOVDIR64B (CPUID.(7,0):ECX[28]). */
bool dlb2_cpu_has_movdir64b(void);

/*
 * Wait until the CQ holds a QE, at most timeout_ms (< 0: forever).  Returns
 * deferred tokens first (an armed CQ fires while tokens are outstanding),
 * arms the CQ interrupt, checks the CQ again, then sleeps in poll().
 * Returns 1 when a QE is there, 0 on timeout, -errno (-EOPNOTSUPP unless
 * the port's wait_mode is "interrupt").
 */
int dlb2_wait(struct dlb2_port *p, int timeout_ms);

/* Give every cached credit back to the domain pool. */
void dlb2_credits_flush(struct dlb2_port *p);
/* Data-path slow paths (libdlb2_dp.h calls them). */
uint64_t dlb2_credits_refill(struct dlb2_port *p, unsigned int pool);
void dlb2_credits_put(struct dlb2_port *p, unsigned int pool, uint64_t n);
void dlb2_mem_pp_write(struct dlb2_port *p, const struct dlb2_hcw *hcw,
		       unsigned int n);

/* ------------------------------------------------- in-memory port */

/**
 * struct dlb2_mem_cfg - an in-memory port: the PP is an ordinary buffer (or,
 * in DLB2_PP_CAPTURE mode, a log of the HCWs written), the CQ an ordinary
 * ring that the caller fills with dlb2_mem_cq_push() as the device would.
 * @version: DLB2_HW_V2 or DLB2_HW_V2_5
 * @ldb: load-balanced port
 * @cq_depth: 1..1024, power of two
 * @cq_stride: 16 or 64
 * @hist_list: ldb: 0 for 2 * cq_depth
 * @credits: initial pool counters (pool 1 ignored on 2.5)
 * @credit_page: share this page (4096 bytes, 64-byte aligned) between
 *		 ports instead of allocating one (@credits then unused)
 * @capture: HCWs the log holds (DLB2_PP_CAPTURE mode); 0: write to a plain
 *	     PP buffer in the CPU's mode, as on a device
 */
struct dlb2_mem_cfg {
	uint32_t version;
	bool ldb;
	uint32_t cq_depth;
	uint32_t cq_stride;
	uint32_t hist_list;
	uint64_t credits[2];
	void *credit_page;
	uint32_t capture;
};

/*
 * What the in-memory "device" saw.  It checks the rules a DLB enforces and
 * counts violations in @alarms (the library must never cause one):
 * tokens returned beyond those outstanding, completions beyond those
 * outstanding or from a directed port, enqueues without a hardware credit
 * (the device's credit pool, modelled: NEW/FWD/FRAG take one, each QE
 * pushed to the CQ gives one back), and undefined commands.
 */
struct dlb2_mem_state {
	uint64_t hcws;			/* HCWs received, NOOPs excluded */
	uint64_t enqueued;		/* NEW/FWD/FRAG */
	uint64_t comps;			/* completions */
	uint64_t tokens_returned;
	uint64_t arms;
	uint64_t alarms;
	uint32_t tokens_out;		/* QEs in the CQ, tokens not returned */
	uint32_t comps_out;		/* ldb: scheduled, not completed */
	int64_t hw_credits[2];		/* the modelled device pools */
};

int dlb2_port_open_mem(const struct dlb2_mem_cfg *cfg,
		       const struct dlb2_port_opts *opts, struct dlb2_port **p);
/*
 * As the device: write @e (gen bit set by the ring) if a token is free;
 * -ENOSPC when cq_depth tokens are outstanding.
 */
int dlb2_mem_cq_push(struct dlb2_port *p, const struct dlb2_cq_entry *e);
/* Captured HCWs (capture mode): *n of them; dlb2_mem_clear() empties. */
const struct dlb2_hcw *dlb2_mem_hcws(struct dlb2_port *p, unsigned int *n);
void dlb2_mem_clear(struct dlb2_port *p);
const struct dlb2_mem_state *dlb2_mem_state(struct dlb2_port *p);

#ifdef __cplusplus
}
#endif

#include "libdlb2_dp.h"

#endif /* LIBDLB2_H */
