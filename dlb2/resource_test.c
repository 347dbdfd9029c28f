// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the DLB resource allocator (resource.c), built as the
 * module dlb2_kunit.ko; the tests run when it is loaded.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "compat.h"
#include "resource.h"

static void dlb2_res_test_init(struct kunit *test)
{
	struct dlb2_resources r;

	dlb2_resources_init(&r, false);
	KUNIT_EXPECT_EQ(test, r.num_dir_ports, 64u);
	KUNIT_EXPECT_EQ(test, r.ldb_credits, 8192u);
	KUNIT_EXPECT_EQ(test, r.dir_credits, 4096u);
	KUNIT_EXPECT_EQ(test, bitmap_weight(r.dir_ports, DLB2_MAX_DIR_PORTS), 64u);
	dlb2_resources_init(&r, true);
	KUNIT_EXPECT_EQ(test, r.num_dir_ports, 96u);
	KUNIT_EXPECT_EQ(test, r.ldb_credits, 16384u);
	KUNIT_EXPECT_EQ(test, r.dir_credits, 0u);
	KUNIT_EXPECT_EQ(test, bitmap_weight(r.dir_ports, DLB2_MAX_DIR_PORTS), 96u);
	KUNIT_EXPECT_EQ(test, bitmap_weight(r.hist_list, DLB2_HIST_LIST_ENTRIES),
			(unsigned int)DLB2_HIST_LIST_ENTRIES);
}

/* A request that cannot be met changes nothing. */
static void dlb2_res_test_all_or_nothing(struct kunit *test)
{
	struct dlb2_domain_req req = {
		.ldb_queues = 2, .ldb_ports_any = 2, .dir_ports = 65,
		.ldb_credits = 100, .hist_list_entries = 64,
	};
	struct dlb2_resources r, before;
	struct dlb2_domain_res d;

	dlb2_resources_init(&r, false);
	before = r;
	KUNIT_EXPECT_EQ(test, dlb2_domain_alloc(&r, &req, &d), -ENOSPC);
	KUNIT_EXPECT_EQ(test, memcmp(&r, &before, sizeof(r)), 0);
	req.dir_ports = 64;
	KUNIT_ASSERT_EQ(test, dlb2_domain_alloc(&r, &req, &d), 0);
	KUNIT_EXPECT_EQ(test, bitmap_weight(d.dir_ports, DLB2_MAX_DIR_PORTS), 64u);
	KUNIT_EXPECT_EQ(test, bitmap_weight(d.ldb_queues, DLB2_MAX_LDB_QUEUES), 2u);
	KUNIT_EXPECT_EQ(test, r.ldb_credits, 8192u - 100);
	dlb2_domain_free(&r, &d);
	KUNIT_EXPECT_EQ(test, memcmp(&r, &before, sizeof(r)), 0);
}

static void dlb2_res_test_invalid(struct kunit *test)
{
	struct dlb2_domain_req dir_credits_on_2_5 = { .dir_credits = 1 };
	struct dlb2_domain_req queues_without_ports = { .ldb_queues = 1 };
	struct dlb2_resources r;
	struct dlb2_domain_res d;

	dlb2_resources_init(&r, true);
	KUNIT_EXPECT_EQ(test, dlb2_domain_alloc(&r, &dir_credits_on_2_5, &d),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, dlb2_domain_alloc(&r, &queues_without_ports, &d),
			-EINVAL);
}

