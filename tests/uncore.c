// SPDX-License-Identifier: MIT
/*
 * The Nehalem uncore PMU (../shared/spec/nehalem-uncore-pmu.txt, SDM Vol. 3B
 * 20.3.1.2, Vol. 4 Table 2-15): 48-bit counters, a counter counts only with
 * its local EN and its enable in MSR_UNCORE_PERF_GLOBAL_CTRL, overflow sets
 * MSR_UNCORE_PERF_GLOBAL_STATUS, cleared through GLOBAL_OVF_CTRL. The fixed
 * counter counts uncore clock cycles, so it surely counts across the
 * workload; GP events are not architectural, so for them only "does not
 * count" is checked.
 */
#include "pmu.h"
#include "rules.h"
#include "test.h"

#define UNC_STATUS_FC0 BIT_ULL(32)

static uint64_t run_fixed(uint64_t global_on, uint64_t start)
{
	wrmsr(MSR_UNCORE_FIXED_CTR_CTRL, 0);
	wrmsr(MSR_UNCORE_FIXED_CTR0, start);
	wrmsr(MSR_UNCORE_FIXED_CTR_CTRL, UNCORE_FIXED_CTRL_EN);
	arch_workload_gated(PMU_ITERS, MSR_UNCORE_PERF_GLOBAL_CTRL, global_on, 0);
	wrmsr(MSR_UNCORE_FIXED_CTR_CTRL, 0);
	return rdmsr(MSR_UNCORE_FIXED_CTR0);
}

TEST(uncore, counters_are_48_bits, REQ_NEHALEM_UNCORE)
{
	const uint64_t mask = width_mask(UNCORE_WIDTH);

	for (unsigned i = 0; i <= UNCORE_NUM_GP; i++) {
		uint32_t msr = i < UNCORE_NUM_GP ? MSR_UNCORE_PMC0 + i : MSR_UNCORE_FIXED_CTR0;

		if (!expect_no_fault(t, wrmsr_safe(msr, mask), RULE_UNCORE_WIDTH,
				     "WRMSR %#x <- 48 ones", msr))
			continue;
		expect_eq(t, rdmsr(msr), mask, RULE_UNCORE_WIDTH, "uncore counter %#x read back",
			  msr);
		wrmsr(msr, 0);
	}
}

TEST(uncore, global_enable_gates, REQ_NEHALEM_UNCORE)
{
	expect_true(t, run_fixed(UNCORE_GLOBAL_EN_FC0, 0) > 0, "> 0", "0", RULE_UNCORE_EN,
		    "MSR_UNCORE_FixedCntr0 with EN and EN_FC0 over the workload");
	expect_eq(t, run_fixed(0, 0), 0, RULE_UNCORE_EN,
		  "MSR_UNCORE_FixedCntr0 with EN but EN_FC0 clear");
	for (unsigned i = 0; i < UNCORE_NUM_GP; i++) {
		/* any event, locally enabled, global enable of another counter */
		wrmsr(MSR_UNCORE_PMC0 + i, 0);
		wrmsr(MSR_UNCORE_PERFEVTSEL0 + i, UNCORE_EVTSEL_EN | 0x01);
		arch_workload_gated(PMU_ITERS, MSR_UNCORE_PERF_GLOBAL_CTRL,
				    UNCORE_GLOBAL_EN_FC0 | (GENMASK_ULL(7, 0) & ~BIT_ULL(i)), 0);
		wrmsr(MSR_UNCORE_PERFEVTSEL0 + i, 0);
		expect_eq(t, rdmsr(MSR_UNCORE_PMC0 + i), 0, RULE_UNCORE_EN,
			  "MSR_UNCORE_PMC%u with EN but EN_PC%u clear", i, i);
	}
	/* locally disabled, globally enabled */
	wrmsr(MSR_UNCORE_FIXED_CTR0, 0);
	arch_workload_gated(PMU_ITERS, MSR_UNCORE_PERF_GLOBAL_CTRL, UNCORE_GLOBAL_EN_FC0, 0);
	expect_eq(t, rdmsr(MSR_UNCORE_FIXED_CTR0), 0, RULE_UNCORE_EN,
		  "MSR_UNCORE_FixedCntr0 with EN_FC0 but local EN clear");
}

TEST(uncore, overflow_status_and_clear, REQ_NEHALEM_UNCORE)
{
	uint64_t start = width_mask(UNCORE_WIDTH) - 9;

	run_fixed(UNCORE_GLOBAL_EN_FC0, start);
	expect_eq(t, rdmsr(MSR_UNCORE_PERF_GLOBAL_STATUS) & UNC_STATUS_FC0, UNC_STATUS_FC0,
		  RULE_UNCORE_OVF, "MSR_UNCORE_PERF_GLOBAL_STATUS bit 32 after FixedCntr0 wrapped");
	expect_true(t, rdmsr(MSR_UNCORE_FIXED_CTR0) < start, "wrapped below the start",
		    "did not wrap", RULE_UNCORE_WIDTH, "MSR_UNCORE_FixedCntr0 after overflow");
	wrmsr(MSR_UNCORE_PERF_GLOBAL_OVF_CTRL, UNC_STATUS_FC0);
	expect_eq(t, rdmsr(MSR_UNCORE_PERF_GLOBAL_STATUS) & UNC_STATUS_FC0, 0, RULE_UNCORE_OVF,
		  "MSR_UNCORE_PERF_GLOBAL_STATUS bit 32 after GLOBAL_OVF_CTRL");
}
