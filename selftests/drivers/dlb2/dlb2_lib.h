/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the dlb2 kselftests: finding DLB devices in sysfs and
 * reading and writing sysfs files.
 */
#ifndef DLB2_SELFTEST_LIB_H
#define DLB2_SELFTEST_LIB_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

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

#endif /* DLB2_SELFTEST_LIB_H */
