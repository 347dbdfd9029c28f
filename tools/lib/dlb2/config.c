// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libdlb2: scheduling-domain set-up through configfs
 * (Documentation/ABI/testing/configfs-dlb2).
 *
 * Every call is a few mkdir/write/rmdir on
 * <root>/dlb2_<dev>/<domain>/{queues,ports}/...; the driver checks each
 * value as it is written and the whole domain at enable.  A failure is
 * returned as -errno and recorded, with the path and the domain's status,
 * in dlb2_last_error().
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static char cfg_root[PATH_MAX] = "/sys/kernel/config/dlb2";
static char dev_root[PATH_MAX] = "/dev/dlb2";

void dlb2_set_configfs_root(const char *dir)
{
	snprintf(cfg_root, sizeof(cfg_root), "%s",
		 dir ? dir : "/sys/kernel/config/dlb2");
}

void dlb2_set_dev_root(const char *dir)
{
	snprintf(dev_root, sizeof(dev_root), "%s", dir ? dir : "/dev/dlb2");
}

const char *dlb2_configfs_root(void)
{
	return cfg_root;
}

const char *dlb2_dev_root(void)
{
	return dev_root;
}

bool dlb2_name_valid(const char *name)
{
	size_t i, n = name ? strlen(name) : 0;

	if (n < 1 || n > DLB2_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_.-", name[i]))
			return false;
	/* "." and ".." pass the character test but are no names */
	return strcmp(name, ".") && strcmp(name, "..");
}

/* Read an attribute into @buf without the trailing newline. */
int dlb2_read_attr(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

/* Values are written without a newline, in one write(). */
int dlb2_write_attr(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd, err;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);	/* as echo does */
	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	err = n < 0 ? errno : (size_t)n == len ? 0 : EIO;
	if (close(fd) && !err)
		err = errno;
	return -err;
}

/* <root>/dlb2_<dev>/<domain>[/<fmt...>] into @buf, names checked. */
static int __attribute__((format(printf, 4, 5)))
cfg_path(char *buf, int dev, const char *domain, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (dev < 0)
		return dlb2_fail(-EINVAL, "device", "", "");
	if (!dlb2_name_valid(domain))
		return dlb2_fail(-EINVAL, "name", domain ? domain : "", "");
	n = snprintf(buf, PATH_MAX, "%s/dlb2_%d/%s", cfg_root, dev, domain);
	if (fmt && n > 0 && n < PATH_MAX) {
		va_start(ap, fmt);
		n += vsnprintf(buf + n, PATH_MAX - n, fmt, ap);
		va_end(ap);
	}
	if (n < 0 || n >= PATH_MAX)
		return dlb2_fail(-ENAMETOOLONG, "path", domain, "");
	return 0;
}

static int check_name(const char *name)
{
	return dlb2_name_valid(name) ? 0 :
	       dlb2_fail(-EINVAL, "name", name ? name : "", "");
}

/* The domain directory that @path (a file or directory under it) is in. */
static void domain_of(char *dom, const char *path)
{
	size_t root = strlen(cfg_root);
	const char *p;
	int slashes = 0;

	/* <root>/dlb2_N/<domain>/...: keep the first two components */
	snprintf(dom, PATH_MAX, "%s", path);
	for (p = dom + root; *p; p++)
		if (*p == '/' && ++slashes == 3) {
			dom[p - dom] = '\0';
			break;
		}
}

static int do_mkdir(const char *path)
{
	char dom[PATH_MAX];

	if (mkdir(path, 0755) == 0)
		return 0;
	dlb2_fail(-errno, "mkdir", path, "");
	domain_of(dom, path);
	dlb2_fail_status(dom);
	return dlb2_last_error()->err;
}

static int set_attr(const char *dir, const char *name, const char *value)
{
	char path[PATH_MAX], dom[PATH_MAX];
	int err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= PATH_MAX)
		return dlb2_fail(-ENAMETOOLONG, "write", dir, value);
	err = dlb2_write_attr(path, value);
	if (!err)
		return 0;
	dlb2_fail(err, "write", path, value);
	domain_of(dom, path);
	dlb2_fail_status(dom);
	return err;
}

static int set_int(const char *dir, const char *name, int value)
{
	char buf[16];

	if (value == DLB2_UNSET)
		return 0;
	snprintf(buf, sizeof(buf), "%d", value);
	return set_attr(dir, name, buf);
}

