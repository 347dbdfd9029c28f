// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2 port device tests, with raw HCW writes (no library): one opener,
 * port information, mmap rules, a directed round trip, the CQ interrupt
 * through poll() and read(), revocation of every mapping on domain disable
 * and on unbind, threads asleep in read() and poll() woken by a disable, a
 * reset or an unbind, recovery of a port whose consumer was killed, a CQ ring
 * that cannot be pinned past its file, isolation between two domains, and
 * the device's state through an AER recovery that succeeds and one that
 * fails, and through a system sleep (steps driven by the dlb2_edu test
 * module).
 *
 * Needs a DLB device and dlb2.ko loaded; skips without a device.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <x86intrin.h>

#include <linux/dlb2.h>

#include "kselftest_harness.h"
#include "dlb2_lib.h"
#include "dlb2_edu/dlb2_edu.h"

#define CREDITS		"64"

FIXTURE(port) {
	char bdf[NAME_MAX + 1];
	const char *version;
	char pci[PATH_MAX];
	char dev[PATH_MAX];
	char dom[PATH_MAX];
	char dom2[PATH_MAX];
	char node_dp[PATH_MAX];	/* directed port, interrupt mode, depth 8 */
	char node_lp[PATH_MAX];	/* load-balanced port linked to atomic lq */
	long dev_id;
};

static int enable_domain(const char *dev, const char *dom)
{
	char path[PATH_MAX];
	int ret = mkdir_e(dom);

	ret = ret ?: cfs_add_queue(dom, "dq", "dir");
	ret = ret ?: cfs_add_port(dom, "dp", "dir");
	ret = ret ?: write_attr(pathf(path, "%s/ports/dp", dom), "cq_depth", "8");
	ret = ret ?: write_attr(path, "wait_mode", "interrupt");
	ret = ret ?: cfs_link(dom, "dp", "dq");
	ret = ret ?: cfs_add_queue(dom, "lq", "ldb");
	ret = ret ?: cfs_add_port(dom, "lp", "ldb");
	ret = ret ?: cfs_link(dom, "lp", "lq");
	ret = ret ?: write_attr(dom, "ldb_credits", CREDITS);
	ret = ret ?: write_attr(dom, "dir_credits", CREDITS);
	return ret ?: write_attr(dom, "enable", "1");
}

FIXTURE_SETUP(port)
{
	self->version = dlb2_find_device(self->bdf, sizeof(self->bdf));
	if (!self->version)
		SKIP(return, "no DLB 2.0/2.5 PF present");
	pathf(self->pci, PCI_DEVICES "/%s", self->bdf);
	ASSERT_EQ(0, dlb2_cfs_dir(self->bdf, self->dev));
	self->dev_id = read_num(self->pci, "dev_id");
	pathf(self->dom, "%s/kport", self->dev);
	pathf(self->dom2, "%s/kport2", self->dev);
	cfs_domain_destroy(self->dom);
	cfs_domain_destroy(self->dom2);
	ASSERT_EQ(0, enable_domain(self->dev, self->dom));
	pathf(self->node_dp, "/dev/dlb2/%ld/kport/dp", self->dev_id);
	pathf(self->node_lp, "/dev/dlb2/%ld/kport/lp", self->dev_id);
}

FIXTURE_TEARDOWN(port)
{
	char path[PATH_MAX];

	if (!self->version)
		return;
	dlb2_rebind(self->bdf);
	cfs_domain_destroy(self->dom);
	cfs_domain_destroy(self->dom2);
	cfs_domain_destroy(pathf(path, "%s/kport3", self->dev));
}

struct maps {
	int fd;
	struct dlb2_port_info info;
	volatile void *pp;
	volatile uint8_t *cq;
	volatile uint64_t *credits;
};

static int map_port(const char *node, struct maps *m)
{
	m->fd = open(node, O_RDWR);
	if (m->fd < 0)
		return -errno;
	if (ioctl(m->fd, DLB2_IOC_PORT_INFO, &m->info))
		return -errno;
	m->pp = mmap(NULL, DLB2_PP_SIZE, PROT_WRITE, MAP_SHARED, m->fd,
		     DLB2_MMAP_PP_OFFSET);
	m->cq = mmap(NULL, m->info.cq_size, PROT_READ, MAP_SHARED, m->fd,
		     DLB2_MMAP_CQ_OFFSET);
	m->credits = mmap(NULL, DLB2_CREDIT_PAGE_SIZE, PROT_READ | PROT_WRITE,
			  MAP_SHARED, m->fd, DLB2_MMAP_CREDIT_OFFSET);
	if (m->pp == MAP_FAILED || m->cq == MAP_FAILED ||
	    m->credits == MAP_FAILED)
		return -errno;
	return 0;
}

static void unmap_port(struct maps *m)
{
	munmap((void *)m->pp, DLB2_PP_SIZE);
	munmap((void *)m->cq, m->info.cq_size);
	munmap((void *)m->credits, DLB2_CREDIT_PAGE_SIZE);
	close(m->fd);
}

