// SPDX-License-Identifier: GPL-2.0
/*
 * accdirect-agent --self-test: the agent's own logic, in-process, with no
 * RDMA device: its command line, the QEs it packs from the client's
 * metadata, batching up to four QEs per producer-port line, the credit
 * accounting of libdlb2_rdma (READ + compare-and-swap, lost races, waiting
 * for credits) and its errors.  libibverbs posts and polls through the
 * function pointers of the QP's and CQ's context (ibv_post_send() and
 * ibv_poll_cq() are inline), so an emulated device here executes each work
 * request on this process's memory: the server's credit word and its
 * producer port.  Prints TAP; the output is the same on every architecture
 * (tools/accdirect/cross-test compares the aarch64 build under qemu-user
 * with the native one).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "tests/tap.h"		/* libdlb2's TAP helpers */

#define LKEY		0x1c
#define CREDIT_RKEY	0xc0ffee
#define PP_RKEY		0x9900
#define MAX_LINES	64

/* The emulated device, the server's credit word and its producer port. */
static struct fake {
	struct ibv_context ctx;
	struct ibv_qp qp;
	struct ibv_cq cq;
	struct ibv_mr mr;
	struct ibv_wc wc;
	int pending;
	uint64_t credit;		/* the domain's credit word */
	struct dlb2_hcw pp[MAX_LINES][4];	/* lines written to the PP */
	unsigned int lines;
	unsigned int reads, cas, cas_lost, faa, bad;
	uint64_t taken;			/* credits taken by a successful CAS */
	uint64_t qes;			/* valid QEs written to the PP */
	unsigned int steal;		/* CASes before which a CPU takes one */
	int credit_before_qe;		/* every QE had its credit */
} F;

static struct dlb2_rc rc;

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	uint64_t *local = (uint64_t *)(uintptr_t)wr->sg_list->addr;
	uint64_t remote = wr->opcode == IBV_WR_RDMA_READ ||
			  wr->opcode == IBV_WR_RDMA_WRITE ?
			  wr->wr.rdma.remote_addr : wr->wr.atomic.remote_addr;
	uint32_t rkey = wr->opcode == IBV_WR_RDMA_READ ||
			wr->opcode == IBV_WR_RDMA_WRITE ?
			wr->wr.rdma.rkey : wr->wr.atomic.rkey;
	uint64_t old;
	unsigned int i;

	(void)qp;
	if (F.pending || wr->next || wr->num_sge != 1 ||
	    !(wr->send_flags & IBV_SEND_SIGNALED) ||
	    wr->sg_list->lkey != LKEY) {
		*bad = wr;
		F.bad++;
		return EINVAL;
	}
	F.wc = (struct ibv_wc){ .wr_id = wr->wr_id, .status = IBV_WC_SUCCESS };
	F.pending = 1;
	switch (wr->opcode) {
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (remote != (uintptr_t)&F.credit || rkey != CREDIT_RKEY ||
		    wr->sg_list->length != 8) {
			F.wc.status = IBV_WC_REM_ACCESS_ERR;
			break;
		}
		if (wr->opcode == IBV_WR_RDMA_READ) {
			F.reads++;
			*local = F.credit;
		} else if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			F.faa++;
			*local = F.credit;
			F.credit += wr->wr.atomic.compare_add;
		} else {
			F.cas++;
			if (F.steal) {	/* a server CPU takes one first */
				F.steal--;
				F.credit--;
			}
			old = F.credit;
			if (old == wr->wr.atomic.compare_add) {
				F.credit = wr->wr.atomic.swap;
				F.taken += old - F.credit;
			} else {
				F.cas_lost++;
			}
			*local = old;
		}
		break;
	case IBV_WR_RDMA_WRITE:
		if (remote != rc.pp_addr || rkey != PP_RKEY ||
		    wr->sg_list->length != 64 || F.lines == MAX_LINES) {
			F.wc.status = IBV_WC_REM_ACCESS_ERR;
			break;
		}
		memcpy(F.pp[F.lines++], local, 64);
		for (i = 0; i < 4; i++)
			F.qes += F.pp[F.lines - 1][i].cmd == DLB2_CMD_NEW;
		if (F.qes > F.taken)
			F.credit_before_qe = 0;
		break;
	default:
		F.wc.status = IBV_WC_REM_INV_REQ_ERR;
	}
	return 0;
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq;
	if (!F.pending || n < 1)
		return 0;
	*wc = F.wc;
	F.pending = 0;
	return 1;
}

