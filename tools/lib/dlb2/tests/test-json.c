// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Configuration files: a full valid file read into the exact spec, the
 * JSON reader's corner cases, and errors (syntax, unknown key, wrong type,
 * out of range, inconsistent links, out of memory: fail-alloc.c) with
 * their exact messages.
 */
#include <stdlib.h>

#include "libdlb2.h"
#include "../internal.h"
#include "fail-alloc.h"
#include "tap.h"

static const char full[] =
	"{\n"
	"  \"device\": 1,\n"
	"  \"domains\": [\n"
	"    {\n"
	"      \"name\": \"pipeline\",\n"
	"      \"ldb_credits\": 2048,\n"
	"      \"dir_credits\": 1024,\n"
	"      \"queues\": [\n"
	"        { \"name\": \"rx\", \"sched\": \"ordered\", \"sequence_numbers\": 128,\n"
	"          \"depth_threshold\": 512 },\n"
	"        { \"name\": \"flows\", \"atomic_inflights\": 256,\n"
	"          \"lock_id_compression\": 4096 },\n"
	"        { \"name\": \"tx\", \"type\": \"dir\" }\n"
	"      ],\n"
	"      \"ports\": [\n"
	"        { \"name\": \"w0\", \"cq_depth\": 128, \"history_list\": 256,\n"
	"          \"wait_mode\": \"interrupt\", \"cos\": 2,\n"
	"          \"links\": [ \"rx\", { \"queue\": \"flows\", \"priority\": 3 } ] },\n"
	"        { \"name\": \"w1\", \"cos\": \"any\", \"links\": [ \"flows\" ] },\n"
	"        { \"name\": \"out\", \"type\": \"dir\", \"cq_depth\": 8, \"links\": [ \"tx\" ] }\n"
	"      ]\n"
	"    },\n"
	"    { \"name\": \"idle\", \"device\": 0, \"enable\": false }\n"
	"  ]\n"
	"}\n";

static struct dlb2_spec *parse(const char *text, char *err, size_t len, int *ret)
{
	struct dlb2_spec *s = NULL;

	*ret = dlb2_spec_parse(text, strlen(text), "t.json", &s, err, len);
	return s;
}

static void full_file(void)
{
	const struct dlb2_domain_spec *d;
	const struct dlb2_port_spec *p;
	struct dlb2_spec *s;
	char err[256] = "";
	int ret;

	s = parse(full, err, sizeof(err), &ret);
	CHECK_EQ(ret, 0);
	CHECK_STR(err, "");
	if (!s)
		return;
	CHECK_EQ(s->ndomains, 2);
	d = &s->domains[0];
	CHECK_STR(d->name, "pipeline");
	CHECK_EQ(d->device, 1);
	CHECK_EQ(d->ldb_credits, 2048);
	CHECK_EQ(d->dir_credits, 1024);
	CHECK_EQ(d->enable, true);
	CHECK_EQ(d->nqueues, 3);
	CHECK_STR(d->queues[0].name, "rx");
	CHECK_EQ(d->queues[0].attr.type, DLB2_UNSET);
	CHECK_EQ(d->queues[0].attr.sched, DLB2_QORDERED);
	CHECK_EQ(d->queues[0].attr.sequence_numbers, 128);
	CHECK_EQ(d->queues[0].attr.depth_threshold, 512);
	CHECK_EQ(d->queues[0].attr.atomic_inflights, DLB2_UNSET);
	CHECK_EQ(d->queues[1].attr.atomic_inflights, 256);
	CHECK_EQ(d->queues[1].attr.lock_id_compression, 4096);
	CHECK_EQ(d->queues[1].attr.sched, DLB2_UNSET);
	CHECK_EQ(d->queues[2].attr.type, DLB2_DIR);
	CHECK_EQ(d->nports, 3);
	p = &d->ports[0];
	CHECK_STR(p->name, "w0");
	CHECK_EQ(p->attr.type, DLB2_UNSET);
	CHECK_EQ(p->attr.cq_depth, 128);
	CHECK_EQ(p->attr.history_list, 256);
	CHECK_EQ(p->attr.wait_mode, DLB2_WAIT_INTERRUPT);
	CHECK_EQ(p->attr.cos, 2);
	CHECK_EQ(p->nlinks, 2);
	CHECK_STR(p->links[0].queue, "rx");
	CHECK_EQ(p->links[0].priority, DLB2_UNSET);
	CHECK_STR(p->links[1].queue, "flows");
	CHECK_EQ(p->links[1].priority, 3);
	CHECK_EQ(d->ports[1].attr.cos, DLB2_COS_ANY);
	CHECK_EQ(d->ports[1].attr.cq_depth, DLB2_UNSET);
	CHECK_EQ(d->ports[2].attr.type, DLB2_DIR);
	CHECK_EQ(d->ports[2].nlinks, 1);
	CHECK_STR(d->ports[2].links[0].queue, "tx");
	d = &s->domains[1];
	CHECK_STR(d->name, "idle");
	CHECK_EQ(d->device, 0);
	CHECK_EQ(d->enable, false);
	CHECK_EQ(d->nqueues, 0);
	CHECK_EQ(d->nports, 0);
	CHECK_EQ(d->ldb_credits, DLB2_UNSET);
	dlb2_spec_free(s);
}

