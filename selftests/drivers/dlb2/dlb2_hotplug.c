// SPDX-License-Identifier: GPL-2.0
/*
 * Hot removal: the DLB leaves the bus (QEMU device_del on a hot-pluggable
 * PCIe root port; for a surprise removal, the model's reads answer all ones
 * first) while a consumer runs traffic through a mapped port.  The
 * consumer gets SIGBUS, not a hang; the kernel stays healthy (the harness
 * checks its log, kmemleak included); another open port file answers
 * ENODEV; and the device, plugged in again, is bound and carries traffic.
 *
 * Besides, through the same control, two faults of the model: token
 * returns lost (a release that cannot drain ends), and alarms naming ports
 * the device does not have (charged to no port).
 *
 * Needs the harness's hot-plug control: tools/vm/run --hotplug boots the
 * DLB behind a root port and exports VM_HOTPLUG_CTL, a directory shared
 * with the host where this test writes "unplug", "yank", "plug",
 * "stuck-tokens-on" or "-off", or "inject-alarm N" to the file "request"
 * and the host answers in "done".  Skips without it.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libdlb2.h"

#include "kselftest_harness.h"
#include "dlb2_lib.h"
#include "dlb2_qe.h"

#define DOM		"khp"
#define SIGBUS_EXIT	42

static void on_sigbus(int sig)
{
	_exit(SIGBUS_EXIT);
}

/* Round trips the consumer made, in memory shared with the parent. */
#define ROUND_TRIPS	100

/*
 * In a child (port mappings are not inherited): directed round trips
 * through port "p" until it faults, counted in *@trips; never returns.
 */
static void consumer(int dev, int q, unsigned long long *trips)
{
	struct dlb2_cq_entry e;
	unsigned long long n;
	struct dlb2_port *p;

	signal(SIGBUS, on_sigbus);
	if (dlb2_port_open(dev, DOM, "p", NULL, &p))
		_exit(5);
	for (n = 0;; n++) {
		time_t t0 = time(NULL);

		enqueue(p, q, DLB2_SCHED_DIRECTED, 0, 0, n);
		/* A device gone may answer nothing until the unbind. */
		while (dlb2_dequeue_burst(p, &e, 1) != 1)
			if (time(NULL) - t0 > 60)
				_exit(3);	/* no QE within 60 s, no fault */
		if (e.data != n)
			_exit(4);
		dlb2_release(p, 1);
		__atomic_store_n(trips, n + 1, __ATOMIC_RELAXED);
	}
}

/*
 * Directed ports "p" (queue "q") and "p2" (queue "q2"), "p2" opened; and a
 * load-balanced port "lp" on queue "lq", whose counters the teardown reads.
 */
static int domain_up(int dev, struct dlb2_port **p2, int *q, int *q2)
{
	struct dlb2_port_attr pa = DLB2_PORT_ATTR_INIT, la = DLB2_PORT_ATTR_INIT;
	struct dlb2_queue_attr qa = DLB2_QUEUE_ATTR_INIT;
	struct dlb2_queue_attr lqa = DLB2_QUEUE_ATTR_INIT;

	pa.type = DLB2_DIR;
	qa.type = DLB2_DIR;
	la.type = DLB2_LDB;
	lqa.type = DLB2_LDB;
	lqa.sched = DLB2_QUNORDERED;
	lqa.atomic_inflights = 0;
	return dlb2_domain_create(dev, DOM) ?:
	       dlb2_queue_add(dev, DOM, "lq", &lqa) ?:
	       dlb2_port_add(dev, DOM, "lp", &la) ?:
	       dlb2_link_add(dev, DOM, "lp", "lq", -1) ?:
	       dlb2_domain_set_credits(dev, DOM, 64, 64) ?:
	       dlb2_queue_add(dev, DOM, "q", &qa) ?:
	       dlb2_queue_add(dev, DOM, "q2", &qa) ?:
	       dlb2_port_add(dev, DOM, "p", &pa) ?:
	       dlb2_port_add(dev, DOM, "p2", &pa) ?:
	       dlb2_link_add(dev, DOM, "p", "q", -1) ?:
	       dlb2_link_add(dev, DOM, "p2", "q2", -1) ?:
	       dlb2_domain_enable(dev, DOM) ?:
	       dlb2_queue_id(dev, DOM, "q", q) ?:
	       dlb2_queue_id(dev, DOM, "q2", q2) ?:
	       dlb2_port_open(dev, DOM, "p2", NULL, p2);
}

/*
 * The body of both tests: a consumer runs, the host removes the device
 * with @how ("unplug": device_del; "yank": the device leaves the bus first,
 * its reads answer all ones, then device_del), and plugs it in again.
 */
