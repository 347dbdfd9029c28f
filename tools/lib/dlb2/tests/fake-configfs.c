// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A stand-in for the dlb2 configfs tree in an ordinary directory, for tests
 * without the driver.  Programs linked with -Wl,--wrap=mkdir,--wrap=rmdir
 * get these mkdir/rmdir: under dlb2_configfs_root(), mkdir of a domain,
 * queue, port or link also creates the attribute files (with the defaults
 * of Documentation/ABI/testing/configfs-dlb2) and default groups the driver
 * would; rmdir removes them first.  Nothing is checked: the values written
 * are simply stored.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libdlb2.h"
#include "fake-configfs.h"

void fake_configfs_put(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", val);
		fclose(f);
	}
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
		fake_configfs_put(path, "status", "disabled");
		fake_configfs_put(path, "id", "-1");
		sub(path, "queues");
		sub(path, "ports");
	} else if (depth == 4 && !strcmp(parent, "queues")) {
		fake_configfs_put(path, "type", "ldb");
		fake_configfs_put(path, "sched", "atomic");
		fake_configfs_put(path, "depth_threshold", "256");
		fake_configfs_put(path, "sequence_numbers", "0");
		fake_configfs_put(path, "atomic_inflights", "64");
		fake_configfs_put(path, "lock_id_compression", "0");
		fake_configfs_put(path, "id", "-1");
	} else if (depth == 4 && !strcmp(parent, "ports")) {
		fake_configfs_put(path, "type", "ldb");
		fake_configfs_put(path, "cq_depth", "64");
		fake_configfs_put(path, "history_list", "0");
		fake_configfs_put(path, "wait_mode", "poll");
		fake_configfs_put(path, "cos", "any");
		fake_configfs_put(path, "id", "-1");
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

