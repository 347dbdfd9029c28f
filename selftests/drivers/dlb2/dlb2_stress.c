// SPDX-License-Identifier: GPL-2.0
/*
 * An adversarial stress of dlb2's user-visible interfaces, all racing:
 * configfs mkdir/rmdir of domains, queues, ports and links with random and
 * boundary knob values and enable/disable; port files opened, mapped at
 * good and bad offsets, polled, read, given bad ioctls and closed in any
 * order; dma-bufs exported and closed before or after their port; function
 * resets and unbind/bind of the device.
 *
 * Seeded (DLB2_STRESS_SEED, else the time; printed) and bounded in time
 * (DLB2_STRESS_SECONDS, default 10).  Every operation may fail with an
 * errno; what counts is that the kernel stays sound (the kernel-log check
 * around the run: no BUG, WARNING, KASAN, lockdep or kmemleak report) and
 * that afterwards everything can be torn down and the device has all its
 * resources back.  Prints the operations per kind, done and refused.
 *
 * Needs a DLB device and dlb2.ko loaded; skips without a device.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/dlb2.h>

#include "kselftest_harness.h"
#include "dlb2_lib.h"

#define NDOMS	3
#define NQUEUES	4
#define NPORTS	4

enum op { O_MKDIR, O_RMDIR, O_KNOB, O_ENABLE, O_DISABLE, O_OPEN, O_MMAP,
	  O_IOCTL, O_POLL, O_DMABUF, O_RESET, O_REBIND, O_NOPS };
static const char *const op_name[O_NOPS] = {
	"mkdir", "rmdir", "knob", "enable", "disable", "open", "mmap",
	"ioctl", "poll", "dmabuf", "reset", "rebind",
};

struct stress {
	char bdf[NAME_MAX + 1];
	char pci[PATH_MAX];
	char cfs[PATH_MAX];
	long dev_id;
	unsigned int seed;
	atomic_int stop;
	atomic_long done[O_NOPS], refused[O_NOPS];
};

static void count(struct stress *s, enum op op, int ret)
{
	if (ret < 0)
		s->refused[op]++;
	else
		s->done[op]++;
}

static unsigned int pick(unsigned int *r, unsigned int n)
{
	return rand_r(r) % n;
}

/* Knob values: valid, boundary and garbage. */
static const char *const values[] = {
	"0", "1", "2", "3", "7", "8", "63", "64", "65", "255", "256", "1024",
	"2048", "4096", "8191", "8192", "16384", "65536", "-1", "4294967296",
	"ldb", "dir", "atomic", "ordered", "unordered", "poll", "interrupt",
	"any", "", "x", " 1", "0x10",
};
static const char *const queue_knobs[] = {
	"type", "sched", "depth_threshold", "sequence_numbers",
	"atomic_inflights", "lock_id_compression",
};
static const char *const port_knobs[] = {
	"type", "cq_depth", "history_list", "wait_mode", "cos",
};
static const char *const dom_knobs[] = {
	"ldb_credits", "dir_credits",
};

#define ONE_OF(r, a)	((a)[pick(r, ARRAY_SIZE(a))])

static void *configfs_thread(void *arg)
{
	struct stress *s = arg;
	unsigned int r = s->seed;
	char path[PATH_MAX];

	while (!s->stop) {
		unsigned int d = pick(&r, NDOMS), q = pick(&r, NQUEUES);
		unsigned int p = pick(&r, NPORTS), what = pick(&r, 12);
		char dom[PATH_MAX];

		pathf(dom, "%s/kss%u", s->cfs, d);
		switch (what) {
		case 0:
			count(s, O_MKDIR, mkdir_e(dom));
			break;
		case 1:
			count(s, O_RMDIR, rmdir_e(dom));
			break;
		case 2:
			count(s, O_MKDIR, mkdir_e(pathf(path, "%s/queues/q%u", dom, q)));
			break;
		case 3:
			count(s, O_MKDIR, mkdir_e(pathf(path, "%s/ports/p%u", dom, p)));
			break;
		case 4:
			count(s, O_MKDIR, mkdir_e(pathf(path, "%s/ports/p%u/links/q%u",
							dom, p, q)));
			break;
		case 5:
			count(s, O_RMDIR, rmdir_e(pathf(path, "%s/ports/p%u/links/q%u",
							dom, p, q)));
			break;
		case 6:
			count(s, O_RMDIR, rmdir_e(pathf(path, "%s/queues/q%u", dom, q)));
			break;
		case 7:
			count(s, O_RMDIR, rmdir_e(pathf(path, "%s/ports/p%u", dom, p)));
			break;
		case 8:
			count(s, O_KNOB, write_attr(pathf(path, "%s/queues/q%u", dom, q),
						    ONE_OF(&r, queue_knobs),
						    ONE_OF(&r, values)));
			break;
		case 9:
			count(s, O_KNOB, write_attr(pathf(path, "%s/ports/p%u", dom, p),
						    ONE_OF(&r, port_knobs),
						    ONE_OF(&r, values)));
			break;
		case 10:
			count(s, O_KNOB, write_attr(dom, ONE_OF(&r, dom_knobs),
						    ONE_OF(&r, values)));
			break;
		default:
			if (pick(&r, 2))
				count(s, O_ENABLE, write_attr(dom, "enable", "1"));
			else
				count(s, O_DISABLE, write_attr(dom, "enable", "0"));
		}
	}
	return NULL;
}

