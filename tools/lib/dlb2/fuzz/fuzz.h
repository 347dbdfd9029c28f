/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fuzz targets' entry point, called by libFuzzer (fuzz-*, clang) or by
 * replay.c (replay-*, any compiler); the check that makes a broken
 * property a crash that both report with the input; allocation failures.
 */
#ifndef DLB2_FUZZ_H
#define DLB2_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../tests/fail-alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Which of @n allocations an input makes fail: a hash of its bytes. */
static inline long fail_alloc_pick(const uint8_t *data, size_t size, long n)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	size_t i;

	for (i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	return (long)(h % (uint32_t)n);
}

#define FUZZ_CHECK(c) do {						\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n",	\
			__FILE__, __LINE__, #c);			\
		abort();						\
	}								\
} while (0)

#endif /* DLB2_FUZZ_H */
