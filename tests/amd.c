// SPDX-License-Identifier: MIT
/*
 * AMD core counters (AMD64 APM Vol. 2 13.2): legacy PerfEvtSel0-3 /
 * PerfCtr0-3 at C001_0000H / C001_0004H; with PerfCtrExtCore
 * (CPUID.80000001H:ECX[23]) six pairs at C001_0200H + 2n, the legacy
 * addresses aliasing the first four; with PerfMonV2 (CPUID.80000022H:EAX[0])
 * PerfCntrGlobalCtl / Status / StatusClr / StatusSet. Counters are 48 bits.
 * Events (the APM defines none; numbers from the PPRs of Families 17h-1Ah,
 * as Linux perf's pmu-events amdzen1..5 tables carry them):
 *   PMCx0C0 Retired Instructions (ExRetInstr): exact for the workload;
 *   PMCx0C2 Retired Branch Instructions (ExRetBrn): every retired branch,
 *           and exceptions and interrupts (none happen in the window): exact;
 *   PMCx076 Cycles not in Halt (LsNotHaltedCyc): bounded as Intel's core
 *           cycles are (tests/counting.c).
 */
#include "pmu.h"
#include "rules.h"
#include "test.h"

#define AMD_EVT_CYCLES		 0x76
#define AMD_EVT_RETIRED_INSNS	 0xC0
#define AMD_EVT_RETIRED_BRANCHES 0xC2
/* PerfEvtSel bits (APM Vol. 2 Figure 13-7): as Intel's for USR/OS/INT/EN. */
#define AMD_SEL_EV(ev, flags) ((ev) | PERFEVTSEL_USR | PERFEVTSEL_OS | (flags))
#define AMD_SEL(flags)	      AMD_SEL_EV(AMD_EVT_RETIRED_INSNS, flags)

/* Cycle bounds, argued as in tests/counting.c: no AMD core retires more
 * than 16 instructions per cycle (Zen 4/5 retire at most 8 macro-ops); a
 * 10-instruction register-only iteration takes far less than 1000 cycles
 * and the gate far less than 10^6. */
#define AMD_MAX_IPC		16ULL
#define AMD_CYCLES_PER_ITER_MAX 1000ULL
#define AMD_CYCLES_OVERHEAD	1000000ULL

static bool ext(void)
{
	return caps()->amd.perfctr_core || caps()->amd.perfmon_v2;
}

static unsigned n_ctrs(void)
{
	return caps()->amd.core_counters ? caps()->amd.core_counters : 4;
}

static uint32_t sel_msr(unsigned i)
{
	return ext() ? MSR_F15H_PERF_CTL0 + 2 * i : MSR_K7_EVNTSEL0 + i;
}

static uint32_t ctr_msr(unsigned i)
{
	return ext() ? MSR_F15H_PERF_CTR0 + 2 * i : MSR_K7_PERFCTR0 + i;
}

/* Count event `ev` over `iters` on counter i, gated by EN (and
 * PerfCntrGlobalCtl on v2). */
static uint64_t count_event(unsigned i, unsigned ev, uint64_t iters)
{
	wrmsr(sel_msr(i), 0);
	wrmsr(ctr_msr(i), 0);
	if (caps()->amd.perfmon_v2)
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, BIT_ULL(i));
	arch_workload_gated(iters, sel_msr(i), AMD_SEL_EV(ev, PERFEVTSEL_EN), AMD_SEL_EV(ev, 0));
	if (caps()->amd.perfmon_v2)
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
	return rdmsr(ctr_msr(i));
}

/*
 * An event the workload retires an exact number of times per iteration:
 * within [N * per_iter, N * per_iter + overhead] over N iterations, and
 * count(2N) - count(N) = N * per_iter exactly (the overhead cancels).
 */
static void check_exact_event(struct t *t, unsigned ev, uint64_t per_iter, const char *rule)
{
	for (unsigned i = 0; i < n_ctrs(); i++) {
		uint64_t c1 = count_event(i, ev, PMU_ITERS);
		uint64_t c2 = count_event(i, ev, 2 * PMU_ITERS);

		expect_range(t, c1, PMU_ITERS * per_iter,
			     PMU_ITERS * per_iter + PMU_OVERHEAD_EVENTS, rule,
			     "PerfCtr%u event %02XH over N iterations", i, ev);
		expect_eq(t, c2 - c1, PMU_ITERS * per_iter, rule,
			  "PerfCtr%u event %02XH: count(2N) - count(N)", i, ev);
	}
}

