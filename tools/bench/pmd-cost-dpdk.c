// SPDX-License-Identifier: GPL-2.0
/*
 * pmd-cost-dpdk: DPDK's eventdev API on the dlb2 poll-mode driver (Debian's
 * DPDK 22.11, the device bound to vfio-pci), each measured call between the
 * markers of the insncount TCG plugin (insn-plugin/): the DPDK half of
 * run-pmd-cost, doing the work pmd-cost-libdlb2.c does with libdlb2.
 *
 * Event device 0 with a directed queue and its port (single-link, CQ depth
 * 32, implicit release as by default) and a load-balanced atomic queue with
 * one port (CQ depth 32, implicit release disabled).  Token pop mode: the
 * PMD's default (AUTO_POP), the tokens going back in each dequeue, as
 * libdlb2 without DLB2_OPEN_DEFER_POP.  For bursts of 1, 4, 16 and 32,
 * N events each:
 *
 *   enq  rte_event_enqueue_new_burst() of NEW events from the directed port
 *        to its queue (measured); the events dequeued after it (not);
 *   deq  NEW events enqueued (not measured); rte_event_dequeue_burst() on
 *        the directed port, timeout 0 (measured): the implicit release of
 *        the previous burst (credits), copy out, token return;
 *   rel  NEW events enqueued to the atomic queue and dequeued from the
 *        load-balanced port (not measured), their op set to
 *        RTE_EVENT_OP_RELEASE (not measured: favours DPDK);
 *        rte_event_enqueue_burst() of the RELEASE events (measured).
 *
 * The event arrays are filled outside the windows, as libdlb2's HCWs are.
 * Every event must come out once, in order, with its payload; a measured
 * dequeue that returns fewer than the burst is finished outside the window
 * and counted as short.  One line per measurement, in the order of the
 * plugin's reports:  "window LABEL MODE BURST QES SHORT" (LABEL: "dpdk" or
 * as given, e.g. for a run with the PMD's vector_opts_enable devarg).
 * Exit status 0, 1 when an event was lost or out of order, 2 on set-up
 * errors.
 *
 * Usage: pmd-cost-dpdk EAL-ARGS... -- [QES [LABEL]]   (QES: default 2048,
 *        a multiple of 32)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_eventdev.h>
#include <rte_lcore.h>
#include <rte_version.h>

#include "insn-plugin/insncount.h"

#define DEV	0
#define LP	0	/* load-balanced port and queue */
#define DP	1	/* directed port and queue */
#define DEPTH	32
#define MAXB	32

static uint64_t seq_in, seq_out;
static int bad;
static const char *label = "dpdk";

static void die(const char *what, int rc)
{
	fprintf(stderr, "pmd-cost-dpdk: %s: %d (%s)\n", what, rc, strerror(rc < 0 ? -rc : rc));
	exit(2);
}

