// SPDX-License-Identifier: GPL-2.0
/*
 * accdirect-qualify: does an RDMA device's atomics conserve a credit word
 * that the CPUs update at the same time?  The step before production for
 * a device that libdlb2_rdma accepts on its PCIe path, or that an
 * administrator overrides it for.
 *
 * It prints the device's atomic_cap, libdlb2_rdma's PCIe path check (hop
 * by hop) and its decision, then runs the conserved-credit race of
 * libdlb2_rdma (dlb2_credit_race()): CPU threads take and give credits on
 * a word in registered memory with lock cmpxchg / lock xadd while the
 * device does the same with RDMA READ + compare-and-swap / fetch-and-add
 * over a loop-back RC queue pair, so that the device is the responder that
 * executes the atomics against this host's memory.  Exit status 0 only
 * when no update was lost.  See README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libdlb2_rdma.h"
#include "pcie_atomics.h"
#include "version.h"

enum { EXIT_LOST = 1, EXIT_USAGE = 2, EXIT_SETUP = 3 };

static void usage(FILE *f, int status)
{
	fprintf(f,
		"Usage: accdirect-qualify [-t THREADS] [-n PAIRS | -s SECONDS] [-c CREDITS]\n"
		"                         [-p PORT] [-g GID_INDEX] [--dry-run] RDMA_DEVICE\n"
		"       accdirect-qualify -h | --help\n"
		"       accdirect-qualify --version\n"
		"Races THREADS CPU threads (default 2) against RDMA_DEVICE (loop-back RC\n"
		"queue pair on PORT, default 1) on one credit word of CREDITS (default 64):\n"
		"each side takes a credit and gives it back, PAIRS times (default 1000000)\n"
		"or for SECONDS.  Prints the PCIe path check, the start and end values,\n"
		"the operation counts and \"lost updates: K\"; exit status 0 only if K is 0.\n"
		"--dry-run prints the plan and opens nothing.\n");
	exit(status);
}

static const char *cap_name(int cap)
{
	switch (cap) {
	case IBV_ATOMIC_GLOB: return "IBV_ATOMIC_GLOB";
	case IBV_ATOMIC_HCA: return "IBV_ATOMIC_HCA";
	default: return "IBV_ATOMIC_NONE";
	}
}

static void print_path(const struct dlb2_pcie_atomics *res)
{
	int i;

	for (i = 0; i < res->nhops; i++) {
		const struct dlb2_pcie_hop *h = &res->hop[i];

		if (!h->read) {
			printf("  %s: not read\n", h->bdf);
			continue;
		}
		printf("  %s: %s, DevCap2 %#010x (route %c, complete 32 %c 64 %c 128 %c), DevCtl2 %#06x (requester %c, egress blocking %c)\n",
		       h->bdf, dlb2_pcie_type_name(h->type), h->devcap2,
		       h->devcap2 & DLB2_DEVCAP2_ATOMIC_ROUTE ? '+' : '-',
		       h->devcap2 & DLB2_DEVCAP2_ATOMIC_COMP32 ? '+' : '-',
		       h->devcap2 & DLB2_DEVCAP2_ATOMIC_COMP64 ? '+' : '-',
		       h->devcap2 & DLB2_DEVCAP2_ATOMIC_COMP128 ? '+' : '-',
		       h->devctl2,
		       h->devctl2 & DLB2_DEVCTL2_ATOMIC_REQ ? '+' : '-',
		       h->devctl2 & DLB2_DEVCTL2_ATOMIC_EGRESS_BLOCK ? '+' : '-');
	}
}

/* A GID to address ourselves with: RoCE v2 first, else any non-zero one. */
static int pick_gid(struct ibv_context *ctx, uint8_t port, int len)
{
	struct ibv_gid_entry e;
	int i, any = -1;

	for (i = 0; i < len; i++) {
		if (ibv_query_gid_ex(ctx, port, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2)
			return i;
		if (any < 0)
			any = i;
	}
	return any;
}

/* Connect @a and @b to each other on @port (loop-back). */
static int connect_pair(struct ibv_context *ctx, struct ibv_qp *a,
			struct ibv_qp *b, uint8_t port, int gid_index,
			int rd_atom)
{
	struct ibv_port_attr pa;
	struct ibv_qp *qp[2] = { a, b };
	union ibv_gid gid;
	int i;

	if (ibv_query_port(ctx, port, &pa))
		return -errno;
	if (pa.state != IBV_PORT_ACTIVE)
		return -ENETDOWN;
	if (pa.link_layer == IBV_LINK_LAYER_ETHERNET || gid_index >= 0) {
		if (gid_index < 0)
			gid_index = pick_gid(ctx, port, pa.gid_tbl_len);
		if (gid_index < 0 || ibv_query_gid(ctx, port, gid_index, &gid))
			return -EADDRNOTAVAIL;
	}
	for (i = 0; i < 2; i++) {
		struct ibv_qp_attr init = {
			.qp_state = IBV_QPS_INIT, .port_num = port,
			.qp_access_flags = IBV_ACCESS_REMOTE_READ |
					   IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_ATOMIC,
		};
		struct ibv_qp_attr rtr = {
			.qp_state = IBV_QPS_RTR, .path_mtu = pa.active_mtu,
			.dest_qp_num = qp[!i]->qp_num, .rq_psn = 0,
			.max_dest_rd_atomic = rd_atom, .min_rnr_timer = 12,
			.ah_attr = { .dlid = pa.lid, .port_num = port },
		};
		struct ibv_qp_attr rts = {
			.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7,
			.rnr_retry = 7, .sq_psn = 0, .max_rd_atomic = rd_atom,
		};

		if (gid_index >= 0) {
			rtr.ah_attr.is_global = 1;
			rtr.ah_attr.grh.dgid = gid;
			rtr.ah_attr.grh.sgid_index = gid_index;
			rtr.ah_attr.grh.hop_limit = 1;
		}
		if (ibv_modify_qp(qp[i], &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) ||
		    ibv_modify_qp(qp[i], &rtr, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER) ||
		    ibv_modify_qp(qp[i], &rts, IBV_QP_STATE | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
			return -errno ?: -EIO;
	}
	return 0;
}

static struct ibv_context *open_by_name(const char *name)
{
	struct ibv_device **devs = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; devs && devs[i]; i++)
		if (!strcmp(ibv_get_device_name(devs[i]), name))
			ctx = ibv_open_device(devs[i]);
	if (devs)
		ibv_free_device_list(devs);
	return ctx;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct dlb2_credit_race r = { .cpu_threads = 2, .ops = 1000000 };
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	int c, ret, gid_index = -1, port = 1, dry = 0, rd_atom;
	struct dlb2_pcie_atomics res;
	struct ibv_device_attr attr;
	struct dlb2_rc rc = { 0 };
	struct ibv_context *ctx;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	uint64_t credits = 64, *word;
	const char *dev;
	char why[1024];
	char *end;

	while ((c = getopt_long(argc, argv, "t:n:s:c:p:g:h", longopts, NULL)) != -1) {
		errno = 0;
		switch (c) {
		case 't': r.cpu_threads = strtoul(optarg, &end, 0); break;
		case 'n': r.ops = strtoul(optarg, &end, 0); break;
		case 's': r.seconds = strtod(optarg, &end); break;
		case 'c': credits = strtoull(optarg, &end, 0); break;
		case 'p': port = strtol(optarg, &end, 0); break;
		case 'g': gid_index = strtol(optarg, &end, 0); break;
		case 'd': dry = 1; continue;
		case 'h': usage(stdout, 0); break;
		case 'V':
			printf("accdirect-qualify %s\n", ACCDIRECT_VERSION);
			return 0;
		default: usage(stderr, EXIT_USAGE);
		}
		if (errno || *end || !*optarg)
			usage(stderr, EXIT_USAGE);
	}
	if (optind != argc - 1 || !r.cpu_threads || r.cpu_threads > 64 ||
	    (!r.ops && r.seconds <= 0) || r.seconds < 0 || !credits ||
	    port < 1 || port > 255)
		usage(stderr, EXIT_USAGE);
	dev = argv[optind];
	if (r.seconds > 0)
		r.ops = 0;
	if (dry) {
		printf("accdirect-qualify: would race %u CPU thread(s) against %s port %d on a credit word of %llu",
		       r.cpu_threads, dev, port, (unsigned long long)credits);
		if (r.ops)
			printf(", %lu take/give pairs each\n", r.ops);
		else
			printf(", for %g s\n", r.seconds);
		return 0;
	}

	ctx = open_by_name(dev);
	if (!ctx) {
		fprintf(stderr, "accdirect-qualify: no RDMA device %s (ibv_devices lists them)\n", dev);
		return EXIT_SETUP;
	}
	if (ibv_query_device(ctx, &attr)) {
		fprintf(stderr, "accdirect-qualify: %s: ibv_query_device: %s\n", dev, strerror(errno));
		return EXIT_SETUP;
	}
	printf("accdirect-qualify: %s: atomic_cap %s\n", dev, cap_name(attr.atomic_cap));
	if (attr.atomic_cap != IBV_ATOMIC_GLOB) {
		dlb2_pcie_atomics_check_ibdev("", dev, &res);
		printf("accdirect-qualify: PCIe path of %s: %s\n",
		       res.bdf[0] ? res.bdf : "(none)",
		       dlb2_atomics_verdict_name(res.verdict));
		print_path(&res);
	}
	ret = dlb2_rc_check_device_flags(ctx, 0, &res);
	if (ret == -EOPNOTSUPP)
		printf("accdirect-qualify: libdlb2_rdma refuses it: %s\n",
		       dlb2_rc_strerror(why, sizeof(why)));
	else if (!ret)
		printf("accdirect-qualify: libdlb2_rdma accepts it: %s\n",
		       dlb2_pcie_atomics_msg(dev, &res, why, sizeof(why)));
	if (attr.atomic_cap == IBV_ATOMIC_NONE) {
		fprintf(stderr, "accdirect-qualify: %s has no remote atomics: nothing to qualify\n", dev);
		return EXIT_SETUP;
	}

	rd_atom = attr.max_qp_rd_atom < 4 ? attr.max_qp_rd_atom : 4;
	word = aligned_alloc(64, 64);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!word || !pd || !cq) {
		fprintf(stderr, "accdirect-qualify: %s: %s\n", dev, strerror(errno ?: ENOMEM));
		return EXIT_SETUP;
	}
	*word = credits;
	qpa.send_cq = qpa.recv_cq = cq;
	qa = ibv_create_qp(pd, &qpa);
	qb = ibv_create_qp(pd, &qpa);
	mr = ibv_reg_mr(pd, word, 64, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!qa || !qb || !mr) {
		fprintf(stderr, "accdirect-qualify: %s: creating queue pairs, registering the word: %s\n",
			dev, strerror(errno));
		return EXIT_SETUP;
	}
	ret = connect_pair(ctx, qa, qb, port, gid_index, rd_atom ? rd_atom : 1);
	if (ret) {
		fprintf(stderr, "accdirect-qualify: %s port %d: connecting a loop-back queue pair: %s\n",
			dev, port, strerror(-ret));
		return EXIT_SETUP;
	}
	/* the race runs whatever the check said: it is what qualifies */
	ret = dlb2_rc_init(&rc, pd, qa, cq, DLB2_RC_FORCE);
	if (ret) {
		fprintf(stderr, "accdirect-qualify: %s: %s\n", dev, strerror(-ret));
		return EXIT_SETUP;
	}
	rc.credit_addr = (uintptr_t)word;
	rc.credit_rkey = mr->rkey;

	ret = dlb2_credit_race(&rc, word, &r);
	printf("start %llu, end %llu\n", (unsigned long long)r.before,
	       (unsigned long long)r.after);
	printf("CPU: %u thread(s), %lu take/give pairs, %lu took a credit\n",
	       r.cpu_threads, r.cpu_pairs, r.cpu_taken);
	printf("%s: %lu take/give pairs, %lu took a credit\n", dev,
	       r.rc_pairs, r.rc_taken);
	printf("%.1f s\n", r.elapsed);
	if (ret) {
		fprintf(stderr, "accdirect-qualify: %s: the race stopped: %s (DLB2_RC_DEBUG=1 says more)\n",
			dev, strerror(-ret));
		return EXIT_SETUP;
	}
	if (!r.rc_taken || !r.cpu_taken)
		fprintf(stderr, "accdirect-qualify: warning: a side never took a credit: no race (raise -c)\n");
	printf("lost updates: %llu\n", (unsigned long long)r.lost);
	dlb2_rc_fini(&rc);
	ibv_dereg_mr(mr);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return r.lost || !r.rc_taken || !r.cpu_taken ? EXIT_LOST : 0;
}
