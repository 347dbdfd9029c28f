// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2 configfs tests: every knob accepts its valid values, which reach the
 * hardware (checked in the device's registers through BAR2 once the domain
 * is enabled), and rejects invalid ones with the documented errno without
 * changing anything; enable commits all or nothing and says why it failed;
 * an enabled domain refuses changes; disable gives every resource back;
 * enable racing mkdir and rmdir of queues, ports and links never oopses or
 * leaves an item held.
 *
 * Needs a DLB device and dlb2.ko loaded; skips without a device.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "dlb2_lib.h"

FIXTURE(cfs) {
	char bdf[NAME_MAX + 1];
	const char *version;
	char pci[PATH_MAX];	/* sysfs directory of the device */
	char dev[PATH_MAX];	/* configfs dlb2_<N> */
	char dom[PATH_MAX];	/* configfs domain of the test */
	char dom2[PATH_MAX];	/* a second domain */
	struct dlb2_bar bar;
};

FIXTURE_SETUP(cfs)
{
	self->version = dlb2_find_device(self->bdf, sizeof(self->bdf));
	if (!self->version)
		SKIP(return, "no DLB 2.0/2.5 PF present");
	pathf(self->pci, PCI_DEVICES "/%s", self->bdf);
	ASSERT_EQ(0, dlb2_cfs_dir(self->bdf, self->dev));
	pathf(self->dom, "%s/kst", self->dev);
	pathf(self->dom2, "%s/kst2", self->dev);
	cfs_domain_destroy(self->dom);
	cfs_domain_destroy(self->dom2);
	ASSERT_EQ(0, mkdir_e(self->dom));
	ASSERT_EQ(0, dlb2_bar_open(&self->bar, self->bdf, self->version));
}

FIXTURE_TEARDOWN(cfs)
{
	if (!self->version)
		return;
	cfs_domain_destroy(self->dom);
	cfs_domain_destroy(self->dom2);
	close(self->bar.fd);
}

struct knob_case {
	const char *attr;
	const char *value;
	int err;		/* 0: accepted, else the errno */
};

/*
 * Write each case in order; accepted values read back as written (modulo
 * formatting of numbers), rejected ones leave the last accepted value.
 */
static void check_knobs(struct __test_metadata *_metadata, const char *dir,
			const struct knob_case *c, size_t n)
{
	char before[64], after[64];
	size_t i;

	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, read_attr(dir, c[i].attr, before, sizeof(before)));
		EXPECT_EQ(-c[i].err, write_attr(dir, c[i].attr, c[i].value)) {
			TH_LOG("%s <- \"%s\"", c[i].attr, c[i].value);
		}
		ASSERT_EQ(0, read_attr(dir, c[i].attr, after, sizeof(after)));
		if (c[i].err) {
			EXPECT_STREQ(before, after);
		} else if (strtol(c[i].value, NULL, 0) || c[i].value[0] == '0') {
			EXPECT_EQ(strtol(c[i].value, NULL, 0),
				  strtol(after, NULL, 0));
		} else {
			EXPECT_STREQ(c[i].value, after);
		}
	}
}

TEST_F(cfs, names)
{
	char path[PATH_MAX];

	if (!self->version)
		return;
	EXPECT_EQ(-EINVAL, mkdir_e(pathf(path, "%s/bad!name", self->dev)));
	EXPECT_EQ(-EINVAL, mkdir_e(pathf(path, "%s/queues/a b", self->dom)));
	EXPECT_EQ(-EINVAL, mkdir_e(pathf(path, "%s/ports/%s", self->dom,
					 "a234567890123456789012345678901234")));
	EXPECT_EQ(0, mkdir_e(pathf(path, "%s/ports/p-1.x_2", self->dom)));
	EXPECT_EQ(0, rmdir_e(path));
}

TEST_F(cfs, queue_knobs)
{
	static const struct knob_case cases[] = {
		{ "type", "dir", 0 }, { "type", "ldb", 0 },
		{ "type", "fifo", EINVAL },
		{ "sched", "ordered", 0 }, { "sched", "unordered", 0 },
		{ "sched", "atomic", 0 }, { "sched", "fifo", EINVAL },
		{ "depth_threshold", "0", 0 }, { "depth_threshold", "8191", 0 },
		{ "depth_threshold", "8192", ERANGE },
		{ "depth_threshold", "many", EINVAL },
		{ "sequence_numbers", "64", 0 },
		{ "sequence_numbers", "1024", 0 },
		{ "sequence_numbers", "0", 0 },
		{ "sequence_numbers", "32", EINVAL },
		{ "sequence_numbers", "100", EINVAL },
		{ "sequence_numbers", "2048", EINVAL },
		{ "atomic_inflights", "0", 0 },
		{ "atomic_inflights", "2048", 0 },
		{ "atomic_inflights", "2049", ERANGE },
		{ "atomic_inflights", "-1", EINVAL },
		{ "lock_id_compression", "64", 0 },
		{ "lock_id_compression", "4096", 0 },
		{ "lock_id_compression", "65536", 0 },
		{ "lock_id_compression", "0", 0 },
		{ "lock_id_compression", "100", EINVAL },
		{ "lock_id_compression", "8192", EINVAL },
	};
	char q[PATH_MAX];

	if (!self->version)
		return;
	ASSERT_EQ(0, mkdir_e(pathf(q, "%s/queues/q", self->dom)));
	EXPECT_EQ(-1, read_num(q, "id"));
	check_knobs(_metadata, q, cases, ARRAY_SIZE(cases));
}

