// SPDX-License-Identifier: GPL-2.0
/*
 * An adversarial stress of dlb2's user-visible interfaces, all racing:
 * configfs mkdir/rmdir of domains, queues, ports and links with random and
 * boundary knob values and enable/disable; port files opened, mapped at
 * good and bad offsets, polled, read, given bad ioctls and closed in any
 * order; dma-bufs exported and closed before or after their port; function
 * resets and unbind/bind of the device.  Meanwhile a producer and a
 * consumer thread run directed traffic through a domain of their own
 * ("kst"): each QE carries the incarnation of the domain (one per enable)
 * and its sequence number in it, and the consumer checks every QE it
 * receives against the exact value it must have, the next of the same
 * incarnation.  A reset or an unbind revokes their ports (SIGBUS, caught);
 * the producer enables the domain again and both go on with the next
 * incarnation.
 *
 * Seeded (DLB2_STRESS_SEED, else the time; printed) and bounded in time
 * (DLB2_STRESS_SECONDS, default 10).  Every single operation may fail with
 * an errno; what counts is that the kernel stays sound (the kernel-log
 * check around the run: no BUG, WARNING, KASAN, lockdep or kmemleak
 * report), that every kind of operation succeeded at least once (else the
 * stress did not exercise it), that the consumer received no QE but the
 * one it expected and did so across a reset or an unbind, and that
 * afterwards everything can be torn down and the device has all its
 * resources back.  Prints the operations per kind, done and refused.
 *
 * Needs a DLB device and dlb2.ko loaded; skips without a device.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/dlb2.h>

#include "libdlb2.h"

#include "kselftest_harness.h"
#include "dlb2_lib.h"

#define NDOMS	3
#define NQUEUES	4
#define NPORTS	4

/*
 * The kinds of operation; each must succeed at least once in a run.  The
 * last three are the traffic's: "traffic" an enable of its domain (refused:
 * an enable that failed), "enqueue" a QE sent, "dequeue" a QE received
 * with the payload expected (refused, for both: a port revoked under the
 * thread).
 */
enum op { O_MKDIR, O_RMDIR, O_KNOB, O_ENABLE, O_DISABLE, O_OPEN, O_MMAP,
	  O_IOCTL, O_POLL, O_DMABUF, O_RESET, O_UNBIND, O_BIND, O_TRAFFIC,
	  O_ENQ, O_DEQ, O_NOPS };
static const char *const op_name[O_NOPS] = {
	"mkdir", "rmdir", "knob", "enable", "disable", "open", "mmap",
	"ioctl", "poll", "dmabuf", "reset", "unbind", "bind", "traffic",
	"enqueue", "dequeue",
};

/* The traffic's domain, its producer and consumer (traffic_*()). */
#define TDOM		"kst"
#define TCREDITS	128

struct traffic {
	pthread_mutex_t lock;	/* an enable and the incarnation it starts */
	atomic_uint gen;	/* incarnation: enables of TDOM so far */
	atomic_long mismatches;	/* QEs received that were not expected */
	atomic_long gens_checked; /* incarnations the consumer got QEs in */
	int q;			/* the consumer's queue, in gen */
};