/* 32 domains; the 33rd fails; a freed id is handed out again. */
static void dlb2_res_test_domains(struct kunit *test)
{
	struct dlb2_domain_req req = { .dir_ports = 1 };
	struct dlb2_domain_res *d, extra;
	struct dlb2_resources r;
	unsigned int i;

	d = kunit_kcalloc(test, DLB2_MAX_DOMAINS, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	dlb2_resources_init(&r, false);
	for (i = 0; i < DLB2_MAX_DOMAINS; i++) {
		KUNIT_ASSERT_EQ(test, dlb2_domain_alloc(&r, &req, &d[i]), 0);
		KUNIT_EXPECT_EQ(test, d[i].id, i);
	}
	KUNIT_EXPECT_EQ(test, dlb2_domain_alloc(&r, &req, &extra), -ENOSPC);
	dlb2_domain_free(&r, &d[7]);
	KUNIT_ASSERT_EQ(test, dlb2_domain_alloc(&r, &req, &extra), 0);
	KUNIT_EXPECT_EQ(test, extra.id, 7u);
}

/* History-list ranges are contiguous: free entries in two holes do not fit. */
static void dlb2_res_test_hist_list(struct kunit *test)
{
	struct dlb2_domain_req a = { .hist_list_entries = 1000 };
	struct dlb2_domain_req c = { .hist_list_entries = 1048 };
	struct dlb2_domain_res da, db, dc;
	struct dlb2_resources r;

	dlb2_resources_init(&r, false);
	KUNIT_ASSERT_EQ(test, dlb2_domain_alloc(&r, &a, &da), 0);
	KUNIT_ASSERT_EQ(test, dlb2_domain_alloc(&r, &a, &db), 0);
	KUNIT_EXPECT_EQ(test, da.hist_list_base, 0u);
	KUNIT_EXPECT_EQ(test, db.hist_list_base, 1000u);
	dlb2_domain_free(&r, &da);
	/* 1048 entries are free, but as 1000 + 48. */
	KUNIT_EXPECT_EQ(test, dlb2_domain_alloc(&r, &c, &dc), -ENOSPC);
	KUNIT_ASSERT_EQ(test, dlb2_domain_alloc(&r, &a, &dc), 0);
	KUNIT_EXPECT_EQ(test, dc.hist_list_base, 0u);
}

/* LDB ports come from their class of service (16 per class). */
static void dlb2_res_test_cos(struct kunit *test)
{
	struct dlb2_domain_req req = { .ldb_ports = { [2] = 17 } };
	struct dlb2_resources r;
	struct dlb2_domain_res d;

	dlb2_resources_init(&r, false);
	KUNIT_EXPECT_EQ(test, dlb2_domain_alloc(&r, &req, &d), -ENOSPC);
	req.ldb_ports[2] = 16;
	KUNIT_ASSERT_EQ(test, dlb2_domain_alloc(&r, &req, &d), 0);
	KUNIT_EXPECT_EQ(test, find_first_bit(d.ldb_ports, DLB2_MAX_LDB_PORTS), 32ul);
	KUNIT_EXPECT_EQ(test, bitmap_weight(d.ldb_ports, DLB2_MAX_LDB_PORTS), 16u);
}

static void dlb2_res_test_sn_slots(struct kunit *test)
{
	struct dlb2_resources r;
	unsigned int g, s, i;

	dlb2_resources_init(&r, false);
	KUNIT_EXPECT_EQ(test, dlb2_sn_slot_alloc(&r, 32, &g, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, dlb2_sn_slot_alloc(&r, 100, &g, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, dlb2_sn_slot_alloc(&r, 2048, &g, &s), -EINVAL);
	for (i = 0; i < 16; i++) {
		KUNIT_ASSERT_EQ(test, dlb2_sn_slot_alloc(&r, 64, &g, &s), 0);
		KUNIT_EXPECT_EQ(test, g, 0u);
		KUNIT_EXPECT_EQ(test, s, i);
	}
	/* Group 0 is full of 64-SN queues; group 1 takes 1024 SNs. */
	KUNIT_ASSERT_EQ(test, dlb2_sn_slot_alloc(&r, 1024, &g, &s), 0);
	KUNIT_EXPECT_EQ(test, g, 1u);
	KUNIT_EXPECT_EQ(test, s, 0u);
	KUNIT_EXPECT_EQ(test, dlb2_sn_slot_alloc(&r, 64, &g, &s), -ENOSPC);
	/* An emptied group takes another size. */
	dlb2_sn_slot_free(&r, 1, 0);
	KUNIT_ASSERT_EQ(test, dlb2_sn_slot_alloc(&r, 128, &g, &s), 0);
	KUNIT_EXPECT_EQ(test, g, 1u);
	KUNIT_EXPECT_EQ(test, r.sn_mode[1], 1);
}

/* A failed allocation names what the device lacks. */
static void dlb2_res_test_lacks(struct kunit *test)
{
	struct dlb2_domain_req req = { .ldb_queues = 1, .ldb_ports_any = 1 };
	struct dlb2_domain_res d1, d2;
	struct dlb2_resources r;

	dlb2_resources_init(&r, false);
	KUNIT_EXPECT_EQ(test, dlb2_hist_list_max_free(&r), 2048u);
	req.dir_credits = 5000;
	KUNIT_EXPECT_EQ(test, dlb2_domain_alloc(&r, &req, &d1), -ENOSPC);
	KUNIT_EXPECT_STREQ(test, dlb2_domain_lacks(&r, &req), "directed credits");
	req.dir_credits = 0;
	req.ldb_ports[2] = 17;
	KUNIT_EXPECT_STREQ(test, dlb2_domain_lacks(&r, &req),
			   "load-balanced ports of the class of service");
	req.ldb_ports[2] = 0;

	/* Free 2048 entries, but not contiguous: 1000 | hole 48 | 1000. */
	req.hist_list_entries = 1000;
	KUNIT_ASSERT_EQ(test, dlb2_domain_alloc(&r, &req, &d1), 0);
	req.hist_list_entries = 48;
	KUNIT_ASSERT_EQ(test, dlb2_domain_alloc(&r, &req, &d2), 0);
	req.hist_list_entries = 1000;
	KUNIT_ASSERT_EQ(test, dlb2_domain_alloc(&r, &req, &d1), 0);
	dlb2_domain_free(&r, &d2);
	KUNIT_EXPECT_EQ(test, dlb2_hist_list_max_free(&r), 48u);
	req.hist_list_entries = 49;
	KUNIT_EXPECT_EQ(test, dlb2_domain_alloc(&r, &req, &d2), -ENOSPC);
	KUNIT_EXPECT_STREQ(test, dlb2_domain_lacks(&r, &req),
			   "contiguous history-list entries");
}

static struct kunit_case dlb2_res_test_cases[] = {
	KUNIT_CASE(dlb2_res_test_init),
	KUNIT_CASE(dlb2_res_test_all_or_nothing),
	KUNIT_CASE(dlb2_res_test_invalid),
	KUNIT_CASE(dlb2_res_test_domains),
	KUNIT_CASE(dlb2_res_test_hist_list),
	KUNIT_CASE(dlb2_res_test_cos),
	KUNIT_CASE(dlb2_res_test_sn_slots),
	KUNIT_CASE(dlb2_res_test_lacks),
	{}
};

static struct kunit_suite dlb2_res_test_suite = {
	.name = "dlb2-resource",
	.test_cases = dlb2_res_test_cases,
};

kunit_test_suite(dlb2_res_test_suite);

MODULE_DESCRIPTION("KUnit tests of the Intel DLB 2.0/2.5 resource allocator and domain checks");
MODULE_LICENSE("GPL");
DLB2_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