TEST_F(cfs, port_knobs)
{
	static const struct knob_case cases[] = {
		{ "type", "dir", 0 }, { "type", "ldb", 0 },
		{ "type", "both", EINVAL },
		{ "cq_depth", "1", 0 }, { "cq_depth", "8", 0 },
		{ "cq_depth", "1024", 0 }, { "cq_depth", "0", ERANGE },
		{ "cq_depth", "2048", ERANGE }, { "cq_depth", "3", EINVAL },
		{ "history_list", "2048", 0 }, { "history_list", "0", 0 },
		{ "history_list", "2049", ERANGE },
		{ "wait_mode", "interrupt", 0 }, { "wait_mode", "poll", 0 },
		{ "wait_mode", "sleep", EINVAL },
		{ "cos", "3", 0 }, { "cos", "any", 0 }, { "cos", "0", 0 },
		{ "cos", "4", ERANGE }, { "cos", "best", EINVAL },
	};
	char p[PATH_MAX];

	if (!self->version)
		return;
	ASSERT_EQ(0, mkdir_e(pathf(p, "%s/ports/p", self->dom)));
	EXPECT_EQ(-1, read_num(p, "id"));
	check_knobs(_metadata, p, cases, ARRAY_SIZE(cases));
}

TEST_F(cfs, domain_knobs)
{
	const struct knob_case v2[] = {
		{ "ldb_credits", "8192", 0 }, { "ldb_credits", "8193", ERANGE },
		{ "dir_credits", "4096", 0 }, { "dir_credits", "4097", ERANGE },
		{ "ldb_credits", "x", EINVAL }, { "enable", "maybe", EINVAL },
	};
	const struct knob_case v25[] = {
		{ "ldb_credits", "16384", 0 },
		{ "ldb_credits", "16385", ERANGE },
		{ "dir_credits", "16384", 0 },
		{ "dir_credits", "16385", ERANGE },
		{ "ldb_credits", "x", EINVAL }, { "enable", "maybe", EINVAL },
	};
	char buf[64];

	if (!self->version)
		return;
	ASSERT_EQ(0, read_attr(self->dom, "status", buf, sizeof(buf)));
	EXPECT_STREQ("disabled", buf);
	EXPECT_EQ(-1, read_num(self->dom, "id"));
	if (!strcmp(self->version, "2.5"))
		check_knobs(_metadata, self->dom, v25, ARRAY_SIZE(v25));
	else
		check_knobs(_metadata, self->dom, v2, ARRAY_SIZE(v2));
}

TEST_F(cfs, links)
{
	char path[PATH_MAX];
	int i;

	if (!self->version)
		return;
	ASSERT_EQ(0, cfs_add_port(self->dom, "lp", "ldb"));
	ASSERT_EQ(0, cfs_add_port(self->dom, "dp", "dir"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "dq", "dir"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "dq2", "dir"));
	EXPECT_EQ(-ENOENT, cfs_link(self->dom, "lp", "nosuch"));
	EXPECT_EQ(-EINVAL, cfs_link(self->dom, "lp", "dq"));
	EXPECT_EQ(0, cfs_link(self->dom, "dp", "dq"));
	EXPECT_EQ(-ENOSPC, cfs_link(self->dom, "dp", "dq2"));
	/* A port with links keeps its type. */
	EXPECT_EQ(-EBUSY, write_attr(pathf(path, "%s/ports/dp", self->dom),
				     "type", "ldb"));
	for (i = 0; i < 9; i++) {
		char q[16];

		snprintf(q, sizeof(q), "lq%d", i);
		ASSERT_EQ(0, cfs_add_queue(self->dom, q, "ldb"));
		EXPECT_EQ(i < 8 ? 0 : -ENOSPC, cfs_link(self->dom, "lp", q));
	}
	pathf(path, "%s/ports/lp/links/lq0", self->dom);
	EXPECT_EQ(0, write_attr(path, "priority", "7"));
	EXPECT_EQ(-ERANGE, write_attr(path, "priority", "8"));
	EXPECT_EQ(7, read_num(path, "priority"));
}

/* Enable fails with EINVAL and says why; the domain stays disabled. */
static void expect_refused(struct __test_metadata *_metadata, const char *dom,
			   int err, const char *why)
{
	char status[200];

	EXPECT_EQ(-err, write_attr(dom, "enable", "1"));
	ASSERT_EQ(0, read_attr(dom, "status", status, sizeof(status)));
	EXPECT_NE(NULL, strstr(status, why)) {
		TH_LOG("status \"%s\", expected \"%s\"", status, why);
	}
	EXPECT_EQ(0, read_num(dom, "enable"));
	EXPECT_EQ(-1, read_num(dom, "id"));
}

