/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fuzz targets' entry point, called by libFuzzer (fuzz-*, clang) or by
 * replay.c (replay-*, any compiler), and the check that makes a broken
 * property a crash that both report with the input.
 */
#ifndef DLB2_FUZZ_H
#define DLB2_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(c) do {						\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n",	\
			__FILE__, __LINE__, #c);			\
		abort();						\
	}								\
} while (0)

#endif /* DLB2_FUZZ_H */