/* One HCW, as one 16-byte store to the start of the producer port. */
static void hcw(struct maps *m, uint8_t cmd, uint8_t qid, uint8_t sched,
		uint16_t lock_id, uint64_t data)
{
	struct dlb2_hcw h = { .data = data, .qid = qid, .sched = sched,
			      .lock_id = lock_id, .cmd = cmd };

	_mm_sfence();
	_mm_store_si128((__m128i *)m->pp, _mm_loadu_si128((__m128i *)&h));
	_mm_sfence();
}

/* CQ entry i (sparse: 64 bytes apart) if its gen bit says it is new. */
static int cq_entry(struct maps *m, unsigned int i, struct dlb2_cq_entry *e)
{
	volatile uint8_t *slot = m->cq + (i % m->info.cq_entries) *
				 m->info.cq_stride;
	uint8_t want = (i / m->info.cq_entries) & 1 ? 0 : 1;

	if ((slot[15] & DLB2_CQ_GEN) != want)
		return 0;
	__sync_synchronize();
	memcpy(e, (const void *)slot, sizeof(*e));
	return 1;
}

/* Wait up to 2 s for CQ entry i. */
static int cq_wait(struct maps *m, unsigned int i, struct dlb2_cq_entry *e)
{
	int n;

	for (n = 0; n < 2000; n++) {
		if (cq_entry(m, i, e))
			return 1;
		usleep(1000);
	}
	return 0;
}

static long port_stat(struct __test_metadata *_metadata, const char *pci,
		      const char *dom, const char *port, const char *stat)
{
	char path[PATH_MAX];

	return read_num(dlb2_stats_dir(path, pci, dom, "port", port), stat);
}

TEST_F(port, single_opener)
{
	int fd, fd2;

	if (!self->version)
		return;
	fd = open(self->node_dp, O_RDWR);
	ASSERT_LE(0, fd);
	fd2 = open(self->node_dp, O_RDWR);
	EXPECT_EQ(-1, fd2);
	EXPECT_EQ(EBUSY, errno);
	close(fd);
	fd2 = open(self->node_dp, O_RDWR);
	EXPECT_LE(0, fd2);
	close(fd2);
}

TEST_F(port, info)
{
	char cfg[PATH_MAX];
	struct maps dp, lp;
	bool v25;

	if (!self->version)
		return;
	v25 = !strcmp(self->version, "2.5");
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	ASSERT_EQ(0, map_port(self->node_lp, &lp));
	EXPECT_EQ(v25 ? DLB2_HW_V2_5 : DLB2_HW_V2, dp.info.version);
	EXPECT_EQ(DLB2_PORT_INTERRUPT, dp.info.flags);
	EXPECT_EQ(DLB2_PORT_LDB, lp.info.flags);
	EXPECT_EQ(read_num(self->dom, "id"), dp.info.domain_id);
	EXPECT_EQ(read_num(pathf(cfg, "%s/ports/dp", self->dom), "id"),
		  dp.info.port_id);
	EXPECT_EQ(read_num(pathf(cfg, "%s/queues/dq", self->dom), "id"),
		  dp.info.dir_queue_id);
	EXPECT_EQ(read_num(pathf(cfg, "%s/ports/lp", self->dom), "id"),
		  lp.info.port_id);
	EXPECT_EQ(8, dp.info.cq_depth);
	EXPECT_EQ(8, dp.info.cq_entries);
	EXPECT_EQ(64, dp.info.cq_stride);
	EXPECT_EQ(8 * 64, dp.info.cq_size);
	EXPECT_EQ(64, lp.info.cq_depth);
	EXPECT_EQ(128, lp.info.hist_list);
	EXPECT_EQ(v25 ? 1 : 2, dp.info.num_pools);
	/* The credit page holds the domain's credits. */
	if (v25) {
		EXPECT_EQ(128, dp.info.credits[0]);
		EXPECT_EQ(128, dp.credits[0]);
	} else {
		EXPECT_EQ(64, dp.info.credits[0]);
		EXPECT_EQ(64, dp.info.credits[1]);
		EXPECT_EQ(64, dp.credits[0]);
		EXPECT_EQ(64, dp.credits[DLB2_CREDIT_POOL_STRIDE / 8]);
	}
	/* Both ports see the same (domain) credit page. */
	dp.credits[0] = 12345;
	EXPECT_EQ(12345, lp.credits[0]);
	unmap_port(&dp);
	unmap_port(&lp);
}