TEST_F(cfs, enable_checks)
{
	char path[PATH_MAX];

	if (!self->version)
		return;
	expect_refused(_metadata, self->dom, EINVAL, "no ports");
	ASSERT_EQ(0, cfs_add_port(self->dom, "dp", "dir"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "dq", "dir"));
	expect_refused(_metadata, self->dom, EINVAL,
		       "directed queue dq is linked by 0 ports");
	ASSERT_EQ(0, cfs_link(self->dom, "dp", "dq"));
	expect_refused(_metadata, self->dom, EINVAL, "credits");
	ASSERT_EQ(0, write_attr(self->dom, "dir_credits", "64"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "lq", "ldb"));
	expect_refused(_metadata, self->dom, EINVAL,
		       "load-balanced queues need a load-balanced port");
	ASSERT_EQ(0, cfs_add_port(self->dom, "lp", "ldb"));
	ASSERT_EQ(0, write_attr(self->dom, "ldb_credits", "64"));
	pathf(path, "%s/queues/lq", self->dom);
	ASSERT_EQ(0, write_attr(path, "atomic_inflights", "0"));
	expect_refused(_metadata, self->dom, EINVAL,
		       "atomic queue lq has no atomic_inflights");
	ASSERT_EQ(0, write_attr(path, "sched", "unordered"));
	ASSERT_EQ(0, write_attr(path, "sequence_numbers", "64"));
	expect_refused(_metadata, self->dom, EINVAL,
		       "has sequence_numbers but is not ordered");
	ASSERT_EQ(0, write_attr(path, "sequence_numbers", "0"));
	EXPECT_EQ(0, write_attr(self->dom, "enable", "1"));
	EXPECT_EQ(1, read_num(self->dom, "enable"));
}

/* Returns the avail_resources/<name> value of the device. */
static long avail(const char *pci, const char *name)
{
	char path[PATH_MAX];

	return read_num(pathf(path, "%s/avail_resources", pci), name);
}

TEST_F(cfs, enospc_is_all_or_nothing)
{
	long credits, domains;
	char half[32];

	if (!self->version)
		return;
	credits = avail(self->pci, "ldb_credits");
	domains = avail(self->pci, "domains");
	snprintf(half, sizeof(half), "%ld", credits / 2 + 1);
	ASSERT_EQ(0, cfs_add_port(self->dom, "lp", "ldb"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "lq", "ldb"));
	ASSERT_EQ(0, cfs_link(self->dom, "lp", "lq"));
	/* More than half of the credits to the first domain ... */
	ASSERT_EQ(0, write_attr(self->dom, "ldb_credits", half));
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	EXPECT_EQ(credits - atol(half), avail(self->pci, "ldb_credits"));
	/* ... so that the second cannot get its own. */
	ASSERT_EQ(0, mkdir_e(self->dom2));
	ASSERT_EQ(0, cfs_add_port(self->dom2, "lp", "ldb"));
	ASSERT_EQ(0, cfs_add_queue(self->dom2, "lq", "ldb"));
	ASSERT_EQ(0, cfs_link(self->dom2, "lp", "lq"));
	ASSERT_EQ(0, write_attr(self->dom2, "ldb_credits", half));
	expect_refused(_metadata, self->dom2, ENOSPC, "the device lacks");
	EXPECT_EQ(credits - atol(half), avail(self->pci, "ldb_credits"));
	EXPECT_EQ(domains - 1, avail(self->pci, "domains"));
	/* Disabling gives everything back. */
	ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
	EXPECT_EQ(credits, avail(self->pci, "ldb_credits"));
	EXPECT_EQ(domains, avail(self->pci, "domains"));
	EXPECT_EQ(0, write_attr(self->dom2, "enable", "1"));
}

/* A domain with a load-balanced port and an ordered queue "o" of 1024 SNs,
 * and with @more, an unordered queue "u" after it.
 */
static void ordered_domain(struct __test_metadata *_metadata, const char *dom,
			   bool more)
{
	char q[PATH_MAX];

	cfs_domain_destroy(dom);
	ASSERT_EQ(0, mkdir_e(dom));
	ASSERT_EQ(0, cfs_add_port(dom, "lp", "ldb"));
	ASSERT_EQ(0, cfs_add_queue(dom, "o", "ldb"));
	pathf(q, "%s/queues/o", dom);
	ASSERT_EQ(0, write_attr(q, "sched", "ordered"));
	ASSERT_EQ(0, write_attr(q, "sequence_numbers", "1024"));
	ASSERT_EQ(0, cfs_link(dom, "lp", "o"));
	if (more) {
		ASSERT_EQ(0, cfs_add_queue(dom, "u", "ldb"));
		pathf(q, "%s/queues/u", dom);
		ASSERT_EQ(0, write_attr(q, "sched", "unordered"));
		ASSERT_EQ(0, write_attr(q, "atomic_inflights", "0"));
		ASSERT_EQ(0, cfs_link(dom, "lp", "u"));
	}
	ASSERT_EQ(0, write_attr(dom, "ldb_credits", "64"));
}

/*
 * Both sequence-number groups held (1024 SNs each, by two domains), a third
 * domain's ordered queue finds no room: its failed enable must give back
 * only what it took.  A fourth then finds no room either, until one of the
 * first two lets its group go.
 */
TEST_F(cfs, sn_groups_survive_a_failed_enable)
{
	char c[PATH_MAX], d[PATH_MAX];

	if (!self->version)
		return;
	pathf(c, "%s/kst3", self->dev);
	pathf(d, "%s/kst4", self->dev);
	ordered_domain(_metadata, self->dom, false);
	ordered_domain(_metadata, self->dom2, false);
	ordered_domain(_metadata, c, true);
	ordered_domain(_metadata, d, false);
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	ASSERT_EQ(0, write_attr(self->dom2, "enable", "1"));
	expect_refused(_metadata, c, ENOSPC, "no sequence-number group has room");
	expect_refused(_metadata, d, ENOSPC, "no sequence-number group has room");
	ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
	EXPECT_EQ(0, write_attr(d, "enable", "1"));
	expect_refused(_metadata, c, ENOSPC, "no sequence-number group has room");
	cfs_domain_destroy(c);
	cfs_domain_destroy(d);
}

