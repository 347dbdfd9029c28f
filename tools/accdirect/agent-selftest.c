// SPDX-License-Identifier: GPL-2.0
/*
 * accdirect-agent --self-test: the agent's own logic, in-process, with no
 * RDMA device: its command line, the QEs it makes of the clients' metadata
 * rings, and libaccdirect's enqueue engine (struct accd_enq): four QEs per
 * producer-port line, chains of writes mostly unsignalled with never more
 * in flight than the send queue holds, credits taken in portions by READ +
 * compare-and-swap (lost races, a short pool), the unused ones given back,
 * the grant slot a dead agent's credits are reclaimed from, and errors.  libibverbs posts and polls through the function pointers of
 * the QP's and CQ's context (ibv_post_send() and ibv_poll_cq() are
 * inline), so an emulated device here executes each work request on this
 * process's memory: the server's credit word, its producer port and the
 * agent's grant slot.
 * Prints TAP; the output is the same on every architecture
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
#define GRANT_RKEY	0x6a47
#define MAX_LINES	256
#define DEPTH		16

/* The emulated device, the server's credit word and its producer port. */
static struct fake {
	struct ibv_context ctx;
	struct ibv_qp qp;
	struct ibv_cq cq;
	struct ibv_mr mr;
	struct ibv_wc wc[4 * MAX_LINES];	/* completions not polled yet */
	unsigned int nwc;
	uint64_t posted, retired;	/* work requests; retired by a signal */
	uint64_t max_outstanding;
	unsigned int depth;		/* the send queue: overflow beyond */
	int error;			/* the QP is in the error state */
	uint64_t credit;		/* the domain's credit word */
	struct dlb2_hcw pp[MAX_LINES][4];	/* lines written to the PP */
	unsigned int lines;
	unsigned int reads, cas, cas_lost, faa, bad, overflow;
	unsigned int posts, signalled, unsignalled, inlined;
	uint64_t taken;			/* credits taken by a successful CAS */
	uint64_t qes;			/* valid QEs written to the PP */
	unsigned int steal;		/* CASes before which a CPU takes one */
	int credit_before_qe;		/* every QE had its credit */
	struct accd_grant slot __attribute__((aligned(64)));	/* the agent's */
	uint64_t returned;		/* credits given back by fetch-and-add */
	unsigned int states, fenced;	/* the slot's state and result writes */
	unsigned int too_many, inexact;	/* crashes the slot gets wrong */
	uint64_t refilled;		/* QEs whose credit the workers gave back */
} F;

static struct accd_enq enq;
static struct dlb2_rc rc;		/* libdlb2_rdma's, on the same device */
static struct dlb2_hcw lines[DEPTH][4] __attribute__((aligned(64)));
static uint64_t atomic_buf[8] __attribute__((aligned(64)));

/* One work request: its completion's status. */
static enum ibv_wc_status execute(struct ibv_send_wr *wr)
{
	uint64_t *local = (uint64_t *)(uintptr_t)wr->sg_list->addr;
	bool rdma = wr->opcode == IBV_WR_RDMA_READ ||
		    wr->opcode == IBV_WR_RDMA_WRITE;
	uint64_t remote = rdma ? wr->wr.rdma.remote_addr :
				 wr->wr.atomic.remote_addr;
	uint32_t rkey = rdma ? wr->wr.rdma.rkey : wr->wr.atomic.rkey;
	uint64_t old;
	unsigned int i;