static void setup(void)
{
	struct rte_event_dev_config cfg = { 0 };
	struct rte_event_queue_conf qc;
	struct rte_event_port_conf pc;
	struct rte_event_dev_info info;
	uint8_t q;
	int rc;

	if (rte_event_dev_count() < 1)
		die("no event device", -ENODEV);
	if ((rc = rte_event_dev_info_get(DEV, &info)))
		die("info", rc);
	printf("# %s: %s, %s\n", label, info.driver_name, rte_version());
	cfg.nb_event_queues = 2;
	cfg.nb_event_ports = 2;
	cfg.nb_single_link_event_port_queues = 1;
	cfg.nb_events_limit = info.max_num_events;
	cfg.nb_event_queue_flows = info.max_event_queue_flows;
	cfg.nb_event_port_dequeue_depth = DEPTH;
	cfg.nb_event_port_enqueue_depth = MAXB;
	cfg.dequeue_timeout_ns = 0;
	if ((rc = rte_event_dev_configure(DEV, &cfg)))
		die("configure", rc);

	rte_event_queue_default_conf_get(DEV, LP, &qc);
	qc.schedule_type = RTE_SCHED_TYPE_ATOMIC;
	qc.nb_atomic_flows = 64;
	qc.event_queue_cfg = 0;
	if ((rc = rte_event_queue_setup(DEV, LP, &qc)))
		die("load-balanced queue", rc);
	rte_event_queue_default_conf_get(DEV, DP, &qc);
	qc.event_queue_cfg = RTE_EVENT_QUEUE_CFG_SINGLE_LINK;
	if ((rc = rte_event_queue_setup(DEV, DP, &qc)))
		die("directed queue", rc);

	rte_event_port_default_conf_get(DEV, LP, &pc);
	pc.dequeue_depth = DEPTH;
	pc.enqueue_depth = MAXB;
	pc.new_event_threshold = 1024;
	pc.event_port_cfg = RTE_EVENT_PORT_CFG_DISABLE_IMPL_REL;
	if ((rc = rte_event_port_setup(DEV, LP, &pc)))
		die("load-balanced port", rc);
	rte_event_port_default_conf_get(DEV, DP, &pc);
	pc.dequeue_depth = DEPTH;
	pc.enqueue_depth = MAXB;
	pc.new_event_threshold = 1024;
	pc.event_port_cfg = RTE_EVENT_PORT_CFG_SINGLE_LINK;
	if ((rc = rte_event_port_setup(DEV, DP, &pc)))
		die("directed port", rc);
	q = LP;
	if (rte_event_port_link(DEV, LP, &q, NULL, 1) != 1)
		die("link lp", -rte_errno);
	q = DP;
	if (rte_event_port_link(DEV, DP, &q, NULL, 1) != 1)
		die("link dp", -rte_errno);
	if ((rc = rte_event_dev_start(DEV)))
		die("start", rc);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Not measured: enqueue all of ev[0..n), retrying on back-pressure. */
static void enqueue_all(uint8_t port, const struct rte_event *ev, unsigned int n)
{
	double t0 = now();
	unsigned int k = 0;

	while (k < n) {
		k += rte_event_enqueue_burst(DEV, port, ev + k, n - k);
		if (k < n && now() - t0 > 10) {
			fprintf(stderr, "pmd-cost-dpdk: enqueue: %u of %u (rte_errno %d)\n",
				k, n, rte_errno);
			exit(1);
		}
	}
}

static void check(const struct rte_event *e, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++, seq_out++) {
		if (e[k].u64 != seq_out) {
			if (bad++ < 5)
				fprintf(stderr, "pmd-cost-dpdk: event %llu, expected %llu\n",
					(unsigned long long)e[k].u64,
					(unsigned long long)seq_out);
			seq_out = e[k].u64;
		}
	}
}

/* Not measured: dequeue n events (got of them already in e), waiting. */
static void dequeue_rest(uint8_t port, struct rte_event *e, unsigned int got,
			 unsigned int n)
{
	double t0 = now();

	while (got < n) {
		got += rte_event_dequeue_burst(DEV, port, e + got, n - got, 0);
		if (got < n && now() - t0 > 10) {
			fprintf(stderr, "pmd-cost-dpdk: %u of %u events came out\n", got, n);
			exit(1);
		}
	}
	check(e, n);
}

static void fill(struct rte_event *ev, unsigned int b, uint8_t queue, uint8_t sched)
{
	unsigned int k;

	memset(ev, 0, b * sizeof(*ev));
	for (k = 0; k < b; k++) {
		ev[k].op = RTE_EVENT_OP_NEW;
		ev[k].queue_id = queue;
		ev[k].sched_type = sched;
		ev[k].event_type = RTE_EVENT_TYPE_CPU;
		ev[k].priority = RTE_EVENT_DEV_PRIORITY_NORMAL;
		ev[k].flow_id = 0;
		ev[k].u64 = seq_in++;
	}
}