static void unplug_replug(struct __test_metadata *_metadata, const char *how)
{
	struct dlb2_port_info info;
	char bdf[NAME_MAX + 1], pci[PATH_MAX];
	const char *ctl = getenv("VM_HOTPLUG_CTL");
	struct dlb2_cq_entry e;
	struct dlb2_port *p;
	unsigned long long *trips;
	int dev, q, q2, status = 0;
	pid_t child, w = 0;
	bool ran;

	if (!ctl)
		SKIP(return, "needs the harness's hot-plug control (%s)",
		     "tools/vm/run --hotplug");
	if (!dlb2_find_device(bdf, sizeof(bdf)))
		SKIP(return, "no DLB 2.0/2.5 PF present");
	pathf(pci, PCI_DEVICES "/%s", bdf);
	dev = read_num(pci, "dev_id");
	ASSERT_LE(0, dev);
	dlb2_domain_destroy(dev, DOM);
	ASSERT_EQ(0, domain_up(dev, &p, &q, &q2));

	trips = mmap(NULL, sizeof(*trips), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, trips);
	*trips = 0;
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		consumer(dev, q, trips);
	/* The device goes while traffic runs: the consumer's round trips. */
	ran = dlb2_poll_until(__atomic_load_n(trips, __ATOMIC_RELAXED) >=
			      ROUND_TRIPS ||
			      (w = waitpid(child, &status, WNOHANG)) != 0,
			      30000);
	ASSERT_EQ(0, w) {
		TH_LOG("the consumer stopped before the unplug: status %#x, after %llu round trips",
		       status, *trips);
	}
	ASSERT_TRUE(ran) {
		TH_LOG("the consumer made %llu round trips in 30 s, not %d: no traffic ran before the unplug",
		       *trips, ROUND_TRIPS);
	}
	munmap(trips, sizeof(*trips));
	ASSERT_EQ(0, dlb2_hotplug(ctl, how));
	ASSERT_TRUE(dlb2_wait_device(bdf, false, 60)) {
		TH_LOG("%s still present 60 s after device_del (%s)", bdf, how);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == SIGBUS_EXIT) {
		TH_LOG("consumer status %#x: expected exit %d (SIGBUS)",
		       status, SIGBUS_EXIT);
	}
	/* The parent's own port descriptor: ENODEV, then it closes. */
	EXPECT_EQ(-1, ioctl(p->fd, DLB2_IOC_PORT_INFO, &info));
	EXPECT_EQ(ENODEV, errno);
	dlb2_port_close(p);
	dlb2_domain_destroy(dev, DOM);

	ASSERT_EQ(0, dlb2_hotplug(ctl, "plug"));
	ASSERT_TRUE(dlb2_wait_device(bdf, true, 30)) {
		TH_LOG("%s not back 30 s after device_add", bdf);
	}
	dev = read_num(pci, "dev_id");
	ASSERT_LE(0, dev);
	dlb2_domain_destroy(dev, DOM);
	ASSERT_EQ(0, domain_up(dev, &p, &q, &q2));
	enqueue(p, q2, DLB2_SCHED_DIRECTED, 0, 0, 0xfeed);
	ASSERT_EQ(1, dequeue1(p, &e));
	EXPECT_EQ(0xfeed, e.data);
	dlb2_release(p, 1);
	dlb2_port_close(p);
	EXPECT_EQ(0, dlb2_domain_destroy(dev, DOM));
}

/*
 * In a child: open port "p", enqueue @n QEs to its own queue, wait until
 * they are in its CQ (its statistics' "outstanding", in @pci's sysfs), and
 * exit without dequeuing: the release of the port file must return them
 * to the device (a drain).
 */
static void leave_qes(const char *pci, int dev, int q, unsigned int n)
{
	struct dlb2_port *p;
	char dir[PATH_MAX];
	unsigned int i;

	if (dlb2_port_open(dev, DOM, "p", NULL, &p))
		_exit(5);
	for (i = 0; i < n; i++)
		enqueue(p, q, DLB2_SCHED_DIRECTED, 0, 0, i);
	dlb2_stats_dir(dir, pci, DOM, "port", "p");
	if (!dlb2_poll_until(read_num(dir, "outstanding") >= n, 10000)) {
		fprintf(stderr, "# the %u QEs never were in p's CQ: outstanding %ld after 10 s\n",
			n, read_num(dir, "outstanding"));
		_exit(6);
	}
	_exit(0);
}

/*
 * A device that stops taking token returns (the model's "stuck-tokens"
 * fault) must not keep a port's release spinning under the device lock:
 * the drain gives up after a bounded number of rounds, logs the port
 * ("QEs left in the device after draining", declared here), and the
 * closing process exits.  Once the fault is gone the domain drains and
 * goes as usual.
 */
TEST(release_of_a_port_that_does_not_drain_ends)
{
	const char *ctl = getenv("VM_HOTPLUG_CTL");
	char bdf[NAME_MAX + 1], pci[PATH_MAX];
	int dev, q, q2, status = 0;
	struct dlb2_port *p2;
	pid_t child, w = 0;

	if (!ctl)
		SKIP(return, "needs the harness's hot-plug control (%s)",
		     "tools/vm/run --hotplug");
	if (!dlb2_find_device(bdf, sizeof(bdf)))
		SKIP(return, "no DLB 2.0/2.5 PF present");
	pathf(pci, PCI_DEVICES "/%s", bdf);
	dev = read_num(pci, "dev_id");
	ASSERT_LE(0, dev);
	dlb2_domain_destroy(dev, DOM);
	ASSERT_EQ(0, domain_up(dev, &p2, &q, &q2));
	kernel_log_expect("dlb2 .*: directed port [0-9]+: QEs left in the device after draining");
	ASSERT_EQ(0, dlb2_hotplug(ctl, "stuck-tokens-on"));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		leave_qes(pci, dev, q, 4);
	dlb2_poll_until((w = waitpid(child, &status, WNOHANG)) != 0, 20000);
	/* Let a release that still drains go, whatever happened. */
	EXPECT_EQ(0, dlb2_hotplug(ctl, "stuck-tokens-off"));
	EXPECT_EQ(child, w) {
		TH_LOG("the release of the port still drains after 20 s");
	}
	if (!w)
		ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("child status %#x", status);
	}
	dlb2_port_close(p2);
	EXPECT_EQ(0, dlb2_domain_destroy(dev, DOM));
}