	switch (wr->opcode) {
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (remote != (uintptr_t)&F.credit || rkey != CREDIT_RKEY ||
		    wr->sg_list->length != 8)
			return IBV_WC_REM_ACCESS_ERR;
		if (wr->opcode == IBV_WR_RDMA_READ) {
			F.reads++;
			*local = F.credit;
		} else if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			F.faa++;
			*local = F.credit;
			F.credit += wr->wr.atomic.compare_add;
			F.returned += wr->wr.atomic.compare_add;
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
		return IBV_WC_SUCCESS;
	case IBV_WR_RDMA_WRITE:
		/* the grant slot: the state, or a take's result (fenced) */
		if (rkey == GRANT_RKEY && remote == (uintptr_t)&F.slot &&
		    wr->sg_list->length == sizeof(F.slot.s)) {
			memcpy(&F.slot.s, local, sizeof(F.slot.s));
			F.states++;
			return IBV_WC_SUCCESS;
		}
		if (rkey == GRANT_RKEY && remote == (uintptr_t)&F.slot.cas_old &&
		    wr->sg_list->length == 16 &&
		    (wr->send_flags & IBV_SEND_FENCE) &&
		    !(wr->send_flags & IBV_SEND_INLINE)) {
			memcpy(&F.slot.cas_old, local, 16);
			F.fenced++;
			return IBV_WC_SUCCESS;
		}
		if (remote != enq.pp_addr || rkey != PP_RKEY ||
		    wr->sg_list->length != 64 || F.lines == MAX_LINES)
			return IBV_WC_REM_ACCESS_ERR;
		memcpy(F.pp[F.lines++], local, 64);
		for (i = 0; i < 4; i++)
			F.qes += F.pp[F.lines - 1][i].cmd == DLB2_CMD_NEW;
		if (F.qes > F.taken)
			F.credit_before_qe = 0;
		F.inlined += !!(wr->send_flags & IBV_SEND_INLINE);
		return IBV_WC_SUCCESS;
	default:
		return IBV_WC_REM_INV_REQ_ERR;
	}
}

/*
 * With a grant slot: the agent dies now.  What the server would give back
 * must never exceed what the agent holds (taken by a won CAS, not on a QE
 * that reached the port, not returned), and equal it after a whole post.
 */
static void crash_check(bool post_end)
{
	struct accd_reclaim r;
	uint64_t holds = F.taken - F.qes - F.returned;

	if (!enq.grant_addr)
		return;
	accd_grant_reclaim(&F.slot, &r);
	if (r.bad || r.held > holds)
		F.too_many++;
	else if (post_end && (r.held != holds || r.doubt))
		F.inexact++;
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	enum ibv_wc_status st;

	(void)qp;
	F.posts++;
	for (; wr; wr = wr->next) {
		if (wr->num_sge != 1 || wr->sg_list->lkey != LKEY) {
			*bad = wr;
			F.bad++;
			return EINVAL;
		}
		F.posted++;
		if (F.posted - F.retired > F.depth)
			F.overflow++;
		if (F.posted - F.retired > F.max_outstanding)
			F.max_outstanding = F.posted - F.retired;
		st = F.error ? IBV_WC_WR_FLUSH_ERR : execute(wr);
		if (st != IBV_WC_SUCCESS)
			F.error = 1;
		if (wr->send_flags & IBV_SEND_SIGNALED)
			F.signalled++;
		else
			F.unsignalled++;
		/* errors complete whether signalled or not */
		if ((wr->send_flags & IBV_SEND_SIGNALED) || st != IBV_WC_SUCCESS)
			F.wc[F.nwc++] = (struct ibv_wc){
				.wr_id = wr->wr_id, .status = st,
				/* which request it was, to retire up to it */
				.imm_data = (uint32_t)F.posted,
			};
		crash_check(false);
	}
	crash_check(true);
	return 0;
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int k = 0;

	(void)cq;
	while (k < n && F.nwc) {
		wc[k] = F.wc[0];
		F.retired = wc[k].imm_data;	/* all before it, too */
		wc[k].imm_data = 0;
		memmove(F.wc, F.wc + 1, --F.nwc * sizeof(F.wc[0]));
		k++;
	}
	return k;
}

/* The address the producer port has in the server (never dereferenced). */
static const uint64_t ppbuf[8] __attribute__((aligned(64)));