TEST_F(port, mmap_rules)
{
	int fd;
	void *p;

	if (!self->version)
		return;
	fd = open(self->node_dp, O_RDWR);
	ASSERT_LE(0, fd);
	/* PP: write-only, one page */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, DLB2_MMAP_PP_OFFSET));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 8192, PROT_WRITE, MAP_SHARED, fd,
				   DLB2_MMAP_PP_OFFSET));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_WRITE, MAP_PRIVATE, fd,
				   DLB2_MMAP_PP_OFFSET));
	p = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, fd, DLB2_MMAP_PP_OFFSET);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, 4096, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, 4096);
	/* CQ: read-only */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, DLB2_MMAP_CQ_OFFSET));
	EXPECT_EQ(EACCES, errno);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, DLB2_MMAP_CQ_OFFSET);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, 4096, PROT_READ | PROT_WRITE));
	munmap(p, 4096);
	/* nothing else */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
				   0x30000));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
				   DLB2_MMAP_PP_OFFSET + 4096));
	close(fd);
}

TEST_F(port, directed_round_trip)
{
	struct dlb2_cq_entry e;
	struct maps dp;
	unsigned int i;

	if (!self->version)
		return;
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	for (i = 0; i < 3; i++)
		hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
		    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 0xab00 + i);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, cq_wait(&dp, i, &e));
		EXPECT_EQ(0xab00 + i, e.data);
		EXPECT_EQ(DLB2_SCHED_DIRECTED, e.sched & 3);
	}
	EXPECT_EQ(0, cq_entry(&dp, 3, &e));
	EXPECT_EQ(3, port_stat(_metadata, self->pci, "kport", "dp", "outstanding"));
	hcw(&dp, DLB2_CMD_BAT_T, 0, 0, 2, 0);		/* 3 tokens */
	EXPECT_EQ(0, port_stat(_metadata, self->pci, "kport", "dp", "outstanding"));
	EXPECT_EQ(3, port_stat(_metadata, self->pci, "kport", "dp", "dequeued"));
	unmap_port(&dp);
	EXPECT_EQ(0, port_stat(_metadata, self->pci, "kport", "dp", "released"));
}

TEST_F(port, interrupt_wakes_poll)
{
	struct pollfd pfd;
	struct maps dp;
	uint64_t n = 0;

	if (!self->version)
		return;
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	pfd = (struct pollfd){ .fd = dp.fd, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(-1, fcntl(dp.fd, F_SETFL, O_NONBLOCK) ? -1 : read(dp.fd, &n, 8));
	EXPECT_EQ(EAGAIN, errno);
	fcntl(dp.fd, F_SETFL, 0);
	hcw(&dp, DLB2_CMD_ARM, 0, 0, 0, 0);
	/* Armed, empty: nothing yet. */
	EXPECT_EQ(0, poll(&pfd, 1, 100));
	hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 1);
	EXPECT_EQ(1, poll(&pfd, 1, 2000));
	EXPECT_EQ(POLLIN, pfd.revents);
	EXPECT_EQ(8, read(dp.fd, &n, 8));
	EXPECT_EQ(1, n);
	/* One-shot: no second interrupt without re-arming. */
	hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 2);
	EXPECT_EQ(0, poll(&pfd, 1, 100));
	unmap_port(&dp);
}

static sigjmp_buf fault_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* Does touching p (read or write) fault with SIGBUS? */
static bool faults(volatile void *p, bool write)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old_bus, old_segv;
	bool faulted = false;

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	if (sigsetjmp(fault_jmp, 1) == SIGBUS) {
		faulted = true;
	} else if (write) {
		*(volatile uint64_t *)p = 0;
	} else {
		(void)*(volatile uint64_t *)p;
	}
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return faulted;
}

static void check_revoked(struct __test_metadata *_metadata, struct maps *m,
			  const char *node)
{
	struct dlb2_port_info info;
	struct pollfd pfd = { .fd = m->fd, .events = POLLIN };

	EXPECT_TRUE(faults(m->pp, true));
	EXPECT_TRUE(faults(m->cq, false));
	EXPECT_TRUE(faults(m->credits, false));
	EXPECT_EQ(-1, ioctl(m->fd, DLB2_IOC_PORT_INFO, &info));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, m->fd,
				   DLB2_MMAP_PP_OFFSET));
	EXPECT_EQ(-1, access(node, F_OK));
}

TEST_F(port, disable_revokes_mappings)
{
	struct dlb2_cq_entry e;
	struct maps dp;

	if (!self->version)
		return;
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 7);
	ASSERT_EQ(1, cq_wait(&dp, 0, &e));
	EXPECT_FALSE(faults(dp.credits, false));
	ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
	check_revoked(_metadata, &dp, self->node_dp);
	/* Enabled again: a new port; the old file stays dead. */
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	EXPECT_EQ(0, access(self->node_dp, F_OK));
	EXPECT_TRUE(faults(dp.pp, true));
	unmap_port(&dp);
}

