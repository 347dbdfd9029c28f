/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dlb2ctl doctor: what the path checks (doctor.c) and the host checks
 * (doctor-host.c) share.  Not for the rest of dlb2ctl (doctor.h).
 */
#ifndef DLB2CTL_DOCTOR_INT_H
#define DLB2CTL_DOCTOR_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "pcie_atomics.h"

/* A check's result: libdlb2_rdma's verdicts, and "n/a" */
#define PASS	DLB2_ATOMICS_PASS
#define FAIL	DLB2_ATOMICS_FAIL
#define UNKNOWN	DLB2_ATOMICS_UNKNOWN
#define NA	(DLB2_ATOMICS_UNKNOWN + 1)	/* not applicable: no fix */

/* What a check's result decides */
#define ADVICE	0	/* nothing: the exit status ignores it */
#define ENQ	1	/* P2P enqueue */
#define CRED	2	/* remote credits */
#define HOST	4	/* the host's set-up: "host ready" */

struct check {
	const char *name;
	unsigned int affects;
	int result;
	char detail[1024];
	char fix[768];
};

/* A check, printed in the order added; its fix (not for a pass or n/a) */
__attribute__((format(printf, 4, 5)))
struct check *add(const char *name, unsigned int affects, int result,
		  const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
void fix(struct check *c, const char *fmt, ...);
/* The formatted path (in one of four buffers, used in turn) */
__attribute__((format(printf, 1, 2)))
const char *P(const char *fmt, ...);
/* The first line of file @path ("" when unreadable); 0 or -errno. */
int rd(char *buf, size_t len, const char *path);
/* Is module @mod in modules.dep of the running kernel (--proc, --modules)? */
bool installed(const char *mod);

/*
 * The host checks (doctor-host.c), added in this order: module, configfs,
 * secure-boot, group, udev, config (one per saved file), apply-unit (one
 * per failed unit).  @sysfs, @procfs, @moddir: as for the path checks;
 * @root: where etc/, run/, dev/, lib/, usr/ and the commands are ("/").
 */
void host_checks(const char *sysfs, const char *procfs, const char *moddir,
		 const char *root);

#endif /* DLB2CTL_DOCTOR_INT_H */
