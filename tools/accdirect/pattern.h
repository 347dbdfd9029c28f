/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test payloads of accdirect-client and accdirect-server: request seq's
 * size (64..slot_size, a multiple of 8) and the 8-byte words it is made
 * of, so that the server checks every byte and answers with seq.
 */
#ifndef ACCDIRECT_PATTERN_H
#define ACCDIRECT_PATTERN_H

#include <stdint.h>

static inline uint32_t accd_payload_size(uint64_t seq, uint32_t slot_size)
{
	return 64 + (uint32_t)(seq * 72) % (slot_size - 64 + 8) / 8 * 8;
}

static inline uint64_t accd_payload_word(uint64_t seq, uint32_t i)
{
	return (seq << 16) ^ i ^ 0xacd0000000000000ull;
}

#endif /* ACCDIRECT_PATTERN_H */
