// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of domain-description checking (desc.c), part of
 * dlb2_kunit.ko.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "domain.h"

/*
 * A consistent domain: load-balanced queues "a" (atomic), "o" (ordered) and
 * "u" (unordered) served by ports "w0" (class 1) and "w1" (any class), and
 * a directed queue "d" served by directed port "dp".
 */
struct desc_fixture {
	struct dlb2_queue_desc q[4];
	struct dlb2_port_desc p[3];
	struct dlb2_domain_desc d;
	char why[160];
};

static void good_desc(struct desc_fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->q[0] = (struct dlb2_queue_desc){ .name = "a", .ldb = true,
		.sched = DLB2_Q_ATOMIC, .atomic_inflights = 64 };
	f->q[1] = (struct dlb2_queue_desc){ .name = "o", .ldb = true,
		.sched = DLB2_Q_ORDERED, .sns = 128, .atomic_inflights = 32 };
	f->q[2] = (struct dlb2_queue_desc){ .name = "u", .ldb = true,
		.sched = DLB2_Q_UNORDERED };
	f->q[3] = (struct dlb2_queue_desc){ .name = "d" };
	f->p[0] = (struct dlb2_port_desc){ .name = "w0", .ldb = true,
		.cq_depth = 64, .cos = 1, .num_links = 3,
		.link_queue = { 0, 1, 2 } };
	f->p[1] = (struct dlb2_port_desc){ .name = "w1", .ldb = true,
		.cq_depth = 16, .hist_list = 100, .cos = DLB2_ANY_COS,
		.num_links = 1, .link_queue = { 0 } };
	f->p[2] = (struct dlb2_port_desc){ .name = "dp", .cq_depth = 8,
		.num_links = 1, .link_queue = { 3 } };
	f->d = (struct dlb2_domain_desc){ .name = "dom", .ldb_credits = 100,
		.dir_credits = 50, .num_queues = 4, .queues = f->q,
		.num_ports = 3, .ports = f->p };
}

static int check(struct desc_fixture *f, bool v2_5)
{
	f->why[0] = '\0';
	return dlb2_domain_check(&f->d, v2_5, f->why, sizeof(f->why));
}

static void dlb2_desc_test_good(struct kunit *test)
{
	struct desc_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct dlb2_domain_req req;

	KUNIT_ASSERT_NOT_NULL(test, f);
	good_desc(f);
	KUNIT_EXPECT_EQ(test, check(f, false), 0);
	KUNIT_EXPECT_EQ(test, check(f, true), 0);

	dlb2_domain_req(&f->d, false, &req);
	KUNIT_EXPECT_EQ(test, req.ldb_queues, 3u);
	KUNIT_EXPECT_EQ(test, req.ldb_ports[1], 1u);
	KUNIT_EXPECT_EQ(test, req.ldb_ports[0], 0u);
	KUNIT_EXPECT_EQ(test, req.ldb_ports_any, 1u);
	KUNIT_EXPECT_EQ(test, req.dir_ports, 1u);
	/* 2 x 64 by default, plus the 100 asked for */
	KUNIT_EXPECT_EQ(test, req.hist_list_entries, 228u);
	KUNIT_EXPECT_EQ(test, req.atomic_inflights, 96u);
	KUNIT_EXPECT_EQ(test, req.ldb_credits, 100u);
	KUNIT_EXPECT_EQ(test, req.dir_credits, 50u);

	/* DLB 2.5: one pool holding both */
	dlb2_domain_req(&f->d, true, &req);
	KUNIT_EXPECT_EQ(test, req.ldb_credits, 150u);
	KUNIT_EXPECT_EQ(test, req.dir_credits, 0u);
}

/* Each inconsistency is refused with a reason naming it. */
static void dlb2_desc_test_refusals(struct kunit *test)
{
	struct desc_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);

	good_desc(f);
	f->d.num_ports = 0;
	KUNIT_EXPECT_EQ(test, check(f, false), -EINVAL);
	KUNIT_EXPECT_STREQ(test, f->why, "the domain has no ports");

	good_desc(f);
	f->p[2].num_links = 0;
	KUNIT_EXPECT_EQ(test, check(f, false), -EINVAL);
	KUNIT_EXPECT_STREQ(test, f->why,
			   "directed queue d is linked by 0 ports, not 1");

	good_desc(f);
	f->q[1].sns = 0;
	KUNIT_EXPECT_EQ(test, check(f, false), -EINVAL);
	KUNIT_EXPECT_STREQ(test, f->why, "ordered queue o has no sequence_numbers");

	good_desc(f);
	f->q[2].sns = 64;
	KUNIT_EXPECT_EQ(test, check(f, false), -EINVAL);
	KUNIT_EXPECT_STREQ(test, f->why,
			   "queue u has sequence_numbers but is not ordered");

	good_desc(f);
	f->q[0].atomic_inflights = 0;
	KUNIT_EXPECT_EQ(test, check(f, false), -EINVAL);
	KUNIT_EXPECT_STREQ(test, f->why, "atomic queue a has no atomic_inflights");

	good_desc(f);
	f->p[0].link_queue[2] = 3;	/* load-balanced port, directed queue */
	KUNIT_EXPECT_EQ(test, check(f, false), -EINVAL);
	KUNIT_EXPECT_STREQ(test, f->why,
			   "directed queue d is linked by 2 ports, not 1");

	good_desc(f);
	f->p[0].ldb = false;
	f->p[1].ldb = false;
	f->p[0].num_links = 0;
	f->p[1].num_links = 0;
	KUNIT_EXPECT_EQ(test, check(f, false), -EINVAL);
	KUNIT_EXPECT_STREQ(test, f->why,
			   "load-balanced queues need a load-balanced port");

	good_desc(f);
	f->d.ldb_credits = 0;
	KUNIT_EXPECT_EQ(test, check(f, false), -EINVAL);
	KUNIT_EXPECT_STREQ(test, f->why,
			   "the domain has load-balanced queues but ldb_credits is 0");
	/* On 2.5 one pool: directed credits serve every queue. */
	KUNIT_EXPECT_EQ(test, check(f, true), 0);
	f->d.dir_credits = 0;
	KUNIT_EXPECT_EQ(test, check(f, true), -EINVAL);
	KUNIT_EXPECT_STREQ(test, f->why, "the domain has queues but no credits");
}

static void dlb2_desc_test_type_mismatch(struct kunit *test)
{
	struct desc_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	good_desc(f);
	/* A directed port linking a load-balanced queue. */
	f->p[2].link_queue[0] = 2;
	f->q[3].ldb = true;
	f->q[3].atomic_inflights = 1;
	KUNIT_EXPECT_EQ(test, check(f, false), -EINVAL);
	KUNIT_EXPECT_STREQ(test, f->why,
			   "port dp and queue u are not of the same type");
}

static struct kunit_case dlb2_desc_test_cases[] = {
	KUNIT_CASE(dlb2_desc_test_good),
	KUNIT_CASE(dlb2_desc_test_refusals),
	KUNIT_CASE(dlb2_desc_test_type_mismatch),
	{}
};

static struct kunit_suite dlb2_desc_test_suite = {
	.name = "dlb2-desc",
	.test_cases = dlb2_desc_test_cases,
};

kunit_test_suite(dlb2_desc_test_suite);
