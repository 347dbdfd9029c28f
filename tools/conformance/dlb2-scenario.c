// SPDX-License-Identifier: GPL-2.0
/*
 * The conformance scenario (tools/conformance/README.md) driven by
 * dlb2.ko through configfs and the port devices (libdlb2): the same
 * objects, sizes and steps as dpdk-scenario.c, with a marker (scenario.h)
 * after each step.  Writes the hardware ids the driver chose to ID_FILE,
 * one "kind name type id" line per object, as dpdk-scenario does.
 *
 * Usage: dlb2-scenario DEV BDF ID_FILE     (DEV: N of dlb2_<N>)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libdlb2.h"
#include "libdlb2_dp.h"
#include "scenario.h"

#define DOM "conformance"

static int dev;

static void die(const char *what, int ret)
{
	char buf[256];

	fprintf(stderr, "dlb2-scenario: %s: %s (%s)\n", what, strerror(-ret),
		dlb2_strerror(buf, sizeof(buf)));
	exit(1);
}

static void ok(const char *what, int ret)
{
	if (ret < 0)
		die(what, ret);
}

enum { QA, QO, QU, QD, NQ };
enum { P0, P1, P2, PD, NP };
static const char *const qname[NQ] = { "qa", "qo", "qu", "qd" };
static const char *const pname[NP] = { "p0", "p1", "p2", "pd" };
static struct dlb2_port *port[NP];
static int qid[NQ];

/*
 * The objects of dpdk-scenario.c with the sizes DPDK 22.11 gives them
 * (drivers/event/dlb2/dlb2.c): every load-balanced queue 64 atomic
 * inflights and the lock-id compression asked for, the ordered one 64
 * sequence numbers; history list = CQ depth; ldb credits = events limit,
 * dir credits half of it (DLB 2.5: one pool of the events limit).
 */
static void setup(int v25)
{
	int i;

	ok("domain", dlb2_domain_create(dev, DOM));
	ok("credits", dlb2_domain_set_credits(dev, DOM, SCENARIO_EVENTS_LIMIT,
					      v25 ? 0 : SCENARIO_EVENTS_LIMIT / 2));
	for (i = 0; i < NQ; i++) {
		struct dlb2_queue_attr a = DLB2_QUEUE_ATTR_INIT;

		if (i == QD) {
			a.type = DLB2_DIR;
		} else {
			a.type = DLB2_LDB;
			a.sched = i == QA ? DLB2_QATOMIC :
				  i == QO ? DLB2_QORDERED : DLB2_QUNORDERED;
			a.sequence_numbers = i == QO ? SCENARIO_SNS : 0;
			a.atomic_inflights = SCENARIO_ATOMIC_INFL;
			a.lock_id_compression = SCENARIO_LOCK_ID_COMP;
		}
		ok(qname[i], dlb2_queue_add(dev, DOM, qname[i], &a));
	}
	for (i = 0; i < NP; i++) {
		struct dlb2_port_attr a = DLB2_PORT_ATTR_INIT;

		a.type = i == PD ? DLB2_DIR : DLB2_LDB;
		a.cq_depth = SCENARIO_CQ_DEPTH;
		if (i != PD)
			a.history_list = SCENARIO_CQ_DEPTH;
		ok(pname[i], dlb2_port_add(dev, DOM, pname[i], &a));
	}
	ok("link", dlb2_link_add(dev, DOM, "p0", "qa", 0));
	ok("link", dlb2_link_add(dev, DOM, "p0", "qo", 0));
	ok("link", dlb2_link_add(dev, DOM, "p1", "qa", 0));
	ok("link", dlb2_link_add(dev, DOM, "p1", "qo", 0));
	ok("link", dlb2_link_add(dev, DOM, "p1", "qu", 0));
	ok("link", dlb2_link_add(dev, DOM, "p2", "qu", 0));
	ok("link", dlb2_link_add(dev, DOM, "pd", "qd", 0));
}

static void write_ids(const char *path)
{
	FILE *f = fopen(path, "w");
	int i, id;

	if (!f)
		die(path, -errno);
	for (i = 0; i < NQ; i++) {
		ok("queue id", dlb2_queue_id(dev, DOM, qname[i], &qid[i]));
		fprintf(f, "queue %s %s %d\n", qname[i], i == QD ? "dir" : "ldb", qid[i]);
	}
	for (i = 0; i < NP; i++) {
		ok("port id", dlb2_port_id(dev, DOM, pname[i], &id));
		fprintf(f, "port %s %s %d\n", pname[i], i == PD ? "dir" : "ldb", id);
	}
	if (fclose(f))
		die(path, -errno);
}