/* Open ports, map, poll, read, ioctl, export; close in any order. */
static void *port_thread(void *arg)
{
	static const off_t offs[] = {
		DLB2_MMAP_PP_OFFSET, DLB2_MMAP_CQ_OFFSET, 4096, 1 << 20,
		-4096, 3 << 20,
	};
	static const size_t lens[] = { 4096, 8192, 65536, 1 << 20, 1 };
	static const int prots[] = {
		PROT_WRITE, PROT_READ, PROT_READ | PROT_WRITE,
	};
	struct stress *s = arg;
	unsigned int r = s->seed * 7 + 1;
	int fds[4] = { -1, -1, -1, -1 }, bufs[4] = { -1, -1, -1, -1 };
	char node[PATH_MAX];

	while (!s->stop) {
		unsigned int slot = pick(&r, 4), what = pick(&r, 8);
		struct dlb2_port_info info;
		struct pollfd pfd;
		char byte;
		void *m;
		int fd = fds[slot];

		switch (what) {
		case 0:
		case 1:
			if (fd >= 0)
				close(fd);
			pathf(node, "/dev/dlb2/%ld/kss%u/p%u", s->dev_id,
			      pick(&r, NDOMS), pick(&r, NPORTS));
			fds[slot] = open(node, pick(&r, 2) ? O_RDWR : O_RDONLY);
			count(s, O_OPEN, fds[slot]);
			break;
		case 2:
			if (pick(&r, 2)) {	/* a valid PP or CQ mapping */
				bool pp = pick(&r, 2);

				m = mmap(NULL, 4096, pp ? PROT_WRITE : PROT_READ,
					 MAP_SHARED, fd, pp ? DLB2_MMAP_PP_OFFSET :
							      DLB2_MMAP_CQ_OFFSET);
			} else {
				m = mmap(NULL, ONE_OF(&r, lens), ONE_OF(&r, prots),
					 MAP_SHARED, fd, ONE_OF(&r, offs));
			}
			count(s, O_MMAP, m == MAP_FAILED ? -1 : 0);
			/* Left mapped at times: the file outlives its fd. */
			if (m != MAP_FAILED && pick(&r, 2))
				munmap(m, 4096);
			break;
		case 3:
			count(s, O_IOCTL, ioctl(fd, DLB2_IOC_PORT_INFO, &info));
			count(s, O_IOCTL, ioctl(fd, DLB2_IOC_PORT_INFO, (void *)16));
			count(s, O_IOCTL, ioctl(fd, _IO(DLB2_IOC_MAGIC, 0x7f), 0));
			break;
		case 4:
			pfd.fd = fd;
			pfd.events = POLLIN;
			count(s, O_POLL, poll(&pfd, 1, pick(&r, 3)));
			count(s, O_POLL, read(fd, &byte, 1));
			break;
		case 5:
			if (bufs[slot] >= 0)
				close(bufs[slot]);
			bufs[slot] = ioctl(fd, DLB2_IOC_EXPORT_DMABUF,
					   pick(&r, 3) ? O_CLOEXEC : 0x4);
			count(s, O_DMABUF, bufs[slot]);
			break;
		case 6:
			if (fd >= 0)
				close(fd);
			fds[slot] = -1;
			break;
		default:
			if (bufs[slot] >= 0)
				close(bufs[slot]);
			bufs[slot] = -1;
		}
	}
	for (unsigned int i = 0; i < 4; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		if (bufs[i] >= 0)
			close(bufs[i]);
	}
	return NULL;
}

