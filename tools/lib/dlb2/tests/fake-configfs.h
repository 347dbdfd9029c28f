/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A stand-in for the dlb2 configfs tree: see fake-configfs.c. */
#ifndef DLB2_FAKE_CONFIGFS_H
#define DLB2_FAKE_CONFIGFS_H

#include <sys/types.h>

int __real_mkdir(const char *path, mode_t mode);
int __real_rmdir(const char *path);
int __wrap_mkdir(const char *path, mode_t mode);
int __wrap_rmdir(const char *path);
int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);
/* Write @val (and a newline) to @dir/@name, creating it. */
void fake_configfs_put(const char *dir, const char *name, const char *val);

#endif /* DLB2_FAKE_CONFIGFS_H */