TEST_F(cfs, busy_while_enabled)
{
	char q[PATH_MAX], p[PATH_MAX], link[PATH_MAX], buf[64];

	if (!self->version)
		return;
	ASSERT_EQ(0, cfs_add_port(self->dom, "lp", "ldb"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "lq", "ldb"));
	ASSERT_EQ(0, cfs_link(self->dom, "lp", "lq"));
	ASSERT_EQ(0, write_attr(self->dom, "ldb_credits", "128"));
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	ASSERT_EQ(0, read_attr(self->dom, "status", buf, sizeof(buf)));
	EXPECT_STREQ("enabled", buf);
	EXPECT_LE(0, read_num(self->dom, "id"));
	pathf(q, "%s/queues/lq", self->dom);
	pathf(p, "%s/ports/lp", self->dom);
	EXPECT_EQ(-EBUSY, write_attr(self->dom, "ldb_credits", "64"));
	EXPECT_EQ(-EBUSY, write_attr(q, "depth_threshold", "5"));
	EXPECT_EQ(-EBUSY, write_attr(p, "cq_depth", "8"));
	EXPECT_EQ(-EBUSY, write_attr(p, "cos", "1"));
	EXPECT_EQ(-EBUSY, rmdir_e(q));
	EXPECT_EQ(-EBUSY, rmdir_e(p));
	EXPECT_EQ(-EBUSY, cfs_add_queue(self->dom, "new", "ldb"));
	EXPECT_EQ(-EBUSY, cfs_add_port(self->dom, "new", "ldb"));
	EXPECT_EQ(128, read_num(self->dom, "ldb_credits"));
	EXPECT_EQ(256, read_num(q, "depth_threshold"));
	EXPECT_EQ(64, read_num(p, "cq_depth"));
	ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
	ASSERT_EQ(0, read_attr(self->dom, "status", buf, sizeof(buf)));
	EXPECT_STREQ("disabled", buf);
	EXPECT_EQ(0, write_attr(self->dom, "ldb_credits", "64"));
	EXPECT_EQ(0, rmdir_e(pathf(link, "%s/links/lq", p)));
}

/*
 * Objects in use in the kmalloc caches of 32-byte objects (kmalloc-32,
 * or kmalloc-rnd-NN-32 with CONFIG_RANDOM_KMALLOC_CACHES), from
 * /proc/slabinfo; -errno when it cannot be read.
 */
static long kmalloc32_in_use(void)
{
	char line[512], name[128];
	long sum = -ENOENT, active;
	FILE *f = fopen("/proc/slabinfo", "r");
	int nn;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %ld", name, &active) != 2)
			continue;
		if (strcmp(name, "kmalloc-32") &&
		    (sscanf(name, "kmalloc-rnd-%d-32%n", &nn, &nn) != 1 ||
		     name[nn]))
			continue;
		sum = (sum < 0 ? 0 : sum) + active;
	}
	fclose(f);
	return sum;
}

/*
 * mkdir of a queue or port in an enabled domain is refused with EBUSY and
 * keeps nothing: configfs allocates the name of an item of 20 characters
 * or more (CONFIGFS_ITEM_NAME_LEN), 30 characters from kmalloc-32, and the
 * refusal must free it.  The harness kernel has no kmemleak, so the test
 * counts kmalloc-32's objects in use across 20,000 refusals: a leak adds
 * one per refusal, noise (per-CPU slabs count as in use) a few hundred.
 */
TEST_F(cfs, refused_mkdir_frees_its_name)
{
	static const char name[] = "n23456789012345678901234567890";
	const unsigned int rounds = 10000;	/* each a queue and a port */
	char q[PATH_MAX], p[PATH_MAX];
	long before, after;
	unsigned int i, busy = 0;
	int ret;

	if (!self->version)
		return;
	ASSERT_EQ(30, strlen(name));
	ASSERT_EQ(0, cfs_add_port(self->dom, "lp", "ldb"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "lq", "ldb"));
	ASSERT_EQ(0, cfs_link(self->dom, "lp", "lq"));
	ASSERT_EQ(0, write_attr(self->dom, "ldb_credits", "64"));
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	pathf(q, "%s/queues/%s", self->dom, name);
	pathf(p, "%s/ports/%s", self->dom, name);
	/* Once, so that whatever a first mkdir sets up is there before. */
	ASSERT_EQ(-EBUSY, mkdir_e(q));
	ASSERT_EQ(-EBUSY, mkdir_e(p));
	before = kmalloc32_in_use();
	if (before < 0)
		SKIP(return, "no kmalloc-32 in /proc/slabinfo: %s",
		     strerror(-before));
	for (i = 0; i < 2 * rounds; i++) {
		ret = mkdir_e(i & 1 ? p : q);
		if (ret != -EBUSY) {
			TH_LOG("mkdir %s: %s", i & 1 ? p : q, strerror(-ret));
			break;
		}
		busy++;
	}
	after = kmalloc32_in_use();
	TH_LOG("%u mkdirs refused with EBUSY; kmalloc-32 in use: %ld before, %ld after (%+ld)",
	       busy, before, after, after - before);
	EXPECT_EQ(2 * rounds, busy);
	/* A leak: one object per refusal.  Noise: far below a tenth of that. */
	EXPECT_LT(after - before, (long)busy / 10);
	EXPECT_NE(0, access(q, F_OK));
	EXPECT_NE(0, access(p, F_OK));
	ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
}

/* ---- enable racing mkdir and rmdir ------------------------------------- */

