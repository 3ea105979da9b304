/* SPDX-License-Identifier: MIT */
/*
 * A reserved-bit sweep: each reserved bit of an MSR written alone must raise
 * #GP(0) (the SDM's rule for every reserved MSR bit, e.g. Vol. 3B 20.2.2
 * for the global controls and 20.2.1.1 for IA32_PERFEVTSELx). global.c and
 * versions.c sweep their MSRs with it, each citing its own rule.
 */
#ifndef PMUTEST_TESTS_RESERVED_BITS_H
#define PMUTEST_TESTS_RESERVED_BITS_H

#include "arch.h"
#include "kstring.h"
#include "test.h"

/* Writes each bit of rsvd alone to msr, then 0; one check that every write
 * of a reserved bit raised #GP(0), naming the first few that did not; its
 * subject is the MSR and its observed outcome the mask of the bits accepted
 * (OUTCOME_BITS), or "fault" when a write raised another exception. The
 * write of 0 is a plain WRMSR when `zero_must_work` (a counter's MSR the
 * enumeration promises: a fault there is the test's exception, which is how
 * a counter that is enumerated but missing shows), guarded otherwise. */
static inline void expect_reserved_bits_fault(struct t *t, uint32_t msr, const char *msr_name,
					      uint64_t rsvd, const char *rule, bool zero_must_work)
{
	unsigned bad = 0, swept = 0;
	uint64_t accepted = 0, other_fault = 0;
	char first[96] = "";
	size_t len = 0;

	for (unsigned b = 0; b < 64; b++) {
		int vec;

		if (!(rsvd & BIT_ULL(b)))
			continue;
		swept++;
		vec = wrmsr_safe(msr, BIT_ULL(b));
		if (vec == X86_VEC_GP && arch_fault_error_code() == 0)
			continue;
		if (vec)
			other_fault |= BIT_ULL(b);
		else
			accepted |= BIT_ULL(b);
		if (bad++ < 6 && len < sizeof(first) - 12)
			len += ksnprintf(first + len, sizeof(first) - len, "%sbit %u",
					 len ? ", " : "", b);
	}
	if (zero_must_work)
		wrmsr(msr, 0);
	else
		wrmsr_safe(msr, 0);
	t_subject_msr(t, msr);
	if (other_fault)
		t_outcome(t, OUTCOME_FAULT);
	else
		t_outcome_bits(t, accepted);
	expect_true(t, bad == 0, "#GP(0) for each reserved bit", bad ? first : "all #GP(0)", rule,
		    "%s: %u of %u reserved bits accepted", msr_name, bad, swept);
}

#endif