/* An enum attribute: @value indexes @names (DLB2_UNSET: left alone). */
static int set_enum(const char *dir, const char *name, int value,
		    const char *const *names, int n)
{
	if (value == DLB2_UNSET)
		return 0;
	if (value < 0 || value >= n)
		return dlb2_fail(-EINVAL, "write", dir, name);
	return set_attr(dir, name, names[value]);
}

static const char *const type_names[] = { "ldb", "dir" };
static const char *const sched_names[] = { "atomic", "ordered", "unordered" };
static const char *const wait_names[] = { "poll", "interrupt" };

int dlb2_domain_create(int dev, const char *domain)
{
	char dir[PATH_MAX];
	int err;

	dlb2_clear_error();
	err = cfg_path(dir, dev, domain, NULL);
	return err ? err : do_mkdir(dir);
}

int dlb2_domain_set_credits(int dev, const char *domain, int ldb, int dir)
{
	char path[PATH_MAX];
	int err;

	dlb2_clear_error();
	err = cfg_path(path, dev, domain, NULL);
	if (!err && ldb >= 0)
		err = set_int(path, "ldb_credits", ldb);
	if (!err && dir >= 0)
		err = set_int(path, "dir_credits", dir);
	return err;
}

/* rmdir @dir, keeping the error that made us undo it. */
static void undo_mkdir(const char *dir)
{
	struct dlb2_error saved = *dlb2_last_error();

	rmdir(dir);
	dlb2_restore_error(&saved);
}

int dlb2_queue_add(int dev, const char *domain, const char *queue,
		   const struct dlb2_queue_attr *a)
{
	char dir[PATH_MAX];
	int err;

	dlb2_clear_error();
	err = check_name(queue) ?: cfg_path(dir, dev, domain, "/queues/%s", queue);
	if (!err)
		err = do_mkdir(dir);
	if (err || !a)
		return err;
	/* type first: the driver checks sched against it */
	err = set_enum(dir, "type", a->type, type_names, ARRAY_SIZE(type_names)) ?:
	      set_enum(dir, "sched", a->sched, sched_names, ARRAY_SIZE(sched_names)) ?:
	      set_int(dir, "depth_threshold", a->depth_threshold) ?:
	      set_int(dir, "sequence_numbers", a->sequence_numbers) ?:
	      set_int(dir, "atomic_inflights", a->atomic_inflights) ?:
	      set_int(dir, "lock_id_compression", a->lock_id_compression);
	if (err)
		undo_mkdir(dir);
	return err;
}

int dlb2_port_add(int dev, const char *domain, const char *port,
		  const struct dlb2_port_attr *a)
{
	char dir[PATH_MAX];
	int err;

	dlb2_clear_error();
	err = check_name(port) ?: cfg_path(dir, dev, domain, "/ports/%s", port);
	if (!err)
		err = do_mkdir(dir);
	if (err || !a)
		return err;
	/* cq_depth before history_list: its default follows cq_depth */
	err = set_enum(dir, "type", a->type, type_names, ARRAY_SIZE(type_names)) ?:
	      set_int(dir, "cq_depth", a->cq_depth) ?:
	      set_int(dir, "history_list", a->history_list) ?:
	      set_enum(dir, "wait_mode", a->wait_mode, wait_names, ARRAY_SIZE(wait_names));
	if (!err && a->cos == DLB2_COS_ANY)
		err = set_attr(dir, "cos", "any");
	else if (!err)
		err = set_int(dir, "cos", a->cos);
	if (err)
		undo_mkdir(dir);
	return err;
}

int dlb2_link_add(int dev, const char *domain, const char *port,
		  const char *queue, int priority)
{
	char dir[PATH_MAX];
	int err;

	dlb2_clear_error();
	err = check_name(port) ?: check_name(queue) ?:
	      cfg_path(dir, dev, domain, "/ports/%s/links/%s", port, queue);
	if (!err)
		err = do_mkdir(dir);
	if (!err && priority >= 0) {
		err = set_int(dir, "priority", priority);
		if (err)
			undo_mkdir(dir);
	}
	return err;
}

int dlb2_link_del(int dev, const char *domain, const char *port,
		  const char *queue)
{
	char dir[PATH_MAX];
	int err;

	dlb2_clear_error();
	err = check_name(port) ?: check_name(queue) ?:
	      cfg_path(dir, dev, domain, "/ports/%s/links/%s", port, queue);
	if (!err && rmdir(dir))
		err = dlb2_fail(-errno, "rmdir", dir, "");
	return err;
}

