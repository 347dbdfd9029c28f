/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the dlb2 kselftests: finding DLB devices in sysfs,
 * reading and writing sysfs and configfs files, building and removing
 * configfs domains, and reading device registers through BAR2.
 */
#ifndef DLB2_SELFTEST_LIB_H
#define DLB2_SELFTEST_LIB_H

/*
 * Whether the running test has not failed so far: kselftest_harness.h keeps
 * it in _metadata->passed in Linux 6.1, in _metadata->exit_code
 * (__test_passed()) in later kernels such as 6.12, whose harness also
 * defines XFAIL_ADD.  Include this file after kselftest_harness.h.
 */
#ifdef XFAIL_ADD
#define dlb2_test_passing(m)	__test_passed(m)
#else
#define dlb2_test_passing(m)	((m)->passed)
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* CLOCK_MONOTONIC in milliseconds. */
static inline long long dlb2_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Wait for a state the test needs (a counter, a queue's depth, a thread
 * asleep) by looking at it: @cond is evaluated every millisecond until it
 * holds or @ms milliseconds passed; true when it held.  The caller fails
 * with a message naming what never happened.  A sleep of a guessed length
 * in its place passes by luck on a fast machine and fails on a slow one,
 * or hides that the state never came.
 */
#define dlb2_poll_until(cond, ms) ({					\
	long long __end = dlb2_now_ms() + (ms);				\
	bool __held;							\
									\
	while (!(__held = (cond)) && dlb2_now_ms() < __end)		\
		usleep(1000);						\
	__held;								\
})

#define PCI_DEVICES	"/sys/bus/pci/devices"
#define DLB2_DRIVER	"/sys/bus/pci/drivers/dlb2"

struct dlb2_pci_id {
	unsigned int device;
	const char *version;
};

/* The PF device IDs the driver binds, and the version each one is. */
static const struct dlb2_pci_id dlb2_pci_ids[] = {
	{ 0x2710, "2.0" },
	{ 0x2714, "2.5" },
};

/* Read a sysfs file into buf without the trailing newline; -errno on error. */
static inline int sysfs_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* Write a string to a sysfs file; -errno on error. */
static inline int sysfs_write(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	if (n < 0)
		return -errno;
	return n == (ssize_t)strlen(val) ? 0 : -EIO;
}

static inline unsigned int sysfs_read_hex(const char *dir, const char *file)
{
	char path[PATH_MAX], buf[32];

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path) ||
	    sysfs_read(path, buf, sizeof(buf)))
		return 0;
	return strtoul(buf, NULL, 16);
}

/*
 * Find the first DLB PF.  On success fills bdf and returns the version it
 * must report ("2.0" or "2.5"); returns NULL when there is none.
 */
static inline const char *dlb2_find_device(char *bdf, size_t len)
{
	const char *version = NULL;
	struct dirent *de;
	DIR *dir;

	dir = opendir(PCI_DEVICES);
	if (!dir)
		return NULL;
	while (!version && (de = readdir(dir))) {
		char path[PATH_MAX];
		size_t i;

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), PCI_DEVICES "/%s", de->d_name) >=
		    (int)sizeof(path) || sysfs_read_hex(path, "vendor") != 0x8086)
			continue;
		for (i = 0; i < ARRAY_SIZE(dlb2_pci_ids); i++) {
			if (sysfs_read_hex(path, "device") != dlb2_pci_ids[i].device ||
			    snprintf(bdf, len, "%s", de->d_name) >= (int)len)
				continue;
			version = dlb2_pci_ids[i].version;
			break;
		}
	}
	closedir(dir);
	return version;
}

/* The name of the driver bound to a PCI device, or "" when none is. */
static inline void pci_driver_of(const char *bdf, char *name, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	if (snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver", bdf) >= (int)sizeof(path)) {
		name[0] = '\0';
		return;
	}
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		name[0] = '\0';
		return;
	}
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (snprintf(name, len, "%s", base) >= (int)len)
		name[0] = '\0';
}

/* Bind the device to dlb2 again if a test left it unbound (teardowns). */
static inline void dlb2_rebind(const char *bdf)
{
	char drv[NAME_MAX + 1];

	pci_driver_of(bdf, drv, sizeof(drv));
	if (!drv[0])
		sysfs_write(DLB2_DRIVER "/bind", bdf);
}

#define CONFIGFS_DLB2	"/sys/kernel/config/dlb2"

/* snprintf into a PATH_MAX buffer; aborts on truncation (a test bug). */
static inline char *pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX)
		abort();
	return buf;
}

/*
 * Is thread @tid of this process asleep in poll() or read() (state S in its
 * stat, and that system call in progress in its syscall file, whose first
 * field is the call's number, else "running" or -1)?  State S alone also
 * holds for a sleep elsewhere, before the thread reached the driver.
 */
