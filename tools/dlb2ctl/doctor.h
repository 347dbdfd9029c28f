/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dlb2ctl doctor: is this host set up for dlb2, can a NIC enqueue into a
 * DLB peer-to-peer and take credits?
 */
#ifndef DLB2CTL_DOCTOR_H
#define DLB2CTL_DOCTOR_H

#include <stddef.h>

/* Exit status of dlb2ctl doctor (README.md, dlb2ctl(8)) */
enum {
	DOCTOR_OK = 0,		/* P2P enqueue and remote credits will work */
	DOCTOR_NO_P2P = 1,	/* P2P enqueue will not work */
	DOCTOR_NO_CREDITS = 2,	/* remote credits will not work */
	DOCTOR_UNKNOWN = 3,	/* nothing needed failed, something unknown */
	DOCTOR_USAGE = 4,	/* usage error, or no such peer: nothing checked */
	DOCTOR_HOST = 5,	/* a host check failed, nothing on the path did */
};

/*
 * "dlb2ctl doctor" with its arguments (argv[0] "doctor"); @sysfs: the
 * sysfs mount point (--sysfs), @usage: the command's usage text.
 */
int doctor_main(int argc, char **argv, const char *sysfs, const char *usage);

/*
 * "dlb2ctl apply --check @file" (dlb2ctl.c), which doctor's config check
 * runs for each saved file: 0 and "FILE: N domains, M queues and ports:
 * OK" in @msg, or -errno and the error ("FILE:LINE:COL: ...") in @msg.
 */
int check_spec_file(const char *file, char *msg, size_t len);

#endif /* DLB2CTL_DOCTOR_H */