TEST_F(port, unbind_with_live_mappings)
{
	char status[64], cfg[PATH_MAX];
	struct dlb2_cq_entry e;
	struct maps dp, lp;
	long lq;

	if (!self->version)
		return;
	lq = read_num(pathf(cfg, "%s/queues/lq", self->dom), "id");
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	ASSERT_EQ(0, map_port(self->node_lp, &lp));
	/* A QE held by the consumer, one in the queue: the unbind drains. */
	hcw(&dp, DLB2_CMD_NEW, lq, DLB2_SCHED(DLB2_SCHED_ATOMIC, 0), 3, 5);
	ASSERT_EQ(1, cq_wait(&lp, 0, &e));
	hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 6);
	ASSERT_EQ(0, sysfs_write(DLB2_DRIVER "/unbind", self->bdf));
	check_revoked(_metadata, &dp, self->node_dp);
	check_revoked(_metadata, &lp, self->node_lp);
	ASSERT_EQ(0, read_attr(self->dom, "status", status, sizeof(status)));
	EXPECT_STREQ("error: device removed", status);
	EXPECT_EQ(-ENODEV, write_attr(self->dom, "enable", "1"));
	unmap_port(&dp);
	unmap_port(&lp);
	ASSERT_EQ(0, sysfs_write(DLB2_DRIVER "/bind", self->bdf));
	EXPECT_EQ(0, write_attr(self->dom, "enable", "1"));
	EXPECT_EQ(0, access(self->node_dp, F_OK));
}

TEST_F(port, function_reset_revokes_and_recovers)
{
	char status[64], path[PATH_MAX];
	struct dlb2_cq_entry e;
	struct maps dp, dp2;

	if (!self->version)
		return;
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	ASSERT_EQ(0, sysfs_write(pathf(path, "%s/reset", self->pci), "1"));
	check_revoked(_metadata, &dp, self->node_dp);
	ASSERT_EQ(0, read_attr(self->dom, "status", status, sizeof(status)));
	EXPECT_STREQ("error: device reset", status);
	unmap_port(&dp);
	/* The device works again once re-enabled. */
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	ASSERT_EQ(0, map_port(self->node_dp, &dp2));
	hcw(&dp2, DLB2_CMD_NEW, dp2.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 0x77);
	ASSERT_EQ(1, cq_wait(&dp2, 0, &e));
	EXPECT_EQ(0x77, e.data);
	unmap_port(&dp2);
}

/* pci_ers_result_t values (include/linux/pci.h) */
#define ERS_NONE	1
#define ERS_NEED_RESET	3
#define ERS_RECOVERED	5

/*
 * Step @step of an AER recovery (@cmd DLB2_EDU_AER: the PCI core's
 * callbacks as pcie_do_recovery() calls them) or of a system sleep
 * (DLB2_EDU_PM: as a suspend to RAM calls them, a function reset standing
 * in for the power lost) of the DLB, through dlb2_edu; the driver's answer,
 * or -errno.
 */
