/* SPDX-License-Identifier: GPL-2.0 */
/* dlb2ctl doctor: can a NIC enqueue into a DLB peer-to-peer, take credits? */
#ifndef DLB2CTL_DOCTOR_H
#define DLB2CTL_DOCTOR_H

/* Exit status of dlb2ctl doctor (README.md, dlb2ctl(8)) */
enum {
	DOCTOR_OK = 0,		/* P2P enqueue and remote credits will work */
	DOCTOR_NO_P2P = 1,	/* P2P enqueue will not work */
	DOCTOR_NO_CREDITS = 2,	/* remote credits will not work */
	DOCTOR_UNKNOWN = 3,	/* nothing needed failed, something unknown */
	DOCTOR_USAGE = 4,	/* usage error, or no such peer: nothing checked */
};

/*
 * "dlb2ctl doctor" with its arguments (argv[0] "doctor"); @sysfs: the
 * sysfs mount point (--sysfs), @usage: the command's usage text.
 */
int doctor_main(int argc, char **argv, const char *sysfs, const char *usage);

#endif /* DLB2CTL_DOCTOR_H */
