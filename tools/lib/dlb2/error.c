// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libdlb2: the per-thread record of the last failing setup call, so that a
 * caller can say which configfs file refused what, and why (the domain's
 * "status" text).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* struct dlb2_error keeps the size it had with PATH_MAX */
_Static_assert(DLB2_PATH_MAX == PATH_MAX, "DLB2_PATH_MAX is not PATH_MAX");

static __thread struct dlb2_error last;

const struct dlb2_error *dlb2_last_error(void)
{
	return &last;
}

void dlb2_clear_error(void)
{
	memset(&last, 0, sizeof(last));
}

void dlb2_restore_error(const struct dlb2_error *e)
{
	last = *e;
}

int dlb2_fail(int err, const char *op, const char *path, const char *value)
{
	last.err = err;
	snprintf(last.op, sizeof(last.op), "%s", op);
	snprintf(last.path, sizeof(last.path), "%s", path ? path : "");
	snprintf(last.value, sizeof(last.value), "%s", value ? value : "");
	last.status[0] = '\0';
	return err;
}

void dlb2_fail_status(const char *dir)
{
	char path[PATH_MAX];
	int err = last.err;

	if (snprintf(path, sizeof(path), "%s/status", dir) >= (int)sizeof(path) ||
	    dlb2_read_attr(path, last.status, sizeof(last.status)) < 0)
		last.status[0] = '\0';
	last.err = err;
}

const char *dlb2_strerror(char *buf, size_t len)
{
	int n;

	if (!last.err) {
		snprintf(buf, len, "no error");
		return buf;
	}
	n = snprintf(buf, len, "%s %s%s%s: %s", last.op, last.path,
		     last.value[0] ? " = " : "", last.value, strerror(-last.err));
	if (!strncmp(last.status, "error", 5) && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (status: %s)", last.status);
	return buf;
}