/* A fresh device with @credits in the credit word; the engine on it. */
static void fake_reset(uint64_t credits, uint32_t signal_every,
		       unsigned int max_lines)
{
	static uint64_t buf[16] __attribute__((aligned(64)));

	memset(&F, 0, sizeof(F));
	F.ctx.ops.post_send = fake_post_send;
	F.ctx.ops.poll_cq = fake_poll_cq;
	F.qp.context = F.cq.context = &F.ctx;
	F.mr.lkey = LKEY;
	F.credit = credits;
	F.credit_before_qe = 1;
	F.depth = DEPTH;
	memset(lines, 0, sizeof(lines));
	enq = (struct accd_enq){
		.qp = &F.qp, .cq = &F.cq, .lkey = LKEY, .lines = lines,
		.inline_ok = true,
		.pp_addr = (uintptr_t)ppbuf, .pp_rkey = PP_RKEY,
		.credit_addr = (uintptr_t)&F.credit, .credit_rkey = CREDIT_RKEY,
		.atomic = atomic_buf, .credits = { .quanta = 32 },
		.max_lines = max_lines,
	};
	accd_sq_init(&enq.sq, DEPTH, signal_every);
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
	char *argv[24] = { "accdirect-agent" };
	int argc = 1;
	va_list ap;

	va_start(ap, o);
	while (argc < 23 && (argv[argc] = va_arg(ap, char *)))
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
	CHECK_EQ(o.count, 0);		/* until the clients are idle */
	CHECK_EQ(o.nr, 256);
	CHECK_EQ(o.clients, 16);
	CHECK_EQ(o.quanta, 32);
	CHECK_EQ(o.lines, 8);
	CHECK_EQ(o.depth, 128);
	CHECK_EQ(o.signal, 16);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-n",
		       "18446744073709551615", "-r", "32768", "-c", "4", "-q",
		       "64", "-l", "16", "-S", "256", "-e", "32", NULL), 0);
	CHECK_EQ(o.count, UINT64_MAX);
	CHECK_EQ(o.nr, 32768);
	CHECK_EQ(o.clients, 4);
	CHECK_EQ(o.quanta, 64);
	CHECK_EQ(o.lines, 16);
	CHECK_EQ(o.depth, 256);
	CHECK_EQ(o.signal, 32);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-B", "4,,10",
		       NULL), 0);
	CHECK_EQ(o.backoff.spin, 4);
	CHECK_EQ(o.backoff.yield, 0);
	CHECK_EQ(o.backoff.sleep_us, 10);
	CHECK_EQ(parse(&o, "--self-test", NULL), 0);
	CHECK_EQ(o.self_test, 1);
	CHECK_EQ(o.help, 0);
	CHECK_EQ(o.version, 0);
	CHECK_EQ(parse(&o, "--help", NULL), 0);
	CHECK_EQ(o.help, 1);
	CHECK_EQ(o.version, 0);
	CHECK_EQ(parse(&o, "-h", NULL), 0);
	CHECK_EQ(o.help, 1);
	CHECK_EQ(parse(&o, "--version", NULL), 0);
	CHECK_EQ(o.version, 1);
	CHECK_EQ(o.help, 0);
	/* they end the scan: what follows is not looked at */
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "--help", "-n", "12x", NULL), 0);
	CHECK_EQ(o.help, 1);
	CHECK_EQ(parse(&o, "--version", "extra", NULL), 0);
	CHECK_EQ(o.version, 1);
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
		       "32769", NULL), -EINVAL);	/* seq is 16 bits */
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-n", "-1", NULL),
		 -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-n", "12x", NULL),
		 -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-n",
		       "18446744073709551616", NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-l", "65",
		       NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-q", "0",
		       NULL), -EINVAL);
	/* a signalled write at least once per send queue */
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-S", "8",
		       "-e", "16", NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-S", "4",
		       NULL), -EINVAL);		/* 8 lines per post > 4 */
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-B", "1,2,3,4",
		       NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "-x", NULL),
		 -EINVAL);
	CHECK_EQ(parse(&o, "-s", "10.0.0.1", "-a", "10.0.0.2", "extra", NULL),
		 -EINVAL);
	CHECK_EQ(parse(&o, "-s", NULL), -EINVAL);
	CHECK_EQ(parse(&o, "--self-test", "-n", "5", NULL), -EINVAL);
	/* an error before --help or --version is still one */
	CHECK_EQ(parse(&o, "-n", "12x", "--help", NULL), -EINVAL);
	CHECK_EQ(parse(&o, "-x", "--version", NULL), -EINVAL);
}

/* ------------------------------------------------------ ring and QEs */

static struct accd_meta ring[8] __attribute__((aligned(64)));
static const struct accd_queue_map qmap = {
	.nr = 2, .qid = { 5, 9 },
	.sched = { DLB2_SCHED_ATOMIC, DLB2_SCHED_UNORDERED },
};

/* What the client writes for request @i: seq last. */
static uint64_t addr_of(uint64_t i)
{
	return 0x7f0000100000ull + i * 0x1000;
}

static void client_write(struct accd_ring *r, uint64_t i)
{
	struct accd_qe_attr a = { .flow = (uint16_t)(i * 3), .queue = 0,
				  .sched_type = ACCD_SCHED_QUEUE, .prio = 2 };

	accd_meta_encode(&r->m[i % r->nr], i, addr_of(i), 64 + i * 8, &a);
}

