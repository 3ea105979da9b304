/* SPDX-License-Identifier: MIT */
/*
 * The cache sizes the RDT value checks size their buffers by (suites/rdt.c,
 * suites/rdt_cat.c).
 */
#ifndef PMUTEST_TESTS_RDT_CACHE_H
#define PMUTEST_TESTS_RDT_CACHE_H

#include "arch.h"
#include "test.h"

/* Sizes of the L2 and of the last-level cache from the deterministic cache
 * parameters (CPUID.04H on Intel, CPUID.8000001DH on AMD: same layout,
 * Vol. 2A CPUID / APM Vol. 3 E.4.15): ways x partitions x line x sets. */
struct cache_sizes {
	uint64_t l2, llc;
	unsigned llc_level;
};

static inline struct cache_sizes cache_sizes(void)
{
	uint32_t leaf = caps()->vendor == VENDOR_INTEL ? 4 : 0x8000001D;
	struct cache_sizes cs = {0, 0, 0};
	struct cpuid_regs r;

	for (uint32_t sub = 0; sub < 16; sub++) {
		unsigned type, level;
		uint64_t size;

		arch_cpuid(leaf, sub, &r);
		type = r.eax & 0x1F;
		if (!type)
			break;
		level = (r.eax >> 5) & 7;
		size = (uint64_t)((r.ebx >> 22) + 1) * (((r.ebx >> 12) & 0x3FF) + 1) *
		       ((r.ebx & 0xFFF) + 1) * ((uint64_t)r.ecx + 1);
		if (type == 1) /* data only */
			continue;
		if (level == 2)
			cs.l2 = size;
		if (level >= cs.llc_level && level >= 2) {
			cs.llc = size;
			cs.llc_level = level;
		}
	}
	return cs;
}

#endif
