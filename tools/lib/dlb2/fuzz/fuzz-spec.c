// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: configuration files through the public entry point,
 * dlb2_spec_parse() (what dlb2_spec_load() and dlb2ctl apply call), on
 * arbitrary bytes.  Parse only: nothing is applied, nothing touches configfs
 * or sysfs.  Besides what the sanitizers catch, it checks that
 *  - a failure returns -EINVAL with no spec and a message that starts with
 *    the file name, and a message buffer of 1..16 bytes (allocated to its
 *    size, so that AddressSanitizer sees a write past it) gets the same
 *    message cut short;
 *  - a spec read has the shape the schema promises: at least one domain,
 *    valid names, links to queues of the domain, directed ports with at
 *    most one link (none: a producer-only port) and each directed queue
 *    linked by exactly one directed port;
 *  - with one of its allocations failing (tests/fail-alloc.c; which one, a
 *    hash of the input), the input is refused with -ENOMEM and "out of
 *    memory".
 * Everything allocated is freed (LeakSanitizer).
 */
#include <errno.h>
#include <string.h>

#include "libdlb2.h"
#include "fuzz.h"

#define NAME	"fuzz.json"

static void check_spec(const struct dlb2_spec *s)
{
	const struct dlb2_domain_spec *d;
	const struct dlb2_port_spec *p;
	int i, k, l, q;

	FUZZ_CHECK(s->ndomains >= 1);
	for (i = 0; i < s->ndomains; i++) {
		d = &s->domains[i];
		FUZZ_CHECK(dlb2_name_valid(d->name) && d->device >= 0);
		for (k = 0; k < d->nqueues; k++)
			FUZZ_CHECK(dlb2_name_valid(d->queues[k].name));
		for (k = 0; k < d->nports; k++) {
			p = &d->ports[k];
			FUZZ_CHECK(dlb2_name_valid(p->name));
			FUZZ_CHECK(p->nlinks >= 0 && p->nlinks <= DLB2_MAX_LINKS);
			FUZZ_CHECK(p->attr.type != DLB2_DIR || p->nlinks <= 1);
			for (l = 0; l < p->nlinks; l++) {
				for (q = 0; q < d->nqueues; q++)
					if (!strcmp(d->queues[q].name,
						    p->links[l].queue))
						break;
				FUZZ_CHECK(q < d->nqueues);
			}
		}
		for (q = 0; q < d->nqueues; q++) {
			if (d->queues[q].attr.type != DLB2_DIR)
				continue;
			l = 0;
			for (k = 0; k < d->nports; k++)
				l += d->ports[k].attr.type == DLB2_DIR &&
				     d->ports[k].nlinks == 1 &&
				     !strcmp(d->ports[k].links[0].queue,
					     d->queues[q].name);
			FUZZ_CHECK(l == 1);
		}
	}
}

static void check_oom(const uint8_t *data, size_t size, long allocs)
{
	struct dlb2_spec *s;
	char err[512];
	int ret;

	if (!allocs)
		return;
	fail_alloc(fail_alloc_pick(data, size, allocs));
	ret = dlb2_spec_parse((const char *)data, size, NAME, &s, err, sizeof(err));
	fail_alloc(-1);
	if (ret != -ENOMEM)
		fprintf(stderr, "%d: %s\n", ret, err);
	FUZZ_CHECK(ret == -ENOMEM && !s && !strcmp(err, NAME ": out of memory"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct dlb2_spec *s;
	size_t shortlen;
	char err[512], *short_err;
	int ret, ret2;

	fail_alloc(-1);
	ret = dlb2_spec_parse(text, size, NAME, &s, err, sizeof(err));
	check_oom(data, size, fail_alloc_count);
	if (!ret) {
		FUZZ_CHECK(s);
		check_spec(s);
		dlb2_spec_free(s);
		return 0;
	}
	FUZZ_CHECK(ret == -EINVAL && !s);
	FUZZ_CHECK(!strncmp(err, NAME ":", strlen(NAME ":")));

	shortlen = 1 + size % 16;
	short_err = malloc(shortlen);
	FUZZ_CHECK(short_err);
	ret2 = dlb2_spec_parse(text, size, NAME, &s, short_err, shortlen);
	FUZZ_CHECK(ret2 == ret && !s);
	FUZZ_CHECK(strlen(short_err) == shortlen - 1);
	FUZZ_CHECK(!strncmp(short_err, err, shortlen - 1));
	free(short_err);
	return 0;
}