static void t_pack(void)
{
	static const uint8_t want[16] = {
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* data */
		0x00, 0x10,		/* opaque: the payload's size, 4096 */
		0x09,			/* qid: of queue 1 */
		0x1d,			/* sched: unordered, priority 7 */
		0xef, 0xbe,		/* lock_id: the flow */
		0x00,			/* misc */
		0x08,			/* cmd: NEW */
	};
	struct accd_ring r = { .m = ring, .nr = 8, .head = 3 };
	struct accd_qe_attr a = { .flow = 0xbeef, .queue = 1,
				  .sched_type = ACCD_SCHED_QUEUE, .prio = 7 };
	struct dlb2_hcw h[2];

	memset(ring, 0, sizeof(ring));
	accd_meta_encode(&ring[3], 3, 0x1122334455667788ull, 4096, &a);
	a = (struct accd_qe_attr){ .flow = 1, .queue = 2, .prio = 0,
				   .sched_type = DLB2_SCHED_ORDERED };
	accd_meta_encode(&ring[4], 4, 0xabc0, 64, &a);
	CHECK_EQ(accd_ring_ready(&r, 4), 2);
	CHECK_EQ(accd_ring_take(&r, &qmap, h, 2), 1);	/* queue 2: none */
	CHECK_EQ(r.head, 5);
	CHECK_MEM(&h[0], want, 16);
	CHECK_EQ(h[1].data, 0xabc0);
	CHECK_EQ(h[1].opaque, 64);
	CHECK_EQ(h[1].qid, 5);		/* out of range: queue 0 */
	CHECK_EQ(h[1].sched, DLB2_SCHED(DLB2_SCHED_ORDERED, 0));
	CHECK_EQ(h[1].lock_id, 1);
	CHECK_EQ(h[1].cmd, DLB2_CMD_NEW);
}

static void t_ready(void)
{
	struct accd_ring r = { .m = ring, .nr = 4 };
	unsigned int i;

	memset(ring, 0, sizeof(ring));
	CHECK_EQ(accd_ring_ready(&r, 32), 0);
	for (i = 0; i < 3; i++)
		client_write(&r, i);
	CHECK_EQ(accd_ring_ready(&r, 32), 3);
	CHECK_EQ(accd_ring_ready(&r, 2), 2);	/* at most max */
	client_write(&r, 3);
	CHECK_EQ(accd_ring_ready(&r, 32), 4);	/* the whole ring, no more */
	r.head = 4;			/* wrapped: entry 0 holds request 0 */
	CHECK_EQ(accd_ring_ready(&r, 32), 0);
	client_write(&r, 4);
	CHECK_EQ(accd_ring_ready(&r, 32), 1);
	r.head = 1;			/* requests 1..4, entries 1, 2, 3, 0 */
	CHECK_EQ(accd_ring_ready(&r, 32), 4);
}

/* ---------------------------------------------------- enqueue engine */

/* @n QEs of the client's requests @first.. */
static void qes_of(struct dlb2_hcw *h, uint64_t first, unsigned int n)
{
	struct accd_ring r = { .m = ring, .nr = 8, .head = first };
	unsigned int i;

	for (i = 0; i < n; i++) {	/* one at a time: the ring is 8 */
		client_write(&r, first + i);
		accd_ring_take(&r, &qmap, &h[i], 1);
	}
}

static void check_lines(uint64_t first, uint64_t n)
{
	uint64_t i, q = 0;

	for (i = 0; i < (uint64_t)F.lines * 4; i++) {
		struct dlb2_hcw *h = &F.pp[i / 4][i % 4];

		if (h->cmd == DLB2_CMD_NOOP) {	/* a line's unused slots */
			static const struct dlb2_hcw zero;

			CHECK(!memcmp(h, &zero, sizeof(*h)));
			continue;
		}
		if (h->data != addr_of(first + q) || h->opaque != 64 + (first + q) * 8 ||
		    h->qid != 5 || h->cmd != DLB2_CMD_NEW ||
		    h->sched != DLB2_SCHED(DLB2_SCHED_ATOMIC, 2) ||
		    h->lock_id != (uint16_t)((first + q) * 3)) {
			diag("QE %llu: data %#llx opaque %u qid %u sched %#x cmd %#x",
			     (unsigned long long)q, (unsigned long long)h->data,
			     h->opaque, h->qid, h->sched, h->cmd);
			CHECK(0);
			return;
		}
		q++;
	}
	CHECK_EQ(q, n);
}