/* The sum of the alarms of the ports of domain DOM (sysfs statistics). */
static long port_alarms(const char *pci)
{
	static const char *const ports[] = { "p", "p2", "lp" };
	char dir[PATH_MAX];
	long sum = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ports); i++)
		sum += read_num(dlb2_stats_dir(dir, pci, DOM, "port", ports[i]),
				"alarms");
	return sum;
}

/*
 * An alarm syndrome is the device's word for which port misbehaved, and
 * its port field holds ids the device does not have (load-balanced 64-127,
 * directed beyond the device's count).  The model's "inject-alarm" fault
 * raises an illegal-HCW alarm naming any id: each is counted once in the
 * device's alarms/illegal_hcw and charged to no port, in particular not
 * to the port whose slot follows the load-balanced ports' in the driver's
 * tables (directed port 0, here "p").  An alarm naming "p" itself is
 * charged to it: the control that the injection reaches the driver.
 */
TEST(alarm_naming_a_port_the_device_lacks_is_charged_to_none)
{
	const char *ctl = getenv("VM_HOTPLUG_CTL");
	char bdf[NAME_MAX + 1], pci[PATH_MAX], dir[PATH_MAX], req[64];
	long before, charged, p_id, ndir;
	int values[5], dev, q, q2, i;
	struct dlb2_port *p2;

	if (!ctl)
		SKIP(return, "needs the harness's hot-plug control (%s)",
		     "tools/vm/run --hotplug");
	if (!dlb2_find_device(bdf, sizeof(bdf)))
		SKIP(return, "no DLB 2.0/2.5 PF present");
	pathf(pci, PCI_DEVICES "/%s", bdf);
	dev = read_num(pci, "dev_id");
	ASSERT_LE(0, dev);
	ASSERT_EQ(1, read_num(pci, "ingress_alarms"));
	ndir = read_num(pci, "total_resources/dir_ports");
	ASSERT_LT(0, ndir);
	dlb2_domain_destroy(dev, DOM);
	ASSERT_EQ(0, domain_up(dev, &p2, &q, &q2));
	p_id = read_num(dlb2_stats_dir(dir, pci, DOM, "port", "p"), "id");
	ASSERT_EQ(0, p_id) {
		TH_LOG("\"p\" is directed port %ld: the test needs directed port 0 in its domain",
		       p_id);
	}
	kernel_log_expect("dlb2 .*: illegal HCW from (load-balanced|directed) port [0-9]+");

	/* bit 7: load-balanced; the control first, then the missing ports */
	values[0] = p_id;
	values[1] = 0x80 | 64;
	values[2] = 0x80 | 127;
	values[3] = ndir;
	values[4] = 127;
	for (i = 0; i < (int)ARRAY_SIZE(values); i++) {
		before = read_num(pci, "alarms/illegal_hcw");
		charged = port_alarms(pci);
		snprintf(req, sizeof(req), "inject-alarm %d", values[i]);
		ASSERT_EQ(0, dlb2_hotplug(ctl, req));
		ASSERT_TRUE(dlb2_poll_until(read_num(pci, "alarms/illegal_hcw") > before,
					    5000)) {
			TH_LOG("%s: alarms/illegal_hcw still %ld after 5 s",
			       req, before);
		}
		EXPECT_EQ(before + 1, read_num(pci, "alarms/illegal_hcw"));
		EXPECT_EQ(charged + (values[i] == p_id), port_alarms(pci)) {
			TH_LOG("%s (%s port %d): the domain's ports' alarms went from %ld to %ld",
			       req, values[i] & 0x80 ? "load-balanced" : "directed",
			       values[i] & 0x7f, charged, port_alarms(pci));
		}
	}
	EXPECT_EQ(1, read_num(dlb2_stats_dir(dir, pci, DOM, "port", "p"), "alarms"));
	dlb2_port_close(p2);
	EXPECT_EQ(0, dlb2_domain_destroy(dev, DOM));
}

TEST(unplug_during_traffic_then_replug)
{
	unplug_replug(_metadata, "unplug");
}

/*
 * A surprise removal: the driver's teardown reads all ones from every
 * counter; it must stop draining rather than take them for counts.
 */
TEST(surprise_removal_during_traffic_then_replug)
{
	unplug_replug(_metadata, "yank");
}

TEST_HARNESS_MAIN