static void enqueue(int p, int q, uint8_t sched, int n)
{
	struct dlb2_hcw h[SCENARIO_BURST];
	int i, done = 0, spins = 0;

	for (i = 0; i < n; i++)
		dlb2_hcw_new(&h[i], qid[q], sched, 0, i, SCENARIO_DATA(q, i), 0);
	while (done < n) {
		int k = dlb2_enqueue_burst(port[p], h + done, n - done);

		if (k == -ENOSPC && ++spins < SCENARIO_SPINS)
			continue;
		ok("enqueue", k);
		done += k;
	}
}

/* Dequeue from @ports until @want QEs came out, completing ldb ones. */
static void drain(const int *ports, int nports, int want)
{
	int got = 0, idle = 0;

	while (got < want) {
		int i, any = 0;

		for (i = 0; i < nports; i++) {
			struct dlb2_port *p = port[ports[i]];
			struct dlb2_cq_entry e[SCENARIO_BURST];
			int k = dlb2_dequeue_burst(p, e, SCENARIO_BURST);

			if (k <= 0)
				continue;
			any = 1;
			got += k;
			if (p->ldb)
				ok("release", dlb2_release(p, k));
		}
		if (any) {
			idle = 0;
		} else if (++idle > SCENARIO_SPINS) {
			fprintf(stderr, "dlb2-scenario: %d of %d QEs came out\n",
				got, want);
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	static const int ldb[] = { P0, P1, P2 }, dir[] = { PD };
	const char *bdf;
	char path[128], ver[16];
	int i, ret, tries;

	if (argc != 4) {
		fprintf(stderr, "usage: dlb2-scenario DEV BDF ID_FILE\n");
		return 2;
	}
	dev = atoi(argv[1]);
	bdf = argv[2];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/hw_version", bdf);
	ok(path, dlb2_read_attr(path, ver, sizeof(ver)));

	dlb2_domain_destroy(dev, DOM);
	scenario_marker(bdf, SCENARIO_BEGIN);
	setup(!strcmp(ver, "2.5"));
	ok("enable", dlb2_domain_enable(dev, DOM));
	write_ids(argv[3]);
	for (i = 0; i < NP; i++)
		ok(pname[i], dlb2_port_open(dev, DOM, pname[i], NULL, &port[i]));
	scenario_marker(bdf, SCENARIO_CONFIGURED);

	enqueue(P0, QA, DLB2_SCHED_ATOMIC, SCENARIO_QES);
	enqueue(P0, QO, DLB2_SCHED_ORDERED, SCENARIO_QES);
	enqueue(P0, QU, DLB2_SCHED_UNORDERED, SCENARIO_QES);
	enqueue(PD, QD, DLB2_SCHED_DIRECTED, SCENARIO_QES);
	drain(ldb, 3, 3 * SCENARIO_QES);
	drain(dir, 1, SCENARIO_QES);
	scenario_marker(bdf, SCENARIO_TRAFFIC);

	/*
	 * Link p2 to qa while QEs of qa are scheduled and not completed: the
	 * driver answers EBUSY until they are (configfs-dlb2), then maps.
	 */
	enqueue(P0, QA, DLB2_SCHED_ATOMIC, SCENARIO_QES);
	usleep(SCENARIO_SETTLE_US);
	for (tries = 0; (ret = dlb2_link_add(dev, DOM, "p2", "qa", -1)) == -EBUSY; tries++) {
		if (tries > 1000)
			die("dynamic link", ret);
		if (tries == 0)
			drain(ldb, 3, SCENARIO_QES);
		usleep(1000);
	}
	ok("dynamic link", ret);
	if (tries == 0)
		drain(ldb, 3, SCENARIO_QES);
	enqueue(P0, QA, DLB2_SCHED_ATOMIC, SCENARIO_QES);
	drain(ldb, 3, SCENARIO_QES);
	printf("dynamic link: %d EBUSY answer(s)\n", tries);
	scenario_marker(bdf, SCENARIO_LINKED);

	ok("unlink", dlb2_link_del(dev, DOM, "p2", "qa"));
	scenario_marker(bdf, SCENARIO_UNLINKED);

	for (i = 0; i < NP; i++)
		dlb2_port_close(port[i]);
	ok("disable", dlb2_domain_disable(dev, DOM));
	scenario_marker(bdf, SCENARIO_RESET);
	ok("destroy", dlb2_domain_destroy(dev, DOM));
	return 0;
}