enum race_op { R_ENABLE, R_DISABLE, R_MKDIR, R_RMDIR, R_LINK, R_UNLINK,
	       R_TYPE, R_NOPS };
static const char *const race_op_name[R_NOPS] = {
	"enable", "disable", "mkdir", "rmdir", "link", "unlink", "type",
};

struct race {
	const char *dom;
	atomic_int stop;
	atomic_long done[R_NOPS];	/* succeeded */
	atomic_long busy[R_NOPS];	/* refused with an allowed errno */
	atomic_long bad;		/* any other outcome */
};

/* Count one outcome: 0 or one of the allowed errnos (0-terminated). */
static void race_count(struct race *r, enum race_op op, int ret, ...)
{
	va_list ap;
	int err;

	if (!ret) {
		r->done[op]++;
		return;
	}
	va_start(ap, ret);
	while ((err = va_arg(ap, int)))
		if (ret == -err)
			break;
	va_end(ap);
	if (err) {
		r->busy[op]++;
		return;
	}
	if (r->bad++ < 5)
		fprintf(stderr, "# race: %s answered %d\n", race_op_name[op], ret);
}

/* Toggle enable: EBUSY when an item is half made, EINVAL/ENOSPC when the
 * churned directed pair is incomplete.
 */
static void *race_enabler(void *arg)
{
	struct race *r = arg;
	int ret;

	while (!r->stop) {
		ret = write_attr(r->dom, "enable", "1");
		race_count(r, R_ENABLE, ret, EBUSY, EINVAL, 0);
		if (!ret)
			race_count(r, R_DISABLE, write_attr(r->dom, "enable", "0"),
				   0);
	}
	return NULL;
}

/* A load-balanced queue made and removed. */
static void *race_queue(void *arg)
{
	struct race *r = arg;
	char q[PATH_MAX];

	pathf(q, "%s/queues/rq", r->dom);
	while (!r->stop) {
		race_count(r, R_MKDIR, mkdir_e(q), EBUSY, EEXIST, 0);
		race_count(r, R_TYPE, write_attr(q, "type", "ldb"), EBUSY,
			   ENOENT, 0);
		race_count(r, R_RMDIR, rmdir_e(q), EBUSY, ENOENT, 0);
	}
	return NULL;
}

/* A load-balanced port made, linked to lq, unlinked and removed. */
static void *race_ldb_port(void *arg)
{
	struct race *r = arg;
	char p[PATH_MAX], l[PATH_MAX];

	pathf(p, "%s/ports/rp", r->dom);
	pathf(l, "%s/links/lq", p);
	while (!r->stop) {
		race_count(r, R_MKDIR, mkdir_e(p), EBUSY, EEXIST, 0);
		race_count(r, R_LINK, mkdir_e(l), EBUSY, EEXIST, ENOENT, 0);
		race_count(r, R_UNLINK, rmdir_e(l), EBUSY, ENOENT, 0);
		race_count(r, R_RMDIR, rmdir_e(p), EBUSY, ENOENT, ENOTEMPTY, 0);
	}
	return NULL;
}

/* A directed queue and port made, linked, unlinked and removed. */
static void *race_dir_pair(void *arg)
{
	struct race *r = arg;
	char q[PATH_MAX], p[PATH_MAX], l[PATH_MAX];

	pathf(q, "%s/queues/dq", r->dom);
	pathf(p, "%s/ports/dp", r->dom);
	pathf(l, "%s/links/dq", p);
	while (!r->stop) {
		race_count(r, R_MKDIR, mkdir_e(q), EBUSY, EEXIST, 0);
		race_count(r, R_TYPE, write_attr(q, "type", "dir"), EBUSY,
			   ENOENT, 0);
		race_count(r, R_MKDIR, mkdir_e(p), EBUSY, EEXIST, 0);
		race_count(r, R_TYPE, write_attr(p, "type", "dir"), EBUSY,
			   ENOENT, 0);
		race_count(r, R_LINK, mkdir_e(l), EBUSY, EEXIST, ENOENT,
			   EINVAL, 0);
		race_count(r, R_UNLINK, rmdir_e(l), EBUSY, ENOENT, 0);
		race_count(r, R_RMDIR, rmdir_e(p), EBUSY, ENOENT, ENOTEMPTY, 0);
		race_count(r, R_RMDIR, rmdir_e(q), EBUSY, ENOENT, 0);
	}
	return NULL;
}

/*
 * enable/disable racing mkdir and rmdir of queues, ports and links
 * (DLB2_RACE_SECONDS, default 5): every operation succeeds or answers an
 * errno its ABI allows, nothing WARNs or oopses (the kernel-log check), and
 * afterwards every churned item can be removed (no dependency left behind)
 * and the device has all its resources back.
 */
