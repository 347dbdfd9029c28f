// SPDX-License-Identifier: GPL-2.0
/*
 * pmd-cost-libdlb2: libdlb2's data path on the DLB (model) through dlb2.ko,
 * each measured call between the markers of the insncount TCG plugin
 * (insn-plugin/), the libdlb2 half of run-pmd-cost; pmd-cost-dpdk.c is
 * the DPDK half and does the same work through DPDK's dlb2 PMD.
 *
 * A domain "pmdcost" with a directed queue and its port (CQ depth 32) and
 * a load-balanced atomic queue with one port (CQ depth 32).  For bursts of
 * 1, 4, 16 and 32, N QEs each:
 *
 *   enq  dlb2_enqueue_burst() of NEW QEs from the directed port to its
 *        queue (measured); the QEs dequeued after it (not measured);
 *   deq  NEW QEs enqueued (not measured); dlb2_dequeue_burst() on the
 *        directed port: copy out, credits back, one BAT_T (measured);
 *   rel  NEW QEs enqueued to the atomic queue and dequeued from the
 *        load-balanced port, tokens returned (not measured);
 *        dlb2_release(): one COMP per QE (measured).
 *
 * Every QE must come out once, in order, with its payload; a measured
 * dequeue that returns fewer than the burst is finished outside the window
 * and counted as short.  One line per measurement, in the order of the
 * plugin's reports:  "window libdlb2 MODE BURST QES SHORT", after a first
 * window of a known 2001 instructions, "window calib loop 2001 2001 0".
 * Exit status 0, 1 when a QE was lost or out of order, 2 on set-up errors.
 *
 * Usage: pmd-cost-libdlb2 [QES]     (default 2048; a multiple of 32)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libdlb2.h"
#include "insn-plugin/insncount.h"

#define DOM	"pmdcost"
#define DEPTH	32
#define MAXB	32

static struct dlb2_port *dp, *lp;
static int dq, lq;
static uint64_t seq_in, seq_out;	/* payloads enqueued, dequeued */
static int bad;

static void fail(const char *what)
{
	char msg[4096];

	fprintf(stderr, "pmd-cost-libdlb2: %s: %s\n", what,
		dlb2_strerror(msg, sizeof(msg)));
	dlb2_domain_destroy(0, DOM);
	exit(2);
}

static void setup(void)
{
	struct dlb2_queue_attr qa = DLB2_QUEUE_ATTR_INIT;
	struct dlb2_port_attr pa = DLB2_PORT_ATTR_INIT;

	dlb2_domain_destroy(0, DOM);
	if (dlb2_domain_create(0, DOM) || dlb2_domain_set_credits(0, DOM, 1024, 1024))
		fail("domain");
	qa.type = DLB2_DIR;
	if (dlb2_queue_add(0, DOM, "dq", &qa))
		fail("dq");
	qa.type = DLB2_LDB;
	qa.sched = DLB2_QATOMIC;
	qa.atomic_inflights = 64;
	if (dlb2_queue_add(0, DOM, "lq", &qa))
		fail("lq");
	pa.cq_depth = DEPTH;
	pa.type = DLB2_DIR;
	if (dlb2_port_add(0, DOM, "dp", &pa))
		fail("dp");
	pa.type = DLB2_LDB;
	if (dlb2_port_add(0, DOM, "lp", &pa))
		fail("lp");
	if (dlb2_link_add(0, DOM, "dp", "dq", -1) || dlb2_link_add(0, DOM, "lp", "lq", -1))
		fail("link");
	if (dlb2_domain_enable(0, DOM))
		fail("enable");
	if (dlb2_queue_id(0, DOM, "dq", &dq) || dlb2_queue_id(0, DOM, "lq", &lq))
		fail("queue id");
	if (dlb2_port_open(0, DOM, "dp", NULL, &dp) || dlb2_port_open(0, DOM, "lp", NULL, &lp))
		fail("open");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Not measured: enqueue all of h[0..n), waiting for credits. */
static void enqueue_all(struct dlb2_port *p, const struct dlb2_hcw *h, unsigned int n)
{
	double t0 = now();
	unsigned int k;
	int rc;

	for (k = 0; k < n; k += rc > 0 ? rc : 0) {
		rc = dlb2_enqueue_burst(p, h + k, n - k);
		if (rc < 0 && (rc != -ENOSPC || now() - t0 > 10)) {
			fprintf(stderr, "pmd-cost-libdlb2: enqueue: %s\n", strerror(-rc));
			exit(1);
		}
	}
}

static void check(const struct dlb2_cq_entry *e, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++, seq_out++) {
		if (e[k].data != seq_out) {
			if (bad++ < 5)
				fprintf(stderr, "pmd-cost-libdlb2: QE %llu, expected %llu\n",
					(unsigned long long)e[k].data,
					(unsigned long long)seq_out);
			seq_out = e[k].data;
		}
	}
}

