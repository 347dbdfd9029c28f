// SPDX-License-Identifier: GPL-2.0
/*
 * accdirect-agent: the SmartNIC side of AccDirect (it runs on any host), a
 * thin user of libaccdirect (tools/lib/accdirect).  Takes the request
 * metadata its clients RDMA-WRITE into their rings, packs up to four QEs
 * per 64-byte line and RDMA-WRITEs the lines into its producer port at the
 * server, mostly unsignalled, several in flight, after taking credits from
 * the server's credit word in portions (RDMA READ + compare-and-swap).  It
 * never enqueues without a credit, gives the unused ones back at the end,
 * and refuses to run when the RDMA device's atomics are not atomic with
 * respect to the server's CPUs.  See README.md.  --self-test
 * (agent-selftest.c) runs the enqueue engine against an RDMA device it
 * emulates.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "agent.h"
#include "version.h"

/* The usage on @f, then exit with @status (0: asked for, 2: an error). */
static void usage(FILE *f, int status)
{
	fprintf(f, "Usage: accdirect-agent -s SERVER_IP -a LISTEN_IP [-n COUNT] [-r RING_ENTRIES]\n"
		   "                       [-c MAX_CLIENTS] [-q CREDIT_QUANTA] [-l LINES_PER_POST]\n"
		   "                       [-S SEND_QUEUE_DEPTH] [-e SIGNAL_EVERY] [-B SPIN,YIELD,SLEEP_US]\n"
		   "                       [-C ahead|on-demand]\n"
		   "       accdirect-agent --self-test\n"
		   "       accdirect-agent -h | --help\n"
		   "       accdirect-agent --version\n");
	exit(status);
}

