// SPDX-License-Identifier: GPL-2.0
/*
 * installed-traffic: a directed round trip through the installed libdlb2,
 * for tools/pkg/installed-test.  Built against the installed headers and
 * library only (pkg-config libdlb2, <libdlb2.h>), it uses nothing but the
 * library's public API.
 *
 * Without --domain it sets up domain "installed_traffic" on device DEV
 * through configfs (dlb2_domain_create, dlb2_queue_add, dlb2_port_add,
 * dlb2_link_add, dlb2_domain_enable): directed queues "q" and "pq",
 * directed ports "p" (linked to "pq") and "c" (linked to "q"), and destroys
 * it at the end.  With --domain it uses those ports and queue "q" of an
 * enabled domain set up by someone else (dlb2ctl apply).
 *
 * Port "p" enqueues N QEs to queue "q" in bursts of up to 16; port "c"
 * dequeues them.  Every QE must come back once, in order, with its data
 * and opaque value, from queue "q", directed, without the error flag.
 * Prints one line and exits 0; on a failure prints what went wrong on
 * standard error and exits 1 (2: usage).
 *
 * Usage: installed-traffic [--domain NAME] DEV N
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libdlb2.h>

#define OWN_DOMAIN	"installed_traffic"
#define BURST		16
#define TIMEOUT_S	30
#define MAGIC		0xacd1ec7000000000ull

static const char *domain = OWN_DOMAIN;
static int dev;

static int setup_failed(const char *what, int ret)
{
	char buf[PATH_MAX + 512];

	fprintf(stderr, "installed-traffic: %s: %s (%s)\n", what,
		strerror(-ret), dlb2_strerror(buf, sizeof(buf)));
	return 1;
}

static int add_queue(const char *name)
{
	struct dlb2_queue_attr a = DLB2_QUEUE_ATTR_INIT;

	a.type = DLB2_DIR;
	return dlb2_queue_add(dev, domain, name, &a);
}

static int add_port(const char *name, int cq_depth, const char *queue)
{
	struct dlb2_port_attr a = DLB2_PORT_ATTR_INIT;
	int ret;

	a.type = DLB2_DIR;
	a.cq_depth = cq_depth;
	a.wait_mode = DLB2_WAIT_POLL;
	ret = dlb2_port_add(dev, domain, name, &a);
	return ret ? ret : dlb2_link_add(dev, domain, name, queue, -1);
}

static int set_up(void)
{
	int ret;

	ret = dlb2_domain_destroy(dev, domain);
	if (ret && ret != -ENOENT)
		return setup_failed("destroying a domain left over", ret);
	if ((ret = dlb2_domain_create(dev, domain)))
		return setup_failed("dlb2_domain_create", ret);
	if ((ret = dlb2_domain_set_credits(dev, domain, 2048, 1024)))
		return setup_failed("dlb2_domain_set_credits", ret);
	if ((ret = add_queue("q")) || (ret = add_queue("pq")))
		return setup_failed("dlb2_queue_add", ret);
	if ((ret = add_port("p", 8, "pq")) || (ret = add_port("c", 64, "q")))
		return setup_failed("dlb2_port_add, dlb2_link_add", ret);
	if ((ret = dlb2_domain_enable(dev, domain)))
		return setup_failed("dlb2_domain_enable", ret);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int round_trip(struct dlb2_port *p, struct dlb2_port *c, int qid,
		      unsigned int n)
{
	struct dlb2_cq_entry e[BURST];
	struct dlb2_hcw h[BURST];
	unsigned int sent = 0, got = 0, i, k;
	double last = now();
	int ret;

	while (got < n) {
		if (sent < n) {
			k = n - sent < BURST ? n - sent : BURST;
			for (i = 0; i < k; i++)
				dlb2_hcw_new(&h[i], (uint8_t)qid,
					     DLB2_SCHED_DIRECTED, 0, 0,
					     MAGIC | (sent + i),
					     (uint16_t)(sent + i));
			ret = dlb2_enqueue_burst(p, h, k);
			if (ret > 0)
				sent += (unsigned int)ret;
			else if (ret != -ENOSPC) {
				fprintf(stderr, "installed-traffic: dlb2_enqueue_burst: %s\n",
					strerror(-ret));
				return 1;
			}
		}
		ret = dlb2_dequeue_burst(c, e, BURST);
		for (i = 0; i < (unsigned int)ret; i++, got++) {
			if (e[i].data != (MAGIC | got) ||
			    e[i].opaque != (uint16_t)got || e[i].qid != qid ||
			    (e[i].sched & 3) != DLB2_SCHED_DIRECTED ||
			    (e[i].status & DLB2_CQ_ERROR)) {
				fprintf(stderr,
					"installed-traffic: QE %u: data 0x%" PRIx64
					" opaque %u qid %u sched %u status 0x%x, want data 0x%llx opaque %u qid %d, directed\n",
					got, (uint64_t)e[i].data, e[i].opaque,
					e[i].qid, e[i].sched, e[i].status,
					MAGIC | got, (uint16_t)got, qid);
				return 1;
			}
		}
		if (ret > 0 || sent < n)
			last = ret > 0 ? now() : last;
		if (now() - last > TIMEOUT_S) {
			fprintf(stderr, "installed-traffic: %u of %u QEs back after %d s without progress (%u enqueued)\n",
				got, n, TIMEOUT_S, sent);
			return 1;
		}
	}
	/* nothing more */
	if (dlb2_dequeue_burst(c, e, BURST) != 0) {
		fprintf(stderr, "installed-traffic: a QE more than the %u sent\n", n);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct dlb2_port *p = NULL, *c = NULL;
	bool own = true;
	unsigned long n;
	char *end;
	int ret, qid = -1;

	if (argc == 5 && !strcmp(argv[1], "--domain")) {
		domain = argv[2];
		own = false;
		argv += 2;
		argc -= 2;
	}
	if (argc != 3 || !dlb2_name_valid(domain)) {
		fputs("Usage: installed-traffic [--domain NAME] DEV N\n", stderr);
		return 2;
	}
	dev = (int)strtol(argv[1], &end, 10);
	if (*end || dev < 0)
		return 2;
	n = strtoul(argv[2], &end, 10);
	if (*end || !n || n > 1u << 30)
		return 2;

	if (own && set_up())
		goto out;
	ret = dlb2_queue_id(dev, domain, "q", &qid);
	if (ret || qid < 0) {
		setup_failed("dlb2_queue_id q", ret ? ret : -EINVAL);
		goto out;
	}
	if ((ret = dlb2_port_open(dev, domain, "p", NULL, &p)) ||
	    (ret = dlb2_port_open(dev, domain, "c", NULL, &c))) {
		setup_failed("dlb2_port_open", ret);
		goto out;
	}
	if (round_trip(p, c, qid, (unsigned int)n))
		goto out;
	dlb2_port_close(p);
	dlb2_port_close(c);
	p = c = NULL;
	if (own && (ret = dlb2_domain_destroy(dev, domain))) {
		setup_failed("dlb2_domain_destroy", ret);
		return 1;
	}
	printf("dlb2_%d/%s: %lu QEs from port p to port c through queue q, in order, data exact\n",
	       dev, domain, n);
	return 0;
out:
	dlb2_port_close(p);
	dlb2_port_close(c);
	if (own)
		dlb2_domain_destroy(dev, domain);
	return 1;
}
