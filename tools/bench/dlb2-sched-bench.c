// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2-sched-bench: what the DLB's scheduler does with work, counted in
 * QEs (not in time, which under TCG says nothing about hardware).
 *
 *   balance   load balance across workers (the AccDirect paper's Fig. 13
 *             analogue): one atomic queue, W worker ports of CQ depth D,
 *             a producer spreading N QEs over F flows; each worker thread
 *             dequeues, spins for a service time and completes.  Prints
 *             each worker's share and the coefficient of variation (CV)
 *             of the per-worker counts, for every F and D.
 *   priority  priority isolation under backlog (Fig. 12 analogue): one
 *             worker port of CQ depth D; a backlog of L low-priority QEs
 *             kept constant; then H high-priority QEs, each enqueued alone
 *             and followed by dequeues until it comes out.  Prints how
 *             many QEs the worker received ahead of each high-priority QE
 *             (mean, max), for three arrangements: low and high in one
 *             queue at one priority (FIFO: no isolation), one queue with
 *             QE priorities, and two queues linked at slot priorities 0
 *             and 7.
 *
 * Uses dlb2.ko through libdlb2 on device 0; creates and destroys a domain
 * named "schedbench".  Exit status 0 when every QE came out exactly once
 * with its payload, 1 otherwise, 2 on usage or set-up errors.
 *
 * Usage: dlb2-sched-bench balance [-w WORKERS] [-n QES] [-s SPIN]
 *        dlb2-sched-bench priority [-l BACKLOG] [-H HIGH]
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libdlb2.h"
#include "libdlb2_dp.h"

#define DOM		"schedbench"
#define MAX_WORKERS	8
#define BURST		32

static int fail(const char *what)
{
	char msg[4096];

	fprintf(stderr, "dlb2-sched-bench: %s: %s\n", what,
		dlb2_strerror(msg, sizeof(msg)));
	dlb2_domain_destroy(0, DOM);
	exit(2);
}

static void add_queue(const char *name, int sched)
{
	struct dlb2_queue_attr qa = DLB2_QUEUE_ATTR_INIT;

	qa.sched = sched;
	if (sched == DLB2_QATOMIC)
		qa.atomic_inflights = 1024;
	if (dlb2_queue_add(0, DOM, name, &qa))
		fail(name);
}

static void add_port(const char *name, int depth)
{
	struct dlb2_port_attr pa = DLB2_PORT_ATTR_INIT;

	pa.cq_depth = depth;
	if (dlb2_port_add(0, DOM, name, &pa))
		fail(name);
}

static int queue_id(const char *name)
{
	int id;

	if (dlb2_queue_id(0, DOM, name, &id))
		fail(name);
	return id;
}

static struct dlb2_port *open_port(const char *name)
{
	struct dlb2_port *p;

	if (dlb2_port_open(0, DOM, name, NULL, &p))
		fail(name);
	return p;
}

/* Enqueue one HCW, waiting for a credit. */
static void enqueue1(struct dlb2_port *p, const struct dlb2_hcw *h)
{
	int rc;

	while ((rc = dlb2_enqueue_burst(p, h, 1)) != 1) {
		if (rc != -ENOSPC) {
			fprintf(stderr, "dlb2-sched-bench: enqueue: %s\n", strerror(-rc));
			exit(1);
		}
	}
}

/* ------------------------------------------------------------- balance */

struct worker {
	pthread_t thread;
	struct dlb2_port *port;
	unsigned long count;
	unsigned long bad;
	unsigned long spin;
	unsigned char *seen;
	unsigned long n;
};

static atomic_ulong done;
static volatile unsigned long sink;

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct dlb2_cq_entry ev[BURST];
	unsigned long i, s;
	int n, k;

	while (atomic_load(&done) < w->n) {
		n = dlb2_dequeue_burst(w->port, ev, BURST);
		if (n <= 0)
			continue;
		for (k = 0; k < n; k++) {
			i = ev[k].data;
			/* each QE exactly once (the array is shared) */
			if (i >= w->n || __atomic_exchange_n(&w->seen[i], 1, __ATOMIC_RELAXED))
				w->bad++;
			for (s = 0; s < w->spin; s++)
				sink += s;
		}
		dlb2_release(w->port, n);
		w->count += n;
		atomic_fetch_add(&done, n);
	}
	return NULL;
}

