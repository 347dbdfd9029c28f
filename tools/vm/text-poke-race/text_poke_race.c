// SPDX-License-Identifier: GPL-2.0
/*
 * text_poke_race: toggle a static key while the other CPUs run the branch
 * it patches, to show whether the machine (here: QEMU's TCG) ever lets a
 * CPU execute the int3 that text_poke_bp() writes transiently, after the
 * patch has ended.  On hardware, and on an emulator that keeps its
 * translations coherent with cross-modifying code, it never does and the
 * module loads; otherwise a CPU traps on an int3 that no patch explains
 * ("Oops: int3") and, with oops=panic, the VM dies.
 *
 * Parameters: toggles (enable+disable pairs, default 20000); the runners
 * are one kthread per other online CPU.  The result is printed and the
 * module stays loaded only long enough to report: init returns -EAGAIN on
 * success so that nothing needs unloading (the message says "done").
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

static unsigned int toggles = 20000;
module_param(toggles, uint, 0444);
MODULE_PARM_DESC(toggles, "enable/disable pairs of the static key");

static DEFINE_STATIC_KEY_FALSE(race_key);
static atomic_t stop;
static atomic_long_t taken;

/* The patched site: one jump label, run in a tight loop by the runners. */
static noinline int race_site(void)
{
	if (static_branch_unlikely(&race_key))
		return 1;
	return 0;
}

static int race_runner(void *arg)
{
	unsigned long n = 0, i = 0;

	while (!atomic_read(&stop)) {
		n += race_site();
		if (!(++i & 0xfff))
			cond_resched();
	}
	atomic_long_add(n, &taken);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int __init text_poke_race_init(void)
{
	struct task_struct **runners;
	unsigned int cpu, nr = 0, i;

	runners = kcalloc(nr_cpu_ids, sizeof(*runners), GFP_KERNEL);
	if (!runners)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (cpu == raw_smp_processor_id())
			continue;
		t = kthread_create_on_cpu(race_runner, NULL, cpu, "poke_race/%u");
		if (IS_ERR(t))
			continue;
		runners[nr++] = t;
		wake_up_process(t);
	}
	pr_info("text_poke_race: %u toggles, %u runner CPUs\n", toggles, nr);
	for (i = 0; i < toggles; i++) {
		static_branch_enable(&race_key);
		static_branch_disable(&race_key);
		cond_resched();
	}
	atomic_set(&stop, 1);
	for (i = 0; i < nr; i++)
		kthread_stop(runners[i]);
	kfree(runners);
	pr_info("text_poke_race: done: %u toggles, %u runners, %ld branches taken, no stale int3\n",
		toggles, nr, atomic_long_read(&taken));
	return -EAGAIN;
}
module_init(text_poke_race_init);

MODULE_DESCRIPTION("Cross-modifying code check of the VM harness (static key toggles)");
MODULE_LICENSE("GPL");
