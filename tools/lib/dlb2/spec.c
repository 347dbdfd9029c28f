// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libdlb2: configuration files.  Checks a JSON tree (json.c) against the
 * schema of README.md into a struct dlb2_spec, with messages that name the
 * file, line, column and setting ("cfg.json:7:18: domains[0].queues[0].
 * sched: \"fifo\" is not one of atomic, ordered, unordered"), and applies a
 * spec through configfs (config.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

struct ctx {
	const char *name;	/* file name for messages */
	char *err;
	size_t errlen;
	char path[128];		/* the setting being checked */
};

static int __attribute__((format(printf, 3, 4)))
bad(struct ctx *c, const struct json *j, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(c->err, c->errlen, "%s:%d:%d: %s%s", c->name, j->line,
		     j->col, c->path, c->path[0] ? ": " : "");
	if (n >= 0 && (size_t)n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Append to the path; returns the old length for path_pop(). */
static size_t __attribute__((format(printf, 2, 3)))
path_push(struct ctx *c, const char *fmt, ...)
{
	size_t old = strlen(c->path);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->path + old, sizeof(c->path) - old, fmt, ap);
	va_end(ap);
	return old;
}

static void path_pop(struct ctx *c, size_t old)
{
	c->path[old] = '\0';
}

static int want(struct ctx *c, const struct json *j, enum json_type t)
{
	if (j->type == t)
		return 0;
	return bad(c, j, "expected %s, found %s", json_type_name(t),
		   json_type_name(j->type));
}

/* Keys of object @j must be in @keys (NULL-terminated). */
static int check_keys(struct ctx *c, const struct json *j,
		      const char *const *keys)
{
	char list[256] = "";
	int i, k;

	for (i = 0; i < j->n; i++) {
		for (k = 0; keys[k] && strcmp(keys[k], j->k[i]); k++)
			;
		if (keys[k])
			continue;
		for (k = 0; keys[k]; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s", k ? ", " : "", keys[k]);
		return bad(c, j->v[i], "unknown key \"%s\" (known: %s)",
			   j->k[i], list);
	}
	return 0;
}

static const struct json *member(const struct json *j, const char *key)
{
	int i;

	for (i = 0; i < j->n; i++)
		if (!strcmp(j->k[i], key))
			return j->v[i];
	return NULL;
}

/* Integer member @key in min..max into *out; absent: *out unchanged. */
static int get_int(struct ctx *c, const struct json *obj, const char *key,
		   long long min, long long max, int *out)
{
	const struct json *j = member(obj, key);
	size_t old;
	int err;

	if (!j)
		return 0;
	old = path_push(c, ".%s", key);
	err = want(c, j, JSON_INT);
	if (!err && (j->i < min || j->i > max))
		err = bad(c, j, "%lld is out of range %lld..%lld", j->i, min, max);
	if (!err)
		*out = (int)j->i;
	path_pop(c, old);
	return err;
}

/* Integer member @key, one of @vals (@n of them). */
static int get_int_in(struct ctx *c, const struct json *obj, const char *key,
		      const int *vals, int n, int *out)
{
	const struct json *j = member(obj, key);
	char list[128] = "";
	size_t old;
	int i, err;

	if (!j)
		return 0;
	old = path_push(c, ".%s", key);
	err = want(c, j, JSON_INT);
	for (i = 0; !err && i < n && vals[i] != j->i; i++)
		;
	if (!err && i == n) {
		for (i = 0; i < n; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%d", i ? ", " : "", vals[i]);
		err = bad(c, j, "%lld is not one of %s", j->i, list);
	}
	if (!err)
		*out = (int)j->i;
	path_pop(c, old);
	return err;
}

/* String member @key, one of @names: *out = its index. */
static int get_enum(struct ctx *c, const struct json *obj, const char *key,
		    const char *const *names, int n, int *out)
{
	const struct json *j = member(obj, key);
	char list[128] = "";
	size_t old;
	int i, err;

	if (!j)
		return 0;
	old = path_push(c, ".%s", key);
	err = want(c, j, JSON_STR);
	for (i = 0; !err && i < n && strcmp(names[i], j->s); i++)
		;
	if (!err && i == n) {
		for (i = 0; i < n; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s", i ? ", " : "", names[i]);
		err = bad(c, j, "\"%s\" is not one of %s", j->s, list);
	}
	if (!err)
		*out = i;
	path_pop(c, old);
	return err;
}

static int get_name(struct ctx *c, const struct json *obj, const char *key,
		    char *out)
{
	const struct json *j = member(obj, key);
	size_t old;
	int err;

	if (!j)
		return bad(c, obj, "\"%s\" is missing", key);
	old = path_push(c, ".%s", key);
	err = want(c, j, JSON_STR);
	if (!err && !dlb2_name_valid(j->s))
		err = bad(c, j, "\"%s\" is not a name (1..%d characters of A-Z a-z 0-9 _ . -)",
			  j->s, DLB2_NAME_MAX);
	if (!err)
		strcpy(out, j->s);
	path_pop(c, old);
	return err;
}

/* Array member @key (absent: *arr = NULL). */
static int get_array(struct ctx *c, const struct json *obj, const char *key,
		     const struct json **arr)
{
	size_t old;
	int err;

	*arr = member(obj, key);
	if (!*arr)
		return 0;
	old = path_push(c, ".%s", key);
	err = want(c, *arr, JSON_ARR);
	path_pop(c, old);
	return err;
}

/* @key of @obj is set but applies to load-balanced queues/ports only. */
static int only_ldb(struct ctx *c, const struct json *obj, const char *key,
		    const char *what)
{
	size_t old = path_push(c, ".%s", key);
	int err = bad(c, member(obj, key), "only for load-balanced %s", what);

	path_pop(c, old);
	return err;
}

static const char *const type_names[] = { "ldb", "dir" };
static const char *const qsched_names[] = { "atomic", "ordered", "unordered" };
static const char *const wait_names[] = { "poll", "interrupt" };
static const int seq_nums[] = { 0, 64, 128, 256, 512, 1024 };
static const int lock_comp[] = { 0, 64, 128, 256, 512, 1024, 2048, 4096, 65536 };

static int parse_queue(struct ctx *c, const struct json *j,
		       struct dlb2_queue_spec *q)
{
	static const char *const keys[] = {
		"name", "type", "sched", "depth_threshold", "sequence_numbers",
		"atomic_inflights", "lock_id_compression", NULL,
	};
	static const char *const ldb_only[] = {
		"sched", "sequence_numbers", "atomic_inflights",
		"lock_id_compression",
	};
	struct dlb2_queue_attr *a = &q->attr;
	size_t i;
	int err;

	*a = (struct dlb2_queue_attr)DLB2_QUEUE_ATTR_INIT;
	err = want(c, j, JSON_OBJ) ?: check_keys(c, j, keys) ?:
	      get_name(c, j, "name", q->name) ?:
	      get_enum(c, j, "type", type_names, 2, &a->type) ?:
	      get_enum(c, j, "sched", qsched_names, 3, &a->sched) ?:
	      get_int(c, j, "depth_threshold", 0, 8191, &a->depth_threshold) ?:
	      get_int_in(c, j, "sequence_numbers", seq_nums,
			 ARRAY_SIZE(seq_nums), &a->sequence_numbers) ?:
	      get_int(c, j, "atomic_inflights", 0, 2048, &a->atomic_inflights) ?:
	      get_int_in(c, j, "lock_id_compression", lock_comp,
			 ARRAY_SIZE(lock_comp), &a->lock_id_compression);
	for (i = 0; !err && a->type == DLB2_DIR && i < ARRAY_SIZE(ldb_only); i++)
		if (member(j, ldb_only[i]))
			err = only_ldb(c, j, ldb_only[i], "queues");
	return err;
}

static const struct dlb2_queue_spec *find_queue(const struct dlb2_domain_spec *d,
						const char *name)
{
	int i;

	for (i = 0; i < d->nqueues; i++)
		if (!strcmp(d->queues[i].name, name))
			return &d->queues[i];
	return NULL;
}

static int parse_link(struct ctx *c, const struct json *j,
		      const struct dlb2_domain_spec *d, struct dlb2_port_spec *p,
		      struct dlb2_link_spec *l)
{
	static const char *const keys[] = { "queue", "priority", NULL };
	const struct dlb2_queue_spec *q;
	int i, err = 0, qtype;

	l->priority = DLB2_UNSET;
	if (j->type == JSON_STR) {		/* "q0" for {"queue": "q0"} */
		if (!dlb2_name_valid(j->s))
			return bad(c, j, "\"%s\" is not a queue name", j->s);
		strcpy(l->queue, j->s);
	} else {
		if (j->type != JSON_OBJ)
			return bad(c, j, "expected a queue name or an object, found %s",
				   json_type_name(j->type));
		err = check_keys(c, j, keys) ?: get_name(c, j, "queue", l->queue) ?:
		      get_int(c, j, "priority", 0, 7, &l->priority);
		if (err)
			return err;
	}
	q = find_queue(d, l->queue);
	if (!q)
		return bad(c, j, "no queue \"%s\" in domain \"%s\"", l->queue, d->name);
	qtype = q->attr.type == DLB2_DIR ? DLB2_DIR : DLB2_LDB;
	if (qtype != (p->attr.type == DLB2_DIR ? DLB2_DIR : DLB2_LDB))
		return bad(c, j, "port \"%s\" is %s, queue \"%s\" is %s", p->name,
			   p->attr.type == DLB2_DIR ? "directed" : "load-balanced",
			   q->name, qtype == DLB2_DIR ? "directed" : "load-balanced");
	for (i = 0; i < p->nlinks; i++)
		if (!strcmp(p->links[i].queue, l->queue))
			return bad(c, j, "queue \"%s\" linked twice", l->queue);
	return 0;
}

static int parse_port(struct ctx *c, const struct json *j,
		      const struct dlb2_domain_spec *d, struct dlb2_port_spec *p)
{
	static const char *const keys[] = {
		"name", "type", "cq_depth", "history_list", "wait_mode", "cos",
		"links", NULL,
	};
	struct dlb2_port_attr *a = &p->attr;
	const struct json *links, *cos;
	size_t old;
	int i, err, max;

	*a = (struct dlb2_port_attr)DLB2_PORT_ATTR_INIT;
	err = want(c, j, JSON_OBJ) ?: check_keys(c, j, keys) ?:
	      get_name(c, j, "name", p->name) ?:
	      get_enum(c, j, "type", type_names, 2, &a->type) ?:
	      get_int(c, j, "cq_depth", 1, 1024, &a->cq_depth) ?:
	      get_int(c, j, "history_list", 0, 2048, &a->history_list) ?:
	      get_enum(c, j, "wait_mode", wait_names, 2, &a->wait_mode) ?:
	      get_array(c, j, "links", &links);
	if (err)
		return err;
	if (a->cq_depth != DLB2_UNSET && (a->cq_depth & (a->cq_depth - 1))) {
		old = path_push(c, ".cq_depth");
		return bad(c, member(j, "cq_depth"), "%d is not a power of two",
			   a->cq_depth);
	}
	cos = member(j, "cos");
	if (cos && cos->type == JSON_STR && !strcmp(cos->s, "any")) {
		a->cos = DLB2_COS_ANY;
	} else if (cos && cos->type != JSON_INT) {
		old = path_push(c, ".cos");
		return bad(c, cos, "expected 0..3 or \"any\", found %s",
			   json_type_name(cos->type));
	} else {
		err = get_int(c, j, "cos", 0, 3, &a->cos);
		if (err)
			return err;
	}
	if (a->type == DLB2_DIR && member(j, "history_list"))
		return only_ldb(c, j, "history_list", "ports");
	if (a->type == DLB2_DIR && cos)
		return only_ldb(c, j, "cos", "ports");

	max = a->type == DLB2_DIR ? 1 : DLB2_MAX_LINKS;
	if (links && links->n > max) {
		old = path_push(c, ".links");
		return bad(c, links->v[max], "a %s port links at most %d queue%s",
			   a->type == DLB2_DIR ? "directed" : "load-balanced", max,
			   max > 1 ? "s" : "");
	}
	for (i = 0; links && i < links->n; i++) {
		old = path_push(c, ".links[%d]", i);
		err = parse_link(c, links->v[i], d, p, &p->links[i]);
		path_pop(c, old);
		if (err)
			return err;
		p->nlinks++;
	}
	return 0;
}

/* Every directed queue is served by exactly one directed port. */
static int check_dir_queues(struct ctx *c, const struct json *j,
			    const struct dlb2_domain_spec *d)
{
	int i, k, users;

	for (i = 0; i < d->nqueues; i++) {
		if (d->queues[i].attr.type != DLB2_DIR)
			continue;
		users = 0;
		for (k = 0; k < d->nports; k++)
			users += d->ports[k].attr.type == DLB2_DIR &&
				 d->ports[k].nlinks &&
				 !strcmp(d->ports[k].links[0].queue, d->queues[i].name);
		if (users != 1)
			return bad(c, j, "directed queue \"%s\" is linked by %d directed ports, needs exactly 1",
				   d->queues[i].name, users);
	}
	return 0;
}

static int parse_domain(struct ctx *c, const struct json *j, int device,
			struct dlb2_domain_spec *d)
{
	static const char *const keys[] = {
		"name", "device", "ldb_credits", "dir_credits", "enable",
		"queues", "ports", NULL,
	};
	const struct json *qs, *ps, *en;
	size_t old;
	int i, k, err;

	d->device = device;
	d->ldb_credits = DLB2_UNSET;
	d->dir_credits = DLB2_UNSET;
	d->enable = true;
	err = want(c, j, JSON_OBJ) ?: check_keys(c, j, keys) ?:
	      get_name(c, j, "name", d->name) ?:
	      get_int(c, j, "device", 0, INT_MAX, &d->device) ?:
	      get_int(c, j, "ldb_credits", 0, 16384, &d->ldb_credits) ?:
	      get_int(c, j, "dir_credits", 0, 16384, &d->dir_credits) ?:
	      get_array(c, j, "queues", &qs) ?: get_array(c, j, "ports", &ps);
	if (err)
		return err;
	en = member(j, "enable");
	if (en) {
		old = path_push(c, ".enable");
		err = want(c, en, JSON_BOOL);
		path_pop(c, old);
		if (err)
			return err;
		d->enable = en->b;
	}
	d->queues = calloc(qs && qs->n ? qs->n : 1, sizeof(*d->queues));
	d->ports = calloc(ps && ps->n ? ps->n : 1, sizeof(*d->ports));
	if (!d->queues || !d->ports)
		return -ENOMEM;
	for (i = 0; qs && i < qs->n; i++, d->nqueues++) {
		old = path_push(c, ".queues[%d]", i);
		err = parse_queue(c, qs->v[i], &d->queues[i]);
		for (k = 0; !err && k < i; k++)
			if (!strcmp(d->queues[k].name, d->queues[i].name))
				err = bad(c, qs->v[i], "queue \"%s\" defined twice",
					  d->queues[i].name);
		path_pop(c, old);
		if (err)
			return err;
	}
	for (i = 0; ps && i < ps->n; i++, d->nports++) {
		old = path_push(c, ".ports[%d]", i);
		err = parse_port(c, ps->v[i], d, &d->ports[i]);
		for (k = 0; !err && k < i; k++)
			if (!strcmp(d->ports[k].name, d->ports[i].name))
				err = bad(c, ps->v[i], "port \"%s\" defined twice",
					  d->ports[i].name);
		path_pop(c, old);
		if (err)
			return err;
	}
	return check_dir_queues(c, j, d);
}

static int parse_top(struct ctx *c, const struct json *j, struct dlb2_spec *s)
{
	static const char *const keys[] = { "device", "domains", NULL };
	const struct json *ds;
	int i, k, device = 0, err;
	size_t old;

	err = want(c, j, JSON_OBJ) ?: check_keys(c, j, keys) ?:
	      get_int(c, j, "device", 0, INT_MAX, &device) ?:
	      get_array(c, j, "domains", &ds);
	if (err)
		return err;
	if (!ds || !ds->n)
		return bad(c, ds ?: j, "no domains");
	s->domains = calloc(ds->n, sizeof(*s->domains));
	if (!s->domains)
		return -ENOMEM;
	for (i = 0; i < ds->n; i++, s->ndomains++) {
		old = path_push(c, "domains[%d]", i);
		err = parse_domain(c, ds->v[i], device, &s->domains[i]);
		for (k = 0; !err && k < i; k++)
			if (!strcmp(s->domains[k].name, s->domains[i].name) &&
			    s->domains[k].device == s->domains[i].device)
				err = bad(c, ds->v[i], "domain \"%s\" defined twice",
					  s->domains[i].name);
		path_pop(c, old);
		if (err) {
			s->ndomains++;		/* free what it holds */
			return err;
		}
	}
	return 0;
}

void dlb2_spec_free(struct dlb2_spec *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->ndomains; i++) {
		free(s->domains[i].queues);
		free(s->domains[i].ports);
	}
	free(s->domains);
	free(s);
}

int dlb2_spec_parse(const char *text, size_t len, const char *name,
		    struct dlb2_spec **spec, char *err, size_t errlen)
{
	struct ctx c = { .name = name ? name : "<config>", .err = err,
			 .errlen = errlen };
	struct json *j;
	char jerr[256];
	int ret;

	*spec = NULL;
	j = json_parse(text, len, jerr, sizeof(jerr));
	if (!j && errno == ENOMEM) {
		snprintf(err, errlen, "%s: out of memory", c.name);
		return -ENOMEM;
	}
	if (!j) {
		snprintf(err, errlen, "%s:%s", c.name, jerr);
		return -EINVAL;
	}
	*spec = calloc(1, sizeof(**spec));
	ret = *spec ? parse_top(&c, j, *spec) : -ENOMEM;
	json_free(j);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", c.name);
	if (ret) {
		dlb2_spec_free(*spec);
		*spec = NULL;
	}
	return ret;
}

int dlb2_spec_load(const char *path, struct dlb2_spec **spec, char *err,
		   size_t errlen)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd, ret;

	*spec = NULL;
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(0);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	for (;;) {
		if (len + 4096 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 8192);

			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
			goto out;
		}
		if (!n)
			break;
		len += n;
	}
	ret = dlb2_spec_parse(buf, len, path, spec, err, errlen);
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	free(buf);
	close(fd);
	return ret;
}

/* ------------------------------------------------------------- apply */

/* Create and fill one domain; *created tells whether its mkdir succeeded. */
static int apply_domain(const struct dlb2_domain_spec *d, bool *created)
{
	const struct dlb2_port_spec *p;
	int i, k, err;

	*created = false;
	err = dlb2_domain_create(d->device, d->name);
	if (err)
		return err;
	*created = true;
	if (d->ldb_credits >= 0 || d->dir_credits >= 0)
		err = dlb2_domain_set_credits(d->device, d->name, d->ldb_credits,
					      d->dir_credits);
	for (i = 0; !err && i < d->nqueues; i++)
		err = dlb2_queue_add(d->device, d->name, d->queues[i].name,
				     &d->queues[i].attr);
	for (i = 0; !err && i < d->nports; i++)
		err = dlb2_port_add(d->device, d->name, d->ports[i].name,
				    &d->ports[i].attr);
	for (i = 0; !err && i < d->nports; i++) {
		p = &d->ports[i];
		for (k = 0; !err && k < p->nlinks; k++)
			err = dlb2_link_add(d->device, d->name, p->name,
					    p->links[k].queue, p->links[k].priority);
	}
	if (!err && d->enable)
		err = dlb2_domain_enable(d->device, d->name);
	return err;
}

int dlb2_spec_apply(const struct dlb2_spec *s)
{
	struct dlb2_error saved;
	bool created = false;
	int i, err = 0;

	for (i = 0; i < s->ndomains; i++) {
		err = apply_domain(&s->domains[i], &created);
		if (err)
			break;
	}
	if (!err)
		return 0;
	/* undo: the failing domain if we made it, and all before it */
	saved = *dlb2_last_error();
	if (created)
		i++;
	while (i-- > 0)
		dlb2_domain_destroy(s->domains[i].device, s->domains[i].name);
	dlb2_restore_error(&saved);
	return err;
}