static int dev_step(int edu, const char *bdf, unsigned long cmd,
		    unsigned int step)
{
	struct dlb2_edu_aer a = { .step = step };
	unsigned int dom, bus, dev, fn;

	if (sscanf(bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return -EINVAL;
	a.domain = dom;
	a.bus = bus;
	a.devfn = dev << 3 | fn;
	if (ioctl(edu, cmd, &a))
		return -errno;
	return a.result;
}

#define aer_step(edu, bdf, step)	dev_step(edu, bdf, DLB2_EDU_AER, step)
#define pm_step(edu, bdf, step)		dev_step(edu, bdf, DLB2_EDU_PM, step)

static int open_edu(void)
{
	return open("/dev/dlb2_edu", O_RDWR);
}

/*
 * An AER recovery that succeeds: the frozen link takes the domain away and
 * the device reads "failed" until slot_reset() initialises it again
 * ("ready"); the domain is then enabled again and carries a QE.
 */
TEST_F(port, aer_recovery_revokes_and_recovers)
{
	char state[32], status[64];
	struct dlb2_cq_entry e;
	struct maps dp;
	int edu;

	if (!self->version)
		return;
	edu = open_edu();
	if (edu < 0)
		SKIP(return, "/dev/dlb2_edu: %s (dlb2_edu.ko not loaded)",
		     strerror(errno));
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	ASSERT_EQ(ERS_NEED_RESET, aer_step(edu, self->bdf, DLB2_EDU_AER_FROZEN));
	check_revoked(_metadata, &dp, self->node_dp);
	unmap_port(&dp);
	ASSERT_EQ(0, read_attr(self->dom, "status", status, sizeof(status)));
	EXPECT_STREQ("error: device reset", status);
	ASSERT_EQ(0, read_attr(self->pci, "state", state, sizeof(state)));
	EXPECT_STREQ("failed", state);
	EXPECT_EQ(-EIO, write_attr(self->dom, "enable", "1"));

	ASSERT_EQ(ERS_RECOVERED,
		  aer_step(edu, self->bdf, DLB2_EDU_AER_SLOT_RESET));
	close(edu);
	ASSERT_EQ(0, read_attr(self->pci, "state", state, sizeof(state)));
	EXPECT_STREQ("ready", state);
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 0x78);
	ASSERT_EQ(1, cq_wait(&dp, 0, &e));
	EXPECT_EQ(0x78, e.data);
	unmap_port(&dp);
}

/*
 * System sleep (Documentation/ABI/testing/sysfs-driver-dlb2, "state"): a
 * suspend is refused (EBUSY) while a domain is enabled, and the domain
 * goes on working; with none enabled the device reads "resetting" until
 * resume (enable: EBUSY), and after the power it lost it is initialised
 * again: the domain is enabled again and carries QEs as before.
 */
TEST_F(port, system_sleep_refused_while_enabled_then_resumes)
{
	struct dlb2_cq_entry e;
	struct pollfd pfd;
	char state[32];
	struct maps dp;
	int edu;

	if (!self->version)
		return;
	edu = open_edu();
	if (edu < 0)
		SKIP(return, "/dev/dlb2_edu: %s (dlb2_edu.ko not loaded)",
		     strerror(errno));
	ASSERT_EQ(-EBUSY, pm_step(edu, self->bdf, DLB2_EDU_PM_SUSPEND));
	ASSERT_EQ(0, read_attr(self->pci, "state", state, sizeof(state)));
	EXPECT_STREQ("ready", state);
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 0x79);
	ASSERT_EQ(1, cq_wait(&dp, 0, &e));
	EXPECT_EQ(0x79, e.data);
	unmap_port(&dp);

	ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
	ASSERT_EQ(0, pm_step(edu, self->bdf, DLB2_EDU_PM_SUSPEND));
	ASSERT_EQ(0, read_attr(self->pci, "state", state, sizeof(state)));
	EXPECT_STREQ("resetting", state);
	EXPECT_EQ(-EBUSY, write_attr(self->dom, "enable", "1"));
	ASSERT_EQ(0, pm_step(edu, self->bdf, DLB2_EDU_PM_RESUME));
	close(edu);
	ASSERT_EQ(0, read_attr(self->pci, "state", state, sizeof(state)));
	EXPECT_STREQ("ready", state);
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	/*
	 * As initialised at probe: CQ entries one per line (the second QE
	 * where the driver reads it) and the CQ interrupt delivered.
	 */
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	pfd = (struct pollfd){ .fd = dp.fd, .events = POLLIN };
	hcw(&dp, DLB2_CMD_ARM, 0, 0, 0, 0);
	hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 0x7a);
	hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 0x7b);
	EXPECT_EQ(1, poll(&pfd, 1, 2000));
	ASSERT_EQ(1, cq_wait(&dp, 0, &e));
	EXPECT_EQ(0x7a, e.data);
	ASSERT_EQ(1, cq_wait(&dp, 1, &e));
	EXPECT_EQ(0x7b, e.data);
	unmap_port(&dp);
}

/*
 * An AER recovery that fails after error_detected() (the link reset failed,
 * or another function below the port voted against it): the PCI core calls
 * the driver no more, and the device must read "failed" (enable: EIO,
 * ingress_alarms: EBUSY), not "resetting", until it is bound again, after
 * which it works.
 */
TEST_F(port, aer_failed_recovery_leaves_failed)
{
	char state[32];
	struct dlb2_cq_entry e;
	struct maps dp;
	int edu;

	if (!self->version)
		return;
	edu = open_edu();
	if (edu < 0)
		SKIP(return, "/dev/dlb2_edu: %s (dlb2_edu.ko not loaded)",
		     strerror(errno));
	ASSERT_EQ(ERS_NEED_RESET, aer_step(edu, self->bdf, DLB2_EDU_AER_FROZEN));
	/* Nothing more comes from the PCI core: the state must say so. */
	ASSERT_EQ(0, read_attr(self->pci, "state", state, sizeof(state)));
	EXPECT_STREQ("failed", state);
	EXPECT_EQ(-EIO, write_attr(self->dom, "enable", "1"));
	EXPECT_EQ(-EBUSY, write_attr(self->pci, "ingress_alarms", "1"));

	/* What ends the frozen state, then the administrator's rebind. */
	ASSERT_EQ(ERS_NONE, aer_step(edu, self->bdf, DLB2_EDU_AER_NORMAL));
	close(edu);
	ASSERT_EQ(0, sysfs_write(DLB2_DRIVER "/unbind", self->bdf));
	ASSERT_EQ(0, sysfs_write(DLB2_DRIVER "/bind", self->bdf));
	ASSERT_EQ(0, read_attr(self->pci, "state", state, sizeof(state)));
	EXPECT_STREQ("ready", state);
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 0x79);
	ASSERT_EQ(1, cq_wait(&dp, 0, &e));
	EXPECT_EQ(0x79, e.data);
	unmap_port(&dp);
}

/*
 * A directed port @name in interrupt mode (depth 8) linked to a queue q@name
 * of @dom, after @pads directed ports without a queue.
 */
