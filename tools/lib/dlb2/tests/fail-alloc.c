// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Allocation failures (fail-alloc.h) for a program linked with
 * FAIL_ALLOC_LDFLAGS, -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc: every
 * allocation of its own objects, the library's among them, comes through
 * here.  libc's own allocations (stdio's, for one) do not.
 */
#include <stdlib.h>

#include "fail-alloc.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

long fail_alloc_count;
static long fail_at = -1;

void fail_alloc(long n)
{
	fail_alloc_count = 0;
	fail_at = n;
}

static int fail(void)
{
	return fail_alloc_count++ == fail_at;
}

void *__wrap_malloc(size_t size)
{
	return fail() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	return fail() ? NULL : __real_realloc(p, size);
}
