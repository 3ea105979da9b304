/* SPDX-License-Identifier: MIT */
/*
 * A little-endian field of boot data read byte by byte: the zero page, the
 * PVH start_info and the EFI tables a loader hands over are packed, and may
 * sit at any alignment, so no pointer cast reads them.
 */
#ifndef PMUTEST_BOOT_DIRECT_LE_H
#define PMUTEST_BOOT_DIRECT_LE_H

#include <stdint.h>

/* The `bytes` (1-8) bytes at base + off, least significant first. */
static inline uint64_t le_read(const void *base, unsigned off, int bytes)
{
	const uint8_t *p = (const uint8_t *)base + off;
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#endif