static void t_enq(void)
{
	struct dlb2_hcw h[10];

	fake_reset(100, 16, 8);
	qes_of(h, 0, 10);
	CHECK_EQ(accd_enq_put(&enq, h, 10), 10);
	CHECK_EQ(F.lines, 3);		/* 4 + 4 + 2 */
	CHECK_EQ(F.posts, 3);		/* READ, CAS, one chain of three */
	check_lines(0, 10);
	CHECK_EQ(F.reads, 1);		/* one READ + CAS for a portion of 32 */
	CHECK_EQ(F.cas, 1);
	CHECK_EQ(F.taken, 32);
	CHECK_EQ(F.credit, 68);
	CHECK_EQ(enq.credits.cache, 22);
	CHECK_EQ(F.unsignalled, 3);	/* the writes: none signalled yet */
	CHECK_EQ(F.inlined, 3);
	CHECK(F.credit_before_qe);
	/* the next 10 from the cache: no atomics */
	qes_of(h, 10, 10);
	CHECK_EQ(accd_enq_put(&enq, h, 10), 10);
	CHECK_EQ(F.reads + F.cas, 2);
	CHECK_EQ(F.lines, 6);
	/* at the end: what is in flight completes, 12 credits go back */
	CHECK_EQ(accd_enq_drain(&enq), 0);
	CHECK_EQ(F.reads, 2);		/* the signalled READ behind the writes */
	CHECK_EQ(F.faa, 1);
	CHECK_EQ(F.credit, 80);
	CHECK_EQ(enq.credits.cache, 0);
	CHECK_EQ(enq.credits.returned, 12);
	CHECK(accd_sq_idle(&enq.sq));
	CHECK_EQ(F.overflow, 0);
	CHECK_EQ(F.bad, 0);
}

/* 1,000 QEs: a signal every 4 writes, never more than the queue in flight. */
static void t_enq_cadence(void)
{
	struct dlb2_hcw h[32];
	uint64_t done = 0;
	int n;

	fake_reset(2000, 4, 8);
	while (done < 1000) {
		qes_of(h, done, 32);
		n = accd_enq_put(&enq, h, 1000 - done < 32 ? 1000 - done : 32);
		if (n < 0)
			break;
		done += n;
	}
	CHECK_EQ(done, 1000);
	CHECK_EQ(F.lines, 250);
	CHECK_EQ(F.overflow, 0);
	CHECK(F.max_outstanding <= DEPTH);
	CHECK(F.max_outstanding > 4);	/* several in flight */
	CHECK_EQ(enq.lines_posted, 250);
	/* writes are the sq's indexes 3, 7, ...: about one in four */
	CHECK(F.signalled >= 250 / 4);
	CHECK(F.signalled <= 250 / 4 + 2 * F.cas + 2 * F.reads);
	CHECK_EQ(F.taken, 1000 + enq.credits.cache);
	CHECK_EQ(F.reads, F.cas);	/* 1000 / 32: a READ + CAS per portion */
	CHECK_EQ(F.cas, 32);
	CHECK(F.credit_before_qe);
	CHECK_EQ(accd_enq_drain(&enq), 0);
	CHECK_EQ(F.credit, 1000);
	CHECK_EQ(F.bad, 0);
}

static void t_enq_few_credits(void)
{
	struct dlb2_hcw h[10];

	fake_reset(6, 16, 8);
	qes_of(h, 0, 10);
	CHECK_EQ(accd_enq_put(&enq, h, 10), 6);	/* what the pool had */
	CHECK_EQ(F.credit, 0);
	CHECK_EQ(F.lines, 2);
	CHECK_EQ(accd_enq_put(&enq, h + 6, 4), 0);	/* none: waits */
	CHECK_EQ(F.reads, 2);
	CHECK_EQ(F.cas, 1);		/* no CAS on an empty pool */
	F.credit += 3;			/* the workers give three back */
	CHECK_EQ(accd_enq_put(&enq, h + 6, 4), 3);
	F.credit += 5;
	CHECK_EQ(accd_enq_put(&enq, h + 9, 1), 1);
	CHECK_EQ(enq.credits.cache, 4);	/* quanta, or what there was */
	CHECK_EQ(accd_enq_drain(&enq), 0);
	CHECK_EQ(F.credit, 4);
	check_lines(0, 10);
	CHECK(F.credit_before_qe);
	CHECK_EQ(F.taken, 14);
}