TEST_F_TIMEOUT(cfs, enable_races_mkdir_rmdir, 300)
{
	void *(*const fn[])(void *) = {
		race_enabler, race_queue, race_ldb_port, race_dir_pair,
	};
	const char *env = getenv("DLB2_RACE_SECONDS");
	long ldb_credits, queues, ports;
	struct race r = { .dom = self->dom };
	char path[PATH_MAX];
	pthread_t t[ARRAY_SIZE(fn)];
	unsigned int i;

	if (!self->version)
		return;
	ldb_credits = avail(self->pci, "ldb_credits");
	queues = avail(self->pci, "ldb_queues");
	ports = avail(self->pci, "ldb_ports");
	ASSERT_EQ(0, cfs_add_port(self->dom, "lp", "ldb"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "lq", "ldb"));
	ASSERT_EQ(0, cfs_link(self->dom, "lp", "lq"));
	ASSERT_EQ(0, write_attr(self->dom, "ldb_credits", "64"));
	ASSERT_EQ(0, write_attr(self->dom, "dir_credits", "64"));
	for (i = 0; i < ARRAY_SIZE(fn); i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, fn[i], &r));
	sleep(env ? atoi(env) : 5);	/* the race's length: pacing */
	r.stop = 1;
	for (i = 0; i < ARRAY_SIZE(fn); i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < R_NOPS; i++)
		TH_LOG("%-7s %6ld done, %6ld refused", race_op_name[i],
		       (long)r.done[i], (long)r.busy[i]);
	EXPECT_EQ(0, r.bad);
	EXPECT_LT(0, r.done[R_ENABLE]);

	/* Nothing is held any more: everything churned can go. */
	write_attr(self->dom, "enable", "0");
	rmdir_e(pathf(path, "%s/ports/rp/links/lq", self->dom));
	rmdir_e(pathf(path, "%s/ports/dp/links/dq", self->dom));
	rmdir_e(pathf(path, "%s/ports/rp", self->dom));
	rmdir_e(pathf(path, "%s/ports/dp", self->dom));
	rmdir_e(pathf(path, "%s/queues/rq", self->dom));
	rmdir_e(pathf(path, "%s/queues/dq", self->dom));
	EXPECT_NE(0, access(pathf(path, "%s/ports/rp", self->dom), F_OK));
	EXPECT_NE(0, access(pathf(path, "%s/ports/dp", self->dom), F_OK));
	EXPECT_NE(0, access(pathf(path, "%s/queues/rq", self->dom), F_OK));
	EXPECT_NE(0, access(pathf(path, "%s/queues/dq", self->dom), F_OK));
	EXPECT_EQ(ldb_credits, avail(self->pci, "ldb_credits"));
	EXPECT_EQ(queues, avail(self->pci, "ldb_queues"));
	EXPECT_EQ(ports, avail(self->pci, "ldb_ports"));
	/* And the domain still works. */
	EXPECT_EQ(0, write_attr(self->dom, "enable", "1"));
	EXPECT_EQ(0, write_attr(self->dom, "enable", "0"));
}

/* Offsets (2.0, 2.5) of the registers the knobs are checked in. */
struct csr {
	uint32_t v2, v25;
};

static const struct csr
	lsp_qid_atm_depth_thrsh = { 0xa2080000, 0x92200000 },
	lsp_qid_naldb_depth_thrsh = { 0xa2100000, 0x92280000 },
	lsp_qid_dir_depth_thrsh = { 0xa0980000, 0x90a00000 },
	lsp_qid_aqed_active_lim = { 0xa0a80000, 0x90c00000 },
	aqed_qid_hid_width = { 0x20080000, 0x20080000 },
	chp_ord_qid_sn_map = { 0x40180000, 0x40100000 },
	sys_ldb_qid_cfg_v = { 0x10000f58, 0x10000f58 },
	chp_ldb_cq_tkn_depth_sel = { 0x40b80000, 0x40d00000 },
	lsp_cq_ldb_tkn_cnt = { 0xa0580000, 0x90600000 },
	chp_dir_cq_tkn_depth_sel = { 0x40500000, 0x40580000 },
	lsp_cq_ldb_infl_lim = { 0xa0500000, 0x90500000 },
	chp_hist_list_base = { 0x40700000, 0x40780000 },
	chp_hist_list_lim = { 0x40780000, 0x40800000 },
	chp_ldb_cq_int_enb = { 0x40a00000, 0x40b80000 },
	chp_dir_cq_int_enb = { 0x40380000, 0x40400000 },
	lsp_cq2priov = { 0xa0000000, 0x90000000 },
	chp_cfg_dir_vas_crd = { 0x40000000, 0x40000000 },
	chp_cfg_ldb_vas_crd = { 0x40080000, 0x40080000 },
	sys_ldb_qid_its = { 0x10000f54, 0x10000f54 },
	sys_dir_qid_its = { 0x10000f64, 0x10000f64 },
	lsp_qid_ldb_infl_lim = { 0xa0d80000, 0x90f00000 },
	sys_ldb_cq_pasid = { 0x10000fa0, 0x10000f9c },
	sys_dir_cq_pasid = { 0x10000fe0, 0x10000fdc },
	sys_dir_cq_fmt = { 0x10000fec, 0x10000fec };

/*
 * A CSR, read through a raw mapping of BAR2; a kernel that refuses the
 * mapping makes the test skip (with the reason), not fail.
 */
#define REG(reg, idx)	({						\
	uint32_t __v = dlb2_csr(&self->bar, DLB2_CSR_AT(&self->bar, (reg).v2, \
							(reg).v25, idx)); \
	if (self->bar.refused)						\
		SKIP(return, "raw mapping of BAR2 at 0x%llx refused: %s (CONFIG_IO_STRICT_DEVMEM?)", \
		     (unsigned long long)self->bar.refused_at,	\
		     strerror(self->bar.refused));			\
	__v;								\
})