/* Now and then a function reset, and an unbind and bind. */
static void *device_thread(void *arg)
{
	struct stress *s = arg;
	unsigned int r = s->seed * 13 + 5;

	while (!s->stop) {
		usleep(500000 + pick(&r, 1000000));
		if (s->stop)
			break;
		if (pick(&r, 3)) {
			count(s, O_RESET, write_attr(s->pci, "reset", "1"));
		} else {
			count(s, O_REBIND, sysfs_write(DLB2_DRIVER "/unbind", s->bdf));
			count(s, O_REBIND, sysfs_write(DLB2_DRIVER "/bind", s->bdf));
		}
	}
	return NULL;
}

static long resource(const char *pci, const char *dir, const char *name)
{
	char path[PATH_MAX];

	return read_num(pathf(path, "%s/%s", pci, dir), name);
}

FIXTURE(stress) {
	struct stress s;
	const char *version;
};

FIXTURE_SETUP(stress)
{
	self->version = dlb2_find_device(self->s.bdf, sizeof(self->s.bdf));
	if (!self->version)
		SKIP(return, "no DLB 2.0/2.5 PF present");
	pathf(self->s.pci, PCI_DEVICES "/%s", self->s.bdf);
	self->s.dev_id = read_num(self->s.pci, "dev_id");
	ASSERT_LE(0, self->s.dev_id);
	ASSERT_EQ(0, dlb2_cfs_dir(self->s.bdf, self->s.cfs));
}

FIXTURE_TEARDOWN(stress)
{
	char dom[PATH_MAX];
	unsigned int d;

	if (!self->version)
		return;
	dlb2_rebind(self->s.bdf);
	for (d = 0; d < NDOMS; d++)
		cfs_domain_destroy(pathf(dom, "%s/kss%u", self->s.cfs, d));
}

TEST_F_TIMEOUT(stress, everything_at_once, 600)
{
	void *(*const fn[])(void *) = {
		configfs_thread, configfs_thread, port_thread, port_thread,
		device_thread,
	};
	const char *env = getenv("DLB2_STRESS_SECONDS");
	const char *seed = getenv("DLB2_STRESS_SEED");
	static const char *const res[] = {
		"domains", "ldb_queues", "ldb_ports", "dir_ports",
		"ldb_credits", "dir_credits", "hist_list_entries",
		"atomic_inflights",
	};
	struct stress *s = &self->s;
	pthread_t t[ARRAY_SIZE(fn)];
	struct stress per[ARRAY_SIZE(fn)];
	char dom[PATH_MAX];
	unsigned int i, d;

	if (!self->version)
		return;
	s->seed = seed ? strtoul(seed, NULL, 0) : (unsigned int)time(NULL);
	TH_LOG("seed %u (DLB2_STRESS_SEED=%u repeats this run's choices)",
	       s->seed, s->seed);
	for (i = 0; i < ARRAY_SIZE(fn); i++) {
		/* Each thread its own seed, the counters shared through s. */
		per[i] = *s;
		per[i].seed = s->seed + i * 1000003u;
	}
	for (i = 0; i < ARRAY_SIZE(fn); i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, fn[i], &per[i]));
	sleep(env ? atoi(env) : 10);
	for (i = 0; i < ARRAY_SIZE(fn); i++)
		per[i].stop = 1;
	for (i = 0; i < ARRAY_SIZE(fn); i++) {
		unsigned int k;

		pthread_join(t[i], NULL);
		for (k = 0; k < O_NOPS; k++) {
			s->done[k] += per[i].done[k];
			s->refused[k] += per[i].refused[k];
		}
	}
	for (i = 0; i < O_NOPS; i++)
		TH_LOG("%-8s %7ld done %7ld refused", op_name[i],
		       (long)s->done[i], (long)s->refused[i]);

	/* Everything goes, and the device has all its resources back. */
	dlb2_rebind(s->bdf);
	for (d = 0; d < NDOMS; d++) {
		pathf(dom, "%s/kss%u", s->cfs, d);
		cfs_domain_destroy(dom);
		EXPECT_NE(0, access(dom, F_OK)) {
			TH_LOG("%s cannot be removed", dom);
		}
	}
	for (i = 0; i < ARRAY_SIZE(res); i++) {
		long total = resource(s->pci, "total_resources", res[i]);
		long avail = resource(s->pci, "avail_resources", res[i]);

		if (total != avail)
			TH_LOG("%s: %ld of %ld back", res[i], avail, total);
		EXPECT_EQ(total, avail);
	}
}

TEST_HARNESS_MAIN