static void measure(const char *mode, unsigned int b, unsigned int n, int marked)
{
	struct rte_event ev[MAXB], e[MAXB];
	unsigned int i, k, shorts = 0;
	uint16_t rc = 0;

	for (i = 0; i < n / b; i++) {
		switch (mode[0]) {
		case 'e':
			fill(ev, b, DP, RTE_SCHED_TYPE_ATOMIC);
			if (marked)
				INSN_START();
			rc = rte_event_enqueue_new_burst(DEV, DP, ev, b);
			if (marked)
				INSN_STOP();
			if (rc != b) {
				fprintf(stderr, "pmd-cost-dpdk: enqueue: %u of %u (rte_errno %d)\n",
					rc, b, rte_errno);
				exit(1);
			}
			dequeue_rest(DP, e, 0, b);
			break;
		case 'd':
			fill(ev, b, DP, RTE_SCHED_TYPE_ATOMIC);
			enqueue_all(DP, ev, b);
			if (marked)
				INSN_START();
			rc = rte_event_dequeue_burst(DEV, DP, e, b, 0);
			if (marked)
				INSN_STOP();
			shorts += rc < b;
			dequeue_rest(DP, e, rc, b);
			break;
		case 'r':
			fill(ev, b, LP, RTE_SCHED_TYPE_ATOMIC);
			enqueue_all(LP, ev, b);
			dequeue_rest(LP, e, 0, b);
			for (k = 0; k < b; k++)
				e[k].op = RTE_EVENT_OP_RELEASE;
			if (marked)
				INSN_START();
			rc = rte_event_enqueue_burst(DEV, LP, e, b);
			if (marked)
				INSN_STOP();
			if (rc != b) {
				fprintf(stderr, "pmd-cost-dpdk: release: %u of %u\n", rc, b);
				exit(1);
			}
			break;
		}
	}
	if (marked) {
		INSN_REPORT();
		printf("window %s %s %u %u %u\n", label, mode, b, n / b * b, shorts);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	static const unsigned int bursts[] = { 1, 4, 16, 32 };
	static const char *const modes[] = { "enq", "deq", "rel" };
	struct rte_event e;
	unsigned int n, m, k;
	int rc;

	rc = rte_eal_init(argc, argv);
	if (rc < 0)
		die("rte_eal_init", -rte_errno);
	argc -= rc;
	argv += rc;
	n = argc > 1 ? (unsigned int)atoi(argv[1]) : 2048;
	if (argc > 2)
		label = argv[2];
	if (!n || n % 32) {
		fprintf(stderr, "Usage: pmd-cost-dpdk EAL-ARGS... -- [QES [LABEL]]   (QES: a multiple of 32)\n");
		return 2;
	}
	setup();
	printf("# %s: lcore %u\n", label, rte_lcore_id());
	for (m = 0; m < 3; m++) {
		measure(modes[m], 32, 256, 0);		/* warm up */
		for (k = 0; k < 4; k++)
			measure(modes[m], bursts[k], n, 1);
	}
	if (rte_event_dequeue_burst(DEV, DP, &e, 1, 0) ||
	    rte_event_dequeue_burst(DEV, LP, &e, 1, 0)) {
		fprintf(stderr, "pmd-cost-dpdk: an event too many\n");
		bad++;
	}
	if (seq_out != seq_in) {
		fprintf(stderr, "pmd-cost-dpdk: %llu events in, %llu out\n",
			(unsigned long long)seq_in, (unsigned long long)seq_out);
		bad++;
	}
	rte_event_dev_stop(DEV);
	rte_event_dev_close(DEV);
	printf("# %s: %llu events, %s\n", label, (unsigned long long)seq_out,
	       bad ? "LOST OR OUT OF ORDER" : "every one out once, in order");
	rte_eal_cleanup();
	return bad ? 1 : 0;
}
