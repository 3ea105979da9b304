/* SPDX-License-Identifier: MIT */
/*
 * Absolute bounds in the gated window. The exact checks of counting.c
 * subtract two windows (2N - N), which cancels any constant a platform adds
 * to every window: a vPMU that also counts its own code around the guest's
 * window, or starts and stops counting off by some instructions, passes
 * them. Here the count of one window is bounded absolutely, from what the
 * window holds (include/arch.h: the enabling WRMSR, N iterations of 10
 * instructions and 1 branch, the disabling WRMSR):
 *  - branches retired: exactly N (neither WRMSR is a branch);
 *  - instructions retired: 10N to 10N + 2 (whether each WRMSR counts is not
 *    specified);
 *  - core cycles: at most k times the TSC ticks around the window, an
 *    inference the SDM does not state (RULE_WINDOW_CYCLES): k is 8, or
 *    CPUID.16H's maximum / base ratio rounded up when larger; counts above
 *    leaf 16H's own ratio are reported, not failed;
 *  - IA32_FIXED_CTR2 (REF_TSC): counts at the TSC rate, so the extra N
 *    iterations of a 2N-N pair count at least half their TSC ticks.
 * A count can only grow by asynchronous work the SDM lets counters see
 * (SMM without FREEZE_WHILE_SMM): the exact windows are measured up to
 * three times and the first in bounds is kept, every retry reported.
 */
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

#define N_WINDOW	1000ULL
#define TRIES		3
#define CORE_TO_TSC_MAX 8ULL /* RULE_WINDOW_CYCLES */

/* One window's count of `ev` on the first GP counter, retried while above
 * `hi` (never below: nothing asynchronous removes counts). */
static uint64_t window_count(struct t *t, enum arch_event ev, uint64_t hi)
{
	struct counter c = GP_COUNTER((unsigned)pmu_gp_nth(0));
	uint64_t v = 0;

	for (unsigned k = 0; k < TRIES; k++) {
		v = counter_count(c, counter_cfg_all_rings(c, ev), N_WINDOW);
		if (v <= hi)
			break;
		t_diag(t, "%s window %u counted %llu (> %llu): measured again",
		       caps_arch_events[ev].name, k + 1, (unsigned long long)v,
		       (unsigned long long)hi);
	}
	return v;
}

TEST(bounds, branches_exactly_n, REQ_ARCH_PMU | REQ_GP_COUNTER | REQ_BRANCHES_EVENT)
{
	const uint64_t n = N_WINDOW * WORKLOAD_BRANCHES_PER_ITER;

	if (!t_counter_counts(t, GP_COUNTER((unsigned)pmu_gp_nth(0))))
		return;
	expect_eq(t, window_count(t, ARCH_EVENT_BRANCHES, n), n, RULE_WINDOW_BRANCHES,
		  "branches retired between the gate's WRMSRs, N = %llu",
		  (unsigned long long)N_WINDOW);
}

TEST(bounds, instructions_10n_to_10n_plus_2, REQ_ARCH_PMU | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	const uint64_t lo = N_WINDOW * WORKLOAD_INSNS_PER_ITER;

	if (!t_counter_counts(t, GP_COUNTER((unsigned)pmu_gp_nth(0))))
		return;
	expect_range(t, window_count(t, ARCH_EVENT_INSTRUCTIONS, lo + 2), lo, lo + 2,
		     RULE_WINDOW_INSTRUCTIONS,
		     "instructions retired between the gate's WRMSRs, N = %llu",
		     (unsigned long long)N_WINDOW);
}

/* ceil(maximum / base frequency) from CPUID.16H, 0 when not enumerated. */
static uint64_t leaf16_ratio(void)
{
	struct cpuid_regs r;

	if (caps()->max_basic_leaf < 0x16)
		return 0;
	arch_cpuid(0x16, 0, &r);
	uint32_t base = r.eax & 0xFFFF, max = r.ebx & 0xFFFF;
	if (!base || !max)
		return 0;
	return (max + base - 1) / base;
}

/* Count ev on counter c over one window and the TSC ticks around it. */
static uint64_t count_with_tsc(struct counter c, uint64_t cfg, uint64_t iters, uint64_t *tsc)
{
	uint64_t t0 = arch_rdtsc(), v = counter_count(c, cfg, iters);

	*tsc = arch_rdtsc() - t0;
	return v;
}

/* The bound is RULE_WINDOW_CYCLES's k; above CPUID.16H's own ratio but
 * within k is reported, not failed (leaf 16H is nominal). */
static void check_cycles(struct t *t, struct counter c, const char *what, uint64_t k16)
{
	uint64_t k = k16 > CORE_TO_TSC_MAX ? k16 : CORE_TO_TSC_MAX, tsc;

	if (!t_counter_counts(t, c))
		return;
	uint64_t v =
	    count_with_tsc(c, counter_cfg_all_rings(c, ARCH_EVENT_CORE_CYCLES), N_WINDOW, &tsc);

	if (k16 && v > k16 * tsc && v <= k * tsc)
		t_diag(t, "%s: %llu cycles, above CPUID.16H's ratio %llu x %llu TSC ticks", what,
		       (unsigned long long)v, (unsigned long long)k16, (unsigned long long)tsc);
	expect_range(t, v, 1, k * tsc, RULE_WINDOW_CYCLES,
		     "%s of a window vs k = %llu times the %llu TSC ticks around it", what,
		     (unsigned long long)k, (unsigned long long)tsc);
}

TEST(bounds, core_cycles_at_most_k_tsc, REQ_ARCH_PMU | REQ_GP_COUNTER)
{
	uint64_t k16 = leaf16_ratio();

	if (!pmu_event_available(ARCH_EVENT_CORE_CYCLES) && !pmu_fixed_present(FIXED_CORE_CYCLES))
		t_skip_return(t,
			      "CPUID.0AH:EBX[0] = 1 and no IA32_FIXED_CTR1: no core-cycle count");
	if (pmu_event_available(ARCH_EVENT_CORE_CYCLES))
		check_cycles(t, GP_COUNTER((unsigned)pmu_gp_nth(0)), "core cycles (3CH/00H)", k16);
	if (pmu_fixed_present(FIXED_CORE_CYCLES))
		check_cycles(t, FIXED_COUNTER(FIXED_CORE_CYCLES), "IA32_FIXED_CTR1", k16);
}

TEST(bounds, ref_tsc_at_least_half_tsc, REQ_ARCH_PMU_V2)
{
	struct counter f = FIXED_COUNTER(FIXED_REF_CYCLES);
	uint64_t cfg, tsc1, tsc2, v1, v2;

	if (!pmu_fixed_present(FIXED_REF_CYCLES))
		t_skip_return(t, "IA32_FIXED_CTR2 not enumerated (CPUID.0AH:EDX[4:0] <= 2 and "
				 "ECX[2] = 0)");
	if (!t_counter_counts(t, f))
		return;
	cfg = counter_cfg_all_rings(f, ARCH_EVENT_REF_CYCLES);
	v1 = count_with_tsc(f, cfg, N_WINDOW, &tsc1);
	v2 = count_with_tsc(f, cfg, 2 * N_WINDOW, &tsc2);
	if (tsc2 <= tsc1)
		t_skip_return(t, "the TSC did not advance more over 2N iterations than over N");
	expect_range(t, v2 - v1, (tsc2 - tsc1) / 2, UINT64_MAX, RULE_WINDOW_REF_TSC,
		     "REF_TSC(2N) - REF_TSC(N) vs %llu TSC ticks, N = %llu",
		     (unsigned long long)(tsc2 - tsc1), (unsigned long long)N_WINDOW);
}
