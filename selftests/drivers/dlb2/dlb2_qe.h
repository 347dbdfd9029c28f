/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QE helpers of the dlb2 kselftests that go through libdlb2 (dlb2_traffic,
 * dlb2_lifecycle).
 */
#ifndef DLB2_SELFTEST_QE_H
#define DLB2_SELFTEST_QE_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "libdlb2.h"

/* Enqueue one QE, retrying while the port has no credit. */
static inline void enqueue(struct dlb2_port *p, uint8_t qid, uint8_t sched,
			   uint8_t prio, uint16_t flow, uint64_t data)
{
	struct dlb2_hcw h;

	dlb2_hcw_new(&h, qid, sched, prio, flow, data, 0);
	while (dlb2_enqueue_burst(p, &h, 1) == -ENOSPC)
		sched_yield();
}

/* Dequeue one QE, waiting up to about 5 s; 0 on timeout. */
static inline int dequeue1(struct dlb2_port *p, struct dlb2_cq_entry *e)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (dlb2_dequeue_burst(p, e, 1) == 1)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return 0;
		sched_yield();
	}
}

#endif /* DLB2_SELFTEST_QE_H */