static int dir_intr_domain(const char *dom, unsigned int pads, const char *name)
{
	char path[PATH_MAX], q[NAME_MAX + 1];
	unsigned int i;
	int ret = mkdir_e(dom);

	for (i = 0; !ret && i < pads; i++) {
		snprintf(q, sizeof(q), "pad%u", i);
		ret = cfs_add_port(dom, q, "dir");
	}
	snprintf(q, sizeof(q), "q%s", name);
	ret = ret ?: cfs_add_queue(dom, q, "dir");
	ret = ret ?: cfs_add_port(dom, name, "dir");
	ret = ret ?: write_attr(pathf(path, "%s/ports/%s", dom, name),
				"cq_depth", "8");
	ret = ret ?: write_attr(path, "wait_mode", "interrupt");
	ret = ret ?: cfs_link(dom, name, q);
	ret = ret ?: write_attr(dom, "ldb_credits", CREDITS);
	ret = ret ?: write_attr(dom, "dir_credits", CREDITS);
	return ret ?: write_attr(dom, "enable", "1");
}

/*
 * The CQ interrupt of interrupt-mode directed port "a" (domain kport2) wakes
 * "a" and not the interrupt-mode port "b" of another domain (kport3), whose
 * CQ did not move: b's poll() stays empty and its read() answers EAGAIN.
 * On DLB 2.5 the two have ids from 64 up, whose occupancy status the
 * handler cannot read (it compares CQ write pointers); on DLB 2.0, from 32
 * up (the second status register).
 */
TEST_F(port, directed_port_interrupt_wakes_only_its_port)
{
	long first = strcmp(self->version ?: "", "2.5") ? 32 : 64;
	char dom3[PATH_MAX], node[PATH_MAX];
	struct pollfd pfd;
	struct maps a, b;
	long ida, idb;
	__u64 n = 0;

	if (!self->version)
		return;
	/* The fixture's domain holds directed port 0: "a" gets id first. */
	ASSERT_EQ(0, read_num(pathf(node, "%s/ports/dp", self->dom), "id"));
	ASSERT_EQ(0, dir_intr_domain(self->dom2, first - 1, "a"));
	pathf(dom3, "%s/kport3", self->dev);
	cfs_domain_destroy(dom3);
	ASSERT_EQ(0, dir_intr_domain(dom3, 0, "b"));
	ida = read_num(pathf(node, "%s/ports/a", self->dom2), "id");
	idb = read_num(pathf(node, "%s/ports/b", dom3), "id");
	ASSERT_EQ(first, ida);
	ASSERT_EQ(first + 1, idb);

	ASSERT_EQ(0, map_port(pathf(node, "/dev/dlb2/%ld/kport2/a", self->dev_id),
			      &a));
	ASSERT_EQ(0, map_port(pathf(node, "/dev/dlb2/%ld/kport3/b", self->dev_id),
			      &b));
	hcw(&a, DLB2_CMD_ARM, 0, 0, 0, 0);
	hcw(&a, DLB2_CMD_NEW, a.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 1);
	pfd = (struct pollfd){ .fd = a.fd, .events = POLLIN };
	EXPECT_EQ(1, poll(&pfd, 1, 2000));
	EXPECT_EQ(8, read(a.fd, &n, 8));
	EXPECT_EQ(1, n);

	/* b's CQ did not move: no wake-up, no interrupt counted. */
	pfd = (struct pollfd){ .fd = b.fd, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 300));
	EXPECT_EQ(-1, fcntl(b.fd, F_SETFL, O_NONBLOCK) ? -1 : read(b.fd, &n, 8));
	EXPECT_EQ(EAGAIN, errno);
	unmap_port(&a);
	unmap_port(&b);
	cfs_domain_destroy(dom3);
}

/*
 * A thread blocked in read() and one in poll() on an interrupt-mode port
 * (never armed: no interrupt comes) when the port is revoked.
 */
struct waiter {
	int fd;
	bool poll;
	pid_t tid;
	atomic_int done;
	ssize_t ret;
	int err;
	short revents;
};

static void *wait_on_port(void *arg)
{
	struct waiter *w = arg;
	struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
	uint64_t n;

	w->tid = gettid();
	if (w->poll) {
		w->ret = poll(&pfd, 1, -1);
		w->revents = pfd.revents;
	} else {
		w->ret = read(w->fd, &n, sizeof(n));
	}
	w->err = errno;
	atomic_store(&w->done, 1);
	return NULL;
}


/* Wait up to 5 s for waiter @w to sleep in the driver; false, logged, if not. */
static bool waiter_asleep(struct __test_metadata *_metadata, struct waiter *w)
{
	if (dlb2_poll_until(dlb2_asleep_in_wait(w->tid), 5000))
		return true;
	TH_LOG("%s() never went to sleep on the port (5 s): done %d, returned %zd, %s",
	       w->poll ? "poll" : "read", (int)w->done, w->ret,
	       w->done ? strerror(w->err) : "-");
	return false;
}

enum revocation { BY_DISABLE, BY_RESET, BY_UNBIND };

/*
 * Userspace-api: "When the domain is disabled, the device is reset or
 * unbound, every mapping is revoked: ... poll() reports POLLERR | POLLHUP",
 * and a read() of a revoked port answers ENODEV.  Both hold for threads
 * that already sleep in them: they wake at once, not at the next
 * interrupt (which never comes) or signal.
 */