TEST_F(cfs, knobs_reach_hardware)
{
	char q1[PATH_MAX], q2[PATH_MAX], q3[PATH_MAX], dq[PATH_MAX];
	char p1[PATH_MAX], p2[PATH_MAX], dp[PATH_MAX], path[PATH_MAX];
	long iq1, iq2, iq3, idq, ip1, ip2, idp, dom;

	if (!self->version)
		return;
	ASSERT_EQ(0, cfs_add_queue(self->dom, "q1", "ldb"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "q2", "ldb"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "q3", "ldb"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "dq", "dir"));
	ASSERT_EQ(0, cfs_add_port(self->dom, "p1", "ldb"));
	ASSERT_EQ(0, cfs_add_port(self->dom, "p2", "ldb"));
	ASSERT_EQ(0, cfs_add_port(self->dom, "dp", "dir"));
	pathf(q1, "%s/queues/q1", self->dom);
	pathf(q2, "%s/queues/q2", self->dom);
	pathf(q3, "%s/queues/q3", self->dom);
	pathf(dq, "%s/queues/dq", self->dom);
	pathf(p1, "%s/ports/p1", self->dom);
	pathf(p2, "%s/ports/p2", self->dom);
	pathf(dp, "%s/ports/dp", self->dom);
	/* q1: atomic, 100 inflights, threshold 17, 256 lock ids */
	ASSERT_EQ(0, write_attr(q1, "atomic_inflights", "100"));
	ASSERT_EQ(0, write_attr(q1, "depth_threshold", "17"));
	ASSERT_EQ(0, write_attr(q1, "lock_id_compression", "256"));
	/* q2: ordered, 256 SNs; q3: ordered with the default size */
	ASSERT_EQ(0, write_attr(q2, "sched", "ordered"));
	ASSERT_EQ(0, write_attr(q2, "sequence_numbers", "256"));
	ASSERT_EQ(0, write_attr(q3, "sched", "unordered"));
	ASSERT_EQ(0, write_attr(q3, "atomic_inflights", "0"));
	ASSERT_EQ(0, write_attr(dq, "depth_threshold", "9"));
	/* p1: depth 4, history 40, interrupts, class 2; p2: defaults */
	ASSERT_EQ(0, write_attr(p1, "cq_depth", "4"));
	ASSERT_EQ(0, write_attr(p1, "history_list", "40"));
	ASSERT_EQ(0, write_attr(p1, "wait_mode", "interrupt"));
	ASSERT_EQ(0, write_attr(p1, "cos", "2"));
	ASSERT_EQ(0, write_attr(dp, "cq_depth", "256"));
	ASSERT_EQ(0, write_attr(dp, "wait_mode", "interrupt"));
	ASSERT_EQ(0, cfs_link(self->dom, "p1", "q1"));
	ASSERT_EQ(0, cfs_link(self->dom, "p1", "q2"));
	ASSERT_EQ(0, cfs_link(self->dom, "p2", "q3"));
	ASSERT_EQ(0, cfs_link(self->dom, "dp", "dq"));
	ASSERT_EQ(0, write_attr(pathf(path, "%s/links/q2", p1), "priority", "5"));
	ASSERT_EQ(0, write_attr(self->dom, "ldb_credits", "300"));
	ASSERT_EQ(0, write_attr(self->dom, "dir_credits", "200"));
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));

	dom = read_num(self->dom, "id");
	iq1 = read_num(q1, "id");
	iq2 = read_num(q2, "id");
	iq3 = read_num(q3, "id");
	idq = read_num(dq, "id");
	ip1 = read_num(p1, "id");
	ip2 = read_num(p2, "id");
	idp = read_num(dp, "id");
	ASSERT_LE(0, dom);
	ASSERT_LE(0, iq1);
	ASSERT_LE(0, ip1);
	ASSERT_LE(0, idp);
	EXPECT_EQ(idp, idq);		/* a directed pair */
	EXPECT_EQ(2, ip1 / 16);		/* class of service 2 */
	EXPECT_NE(ip1, ip2);

	EXPECT_EQ(17u, REG(lsp_qid_atm_depth_thrsh, iq1));
	EXPECT_EQ(17u, REG(lsp_qid_naldb_depth_thrsh, iq1));
	EXPECT_EQ(100u, REG(lsp_qid_aqed_active_lim, iq1));
	EXPECT_EQ(3u, REG(aqed_qid_hid_width, iq1));		/* 256 */
	EXPECT_EQ(2u, REG(sys_ldb_qid_cfg_v, iq1));		/* FID only */
	EXPECT_EQ(3u, REG(sys_ldb_qid_cfg_v, iq2));		/* SN + FID */
	EXPECT_EQ(2u, REG(chp_ord_qid_sn_map, iq2) & 7);	/* 256 SNs */
	/* at most its SNs inflight; a queue without SNs the history list */
	EXPECT_EQ(256u, REG(lsp_qid_ldb_infl_lim, iq2));
	EXPECT_EQ(2048u, REG(lsp_qid_ldb_infl_lim, iq1));
	EXPECT_EQ(0u, REG(sys_ldb_qid_its, iq1));		/* no timestamps */
	EXPECT_EQ(0u, REG(sys_dir_qid_its, idq));
	EXPECT_EQ(0u, REG(sys_ldb_qid_cfg_v, iq3));
	EXPECT_EQ(0u, REG(lsp_qid_aqed_active_lim, iq3));
	EXPECT_EQ(9u, REG(lsp_qid_dir_depth_thrsh, idq));
	EXPECT_EQ(1u, REG(chp_ldb_cq_tkn_depth_sel, ip1));	/* <= 8 */
	EXPECT_EQ(4u, REG(lsp_cq_ldb_tkn_cnt, ip1));		/* 8 - 4 */
	EXPECT_EQ(4u, REG(chp_ldb_cq_tkn_depth_sel, ip2));	/* 64 */
	EXPECT_EQ(6u, REG(chp_dir_cq_tkn_depth_sel, idp));	/* 256 */
	EXPECT_EQ(40u, REG(lsp_cq_ldb_infl_lim, ip1));
	EXPECT_EQ(0u, REG(sys_ldb_cq_pasid, ip1));		/* the PF's, no PASID */
	EXPECT_EQ(0u, REG(sys_dir_cq_pasid, idp));
	EXPECT_EQ(0u, REG(sys_dir_cq_fmt, idp));		/* not KEEP_PF_PPID */
	EXPECT_EQ(39u, REG(chp_hist_list_lim, ip1) - REG(chp_hist_list_base, ip1));
	EXPECT_EQ(128u, REG(lsp_cq_ldb_infl_lim, ip2));	/* 2 x 64 */
	EXPECT_EQ(2u, REG(chp_ldb_cq_int_enb, ip1));
	EXPECT_EQ(0u, REG(chp_ldb_cq_int_enb, ip2));
	EXPECT_EQ(2u, REG(chp_dir_cq_int_enb, idp));
	/* p1: slot 0 = q1 priority 0, slot 1 = q2 priority 5, both valid */
	EXPECT_EQ((3u << 24) | (5u << 3), REG(lsp_cq2priov, ip1));
	if (self->bar.v25) {
		EXPECT_EQ(500u, REG(chp_cfg_dir_vas_crd, dom));	/* one pool */
	} else {
		EXPECT_EQ(300u, REG(chp_cfg_ldb_vas_crd, dom));
		EXPECT_EQ(200u, REG(chp_cfg_dir_vas_crd, dom));
	}

	/* Disabled: the registers are back to their reset values. */
	ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
	EXPECT_EQ(0u, REG(lsp_qid_aqed_active_lim, iq1));
	EXPECT_EQ(0u, REG(lsp_cq2priov, ip1));
	EXPECT_EQ(0u, REG(chp_dir_cq_int_enb, idp));
	EXPECT_EQ(0u, REG(chp_cfg_dir_vas_crd, dom));
}

