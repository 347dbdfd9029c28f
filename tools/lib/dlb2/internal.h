/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libdlb2 internals shared between its files. */
#ifndef LIBDLB2_INTERNAL_H
#define LIBDLB2_INTERNAL_H

#include <stdarg.h>
#include "libdlb2.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* error.c: record the failure of @op on @path; returns @err (negative). */
int dlb2_fail(int err, const char *op, const char *path, const char *value);
/* Attach the status of domain @dir (a configfs domain directory). */
void dlb2_fail_status(const char *dir);
void dlb2_clear_error(void);
void dlb2_restore_error(const struct dlb2_error *e);

/* port.c: set up the data-path fields of @p from p->info. */
int dlb2_port_setup(struct dlb2_port *p, const struct dlb2_port_opts *opts,
		    void *credit_page);

/* config.c */
const char *dlb2_dev_root(void);
int dlb2_write_attr(const char *path, const char *value);
/*
 * Write @value to attribute @attr of domain @domain of device @dev, or of
 * the directory @sub below the domain ("queues/q0", "ports/p0/links/q0";
 * NULL or "": the domain's own), as the set-up calls do: 0 or -errno,
 * recorded with the domain's status (dlb2_last_error()).  Not exported by
 * libdlb2.so: dlb2ctl, linked with libdlb2.a, uses it for "set".
 */
int dlb2_attr_set(int dev, const char *domain, const char *sub,
		  const char *attr, const char *value);

/* json.c: a small JSON reader (RFC 8259, UTF-8, integers kept exact). */
enum json_type {
	JSON_NULL, JSON_BOOL, JSON_INT, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ,
};

struct json {
	enum json_type type;
	int line, col;			/* where the value starts */
	union {
		bool b;
		long long i;		/* JSON_INT */
		char *s;		/* JSON_STR, NUL-terminated */
		struct {		/* JSON_ARR, JSON_OBJ */
			int n;
			struct json **v;
			char **k;	/* object keys */
		};
	};
};

/* NULL on error: "line:col: what" in @err, errno EINVAL or ENOMEM */
struct json *json_parse(const char *text, size_t len, char *err, size_t errlen);
void json_free(struct json *j);
const char *json_type_name(enum json_type t);

#endif /* LIBDLB2_INTERNAL_H */