/* The address the producer port has in the server (never dereferenced). */
static const uint64_t ppbuf[8] __attribute__((aligned(64)));

/* A fresh device with @credits in the credit word. */
static void fake_reset(uint64_t credits)
{
	static uint64_t buf[16] __attribute__((aligned(64)));

	memset(&F, 0, sizeof(F));
	F.ctx.ops.post_send = fake_post_send;
	F.ctx.ops.poll_cq = fake_poll_cq;
	F.qp.context = F.cq.context = &F.ctx;
	F.mr.lkey = LKEY;
	F.credit = credits;
	F.credit_before_qe = 1;
	memset(buf, 0, sizeof(buf));
	rc = (struct dlb2_rc){
		.qp = &F.qp, .cq = &F.cq, .mr = &F.mr, .buf = buf,
		.credit_addr = (uintptr_t)&F.credit, .credit_rkey = CREDIT_RKEY,
		.pp_addr = (uintptr_t)ppbuf, .pp_rkey = PP_RKEY,
	};
}

/* ------------------------------------------------------ command line */

static int parse(struct agent_opts *o, ...)
{
	char *argv[16] = { "accdirect-agent" };
	int argc = 1;
	va_list ap;

	va_start(ap, o);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return agent_parse(argc, argv, o);
}

static void t_parse(void)
{
	struct agent_opts o;

	CHECK_EQ(parse(&o, "-s", "192.168.7.1", "-a", "10.0.0.2", "-n", "100000",
		       "-r", "0x40", NULL), 0);
	CHECK(o.server && !strcmp(o.server, "192.168.7.1"));
	CHECK(o.ip && !strcmp(o.ip, "10.0.0.2"));
	CHECK_EQ(o.count, 100000);
	CHECK_EQ(o.nr, 64);
	CHECK_EQ(o.self_test, 0);
	CHECK_EQ(parse(&o, "-a", "10.0.0.2", "-s", "10.0.0.1", NULL), 0);
	CHECK_EQ(o.count, 0);		/* until stopped */
	CHECK_EQ(o.nr, 256);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-n",
		       "18446744073709551615", "-r", "4294967295", NULL), 0);
	CHECK_EQ(o.count, UINT64_MAX);
	CHECK_EQ(o.nr, UINT32_MAX);
	CHECK_EQ(parse(&o, "--self-test", NULL), 0);
	CHECK_EQ(o.self_test, 1);
}

static void t_parse_errors(void)
{
	struct agent_opts o;

	CHECK_EQ(parse(&o, NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-a", "10.0.0.2", NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-s", "server", "-a", "10.0.0.2", NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.256", NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-r", "0", NULL),
		 -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-r",
		       "4294967296", NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-n", "-1", NULL),
		 -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-n", "12x", NULL),
		 -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-n",
		       "18446744073709551616", NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-x", NULL),
		 -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "extra", NULL),
		 -EINVAL);
	CHECK_EQ(parse(&o, "-s", NULL), -EINVAL);
	CHECK_EQ(parse(&o, "--self-test", "-n", "5", NULL), -EINVAL);
}

/* ------------------------------------------------------ ring and QEs */

static struct accd_meta ring[8] __attribute__((aligned(64)));
static uint64_t consumed __attribute__((aligned(64)));

static struct agent agent_of(uint32_t nr, uint64_t count)
{
	memset(ring, 0, sizeof(ring));
	consumed = 0;
	return (struct agent){
		.rc = &rc, .ring = ring, .nr = nr, .consumed = &consumed,
		.count = count, .qid = 5,
		.sched = DLB2_SCHED(DLB2_SCHED_ATOMIC, 2),
		.idle_timeout = 30,
	};
}

/* What the client writes for request @i: seq last. */
static uint64_t addr_of(uint64_t i)
{
	return 0x7f0000100000ull + i * 0x1000;
}

static void client_write(struct agent *a, uint64_t i)
{
	struct accd_meta *m = &a->ring[i % a->nr];

	m->addr = addr_of(i);
	m->size = 64 + i * 8;
	__atomic_store_n(&m->seq, (uint32_t)(i + 1), __ATOMIC_RELEASE);
}

