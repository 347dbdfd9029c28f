// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libdlb2-rdma: credits by remote atomics and enqueue by RDMA WRITE
 * (libdlb2_rdma.h).  Every operation is posted signalled and waited for:
 * the remote side is a control loop, not a data path of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "libdlb2_rdma.h"
#include "pcie_atomics.h"

#define BUF_SIZE	128	/* [0]: atomic result, [8..]: one HCW line */

/* Why the last check of this thread refused its device (dlb2_rc_strerror). */
static __thread char last_refusal[1024];

const char *dlb2_rc_strerror(char *buf, size_t len)
{
	snprintf(buf, len, "%s", last_refusal[0] ? last_refusal : "no error");
	return buf;
}

/* The administrator override in force, if any: its name, for the log. */
static const char *override_name(unsigned int flags)
{
	const char *env = getenv("DLB2_RDMA_ATOMICS_OVERRIDE");

	if (flags & DLB2_RC_ATOMICS_OVERRIDE)
		return "DLB2_RC_ATOMICS_OVERRIDE";
	if (env && !strcmp(env, "1"))
		return "DLB2_RDMA_ATOMICS_OVERRIDE=1";
	return NULL;
}

int dlb2_rc_check_device_flags(struct ibv_context *ctx, unsigned int flags,
			       struct dlb2_pcie_atomics *res)
{
	const char *name = ibv_get_device_name(ctx->device);
	struct dlb2_pcie_atomics local;
	struct ibv_device_attr attr;
	char msg[sizeof(last_refusal)];
	int ret;

	if (!res)
		res = &local;
	last_refusal[0] = '\0';
	ret = ibv_query_device(ctx, &attr);
	if (ret) {
		snprintf(last_refusal, sizeof(last_refusal),
			 "libdlb2_rdma: %s: ibv_query_device: %s", name,
			 strerror(ret));
		return -ret;
	}
	ret = dlb2_rdma_atomics_accept("", name, attr.atomic_cap,
				       override_name(flags), res);
	if (ret)
		snprintf(last_refusal, sizeof(last_refusal),
			 "libdlb2_rdma: refusing %s: its atomics (%s) are not known to be atomic with the CPUs': %s",
			 name, attr.atomic_cap == IBV_ATOMIC_HCA ?
			 "IBV_ATOMIC_HCA" : "IBV_ATOMIC_NONE",
			 dlb2_pcie_atomics_msg(name, res, msg, sizeof(msg)));
	return ret;
}

int dlb2_rc_check_device(struct ibv_context *ctx)
{
	return dlb2_rc_check_device_flags(ctx, 0, NULL);
}

static const char *const mr_path_names[] = {
	[DLB2_MR_AUTO] = "auto",
	[DLB2_MR_DMABUF] = "dmabuf",
	[DLB2_MR_PEERMEM] = "peermem",
};

const char *dlb2_mr_path_name(enum dlb2_mr_path path)
{
	return (unsigned int)path < 3 ? mr_path_names[path] : "?";
}

int dlb2_mr_path_parse(const char *name, enum dlb2_mr_path *path)
{
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (!strcmp(name, mr_path_names[i])) {
			*path = i;
			return 0;
		}
	}
	return -EINVAL;
}