TEST(amd, retired_instructions_every_counter, REQ_AMD)
{
	check_exact_event(t, AMD_EVT_RETIRED_INSNS, WORKLOAD_INSNS_PER_ITER, RULE_AMD_COUNT);
}

TEST(amd, retired_branches_every_counter, REQ_AMD)
{
	check_exact_event(t, AMD_EVT_RETIRED_BRANCHES, WORKLOAD_BRANCHES_PER_ITER,
			  RULE_AMD_BRANCHES);
}

TEST(amd, core_cycles_every_counter, REQ_AMD)
{
	for (unsigned i = 0; i < n_ctrs(); i++) {
		uint64_t c1 = count_event(i, AMD_EVT_CYCLES, PMU_ITERS);
		uint64_t c2 = count_event(i, AMD_EVT_CYCLES, 2 * PMU_ITERS);

		expect_range(t, c1, PMU_ITERS * WORKLOAD_INSNS_PER_ITER / AMD_MAX_IPC,
			     PMU_ITERS * AMD_CYCLES_PER_ITER_MAX + AMD_CYCLES_OVERHEAD,
			     RULE_AMD_CYCLES,
			     "PerfCtr%u cycles not in halt (76H) over N iterations", i);
		/* N more iterations retire 10N more instructions: >= 10N / 16
		 * more cycles, whatever the frequency did meanwhile. */
		expect_range(
		    t, c2 > c1 ? c2 - c1 : 0, PMU_ITERS * WORKLOAD_INSNS_PER_ITER / AMD_MAX_IPC,
		    PMU_ITERS * AMD_CYCLES_PER_ITER_MAX + AMD_CYCLES_OVERHEAD, RULE_AMD_CYCLES,
		    "PerfCtr%u cycles not in halt: count(2N) - count(N)", i);
	}
}

TEST(amd, counters_48_bits_and_rdpmc, REQ_AMD)
{
	const uint64_t mask = width_mask(AMD_COUNTER_WIDTH);
	/* 16: past the L3 counters (ECX 10..15); 64: the index other suites
	 * probe (kvm-unit-tests RDPMC(64)) */
	const uint32_t bad[] = {16, 64, 0x100, 0xFFFF};

	for (unsigned i = 0; i < n_ctrs(); i++) {
		uint64_t rax, rdx;

		wrmsr(sel_msr(i), 0);
		if (!expect_no_fault(t, wrmsr_safe(ctr_msr(i), mask), RULE_AMD_WIDTH,
				     "WRMSR PerfCtr%u <- 48 ones", i))
			continue;
		expect_eq(t, rdmsr(ctr_msr(i)), mask, RULE_AMD_WIDTH, "PerfCtr%u read back", i);
		if (expect_vector(t, rdpmc_safe(i, &rax, &rdx), 0, RULE_AMD_RDPMC, "RDPMC ECX=%u",
				  i))
			expect_eq(t, ((rdx & 0xFFFFFFFFULL) << 32) | (rax & 0xFFFFFFFFULL), mask,
				  RULE_AMD_RDPMC, "RDPMC %u vs the 48-bit value written", i);
		wrmsr(ctr_msr(i), 0);
	}
	for (unsigned k = 0; k < ARRAY_SIZE(bad); k++) {
		uint64_t rax, rdx;

		expect_vector(t, rdpmc_safe(bad[k], &rax, &rdx), X86_VEC_GP, RULE_AMD_RDPMC,
			      "RDPMC ECX=%#x", bad[k]);
	}
	if (!ext()) {
		uint64_t rax, rdx;

		expect_vector(t, rdpmc_safe(4, &rax, &rdx), X86_VEC_GP, RULE_AMD_RDPMC,
			      "RDPMC ECX=4 with 4 legacy counters only");
	}
}

TEST(amd, legacy_msrs_alias_extended, REQ_AMD_PERFCTR_CORE)
{
	for (unsigned i = 0; i < 4; i++) {
		wrmsr(MSR_K7_PERFCTR0 + i, 0x1000 + i);
		expect_eq(t, rdmsr(MSR_F15H_PERF_CTR0 + 2 * i), 0x1000 + i, RULE_AMD_LEGACY_ALIAS,
			  "PerfCtr%u at C001_%04XH after writing C001_%04XH", i,
			  (unsigned)(MSR_F15H_PERF_CTR0 + 2 * i) & 0xFFFF,
			  (unsigned)(MSR_K7_PERFCTR0 + i) & 0xFFFF);
		wrmsr(MSR_F15H_PERF_CTL0 + 2 * i, AMD_SEL(0));
		expect_eq(t, rdmsr(MSR_K7_EVNTSEL0 + i), AMD_SEL(0), RULE_AMD_LEGACY_ALIAS,
			  "PerfEvtSel%u at the legacy address after writing the extended one", i);
		wrmsr(MSR_F15H_PERF_CTL0 + 2 * i, 0);
		wrmsr(MSR_K7_PERFCTR0 + i, 0);
	}
}