static int balance_run(int workers, int depth, int flows, unsigned long n,
		       unsigned long spin, bool print_header)
{
	struct worker w[MAX_WORKERS] = { 0 };
	struct dlb2_hcw h[BURST];
	unsigned char *seen;
	struct dlb2_port *prod;
	char name[16];
	double mean = 0, var = 0;
	unsigned long i, bad = 0, lo = ~0ul, hi = 0;
	int q, k, m, rc;

	dlb2_domain_destroy(0, DOM);
	if (dlb2_domain_create(0, DOM) || dlb2_domain_set_credits(0, DOM, 2048, 64))
		fail("domain");
	add_queue("q", DLB2_QATOMIC);
	add_port("prod", 8);			/* producer only: no links */
	for (k = 0; k < workers; k++) {
		snprintf(name, sizeof(name), "w%d", k);
		add_port(name, depth);
		if (dlb2_link_add(0, DOM, name, "q", 0))
			fail("link");
	}
	if (dlb2_domain_enable(0, DOM))
		fail("enable");
	q = queue_id("q");
	prod = open_port("prod");
	seen = calloc(n, 1);
	if (!seen)
		return -ENOMEM;
	atomic_store(&done, 0);
	for (k = 0; k < workers; k++) {
		snprintf(name, sizeof(name), "w%d", k);
		w[k].port = open_port(name);
		w[k].spin = spin;
		w[k].seen = seen;
		w[k].n = n;
		pthread_create(&w[k].thread, NULL, worker_main, &w[k]);
	}
	for (i = 0; i < n; i += m) {
		m = n - i < BURST ? n - i : BURST;
		for (k = 0; k < m; k++)
			dlb2_hcw_new(&h[k], q, DLB2_SCHED_ATOMIC, 0,
				     (i + k) % flows, i + k, 0);
		for (k = 0; k < m; k += rc) {
			rc = dlb2_enqueue_burst(prod, h + k, m - k);
			if (rc == -ENOSPC)
				rc = 0;
			else if (rc < 0)
				return rc;
		}
	}
	for (k = 0; k < workers; k++) {
		pthread_join(w[k].thread, NULL);
		bad += w[k].bad;
		mean += w[k].count;
	}
	for (i = 0; i < n; i++)
		bad += !seen[i];
	mean /= workers;
	for (k = 0; k < workers; k++) {
		var += (w[k].count - mean) * (w[k].count - mean);
		lo = w[k].count < lo ? w[k].count : lo;
		hi = w[k].count > hi ? w[k].count : hi;
	}
	var /= workers;

	if (print_header)
		printf("%6s %6s %9s %8s %8s  %s\n", "flows", "depth", "QEs", "CV",
		       "max/min", "per-worker QEs");
	printf("%6d %6d %9lu %8.3f %8.2f ", flows, depth, n, sqrt(var) / mean,
	       lo ? (double)hi / lo : INFINITY);
	for (k = 0; k < workers; k++)
		printf(" %lu", w[k].count);
	printf("%s\n", bad ? "  LOST OR DUPLICATED QEs" : "");

	for (k = 0; k < workers; k++)
		dlb2_port_close(w[k].port);
	dlb2_port_close(prod);
	free(seen);
	dlb2_domain_destroy(0, DOM);
	return bad ? 1 : 0;
}

/* ------------------------------------------------------------ priority */

enum arrangement { ONE_QUEUE_FIFO, ONE_QUEUE_QE_PRIO, TWO_QUEUES_SLOT_PRIO };

static const char *const arrangement_name[] = {
	[ONE_QUEUE_FIFO] = "one queue, one priority",
	[ONE_QUEUE_QE_PRIO] = "one queue, QE priority 0 / 7",
	[TWO_QUEUES_SLOT_PRIO] = "two queues, slot priority 0 / 7",
};

#define HIGH_TAG	(1ull << 63)

