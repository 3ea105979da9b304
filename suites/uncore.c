/* SPDX-License-Identifier: MIT */
/*
 * The Nehalem uncore PMU (SDM Vol. 3B
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

/* ---- Uncore PMI, PMI_FRZ, status bits, reserved bits (Vol. 3B 20.3.1.2) - */

/* EN_PMI_COREx of every core: which core this logical processor sits on is
 * not known here, so routing to all cores is what makes "this core receives
 * it" certain. Dual-core parts may have fewer bits: fall back to 49:48. */
static uint64_t route_all(uint64_t global)
{
	uint64_t four = global | GENMASK_ULL(51, 48);

	if (wrmsr_safe(MSR_UNCORE_PERF_GLOBAL_CTRL, four) == 0)
		return four;
	return global | GENMASK_ULL(49, 48);
}

/*
 * FixedCntr0 from 10 below the wrap with its PMI bit, run with interrupts
 * enabled; the global control as given while the workload runs. Returns
 * the PMIs taken; *global_after is MSR_UNCORE_PERF_GLOBAL_CTRL read before
 * software touches it again.
 */
static unsigned fixed_pmi_run(uint64_t global, bool debugctl_bit, uint64_t *global_after)
{
	uint64_t debugctl = rdmsr(MSR_IA32_DEBUGCTL);
	uint64_t after;

	wrmsr(MSR_IA32_DEBUGCTL, debugctl_bit ? debugctl | DEBUGCTL_ENABLE_UNCORE_PMI
					      : debugctl & ~DEBUGCTL_ENABLE_UNCORE_PMI);
	wrmsr(MSR_UNCORE_PERF_GLOBAL_OVF_CTRL,
	      UNCORE_STATUS_FC0 | UNCORE_STATUS_OVF_PMI | UNCORE_STATUS_CHG);
	wrmsr(MSR_UNCORE_FIXED_CTR_CTRL, 0);
	wrmsr(MSR_UNCORE_FIXED_CTR0, width_mask(UNCORE_WIDTH) - 9);
	wrmsr(MSR_UNCORE_FIXED_CTR_CTRL, UNCORE_FIXED_CTRL_EN | UNCORE_FIXED_CTRL_PMI);
	pmu_pmi_install(true, 0, false);
	arch_irq_enable();
	wrmsr(MSR_UNCORE_PERF_GLOBAL_CTRL, global);
	arch_workload(PMU_ITERS);
	arch_irq_disable();
	after = rdmsr(MSR_UNCORE_PERF_GLOBAL_CTRL);
	wrmsr(MSR_UNCORE_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_UNCORE_FIXED_CTR_CTRL, 0);
	wrmsr(MSR_IA32_DEBUGCTL, debugctl);
	pmu_pmi_uninstall();
	if (global_after)
		*global_after = after;
	return g_pmi.count;
}

TEST(uncore, pmi_routing, REQ_NEHALEM_UNCORE | REQ_APIC)
{
	uint64_t routed = route_all(UNCORE_GLOBAL_EN_FC0);

	wrmsr(MSR_UNCORE_PERF_GLOBAL_CTRL, 0);
	expect_eq(t, fixed_pmi_run(routed, true, NULL), 1, RULE_UNCORE_PMI_ROUTE,
		  "PMIs: FixedCntr0 wrapped, PMI bit, EN_PMI_COREx of every core, "
		  "DEBUGCTL.Offcore_PMI_EN");
	expect_eq(t, g_pmi.lvt & APIC_LVT_MASKED, APIC_LVT_MASKED, RULE_PMI_LVT_MASK_SET,
		  "LVT performance-counter mask bit in the uncore PMI handler");
	expect_eq(t, fixed_pmi_run(UNCORE_GLOBAL_EN_FC0, true, NULL), 0, RULE_UNCORE_PMI_ROUTE,
		  "PMIs: FixedCntr0 wrapped, PMI bit, no EN_PMI_COREx");
	expect_eq(t, fixed_pmi_run(routed, false, NULL), 0, RULE_UNCORE_PMI_DEBUGCTL,
		  "PMIs: FixedCntr0 wrapped, PMI bit, EN_PMI_COREx, DEBUGCTL.Offcore_PMI_EN clear");
}

