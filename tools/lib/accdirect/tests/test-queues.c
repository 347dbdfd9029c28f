// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of accd_queue_sched() (queues.c): a queue's scheduling type
 * read from made-up configfs trees (dlb2_set_configfs_root()), each type,
 * and each way the type cannot be known, with the exact message; and
 * accd_server_create() on such trees, which reads and logs each queue's
 * type, or fails with the message, before it needs a port device or an
 * RDMA device.  TAP; no device.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accdirect.h"
#include "libdlb2.h"
#include "tests/tap.h"		/* libdlb2's TAP helpers */

static char root[64];
static char why[512];

/* @root/dlb2_<dev>/<domain>/queues/<queue>: made, with its attributes. */
static void queue_dir(int dev, const char *domain, const char *queue,
		      char *dir, size_t len)
{
	char cmd[PATH_MAX + 16];

	snprintf(dir, len, "%s/dlb2_%d/%s/queues/%s", root, dev, domain, queue);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	if (system(cmd))
		abort();
}

/* @dir/@name holding @val (as configfs shows it: a newline at the end). */
static void put(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(val, f) < 0 || fclose(f))
		abort();
}

/* A queue of dlb2_0/dom with @type and, unless NULL, @sched. */
static void mkqueue(const char *queue, const char *type, const char *sched)
{
	char dir[PATH_MAX];

	queue_dir(0, "dom", queue, dir, sizeof(dir));
	if (type)
		put(dir, "type", type);
	if (sched)
		put(dir, "sched", sched);
}

static int qs(const char *queue)
{
	strcpy(why, "untouched");
	return accd_queue_sched(0, "dom", queue, why, sizeof(why));
}

static void t_types(void)
{
	mkqueue("a", "ldb\n", "atomic\n");
	mkqueue("o", "ldb\n", "ordered\n");
	mkqueue("u", "ldb\n", "unordered\n");
	/* a directed queue's sched is not looked at */
	mkqueue("d", "dir\n", "atomic\n");
	mkqueue("d2", "dir\n", NULL);
	/* written without a newline, as a stand-in tree may hold it */
	mkqueue("bare", "ldb", "ordered");

	CHECK_EQ(qs("a"), DLB2_SCHED_ATOMIC);
	CHECK_EQ(qs("o"), DLB2_SCHED_ORDERED);
	CHECK_EQ(qs("u"), DLB2_SCHED_UNORDERED);
	CHECK_EQ(qs("d"), DLB2_SCHED_DIRECTED);
	CHECK_EQ(qs("d2"), DLB2_SCHED_DIRECTED);
	CHECK_EQ(qs("bare"), DLB2_SCHED_ORDERED);
	CHECK_STR(why, "untouched");		/* no message on success */
	/* the values the DLB2_SCHED_* of dlb2_user.h are */
	CHECK_EQ(DLB2_SCHED_ATOMIC, 0);
	CHECK_EQ(DLB2_SCHED_UNORDERED, 1);
	CHECK_EQ(DLB2_SCHED_ORDERED, 2);
	CHECK_EQ(DLB2_SCHED_DIRECTED, 3);
}