static void json_reader(void)
{
	struct json *j;
	char err[128];

	static const char text[] =
		"[\"a\\u00e9\\ud83d\\ude00\\n\\\"\", -9223372036854775808, 1.5e3, true, null]";

	j = json_parse(text, strlen(text), err, sizeof(err));
	CHECK(j);
	if (!j)
		return;
	CHECK_EQ(j->n, 5);
	CHECK_STR(j->v[0]->s, "a\xc3\xa9\xf0\x9f\x98\x80\n\"");
	CHECK_EQ(j->v[1]->type, JSON_INT);
	CHECK(j->v[1]->i == (-9223372036854775807LL - 1));
	CHECK_EQ(j->v[2]->type, JSON_NUM);
	CHECK_EQ(j->v[3]->b, true);
	CHECK_EQ(j->v[4]->type, JSON_NULL);
	json_free(j);
}

/* Exact message of a failing parse of @len bytes. */
static void expect_len(const char *text, size_t len, const char *msg)
{
	struct dlb2_spec *s = NULL;
	char err[256] = "";
	int ret;

	ret = dlb2_spec_parse(text, len, "t.json", &s, err, sizeof(err));
	CHECK_EQ(ret, -EINVAL);
	CHECK(!s);
	CHECK_STR(err, msg);
}

static void expect(const char *text, const char *msg)
{
	expect_len(text, strlen(text), msg);
}