TEST(amd, extended_msrs_absent_without_perfctr_core, REQ_AMD)
{
	uint64_t v;

	if (ext()) {
		t_skip(t, "CPUID.80000001H:ECX[23] (PerfCtrExtCore) = 1");
		return;
	}
	expect_vector(t, rdmsr_safe(MSR_F15H_PERF_CTL0, &v), X86_VEC_GP, RULE_AMD_LEGACY_ALIAS,
		      "RDMSR C001_0200H without PerfCtrExtCore");
	expect_vector(t, wrmsr_safe(MSR_F15H_PERF_CTR0, 0), X86_VEC_GP, RULE_AMD_LEGACY_ALIAS,
		      "WRMSR C001_0201H without PerfCtrExtCore");
}

TEST(amd, perfmon_v2_global_ctl_and_status, REQ_AMD_PERFMON_V2)
{
	const uint64_t mask = width_mask(AMD_COUNTER_WIDTH);

	for (unsigned i = 0; i < n_ctrs(); i++) {
		uint64_t st;

		/* enabled locally, GlobalCtl bit clear: nothing */
		wrmsr(sel_msr(i), AMD_SEL(0));
		wrmsr(ctr_msr(i), 0);
		arch_workload_gated(PMU_ITERS, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0, 0);
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
		wrmsr(sel_msr(i), AMD_SEL(PERFEVTSEL_EN));
		arch_workload_gated(PMU_ITERS, MSR_AMD64_PERF_CNTR_GLOBAL_CTL,
				    ~BIT_ULL(i) & GENMASK_ULL(n_ctrs() - 1, 0), 0);
		expect_eq(t, rdmsr(ctr_msr(i)), 0, RULE_AMD_GLOBAL,
			  "PerfCtr%u with En = 1 and PerfCntrGlobalCtl bit %u clear", i, i);
		/* overflow sets the status bit; StatusClr clears; StatusSet sets */
		wrmsr(ctr_msr(i), mask - 15);
		arch_workload_gated(PMU_ITERS, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, BIT_ULL(i), 0);
		wrmsr(sel_msr(i), 0);
		st = rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS);
		expect_eq(t, st & BIT_ULL(i), BIT_ULL(i), RULE_AMD_GLOBAL,
			  "PerfCntrGlobalStatus bit %u after PerfCtr%u overflowed", i, i);
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, BIT_ULL(i));
		expect_eq(t, rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) & BIT_ULL(i), 0,
			  RULE_AMD_GLOBAL, "PerfCntrGlobalStatus bit %u after StatusClr", i);
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET, BIT_ULL(i));
		expect_eq(t, rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) & BIT_ULL(i), BIT_ULL(i),
			  RULE_AMD_GLOBAL, "PerfCntrGlobalStatus bit %u after StatusSet", i);
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, BIT_ULL(i));
		wrmsr(ctr_msr(i), 0);
	}
}

/* The AMD APIC leaves the LVT entry as software wrote it: the Intel rule
 * (SDM Vol.3A 11.5.1, mask set on PMI delivery) is not the APM's. */
TEST(amd, pmi_leaves_lvt_unmasked, REQ_AMD | REQ_APIC)
{
	pmu_pmi_install(true, 0, false);
	wrmsr(sel_msr(0), 0);
	wrmsr(ctr_msr(0), width_mask(AMD_COUNTER_WIDTH) - 63);
	if (caps()->amd.perfmon_v2)
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, BIT_ULL(0));
	arch_irq_enable();
	arch_workload_gated(PMU_ITERS, sel_msr(0), AMD_SEL(PERFEVTSEL_EN | PERFEVTSEL_INT),
			    AMD_SEL(PERFEVTSEL_INT));
	arch_irq_disable();
	wrmsr(sel_msr(0), 0);
	expect_eq(t, g_pmi.count, 1, RULE_PMI_DELIVER, "PMIs for the PerfCtr0 overflow");
	if (g_pmi.count)
		expect_eq(t, g_pmi.lvt & APIC_LVT_MASKED, 0, RULE_AMD_PMI_LVT_UNMASKED,
			  "LVT PMI mask bit read in the handler");
	pmu_pmi_uninstall();
}