static struct ibv_mr *reg_pp_dmabuf(struct ibv_pd *pd, int port_fd, void *pp,
				    int access)
{
	struct ibv_mr *mr;
	int fd, err;

	fd = ioctl(port_fd, DLB2_IOC_EXPORT_DMABUF, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* The MR holds the dma-buf; the descriptor is not needed after. */
	mr = ibv_reg_dmabuf_mr(pd, 0, DLB2_PP_SIZE, (uintptr_t)pp, fd, access);
	err = errno;
	close(fd);
	errno = err;
	return mr;
}

struct ibv_mr *dlb2_rdma_reg_pp(struct ibv_pd *pd, int port_fd, void *pp,
				int access, enum dlb2_mr_path path,
				enum dlb2_mr_path *used)
{
	struct ibv_mr *mr = NULL;

	switch (path) {
	case DLB2_MR_AUTO:
	case DLB2_MR_DMABUF:
		mr = reg_pp_dmabuf(pd, port_fd, pp, access);
		if (mr || path == DLB2_MR_DMABUF) {
			path = DLB2_MR_DMABUF;
			break;
		}
		/* No dma-buf MRs here: try peer memory. */
		if (errno != EOPNOTSUPP && errno != EPROTONOSUPPORT &&
		    errno != ENOSYS)
			return NULL;
		/* fall through */
	case DLB2_MR_PEERMEM:
		mr = ibv_reg_mr(pd, pp, DLB2_PP_SIZE, access);
		path = DLB2_MR_PEERMEM;
		break;
	default:
		errno = EINVAL;
		return NULL;
	}
	if (mr && used)
		*used = path;
	return mr;
}

int dlb2_rc_init(struct dlb2_rc *rc, struct ibv_pd *pd, struct ibv_qp *qp,
		 struct ibv_cq *cq, unsigned int flags)
{
	int ret;

	ret = dlb2_rc_check_device_flags(pd->context, flags, NULL);
	if (ret == -EOPNOTSUPP && (flags & DLB2_RC_FORCE))
		ret = 0;
	if (ret)
		return ret;
	rc->qp = qp;
	rc->cq = cq;
	if (posix_memalign((void **)&rc->buf, 64, BUF_SIZE))
		return -ENOMEM;
	memset(rc->buf, 0, BUF_SIZE);
	rc->mr = ibv_reg_mr(pd, rc->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	if (!rc->mr) {
		ret = -errno;
		free(rc->buf);
		return ret;
	}
	return 0;
}

void dlb2_rc_fini(struct dlb2_rc *rc)
{
	if (rc->mr)
		ibv_dereg_mr(rc->mr);
	free(rc->buf);
	rc->mr = NULL;
	rc->buf = NULL;
}

/* Post one work request and wait for its completion. */
static int post_wait(struct dlb2_rc *rc, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int n;

	wr->send_flags |= IBV_SEND_SIGNALED;
	n = ibv_post_send(rc->qp, wr, &bad);
	if (n) {
		if (getenv("DLB2_RC_DEBUG"))
			fprintf(stderr, "libdlb2_rdma: posting opcode %d: %s\n",
				wr->opcode, strerror(n));
		return -EIO;
	}
	do {
		n = ibv_poll_cq(rc->cq, 1, &wc);
	} while (n == 0);
	if (n < 0)
		return -EIO;
	if (wc.status == IBV_WC_REM_ACCESS_ERR)
		return -EACCES;
	if (wc.status != IBV_WC_SUCCESS && getenv("DLB2_RC_DEBUG"))
		fprintf(stderr, "libdlb2_rdma: opcode %d: %s (vendor error %#x)\n",
			wr->opcode, ibv_wc_status_str(wc.status), wc.vendor_err);
	return wc.status == IBV_WC_SUCCESS ? 0 : -EIO;
}

static int atomic_op(struct dlb2_rc *rc, enum ibv_wr_opcode op,
		     uint64_t compare_add, uint64_t swap, uint64_t *old)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rc->buf, .length = 8, .lkey = rc->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.wr.atomic = {
			.remote_addr = rc->credit_addr, .rkey = rc->credit_rkey,
			.compare_add = compare_add, .swap = swap,
		},
	};
	int ret = post_wait(rc, &wr);

	if (!ret)
		*old = __atomic_load_n(rc->buf, __ATOMIC_ACQUIRE);
	return ret;
}

static int read_word(struct dlb2_rc *rc, uint64_t *val)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rc->buf, .length = 8, .lkey = rc->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
		.wr.rdma = { .remote_addr = rc->credit_addr,
			     .rkey = rc->credit_rkey },
	};
	int ret = post_wait(rc, &wr);

	if (!ret)
		*val = __atomic_load_n(rc->buf, __ATOMIC_ACQUIRE);
	return ret;
}

int dlb2_rc_take(struct dlb2_rc *rc, uint64_t n)
{
	uint64_t seen, old;
	int ret, tries;

	ret = read_word(rc, &seen);
	for (tries = 0; !ret && tries < 64; tries++) {
		if (seen < n)
			return 0;
		ret = atomic_op(rc, IBV_WR_ATOMIC_CMP_AND_SWP, seen, seen - n,
				&old);
		if (!ret && old == seen)
			return (int)n;
		seen = old;	/* lost a race: CAS returned the current value */
	}
	return ret ? ret : 0;
}

int dlb2_rc_give(struct dlb2_rc *rc, uint64_t n)
{
	uint64_t old;

	return atomic_op(rc, IBV_WR_ATOMIC_FETCH_AND_ADD, n, 0, &old);
}