static void check_waiters_wake(struct __test_metadata *_metadata,
			       struct _test_data_port *self,
			       enum revocation how)
{
	struct waiter w[2] = { { .poll = false }, { .poll = true } };
	char path[PATH_MAX];
	struct maps dp;
	pthread_t t[2];
	unsigned int i, ms;
	int ret = 0;

	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	ASSERT_TRUE(dp.info.flags & DLB2_PORT_INTERRUPT);
	for (i = 0; i < 2; i++) {
		w[i].fd = dp.fd;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, wait_on_port, &w[i]));
	}
	/* Both asleep in the driver before the port goes. */
	ASSERT_TRUE(waiter_asleep(_metadata, &w[0]));
	ASSERT_TRUE(waiter_asleep(_metadata, &w[1]));
	ASSERT_EQ(0, w[0].done + w[1].done);

	switch (how) {
	case BY_DISABLE:
		ret = write_attr(self->dom, "enable", "0");
		break;
	case BY_RESET:
		ret = sysfs_write(pathf(path, "%s/reset", self->pci), "1");
		break;
	case BY_UNBIND:
		ret = sysfs_write(DLB2_DRIVER "/unbind", self->bdf);
		break;
	}
	EXPECT_EQ(0, ret);
	for (ms = 0; ms < 5000 && !(w[0].done && w[1].done); ms += 10)
		usleep(10000);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(1, w[i].done) {
			TH_LOG("%s() still asleep 5 s after the revocation",
			       w[i].poll ? "poll" : "read");
		}
		if (!w[i].done)
			pthread_cancel(t[i]);	/* interrupts the sleep */
		pthread_join(t[i], NULL);
	}
	if (w[0].done) {
		EXPECT_EQ(-1, w[0].ret);
		EXPECT_EQ(ENODEV, w[0].err);
	}
	if (w[1].done) {
		EXPECT_EQ(1, w[1].ret);
		EXPECT_EQ(POLLERR | POLLHUP, w[1].revents);
	}
	check_revoked(_metadata, &dp, self->node_dp);
	unmap_port(&dp);
}

TEST_F(port, disable_wakes_blocked_waiters)
{
	if (!self->version)
		return;
	check_waiters_wake(_metadata, self, BY_DISABLE);
}

TEST_F(port, reset_wakes_blocked_waiters)
{
	if (!self->version)
		return;
	check_waiters_wake(_metadata, self, BY_RESET);
}

TEST_F(port, unbind_wakes_blocked_waiters)
{
	if (!self->version)
		return;
	check_waiters_wake(_metadata, self, BY_UNBIND);
}

/*
 * A consumer killed while it holds an atomic QE (dequeued, not completed)
 * and has more in its CQ: the driver returns them when the file goes, the
 * flow is not wedged, and the next opener starts from a clean ring.
 */
TEST_F(port, killed_consumer_does_not_wedge)
{
	struct dlb2_cq_entry e;
	struct maps dp, lp;
	char cfg[PATH_MAX];
	long lq;
	int st, i, ready[2];
	pid_t pid;
	char c;

	if (!self->version)
		return;
	lq = read_num(pathf(cfg, "%s/queues/lq", self->dom), "id");
	ASSERT_LE(0, lq);
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	for (i = 0; i < 3; i++)
		hcw(&dp, DLB2_CMD_NEW, lq, DLB2_SCHED(DLB2_SCHED_ATOMIC, 0), 7,
		    100 + i);
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct maps m;

		if (map_port(self->node_lp, &m) || !cq_wait(&m, 2, &e))
			_exit(1);
		write(ready[1], "r", 1);
		pause();	/* holds three QEs of flow 7 */
		_exit(0);
	}
	/* Wait until the child holds them, then kill it. */
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(3, port_stat(_metadata, self->pci, "kport", "lp", "inflight"));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFSIGNALED(st));
	EXPECT_EQ(3, port_stat(_metadata, self->pci, "kport", "lp", "released"));
	EXPECT_EQ(0, port_stat(_metadata, self->pci, "kport", "lp", "inflight"));
	EXPECT_EQ(0, port_stat(_metadata, self->pci, "kport", "lp", "outstanding"));
	/* Flow 7 moves again; the new opener finds it at entry 0. */
	hcw(&dp, DLB2_CMD_NEW, lq, DLB2_SCHED(DLB2_SCHED_ATOMIC, 0), 7, 200);
	ASSERT_EQ(0, map_port(self->node_lp, &lp));
	ASSERT_EQ(1, cq_wait(&lp, 0, &e));
	EXPECT_EQ(200, e.data);
	EXPECT_EQ(7, e.flow_id);
	EXPECT_EQ(lq, e.qid);
	EXPECT_EQ(0, cq_entry(&lp, 1, &e));
	hcw(&lp, DLB2_CMD_COMP_T, 0, 0, 0, 0);
	EXPECT_EQ(0, port_stat(_metadata, self->pci, "kport", "lp", "inflight"));
	unmap_port(&lp);
	unmap_port(&dp);
}

