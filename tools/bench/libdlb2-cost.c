// SPDX-License-Identifier: GPL-2.0
/*
 * libdlb2-cost: what libdlb2's data path costs per QE, on an in-memory port
 * (tools/lib/dlb2), for counting instructions under callgrind:
 *
 *   enq  dlb2_enqueue_burst() of NEW QEs (credits from the port's cache,
 *        refilled from the pool in quanta of 32; HCWs written with 16-byte
 *        stores + sfence to an ordinary PP buffer),
 *   deq  dlb2_dequeue_burst() on a directed port (gen-bit ring walk, copy,
 *        credits back, one BAT_T token return per burst),
 *   rel  dlb2_release() on a load-balanced port (one COMP per QE, the
 *        deferred tokens on the last as COMP_T).
 *
 * Only the function named bench_<mode> is measured (callgrind
 * --toggle-collect=bench_<mode>); the rest of the loop plays the device:
 * it writes the CQ entries with their generation bit.  The PP is always
 * written with 16-byte stores: valgrind does not know MOVDIR64B.
 *
 * Usage: libdlb2-cost enq|deq|rel BURST [BURSTS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libdlb2.h"

#define CQ_DEPTH	64

struct dev {
	struct dlb2_port *p;
	uint32_t wr;		/* next CQ entry the "device" writes */
};

/* The device: schedule @n QEs into the CQ. */
static void __attribute__((noinline)) fill_cq(struct dev *d, unsigned int n)
{
	struct dlb2_port *p = d->p;
	uint32_t entries = p->info.cq_entries;
	struct dlb2_cq_entry *e;

	while (n--) {
		e = (struct dlb2_cq_entry *)((uint8_t *)p->cq_map +
			(d->wr & (entries - 1)) * p->info.cq_stride);
		e->data = d->wr;
		e->qid = 0;
		e->sched = p->ldb ? DLB2_SCHED_ATOMIC : DLB2_SCHED_DIRECTED;
		__atomic_store_n(&e->status, !((d->wr / entries) & 1),
				 __ATOMIC_RELEASE);
		d->wr++;
	}
}

int __attribute__((noinline)) bench_enq(struct dlb2_port *p,
					const struct dlb2_hcw *h, unsigned int n)
{
	return dlb2_enqueue_burst(p, h, n);
}

int __attribute__((noinline)) bench_deq(struct dlb2_port *p,
					struct dlb2_cq_entry *out, unsigned int n)
{
	return dlb2_dequeue_burst(p, out, n);
}

int __attribute__((noinline)) bench_rel(struct dlb2_port *p, unsigned int n)
{
	return dlb2_release(p, n);
}

static struct dlb2_port *open_port(bool ldb, unsigned int flags)
{
	struct dlb2_port_opts o = { .flags = DLB2_OPEN_FORCE_SSE | flags };
	struct dlb2_mem_cfg cfg = {
		.version = DLB2_HW_V2, .ldb = ldb, .cq_depth = CQ_DEPTH,
		.cq_stride = 64, .credits = { 2048, 2048 },
	};
	struct dlb2_port *p;

	if (dlb2_port_open_mem(&cfg, &o, &p)) {
		fprintf(stderr, "libdlb2-cost: cannot open an in-memory port\n");
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	struct dlb2_cq_entry out[CQ_DEPTH];
	struct dlb2_hcw h[CQ_DEPTH];
	unsigned int burst, bursts, i, k;
	struct dev d = { 0 };
	const char *mode;
	long sum = 0;

	if (argc < 3) {
		fprintf(stderr, "Usage: libdlb2-cost enq|deq|rel BURST [BURSTS]\n");
		return 2;
	}
	mode = argv[1];
	burst = atoi(argv[2]);
	bursts = argc > 3 ? (unsigned int)atoi(argv[3]) : 65536 / (burst ? burst : 1);
	if (!burst || burst > 32 || (strcmp(mode, "enq") && strcmp(mode, "deq") &&
				     strcmp(mode, "rel"))) {
		fprintf(stderr, "libdlb2-cost: bad mode or burst (1..32)\n");
		return 2;
	}
	/* enq and deq: a directed port feeding its own queue */
	d.p = open_port(!strcmp(mode, "rel"),
			!strcmp(mode, "rel") ? DLB2_OPEN_DEFER_POP : 0);
	for (k = 0; k < burst; k++)
		dlb2_hcw_new(&h[k], 0, DLB2_SCHED_DIRECTED, 0, 0, k, 0);

	for (i = 0; i < bursts; i++) {
		if (!strcmp(mode, "enq")) {
			sum += bench_enq(d.p, h, burst);
			fill_cq(&d, burst);
			dlb2_dequeue_burst(d.p, out, burst);
		} else if (!strcmp(mode, "deq")) {
			dlb2_enqueue_burst(d.p, h, burst);
			fill_cq(&d, burst);
			sum += bench_deq(d.p, out, burst);
		} else {
			fill_cq(&d, burst);
			dlb2_dequeue_burst(d.p, out, burst);
			sum += bench_rel(d.p, burst);
		}
	}
	dlb2_port_close(d.p);
	if (sum != (long)burst * bursts) {
		fprintf(stderr, "libdlb2-cost: %ld QEs, expected %ld\n", sum,
			(long)burst * bursts);
		return 1;
	}
	printf("%s %u %u\n", mode, burst, bursts);
	return 0;
}
