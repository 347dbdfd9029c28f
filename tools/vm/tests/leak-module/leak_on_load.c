// SPDX-License-Identifier: GPL-2.0
/*
 * Leaks 64 allocations when loaded: the leak that
 * tools/vm/tests/kernel-log-check-leak makes as its command's last step,
 * for guest/kernel-log-check's kmemleak scans to report.  Not for any
 * other use; it cannot be unloaded.
 */
#include <linux/module.h>
#include <linux/slab.h>

#define LEAK_ON_LOAD_OBJECTS 64

/*
 * Many objects, zeroed so that their checksums do not change: stale copies
 * of pointers (on stacks kmemleak scans) hide some of them from a scan (4
 * of 8 in one run), not most.
 */
static int __init leak_on_load_init(void)
{
	int i;

	for (i = 0; i < LEAK_ON_LOAD_OBJECTS; i++)
		if (!kzalloc(256, GFP_KERNEL))
			return -ENOMEM;
	pr_info("leak_on_load: %d objects of 256 bytes allocated and forgotten\n",
		LEAK_ON_LOAD_OBJECTS);
	return 0;
}
module_init(leak_on_load_init);

MODULE_DESCRIPTION("A deliberate kmemleak finding for the harness's log check");
MODULE_LICENSE("GPL");
