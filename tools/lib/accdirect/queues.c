// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A queue's scheduling type, as the server learns it from the domain's
 * configfs (Documentation/ABI/testing/configfs-dlb2): the queue's "type"
 * and, for a load-balanced queue, its "sched".  The DLB schedules each QE
 * by the type in its own sched bits, so the QEs an agent makes for a
 * request that asks for the queue's own type (ACCD_SCHED_QUEUE) must carry
 * this one.  tests/test-queues.c checks it on made-up trees.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "accdirect.h"
#include "libdlb2.h"

const char *accd_sched_name(unsigned int type)
{
	static const char *const names[] = {
		[DLB2_SCHED_ATOMIC] = "atomic",
		[DLB2_SCHED_UNORDERED] = "unordered",
		[DLB2_SCHED_ORDERED] = "ordered",
		[DLB2_SCHED_DIRECTED] = "directed",
	};

	return type < 4 ? names[type] : "?";
}

/* <root>/dlb2_<dev>/<domain>/queues/<queue>/<attr> into @buf (its value). */
static int read_queue_attr(int dev, const char *domain, const char *queue,
			   const char *attr, char *path, char *buf, size_t len)
{
	int n;

	n = snprintf(path, PATH_MAX, "%s/dlb2_%d/%s/queues/%s/%s",
		     dlb2_configfs_root(), dev, domain, queue, attr);
	if (n < 0 || n >= PATH_MAX)
		return -ENAMETOOLONG;
	return dlb2_read_attr(path, buf, len);
}

int accd_queue_sched(int dev, const char *domain, const char *queue,
		     char *why, size_t len)
{
	char path[PATH_MAX], val[32];
	int ret;

	if (dev < 0) {
		snprintf(why, len, "device %d: no such DLB", dev);
		return -EINVAL;
	}
	if (!dlb2_name_valid(domain)) {
		snprintf(why, len, "domain \"%s\": not a configfs name",
			 domain ? domain : "");
		return -EINVAL;
	}
	if (!dlb2_name_valid(queue)) {
		snprintf(why, len, "queue \"%s\": not a configfs name",
			 queue ? queue : "");
		return -EINVAL;
	}
	ret = read_queue_attr(dev, domain, queue, "type", path, val, sizeof(val));
	if (ret) {
		snprintf(why, len, "queue %s: its type cannot be read: %s: %s",
			 queue, path, strerror(-ret));
		return ret;
	}
	if (!strcmp(val, "dir"))
		return DLB2_SCHED_DIRECTED;
	if (strcmp(val, "ldb")) {
		snprintf(why, len, "queue %s: type \"%s\" is neither ldb nor dir (%s)",
			 queue, val, path);
		return -EPROTO;
	}
	ret = read_queue_attr(dev, domain, queue, "sched", path, val, sizeof(val));
	if (ret) {
		snprintf(why, len,
			 "queue %s: its scheduling type cannot be read: %s: %s",
			 queue, path, strerror(-ret));
		return ret;
	}
	if (!strcmp(val, "atomic"))
		return DLB2_SCHED_ATOMIC;
	if (!strcmp(val, "ordered"))
		return DLB2_SCHED_ORDERED;
	if (!strcmp(val, "unordered"))
		return DLB2_SCHED_UNORDERED;
	snprintf(why, len,
		 "queue %s: sched \"%s\" is not atomic, ordered or unordered (%s)",
		 queue, val, path);
	return -EPROTO;
}
