/* SPDX-License-Identifier: GPL-2.0 */
/*
 * accdirect-agent's command line, apart from main(), so that
 * agent-selftest.c (accdirect-agent --self-test) can test it; the agent
 * itself is libaccdirect's (struct accd_agent, struct accd_enq).
 */
#ifndef ACCDIRECT_AGENT_H
#define ACCDIRECT_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "accdirect.h"

struct agent_opts {
	const char *server;		/* -s, an IPv4 address */
	const char *ip;			/* -a, an IPv4 address */
	uint64_t count;			/* -n, 0: until the clients are idle */
	uint32_t nr;			/* -r, ring entries per client (256) */
	uint32_t clients;		/* -c, clients at once (16) */
	uint32_t quanta;		/* -q, credits per take (32) */
	uint32_t lines;			/* -l, lines per post (8) */
	uint32_t depth;			/* -S, writes in flight (128) */
	uint32_t signal;		/* -e, writes per signalled one (16) */
	struct accd_backoff backoff;	/* -B SPIN,YIELD,SLEEP_US */
	bool on_demand;			/* -C on-demand (default: ahead) */
	bool self_test;			/* --self-test */
	bool help;			/* -h, --help */
	bool version;			/* --version */
};

/*
 * Parse the command line: 0, or -EINVAL for a usage error.  -h, --help
 * and --version end the scan (0, with help or version set): what follows
 * them is not looked at, an error before them is still an error.
 */
int agent_parse(int argc, char **argv, struct agent_opts *o);

int agent_self_test(void);

#endif /* ACCDIRECT_AGENT_H */
