// SPDX-License-Identifier: GPL-2.0
/*
 * accdirect-server: the host side of AccDirect, a thin user of
 * libaccdirect (tools/lib/accdirect).  Offers each agent a DLB producer
 * port (a dma-buf MR or, through peermem_dlb, a peer-memory MR: -m) and the
 * domain's credit word, offers each client payload slots, and runs one
 * worker thread per load-balanced port: each request's payload is checked
 * byte for byte (pattern.h) and answered, by RDMA SEND, with its sequence
 * number.  With -c it is also the dlb-lib baseline: a thread of its own
 * takes the requests of clients that connect to it as to an agent and
 * enqueues them with the CPU (libdlb2).  At the end it prints its CPU time
 * per request.  With -F it checks flow atomicity: no two workers handle
 * requests of one flow at the same time.  See README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "accdirect.h"
#include "pattern.h"
#include "version.h"

#define MAX_LIST	64

static volatile int stop;
static uint32_t slot_size = 1024;

static void on_signal(int sig __attribute__((unused)))
{
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The first bad payloads, logged: what the QE and the payload say. */
static int bad_payload(const struct accd_request *r, uint64_t seq,
		       const char *what)
{
	static unsigned int logged;
	const volatile uint64_t *w = r->payload;
	uint64_t later = seq;
	double t0 = now(), t = t0;

	if (__atomic_fetch_add(&logged, 1, __ATOMIC_RELAXED) >= 8)
		return -EBADMSG;
	while (later == seq && (t = now()) - t0 < 0.01)
		later = (w[0] ^ accd_payload_word(0, 0)) >> 16;
	fprintf(stderr, "accdirect-server: bad %s: client %u slot %u, QE size %u, payload of request %llu (size %u), worker %u; after %.0f us: request %llu\n",
		what, r->client, r->slot, r->size,
		(unsigned long long)seq, accd_payload_size(seq, slot_size),
		r->worker, (t - t0) * 1e6, (unsigned long long)later);
	return -EBADMSG;
}

/* Is the payload the one its first word names?  Answer its seq. */
static int check_payload(void *arg, const struct accd_request *r,
			 uint64_t *value)
{
	const uint64_t *w = r->payload;
	uint64_t seq;
	uint32_t i;

	(void)arg;
	seq = (w[0] ^ accd_payload_word(0, 0)) >> 16;
	if (r->size != accd_payload_size(seq, slot_size))
		return bad_payload(r, seq, "size");
	for (i = 0; i < r->size / 8; i++)
		if (w[i] != accd_payload_word(seq, i))
			return bad_payload(r, seq, "bytes");
	*value = seq;
	return 0;
}

/*
 * -F: the flow check.  While a worker handles a request, the request's
 * (queue, flow) is marked with the worker; a request that finds its flow
 * marked by another worker is counted as an overlap.  An atomic queue
 * keeps a flow on one worker until the worker has released its QEs, which
 * it does after the burst's handlers ran: 0 overlaps.  A count is a lower
 * bound (two overlaps at once are seen as one).
 */
static struct {
	uint32_t *busy;			/* per (queue, flow): worker + 1, 0: none */
	uint32_t *last;			/* per (queue, flow): the last worker + 1 */
	double hold;			/* seconds each request holds its flow */
	uint64_t requests, flows, overlaps, moves;
	uint64_t sched[4];		/* requests by the QE's scheduling type */
	uint64_t prio[8];		/* requests by the QE's priority */
} fc;

