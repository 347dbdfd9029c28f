/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Allocation failures, as on a machine out of memory, for the unit tests
 * and the fuzz targets (fail-alloc.c; the program is linked with
 * FAIL_ALLOC_LDFLAGS).  fail_alloc(N) restarts the count of allocations,
 * fail_alloc_count, and makes the Nth from then on (from 0) fail; none
 * when N < 0.
 */
#ifndef DLB2_FAIL_ALLOC_H
#define DLB2_FAIL_ALLOC_H

extern long fail_alloc_count;
void fail_alloc(long n);

#endif /* DLB2_FAIL_ALLOC_H */
