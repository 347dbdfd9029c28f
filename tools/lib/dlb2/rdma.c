// SPDX-License-Identifier: GPL-2.0
/*
 * libdlb2-rdma: credits by remote atomics and enqueue by RDMA WRITE
 * (libdlb2_rdma.h).  Every operation is posted signalled and waited for:
 * the remote side is a control loop, not a data path of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

