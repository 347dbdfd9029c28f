// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2ctl: print trees of attribute files (configfs domains, sysfs
 * statistics) whatever their names, so that new attributes of the driver
 * show up without a change here.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libdlb2.h"
#include "tree.h"

int tree_read(const char *path, char *buf, size_t len)
{
	size_t i;
	int ret = dlb2_read_attr(path, buf, len);

	/* One line per attribute in the output. */
	for (i = 0; !ret && buf[i]; i++)
		if (buf[i] == '\n')
			buf[i] = ' ';
	return ret;
}

static int not_dot(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/* Alphabetical, but queues before the ports that link them. */
static int order(const struct dirent **a, const struct dirent **b)
{
	bool qa = !strcmp((*a)->d_name, "queues"), qb = !strcmp((*b)->d_name, "queues");

	if (qa != qb)
		return qa ? -1 : 1;
	return alphasort(a, b);
}

int tree_print(const char *path, const char *label, int indent)
{
	char sub[PATH_MAX], val[256], child[PATH_MAX];
	struct dirent **ents;
	struct stat st;
	int i, n, attrs = 0, lines = 0;

	n = scandir(path, &ents, not_dot, order);
	if (n < 0)
		return 0;
	/* the attributes first, on one line */
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
		if (lstat(sub, &st) || !S_ISREG(st.st_mode))
			continue;
		if (!attrs++)
			printf("%*s%s:", indent * 2, "", label);
		if (tree_read(sub, val, sizeof(val)))
			printf(" %s=?", ents[i]->d_name);
		else if (strchr(val, ' ') || !val[0])
			printf(" %s=\"%s\"", ents[i]->d_name, val);
		else
			printf(" %s=%s", ents[i]->d_name, val);
	}
	if (attrs) {
		printf("\n");
		lines++;
	}
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
		if (!lstat(sub, &st) && S_ISDIR(st.st_mode)) {
			if (attrs)
				snprintf(child, sizeof(child), "%s", ents[i]->d_name);
			else
				snprintf(child, sizeof(child), "%s/%s", label,
					 ents[i]->d_name);
			lines += tree_print(sub, child, attrs ? indent + 1 : indent);
		}
		free(ents[i]);
	}
	free(ents);
	return lines;
}

int tree_print_children(const char *path, const char *label, const char *only)
{
	char sub[PATH_MAX];
	struct dirent **ents;
	struct stat st;
	int i, n, found = 0;

	n = scandir(path, &ents, not_dot, alphasort);
	if (n < 0)
		return 0;
	if (!only)
		printf("%s\n", label);
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
		if ((!only || !strcmp(only, ents[i]->d_name)) &&
		    !lstat(sub, &st) && S_ISDIR(st.st_mode)) {
			if (only)
				printf("%s\n", label);
			tree_print(sub, ents[i]->d_name, 1);
			found++;
		}
		free(ents[i]);
	}
	free(ents);
	if (!only && !found)
		printf("  (no domains)\n");
	return found;
}

void json_str(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

void json_value(const char *s)
{
	const char *p = s + (*s == '-');
	char *end;

	if (*p >= '0' && *p <= '9' && (p[0] != '0' || !p[1])) {
		errno = 0;
		(void)strtoll(s, &end, 10);
		if (!*end && !errno) {
			fputs(s, stdout);
			return;
		}
	}
	json_str(s);
}

void tree_json(const char *path, int indent)
{
	char sub[PATH_MAX], val[256];
	struct dirent **ents;
	struct stat st;
	int i, n, k = 0;

	n = scandir(path, &ents, not_dot, order);
	printf("{");
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
		if (lstat(sub, &st) || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			goto next;
		printf("%s\n%*s", k++ ? "," : "", (indent + 1) * 2, "");
		json_str(ents[i]->d_name);
		printf(": ");
		if (S_ISDIR(st.st_mode))
			tree_json(sub, indent + 1);
		else if (tree_read(sub, val, sizeof(val)))
			printf("null");
		else
			json_value(val);
next:
		free(ents[i]);
	}
	if (n > 0)
		free(ents);
	if (k)
		printf("\n%*s", indent * 2, "");
	printf("}");
}