static void t_device_and_domain(void)
{
	char dir[PATH_MAX];

	/* the same names on another device are another queue */
	queue_dir(1, "dom", "a", dir, sizeof(dir));
	put(dir, "type", "ldb\n");
	put(dir, "sched", "unordered\n");
	CHECK_EQ(accd_queue_sched(1, "dom", "a", why, sizeof(why)),
		 DLB2_SCHED_UNORDERED);
	CHECK_EQ(accd_queue_sched(0, "dom", "a", why, sizeof(why)),
		 DLB2_SCHED_ATOMIC);
	CHECK_EQ(accd_queue_sched(-1, "dom", "a", why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "device -1: no such DLB");
	CHECK_EQ(accd_queue_sched(0, "../dom", "a", why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "domain \"../dom\": not a configfs name");
	CHECK_EQ(accd_queue_sched(0, NULL, "a", why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "domain \"\": not a configfs name");
	CHECK_EQ(qs("a/../o"), -EINVAL);
	CHECK_STR(why, "queue \"a/../o\": not a configfs name");
	CHECK_EQ(qs(".."), -EINVAL);
	CHECK_STR(why, "queue \"..\": not a configfs name");
	CHECK_EQ(qs(NULL), -EINVAL);
	CHECK_STR(why, "queue \"\": not a configfs name");
}

static void t_type_unknown(void)
{
	char want[PATH_MAX + 512], dir[PATH_MAX];

	/* no such queue */
	CHECK_EQ(qs("nosuch"), -ENOENT);
	snprintf(want, sizeof(want),
		 "queue nosuch: its type cannot be read: %s/dlb2_0/dom/queues/nosuch/type: No such file or directory",
		 root);
	CHECK_STR(why, want);
	/* nor such domain */
	CHECK_EQ(accd_queue_sched(0, "other", "a", why, sizeof(why)), -ENOENT);
	snprintf(want, sizeof(want),
		 "queue a: its type cannot be read: %s/dlb2_0/other/queues/a/type: No such file or directory",
		 root);
	CHECK_STR(why, want);
	/* a queue without its type */
	mkqueue("notype", NULL, "atomic\n");
	CHECK_EQ(qs("notype"), -ENOENT);
	snprintf(want, sizeof(want),
		 "queue notype: its type cannot be read: %s/dlb2_0/dom/queues/notype/type: No such file or directory",
		 root);
	CHECK_STR(why, want);
	/* a type that cannot be read: a directory */
	queue_dir(0, "dom", "typedir", dir, sizeof(dir));
	snprintf(want, sizeof(want), "%s/type", dir);
	CHECK_EQ(mkdir(want, 0755), 0);
	CHECK_EQ(qs("typedir"), -EISDIR);
	snprintf(want, sizeof(want),
		 "queue typedir: its type cannot be read: %s/dlb2_0/dom/queues/typedir/type: Is a directory",
		 root);
	CHECK_STR(why, want);
	/* a type that is neither */
	mkqueue("weird", "lb\n", "atomic\n");
	CHECK_EQ(qs("weird"), -EPROTO);
	snprintf(want, sizeof(want),
		 "queue weird: type \"lb\" is neither ldb nor dir (%s/dlb2_0/dom/queues/weird/type)",
		 root);
	CHECK_STR(why, want);
	mkqueue("empty", "", "atomic\n");
	CHECK_EQ(qs("empty"), -EPROTO);
	snprintf(want, sizeof(want),
		 "queue empty: type \"\" is neither ldb nor dir (%s/dlb2_0/dom/queues/empty/type)",
		 root);
	CHECK_STR(why, want);
	mkqueue("upper", "LDB\n", "atomic\n");
	CHECK_EQ(qs("upper"), -EPROTO);
}

static void t_sched_unknown(void)
{
	char want[1024];

	/* a load-balanced queue without its sched */
	mkqueue("nosched", "ldb\n", NULL);
	CHECK_EQ(qs("nosched"), -ENOENT);
	snprintf(want, sizeof(want),
		 "queue nosched: its scheduling type cannot be read: %s/dlb2_0/dom/queues/nosched/sched: No such file or directory",
		 root);
	CHECK_STR(why, want);
	/* a sched that is none of the three */
	mkqueue("fifo", "ldb\n", "fifo\n");
	CHECK_EQ(qs("fifo"), -EPROTO);
	snprintf(want, sizeof(want),
		 "queue fifo: sched \"fifo\" is not atomic, ordered or unordered (%s/dlb2_0/dom/queues/fifo/sched)",
		 root);
	CHECK_STR(why, want);
	/* the DLB2_SCHED_* names are not configfs values */
	mkqueue("directed", "ldb\n", "directed\n");
	CHECK_EQ(qs("directed"), -EPROTO);
	mkqueue("prefix", "ldb\n", "atomically\n");
	CHECK_EQ(qs("prefix"), -EPROTO);
	mkqueue("sched0", "ldb\n", "0\n");
	CHECK_EQ(qs("sched0"), -EPROTO);
	/* a message longer than the buffer is cut, terminated */
	memset(why, 'x', sizeof(why));
	CHECK_EQ(accd_queue_sched(0, "dom", "fifo", why, 16), -EPROTO);
	CHECK_STR(why, "queue fifo: sch");
}

/*
 * accd_server_create() of domain "srv" with @queues, its log into *@log
 * (to free).  Its ports cannot be opened (the device root is empty): it
 * fails at the first producer port at the latest.
 */
static int create(const char *const *queues, unsigned int n, char **log)
{
	static const char *const producers[] = { "agent" }, *const workers[] = { "w0" };
	struct accd_server_attr attr = {
		.ip = "127.0.0.1", .domain = "srv",
		.queues = queues, .nr_queues = n,
		.producers = producers, .nr_producers = 1,
		.workers = workers, .nr_workers = 1,
		.name = "srv",
	};
	struct accd_server *s = (void *)1;
	size_t len;
	int ret;

	attr.log = open_memstream(log, &len);
	if (!attr.log)
		abort();
	ret = accd_server_create(&attr, &s);
	fclose(attr.log);
	CHECK(!s);
	return ret;
}

/* A queue of dlb2_0/srv: its id, its type and, unless NULL, its sched. */
static void srvqueue(const char *queue, const char *id, const char *type,
		     const char *sched)
{
	char dir[PATH_MAX];

	queue_dir(0, "srv", queue, dir, sizeof(dir));
	put(dir, "id", id);
	if (type)
		put(dir, "type", type);
	if (sched)
		put(dir, "sched", sched);
}

static void t_server_create(void)
{
	char want[PATH_MAX + 512], *log;
	const char *ports = "srv: producer port agent: ";
	const char *types = "srv: queue a (id 3): atomic\n"
			    "srv: queue o (id 4): ordered\n"
			    "srv: queue u (id 5): unordered\n"
			    "srv: queue d (id 7): directed\n";

	srvqueue("a", "3\n", "ldb\n", "atomic\n");
	srvqueue("o", "4\n", "ldb\n", "ordered\n");
	srvqueue("u", "5\n", "ldb\n", "unordered\n");
	srvqueue("d", "7\n", "dir\n", NULL);
	srvqueue("notype", "8\n", NULL, NULL);
	srvqueue("weird", "9\n", "lb\n", "atomic\n");
	srvqueue("nosched", "10\n", "ldb\n", NULL);
	srvqueue("fifo", "11\n", "ldb\n", "fifo\n");

	/* each type read and logged, then the first port cannot be opened */
	CHECK(create((const char *[]){ "a", "o", "u", "d" }, 4, &log) < 0);
	CHECK(!strncmp(log, types, strlen(types)));
	CHECK(!strncmp(log + strlen(types), ports, strlen(ports)));
	if (strncmp(log, types, strlen(types)))
		diag("log: %s", log);
	free(log);

	/* a queue whose type cannot be known: the message, nothing opened */
	CHECK_EQ(create((const char *[]){ "a", "notype" }, 2, &log), -ENOENT);
	snprintf(want, sizeof(want),
		 "srv: queue a (id 3): atomic\n"
		 "srv: queue notype: its type cannot be read: %s/dlb2_0/srv/queues/notype/type: No such file or directory\n",
		 root);
	CHECK_STR(log, want);
	free(log);
	CHECK_EQ(create((const char *[]){ "weird", "a" }, 2, &log), -EPROTO);
	snprintf(want, sizeof(want),
		 "srv: queue weird: type \"lb\" is neither ldb nor dir (%s/dlb2_0/srv/queues/weird/type)\n",
		 root);
	CHECK_STR(log, want);
	free(log);
	CHECK_EQ(create((const char *[]){ "nosched" }, 1, &log), -ENOENT);
	snprintf(want, sizeof(want),
		 "srv: queue nosched: its scheduling type cannot be read: %s/dlb2_0/srv/queues/nosched/sched: No such file or directory\n",
		 root);
	CHECK_STR(log, want);
	free(log);
	CHECK_EQ(create((const char *[]){ "u", "fifo" }, 2, &log), -EPROTO);
	snprintf(want, sizeof(want),
		 "srv: queue u (id 5): unordered\n"
		 "srv: queue fifo: sched \"fifo\" is not atomic, ordered or unordered (%s/dlb2_0/srv/queues/fifo/sched)\n",
		 root);
	CHECK_STR(log, want);
	free(log);
}

static void t_names(void)
{
	CHECK_STR(accd_sched_name(DLB2_SCHED_ATOMIC), "atomic");
	CHECK_STR(accd_sched_name(DLB2_SCHED_UNORDERED), "unordered");
	CHECK_STR(accd_sched_name(DLB2_SCHED_ORDERED), "ordered");
	CHECK_STR(accd_sched_name(DLB2_SCHED_DIRECTED), "directed");
	CHECK_STR(accd_sched_name(4), "?");
}

int main(void)
{
	char cmd[128];
	int ret;

	snprintf(root, sizeof(root), "/tmp/accd-queues.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	dlb2_set_configfs_root(root);
	snprintf(cmd, sizeof(cmd), "%s/dev", root);
	dlb2_set_dev_root(cmd);		/* no port devices */
	RUN(t_types);
	RUN(t_device_and_domain);
	RUN(t_type_unknown);
	RUN(t_sched_unknown);
	RUN(t_server_create);
	RUN(t_names);
	ret = tap_done();
	dlb2_set_configfs_root(NULL);
	dlb2_set_dev_root(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		ret = 1;
	return ret;
}