static void t_enq_lost_race(void)
{
	struct dlb2_hcw h[4];

	fake_reset(100, 16, 8);
	qes_of(h, 0, 4);
	F.steal = 2;		/* the server's CPUs win the first two CASes */
	CHECK_EQ(accd_enq_put(&enq, h, 4), 4);
	CHECK_EQ(F.reads, 1);
	CHECK_EQ(F.cas, 3);	/* CAS(100) lost, CAS(99) lost, CAS(98) won */
	CHECK_EQ(F.cas_lost, 2);
	CHECK_EQ(enq.cas_lost, 2);
	CHECK_EQ(F.credit, 98 - 32);
	CHECK(F.credit_before_qe);
	check_lines(0, 4);
}

/* What the agent does between its rounds: reap, then the manager ahead. */
static void round_end(void)
{
	CHECK(accd_enq_reap(&enq) >= 0);
	CHECK_EQ(accd_enq_ahead(&enq), 0);
}

/* The workers dequeue what reached the port: its credits go back. */
static void workers_refill(void)
{
	F.credit += F.qes - F.refilled;
	F.refilled = F.qes;
}

/*
 * 1,000 QEs through a pool of 64 that the workers refill, the server's
 * CPUs winning three races, with the grant slot; with @ahead the agent's
 * round (reap, takes ahead of need) after each post.  Returns the QEs
 * enqueued.
 */
static uint64_t grant_run(bool ahead)
{
	struct dlb2_hcw h[32];
	uint64_t done = 0;
	int n;

	fake_reset(64, 4, 8);
	enq.grant_addr = (uintptr_t)&F.slot;
	enq.grant_rkey = GRANT_RKEY;
	enq.producers = 2;
	F.steal = 3;
	while (done < 1000) {
		qes_of(h, done, 32);
		n = accd_enq_put(&enq, h, 1000 - done < 32 ? 1000 - done : 32);
		if (n < 0)
			break;
		done += n;
		workers_refill();
		if (ahead)
			round_end();
	}
	return done;
}

/*
 * The grant slot (Documentation/accdirect/credits.rst): 1,000 QEs through
 * a pool of 64 that the workers refill, lost races; the agent "dies"
 * after every work request the device executes: the slot never gives
 * back more than the agent holds, and exactly that after every post.
 */
static void t_enq_grant(void)
{
	struct accd_reclaim r;
	unsigned int beats;

	CHECK_EQ(grant_run(false), 1000);
	CHECK_EQ(F.too_many, 0);
	CHECK_EQ(F.inexact, 0);
	CHECK_EQ(F.cas_lost, 3);
	CHECK_EQ(F.fenced, F.cas);	/* a result behind every CAS */
	CHECK(F.states >= F.cas + enq.lines_posted / 8);
	CHECK_EQ(F.slot.s.taken, F.taken);
	CHECK_EQ(F.slot.s.spent, 1000);
	CHECK_EQ(F.slot.s.begun, F.cas);
	CHECK_EQ(F.slot.s.folded, F.cas);
	CHECK(F.credit_before_qe);
	CHECK_EQ(F.overflow, 0);
	/* the agent dies now: the server gives back its cache */
	accd_grant_reclaim(&F.slot, &r);
	CHECK_EQ(r.held, enq.credits.cache);
	CHECK_EQ(r.doubt, 0);
	/* a beat: the state again, one more */
	beats = F.slot.s.beat;
	CHECK_EQ(accd_enq_beat(&enq), 0);
	CHECK_EQ(F.slot.s.beat, beats + 1);
	/* a clean end: counted returned first, then given back: nothing left */
	CHECK_EQ(accd_enq_drain(&enq), 0);
	CHECK_EQ(F.slot.s.returned, F.returned);
	accd_grant_reclaim(&F.slot, &r);
	CHECK_EQ(r.held, 0);
	CHECK_EQ(F.too_many, 0);
	CHECK_EQ(F.inexact, 0);
	CHECK_EQ(F.credit + 3, 64);	/* all back but the CPUs' three */
	CHECK_EQ(F.bad, 0);
}

/*
 * Credits ahead of need: a READ, then a compare-and-swap of the pool's
 * share (what it holds / producers), each moved on when its completion is
 * reaped; the enqueues spend the cache without waiting, and a new take
 * begins when fewer than a quanta are left.
 */