/* ---- enable during a function-level reset ------------------------------- */

struct resetter {
	const char *pci;
	atomic_long attempts;	/* enables the test tried so far */
	atomic_int started;	/* the reset came after the first attempts */
	atomic_int done;
	int ret;
};

/* The reset, once the test's enables are under way. */
static void *reset_device(void *arg)
{
	struct resetter *r = arg;

	r->started = dlb2_poll_until(r->attempts >= 10, 5000);
	r->ret = write_attr(r->pci, "reset", "1");
	r->done = 1;
	return NULL;
}

/*
 * While a reset of the function runs (reset_prepare to reset_done), enable
 * answers EBUSY and the device's state reads "resetting"; no domain can be
 * enabled into a device about to be wiped.  Afterwards enable programs the
 * device again (the domain's credits reach its register).
 */
TEST_F(cfs, enable_refused_during_reset)
{
	struct resetter r = { .pci = self->pci };
	long ok = 0, busy = 0, other = 0, resetting = 0;
	char status[200], state[32];
	pthread_t t;
	long dom;
	int ret;

	if (!self->version)
		return;
	ASSERT_EQ(0, cfs_add_port(self->dom, "lp", "ldb"));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "lq", "ldb"));
	ASSERT_EQ(0, cfs_link(self->dom, "lp", "lq"));
	ASSERT_EQ(0, write_attr(self->dom, "ldb_credits", "300"));
	ASSERT_EQ(0, write_attr(self->dom, "dir_credits", "200"));
	ASSERT_EQ(0, read_attr(self->pci, "state", state, sizeof(state)));
	EXPECT_STREQ("ready", state);
	ASSERT_EQ(0, pthread_create(&t, NULL, reset_device, &r));
	while (!r.done) {
		r.attempts++;
		ret = write_attr(self->dom, "enable", "1");
		if (!ret) {
			ok++;
			write_attr(self->dom, "enable", "0");
		} else if (ret == -EBUSY) {
			busy++;
			read_attr(self->dom, "status", status, sizeof(status));
			EXPECT_STREQ("error: the device is being reset", status);
		} else {
			other++;
		}
		if (!read_attr(self->pci, "state", state, sizeof(state)) &&
		    !strcmp(state, "resetting"))
			resetting++;
	}
	pthread_join(t, NULL);
	ASSERT_EQ(0, r.ret);
	EXPECT_TRUE(r.started) {
		TH_LOG("the enable loop made %ld attempts in 5 s, not 10, before the reset",
		       (long)r.attempts);
	}
	TH_LOG("during the reset: %ld enabled (before or after it), %ld refused, state read resetting %ld times",
	       ok, busy, resetting);
	EXPECT_LT(0, busy);
	EXPECT_EQ(0, other);
	ASSERT_EQ(0, read_attr(self->pci, "state", state, sizeof(state)));
	EXPECT_STREQ("ready", state);
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	dom = read_num(self->dom, "id");
	ASSERT_LE(0, dom);
	if (self->bar.v25) {
		EXPECT_EQ(500u, REG(chp_cfg_dir_vas_crd, dom));
	} else {
		EXPECT_EQ(300u, REG(chp_cfg_ldb_vas_crd, dom));
		EXPECT_EQ(200u, REG(chp_cfg_dir_vas_crd, dom));
	}
}

TEST_HARNESS_MAIN