/* Not measured: dequeue n QEs (got of them already in e), waiting. */
static void dequeue_rest(struct dlb2_port *p, struct dlb2_cq_entry *e,
			 unsigned int got, unsigned int n)
{
	double t0 = now();
	int rc;

	while (got < n) {
		rc = dlb2_dequeue_burst(p, e + got, n - got);
		if (rc > 0)
			got += rc;
		else if (now() - t0 > 10) {
			fprintf(stderr, "pmd-cost-libdlb2: %u of %u QEs came out\n", got, n);
			exit(1);
		}
	}
	check(e, n);
}

static void fill(struct dlb2_hcw *h, unsigned int b, int qid, int sched)
{
	unsigned int k;

	for (k = 0; k < b; k++)
		dlb2_hcw_new(&h[k], qid, sched, 0, 0, seq_in++, 0);
}

/* One measurement: n QEs in bursts of b; marked: between the markers. */
static void measure(const char *mode, unsigned int b, unsigned int n, int marked)
{
	struct dlb2_cq_entry e[MAXB];
	struct dlb2_hcw h[MAXB];
	unsigned int i, shorts = 0;
	int rc = 0;

	for (i = 0; i < n / b; i++) {
		switch (mode[0]) {
		case 'e':
			fill(h, b, dq, DLB2_SCHED_DIRECTED);
			if (marked)
				INSN_START();
			rc = dlb2_enqueue_burst(dp, h, b);
			if (marked)
				INSN_STOP();
			if (rc != (int)b) {
				fprintf(stderr, "pmd-cost-libdlb2: enqueue: %d of %u\n", rc, b);
				exit(1);
			}
			dequeue_rest(dp, e, 0, b);
			break;
		case 'd':
			fill(h, b, dq, DLB2_SCHED_DIRECTED);
			enqueue_all(dp, h, b);
			if (marked)
				INSN_START();
			rc = dlb2_dequeue_burst(dp, e, b);
			if (marked)
				INSN_STOP();
			shorts += rc < (int)b;
			dequeue_rest(dp, e, rc > 0 ? rc : 0, b);
			break;
		case 'r':
			fill(h, b, lq, DLB2_SCHED_ATOMIC);
			enqueue_all(lp, h, b);
			dequeue_rest(lp, e, 0, b);
			if (marked)
				INSN_START();
			rc = dlb2_release(lp, b);
			if (marked)
				INSN_STOP();
			if (rc != (int)b) {
				fprintf(stderr, "pmd-cost-libdlb2: release: %d\n", rc);
				exit(1);
			}
			break;
		}
	}
	if (marked) {
		INSN_REPORT();
		printf("window libdlb2 %s %u %u %u\n", mode, b, n / b * b, shorts);
		fflush(stdout);
	}
}

/*
 * The plugin's own check: a window of exactly 2001 instructions (a mov and
 * 1000 turns of dec + jnz), markers in the same asm so that the compiler
 * puts nothing between them.
 */
static void calibrate(void)
{
	__asm__ volatile(".byte 0x48, 0x87, 0xdb\n\t"	/* INSN_START */
			 "mov $1000, %%eax\n"
			 "1:\tdec %%eax\n\t"
			 "jnz 1b\n\t"
			 ".byte 0x48, 0x87, 0xc9"		/* INSN_STOP */
			 ::: "eax", "cc", "memory");
	INSN_REPORT();
	printf("window calib loop 2001 2001 0\n");
}

int main(int argc, char **argv)
{
	static const unsigned int bursts[] = { 1, 4, 16, 32 };
	static const char *const modes[] = { "enq", "deq", "rel" };
	unsigned int n = argc > 1 ? (unsigned int)atoi(argv[1]) : 2048, m, k;
	struct dlb2_cq_entry e;

	if (!n || n % 32) {
		fprintf(stderr, "Usage: pmd-cost-libdlb2 [QES]   (a multiple of 32)\n");
		return 2;
	}
	calibrate();
	setup();
	printf("# libdlb2: PP writes %s\n", dp->pp_mode == DLB2_PP_MOVDIR64B ?
	       "MOVDIR64B" : "16-byte stores + sfence");
	for (m = 0; m < 3; m++) {
		measure(modes[m], 32, 256, 0);		/* warm up */
		for (k = 0; k < 4; k++)
			measure(modes[m], bursts[k], n, 1);
	}
	/* nothing left behind */
	if (dlb2_dequeue_burst(dp, &e, 1) || dlb2_dequeue_burst(lp, &e, 1)) {
		fprintf(stderr, "pmd-cost-libdlb2: a QE too many\n");
		bad++;
	}
	if (seq_out != seq_in) {
		fprintf(stderr, "pmd-cost-libdlb2: %llu QEs in, %llu out\n",
			(unsigned long long)seq_in, (unsigned long long)seq_out);
		bad++;
	}
	dlb2_port_close(dp);
	dlb2_port_close(lp);
	dlb2_domain_destroy(0, DOM);
	printf("# libdlb2: %llu QEs, %s\n", (unsigned long long)seq_out,
	       bad ? "LOST OR OUT OF ORDER" : "every one out once, in order");
	return bad ? 1 : 0;
}