static void t_pack(void)
{
	static const uint8_t want[16] = {
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* data */
		0x00, 0x10,		/* opaque: the payload's size, 4096 */
		0x05,			/* qid */
		0x08,			/* sched: atomic, priority 2 */
		0x00, 0x00, 0x00,	/* lock_id, misc */
		0x08,			/* cmd: NEW */
	};
	struct agent a = agent_of(8, 0);
	struct dlb2_hcw h[2];
	char hex[64] = "";
	unsigned int i;

	CHECK_EQ(sizeof(struct dlb2_hcw), 16);
	CHECK_EQ(sizeof(struct accd_meta), 16);
	ring[3] = (struct accd_meta){ .addr = 0x1122334455667788ull,
				      .size = 4096, .seq = 4 };
	ring[4] = (struct accd_meta){ .addr = 0xabc0, .size = 64, .seq = 5 };
	a.head = 3;
	agent_pack(&a, h, 2);
	for (i = 0; i < 16; i++)
		sprintf(hex + 2 * i, "%02x", ((uint8_t *)h)[i]);
	if (memcmp(h, want, 16))
		diag("QE %s", hex);
	CHECK(!memcmp(h, want, 16));
	CHECK_EQ(h[1].data, 0xabc0);
	CHECK_EQ(h[1].opaque, 64);
	CHECK_EQ(h[1].qid, 5);
	CHECK_EQ(h[1].sched, DLB2_SCHED(DLB2_SCHED_ATOMIC, 2));
	CHECK_EQ(h[1].lock_id, 0);
	CHECK_EQ(h[1].cmd, DLB2_CMD_NEW);
}

static void t_ready(void)
{
	struct agent a = agent_of(4, 0);
	unsigned int i;

	CHECK_EQ(agent_ready(&a), 0);
	for (i = 0; i < 3; i++)
		client_write(&a, i);
	CHECK_EQ(agent_ready(&a), 3);
	client_write(&a, 3);
	CHECK_EQ(agent_ready(&a), 4);	/* four per line, no more */
	a.head = 4;			/* wrapped: entry 0 holds request 0 */
	CHECK_EQ(agent_ready(&a), 0);
	client_write(&a, 4);
	CHECK_EQ(agent_ready(&a), 1);
	a.head = 1;			/* requests 1..4, entries 1, 2, 3, 0 */
	CHECK_EQ(agent_ready(&a), 4);
	a.count = 3;			/* only up to count */
	CHECK_EQ(agent_ready(&a), 2);
	a.head = 3;
	CHECK_EQ(agent_ready(&a), 0);
}

/* --------------------------------------------------------- the loop */

static uint64_t next_req, returned;
static unsigned int waits;

/* The client: the ring full of requests, as far as consumed allows. */
static void as_client(struct agent *a)
{
	uint64_t c = __atomic_load_n(a->consumed, __ATOMIC_ACQUIRE);

	waits++;
	while (next_req < c + a->nr && (!a->count || next_req < a->count))
		client_write(a, next_req++);
}

/* The client, and the server's workers: one QE done per wait, its credit back. */
static void as_client_and_workers(struct agent *a)
{
	as_client(a);
	if (returned < F.qes) {
		returned++;
		F.credit++;
	}
}

static void check_lines(uint64_t n)
{
	uint64_t i;

	CHECK_EQ(F.lines, (n + 3) / 4);
	for (i = 0; i < (uint64_t)F.lines * 4; i++) {
		struct dlb2_hcw *h = &F.pp[i / 4][i % 4];

		if (i >= n) {		/* the last line's unused slots: NOOPs */
			static const struct dlb2_hcw zero;

			CHECK(!memcmp(h, &zero, sizeof(*h)));
			continue;
		}
		if (h->data != addr_of(i) || h->opaque != 64 + i * 8 ||
		    h->qid != 5 || h->cmd != DLB2_CMD_NEW ||
		    h->sched != DLB2_SCHED(DLB2_SCHED_ATOMIC, 2)) {
			diag("QE %llu: data %#llx opaque %u qid %u sched %#x cmd %#x",
			     (unsigned long long)i, (unsigned long long)h->data,
			     h->opaque, h->qid, h->sched, h->cmd);
			CHECK(0);
			return;
		}
	}
}

static void t_run(void)
{
	struct agent a = agent_of(4, 10);

	fake_reset(100);
	next_req = waits = 0;
	a.wait = as_client;
	CHECK_EQ(agent_run(&a), 0);
	CHECK_EQ(a.head, 10);
	CHECK_EQ(consumed, 10);
	check_lines(10);		/* 4 + 4 + 2 over a ring of 4 */
	CHECK_EQ(F.credit, 90);
	CHECK_EQ(F.taken, 10);
	CHECK_EQ(F.reads, 3);		/* one READ + CAS per line */
	CHECK_EQ(F.cas, 3);
	CHECK_EQ(F.cas_lost, 0);
	CHECK_EQ(F.bad, 0);
	CHECK(F.credit_before_qe);
}

