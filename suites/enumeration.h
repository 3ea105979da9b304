/* SPDX-License-Identifier: MIT */
/*
 * Counter existence re-derived from the raw CPUID fields, as the SDM words
 * it, for the suites that check the enumeration itself (rdpmc.c,
 * versions.c): they must not take the decoder's derived bitmaps on trust,
 * or a decoder error would hide a CPU error. The whole rule, as the
 * capability record's (kernel/pmu.h) but written from the manual's text:
 *
 *  - SDM Vol. 2B RDPMC and Vol. 3B 20.2.1/20.2.5:
 *    GP counter x exists iff x < CPUID.0AH:EAX[15:8]; fixed counter x
 *    (version 2+) iff x < CPUID.0AH:EDX[4:0] or, from version 5,
 *    CPUID.0AH:ECX[x] = 1.
 *  - SDM Vol. 2A CPUID leaf 23H, "Architectural Performance Monitoring
 *    Extended Leaf": where sub-leaf 1 is valid (CPUID.(07H,1):EAX[8] and
 *    CPUID.(23H,0):EAX[1]), EAX bit x = 1 iff IA32_PMCx and IA32_PERFEVTSELx
 *    exist and EBX bit x = 1 iff IA32_FIXED_CTRx exists. This extends the
 *    RDPMC page, which predates the leaf (Linux's perf driver programs and
 *    reads counters 8 and 9 on such parts).
 */
#ifndef PMUTEST_TESTS_ENUMERATION_H
#define PMUTEST_TESTS_ENUMERATION_H

#include "test.h"

static inline bool sdm_gp_counter_exists(unsigned x)
{
	const struct caps *c = caps();

	if (!c->pm.present || x >= 32)
		return false;
	if (c->l23.counters_valid)
		return (c->l23.gp_bitmap >> x) & 1;
	return x < c->pm.gp_counters;
}

static inline bool sdm_fixed_counter_exists(unsigned x)
{
	const struct caps *c = caps();
	const struct caps_arch_perfmon *pm = &c->pm;

	if (!pm->present || pm->version < 2 || x >= 32)
		return false;
	if (c->l23.counters_valid)
		return (c->l23.fixed_bitmap >> x) & 1;
	return x < pm->fixed_counters_edx || (pm->version >= 5 && (pm->fixed_bitmask >> x) & 1);
}

/* 1 + the highest GP counter that exists; 0 when none does. */
static inline unsigned sdm_gp_counter_end(void)
{
	unsigned end = 0;

	for (unsigned x = 0; x < 32; x++)
		if (sdm_gp_counter_exists(x))
			end = x + 1;
	return end;
}

#endif
