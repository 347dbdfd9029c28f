/* SPDX-License-Identifier: GPL-2.0 */
/*
 * accdirect-agent's logic, apart from its connections, so that
 * agent-selftest.c (accdirect-agent --self-test) can run it in-process.
 */
#ifndef ACCDIRECT_AGENT_H
#define ACCDIRECT_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "libdlb2_rdma.h"
#include "accdirect.h"

struct agent_opts {
	const char *server;		/* -s, an IPv4 address */
	const char *ip;			/* -a, an IPv4 address */
	uint64_t count;			/* -n, 0: until stopped */
	uint32_t nr;			/* -r, ring entries (default 256) */
	bool self_test;			/* --self-test */
};

/* Parse the command line: 0, or -EINVAL for a usage error. */
int agent_parse(int argc, char **argv, struct agent_opts *o);

/**
 * struct agent - the enqueue loop's state
 * @rc: the connection to the server's credit word and producer port
 * @ring, @nr: the metadata ring the client writes
 * @consumed: what the client reads: requests taken from the ring
 * @count: requests to take (0: until the client is idle for @idle_timeout)
 * @head: requests taken so far
 * @qid, @sched: the queue and DLB2_SCHED() byte of every QE
 * @idle_timeout: seconds without a request after which the client is gone
 * @wait: called while the loop waits (a request, credits): sched_yield()
 *	  when NULL
 */
struct agent {
	struct dlb2_rc *rc;
	struct accd_meta *ring;
	uint32_t nr;
	uint64_t *consumed;
	uint64_t count;
	uint64_t head;
	uint8_t qid;
	uint8_t sched;
	double idle_timeout;
	void (*wait)(struct agent *a);
};

/* Entries ready in the ring from @a->head: 0..4, at most count - head. */
unsigned int agent_ready(const struct agent *a);
/* The QEs of the @k ready entries from @a->head. */
void agent_pack(const struct agent *a, struct dlb2_hcw *h, unsigned int k);
/*
 * Take requests until @a->count are taken or the client is gone: for each
 * 1..4 ready entries, as many credits, then one line into the producer
 * port, then @a->consumed.  0, or -errno from the RDMA side.
 */
int agent_run(struct agent *a);

int agent_self_test(void);

#endif /* ACCDIRECT_AGENT_H */
