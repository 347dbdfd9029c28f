// SPDX-License-Identifier: GPL-2.0
/*
 * accdirect-client: sends COUNT requests through AccDirect, a thin user of
 * libaccdirect (tools/lib/accdirect).  Each request's payload (64 bytes up
 * to a slot, a pattern derived from its number: pattern.h) is RDMA-WRITTEN
 * into a server slot and, once it has landed, its metadata into the
 * agent's ring, in batches, with up to WINDOW requests in flight; the
 * server answers each with an RDMA SEND carrying the number it read from
 * the payload, which is checked.  See README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accdirect.h"
#include "pattern.h"

static void usage(void)
{
	fprintf(stderr, "Usage: accdirect-client -s SERVER_IP -g AGENT_IP -n COUNT [-c WINDOW] [-b BATCH]\n"
			"                        [-f FLOWS] [-Q QUEUES] [-P PRIORITY] [-t atomic|unordered|ordered]\n"
			"                        [-C | -u]\n");
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	/* payloads of consecutive slots in one write: the faster on rxe */
	struct accd_client_attr attr = { .coalesce = true };
	struct accd_qe_attr qa = { .sched_type = ACCD_SCHED_QUEUE };
	struct accd_response r[64];
	struct accd_client *c;
	uint64_t count = 0, sent = 0, answered = 0, errors = 0, req;
	uint32_t flows = 1, queues = 1, size, w, slot_size;
	uint64_t *payload;
	double t0;
	int ch, n, i, ret = 0;

	while ((ch = getopt(argc, argv, "s:g:n:c:b:f:Q:P:t:Cu")) != -1) {
		switch (ch) {
		case 's': attr.server = optarg; break;
		case 'g': attr.agent = optarg; break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 'c': attr.window = strtoul(optarg, NULL, 0); break;
		case 'b': attr.batch = strtoul(optarg, NULL, 0); break;
		case 'C': attr.coalesce = true; break;
		case 'u': attr.coalesce = false; break;
		case 'f': flows = strtoul(optarg, NULL, 0); break;
		case 'Q': queues = strtoul(optarg, NULL, 0); break;
		case 'P': qa.prio = strtoul(optarg, NULL, 0); break;
		case 't':
			if (!strcmp(optarg, "atomic"))
				qa.sched_type = DLB2_SCHED_ATOMIC;
			else if (!strcmp(optarg, "unordered"))
				qa.sched_type = DLB2_SCHED_UNORDERED;
			else if (!strcmp(optarg, "ordered"))
				qa.sched_type = DLB2_SCHED_ORDERED;
			else
				usage();
			break;
		default: usage();
		}
	}
	if (!attr.server || !attr.agent || !count || optind != argc ||
	    !flows || flows > 65536 || !queues || queues > ACCD_MAX_QUEUES ||
	    qa.prio > 7 || attr.window > 4096)
		usage();
	ret = accd_client_connect(&attr, &c);
	if (ret) {
		fprintf(stderr, "accdirect-client: connecting: %s\n", strerror(-ret));
		return 1;
	}
	if (queues > accd_client_nr_queues(c)) {
		fprintf(stderr, "accdirect-client: -Q %u: the server offers %u queues\n",
			queues, accd_client_nr_queues(c));
		return 1;
	}
	slot_size = accd_client_slot_size(c);
	printf("accdirect-client: window of %u requests, slots of %u bytes\n",
	       accd_client_window(c), slot_size);
	fflush(stdout);

	t0 = now();
	while (!ret && answered < count) {
		/* as many new requests as the window takes */
		while (sent < count && (payload = accd_client_next(c, &req))) {
			size = accd_payload_size(req, slot_size);
			for (w = 0; w < size / 8; w++)
				payload[w] = accd_payload_word(req, w);
			qa.flow = req % flows;
			qa.queue = req % queues;
			ret = accd_client_submit(c, size, &qa);
			if (ret)
				break;
			sent++;
		}
		if (ret)
			break;
		/* the answers: each the request's number, read by the server */
		n = accd_client_poll(c, r, 64, true);
		if (n < 0) {
			ret = n;
			break;
		}
		for (i = 0; i < n; i++) {
			if (r[i].status || r[i].value != r[i].req) {
				if (errors++ < 10)
					fprintf(stderr, "accdirect-client: request %lu: status %d, value %lu\n",
						(unsigned long)r[i].req, r[i].status,
						(unsigned long)r[i].value);
			}
		}
		answered += n;
	}
	t0 = now() - t0;
	printf("accdirect-client: %lu requests sent in %.1f s (%.0f/s), %lu answered, %lu errors%s%s\n",
	       (unsigned long)sent, t0, answered / t0, (unsigned long)answered,
	       (unsigned long)errors, ret ? ": " : "", ret ? strerror(-ret) : "");
	accd_client_close(c);
	return ret || errors || answered != count;
}
