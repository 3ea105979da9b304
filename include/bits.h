/* SPDX-License-Identifier: MIT */
/*
 * Bit helpers: the one macro style used for every register field in the
 * project (BIT_ULL, GENMASK_ULL, FIELD_GET_ULL).
 */
#ifndef PMUTEST_BITS_H
#define PMUTEST_BITS_H

#include <stdint.h>

#define BIT_ULL(n) (1ULL << (n))

/* Bits h..l inclusive, h >= l, both in 0..63. */
#define GENMASK_ULL(h, l) ((~0ULL >> (63 - (h))) & (~0ULL << (l)))

/* Extract the field described by a GENMASK_ULL mask, shifted down to bit 0. */
#define FIELD_GET_ULL(mask, v) (((uint64_t)(v) & (mask)) >> __builtin_ctzll(mask))

/* Place a value into the field described by a mask. */
#define FIELD_PREP_ULL(mask, v) (((uint64_t)(v) << __builtin_ctzll(mask)) & (mask))

/* All ones in the low w bits (w in 0..64). */
static inline uint64_t width_mask(unsigned w)
{
	return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

/* The set bits of v. Not __builtin_popcountll: without POPCNT in the
 * target it calls libgcc's __popcountdi2, which the kernel does not link. */
static inline unsigned bits_set(uint64_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