struct stress {
	char bdf[NAME_MAX + 1];
	char pci[PATH_MAX];
	char cfs[PATH_MAX];
	long dev_id;
	unsigned int seed;
	atomic_int stop;
	atomic_long done[O_NOPS], refused[O_NOPS];
	struct traffic *tr;
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

/*
 * Now and then a function reset, and an unbind and bind: the first a reset,
 * the second an unbind and bind, so that a run of a few seconds has both;
 * then either.  The sleep paces them (0.5 to 1.5 s apart), it waits for
 * nothing.
 */
static void *device_thread(void *arg)
{
	struct stress *s = arg;
	unsigned int r = s->seed * 13 + 5, n;

	for (n = 0; !s->stop; n++) {
		usleep(500000 + pick(&r, 1000000));
		if (s->stop)
			break;
		if (n == 0 || (n > 1 && pick(&r, 3))) {
			count(s, O_RESET, write_attr(s->pci, "reset", "1"));
		} else {
			count(s, O_UNBIND, sysfs_write(DLB2_DRIVER "/unbind", s->bdf));
			count(s, O_BIND, sysfs_write(DLB2_DRIVER "/bind", s->bdf));
		}
	}
	return NULL;
}

/*
 * SIGBUS from a revoked port mapping, in a traffic thread: back to the
 * sigsetjmp() of its current guarded call (guarded_*()).  The handler runs
 * with SA_NODEFER, so that jumping out of it leaves SIGBUS unblocked.  A
 * SIGBUS anywhere else kills the test.
 */
static __thread sigjmp_buf *bus_jmp;

static void on_sigbus(int sig)
{
	if (bus_jmp)
		siglongjmp(*bus_jmp, 1);
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

/* A QE's payload: incarnation @gen of TDOM, QE @seq of it. */
static uint64_t payload(unsigned int gen, uint32_t seq)
{
	return 0x5e1ull << 52 | (uint64_t)(gen & 0xfffff) << 32 | seq;
}

static uint16_t payload_opaque(uint32_t seq)
{
	return (uint16_t)(seq * 40503u);
}

/* Enqueue one QE; 1 sent, 0 no credit, -EFAULT the port is revoked. */
static int guarded_enqueue(struct dlb2_port *p, const struct dlb2_hcw *h)
{
	sigjmp_buf jb;
	int ret;

	if (sigsetjmp(jb, 0)) {
		bus_jmp = NULL;
		return -EFAULT;
	}
	bus_jmp = &jb;
	ret = dlb2_enqueue_burst(p, (struct dlb2_hcw *)h, 1);
	bus_jmp = NULL;
	return ret == -ENOSPC ? 0 : ret;
}

/* Dequeue one QE; 1, 0 none, -EFAULT the port is revoked. */
static int guarded_dequeue(struct dlb2_port *p, struct dlb2_cq_entry *e)
{
	sigjmp_buf jb;
	int ret;

	if (sigsetjmp(jb, 0)) {
		bus_jmp = NULL;
		return -EFAULT;
	}
	bus_jmp = &jb;
	ret = dlb2_dequeue_burst(p, e, 1);
	bus_jmp = NULL;
	return ret;
}

/*
 * Close a port that may be revoked at any moment: libdlb2 gives tokens and
 * credits back through the mappings unless the port reads as revoked; a
 * revocation in between faults, and then the port reads as revoked (the
 * driver marks it dead before it zaps the mappings) and the second close
 * only unmaps.
 */
static void guarded_close(struct dlb2_port *p)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0)) {
		bus_jmp = NULL;
		dlb2_port_close(p);
		return;
	}
	bus_jmp = &jb;
	dlb2_port_close(p);
	bus_jmp = NULL;
}

/*
 * TDOM: directed queue "q" consumed by port "c"; producer port "p" with
 * its own queue "pq" (unused).  Built once; after a reset or an unbind it
 * reads "error: ..." and is enabled again.
 */
static int traffic_build(int dev)
{
	struct dlb2_port_attr pa = DLB2_PORT_ATTR_INIT;
	struct dlb2_queue_attr qa = DLB2_QUEUE_ATTR_INIT;

	pa.type = DLB2_DIR;
	qa.type = DLB2_DIR;
	dlb2_domain_destroy(dev, TDOM);
	return dlb2_domain_create(dev, TDOM) ?:
	       dlb2_domain_set_credits(dev, TDOM, 0, TCREDITS) ?:
	       dlb2_queue_add(dev, TDOM, "q", &qa) ?:
	       dlb2_queue_add(dev, TDOM, "pq", &qa) ?:
	       dlb2_port_add(dev, TDOM, "c", &pa) ?:
	       dlb2_port_add(dev, TDOM, "p", &pa) ?:
	       dlb2_link_add(dev, TDOM, "c", "q", -1) ?:
	       dlb2_link_add(dev, TDOM, "p", "pq", -1);
}

