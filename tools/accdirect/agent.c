// SPDX-License-Identifier: GPL-2.0
/*
 * accdirect-agent: the SmartNIC side of AccDirect (it runs on any host).
 * Takes request metadata (payload address and size) that a client
 * RDMA-WRITEs into its ring, packs up to four QEs per 64-byte line and
 * RDMA-WRITEs them into the server's DLB producer port, after taking as
 * many credits from the server's credit word with RDMA READ +
 * compare-and-swap (libdlb2_rdma).  It never enqueues without a credit, and
 * refuses to run when the RDMA device's atomics are not atomic with respect
 * to the server's CPUs.  See README.md.  The loop itself (agent.h) is what
 * --self-test (agent-selftest.c) runs against an RDMA device it emulates.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static void usage(void)
{
	fprintf(stderr, "Usage: accdirect-agent -s SERVER_IP -a LISTEN_IP [-n COUNT] [-r RING_ENTRIES]\n"
			"       accdirect-agent --self-test\n");
	exit(2);
}

/* A whole decimal (or 0x) number up to @max, nothing after it. */
static int parse_num(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static bool is_ipv4(const char *s)
{
	struct in_addr a;

	return inet_pton(AF_INET, s, &a) == 1;
}

int agent_parse(int argc, char **argv, struct agent_opts *o)
{
	static const struct option longopts[] = {
		{ "self-test", no_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	*o = (struct agent_opts){ .nr = 256 };
	optind = 0;		/* a fresh scan, also for the self-test */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "s:a:n:r:", longopts, NULL)) != -1) {
		switch (c) {
		case 's': o->server = optarg; break;
		case 'a': o->ip = optarg; break;
		case 'n':
			if (parse_num(optarg, UINT64_MAX, &o->count))
				return -EINVAL;
			break;
		case 'r':
			if (parse_num(optarg, UINT32_MAX, &v) || !v)
				return -EINVAL;
			o->nr = v;
			break;
		case 'T': o->self_test = true; break;
		default: return -EINVAL;
		}
	}
	if (optind != argc)
		return -EINVAL;
	if (o->self_test)
		return argc == 2 ? 0 : -EINVAL;
	if (!o->server || !o->ip || !is_ipv4(o->server) || !is_ipv4(o->ip))
		return -EINVAL;
	return 0;
}

unsigned int agent_ready(const struct agent *a)
{
	unsigned int k;

	for (k = 0; k < 4 && (!a->count || a->head + k < a->count); k++)
		if (__atomic_load_n(&a->ring[(a->head + k) % a->nr].seq,
				    __ATOMIC_ACQUIRE) != (uint32_t)(a->head + k + 1))
			break;
	return k;
}

void agent_pack(const struct agent *a, struct dlb2_hcw *h, unsigned int k)
{
	unsigned int i;

	memset(h, 0, k * sizeof(*h));
	for (i = 0; i < k; i++) {
		const struct accd_meta *m = &a->ring[(a->head + i) % a->nr];

		h[i].data = m->addr;
		h[i].opaque = m->size;
		h[i].qid = a->qid;
		h[i].sched = a->sched;
		h[i].cmd = DLB2_CMD_NEW;
	}
}

static void wait_a_bit(struct agent *a)
{
	if (a->wait)
		a->wait(a);
	else
		sched_yield();
}

int agent_run(struct agent *a)
{
	struct dlb2_hcw h[4];
	double idle = 0;
	unsigned int k;
	int ret;

	while (!a->count || a->head < a->count) {
		k = agent_ready(a);
		if (!k) {
			if (!idle)
				idle = accd_now();
			else if (accd_now() - idle > a->idle_timeout)
				return 0;	/* the client is gone */
			wait_a_bit(a);
			continue;
		}
		idle = 0;
		/* never without credits: wait for the workers to return some */
		while ((ret = dlb2_rc_take(a->rc, k)) == 0)
			wait_a_bit(a);
		if (ret < 0)
			return ret;
		agent_pack(a, h, k);
		ret = dlb2_rc_enqueue(a->rc, h, k);
		if (ret)
			return ret;
		a->head += k;
		__atomic_store_n(a->consumed, a->head, __ATOMIC_RELEASE);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct accd_hello hello = { .role = ACCD_ROLE_AGENT };
	struct accd_conn srv, l, cli;
	struct accd_dlb_offer dlb;
	struct accd_ring_offer ro = { 0 };
	struct ibv_mr *ring_mr, *cons_mr;
	struct dlb2_rc rc = { 0 };
	struct agent_opts o;
	struct agent a = { .rc = &rc, .idle_timeout = 30 };
	struct accd_hello ch;
	double t0;
	int ret;

	if (agent_parse(argc, argv, &o))
		usage();
	if (o.self_test)
		return agent_self_test() ? 1 : 0;
	a.nr = o.nr;
	a.count = o.count;

	ret = accd_connect(&srv, o.server, ACCD_SERVER_PORT, &hello,
			   sizeof(hello), &dlb, sizeof(dlb));
	if (ret) {
		fprintf(stderr, "accdirect-agent: connecting to the server %s: %s\n",
			o.server, strerror(-ret));
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
	a.qid = dlb.qid;
	a.sched = dlb.sched;

	a.ring = aligned_alloc(4096, ((size_t)a.nr * sizeof(*a.ring) + 4095) / 4096 * 4096);
	a.consumed = aligned_alloc(64, 64);
	if (!a.ring || !a.consumed)
		return 1;
	memset(a.ring, 0, (size_t)a.nr * sizeof(*a.ring));
	*a.consumed = 0;
	ret = accd_listen(&l, o.ip, ACCD_AGENT_PORT);
	if (!ret)
		ret = accd_get_request(&l, &cli, &ch, sizeof(ch));
	if (!ret)
		ret = accd_setup_qp(&cli, NULL);
	if (ret) {
		fprintf(stderr, "accdirect-agent: waiting for a client on %s: %s\n",
			o.ip, strerror(-ret));
		return 1;
	}
	ring_mr = ibv_reg_mr(cli.pd, a.ring, (size_t)a.nr * sizeof(*a.ring),
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	cons_mr = ibv_reg_mr(cli.pd, a.consumed, 8,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!ring_mr || !cons_mr)
		return 1;
	ro = (struct accd_ring_offer){
		.ring_addr = (uintptr_t)a.ring, .ring_rkey = ring_mr->rkey,
		.consumed_addr = (uintptr_t)a.consumed,
		.consumed_rkey = cons_mr->rkey, .nr_entries = a.nr,
	};
	ret = accd_accept(&cli, &ro, sizeof(ro));
	if (ret) {
		fprintf(stderr, "accdirect-agent: accepting the client: %s\n", strerror(-ret));
		return 1;
	}
	printf("accdirect-agent: server %s (queue %u), client connected, ring of %u\n",
	       o.server, dlb.qid, a.nr);
	fflush(stdout);

	t0 = accd_now();
	ret = agent_run(&a);
	printf("accdirect-agent: %lu requests enqueued in %.1f s (%.0f/s)%s%s\n",
	       (unsigned long)a.head, accd_now() - t0, a.head / (accd_now() - t0),
	       ret ? ": " : "", ret ? strerror(-ret) : "");
	dlb2_rc_fini(&rc);
	accd_close(&cli);
	accd_close(&l);
	accd_close(&srv);
	return ret || (a.count && a.head != a.count);
}