int dlb2_attr_set(int dev, const char *domain, const char *sub,
		  const char *attr, const char *value)
{
	char dir[PATH_MAX], name[DLB2_NAME_MAX + 1];
	const char *s, *e;
	int err;

	dlb2_clear_error();
	/* each component of @sub a name: nothing outside the domain */
	for (s = sub; s && *s; s = *e ? e + 1 : e) {
		e = strchrnul(s, '/');
		snprintf(name, sizeof(name), "%.*s", (int)(e - s), s);
		if (e - s > DLB2_NAME_MAX || !dlb2_name_valid(name))
			return dlb2_fail(-EINVAL, "name", sub, "");
	}
	err = check_name(attr);
	if (!err && sub && *sub)
		err = cfg_path(dir, dev, domain, "/%s", sub);
	else if (!err)
		err = cfg_path(dir, dev, domain, NULL);
	return err ? err : set_attr(dir, attr, value);
}

int dlb2_domain_enable(int dev, const char *domain)
{
	return dlb2_attr_set(dev, domain, NULL, "enable", "1");
}

int dlb2_domain_disable(int dev, const char *domain)
{
	return dlb2_attr_set(dev, domain, NULL, "enable", "0");
}

int dlb2_domain_status(int dev, const char *domain, char *buf, size_t len)
{
	char path[PATH_MAX];
	int err;

	dlb2_clear_error();
	err = cfg_path(path, dev, domain, "/status");
	if (err)
		return err;
	err = dlb2_read_attr(path, buf, len);
	return err ? dlb2_fail(err, "read", path, "") : 0;
}

static int read_id(const char *path, int *id)
{
	char buf[32], *end;
	long v;
	int err;

	err = dlb2_read_attr(path, buf, sizeof(buf));
	if (err)
		return dlb2_fail(err, "read", path, "");
	errno = 0;
	v = strtol(buf, &end, 0);
	if (errno || end == buf || *end || v < -1 || v > INT_MAX)
		return dlb2_fail(-EPROTO, "read", path, buf);
	*id = (int)v;
	return 0;
}

int dlb2_domain_id(int dev, const char *domain, int *id)
{
	char path[PATH_MAX];

	dlb2_clear_error();
	return cfg_path(path, dev, domain, "/id") ?: read_id(path, id);
}

int dlb2_queue_id(int dev, const char *domain, const char *queue, int *id)
{
	char path[PATH_MAX];

	dlb2_clear_error();
	return check_name(queue) ?:
	       cfg_path(path, dev, domain, "/queues/%s/id", queue) ?:
	       read_id(path, id);
}

int dlb2_port_id(int dev, const char *domain, const char *port, int *id)
{
	char path[PATH_MAX];

	dlb2_clear_error();
	return check_name(port) ?:
	       cfg_path(path, dev, domain, "/ports/%s/id", port) ?:
	       read_id(path, id);
}

/* ----------------------------------------------------------- destroy */

/*
 * rmdir every subdirectory of @dir (with, when @sub is set, its @sub
 * subdirectories first).  Keeps going after a failure; returns the first.
 */
static int rmdir_children(const char *dir, const char *sub)
{
	char path[PATH_MAX], subdir[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int err = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : dlb2_fail(-errno, "opendir", dir, "");
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= PATH_MAX)
			continue;
		if (de->d_type != DT_DIR &&
		    (de->d_type != DT_UNKNOWN || stat(path, &st) || !S_ISDIR(st.st_mode)))
			continue;
		if (sub && snprintf(subdir, sizeof(subdir), "%s/%s", path, sub) < PATH_MAX) {
			int e = rmdir_children(subdir, NULL);

			err = err ?: e;
		}
		if (rmdir(path) && !err)
			err = dlb2_fail(-errno, "rmdir", path, "");
	}
	closedir(d);
	return err;
}

int dlb2_domain_destroy(int dev, const char *domain)
{
	char dir[PATH_MAX], path[PATH_MAX], status[64];
	struct stat st;
	int err, e;

	dlb2_clear_error();
	err = cfg_path(dir, dev, domain, NULL);
	if (err)
		return err;
	if (stat(dir, &st))
		return dlb2_fail(-errno, "stat", dir, "");
	/* disable first: links and directories cannot change while enabled */
	cfg_path(path, dev, domain, "/status");
	if (dlb2_read_attr(path, status, sizeof(status)) || !strcmp(status, "enabled")) {
		err = set_attr(dir, "enable", "0");
		if (err)
			return err;
	}
	cfg_path(path, dev, domain, "/ports");
	err = rmdir_children(path, "links");
	cfg_path(path, dev, domain, "/queues");
	e = rmdir_children(path, NULL);
	err = err ?: e;
	if (!err && rmdir(dir))
		err = dlb2_fail(-errno, "rmdir", dir, "");
	return err;
}
