/* SPDX-License-Identifier: MIT */
/*
 * P6-family counters (Pentium Pro, II, III, M): SDM Vol. 3B "Performance
 * Monitoring (P6 Family Processor)". Two 40-bit counters, PerfCtr0/1 at
 * C1H/C2H, programmed by PerfEvtSel0/1 at 186H/187H; the EN flag (bit 22)
 * "is only present in the PerfEvtSel0 MSR" and starts and stops both
 * counters. The counter width and sign extension are checked by
 * width.nonarch_40_bit_counters.
 *
 * Workload events (the SDM's P6 event table): INST_RETIRED (C0H), exact for
 * the workload, as arch_workload() retires WORKLOAD_INSNS_PER_ITER
 * instructions per iteration.
 */
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

#define P6_SEL(ev) ((uint64_t)(ev) | PERFEVTSEL_USR | PERFEVTSEL_OS)

/* Count INST_RETIRED on counter i over `iters`, both counters programmed,
 * the run started and stopped by PerfEvtSel0.EN alone. */
static uint64_t count_insns(unsigned i, uint64_t iters)
{
	uint64_t sel0 = P6_SEL(i == 0 ? P6_EVT_INST_RETIRED : 0);

	wrmsr(MSR_P6_EVNTSEL(0), sel0);
	wrmsr(MSR_P6_EVNTSEL(1), P6_SEL(P6_EVT_INST_RETIRED));
	wrmsr(MSR_P6_PERFCTR(0), 0);
	wrmsr(MSR_P6_PERFCTR(1), 0);
	arch_workload_gated(iters, MSR_P6_EVNTSEL(0), sel0 | PERFEVTSEL_EN, sel0);
	uint64_t v = rdmsr(MSR_P6_PERFCTR(i));
	wrmsr(MSR_P6_EVNTSEL(1), 0);
	wrmsr(MSR_P6_EVNTSEL(0), 0);
	return v;
}

/* Both counters count, each enabled by PerfEvtSel0.EN (PerfEvtSel1 has no
 * EN of its own): over N iterations at least N * 10 instructions, and
 * count(2N) - count(N) = N * 10 exactly. */
TEST(p6, instructions_retired_both_counters, REQ_P6)
{
	for (unsigned i = 0; i < P6_NUM_COUNTERS; i++) {
		if (!t_counter_counts(t, GP_COUNTER(i)))
			continue;
		uint64_t c1 = count_insns(i, PMU_ITERS);
		uint64_t c2 = count_insns(i, 2 * PMU_ITERS);

		expect_range(t, c1, PMU_ITERS * WORKLOAD_INSNS_PER_ITER,
			     PMU_ITERS * WORKLOAD_INSNS_PER_ITER + PMU_OVERHEAD_EVENTS, RULE_P6_EN,
			     "PerfCtr%u INST_RETIRED over N iterations (EN in PerfEvtSel0)", i);
		expect_eq(t, c2 - c1, PMU_ITERS * WORKLOAD_INSNS_PER_ITER, RULE_P6_INST_RETIRED,
			  "PerfCtr%u INST_RETIRED: count(2N) - count(N)", i);
	}
}

/* RDPMC reads PerfCtr0 and PerfCtr1 (ECX = 0, 1); any other ECX is an
 * unsupported counter: #GP(0) (Vol. 2B RDPMC). */
TEST(p6, rdpmc_index_beyond_counters_gp, REQ_P6)
{
	uint64_t rax, rdx;

	for (unsigned i = 0; i < P6_NUM_COUNTERS; i++) {
		wrmsr(MSR_P6_PERFCTR(i), 0x1234 + i);
		expect_no_fault(t, rdpmc_safe(i, &rax, &rdx), RULE_RDPMC_GP, "RDPMC ECX=%u", i);
		if (t_counter_holds(t, GP_COUNTER(i)))
			expect_eq(t, rdpmc_edx_eax(rax, rdx), 0x1234 + i, RULE_RDPMC_GP,
				  "RDPMC ECX=%u value", i);
		wrmsr(MSR_P6_PERFCTR(i), 0);
	}
	expect_vector(t, rdpmc_safe(P6_NUM_COUNTERS, &rax, &rdx), X86_VEC_GP, RULE_RDPMC_GP_INDEX,
		      "RDPMC ECX=%u (two counters)", P6_NUM_COUNTERS);
}

/* With PerfEvtSel0.EN clear nothing counts, whatever PerfEvtSel1 bit 22: a
 * zero shows it only on a counter shown to count. */
TEST(p6, en_clear_stops_both_counters, REQ_P6)
{
	bool counts[P6_NUM_COUNTERS];
	for (unsigned i = 0; i < P6_NUM_COUNTERS; i++)
		counts[i] = t_counter_counts(t, GP_COUNTER(i));
	wrmsr(MSR_P6_EVNTSEL(0), P6_SEL(P6_EVT_INST_RETIRED));
	wrmsr(MSR_P6_EVNTSEL(1), P6_SEL(P6_EVT_INST_RETIRED) | PERFEVTSEL_EN);
	wrmsr(MSR_P6_PERFCTR(0), 0);
	wrmsr(MSR_P6_PERFCTR(1), 0);
	arch_workload(PMU_ITERS);
	for (unsigned i = 0; i < P6_NUM_COUNTERS; i++)
		if (counts[i])
			expect_eq(t, rdmsr(MSR_P6_PERFCTR(i)), 0, RULE_P6_EN,
				  "PerfCtr%u with PerfEvtSel0.EN clear (PerfEvtSel1 bit 22 set)",
				  i);
	wrmsr(MSR_P6_EVNTSEL(1), 0);
	wrmsr(MSR_P6_EVNTSEL(0), 0);
}