/*
 * A new incarnation of TDOM (disabled first, so that it is one even if
 * the last was not revoked) and the producer's port in it; the consumer
 * opens its port under the same lock, so its incarnation is the one it
 * reads.  NULL when the enable or the open was refused (a reset or an
 * unbind at that moment, another domain holding the credits).
 */
static struct dlb2_port *traffic_up(struct stress *s, uint32_t *seq)
{
	struct traffic *tr = s->tr;
	struct dlb2_port *p = NULL;
	char dir[PATH_MAX];
	int ret;

	pthread_mutex_lock(&tr->lock);
	pathf(dir, "%s/" TDOM, s->cfs);
	if (access(dir, F_OK))
		traffic_build(s->dev_id);
	dlb2_domain_disable(s->dev_id, TDOM);
	ret = dlb2_domain_enable(s->dev_id, TDOM);
	count(s, O_TRAFFIC, ret);
	if (!ret)
		ret = dlb2_queue_id(s->dev_id, TDOM, "q", &tr->q) ?:
		      dlb2_port_open(s->dev_id, TDOM, "p", NULL, &p);
	if (!ret) {
		tr->gen++;
		*seq = 0;
	}
	pthread_mutex_unlock(&tr->lock);
	return ret ? NULL : p;
}

/*
 * The producer: QEs of the current incarnation, numbered from 0, to the
 * consumer's queue, as fast as credits allow.  A revoked port (SIGBUS)
 * ends an incarnation; a refused enable is retried after 1 ms (pacing,
 * not a wait for a state: another domain may hold the credits).
 */
static void *producer_thread(void *arg)
{
	struct stress *s = arg;
	struct dlb2_port *p = NULL;
	unsigned int gen = 0;
	uint32_t seq = 0;
	struct dlb2_hcw h;
	int ret;

	while (!s->stop) {
		if (!p) {
			p = traffic_up(s, &seq);
			if (!p) {
				usleep(1000);
				continue;
			}
			gen = s->tr->gen;
		}
		dlb2_hcw_new(&h, s->tr->q, DLB2_SCHED_DIRECTED, 0, 0,
			     payload(gen, seq), payload_opaque(seq));
		ret = guarded_enqueue(p, &h);
		if (ret == 1) {
			count(s, O_ENQ, 0);
			seq++;
		} else if (ret < 0) {
			count(s, O_ENQ, -1);
			guarded_close(p);
			p = NULL;
		} else {
			sched_yield();
		}
	}
	if (p)
		guarded_close(p);
	return NULL;
}

/*
 * The consumer: once per incarnation, port "c" opened; each QE received
 * must be the next of that incarnation, exactly: its data and opaque as
 * the producer wrote them.  A mismatch is counted (the first ones
 * printed); when the QE is a whole one of this incarnation with another
 * number (QEs lost or reordered) the expectation follows it, else (a
 * corrupted QE) the next is expected, so that one lost or corrupted QE is
 * one mismatch, not all the rest.  QEs of an earlier incarnation (left in
 * the device across a reset) are mismatches too.
 */