static void syntax_errors(void)
{
	expect("", "t.json:1:1: unexpected end of input");
	expect("{\"domains\": [}", "t.json:1:14: unexpected character '}'");
	expect("{\"domains\": [],}", "t.json:1:16: expected a key in quotes");
	expect("{\n  \"a\": 1,\n  \"a\": 2 }", "t.json:3:6: duplicate key \"a\"");
	expect("{\"x\": \"abc", "t.json:1:11: unterminated string");
	expect("{\"x\": 12a}", "t.json:1:9: expected ',' or '}'");
	expect("{\"x\": 99999999999999999999}", "t.json:1:7: integer out of range");
	expect("{\"x\": \"\\ud800\"}", "t.json:1:14: bad \\u escape in string");
	expect("{} {}", "t.json:1:4: trailing characters after the value");
	/* a NUL byte is no white space (it was, found by fuzz-json) */
	expect_len("{}\0", 3, "t.json:1:3: trailing characters after the value");
	expect_len("[1,\0 2]", 7, "t.json:1:4: unexpected byte 0x00");
	expect("[\x7f]", "t.json:1:2: unexpected byte 0x7f");
	expect("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	       "t.json:1:33: nested too deep");
}

#define DOM(body)	"{\"domains\": [{\"name\": \"d\", " body "}]}"

static void schema_errors(void)
{
	expect("[]", "t.json:1:1: expected an object, found an array");
	expect("{\"domain\": []}",
	       "t.json:1:12: unknown key \"domain\" (known: device, domains)");
	expect("{\"domains\": []}", "t.json:1:13: no domains");
	expect("{\"domains\": [{}]}", "t.json:1:14: domains[0]: \"name\" is missing");
	expect("{\"domains\": [{\"name\": \"a b\"}]}",
	       "t.json:1:23: domains[0].name: \"a b\" is not a name (1..32 characters of A-Z a-z 0-9 _ . -)");
	expect(DOM("\"queues\": [{\"name\": \"q\", \"shed\": \"atomic\"}]"),
	       "t.json:1:61: domains[0].queues[0]: unknown key \"shed\" (known: name, type, sched, depth_threshold, sequence_numbers, atomic_inflights, lock_id_compression)");
	expect(DOM("\"ldb_credits\": \"2048\""),
	       "t.json:1:43: domains[0].ldb_credits: expected an integer, found a string");
	expect(DOM("\"ldb_credits\": 20000"),
	       "t.json:1:43: domains[0].ldb_credits: 20000 is out of range 0..16384");
	expect(DOM("\"enable\": 1"),
	       "t.json:1:38: domains[0].enable: expected a boolean, found an integer");
	expect(DOM("\"queues\": {}"),
	       "t.json:1:38: domains[0].queues: expected an array, found an object");
	expect(DOM("\"queues\": [{\"name\": \"q\", \"sched\": \"fifo\"}]"),
	       "t.json:1:62: domains[0].queues[0].sched: \"fifo\" is not one of atomic, ordered, unordered");
	expect(DOM("\"queues\": [{\"name\": \"q\", \"sequence_numbers\": 100}]"),
	       "t.json:1:73: domains[0].queues[0].sequence_numbers: 100 is not one of 0, 64, 128, 256, 512, 1024");
	expect(DOM("\"queues\": [{\"name\": \"q\", \"depth_threshold\": 1.5}]"),
	       "t.json:1:72: domains[0].queues[0].depth_threshold: expected an integer, found a number");
	expect(DOM("\"queues\": [{\"name\": \"q\", \"type\": \"dir\", \"sched\": \"atomic\"}]"),
	       "t.json:1:77: domains[0].queues[0].sched: only for load-balanced queues");
	expect(DOM("\"ports\": [{\"name\": \"p\", \"cq_depth\": 2048}]"),
	       "t.json:1:64: domains[0].ports[0].cq_depth: 2048 is out of range 1..1024");
	expect(DOM("\"ports\": [{\"name\": \"p\", \"cq_depth\": 48}]"),
	       "t.json:1:64: domains[0].ports[0].cq_depth: 48 is not a power of two");
	expect(DOM("\"ports\": [{\"name\": \"p\", \"cos\": 4}]"),
	       "t.json:1:59: domains[0].ports[0].cos: 4 is out of range 0..3");
	expect(DOM("\"ports\": [{\"name\": \"p\", \"cos\": true}]"),
	       "t.json:1:59: domains[0].ports[0].cos: expected 0..3 or \"any\", found a boolean");
	expect(DOM("\"ports\": [{\"name\": \"p\", \"wait_mode\": \"sleep\"}]"),
	       "t.json:1:65: domains[0].ports[0].wait_mode: \"sleep\" is not one of poll, interrupt");
	expect(DOM("\"queues\": [{\"name\": \"q\"}], \"ports\": [{\"name\": \"p\", \"links\": [{\"queue\": \"q\", \"priority\": 8}]}]"),
	       "t.json:1:116: domains[0].ports[0].links[0].priority: 8 is out of range 0..7");
	expect(DOM("\"queues\": [{\"name\": \"q\"}, {\"name\": \"q\"}]"),
	       "t.json:1:54: domains[0].queues[1]: queue \"q\" defined twice");
}

static void link_errors(void)
{
	expect(DOM("\"ports\": [{\"name\": \"p\", \"links\": [\"nope\"]}]"),
	       "t.json:1:62: domains[0].ports[0].links[0]: no queue \"nope\" in domain \"d\"");
	expect(DOM("\"queues\": [{\"name\": \"q\", \"type\": \"dir\"}], \"ports\": [{\"name\": \"p\", \"links\": [\"q\"]}]"),
	       "t.json:1:104: domains[0].ports[0].links[0]: port \"p\" is load-balanced, queue \"q\" is directed");
	expect(DOM("\"queues\": [{\"name\": \"q\"}], \"ports\": [{\"name\": \"p\", \"links\": [\"q\", \"q\"]}]"),
	       "t.json:1:94: domains[0].ports[0].links[1]: queue \"q\" linked twice");
	expect(DOM("\"queues\": [{\"name\": \"q\", \"type\": \"dir\"}], \"ports\": [{\"name\": \"p\", \"type\": \"dir\"}]"),
	       "t.json:1:14: domains[0]: directed queue \"q\" is linked by 0 directed ports, needs exactly 1");
	expect(DOM("\"queues\": [{\"name\": \"q\", \"type\": \"dir\"}]"),
	       "t.json:1:14: domains[0]: directed queue \"q\" is linked by 0 directed ports, needs exactly 1");
	expect(DOM("\"queues\": [{\"name\": \"q\"}], \"ports\": [{\"name\": \"p\", \"links\": [\"q\",\"q\",\"q\",\"q\",\"q\",\"q\",\"q\",\"q\",\"q\"]}]"),
	       "t.json:1:121: domains[0].ports[0].links: a load-balanced port links at most 8 queues");
}

/*
 * A directed port without a link is a producer only, as configfs takes it
 * (Documentation/userspace-api/dlb2.rst) and as save writes it back.
 */
static void unlinked_directed_port(void)
{
	struct dlb2_spec *s;
	char err[256] = "";
	int ret;

	s = parse(DOM("\"ports\": [{\"name\": \"p\", \"type\": \"dir\"}]"),
		  err, sizeof(err), &ret);
	CHECK_EQ(ret, 0);
	CHECK_STR(err, "");
	if (!s)
		return;
	CHECK_EQ(s->domains[0].nports, 1);
	CHECK_EQ(s->domains[0].ports[0].attr.type, DLB2_DIR);
	CHECK_EQ(s->domains[0].ports[0].nlinks, 0);
	dlb2_spec_free(s);
}

/*
 * The full file with each of its allocations failing in turn, the reader's
 * and the parser's: -ENOMEM and "out of memory" each time (one in the
 * reader gave -EINVAL and "t.json:L:C: out of memory"; found by fuzz-spec).
 */
static void out_of_memory(void)
{
	struct dlb2_spec *s;
	char err[256];
	long n, allocs;
	int ret;

	for (n = 0;; n++) {
		fail_alloc(n);
		ret = dlb2_spec_parse(full, strlen(full), "t.json", &s, err,
				      sizeof(err));
		allocs = fail_alloc_count;
		fail_alloc(-1);
		if (allocs <= n)	/* none failed */
			break;
		CHECK_EQ(ret, -ENOMEM);
		CHECK(!s);
		CHECK_STR(err, "t.json: out of memory");
		if (ret != -ENOMEM || s)
			return;
	}
	CHECK_EQ(ret, 0);
	CHECK(n > 100);
	dlb2_spec_free(s);
}

static void load_file(void)
{
	struct dlb2_spec *s;
	char err[256];
	int ret;

	ret = dlb2_spec_load("/nonexistent/x.json", &s, err, sizeof(err));
	CHECK_EQ(ret, -ENOENT);
	CHECK_STR(err, "/nonexistent/x.json: No such file or directory");
	CHECK(!s);
}

int main(void)
{
	RUN(full_file);
	RUN(json_reader);
	RUN(syntax_errors);
	RUN(schema_errors);
	RUN(link_errors);
	RUN(unlinked_directed_port);
	RUN(out_of_memory);
	RUN(load_file);
	return tap_done();
}