TEST(uncore, pmi_frz_disables_counters, REQ_NEHALEM_UNCORE | REQ_APIC)
{
	uint64_t routed = route_all(UNCORE_GLOBAL_EN_FC0);
	uint64_t after = 0, v;

	wrmsr(MSR_UNCORE_PERF_GLOBAL_CTRL, 0);
	fixed_pmi_run(routed | UNCORE_GLOBAL_PMI_FRZ, true, &after);
	expect_eq(t, after & (GENMASK_ULL(7, 0) | UNCORE_GLOBAL_EN_FC0), 0, RULE_UNCORE_PMI_FRZ,
		  "MSR_UNCORE_PERF_GLOBAL_CTRL enable bits after a PMI with PMI_FRZ");
	fixed_pmi_run(routed, true, &after);
	expect_eq(t, after & UNCORE_GLOBAL_EN_FC0, UNCORE_GLOBAL_EN_FC0, RULE_UNCORE_PMI_FRZ,
		  "MSR_UNCORE_PERF_GLOBAL_CTRL.EN_FC0 after a PMI without PMI_FRZ");
	/* Frozen means not counting: with PMI_FRZ the counter stays put. */
	fixed_pmi_run(routed | UNCORE_GLOBAL_PMI_FRZ, true, NULL);
	v = rdmsr(MSR_UNCORE_FIXED_CTR0);
	expect_true(t, v < PMU_ITERS, "stopped near the wrap", "kept counting", RULE_UNCORE_PMI_FRZ,
		    "MSR_UNCORE_FixedCntr0 = %llu after the frozen run", (unsigned long long)v);
}

TEST(uncore, status_ovf_pmi_and_chg, REQ_NEHALEM_UNCORE)
{
	const uint64_t all = UNCORE_STATUS_FC0 | UNCORE_STATUS_OVF_PMI | UNCORE_STATUS_CHG;
	uint64_t s;

	/* Earlier tests may have left OVF_PMI / CHG set: start from clear. */
	wrmsr(MSR_UNCORE_PERF_GLOBAL_OVF_CTRL, all);
	/* Without the PMI bit: OVF_FC0 and CHG, not OVF_PMI. */
	run_fixed(UNCORE_GLOBAL_EN_FC0, width_mask(UNCORE_WIDTH) - 9);
	s = rdmsr(MSR_UNCORE_PERF_GLOBAL_STATUS);
	expect_eq(t, s & UNCORE_STATUS_CHG, UNCORE_STATUS_CHG, RULE_UNCORE_CHG,
		  "MSR_UNCORE_PERF_GLOBAL_STATUS.CHG after FixedCntr0 wrapped");
	expect_eq(t, s & UNCORE_STATUS_OVF_PMI, 0, RULE_UNCORE_OVF_PMI,
		  "MSR_UNCORE_PERF_GLOBAL_STATUS.OVF_PMI after a wrap without the PMI bit");
	expect_vector(t, wrmsr_safe(MSR_UNCORE_PERF_GLOBAL_STATUS, 0), X86_VEC_GP,
		      RULE_UNCORE_STATUS_RO, "WRMSR MSR_UNCORE_PERF_GLOBAL_STATUS <- 0");
	expect_eq(t, rdmsr(MSR_UNCORE_PERF_GLOBAL_STATUS) & UNCORE_STATUS_FC0, UNCORE_STATUS_FC0,
		  RULE_UNCORE_STATUS_RO, "OVF_FC0 after the rejected WRMSR of 0");
	wrmsr(MSR_UNCORE_PERF_GLOBAL_OVF_CTRL, all);
	expect_eq(t, rdmsr(MSR_UNCORE_PERF_GLOBAL_STATUS) & all, 0, RULE_UNCORE_CHG,
		  "OVF_FC0 / OVF_PMI / CHG after GLOBAL_OVF_CTRL bits 32, 61, 63");
	/* With the PMI bit (not routed to any core: no interrupt): OVF_PMI. */
	wrmsr(MSR_UNCORE_FIXED_CTR0, width_mask(UNCORE_WIDTH) - 9);
	wrmsr(MSR_UNCORE_FIXED_CTR_CTRL, UNCORE_FIXED_CTRL_EN | UNCORE_FIXED_CTRL_PMI);
	arch_workload_gated(PMU_ITERS, MSR_UNCORE_PERF_GLOBAL_CTRL, UNCORE_GLOBAL_EN_FC0, 0);
	wrmsr(MSR_UNCORE_FIXED_CTR_CTRL, 0);
	expect_eq(t, rdmsr(MSR_UNCORE_PERF_GLOBAL_STATUS) & all, all, RULE_UNCORE_OVF_PMI,
		  "OVF_FC0 / OVF_PMI / CHG after a wrap with the PMI bit");
	wrmsr(MSR_UNCORE_PERF_GLOBAL_OVF_CTRL, UNCORE_STATUS_OVF_PMI);
	expect_eq(t, rdmsr(MSR_UNCORE_PERF_GLOBAL_STATUS) & UNCORE_STATUS_OVF_PMI, 0,
		  RULE_UNCORE_OVF_PMI, "OVF_PMI after GLOBAL_OVF_CTRL bit 61");
	wrmsr(MSR_UNCORE_PERF_GLOBAL_OVF_CTRL, all);
}

