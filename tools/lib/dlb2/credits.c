// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libdlb2: the software mirror of the domain's device credit pools.
 *
 * The credit page holds one 64-bit counter of free device credits per pool.
 * A producer takes up to `quanta` credits at a time into its port's cache
 * with compare-and-swap (never below zero, so the device never sees an
 * enqueue without a credit), and spends one per QE.  The device gives a
 * credit back to its pool when it schedules the QE to a CQ; the consumer
 * that dequeues it mirrors that by adding one to its cache, and gives the
 * surplus back (cache >= 2 * quanta: all but quanta).
 */
#include "internal.h"

uint64_t dlb2_credits_refill(struct dlb2_port *p, unsigned int pool)
{
	uint64_t *ctr = p->pool[pool];
	uint64_t avail, take;

	avail = __atomic_load_n(ctr, __ATOMIC_RELAXED);
	do {
		if (!avail)
			return 0;
		take = avail < p->quanta ? avail : p->quanta;
	} while (!__atomic_compare_exchange_n(ctr, &avail, avail - take, false,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	p->cache[pool] += take;
	return take;
}

void dlb2_credits_put(struct dlb2_port *p, unsigned int pool, uint64_t n)
{
	if (!n)
		return;
	p->cache[pool] -= n;
	__atomic_fetch_add(p->pool[pool], n, __ATOMIC_RELEASE);
}

void dlb2_credits_flush(struct dlb2_port *p)
{
	unsigned int i;

	for (i = 0; i < p->info.num_pools; i++)
		dlb2_credits_put(p, i, p->cache[i]);
}

/*
 * Many empty dequeues in a row: this port consumes, it does not produce,
 * so the credits it collected are better off in the pool.
 */
void dlb2_dequeue_idle(struct dlb2_port *p)
{
	p->idle = 0;
	dlb2_credits_flush(p);
}
