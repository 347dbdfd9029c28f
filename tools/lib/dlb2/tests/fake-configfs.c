// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A stand-in for the dlb2 configfs tree in an ordinary directory, for tests
 * without the driver.  Programs linked with -Wl,--wrap=mkdir,--wrap=rmdir
 * get these mkdir/rmdir: under dlb2_configfs_root(), mkdir of a domain,
 * queue, port or link also creates the attribute files (with the defaults
 * of Documentation/ABI/testing/configfs-dlb2) and default groups the driver
 * would; rmdir removes them first.  Read-only attributes (status, id) are
 * mode 0444, as configfs makes them.  Values are not checked, simply
 * stored; but programs also linked with -Wl,--wrap=open get the driver's
 * EBUSY (a write to an attribute of an enabled domain, "enable" itself
 * excepted: the domain's "enable" file reads 1), and any errno a test asks
 * for: a write to attribute NAME fails with the errno named in the hidden
 * file .NAME.errno beside it (EBUSY, EINVAL, ERANGE, ENOSPC, ENODEV, EIO,
 * ENOMEM, EACCES, or a number).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libdlb2.h"
#include "fake-configfs.h"

void fake_configfs_put(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX + 64];
	struct stat st;
	bool ro;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* read-only for the program, not for the test playing the driver */
	ro = !stat(path, &st) && !(st.st_mode & 0200);
	if (ro)
		chmod(path, 0644);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", val);
		fclose(f);
	}
	if (ro)
		chmod(path, 0444);
}

/* A read-only attribute. */
static void put_ro(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX + 64];

	fake_configfs_put(dir, name, val);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	chmod(path, 0444);
}

static int errno_of(const char *s)
{
	static const struct { const char *name; int err; } names[] = {
		{ "EBUSY", EBUSY }, { "EINVAL", EINVAL }, { "ERANGE", ERANGE },
		{ "ENOSPC", ENOSPC }, { "ENODEV", ENODEV }, { "EIO", EIO },
		{ "ENOMEM", ENOMEM }, { "EACCES", EACCES },
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].err;
	return atoi(s);
}

/*
 * The errno a write to configfs attribute @path answers (the driver's
 * store; here at open, so that O_TRUNC leaves the value as it was): that
 * of the file .NAME.errno beside it, else EBUSY when its domain is enabled
 * and it is not the domain's "enable"; 0 for a write that goes through.
 */
static int refusal(const char *path)
{
	const char *root = dlb2_configfs_root();
	char p[PATH_MAX + 64], val[16];
	const char *name = strrchr(path, '/'), *s;
	int depth = 0;

	if (strncmp(path, root, strlen(root)) || path[strlen(root)] != '/' || !name)
		return 0;
	snprintf(p, sizeof(p), "%.*s/.%s.errno", (int)(name - path), path, name + 1);
	if (!dlb2_read_attr(p, val, sizeof(val)))
		return errno_of(val);
	for (s = path + strlen(root); *s; s++)
		depth += *s == '/';
	/* /dlb2_N/dom/attr is depth 3; the domain directory's enable file */
	if (depth == 3 && !strcmp(name, "/enable"))
		return 0;
	s = path + strlen(root);
	s = strchr(s + 1, '/');
	s = s ? strchr(s + 1, '/') : NULL;
	if (!s)
		return 0;
	snprintf(p, sizeof(p), "%.*s/enable", (int)(s - path), path);
	return !dlb2_read_attr(p, val, sizeof(val)) && !strcmp(val, "1") ? EBUSY : 0;
}

/* Opening an attribute for writing is where the stand-in refuses. */
int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	int err;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if ((flags & O_ACCMODE) != O_RDONLY) {
		err = refusal(path);
		if (err) {
			errno = err;
			return -1;
		}
	}
	return __real_open(path, flags, mode);
}

static void sub(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	__real_mkdir(path, 0755);
}

/* What the driver creates under a new directory, by its depth. */
int __wrap_mkdir(const char *path, mode_t mode)
{
	const char *root = dlb2_configfs_root();
	const char *rel = path + strlen(root);
	char parent[64] = "";
	int depth = 0, ret;
	const char *s;

	ret = __real_mkdir(path, mode);
	if (ret || strncmp(path, root, strlen(root)))
		return ret;
	for (s = rel; *s; s++)
		depth += *s == '/';
	/* rel is /dlb2_N/dom[/queues/q | /ports/p[/links/q]] */
	if (depth >= 4)		/* the third component: queues or ports */
		sscanf(rel, "/%*[^/]/%*[^/]/%63[^/]", parent);
	if (depth == 2) {
		fake_configfs_put(path, "ldb_credits", "0");
		fake_configfs_put(path, "dir_credits", "0");
		fake_configfs_put(path, "enable", "0");
		put_ro(path, "status", "disabled");
		put_ro(path, "id", "-1");
		sub(path, "queues");
		sub(path, "ports");
	} else if (depth == 4 && !strcmp(parent, "queues")) {
		fake_configfs_put(path, "type", "ldb");
		fake_configfs_put(path, "sched", "atomic");
		fake_configfs_put(path, "depth_threshold", "256");
		fake_configfs_put(path, "sequence_numbers", "0");
		fake_configfs_put(path, "atomic_inflights", "64");
		fake_configfs_put(path, "lock_id_compression", "0");
		put_ro(path, "id", "-1");
	} else if (depth == 4 && !strcmp(parent, "ports")) {
		fake_configfs_put(path, "type", "ldb");
		fake_configfs_put(path, "cq_depth", "64");
		fake_configfs_put(path, "history_list", "0");
		fake_configfs_put(path, "wait_mode", "poll");
		fake_configfs_put(path, "cos", "any");
		put_ro(path, "id", "-1");
		sub(path, "links");
	} else if (depth == 6) {
		fake_configfs_put(path, "priority", "0");
	}
	return 0;
}

/* Attributes and empty default groups go with their directory. */
int __wrap_rmdir(const char *path)
{
	char p[PATH_MAX + 300];
	struct dirent *de;
	struct stat st;
	DIR *d;

	d = opendir(path);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
			if (!stat(p, &st) && S_ISREG(st.st_mode))
				unlink(p);
			else if (!strcmp(de->d_name, "queues") ||
				 !strcmp(de->d_name, "ports") ||
				 !strcmp(de->d_name, "links"))
				__real_rmdir(p);	/* fails when not empty */
		}
		closedir(d);
	}
	return __real_rmdir(path);
}