/* A whole decimal (or 0x) number in [@min, @max], nothing after it. */
static int parse_num(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static bool is_ipv4(const char *s)
{
	struct in_addr a;

	return inet_pton(AF_INET, s, &a) == 1;
}

int agent_parse(int argc, char **argv, struct agent_opts *o)
{
	static const struct option longopts[] = {
		{ "self-test", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	*o = (struct agent_opts){ .nr = 256, .clients = 16, .quanta = 32,
				  .lines = 8, .depth = 128, .signal = 16 };
	optind = 0;		/* a fresh scan, also for the self-test */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "s:a:n:r:c:q:l:S:e:B:C:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 's': o->server = optarg; break;
		case 'a': o->ip = optarg; break;
		case 'n':
			if (parse_num(optarg, 0, UINT64_MAX, &o->count))
				return -EINVAL;
			break;
		case 'r':
			if (parse_num(optarg, 1, ACCD_MAX_RING, &v))
				return -EINVAL;
			o->nr = v;
			break;
		case 'c':
			if (parse_num(optarg, 1, 1024, &v))
				return -EINVAL;
			o->clients = v;
			break;
		case 'q':
			if (parse_num(optarg, 1, 1 << 20, &v))
				return -EINVAL;
			o->quanta = v;
			break;
		case 'l':
			if (parse_num(optarg, 1, 64, &v))
				return -EINVAL;
			o->lines = v;
			break;
		case 'S':
			if (parse_num(optarg, 1, 4096, &v))
				return -EINVAL;
			o->depth = v;
			break;
		case 'e':
			if (parse_num(optarg, 1, 4096, &v))
				return -EINVAL;
			o->signal = v;
			break;
		case 'B':
			if (accd_backoff_parse(optarg, &o->backoff))
				return -EINVAL;
			break;
		case 'C':
			if (strcmp(optarg, "ahead") && strcmp(optarg, "on-demand"))
				return -EINVAL;
			o->on_demand = !strcmp(optarg, "on-demand");
			break;
		case 'T': o->self_test = true; break;
		/* as getopt programs do: what follows is not looked at */
		case 'h': o->help = true; return 0;
		case 'V': o->version = true; return 0;
		default: return -EINVAL;
		}
	}
	if (optind != argc)
		return -EINVAL;
	if (o->self_test)
		return argc == 2 ? 0 : -EINVAL;
	if (!o->server || !o->ip || !is_ipv4(o->server) || !is_ipv4(o->ip) ||
	    o->signal > o->depth || o->lines > o->depth)
		return -EINVAL;
	return 0;
}

static double tv_diff(const struct timeval *a, const struct timeval *b)
{
	return (a->tv_sec - b->tv_sec) + (a->tv_usec - b->tv_usec) / 1e6;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct accd_agent_stats st;
	struct accd_agent *a;
	struct agent_opts o;
	struct rusage r0, r1;
	double t0, cpu;
	int ret, ret2;

	if (agent_parse(argc, argv, &o))
		usage(stderr, 2);
	if (o.help)
		usage(stdout, 0);
	if (o.version) {
		printf("accdirect-agent %s\n", ACCDIRECT_VERSION);
		return 0;
	}
	if (o.self_test)
		return agent_self_test() ? 1 : 0;

	ret = accd_agent_create(&(struct accd_agent_attr){
		.server = o.server, .ip = o.ip, .ring_entries = o.nr,
		.max_clients = o.clients, .quanta = o.quanta,
		.sq_depth = o.depth, .signal_every = o.signal,
		.max_lines = o.lines, .backoff = o.backoff, .log = stdout,
		.name = "accdirect-agent", .credits_on_demand = o.on_demand,
	}, &a);
	if (ret == -EOPNOTSUPP) {
		char why[1024];

		/* the check that failed and its fix */
		fprintf(stderr, "accdirect-agent: %s\n",
			dlb2_rc_strerror(why, sizeof(why)));
		fprintf(stderr, "accdirect-agent: the RDMA device's atomics are not known to be global: credits shared with the server's CPUs would be lost; refusing\n");
		return 1;
	}
	if (ret) {
		fprintf(stderr, "accdirect-agent: connecting to the server %s, listening on %s: %s\n",
			o.server, o.ip, strerror(-ret));
		return 1;
	}
	printf("accdirect-agent: server %s (queue %u), listening on %s, rings of %u, credits %s, at least %u at a time, %u lines per post, 1 in %u signalled\n",
	       o.server, accd_agent_qid(a), o.ip, o.nr,
	       o.on_demand ? "on demand" : "ahead of need", o.quanta, o.lines,
	       o.signal);
	fflush(stdout);

	t0 = now();
	getrusage(RUSAGE_SELF, &r0);
	ret = accd_agent_run(a, o.count, 30, NULL);
	getrusage(RUSAGE_SELF, &r1);
	t0 = now() - t0;
	accd_agent_stats(a, &st);
	/* what is in flight completes, the cached credits go back */
	ret2 = accd_agent_destroy(a);
	printf("accdirect-agent: %lu requests enqueued in %.1f s (%.0f/s)%s%s\n",
	       (unsigned long)st.enqueued, t0, st.enqueued / t0,
	       ret ? ": " : "", ret ? strerror(-ret) : "");
	printf("accdirect-agent: %lu lines (%.2f QEs each), %lu signalled; credits: %lu taken in %lu portions, %lu lost races, %lu returned%s%s; %u clients\n",
	       (unsigned long)st.lines,
	       st.lines ? (double)st.enqueued / st.lines : 0.0,
	       (unsigned long)st.signalled, (unsigned long)st.credits_taken,
	       (unsigned long)st.credit_takes, (unsigned long)st.cas_lost,
	       (unsigned long)(st.credits_taken - st.enqueued),
	       ret2 ? ": " : "", ret2 ? strerror(-ret2) : "", st.clients);
	printf("accdirect-agent: credits %s: %lu READs of the pool, %lu takes begun ahead of need, %lu enqueues waited for credits\n",
	       o.on_demand ? "on demand" : "ahead of need",
	       (unsigned long)st.credit_reads, (unsigned long)st.credits_ahead,
	       (unsigned long)st.credit_waits);
	/* the SmartNIC's CPU (idle polling included) */
	cpu = tv_diff(&r1.ru_utime, &r0.ru_utime) + tv_diff(&r1.ru_stime, &r0.ru_stime);
	if (st.enqueued)
		printf("accdirect-agent: CPU %.3f s: %.1f us per request\n", cpu,
		       cpu * 1e6 / st.enqueued);
	return ret || ret2 || (o.count && st.enqueued != o.count);
}