static void t_enq_ahead(void)
{
	struct dlb2_hcw h[16];
	uint64_t done = 0;

	fake_reset(1000, 4, 8);
	enq.producers = 4;
	CHECK_EQ(accd_enq_ahead(&enq), 0);	/* the READ, posted */
	CHECK_EQ(F.reads, 1);
	CHECK_EQ(enq.take, ACCD_TAKE_READ);
	CHECK_EQ(accd_enq_ahead(&enq), 0);	/* not reaped: nothing more */
	CHECK_EQ(F.cas, 0);
	round_end();				/* the CAS of 1000 / 4 */
	CHECK_EQ(F.cas, 1);
	CHECK_EQ(F.credit, 750);
	CHECK_EQ(enq.credits.cache, 0);		/* won, not known yet */
	round_end();
	CHECK_EQ(enq.credits.cache, 250);
	CHECK_EQ(enq.take, ACCD_TAKE_IDLE);
	CHECK_EQ(F.reads, 1);			/* a quanta or more: no take */
	while (done < 240) {
		qes_of(h, done, 16);
		CHECK_EQ(accd_enq_put(&enq, h, 16), 16);
		done += 16;
		round_end();
	}
	/*
	 * 26 left after the 14th put: a READ; the 15th spent 16 of them
	 * meanwhile, and the CAS of 750 / 4 followed: nothing waited.
	 */
	CHECK_EQ(enq.waits, 0);
	CHECK_EQ(F.reads, 2);
	CHECK_EQ(enq.take, ACCD_TAKE_CAS);
	round_end();
	CHECK_EQ(F.cas, 2);
	CHECK_EQ(F.credit, 750 - 187);
	CHECK_EQ(enq.credits.cache, 10 + 187);
	CHECK_EQ(enq.ahead, 2);
	CHECK_EQ(enq.reads, 2);
	check_lines(0, 240);
	CHECK(F.credit_before_qe);
	CHECK_EQ(accd_enq_drain(&enq), 0);
	CHECK_EQ(F.credit, 1000 - 240);
	CHECK_EQ(F.bad, 0);
	CHECK_EQ(F.overflow, 0);
}

/*
 * Ahead of need on a short pool: what there is; an empty pool stops the
 * takes ahead (an idle agent does not keep reading the word) until a take
 * on demand wins again; a lost race is retried with the value returned.
 */
static void t_enq_ahead_dry(void)
{
	struct dlb2_hcw h[8];

	fake_reset(10, 16, 8);
	enq.producers = 1;
	round_end();				/* READ */
	round_end();				/* CAS of all 10 */
	round_end();
	CHECK_EQ(enq.credits.cache, 10);
	CHECK_EQ(F.credit, 0);
	qes_of(h, 0, 8);
	CHECK_EQ(accd_enq_put(&enq, h, 8), 8);
	round_end();				/* 2 cached: READ */
	round_end();				/* it found 0: dry */
	CHECK_EQ(F.reads, 2);
	CHECK_EQ(enq.take, ACCD_TAKE_IDLE);
	round_end();
	round_end();
	CHECK_EQ(F.reads, 2);			/* dry: no READ */
	qes_of(h, 8, 4);
	/* short: a take on demand (READ: 0), then the 2 cached */
	CHECK_EQ(accd_enq_put(&enq, h, 4), 2);
	CHECK_EQ(F.reads, 3);
	CHECK_EQ(enq.waits, 1);
	CHECK_EQ(accd_enq_put(&enq, h + 2, 2), 0);	/* none */
	CHECK_EQ(F.reads, 4);
	CHECK_EQ(enq.waits, 2);
	F.credit += 5;				/* the workers give 5 back */
	CHECK_EQ(accd_enq_put(&enq, h + 2, 2), 2);	/* on demand: won */
	CHECK_EQ(enq.waits, 3);
	CHECK_EQ(F.reads, 5);
	CHECK_EQ(enq.credits.cache, 3);
	round_end();				/* no longer dry: READ */
	CHECK_EQ(F.reads, 6);
	round_end();				/* found 0 */
	CHECK_EQ(F.cas, 2);
	check_lines(0, 12);
	CHECK(F.credit_before_qe);

	/* a lost race: the CAS retried with the value it returned */
	fake_reset(100, 16, 8);
	enq.producers = 1;
	F.steal = 1;
	round_end();				/* READ: 100 */
	round_end();				/* CAS 100 -> 0: lost (99) */
	round_end();				/* CAS 99 -> 0: won */
	round_end();
	CHECK_EQ(F.cas, 2);
	CHECK_EQ(enq.cas_lost, 1);
	CHECK_EQ(enq.credits.cache, 99);
	CHECK_EQ(F.credit, 0);
	CHECK_EQ(enq.ahead, 1);
}

