/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The conformance scenario's sizes, shared by its two drivers
 * (dpdk-scenario.c, dlb2-scenario.c), and the phase marker.
 */
#ifndef SCENARIO_H
#define SCENARIO_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SCENARIO_CQ_DEPTH	32	/* every port; history list = CQ depth */
#define SCENARIO_EVENTS_LIMIT	1024	/* DPDK: ldb credits; dir = half */
#define SCENARIO_LOCK_ID_COMP	64	/* lock-id compression of ldb queues */
#define SCENARIO_ATOMIC_INFL	64	/* DPDK's per-queue atomic inflights */
#define SCENARIO_SNS		64	/* sequence numbers of the ordered queue */
#define SCENARIO_QES		8	/* QEs per queue per step */
#define SCENARIO_BURST		32
#define SCENARIO_SETTLE_US	200000	/* for the model to schedule what waits */
#define SCENARIO_SPINS		2000000	/* empty polls before a stall */
#define SCENARIO_DATA(q, i)	(0xc0f0000000000000ull | (uint64_t)(q) << 32 | (i))

/* The phases, in order; the marker ending each one carries its number. */
enum scenario_phase {
	SCENARIO_BEGIN,		/* the driver has probed the device */
	SCENARIO_CONFIGURED,	/* domain set up and started */
	SCENARIO_TRAFFIC,	/* QEs through every queue */
	SCENARIO_LINKED,	/* p2 linked to qa while qa's QEs are inflight */
	SCENARIO_UNLINKED,	/* p2 unlinked from qa */
	SCENARIO_RESET,		/* domain stopped and reset */
};

#define SCENARIO_MARK	0x5ce00000u

/*
 * The phase marker: a write of SCENARIO_MARK | phase to the configuration
 * dword at 0xf8, which QEMU traces as pci_cfg_write.  The model has no
 * capability there (read-only zeros: the write changes nothing) and no
 * driver writes it, so tools/conformance/compare can split the model's
 * CSR-write log at these writes.
 */
static inline void scenario_marker(const char *bdf, enum scenario_phase phase)
{
	uint32_t v = SCENARIO_MARK | phase;
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf);
	fd = open(path, O_WRONLY);
	if (fd < 0 || pwrite(fd, &v, 4, 0xf8) != 4) {
		perror(path);
		exit(1);
	}
	close(fd);
}

#endif
