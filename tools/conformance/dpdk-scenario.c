// SPDX-License-Identifier: GPL-2.0
/*
 * The conformance scenario (tools/conformance/README.md) driven by DPDK's
 * own dlb2 PF poll-mode driver: Intel's register programming for the same
 * device, the outside oracle for dlb2.ko's.  Same objects, same sizes and
 * same steps as dlb2-scenario.c; after each step a marker (scenario.h)
 * splits the model's CSR-write log into phases.  Writes the hardware ids
 * DPDK chose to ID_FILE, one "kind name id" line per object.
 *
 * Usage: dpdk-scenario EAL-ARGS -- BDF ID_FILE
 * Needs the device bound to vfio-pci and hugepages (guest-run does both).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eventdev.h>

#include "scenario.h"

static const char *bdf;
static uint8_t dev;

static void die(const char *what, int ret)
{
	fprintf(stderr, "dpdk-scenario: %s: %d (%s)\n", what, ret,
		strerror(ret < 0 ? -ret : ret));
	exit(1);
}

/* Event queue and port numbers, in the order they are set up. */
enum { QA, QO, QU, QD, NQ };
enum { P0, P1, P2, PD, NP };
static const char *const qname[NQ] = { "qa", "qo", "qu", "qd" };
static const char *const pname[NP] = { "p0", "p1", "p2", "pd" };

static void link1(uint8_t port, uint8_t queue)
{
	uint8_t prio = RTE_EVENT_DEV_PRIORITY_HIGHEST;
	int n = rte_event_port_link(dev, port, &queue, &prio, 1);

	if (n != 1)
		die("rte_event_port_link", -rte_errno);
}

static void setup(void)
{
	struct rte_event_dev_config dc = {
		.nb_event_queues = NQ,
		.nb_event_ports = NP,
		.nb_single_link_event_port_queues = 1,
		.nb_events_limit = SCENARIO_EVENTS_LIMIT,
		.nb_event_queue_flows = SCENARIO_LOCK_ID_COMP,
		.nb_event_port_dequeue_depth = SCENARIO_CQ_DEPTH,
		.nb_event_port_enqueue_depth = SCENARIO_CQ_DEPTH,
	};
	struct rte_event_dev_info info;
	int i, ret;

	ret = rte_event_dev_info_get(dev, &info);
	if (ret)
		die("rte_event_dev_info_get", ret);
	dc.dequeue_timeout_ns = info.min_dequeue_timeout_ns;
	ret = rte_event_dev_configure(dev, &dc);
	if (ret)
		die("rte_event_dev_configure", ret);

	for (i = 0; i < NQ; i++) {
		struct rte_event_queue_conf qc = {
			.nb_atomic_flows = SCENARIO_LOCK_ID_COMP,
			.priority = RTE_EVENT_DEV_PRIORITY_NORMAL,
		};

		switch (i) {
		case QA:
			qc.schedule_type = RTE_SCHED_TYPE_ATOMIC;
			break;
		case QO:
			qc.schedule_type = RTE_SCHED_TYPE_ORDERED;
			qc.nb_atomic_order_sequences = SCENARIO_SNS;
			break;
		case QU:
			qc.schedule_type = RTE_SCHED_TYPE_PARALLEL;
			break;
		case QD:
			qc.event_queue_cfg = RTE_EVENT_QUEUE_CFG_SINGLE_LINK;
			break;
		}
		ret = rte_event_queue_setup(dev, i, &qc);
		if (ret)
			die("rte_event_queue_setup", ret);
	}
	for (i = 0; i < NP; i++) {
		struct rte_event_port_conf pc = {
			.new_event_threshold = SCENARIO_EVENTS_LIMIT,
			.dequeue_depth = SCENARIO_CQ_DEPTH,
			.enqueue_depth = SCENARIO_CQ_DEPTH,
		};

		if (i == PD)
			pc.event_port_cfg = RTE_EVENT_PORT_CFG_SINGLE_LINK;
		ret = rte_event_port_setup(dev, i, &pc);
		if (ret)
			die("rte_event_port_setup", ret);
	}
	link1(P0, QA);
	link1(P0, QO);
	link1(P1, QA);
	link1(P1, QO);
	link1(P1, QU);
	link1(P2, QU);
	link1(PD, QD);
}

static void write_ids(const char *path)
{
	FILE *f = fopen(path, "w");
	char name[64];
	uint64_t id;
	int i;

	if (!f)
		die(path, -errno);
	for (i = 0; i < NQ; i++) {
		snprintf(name, sizeof(name), "qid_%d_hw_id", i);
		id = rte_event_dev_xstats_by_name_get(dev, name, NULL);
		fprintf(f, "queue %s %s %llu\n", qname[i], i == QD ? "dir" : "ldb",
			(unsigned long long)id);
	}
	for (i = 0; i < NP; i++) {
		snprintf(name, sizeof(name), "port_%d_hw_id", i);
		id = rte_event_dev_xstats_by_name_get(dev, name, NULL);
		fprintf(f, "port %s %s %llu\n", pname[i], i == PD ? "dir" : "ldb",
			(unsigned long long)id);
	}
	if (fclose(f))
		die(path, -errno);
}