int dlb2_rc_enqueue(struct dlb2_rc *rc, const struct dlb2_hcw *hcw,
		    unsigned int n)
{
	uint8_t *line = (uint8_t *)rc->buf + 64;
	struct ibv_sge sge = {
		.addr = (uintptr_t)line, .length = 64, .lkey = rc->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = rc->pp_addr, .rkey = rc->pp_rkey },
	};

	if (!n || n > 4)
		return -EINVAL;
	/* Unused slots are NOOPs (all zero). */
	memset(line, 0, 64);
	memcpy(line, hcw, n * sizeof(*hcw));
	return post_wait(rc, &wr);
}

/* ---- the conserved-credit race ------------------------------------------ */

unsigned long dlb2_credit_cpu_churn(uint64_t *word, unsigned long ops,
				    const volatile int *stop,
				    unsigned long *taken)
{
	unsigned long i, t = 0;
	uint64_t v;

	if (!ops && !stop)
		return 0;
	for (i = 0; ops ? i < ops : !*stop; i++) {
		v = __atomic_load_n(word, __ATOMIC_RELAXED);
		if (v && __atomic_compare_exchange_n(word, &v, v - 1, false,
						     __ATOMIC_ACQ_REL,
						     __ATOMIC_RELAXED)) {
			__atomic_fetch_add(word, 1, __ATOMIC_ACQ_REL);
			t++;
		}
	}
	if (taken)
		__atomic_fetch_add(taken, t, __ATOMIC_RELAXED);
	return i;
}

long dlb2_rc_churn(struct dlb2_rc *rc, unsigned long ops,
		   const volatile int *stop, unsigned long *taken)
{
	unsigned long i, t = 0;
	int ret;

	if (!ops && !stop)
		return 0;
	for (i = 0; ops ? i < ops : !*stop; i++) {
		ret = dlb2_rc_take(rc, 1);
		if (ret < 0)
			return ret;
		if (ret) {
			ret = dlb2_rc_give(rc, 1);
			if (ret)
				return ret;
			t++;
		}
	}
	if (taken)
		*taken += t;
	return (long)i;
}

static double race_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct race_cpu {
	uint64_t *word;
	unsigned long ops, pairs, taken;
	const volatile int *stop;
	const volatile int *go;
};

static void *race_cpu(void *p)
{
	struct race_cpu *c = p;

	while (!__atomic_load_n(c->go, __ATOMIC_ACQUIRE))
		;
	c->pairs = dlb2_credit_cpu_churn(c->word, c->ops, c->stop, &c->taken);
	return NULL;
}

int dlb2_credit_race(struct dlb2_rc *rc, uint64_t *word,
		     struct dlb2_credit_race *r)
{
	struct race_cpu cpu[64];
	pthread_t t[64];
	volatile int stop = 0, go = 0;
	unsigned long ops = r->seconds > 0 ? 0 : r->ops;
	unsigned int i, n;
	long done = 0;
	double t0, end;
	int ret = 0;

	if (!r->cpu_threads || r->cpu_threads > 64 || (!ops && r->seconds <= 0))
		return -EINVAL;
	r->cpu_pairs = r->cpu_taken = r->rc_pairs = r->rc_taken = 0;
	r->before = __atomic_load_n(word, __ATOMIC_ACQUIRE);
	for (n = 0; n < r->cpu_threads; n++) {
		cpu[n] = (struct race_cpu){ .word = word, .ops = ops,
					    .stop = &stop, .go = &go };
		if (pthread_create(&t[n], NULL, race_cpu, &cpu[n])) {
			ret = -EAGAIN;
			break;
		}
	}
	t0 = race_now();
	end = t0 + r->seconds;
	__atomic_store_n(&go, n == r->cpu_threads, __ATOMIC_RELEASE);
	if (!ret) {
		if (ops) {
			done = dlb2_rc_churn(rc, ops, NULL, &r->rc_taken);
		} else {
			/* in slices, to look at the clock */
			while (done >= 0 && race_now() < end) {
				long k = dlb2_rc_churn(rc, 1024, NULL,
						       &r->rc_taken);

				done = k < 0 ? k : done + k;
			}
		}
		if (done < 0)
			ret = (int)done;
		else
			r->rc_pairs = done;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		r->cpu_pairs += cpu[i].pairs;
		r->cpu_taken += cpu[i].taken;
	}
	r->elapsed = race_now() - t0;
	r->after = __atomic_load_n(word, __ATOMIC_ACQUIRE);
	r->lost = r->after > r->before ? r->after - r->before :
					 r->before - r->after;
	return ret;
}