/*
 * The grant slot with the takes ahead of need (t_enq_grant's check at
 * every work request the device executes): the compare-and-swaps complete
 * while lines go out, and the agent ends with a take in flight.
 */
static void t_enq_ahead_grant(void)
{
	struct accd_reclaim r;
	struct dlb2_hcw h[8];
	uint64_t done;

	done = grant_run(true);
	CHECK_EQ(done, 1000);
	CHECK(enq.ahead > 0);
	CHECK_EQ(F.too_many, 0);
	CHECK_EQ(F.inexact, 0);
	CHECK_EQ(F.cas_lost, 3);
	CHECK_EQ(F.fenced, F.cas);
	CHECK_EQ(F.slot.s.spent, 1000);
	CHECK(F.credit_before_qe);
	CHECK_EQ(F.overflow, 0);
	/* a take ahead in flight, its CAS posted: the agent dies now */
	while (enq.take != ACCD_TAKE_CAS && enq.credits.cache >= enq.credits.quanta) {
		qes_of(h, done, 8);
		done += accd_enq_put(&enq, h, 8);
		workers_refill();
		round_end();
	}
	if (enq.take == ACCD_TAKE_READ)
		round_end();
	CHECK_EQ(enq.take, ACCD_TAKE_CAS);
	accd_grant_reclaim(&F.slot, &r);
	CHECK_EQ(r.held, F.taken - F.qes - F.returned);
	CHECK_EQ(r.doubt, 0);
	/* or ends cleanly: the take's outcome folded, everything back */
	CHECK_EQ(accd_enq_drain(&enq), 0);
	CHECK_EQ(enq.take, ACCD_TAKE_IDLE);
	accd_grant_reclaim(&F.slot, &r);
	CHECK_EQ(r.held, 0);
	CHECK_EQ(F.slot.s.folded, F.slot.s.begun);
	CHECK_EQ(F.too_many, 0);
	CHECK_EQ(F.inexact, 0);
	CHECK_EQ(F.credit + 3, 64);
	CHECK_EQ(F.bad, 0);
}

static void t_enq_errors(void)
{
	struct dlb2_hcw h[8];
	int ret;

	/* a producer port not registered: the unsignalled write's error */
	fake_reset(100, 16, 8);
	qes_of(h, 0, 8);
	enq.pp_rkey = PP_RKEY + 1;
	CHECK_EQ(accd_enq_put(&enq, h, 4), 4);	/* posted */
	ret = accd_enq_put(&enq, h + 4, 4);	/* reaps the error */
	CHECK_EQ(ret, -EACCES);
	CHECK_EQ(F.lines, 0);
	CHECK_EQ(accd_enq_drain(&enq), -EIO);	/* flushed */

	/* no access to the credit word: nothing written */
	fake_reset(100, 16, 8);
	qes_of(h, 0, 4);
	enq.credit_rkey = CREDIT_RKEY + 1;
	CHECK_EQ(accd_enq_put(&enq, h, 4), -EACCES);
	CHECK_EQ(F.credit, 100);
	CHECK_EQ(F.lines, 0);
}

/* libdlb2_rdma's own credit calls, posted signalled, on the same device. */
static void t_rc_give(void)
{
	fake_reset(7, 16, 8);
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
		{ "QE of a metadata entry: flow, queue, type, priority", t_pack },
		{ "ring polling", t_ready },
		{ "10 QEs, 3 lines, credits in a portion of 32, returned", t_enq },
		{ "1000 QEs: unsignalled writes, the send queue never overrun", t_enq_cadence },
		{ "a short pool: what there is, then waits", t_enq_few_credits },
		{ "lost compare-and-swap races", t_enq_lost_race },
		{ "the grant slot: never more than the agent holds, exact after each post", t_enq_grant },
		{ "credits ahead of need: READ, then CAS of the pool's share, no wait", t_enq_ahead },
		{ "ahead of need: a short pool, an empty one, a lost race", t_enq_ahead_dry },
		{ "ahead of need with the grant slot: exact, a take in flight at the end", t_enq_ahead_grant },
		{ "remote access errors", t_enq_errors },
		{ "credit give and take (libdlb2_rdma)", t_rc_give },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_test(cases[i].name, cases[i].fn);
	return tap_done() ? -1 : 0;
}