static int check_flow(void *arg, const struct accd_request *r, uint64_t *value)
{
	uint32_t key = (uint32_t)r->queue << 16 | r->flow, me = r->worker + 1;
	uint32_t prev;
	double until;
	int ret;

	prev = __atomic_exchange_n(&fc.busy[key], me, __ATOMIC_SEQ_CST);
	if (prev)
		__atomic_fetch_add(&fc.overlaps, 1, __ATOMIC_RELAXED);
	prev = __atomic_exchange_n(&fc.last[key], me, __ATOMIC_RELAXED);
	if (!prev)
		__atomic_fetch_add(&fc.flows, 1, __ATOMIC_RELAXED);
	else if (prev != me)
		__atomic_fetch_add(&fc.moves, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&fc.sched[r->sched_type & 3], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&fc.prio[r->prio & 7], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&fc.requests, 1, __ATOMIC_RELAXED);
	ret = check_payload(arg, r, value);
	/* the work a real handler would do, holding the flow */
	for (until = now() + fc.hold; now() < until;)
		;
	/* unmarked unless another worker overlapped and marked it since */
	__atomic_compare_exchange_n(&fc.busy[key], &me, 0, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return ret;
}

/* User and system CPU seconds of the process so far. */
static void cpu_times(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	*sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double thread_cpu(pthread_t t)
{
	struct timespec ts;
	clockid_t id;

	if (pthread_getcpuclockid(t, &id) || clock_gettime(id, &ts))
		return 0;
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The dlb-lib baseline's enqueue thread. */
static void *cpu_agent_run(void *a)
{
	int ret = accd_agent_run(a, 0, 0, &stop);

	if (ret)
		fprintf(stderr, "accdirect-server: CPU enqueue: %s\n", strerror(-ret));
	return NULL;
}

/* "a,b,c" into @v (at most MAX_LIST): the count, 0 for an empty item. */
static unsigned int split(char *s, const char **v)
{
	unsigned int n = 0;
	char *tok, *save;

	for (tok = strtok_r(s, ",", &save); tok && n < MAX_LIST;
	     tok = strtok_r(NULL, ",", &save))
		v[n++] = tok;
	return n;
}

/* The usage on @f, then exit with @status (0: asked for, 2: an error). */
static void usage(FILE *f, int status)
{
	fprintf(f,
		"Usage: accdirect-server -a IP [-d DEV] [-D DOMAIN] [-q QUEUE[,QUEUE...]]\n"
		"                        [-p PORT[,PORT...]] [-w PORT[,PORT...]] [-n COUNT]\n"
		"                        [-s SLOTS] [-z SLOT_SIZE] [-N MAX_CLIENTS] [-b BURST]\n"
		"                        [-m auto|dmabuf|peermem] [-B SPIN,YIELD,SLEEP_US]\n"
		"                        [-c CPU_ENQUEUE_IP] [-F HOLD_US] [-L LEASE]\n"
		"                        [-x NEXT_QUEUE:SINK_PORT]\n"
		"       accdirect-server -h | --help\n"
		"       accdirect-server --version\n");
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *queues[MAX_LIST], *producers[MAX_LIST], *workers[MAX_LIST];
	char qlist[] = "requests", plist[] = "agent", wlist[] = "w0,w1";
	struct accd_server_attr attr = {
		.domain = "accdirect", .log = stdout, .name = "accdirect-server",
	};
	struct accd_agent_attr cpu = { .log = stdout, .name = "accdirect-server" };
	struct accd_agent_stats ast;
	struct accd_server_stats st;
	struct accd_agent *ca = NULL;
	struct accd_server *s;
	pthread_t ct;
	uint64_t count = 0;
	unsigned int i;
	double t0, u0, s0, u1, s1, enq_cpu = 0;
	bool flow_check = false;
	char *end;
	int c, ret;

	attr.nr_queues = split(qlist, queues);
	attr.nr_producers = split(plist, producers);
	attr.nr_workers = split(wlist, workers);
	while ((c = getopt_long(argc, argv, "a:d:D:q:p:w:n:s:z:m:N:b:B:c:F:L:x:h",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'a': attr.ip = optarg; break;
		case 'd': attr.dev = atoi(optarg); break;
		case 'D': attr.domain = optarg; break;
		case 'q': attr.nr_queues = split(optarg, queues); break;
		case 'p': attr.nr_producers = split(optarg, producers); break;
		case 'w': attr.nr_workers = split(optarg, workers); break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 's': attr.nr_slots = strtoul(optarg, NULL, 0); break;
		case 'z': attr.slot_size = strtoul(optarg, NULL, 0); break;
		case 'N': attr.max_clients = strtoul(optarg, NULL, 0); break;
		case 'b': attr.burst = strtoul(optarg, NULL, 0); break;
		case 'B':
			if (accd_backoff_parse(optarg, &attr.backoff))
				usage(stderr, 2);
			break;
		case 'c': cpu.ip = optarg; break;
		case 'F':
			fc.hold = strtod(optarg, &end) / 1e6;
			if (end == optarg || *end || !(fc.hold >= 0) || fc.hold > 1)
				usage(stderr, 2);
			flow_check = true;
			break;
		case 'L':
			attr.lease = strtod(optarg, &end);
			if (end == optarg || *end || !(attr.lease >= 0) ||
			    attr.lease > 3600)
				usage(stderr, 2);
			if (!attr.lease)
				attr.lease = -1;	/* none */
			break;
		case 'm':
			if (dlb2_mr_path_parse(optarg, &attr.mr))
				usage(stderr, 2);
			break;
		case 'x':
			attr.next_queue = optarg;
			end = strchr(optarg, ':');
			if (!end || end == optarg || !end[1])
				usage(stderr, 2);
			*end = 0;
			attr.sink = end + 1;
			break;
		case 'h': usage(stdout, 0); break;
		case 'V':
			printf("accdirect-server %s\n", ACCDIRECT_VERSION);
			return 0;
		default: usage(stderr, 2);
		}
	}
	if (!attr.slot_size)
		attr.slot_size = 1024;
	slot_size = attr.slot_size;
	if (!attr.ip || optind != argc || !attr.nr_queues ||
	    attr.nr_queues > ACCD_MAX_QUEUES || !attr.nr_producers ||
	    !attr.nr_workers || attr.slot_size < 64 || attr.slot_size > 65528 ||
	    attr.slot_size % 8 || attr.burst > 64)
		usage(stderr, 2);
	attr.queues = queues;
	attr.producers = producers;
	attr.workers = workers;

	ret = accd_server_create(&attr, &s);
	if (ret) {
		fprintf(stderr, "accdirect-server: %s\n", strerror(-ret));
		return 1;
	}
	if (flow_check) {
		fc.busy = calloc(ACCD_MAX_QUEUES << 16, sizeof(*fc.busy));
		fc.last = calloc(ACCD_MAX_QUEUES << 16, sizeof(*fc.last));
		if (!fc.busy || !fc.last) {
			fprintf(stderr, "accdirect-server: %s\n", strerror(ENOMEM));
			return 1;
		}
	}
	accd_server_set_handler(s, flow_check ? check_flow : check_payload, NULL);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (cpu.ip) {
		cpu.backoff = attr.backoff;
		ret = accd_server_cpu_agent(s, &cpu, &ca);
		if (ret) {
			fprintf(stderr, "accdirect-server: CPU enqueue at %s: %s\n",
				cpu.ip, strerror(-ret));
			return 1;
		}
	}
	ret = accd_server_start(s, ACCD_SERVER_THREADS);
	if (!ret && ca && pthread_create(&ct, NULL, cpu_agent_run, ca))
		ret = -EAGAIN;
	if (ret) {
		fprintf(stderr, "accdirect-server: starting: %s\n", strerror(-ret));
		return 1;
	}
	printf("accdirect-server: queue %s%s, %u workers, %u producer ports, listening on %s:%d\n",
	       queues[0], attr.nr_queues > 1 ? " (and more)" : "",
	       attr.nr_workers, attr.nr_producers, attr.ip, ACCD_SERVER_PORT);
	fflush(stdout);
	/* the clock starts with the first request */
	do {
		accd_server_stats(s, &st);
		if (!st.processed)
			accd_server_wait(s, 1, &stop);
	} while (!st.processed && !stop);
	t0 = now();
	cpu_times(&u0, &s0);
	if (ca)
		enq_cpu = thread_cpu(ct);
	accd_server_wait(s, count, &stop);
	cpu_times(&u1, &s1);
	if (ca)
		enq_cpu = thread_cpu(ct) - enq_cpu;
	accd_server_stop(s);
	accd_server_stats(s, &st);
	t0 = now() - t0;
	for (i = 0; i < attr.nr_workers && i < 64; i++)
		printf("accdirect-server: worker %s processed %lu\n", workers[i],
		       (unsigned long)st.worker[i]);
	printf("accdirect-server: %lu requests processed, %lu bad, in %.1f s (%.0f/s); %lu responses, %u agents, %u clients\n",
	       (unsigned long)st.processed, (unsigned long)st.bad, t0,
	       t0 > 0 ? st.processed / t0 : 0.0, (unsigned long)st.responses,
	       st.agents, st.clients);
	if (attr.next_queue)
		printf("accdirect-server: next stage %s: %lu requests forwarded, %lu answered by %s, %lu of them out of their client's order\n",
		       attr.next_queue, (unsigned long)st.forwarded,
		       (unsigned long)st.processed, attr.sink,
		       (unsigned long)st.out_of_order);
	/* what agents that went away held, given back */
	printf("accdirect-server: credits: %lu reclaimed from %u agents gone, %lu in doubt\n",
	       (unsigned long)st.reclaimed, st.agents_gone,
	       (unsigned long)st.doubt);
	if (flow_check)
		printf("accdirect-server: flow check: %lu requests of %lu flows, %lu overlapping their flow on another worker, %lu moves between workers; QEs %lu atomic, %lu unordered, %lu ordered, %lu directed\n",
		       (unsigned long)fc.requests, (unsigned long)fc.flows,
		       (unsigned long)fc.overlaps, (unsigned long)fc.moves,
		       (unsigned long)fc.sched[DLB2_SCHED_ATOMIC],
		       (unsigned long)fc.sched[DLB2_SCHED_UNORDERED],
		       (unsigned long)fc.sched[DLB2_SCHED_ORDERED],
		       (unsigned long)fc.sched[DLB2_SCHED_DIRECTED]);
	if (flow_check)
		printf("accdirect-server: flow check: QEs by priority 0-7: %lu %lu %lu %lu %lu %lu %lu %lu\n",
		       (unsigned long)fc.prio[0], (unsigned long)fc.prio[1],
		       (unsigned long)fc.prio[2], (unsigned long)fc.prio[3],
		       (unsigned long)fc.prio[4], (unsigned long)fc.prio[5],
		       (unsigned long)fc.prio[6], (unsigned long)fc.prio[7]);
	/* the host's CPU per request (the workers poll: idle time counts) */
	if (st.processed)
		printf("accdirect-server: CPU %.3f s user, %.3f s system: %.1f us per request; of which enqueueing %.1f us\n",
		       u1 - u0, s1 - s0,
		       (u1 - u0 + s1 - s0) * 1e6 / st.processed,
		       enq_cpu * 1e6 / st.processed);
	fflush(stdout);
	if (ca) {
		stop = 1;
		pthread_join(ct, NULL);
		accd_agent_stats(ca, &ast);
		printf("accdirect-server: CPU enqueue: %lu requests enqueued, %u clients\n",
		       (unsigned long)ast.enqueued, ast.clients);
		if (accd_agent_destroy(ca))
			ret = 1;
	}
	/* the last responses, and the agents' credits coming back */
	accd_server_destroy(s, 10);
	return ret || st.bad || (count && st.processed != count);
}
