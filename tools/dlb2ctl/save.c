// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2ctl save: the domains in configfs as a configuration file that
 * "dlb2ctl apply" takes back unchanged.  Only what apply writes goes out
 * (no id, no status), every attribute with the value the driver holds, so
 * that a later change of a driver default does not change the domain; the
 * keys the schema allows only for load-balanced queues and ports are left
 * out for directed ones.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libdlb2.h"
#include "save.h"
#include "tree.h"

/* @buf = "@a/@b"; a path too long for PATH_MAX reads as missing. */
static const char *join(char *buf, const char *a, const char *b)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", a, b) >= PATH_MAX)
		snprintf(buf, PATH_MAX, "/nonexistent: path too long");
	return buf;
}

static int dirs_only(const struct dirent *de)
{
	return de->d_name[0] != '.' && de->d_type == DT_DIR;
}

/* Read attribute @dir/@name; NULL (and an error on stderr) if it cannot be. */
static const char *attr(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret;

	ret = dlb2_read_attr(join(path, dir, name), buf, len);
	if (ret) {
		fprintf(stderr, "dlb2ctl: save: %s: %s\n", path, strerror(-ret));
		return NULL;
	}
	return buf;
}

/* Print member @name of directory @dir (json_value()); -1 when unreadable. */
static int member(const char *dir, const char *name, int indent)
{
	char val[128];

	if (!attr(dir, name, val, sizeof(val)))
		return -1;
	printf(",\n%*s\"%s\": ", indent, "", name);
	json_value(val);
	return 0;
}

static int save_queue(const char *dir, const char *name)
{
	static const char *const ldb_only[] = {
		"sched", "sequence_numbers", "atomic_inflights",
		"lock_id_compression",
	};
	char type[8];
	unsigned int i;
	int err = 0;

	if (!attr(dir, "type", type, sizeof(type)))
		return -1;
	printf("        { \"name\": ");
	json_str(name);
	printf(",\n          \"type\": \"%s\"", type);
	err |= member(dir, "depth_threshold", 10);
	for (i = 0; !strcmp(type, "ldb") && i < sizeof(ldb_only) / sizeof(*ldb_only); i++)
		err |= member(dir, ldb_only[i], 10);
	printf(" }");
	return err;
}

static int save_links(const char *dir, bool ldb)
{
	char path[PATH_MAX], link[PATH_MAX], prio[8];
	const char *p;
	struct dirent **ents;
	int i, n, err = 0;

	n = scandir(join(path, dir, "links"), &ents, dirs_only, alphasort);
	if (n < 0) {
		fprintf(stderr, "dlb2ctl: save: %s: %s\n", path, strerror(errno));
		return -1;
	}
	printf(",\n          \"links\": [");
	for (i = 0; i < n; i++) {
		printf("%s", i ? ", " : " ");
		if (ldb) {
			/* the schema has no link priority for directed ports */
			p = attr(join(link, path, ents[i]->d_name), "priority",
				 prio, sizeof(prio));
			if (!p)
				err = -1;
			printf("{ \"queue\": ");
			json_str(ents[i]->d_name);
			printf(", \"priority\": %s }", p ? p : "null");
		} else {
			json_str(ents[i]->d_name);
		}
		free(ents[i]);
	}
	free(ents);
	printf(" ]");
	return err;
}

static int save_port(const char *dir, const char *name)
{
	char type[8];
	int err = 0;
	bool ldb;

	if (!attr(dir, "type", type, sizeof(type)))
		return -1;
	ldb = !strcmp(type, "ldb");
	printf("        { \"name\": ");
	json_str(name);
	printf(",\n          \"type\": \"%s\"", type);
	err |= member(dir, "cq_depth", 10);
	if (ldb)
		err |= member(dir, "history_list", 10);
	err |= member(dir, "wait_mode", 10);
	if (ldb)
		err |= member(dir, "cos", 10);
	err |= save_links(dir, ldb);
	printf(" }");
	return err;
}

/* Queues or ports (@kind) of domain directory @dom. */
static int save_list(const char *dom, const char *kind)
{
	char path[PATH_MAX];
	struct dirent **ents;
	int i, n, err = 0;

	char dir[PATH_MAX];

	n = scandir(join(dir, dom, kind), &ents, dirs_only, alphasort);
	if (n < 0) {
		fprintf(stderr, "dlb2ctl: save: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	printf(",\n      \"%s\": [", kind);
	for (i = 0; i < n; i++) {
		join(path, dir, ents[i]->d_name);
		printf("%s\n", i ? "," : "");
		err |= (*kind == 'q' ? save_queue : save_port)(path, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	printf("%s]", n ? "\n      " : "");
	return err;
}

static int save_domain(int dev, const char *dom, const char *name, bool first)
{
	char en[8];
	int err = 0;

	if (!attr(dom, "enable", en, sizeof(en)))
		return -1;
	printf("%s    {\n      \"name\": ", first ? "" : ",\n");
	json_str(name);
	printf(",\n      \"device\": %d", dev);
	err |= member(dom, "ldb_credits", 6);
	err |= member(dom, "dir_credits", 6);
	printf(",\n      \"enable\": %s", strcmp(en, "0") ? "true" : "false");
	err |= save_list(dom, "queues");
	err |= save_list(dom, "ports");
	printf("\n    }");
	return err;
}

int save_domains(int device, char **names, int nnames)
{
	char devdir[PATH_MAX], dom[PATH_MAX];
	struct dirent **devs, **doms;
	int i, j, k, n, m, dev, saved = 0, err = 0;
	char *end;

	n = scandir(dlb2_configfs_root(), &devs, dirs_only, alphasort);
	if (n < 0) {
		fprintf(stderr, "dlb2ctl: %s: %s\n", dlb2_configfs_root(), strerror(errno));
		return 1;
	}
	printf("{\n  \"domains\": [\n");
	for (i = 0; i < n; i++) {
		dev = -1;
		if (!strncmp(devs[i]->d_name, "dlb2_", 5))
			dev = (int)strtol(devs[i]->d_name + 5, &end, 10);
		if (dev < 0 || *end || (device >= 0 && dev != device))
			goto next_dev;
		join(devdir, dlb2_configfs_root(), devs[i]->d_name);
		m = scandir(devdir, &doms, dirs_only, alphasort);
		for (j = 0; j < m; j++) {
			for (k = 0; k < nnames; k++)
				if (!strcmp(names[k], doms[j]->d_name))
					break;
			if (!nnames || k < nnames) {
				join(dom, devdir, doms[j]->d_name);
				err |= save_domain(dev, dom, doms[j]->d_name, !saved++);
			}
			free(doms[j]);
		}
		if (m >= 0)
			free(doms);
next_dev:
		free(devs[i]);
	}
	free(devs);
	printf("\n  ]\n}\n");
	if (!saved) {
		fprintf(stderr, "dlb2ctl: save: no domain%s\n",
			nnames ? " of that name" : "s");
		return 1;
	}
	return err ? 1 : 0;
}