/*
 * The CQ ring cannot be pinned (vmsplice(), RDMA registration, O_DIRECT):
 * its pages go to the port's next opener, so a page reference that
 * outlived the file would show that opener's QEs.  get_user_pages()
 * refuses the mapping (EFAULT); reading it works.  The domain credit page,
 * which every port of the domain shares and RDMA may register, can still
 * be pinned.
 */
TEST_F(port, cq_cannot_be_pinned)
{
	struct iovec iov = { .iov_len = 4096 };
	uint64_t credit, page[512];
	struct dlb2_cq_entry e;
	int cq_pipe[2], cr_pipe[2];
	struct maps dp;
	ssize_t n;

	if (!self->version)
		return;
	ASSERT_EQ(0, map_port(self->node_dp, &dp));
	hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 0x1111);
	ASSERT_EQ(1, cq_wait(&dp, 0, &e));
	EXPECT_EQ(0x1111, e.data);
	hcw(&dp, DLB2_CMD_BAT_T, 0, 0, 0, 0);
	ASSERT_EQ(0, pipe(cq_pipe));
	ASSERT_EQ(0, pipe(cr_pipe));
	iov.iov_base = (void *)dp.cq;
	n = vmsplice(cq_pipe[1], &iov, 1, 0);
	EXPECT_EQ(-1, n);
	EXPECT_EQ(EFAULT, errno);
	if (n > 0) {
		/* What a pin gives away: the next opener's QEs. */
		unmap_port(&dp);
		ASSERT_EQ(0, map_port(self->node_dp, &dp));
		hcw(&dp, DLB2_CMD_NEW, dp.info.dir_queue_id,
		    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 0x5ec7e7);
		ASSERT_EQ(1, cq_wait(&dp, 0, &e));
		ASSERT_EQ(n, read(cq_pipe[0], page, n));
		EXPECT_NE(0x5ec7e7, page[0]) {
			TH_LOG("the old opener's pipe holds the next opener's QE");
		}
	}
	/* The credit page: pinned, the pipe reads what the mapping holds. */
	credit = dp.credits[0];
	iov.iov_base = (void *)dp.credits;
	EXPECT_EQ(4096, vmsplice(cr_pipe[1], &iov, 1, 0));
	EXPECT_EQ(4096, read(cr_pipe[0], page, 4096));
	EXPECT_EQ(credit, page[0]);
	close(cq_pipe[0]);
	close(cq_pipe[1]);
	close(cr_pipe[0]);
	close(cr_pipe[1]);
	unmap_port(&dp);
}

/* A producer of one domain cannot put a QE into another domain's queue. */
TEST_F(port, domains_are_isolated)
{
	char node[PATH_MAX], alarms[PATH_MAX];
	struct dlb2_cq_entry e;
	struct maps a, b;
	long before;

	if (!self->version)
		return;
	ASSERT_EQ(0, enable_domain(self->dev, self->dom2));
	ASSERT_EQ(0, map_port(self->node_dp, &a));
	ASSERT_EQ(0, map_port(pathf(node, "/dev/dlb2/%ld/kport2/dp",
				    self->dev_id), &b));
	ASSERT_NE(a.info.dir_queue_id, b.info.dir_queue_id);
	pathf(alarms, "%s/alarms", self->pci);
	before = read_num(alarms, "disabled_qid") + read_num(alarms, "illegal_qid");
	/* kport2's producer aims at kport's directed queue. */
	hcw(&b, DLB2_CMD_NEW, a.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 0xbad);
	/* The device took the HCW once its alarm counts; then no CQ has it. */
	EXPECT_TRUE(dlb2_poll_until(read_num(alarms, "disabled_qid") +
				    read_num(alarms, "illegal_qid") > before,
				    5000)) {
		TH_LOG("no disabled_qid or illegal_qid alarm within 5 s of the HCW to another domain's queue");
	}
	EXPECT_EQ(0, cq_entry(&a, 0, &e));
	EXPECT_EQ(0, cq_entry(&b, 0, &e));
	EXPECT_EQ(before + 1, read_num(alarms, "disabled_qid") +
		  read_num(alarms, "illegal_qid"));
	EXPECT_EQ(1, port_stat(_metadata, self->pci, "kport2", "dp", "alarms"));
	EXPECT_EQ(0, port_stat(_metadata, self->pci, "kport", "dp", "alarms"));
	/* Its own queue still works. */
	hcw(&b, DLB2_CMD_NEW, b.info.dir_queue_id,
	    DLB2_SCHED(DLB2_SCHED_DIRECTED, 0), 0, 0x600d);
	ASSERT_EQ(1, cq_wait(&b, 0, &e));
	EXPECT_EQ(0x600d, e.data);
	unmap_port(&a);
	unmap_port(&b);
}

TEST_HARNESS_MAIN