static int priority_run(enum arrangement a, int depth, unsigned long backlog,
			unsigned long high, bool print_header)
{
	struct dlb2_port *prod, *w;
	struct dlb2_cq_entry ev;
	struct dlb2_hcw h;
	unsigned long k, ahead, sum = 0, max = 0, lows = 0, bad = 0, next_high;
	int qlo, qhi, prio_lo = 0, rc;

	dlb2_domain_destroy(0, DOM);
	if (dlb2_domain_create(0, DOM) || dlb2_domain_set_credits(0, DOM, 2048, 64))
		fail("domain");
	add_queue("lo", DLB2_QUNORDERED);
	if (a == TWO_QUEUES_SLOT_PRIO)
		add_queue("hi", DLB2_QUNORDERED);
	add_port("prod", 8);
	add_port("w", depth);
	if (a == TWO_QUEUES_SLOT_PRIO) {
		if (dlb2_link_add(0, DOM, "w", "hi", 0) || dlb2_link_add(0, DOM, "w", "lo", 7))
			fail("link");
	} else if (dlb2_link_add(0, DOM, "w", "lo", 0)) {
		fail("link");
	}
	if (dlb2_domain_enable(0, DOM))
		fail("enable");
	qlo = queue_id("lo");
	qhi = a == TWO_QUEUES_SLOT_PRIO ? queue_id("hi") : qlo;
	if (a == ONE_QUEUE_QE_PRIO)
		prio_lo = 7;
	prod = open_port("prod");
	w = open_port("w");

	/* The backlog: L low-priority QEs, replaced as they are served. */
	for (k = 0; k < backlog; k++) {
		dlb2_hcw_new(&h, qlo, DLB2_SCHED_UNORDERED, prio_lo, 0, lows++, 0);
		enqueue1(prod, &h);
	}
	next_high = 0;
	for (k = 0; k < high; k++) {
		dlb2_hcw_new(&h, qhi, DLB2_SCHED_UNORDERED, 0, 0, HIGH_TAG | k, 0);
		enqueue1(prod, &h);
		for (ahead = 0;; ahead++) {
			while ((rc = dlb2_dequeue_burst(w, &ev, 1)) == 0)
				;
			if (rc < 0)
				return rc;
			dlb2_release(w, 1);
			if (ev.data & HIGH_TAG) {
				bad += (ev.data & ~HIGH_TAG) != next_high++;
				break;
			}
			/* a low one served: keep the backlog */
			dlb2_hcw_new(&h, qlo, DLB2_SCHED_UNORDERED, prio_lo, 0, lows++, 0);
			enqueue1(prod, &h);
		}
		sum += ahead;
		max = ahead > max ? ahead : max;
	}
	if (print_header)
		printf("%-32s %6s %8s %6s %10s %8s\n", "arrangement", "depth", "backlog",
		       "high", "mean ahead", "max");
	printf("%-32s %6d %8lu %6lu %10.1f %8lu%s\n", arrangement_name[a], depth,
	       backlog, high, (double)sum / high, max,
	       bad ? "  HIGH-PRIORITY QEs OUT OF ORDER" : "");
	dlb2_port_close(w);
	dlb2_port_close(prod);
	dlb2_domain_destroy(0, DOM);
	return bad ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: dlb2-sched-bench balance [-w WORKERS] [-n QES] [-s SPIN]\n"
		"       dlb2-sched-bench priority [-l BACKLOG] [-H HIGH]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const int flows[] = { 1, 2, 4, 8, 16, 64, 1024 };
	static const int depths[] = { 8, 64 };
	unsigned long n = 20000, spin = 200, backlog = 1000, high = 50;
	int workers = 4, rc = 0, opt, d, f, a;
	bool header = true;
	const char *mode;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "w:n:s:l:H:")) != -1) {
		switch (opt) {
		case 'w': workers = atoi(optarg); break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 's': spin = strtoul(optarg, NULL, 0); break;
		case 'l': backlog = strtoul(optarg, NULL, 0); break;
		case 'H': high = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (workers < 1 || workers > MAX_WORKERS || !n || !high || backlog > 1500)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(mode, "balance")) {
		printf("# load balance: %d workers, one atomic queue, service %lu spins per QE\n",
		       workers, spin);
		for (d = 0; d < 2; d++)
			for (f = 0; f < (int)(sizeof(flows) / sizeof(flows[0])); f++) {
				rc |= balance_run(workers, depths[d], flows[f], n, spin, header);
				header = false;
			}
	} else if (!strcmp(mode, "priority")) {
		printf("# priority isolation: QEs the worker received ahead of each high-priority QE\n");
		for (d = 0; d < 2; d++)
			for (a = 0; a < 3; a++) {
				rc |= priority_run(a, depths[d], backlog, high, header);
				rc |= priority_run(a, depths[d], 0, high, false);
				header = false;
			}
	} else {
		usage();
	}
	return rc < 0 ? 2 : rc;
}