static void t_run_few_credits(void)
{
	struct agent a = agent_of(8, 10);

	fake_reset(6);
	next_req = returned = waits = 0;
	a.wait = as_client_and_workers;
	CHECK_EQ(agent_run(&a), 0);
	CHECK_EQ(a.head, 10);
	CHECK_EQ(consumed, 10);
	check_lines(10);
	CHECK(F.credit_before_qe);	/* never a QE without its credit */
	CHECK_EQ(F.taken, 10);
	CHECK_EQ(F.credit, 6 - 10 + returned);
	CHECK_EQ(F.cas, 3);		/* a CAS only with enough credits */
	CHECK(F.reads > F.cas);		/* READs that saw too few */
	CHECK_EQ(F.bad, 0);
}

static void t_run_lost_race(void)
{
	struct agent a = agent_of(8, 4);
	unsigned int i;

	fake_reset(100);
	for (i = 0; i < 4; i++)
		client_write(&a, i);
	F.steal = 2;		/* the server's CPUs win the first two CASes */
	CHECK_EQ(agent_run(&a), 0);
	CHECK_EQ(a.head, 4);
	check_lines(4);
	CHECK_EQ(F.reads, 1);
	CHECK_EQ(F.cas, 3);	/* CAS(100) lost, CAS(99) lost, CAS(98) won */
	CHECK_EQ(F.cas_lost, 2);
	CHECK_EQ(F.credit, 94);
	CHECK(F.credit_before_qe);
}

static void t_run_idle(void)
{
	struct agent a = agent_of(8, 0);
	unsigned int i;

	fake_reset(100);
	for (i = 0; i < 5; i++)
		client_write(&a, i);
	a.idle_timeout = 0.05;	/* count 0: until the client is idle */
	CHECK_EQ(agent_run(&a), 0);
	CHECK_EQ(a.head, 5);
	CHECK_EQ(consumed, 5);
	check_lines(5);
	CHECK_EQ(F.credit, 95);
}

static void t_run_errors(void)
{
	struct agent a = agent_of(8, 4);
	unsigned int i;

	fake_reset(100);
	for (i = 0; i < 4; i++)
		client_write(&a, i);
	rc.pp_rkey = PP_RKEY + 1;	/* a producer port not registered */
	CHECK_EQ(agent_run(&a), -EACCES);
	CHECK_EQ(a.head, 0);
	CHECK_EQ(consumed, 0);
	CHECK_EQ(F.lines, 0);

	a = agent_of(8, 4);
	fake_reset(100);
	for (i = 0; i < 4; i++)
		client_write(&a, i);
	rc.credit_rkey = CREDIT_RKEY + 1;
	CHECK_EQ(agent_run(&a), -EACCES);
	CHECK_EQ(F.credit, 100);
	CHECK_EQ(F.lines, 0);
}

static void t_rc_give(void)
{
	fake_reset(7);
	CHECK_EQ(dlb2_rc_give(&rc, 5), 0);
	CHECK_EQ(F.credit, 12);
	CHECK_EQ(F.faa, 1);
	CHECK_EQ(dlb2_rc_take(&rc, 13), 0);	/* too few: nothing taken */
	CHECK_EQ(F.credit, 12);
	CHECK_EQ(dlb2_rc_take(&rc, 12), 12);
	CHECK_EQ(F.credit, 0);
	CHECK_EQ(dlb2_rc_enqueue(&rc, NULL, 0), -EINVAL);
	CHECK_EQ(dlb2_rc_enqueue(&rc, NULL, 5), -EINVAL);
}

int agent_self_test(void)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {
		{ "command line", t_parse },
		{ "command line errors", t_parse_errors },
		{ "QE packing", t_pack },
		{ "ring polling and batching", t_ready },
		{ "10 requests, 3 lines, 10 credits", t_run },
		{ "6 credits for 10 requests: waits for credits", t_run_few_credits },
		{ "lost compare-and-swap races", t_run_lost_race },
		{ "until the client is idle", t_run_idle },
		{ "remote access errors", t_run_errors },
		{ "credit give and take", t_rc_give },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_test(cases[i].name, cases[i].fn);
	return tap_done() ? -1 : 0;
}
