// SPDX-License-Identifier: GPL-2.0
/*
 * accdirect-server: the host side of AccDirect.  Offers agents the DLB
 * producer port window (a dma-buf MR or, through peermem_dlb, a peer-memory
 * MR: -m) and the domain's
 * credit word, offers clients payload slots, and runs one worker thread per
 * load-balanced port that dequeues the QEs the agent enqueued, checks the
 * payload each points at and marks its slot done.  See README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libdlb2.h"
#include "libdlb2_dp.h"
#include "libdlb2_rdma.h"
#include "accdirect.h"

#define MAX_WORKERS	16

static struct {
	int dev;
	const char *domain, *queue, *producer, *ip;
	char *workers[MAX_WORKERS];
	int nr_workers;
	uint64_t count;
	uint32_t nr_slots, slot_size;
	enum dlb2_mr_path mr;
} opt = {
	.domain = "accdirect", .queue = "requests", .producer = "agent",
	.nr_slots = 64, .slot_size = 1024,
};

static uint8_t *slots;
static uint64_t *done;
static uint64_t processed, bad;
static volatile sig_atomic_t stop;

struct worker {
	pthread_t thread;
	struct dlb2_port *port;
	uint64_t processed;
};

static void on_signal(int sig __attribute__((unused)))
{
	stop = 1;
}

/* Is the payload at @addr, @size bytes, the one its first word names? */
static int check_payload(uint64_t addr, uint16_t size, uint32_t *slot)
{
	uintptr_t base = (uintptr_t)slots;
	const uint64_t *w = (const uint64_t *)(uintptr_t)addr;
	uint64_t seq;
	uint32_t i;

	if (addr < base || addr >= base + (uint64_t)opt.nr_slots * opt.slot_size ||
	    (addr - base) % opt.slot_size)
		return -1;
	*slot = (addr - base) / opt.slot_size;
	seq = (w[0] ^ accd_payload_word(0, 0)) >> 16;
	if (size != accd_payload_size(seq, opt.slot_size))
		return -1;
	for (i = 0; i < size / 8; i++)
		if (w[i] != accd_payload_word(seq, i))
			return -1;
	/* the client waits for this before it reuses the slot */
	__atomic_store_n(&done[*slot], seq + 1, __ATOMIC_RELEASE);
	return 0;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct dlb2_cq_entry e[16];
	uint32_t slot;
	int n, i;

	while (!stop) {
		n = dlb2_dequeue_burst(w->port, e, 16);
		if (!n) {
			usleep(50);
			continue;
		}
		for (i = 0; i < n; i++)
			if (check_payload(e[i].data, e[i].opaque, &slot))
				__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
		dlb2_release(w->port, n);
		w->processed += n;
		__atomic_fetch_add(&processed, n, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Serve one agent or client connection request.  Returns its role. */
static int serve_one(struct accd_conn *l, struct accd_conn *c,
		     struct dlb2_port *pp, int qid)
{
	int mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct accd_hello hello;
	struct ibv_mr *a, *b;
	int ret;

	ret = accd_get_request(l, c, &hello, sizeof(hello));
	if (!ret)
		ret = accd_setup_qp(c, NULL);
	if (ret)
		return ret;
	if (hello.role == ACCD_ROLE_AGENT) {
		unsigned int pool = DLB2_CREDIT_POOL_LDB;
		struct accd_dlb_offer o = {
			.pp_addr = (uintptr_t)pp->pp_map,
			.credit_addr = (uintptr_t)pp->pool[pool],
			.qid = qid,
			.sched = DLB2_SCHED(DLB2_SCHED_UNORDERED, 0),
		};

		enum dlb2_mr_path used;
		char why[1024];

		/*
		 * The agent's atomics on the credit word are executed by this
		 * host's RDMA device, the responder: they must be atomic with
		 * the workers' CPU atomics on the same word.
		 */
		ret = dlb2_rc_check_device(c->id->verbs);
		if (ret) {
			fprintf(stderr, "accdirect-server: %s\n",
				ret == -EOPNOTSUPP ?
				dlb2_rc_strerror(why, sizeof(why)) : strerror(-ret));
			rdma_reject(c->id, NULL, 0);
			return ret;
		}

		/* the producer port: through its dma-buf or peermem_dlb */
		a = dlb2_rdma_reg_pp(c->pd, pp->fd, pp->pp_map, mr_access,
				     opt.mr, &used);
		if (!a) {
			ret = -errno;
			fprintf(stderr, "accdirect-server: registering the producer port (-m %s): %s%s\n",
				dlb2_mr_path_name(opt.mr), strerror(-ret),
				opt.mr == DLB2_MR_DMABUF ? "" :
				" (is peermem_dlb loaded?)");
			rdma_reject(c->id, NULL, 0);
			return ret;
		}
		printf("accdirect-server: producer port registered through %s\n",
		       used == DLB2_MR_DMABUF ? "its dma-buf" : "peer memory");
		fflush(stdout);
		b = ibv_reg_mr(c->pd, pp->pool[pool], 8, mr_access |
			       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
		if (!b)
			return -errno;
		o.pp_rkey = a->rkey;
		o.credit_rkey = b->rkey;
		ret = accd_accept(c, &o, sizeof(o));
	} else if (hello.role == ACCD_ROLE_CLIENT) {
		struct accd_payload_offer o = {
			.slots_addr = (uintptr_t)slots,
			.done_addr = (uintptr_t)done,
			.nr_slots = opt.nr_slots, .slot_size = opt.slot_size,
		};

		a = ibv_reg_mr(c->pd, slots, (size_t)opt.nr_slots * opt.slot_size,
			       mr_access);
		b = ibv_reg_mr(c->pd, done, opt.nr_slots * sizeof(*done),
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
		if (!a || !b)
			return -errno;
		o.slots_rkey = a->rkey;
		o.done_rkey = b->rkey;
		ret = accd_accept(c, &o, sizeof(o));
	} else {
		rdma_reject(c->id, NULL, 0);
		return -EPROTO;
	}
	return ret ? ret : (int)hello.role;
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: accdirect-server -a IP [-d DEV] [-D DOMAIN] [-q QUEUE] [-p PORT]\n"
		"                        [-w PORT[,PORT...]] [-n COUNT] [-s SLOTS] [-z SLOT_SIZE]\n"
		"                        [-m auto|dmabuf|peermem]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker workers[MAX_WORKERS] = { 0 };
	struct accd_conn l, conn[2];
	struct dlb2_port *pp;
	char *list = "w0,w1", *tok;
	int c, i, qid, ret, roles = 0;
	double t0 = 0;
	char err[256];

	while ((c = getopt(argc, argv, "a:d:D:q:p:w:n:s:z:m:")) != -1) {
		switch (c) {
		case 'a': opt.ip = optarg; break;
		case 'd': opt.dev = atoi(optarg); break;
		case 'D': opt.domain = optarg; break;
		case 'q': opt.queue = optarg; break;
		case 'p': opt.producer = optarg; break;
		case 'w': list = optarg; break;
		case 'n': opt.count = strtoull(optarg, NULL, 0); break;
		case 's': opt.nr_slots = strtoul(optarg, NULL, 0); break;
		case 'z': opt.slot_size = strtoul(optarg, NULL, 0); break;
		case 'm':
			if (dlb2_mr_path_parse(optarg, &opt.mr))
				usage();
			break;
		default: usage();
		}
	}
	if (!opt.ip || !opt.nr_slots || opt.slot_size < 64 ||
	    opt.slot_size > 65528 || opt.slot_size % 8)
		usage();
	list = strdup(list);
	for (tok = strtok(list, ","); tok && opt.nr_workers < MAX_WORKERS;
	     tok = strtok(NULL, ","))
		opt.workers[opt.nr_workers++] = tok;

	if (dlb2_queue_id(opt.dev, opt.domain, opt.queue, &qid) ||
	    dlb2_port_open(opt.dev, opt.domain, opt.producer, NULL, &pp)) {
		fprintf(stderr, "accdirect-server: %s\n", dlb2_strerror(err, sizeof(err)));
		return 1;
	}
	slots = aligned_alloc(4096, (size_t)opt.nr_slots * opt.slot_size);
	done = calloc(opt.nr_slots, sizeof(*done));
	if (!slots || !done)
		return 1;
	memset(slots, 0, (size_t)opt.nr_slots * opt.slot_size);
	for (i = 0; i < opt.nr_workers; i++) {
		if (dlb2_port_open(opt.dev, opt.domain, opt.workers[i], NULL,
				   &workers[i].port)) {
			fprintf(stderr, "accdirect-server: worker %s: %s\n",
				opt.workers[i], dlb2_strerror(err, sizeof(err)));
			return 1;
		}
		pthread_create(&workers[i].thread, NULL, work, &workers[i]);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	ret = accd_listen(&l, opt.ip, ACCD_SERVER_PORT);
	if (ret) {
		fprintf(stderr, "accdirect-server: listen on %s: %s\n", opt.ip, strerror(-ret));
		return 1;
	}
	printf("accdirect-server: queue %s (id %d), %d workers, listening on %s:%d\n",
	       opt.queue, qid, opt.nr_workers, opt.ip, ACCD_SERVER_PORT);
	fflush(stdout);
	/* one agent and one client */
	for (i = 0; i < 2; i++) {
		ret = serve_one(&l, &conn[i], pp, qid);
		if (ret < 0 || roles & ret) {
			fprintf(stderr, "accdirect-server: connection: %s\n",
				ret < 0 ? strerror(-ret) : "role taken");
			return 1;
		}
		roles |= ret;
		printf("accdirect-server: %s connected\n",
		       ret == ACCD_ROLE_AGENT ? "agent" : "client");
		fflush(stdout);
	}
	t0 = accd_now();
	while (!stop && (!opt.count ||
			 __atomic_load_n(&processed, __ATOMIC_RELAXED) < opt.count))
		usleep(1000);
	stop = 1;
	for (i = 0; i < opt.nr_workers; i++) {
		pthread_join(workers[i].thread, NULL);
		printf("accdirect-server: worker %s processed %lu\n",
		       opt.workers[i], (unsigned long)workers[i].processed);
		dlb2_port_close(workers[i].port);
	}
	printf("accdirect-server: %lu requests processed, %lu bad, in %.1f s (%.0f/s)\n",
	       (unsigned long)processed, (unsigned long)bad, accd_now() - t0,
	       processed / (accd_now() - t0));
	for (i = 0; i < 2; i++)
		accd_close(&conn[i]);
	accd_close(&l);
	dlb2_port_close(pp);
	return bad || (opt.count && processed != opt.count);
}