static void *consumer_thread(void *arg)
{
	struct stress *s = arg;
	struct traffic *tr = s->tr;
	struct dlb2_port *c = NULL;
	unsigned int gen = 0;
	struct dlb2_cq_entry e;
	bool got = false;
	uint32_t seq = 0;
	int ret;

	while (!s->stop) {
		if (!c) {
			pthread_mutex_lock(&tr->lock);
			if (tr->gen != gen &&
			    !dlb2_port_open(s->dev_id, TDOM, "c", NULL, &c)) {
				gen = tr->gen;
				seq = 0;
				got = false;
			}
			pthread_mutex_unlock(&tr->lock);
			if (!c) {
				usleep(1000);	/* pacing: no new incarnation yet */
				continue;
			}
		}
		ret = guarded_dequeue(c, &e);
		if (ret < 0) {
			count(s, O_DEQ, -1);
			guarded_close(c);
			c = NULL;
			continue;
		}
		if (!ret) {
			sched_yield();
			continue;
		}
		if (e.data != payload(gen, seq) ||
		    e.opaque != payload_opaque(seq)) {
			if (tr->mismatches++ < 10)
				fprintf(stderr,
					"# consumer: incarnation %u, QE %u: data %#llx opaque %#x, expected %#llx %#x\n",
					gen, seq, (unsigned long long)e.data,
					e.opaque,
					(unsigned long long)payload(gen, seq),
					payload_opaque(seq));
			/* A whole QE of this incarnation, another number. */
			if (e.data == payload(gen, (uint32_t)e.data) &&
			    e.opaque == payload_opaque((uint32_t)e.data))
				seq = (uint32_t)e.data;
		} else {
			count(s, O_DEQ, 0);
			if (!got)
				tr->gens_checked++;
			got = true;
		}
		seq++;
	}
	if (c)
		guarded_close(c);
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
	cfs_domain_destroy(pathf(dom, "%s/" TDOM, self->s.cfs));
}

TEST_F_TIMEOUT(stress, everything_at_once, 600)
{
	void *(*const fn[])(void *) = {
		configfs_thread, configfs_thread, port_thread, port_thread,
		device_thread, producer_thread, consumer_thread,
	};
	struct traffic tr = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct sigaction sa = { .sa_handler = on_sigbus, .sa_flags = SA_NODEFER };
	long rev;
	const char *env = getenv("DLB2_STRESS_SECONDS");
	int secs = env ? atoi(env) : 10;
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
	s->tr = &tr;
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, NULL));
	ASSERT_EQ(0, traffic_build(s->dev_id)) {
		TH_LOG("cannot build the traffic's domain %s", TDOM);
	}
	for (i = 0; i < ARRAY_SIZE(fn); i++) {
		/*
		 * Each thread its own seed and counters (summed below),
		 * the traffic's state shared through s->tr.
		 */
		per[i] = *s;
		per[i].seed = s->seed + i * 1000003u;
	}
	for (i = 0; i < ARRAY_SIZE(fn); i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, fn[i], &per[i]));
	/* The run's length: pacing, not a wait for anything. */
	sleep(secs);
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
	TH_LOG("traffic: %u incarnations of %s, QEs checked in %ld of them, %ld mismatches",
	       (unsigned int)tr.gen, TDOM, (long)tr.gens_checked,
	       (long)tr.mismatches);

	/* Every kind was exercised: each succeeded at least once. */
	for (i = 0; i < O_NOPS; i++) {
		long done = s->done[i], refused = s->refused[i];

		EXPECT_LT(0, done) {
			TH_LOG("no %s succeeded in %d s (%ld refused): the stress did not exercise it",
			       op_name[i] ?: "?", secs, refused);
		}
	}
	/* Every QE the consumer received was the one expected. */
	EXPECT_EQ(0, tr.mismatches) {
		TH_LOG("the consumer received %ld QEs with a payload other than expected (first ones above)",
		       (long)tr.mismatches);
	}
	/* And the traffic went on across a reset or an unbind. */
	rev = s->done[O_RESET] + s->done[O_UNBIND];
	if (rev)
		EXPECT_LE(2, tr.gens_checked) {
			TH_LOG("the consumer checked QEs in %ld incarnation(s) of %s, after %ld resets and unbinds: the traffic did not resume",
			       (long)tr.gens_checked, TDOM, rev);
		}

	/* Everything goes, and the device has all its resources back. */
	dlb2_rebind(s->bdf);
	for (d = 0; d <= NDOMS; d++) {
		if (d < NDOMS)
			pathf(dom, "%s/kss%u", s->cfs, d);
		else
			pathf(dom, "%s/" TDOM, s->cfs);
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