static inline bool dlb2_asleep_in_wait(pid_t tid)
{
	char path[PATH_MAX], buf[512], *p;
	long nr;

	if (!tid || sysfs_read(pathf(path, "/proc/self/task/%d/stat", tid),
			       buf, sizeof(buf)))
		return false;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] != 'S')
		return false;
	if (sysfs_read(pathf(path, "/proc/self/task/%d/syscall", tid), buf,
		       sizeof(buf)))
		return false;
	nr = strtol(buf, &p, 10);
	return p != buf && (nr == SYS_poll || nr == SYS_ppoll || nr == SYS_read);
}

/* mkdir/rmdir returning -errno. */
static inline int mkdir_e(const char *path)
{
	return mkdir(path, 0755) ? -errno : 0;
}

static inline int rmdir_e(const char *path)
{
	return rmdir(path) ? -errno : 0;
}

/* Read a decimal number from dir/file; -1 when it cannot be read. */
static inline long read_num(const char *dir, const char *file)
{
	char path[PATH_MAX], buf[64];

	if (sysfs_read(pathf(path, "%s/%s", dir, file), buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 0);
}

/* The device's ingress alarms of every kind since it was bound. */
static inline long alarm_total(const char *pci)
{
	static const char *const kinds[] = {
		"illegal_enqueue", "excess_tokens", "illegal_hcw",
		"illegal_qid", "disabled_qid", "other",
	};
	char dir[PATH_MAX];
	long sum = 0;
	size_t i;

	pathf(dir, "%s/alarms", pci);
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		sum += read_num(dir, kinds[i]);
	return sum;
}

/* Write dir/file; -errno. */
static inline int write_attr(const char *dir, const char *file, const char *val)
{
	char path[PATH_MAX];

	return sysfs_write(pathf(path, "%s/%s", dir, file), val);
}

/* Read dir/file into buf (no newline); -errno. */
static inline int read_attr(const char *dir, const char *file, char *buf,
			    size_t len)
{
	char path[PATH_MAX];

	return sysfs_read(pathf(path, "%s/%s", dir, file), buf, len);
}

/*
 * The sysfs statistics device of enabled domain @dom of the PCI function
 * whose sysfs directory is @pci (PCI_DEVICES/<bdf>), or with @kind ("queue"
 * or "port") of its queue or port @name (sysfs-driver-dlb2):
 * <pci>/dlb2_domain/dlb2_<dev_id>.<dom>[/<kind>.<name>].
 */
static inline char *dlb2_stats_dir(char *buf, const char *pci, const char *dom,
				   const char *kind, const char *name)
{
	long id = read_num(pci, "dev_id");

	if (kind)
		return pathf(buf, "%s/dlb2_domain/dlb2_%ld.%s/%s.%s", pci, id,
			     dom, kind, name);
	return pathf(buf, "%s/dlb2_domain/dlb2_%ld.%s", pci, id, dom);
}

/* The configfs directory of the device bdf: CONFIGFS_DLB2/dlb2_<dev_id>. */
static inline int dlb2_cfs_dir(const char *bdf, char *dir)
{
	char path[PATH_MAX];
	long id = read_num(pathf(path, PCI_DEVICES "/%s", bdf), "dev_id");

	if (id < 0)
		return -ENOENT;
	pathf(dir, CONFIGFS_DLB2 "/dlb2_%ld", id);
	return 0;
}

/* Remove every directory below dir/sub (one level), ignoring errors. */
static inline void rmdir_children(const char *dir, const char *sub)
{
	char path[PATH_MAX], child[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(pathf(path, "%s/%s", dir, sub));

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		pathf(child, "%s/%s", path, de->d_name);
		if (!stat(child, &st) && S_ISDIR(st.st_mode))
			rmdir(child);
	}
	closedir(d);
}

/* Disable and remove a configfs domain and everything in it. */
static inline void cfs_domain_destroy(const char *dom)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (access(dom, F_OK))
		return;
	write_attr(dom, "enable", "0");
	d = opendir(pathf(path, "%s/ports", dom));
	while (d && (de = readdir(d))) {
		char links[PATH_MAX];

		if (de->d_name[0] == '.')
			continue;
		rmdir_children(pathf(links, "%s/ports/%s", dom, de->d_name),
			       "links");
	}
	if (d)
		closedir(d);
	rmdir_children(dom, "ports");
	rmdir_children(dom, "queues");
	rmdir(dom);
}

/* Create dom/queues/name (type "ldb" or "dir"); -errno. */
static inline int cfs_add_queue(const char *dom, const char *name,
				 const char *type)
{
	char path[PATH_MAX];
	int ret = mkdir_e(pathf(path, "%s/queues/%s", dom, name));

	return ret ? ret : write_attr(path, "type", type);
}

