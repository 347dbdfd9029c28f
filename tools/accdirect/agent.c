// SPDX-License-Identifier: GPL-2.0
/*
 * accdirect-agent: the SmartNIC side of AccDirect (it runs on any host).
 * Takes request metadata (payload address and size) that a client
 * RDMA-WRITEs into its ring, packs up to four QEs per 64-byte line and
 * RDMA-WRITEs them into the server's DLB producer port, after taking as
 * many credits from the server's credit word with RDMA READ +
 * compare-and-swap (libdlb2_rdma).  It never enqueues without a credit, and
 * refuses to run when the RDMA device's atomics are not atomic with respect
 * to the server's CPUs.  See README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libdlb2_rdma.h"
#include "accdirect.h"

static void usage(void)
{
	fprintf(stderr, "Usage: accdirect-agent -s SERVER_IP -a LISTEN_IP [-n COUNT] [-r RING_ENTRIES]\n");
	exit(2);
}

/* Up to four entries of the ring that the client has written, from @head. */
static unsigned int ready(struct accd_meta *ring, uint32_t nr, uint64_t head,
			  uint64_t count)
{
	unsigned int k;

	for (k = 0; k < 4 && (!count || head + k < count); k++)
		if (__atomic_load_n(&ring[(head + k) % nr].seq, __ATOMIC_ACQUIRE) !=
		    (uint32_t)(head + k + 1))
			break;
	return k;
}

int main(int argc, char **argv)
{
	const char *server = NULL, *ip = NULL;
	struct accd_hello hello = { .role = ACCD_ROLE_AGENT };
	struct accd_conn srv, l, cli;
	struct accd_dlb_offer dlb;
	struct accd_ring_offer ro = { 0 };
	struct ibv_mr *ring_mr, *cons_mr;
	struct accd_meta *ring;
	uint64_t *consumed, head = 0, count = 0;
	uint32_t nr = 256;
	struct dlb2_rc rc = { 0 };
	struct dlb2_hcw h[4];
	struct accd_hello ch;
	double t0, idle = 0;
	unsigned int k, i;
	int c, ret;

	while ((c = getopt(argc, argv, "s:a:n:r:")) != -1) {
		switch (c) {
		case 's': server = optarg; break;
		case 'a': ip = optarg; break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 'r': nr = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!server || !ip || !nr)
		usage();

	ret = accd_connect(&srv, server, ACCD_SERVER_PORT, &hello, sizeof(hello),
			   &dlb, sizeof(dlb));
	if (ret) {
		fprintf(stderr, "accdirect-agent: connecting to the server %s: %s\n",
			server, strerror(-ret));
		return 1;
	}
	ret = dlb2_rc_init(&rc, srv.pd, srv.id->qp, srv.cq, 0);
	if (ret == -EOPNOTSUPP) {
		char why[1024];

		/* the check that failed and its fix */
		fprintf(stderr, "accdirect-agent: %s\n",
			dlb2_rc_strerror(why, sizeof(why)));
		fprintf(stderr, "accdirect-agent: the RDMA device's atomics are not known to be global: credits shared with the server's CPUs would be lost; refusing\n");
		return 1;
	}
	if (ret) {
		fprintf(stderr, "accdirect-agent: %s\n", strerror(-ret));
		return 1;
	}
	rc.pp_addr = dlb.pp_addr;
	rc.pp_rkey = dlb.pp_rkey;
	rc.credit_addr = dlb.credit_addr;
	rc.credit_rkey = dlb.credit_rkey;

	ring = aligned_alloc(4096, ((size_t)nr * sizeof(*ring) + 4095) / 4096 * 4096);
	consumed = aligned_alloc(64, 64);
	if (!ring || !consumed)
		return 1;
	memset(ring, 0, (size_t)nr * sizeof(*ring));
	*consumed = 0;
	ret = accd_listen(&l, ip, ACCD_AGENT_PORT);
	if (!ret)
		ret = accd_get_request(&l, &cli, &ch, sizeof(ch));
	if (!ret)
		ret = accd_setup_qp(&cli, NULL);
	if (ret) {
		fprintf(stderr, "accdirect-agent: waiting for a client on %s: %s\n",
			ip, strerror(-ret));
		return 1;
	}
	ring_mr = ibv_reg_mr(cli.pd, ring, (size_t)nr * sizeof(*ring),
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	cons_mr = ibv_reg_mr(cli.pd, consumed, 8,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!ring_mr || !cons_mr)
		return 1;
	ro = (struct accd_ring_offer){
		.ring_addr = (uintptr_t)ring, .ring_rkey = ring_mr->rkey,
		.consumed_addr = (uintptr_t)consumed,
		.consumed_rkey = cons_mr->rkey, .nr_entries = nr,
	};
	ret = accd_accept(&cli, &ro, sizeof(ro));
	if (ret) {
		fprintf(stderr, "accdirect-agent: accepting the client: %s\n", strerror(-ret));
		return 1;
	}
	printf("accdirect-agent: server %s (queue %u), client connected, ring of %u\n",
	       server, dlb.qid, nr);
	fflush(stdout);

	t0 = accd_now();
	while (!count || head < count) {
		k = ready(ring, nr, head, count);
		if (!k) {
			if (!idle)
				idle = accd_now();
			else if (accd_now() - idle > 30)
				break;		/* the client is gone */
			sched_yield();
			continue;
		}
		idle = 0;
		/* never without credits: wait for the workers to return some */
		while ((ret = dlb2_rc_take(&rc, k)) == 0)
			sched_yield();
		if (ret < 0)
			break;
		memset(h, 0, sizeof(h));
		for (i = 0; i < k; i++) {
			struct accd_meta *m = &ring[(head + i) % nr];

			h[i].data = m->addr;
			h[i].opaque = m->size;
			h[i].qid = dlb.qid;
			h[i].sched = dlb.sched;
			h[i].cmd = DLB2_CMD_NEW;
		}
		ret = dlb2_rc_enqueue(&rc, h, k);
		if (ret)
			break;
		head += k;
		__atomic_store_n(consumed, head, __ATOMIC_RELEASE);
	}
	printf("accdirect-agent: %lu requests enqueued in %.1f s (%.0f/s)%s%s\n",
	       (unsigned long)head, accd_now() - t0, head / (accd_now() - t0),
	       ret ? ": " : "", ret ? strerror(-ret) : "");
	dlb2_rc_fini(&rc);
	accd_close(&cli);
	accd_close(&l);
	accd_close(&srv);
	return ret || (count && head != count);
}