static void enqueue(uint8_t port, uint8_t queue, uint8_t sched, int n)
{
	struct rte_event ev[SCENARIO_BURST];
	int i, done = 0;

	for (i = 0; i < n; i++) {
		memset(&ev[i], 0, sizeof(ev[i]));
		ev[i].op = RTE_EVENT_OP_NEW;
		ev[i].queue_id = queue;
		ev[i].sched_type = sched;
		ev[i].flow_id = i;
		ev[i].u64 = SCENARIO_DATA(queue, i);
	}
	while (done < n) {
		int k = rte_event_enqueue_burst(dev, port, ev + done, n - done);

		if (k < 0)
			die("rte_event_enqueue_burst", -rte_errno);
		done += k;
	}
}

/*
 * Dequeue from the given ports until @want events came out, releasing each
 * load-balanced one (its completion).  Dies after SCENARIO_SPINS empty
 * rounds: a stall is a failure of the scenario.
 */
static void drain(const uint8_t *ports, int nports, int want)
{
	int got = 0, idle = 0;

	while (got < want) {
		int i, any = 0;

		for (i = 0; i < nports; i++) {
			struct rte_event ev[SCENARIO_BURST], rel[SCENARIO_BURST];
			int k = rte_event_dequeue_burst(dev, ports[i], ev,
							SCENARIO_BURST, 0);
			int j;

			if (k <= 0)
				continue;
			any = 1;
			got += k;
			if (ports[i] == PD)
				continue;
			for (j = 0; j < k; j++) {
				rel[j] = ev[j];
				rel[j].op = RTE_EVENT_OP_RELEASE;
			}
			for (j = 0; j < k; )
				j += rte_event_enqueue_burst(dev, ports[i],
							     rel + j, k - j);
		}
		if (!any && ++idle > SCENARIO_SPINS) {
			fprintf(stderr, "dpdk-scenario: %d of %d events came out\n",
				got, want);
			exit(1);
		}
		if (any)
			idle = 0;
	}
}

int main(int argc, char **argv)
{
	static const uint8_t ldb[] = { P0, P1, P2 }, dir[] = { PD };
	uint8_t q = QA, prio = RTE_EVENT_DEV_PRIORITY_HIGHEST;
	int ret, n;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		die("rte_eal_init", -rte_errno);
	argc -= ret;
	argv += ret;
	if (argc != 3) {
		fprintf(stderr, "usage: dpdk-scenario EAL-ARGS -- BDF ID_FILE\n");
		return 2;
	}
	bdf = argv[1];
	if (rte_event_dev_count() != 1)
		die("no event device (is the DLB bound to vfio-pci?)", -ENODEV);
	dev = 0;

	scenario_marker(bdf, SCENARIO_BEGIN);
	setup();
	ret = rte_event_dev_start(dev);
	if (ret)
		die("rte_event_dev_start", ret);
	write_ids(argv[2]);
	scenario_marker(bdf, SCENARIO_CONFIGURED);

	enqueue(P0, QA, RTE_SCHED_TYPE_ATOMIC, SCENARIO_QES);
	enqueue(P0, QO, RTE_SCHED_TYPE_ORDERED, SCENARIO_QES);
	enqueue(P0, QU, RTE_SCHED_TYPE_PARALLEL, SCENARIO_QES);
	enqueue(PD, QD, RTE_SCHED_TYPE_ATOMIC, SCENARIO_QES);
	drain(ldb, 3, 3 * SCENARIO_QES);
	drain(dir, 1, SCENARIO_QES);
	scenario_marker(bdf, SCENARIO_TRAFFIC);

	/* link p2 to qa while QEs of qa are scheduled and not completed */
	enqueue(P0, QA, RTE_SCHED_TYPE_ATOMIC, SCENARIO_QES);
	usleep(SCENARIO_SETTLE_US);
	n = rte_event_port_link(dev, P2, &q, &prio, 1);
	if (n != 1)
		die("rte_event_port_link (dynamic)", -rte_errno);
	drain(ldb, 3, SCENARIO_QES);
	/* DPDK's background worker finishes the deferred map meanwhile */
	usleep(SCENARIO_SETTLE_US);
	/* and qa flows to p2 too */
	enqueue(P0, QA, RTE_SCHED_TYPE_ATOMIC, SCENARIO_QES);
	drain(ldb, 3, SCENARIO_QES);
	scenario_marker(bdf, SCENARIO_LINKED);

	n = rte_event_port_unlink(dev, P2, &q, 1);
	if (n != 1)
		die("rte_event_port_unlink", -rte_errno);
	for (n = 0; rte_event_port_unlinks_in_progress(dev, P2) > 0; n++) {
		if (n > SCENARIO_SPINS)
			die("unlink never completed", -ETIMEDOUT);
		usleep(1000);
	}
	scenario_marker(bdf, SCENARIO_UNLINKED);

	rte_event_dev_stop(dev);
	ret = rte_event_dev_close(dev);
	if (ret)
		die("rte_event_dev_close", ret);
	scenario_marker(bdf, SCENARIO_RESET);
	rte_eal_cleanup();
	return 0;
}