static inline int cfs_add_port(const char *dom, const char *name,
				const char *type)
{
	char path[PATH_MAX];
	int ret = mkdir_e(pathf(path, "%s/ports/%s", dom, name));

	return ret ? ret : write_attr(path, "type", type);
}

static inline int cfs_link(const char *dom, const char *port,
			    const char *queue)
{
	char path[PATH_MAX];

	return mkdir_e(pathf(path, "%s/ports/%s/links/%s", dom, port, queue));
}

/*
 * BAR2 (CSR) of the device, mapped a page at a time for register checks.
 * @refused: errno of the first mapping the kernel refused (e.g. a kernel
 * with CONFIG_IO_STRICT_DEVMEM, such as Debian's, refuses raw mappings of a
 * BAR a driver claimed), then 0xdeadbeef is what the read returns.
 */
struct dlb2_bar {
	int fd;
	int v25;
	int refused;
	uint64_t refused_at;
};

static inline int dlb2_bar_open(struct dlb2_bar *bar, const char *bdf,
				const char *version)
{
	char path[PATH_MAX];

	bar->v25 = !strcmp(version, "2.5");
	bar->refused = 0;
	bar->fd = open(pathf(path, PCI_DEVICES "/%s/resource2", bdf), O_RDWR);
	return bar->fd < 0 ? -errno : 0;
}

/* Read a 32-bit CSR at a BAR2 offset (one page mapped per read). */
static inline uint32_t dlb2_csr(struct dlb2_bar *bar, uint64_t off)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *map = mmap(NULL, pg, PROT_READ, MAP_SHARED, bar->fd,
			 off & ~(uint64_t)(pg - 1));
	uint32_t val;

	if (map == MAP_FAILED) {
		if (!bar->refused) {
			bar->refused = errno;
			bar->refused_at = off;
		}
		return 0xdeadbeef;
	}
	val = *(volatile uint32_t *)((char *)map + (off & (pg - 1)));
	munmap(map, pg);
	return val;
}

/* A CSR offset: 2.0 or 2.5 base, plus index * 0x1000. */
#define DLB2_CSR_AT(bar, off_v2, off_v25, idx) \
	(((bar)->v25 ? (uint64_t)(off_v25) : (uint64_t)(off_v2)) + \
	 (uint64_t)(idx) * 0x1000)

/*
 * The harness's hot-plug control (tools/vm/run --hotplug exports
 * VM_HOTPLUG_CTL, a directory shared with the host): ask the host for
 * @what ("unplug", "yank", "plug", "stuck-tokens-on" or "-off",
 * "inject-alarm N": tools/vm/run); 0 once it answered 0.
 */
static inline int dlb2_hotplug(const char *ctl, const char *what)
{
	char req[PATH_MAX], done[PATH_MAX], tmp[PATH_MAX];
	unsigned int i;
	long rc;
	FILE *f;

	pathf(req, "%s/request", ctl);
	pathf(done, "%s/done", ctl);
	pathf(tmp, "%s/request.tmp", ctl);
	unlink(done);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "%s\n", what);
	fclose(f);
	if (rename(tmp, req))
		return -errno;
	for (i = 0; i < 300; i++) {
		usleep(100000);
		f = fopen(done, "r");
		if (!f)
			continue;
		rc = -1;
		if (fscanf(f, "%ld", &rc) != 1)
			rc = -1;
		fclose(f);
		return rc ? -EIO : 0;
	}
	return -ETIMEDOUT;
}

/*
 * Declare kernel log lines this test causes on purpose (an extended regular
 * expression), for the harness's kernel log check (KERNEL_LOG_ALLOW, set by
 * tools/vm/guest/kernel-log-check); they are listed, not counted.
 */
static inline void kernel_log_expect(const char *ere)
{
	const char *allow = getenv("KERNEL_LOG_ALLOW");
	FILE *f;

	if (!allow)
		return;
	f = fopen(allow, "a");
	if (!f)
		return;
	fprintf(f, "%s\n", ere);
	fclose(f);
}

/* Wait up to @secs for /sys/bus/pci/devices/@bdf to (dis)appear. */
static inline bool dlb2_wait_device(const char *bdf, bool present,
				    unsigned int secs)
{
	char path[PATH_MAX];
	struct stat st;
	unsigned int i;

	pathf(path, PCI_DEVICES "/%s/dev_id", bdf);
	for (i = 0; i < secs * 10; i++) {
		if (!stat(path, &st) == present)
			return true;
		usleep(100000);
	}
	return false;
}

#endif /* DLB2_SELFTEST_LIB_H */