TEST(uncore, reserved_bits_fault, REQ_NEHALEM_UNCORE)
{
	const uint64_t fixed_ok = UNCORE_FIXED_CTRL_EN | UNCORE_FIXED_CTRL_PMI;
	/* EN_PMI_COREx (51:48) left out: how many exist depends on the cores. */
	const uint64_t global_ok =
	    GENMASK_ULL(7, 0) | UNCORE_GLOBAL_EN_FC0 | GENMASK_ULL(51, 48) | UNCORE_GLOBAL_PMI_FRZ;

	for (unsigned b = 0; b < 64; b++) {
		int v = wrmsr_safe(MSR_UNCORE_FIXED_CTR_CTRL, BIT_ULL(b));

		expect_vector(t, v, (fixed_ok & BIT_ULL(b)) ? 0 : X86_VEC_GP, RULE_UNCORE_RSVD,
			      "WRMSR MSR_UNCORE_FIXED_CTR_CTRL <- bit %u", b);
		if (!v)
			expect_eq(t, rdmsr(MSR_UNCORE_FIXED_CTR_CTRL), BIT_ULL(b), RULE_UNCORE_RSVD,
				  "MSR_UNCORE_FIXED_CTR_CTRL read back, bit %u", b);
		wrmsr_safe(MSR_UNCORE_FIXED_CTR_CTRL, 0);
		if (b >= 48 && b <= 51)
			continue;
		v = wrmsr_safe(MSR_UNCORE_PERF_GLOBAL_CTRL, BIT_ULL(b));
		expect_vector(t, v, (global_ok & BIT_ULL(b)) ? 0 : X86_VEC_GP, RULE_UNCORE_RSVD,
			      "WRMSR MSR_UNCORE_PERF_GLOBAL_CTRL <- bit %u", b);
		if (!v)
			expect_eq(t, rdmsr(MSR_UNCORE_PERF_GLOBAL_CTRL), BIT_ULL(b),
				  RULE_UNCORE_RSVD, "MSR_UNCORE_PERF_GLOBAL_CTRL read back, bit %u",
				  b);
		wrmsr_safe(MSR_UNCORE_PERF_GLOBAL_CTRL, 0);
	}
}
