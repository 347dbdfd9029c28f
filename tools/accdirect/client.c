// SPDX-License-Identifier: GPL-2.0
/*
 * accdirect-client: sends COUNT requests through AccDirect, a thin user of
 * libaccdirect (tools/lib/accdirect).  Each request's payload (64 bytes up
 * to a slot, a pattern derived from its number: pattern.h) is RDMA-WRITTEN
 * into a server slot and, once it has landed, its metadata into the
 * agent's ring, in batches, with up to WINDOW requests in flight; the
 * server answers each with an RDMA SEND carrying the number it read from
 * the payload, which is checked.  With -r RATE it is an open-loop load
 * generator: request i is due at the i-th arrival of a Poisson process of
 * RATE per second and its latency counts from then, also while the window
 * holds it back.  Prints the latency percentiles.  See README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accdirect.h"
#include "pattern.h"
#include "version.h"

/* The usage on @f, then exit with @status (0: asked for, 2: an error). */
static void usage(FILE *f, int status)
{
	fprintf(f, "Usage: accdirect-client -s SERVER_IP -g AGENT_IP -n COUNT [-c WINDOW] [-b BATCH]\n"
		   "                        [-f FLOWS] [-Q QUEUES] [-P PRIORITY] [-t atomic|unordered|ordered]\n"
		   "                        [-C | -u] [-r RATE [-S SEED]] [-W GRACE]\n"
		   "       accdirect-client -h | --help\n"
		   "       accdirect-client --version\n");
	exit(status);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The @p-quantile (0 < p <= 1) of the sorted @v[0..n): nearest rank. */
static double quantile(const double *v, uint64_t n, double p)
{
	uint64_t k = (uint64_t)ceil(p * n);

	return v[k ? k - 1 : 0];
}

/* xorshift64*: the arrivals, reproducible from the seed */
static double uniform01(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return ((*x * 0x2545F4914F6CDD1Dull) >> 11) * 0x1p-53;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* payloads of consecutive slots in one write: the faster on rxe */
	struct accd_client_attr attr = { .coalesce = true };
	struct accd_qe_attr qa = { .sched_type = ACCD_SCHED_QUEUE };
	struct accd_response r[64];
	struct accd_client *c;
	uint64_t count = 0, sent = 0, answered = 0, errors = 0, dups = 0, req;
	uint32_t flows = 1, queues = 1, size, w, slot_size;
	uint64_t *payload, seed = 1;
	char *end;
	double t0, t, rate = 0, due = 0, *start, *lat, grace = 3, last;
	uint8_t *seen;
	int ch, n, i, ret = 0, lost = 0;

	while ((ch = getopt_long(argc, argv, "s:g:n:c:b:f:Q:P:t:Cur:S:W:h", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 's': attr.server = optarg; break;
		case 'g': attr.agent = optarg; break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 'c': attr.window = strtoul(optarg, NULL, 0); break;
		case 'b': attr.batch = strtoul(optarg, NULL, 0); break;
		case 'C': attr.coalesce = true; break;
		case 'u': attr.coalesce = false; break;
		case 'r':
			rate = strtod(optarg, &end);
			if (end == optarg || *end || !(rate > 0) || rate > 1e9)
				usage(stderr, 2);
			break;
		case 'S':
			seed = strtoull(optarg, &end, 0);
			if (end == optarg || *end)
				usage(stderr, 2);
			break;
		case 'W':
			grace = strtod(optarg, &end);
			if (end == optarg || *end || !(grace > 0) || grace > 3600)
				usage(stderr, 2);
			break;
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
				usage(stderr, 2);
			break;
		case 'h': usage(stdout, 0); break;
		case 'V':
			printf("accdirect-client %s\n", ACCDIRECT_VERSION);
			return 0;
		default: usage(stderr, 2);
		}
	}
	if (!attr.server || !attr.agent || !count || optind != argc ||
	    !flows || flows > 65536 || !queues || queues > ACCD_MAX_QUEUES ||
	    qa.prio > 7 || attr.window > 4096 || rate < 0 || !seed)
		usage(stderr, 2);
	start = calloc(count, sizeof(*start));
	lat = calloc(count, sizeof(*lat));
	seen = calloc(count, 1);
	if (!start || !lat || !seen) {
		fprintf(stderr, "accdirect-client: %s\n", strerror(ENOMEM));
		return 1;
	}
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

	t0 = last = now();
	while (!ret && answered < count) {
		/*
		 * The agent gone: no more requests; those whose QEs reached
		 * the DLB are answered, until GRACE seconds pass without one.
		 */
		if (!lost && (lost = accd_client_agent_status(c))) {
			last = now();
			fprintf(stderr, "accdirect-client: the agent's connection failed (%s): waiting %.0f s for the answers of requests it enqueued\n",
				strerror(-lost), grace);
		}
		if (lost && (answered == sent || now() - last > grace))
			break;
		/* as many new requests as are due and the window takes */
		t = now();
		while (!lost && sent < count && (!rate || t0 + due <= t) &&
		       (payload = accd_client_next(c, &req))) {
			start[req] = rate ? t0 + due : t;
			due += rate ? -log(1 - uniform01(&seed)) / rate : 0;
			size = accd_payload_size(req, slot_size);
			for (w = 0; w < size / 8; w++)
				payload[w] = accd_payload_word(req, w);
			qa.flow = req % flows;
			qa.queue = req % queues;
			ret = accd_client_submit(c, size, &qa);
			if (ret == accd_client_agent_status(c) && ret) {
				ret = 0;	/* lost: found at the loop's top */
				break;
			}
			if (ret)
				break;
			sent++;
		}
		if (ret)
			break;
		/* the answers: each the request's number, read by the server */
		/* closed loop: wait for an answer; open loop: the next arrival */
		n = accd_client_poll(c, r, 64, !rate);
		if (n < 0) {
			ret = n;
			break;
		}
		t = now();
		if (n)
			last = t;
		if (!n && rate)
			sched_yield();
		for (i = 0; i < n; i++) {
			/* never twice: the window refuses an answered slot too */
			if (r[i].req < count && seen[r[i].req]++)
				dups++;
			if (r[i].req < count)
				lat[r[i].req] = t - start[r[i].req];
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
	/* the requests of a lost agent: each answered once, or never */
	if (lost && answered - dups < count)
		printf("accdirect-client: agent lost (%s): %lu requests answered once, %lu twice or more, %lu never (of which %lu had their metadata posted to the agent)\n",
		       strerror(-lost), (unsigned long)(answered - dups),
		       (unsigned long)dups, (unsigned long)(sent - (answered - dups)),
		       (unsigned long)(accd_client_meta_sent(c) - (answered - dups)));
	if (answered == count) {
		qsort(lat, count, sizeof(*lat), cmp_double);
		printf("accdirect-client: %s, offered %.0f/s: latency p50 %.0f us, p99 %.0f us, p99.9 %.0f us, max %.0f us\n",
		       rate ? "open loop (Poisson)" : "closed loop",
		       rate ? rate : answered / t0, quantile(lat, count, 0.5) * 1e6,
		       quantile(lat, count, 0.99) * 1e6,
		       quantile(lat, count, 0.999) * 1e6, lat[count - 1] * 1e6);
	}
	free(start);
	free(lat);
	free(seen);
	accd_client_close(c);
	return ret || errors || dups || answered != count;
}
