// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * configfs set-up against a stand-in for configfs (fake-configfs.c: a
 * temporary directory where mkdir also creates the attributes the driver
 * would).  Checks what the library writes, in which directories, the
 * bottom-up destroy, and the error records.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libdlb2.h"
#include "../internal.h"
#include "fake-configfs.h"
#include "tap.h"

static char root[PATH_MAX];

/* Write an attribute of the stand-in configfs, as the driver would. */
static void put(const char *dir, const char *name, const char *val)
{
	fake_configfs_put(dir, name, val);
}

static const char *get(const char *rel)
{
	static char buf[256];
	char path[PATH_MAX + 256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (dlb2_read_attr(path, buf, sizeof(buf)))
		return "(missing)";
	return buf;
}

static bool exists(const char *rel)
{
	char path[PATH_MAX + 256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return !stat(path, &st);
}

static const char cfg[] =
	"{ \"domains\": [ { \"name\": \"d0\", \"ldb_credits\": 1024, \"dir_credits\": 512,\n"
	"  \"queues\": [ { \"name\": \"q0\", \"sched\": \"ordered\", \"sequence_numbers\": 256,\n"
	"                \"depth_threshold\": 100, \"lock_id_compression\": 64 },\n"
	"              { \"name\": \"dq\", \"type\": \"dir\" } ],\n"
	"  \"ports\": [ { \"name\": \"p0\", \"cq_depth\": 32, \"history_list\": 64, \"cos\": \"any\",\n"
	"               \"wait_mode\": \"interrupt\", \"links\": [ { \"queue\": \"q0\", \"priority\": 6 } ] },\n"
	"             { \"name\": \"p1\", \"cos\": 1, \"links\": [ \"q0\" ] },\n"
	"             { \"name\": \"dp\", \"type\": \"dir\", \"links\": [ \"dq\" ] } ] } ] }\n";

static void apply_and_destroy(void)
{
	struct dlb2_spec *s;
	char err[256];
	int id = 7;

	CHECK_EQ(dlb2_spec_parse(cfg, strlen(cfg), "cfg", &s, err, sizeof(err)), 0);
	if (!s)
		return;
	CHECK_EQ(dlb2_spec_apply(s), 0);
	CHECK_STR(get("dlb2_0/d0/ldb_credits"), "1024");
	CHECK_STR(get("dlb2_0/d0/dir_credits"), "512");
	CHECK_STR(get("dlb2_0/d0/enable"), "1");
	CHECK_STR(get("dlb2_0/d0/queues/q0/type"), "ldb");
	CHECK_STR(get("dlb2_0/d0/queues/q0/sched"), "ordered");
	CHECK_STR(get("dlb2_0/d0/queues/q0/sequence_numbers"), "256");
	CHECK_STR(get("dlb2_0/d0/queues/q0/depth_threshold"), "100");
	CHECK_STR(get("dlb2_0/d0/queues/q0/atomic_inflights"), "64");
	CHECK_STR(get("dlb2_0/d0/queues/q0/lock_id_compression"), "64");
	CHECK_STR(get("dlb2_0/d0/queues/dq/type"), "dir");
	CHECK_STR(get("dlb2_0/d0/ports/p0/cq_depth"), "32");
	CHECK_STR(get("dlb2_0/d0/ports/p0/history_list"), "64");
	CHECK_STR(get("dlb2_0/d0/ports/p0/wait_mode"), "interrupt");
	CHECK_STR(get("dlb2_0/d0/ports/p0/cos"), "any");
	CHECK_STR(get("dlb2_0/d0/ports/p0/links/q0/priority"), "6");
	CHECK_STR(get("dlb2_0/d0/ports/p1/cos"), "1");
	CHECK_STR(get("dlb2_0/d0/ports/p1/links/q0/priority"), "0");
	CHECK_STR(get("dlb2_0/d0/ports/dp/type"), "dir");
	CHECK(exists("dlb2_0/d0/ports/dp/links/dq"));

	CHECK_EQ(dlb2_port_id(0, "d0", "p1", &id), 0);
	CHECK_EQ(id, -1);
	put(root, "dlb2_0/d0/queues/q0/id", "5");
	CHECK_EQ(dlb2_queue_id(0, "d0", "q0", &id), 0);
	CHECK_EQ(id, 5);
	put(root, "dlb2_0/d0/id", "junk");
	CHECK_EQ(dlb2_domain_id(0, "d0", &id), -EPROTO);

	put(root, "dlb2_0/d0/status", "enabled");
	CHECK_EQ(dlb2_domain_destroy(0, "d0"), 0);
	CHECK(!exists("dlb2_0/d0"));
	CHECK(exists("dlb2_0"));
	CHECK_EQ(dlb2_domain_destroy(0, "d0"), -ENOENT);
	dlb2_spec_free(s);
}

static void c_api(void)
{
	struct dlb2_queue_attr qa = DLB2_QUEUE_ATTR_INIT;
	struct dlb2_port_attr pa = DLB2_PORT_ATTR_INIT;
	char status[64];

	CHECK_EQ(dlb2_domain_create(0, "x"), 0);
	CHECK_EQ(dlb2_domain_set_credits(0, "x", 64, -1), 0);
	CHECK_STR(get("dlb2_0/x/ldb_credits"), "64");
	CHECK_STR(get("dlb2_0/x/dir_credits"), "0");
	qa.type = DLB2_LDB;
	qa.sched = DLB2_QUNORDERED;
	CHECK_EQ(dlb2_queue_add(0, "x", "q", &qa), 0);
	CHECK_STR(get("dlb2_0/x/queues/q/sched"), "unordered");
	pa.cq_depth = 1024;
	pa.cos = 3;
	CHECK_EQ(dlb2_port_add(0, "x", "p", &pa), 0);
	CHECK_STR(get("dlb2_0/x/ports/p/type"), "ldb");	/* untouched */
	CHECK_STR(get("dlb2_0/x/ports/p/cq_depth"), "1024");
	CHECK_STR(get("dlb2_0/x/ports/p/cos"), "3");
	CHECK_EQ(dlb2_link_add(0, "x", "p", "q", -1), 0);
	CHECK_STR(get("dlb2_0/x/ports/p/links/q/priority"), "0");
	CHECK_EQ(dlb2_link_del(0, "x", "p", "q"), 0);
	CHECK(!exists("dlb2_0/x/ports/p/links/q"));
	CHECK_EQ(dlb2_domain_enable(0, "x"), 0);
	CHECK_STR(get("dlb2_0/x/enable"), "1");
	CHECK_EQ(dlb2_domain_disable(0, "x"), 0);
	CHECK_STR(get("dlb2_0/x/enable"), "0");
	CHECK_EQ(dlb2_domain_status(0, "x", status, sizeof(status)), 0);
	CHECK_STR(status, "disabled");
	CHECK_EQ(dlb2_domain_destroy(0, "x"), 0);
	CHECK(!exists("dlb2_0/x"));
}

static void errors(void)
{
	char path[PATH_MAX + 64], msg[PATH_MAX + 512], want[PATH_MAX + 512];
	const struct dlb2_error *e = dlb2_last_error();

	CHECK_EQ(dlb2_domain_create(0, "bad name"), -EINVAL);
	CHECK_STR(e->op, "name");
	CHECK_EQ(dlb2_domain_create(0, "a/b"), -EINVAL);
	CHECK_EQ(dlb2_domain_create(0, ".."), -EINVAL);
	CHECK_EQ(dlb2_domain_create(0, "123456789012345678901234567890123"), -EINVAL);
	CHECK_EQ(dlb2_domain_create(1, "d"), -ENOENT);
	snprintf(path, sizeof(path), "%s/dlb2_1/d", root);
	CHECK_STR(e->op, "mkdir");
	CHECK_STR(e->path, path);
	CHECK_EQ(e->err, -ENOENT);

	/* a refused enable: the record carries the domain's status */
	CHECK_EQ(dlb2_domain_create(0, "e"), 0);
	snprintf(path, sizeof(path), "%s/dlb2_0/e/enable", root);
	unlink(path);
	__real_mkdir(path, 0755);	/* writing it now fails: EISDIR */
	put(root, "dlb2_0/e/status", "error: queue q has no port");
	CHECK_EQ(dlb2_domain_enable(0, "e"), -EISDIR);
	CHECK_STR(e->op, "write");
	CHECK_STR(e->path, path);
	CHECK_STR(e->value, "1");
	CHECK_STR(e->status, "error: queue q has no port");
	snprintf(want, sizeof(want),
		 "write %s/dlb2_0/e/enable = 1: Is a directory (status: error: queue q has no port)",
		 root);
	CHECK_STR(dlb2_strerror(msg, sizeof(msg)), want);
	snprintf(path, sizeof(path), "%s/dlb2_0/e/enable", root);
	rmdir(path);
	put(root, "dlb2_0/e/status", "disabled");

	/* a refused attribute undoes its queue */
	CHECK_EQ(dlb2_queue_add(0, "e", "q", NULL), 0);
	{
		struct dlb2_queue_attr qa = DLB2_QUEUE_ATTR_INIT;

		qa.sched = 7;		/* no such value */
		CHECK_EQ(dlb2_queue_add(0, "e", "q2", &qa), -EINVAL);
		CHECK(!exists("dlb2_0/e/queues/q2"));
	}
	CHECK_EQ(dlb2_domain_destroy(0, "e"), 0);
	CHECK(!exists("dlb2_0/e"));
}

/* A failing apply removes the domains it made, and only those. */
static void apply_rolls_back(void)
{
	static const char two[] =
		"{\"domains\": [{\"name\": \"a\", \"queues\": [{\"name\": \"q\"}]},"
		" {\"name\": \"b\"}]}";
	const struct dlb2_error *e = dlb2_last_error();
	char path[PATH_MAX + 64];
	struct dlb2_spec *s;
	char err[256];

	CHECK_EQ(dlb2_spec_parse(two, strlen(two), "two", &s, err, sizeof(err)), 0);
	if (!s)
		return;
	CHECK_EQ(dlb2_domain_create(0, "b"), 0);	/* in the way */
	CHECK_EQ(dlb2_spec_apply(s), -EEXIST);
	snprintf(path, sizeof(path), "%s/dlb2_0/b", root);
	CHECK_STR(e->op, "mkdir");
	CHECK_STR(e->path, path);
	CHECK(!exists("dlb2_0/a"));
	CHECK(exists("dlb2_0/b"));
	CHECK_EQ(dlb2_domain_destroy(0, "b"), 0);
	dlb2_spec_free(s);
}

/* dlb2_attr_set(); the stand-in refuses writes as the driver would. */
static void attr_set(void)
{
	struct dlb2_port_attr pa = DLB2_PORT_ATTR_INIT;
	const struct dlb2_error *e = dlb2_last_error();
	char path[PATH_MAX + 64];
	struct stat st;

	CHECK_EQ(dlb2_domain_create(0, "s"), 0);
	CHECK_EQ(dlb2_port_add(0, "s", "p", &pa), 0);
	CHECK_EQ(dlb2_attr_set(0, "s", NULL, "ldb_credits", "96"), 0);
	CHECK_STR(get("dlb2_0/s/ldb_credits"), "96");
	CHECK_EQ(dlb2_attr_set(0, "s", "ports/p", "cq_depth", "8"), 0);
	CHECK_STR(get("dlb2_0/s/ports/p/cq_depth"), "8");
	CHECK_EQ(dlb2_attr_set(0, "s", "ports/../..", "x", "1"), -EINVAL);
	CHECK_STR(e->op, "name");
	CHECK_EQ(dlb2_attr_set(0, "s", "ports/p", "../enable", "1"), -EINVAL);
	CHECK_EQ(dlb2_attr_set(0, "s", "queues/none", "type", "dir"), -ENOENT);
	/* read-only attributes are mode 0444, as configfs makes them */
	snprintf(path, sizeof(path), "%s/dlb2_0/s/status", root);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0444);
	/* an errno asked for: .NAME.errno */
	put(root, "dlb2_0/s/ports/p/.cq_depth.errno", "ERANGE");
	CHECK_EQ(dlb2_attr_set(0, "s", "ports/p", "cq_depth", "2048"), -ERANGE);
	snprintf(path, sizeof(path), "%s/dlb2_0/s/ports/p/cq_depth", root);
	CHECK_STR(e->path, path);
	CHECK_STR(e->value, "2048");
	CHECK_STR(get("dlb2_0/s/ports/p/cq_depth"), "8");
	snprintf(path, sizeof(path), "%s/dlb2_0/s/ports/p/.cq_depth.errno", root);
	unlink(path);
	/* enabled: every attribute but enable answers EBUSY */
	CHECK_EQ(dlb2_domain_enable(0, "s"), 0);
	CHECK_EQ(dlb2_attr_set(0, "s", "ports/p", "cq_depth", "16"), -EBUSY);
	CHECK_EQ(dlb2_attr_set(0, "s", NULL, "dir_credits", "16"), -EBUSY);
	CHECK_EQ(dlb2_domain_disable(0, "s"), 0);
	CHECK_EQ(dlb2_attr_set(0, "s", "ports/p", "cq_depth", "16"), 0);
	CHECK_EQ(dlb2_domain_destroy(0, "s"), 0);
}

static void port_open_errors(void)
{
	const struct dlb2_error *e = dlb2_last_error();
	struct dlb2_port *p = (void *)1;
	char path[PATH_MAX + 64];

	dlb2_set_dev_root(root);
	CHECK_EQ(dlb2_port_open(0, "d", "p", NULL, &p), -ENOENT);
	CHECK(!p);
	snprintf(path, sizeof(path), "%s/0/d/p", root);
	CHECK_STR(e->op, "open");
	CHECK_STR(e->path, path);
	CHECK_EQ(dlb2_port_open(0, "d", "bad/name", NULL, &p), -EINVAL);
	/* a file that is no port: the ioctl fails */
	CHECK_EQ(dlb2_port_open_path("/dev/null", NULL, &p), -ENOTTY);
	CHECK_STR(e->op, "ioctl");
	CHECK_STR(e->value, "DLB2_IOC_PORT_INFO");
	dlb2_set_dev_root(NULL);
}

int main(void)
{
	char tmpl[] = "/tmp/dlb2-cfg-XXXXXX", dev[PATH_MAX + 16];
	int ret;

	if (!mkdtemp(tmpl))
		return 2;
	snprintf(root, sizeof(root), "%s/dlb2", tmpl);
	__real_mkdir(root, 0755);
	snprintf(dev, sizeof(dev), "%s/dlb2_0", root);
	__real_mkdir(dev, 0755);
	dlb2_set_configfs_root(root);

	RUN(apply_and_destroy);
	RUN(c_api);
	RUN(errors);
	RUN(apply_rolls_back);
	RUN(attr_set);
	RUN(port_open_errors);
	ret = tap_done();
	__real_rmdir(dev);
	__real_rmdir(root);
	__real_rmdir(tmpl);
	return ret;
}
