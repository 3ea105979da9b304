/* SPDX-License-Identifier: MIT */
/*
 * Freeze on PMI: with IA32_DEBUGCTL.Freeze_PerfMon_On_PMI a PMI stops the
 * counters. Before version 4 the processor clears IA32_PERF_GLOBAL_CTRL
 * (legacy freeze); from version 4 it sets GLOBAL_STATUS.CTR_FRZ and leaves
 * GLOBAL_CTRL alone (streamlined freeze), and clearing CTR_FRZ resumes.
 * SDM Vol. 3B 18.4.7 (DEBUGCTL), 20.2.4.1.
 *
 * The first GP counter present (IA32_PMC0 unless leaf 23H leaves it out)
 * overflows (INT set) after FRZ_K instructions; a second counter (the next GP
 * counter, or IA32_FIXED_CTR0) counts alongside without INT and is read in
 * the handler: frozen, it must not move between the handler and the end of
 * the workload.
 */
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

#define FRZ_K 64

struct freeze_run {
	uint64_t watched_at_pmi, watched_end, ctrl_at_pmi, status_at_pmi, enabled;
	unsigned pmis;
	unsigned ovf; /* the overflowing GP counter */
	/* The watched counter was shown to count: a dead one would stand
	 * still whether frozen or not, so its checks are made only then. */
	bool watched_counts;
};

/* The watched counter, programmed to count. */
static bool watch_counter(uint32_t *msr, uint64_t *bit, struct counter *w)
{
	int second = pmu_gp_nth(1);

	if (second > 0) {
		*w = GP_COUNTER((unsigned)second);
		*msr = MSR_IA32_PMC(second);
		*bit = GLOBAL_PMC_BIT(second);
		pmu_gp_program(second,
			       pmu_evtsel(ARCH_EVENT_INSTRUCTIONS,
					  PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_EN),
			       0);
		return true;
	}
	if (pmu_fixed_present(0)) {
		*w = FIXED_COUNTER(0);
		*msr = MSR_IA32_FIXED_CTR0;
		*bit = GLOBAL_FIXED_BIT(0);
		pmu_fixed_program(0, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
		return true;
	}
	return false;
}

static bool run(struct t *t, bool freeze, struct freeze_run *r)
{
	uint64_t debugctl = rdmsr(MSR_IA32_DEBUGCTL), bit;
	uint32_t msr;
	struct counter w;

	if (pmu_gp_nth(0) < 0 || !watch_counter(&msr, &bit, &w)) {
		t_skip(t, "needs two counters: CPUID.0AH:EAX[15:8] >= 2 or a fixed counter");
		return false;
	}
	r->ovf = (unsigned)pmu_gp_nth(0);
	/* No PMI without an overflowing counter that counts. */
	bool ovf_counts = t_counter_counts(t, GP_COUNTER(r->ovf));
	r->watched_counts = t_counter_counts(t, w);
	if (!ovf_counts) {
		counter_program(w, 0, 0);
		return false;
	}
	pmu_gp_program(r->ovf,
		       pmu_evtsel(ARCH_EVENT_INSTRUCTIONS,
				  PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_INT | PERFEVTSEL_EN),
		       0);
	pmu_gp_preload(r->ovf, FRZ_K);
	t_subject_msr(t, MSR_IA32_DEBUGCTL);
	if (!expect_no_fault(
		t,
		wrmsr_safe(MSR_IA32_DEBUGCTL, freeze ? debugctl | DEBUGCTL_FREEZE_PERFMON_ON_PMI
						     : debugctl & ~DEBUGCTL_FREEZE_PERFMON_ON_PMI),
		RULE_FREEZE_LEGACY, "WRMSR IA32_DEBUGCTL.Freeze_PerfMon_On_PMI <- %d", freeze))
		return false;
	pmu_pmi_install(true, msr, false);
	r->enabled = GLOBAL_PMC_BIT(r->ovf) | bit;
	pmu_run_gated_irq(pmu_gate_global(r->enabled), PMU_ITERS);
	r->pmis = g_pmi.count;
	r->watched_at_pmi = g_pmi.watched;
	r->ctrl_at_pmi = g_pmi.global_ctrl;
	r->status_at_pmi = g_pmi.status;
	r->watched_end = rdmsr(msr);
	pmu_pmi_uninstall();
	wrmsr(MSR_IA32_DEBUGCTL, debugctl & ~DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	return expect_eq(t, r->pmis, 1, RULE_PMI_DELIVER, "PMIs for the IA32_PMC%u overflow",
			 r->ovf);
}

TEST(freeze, no_freeze_without_debugctl_bit, REQ_ARCH_PMU_V2 | REQ_APIC | REQ_INSTRUCTIONS_EVENT)
{
	struct freeze_run r;

	if (!run(t, false, &r))
		return;
	expect_eq(t, r.ctrl_at_pmi, r.enabled, RULE_FREEZE_LEGACY,
		  "IA32_PERF_GLOBAL_CTRL in the PMI handler, freeze off");
	if (r.watched_counts)
		expect_true(t, r.watched_end > r.watched_at_pmi,
			    "the watched counter kept counting", "it stopped", RULE_FREEZE_LEGACY,
			    "freeze off: watched counter %llu at the PMI, %llu at the end",
			    (unsigned long long)r.watched_at_pmi,
			    (unsigned long long)r.watched_end);
}

TEST(freeze, legacy_freeze_clears_global_ctrl, REQ_ARCH_PMU_V2 | REQ_APIC | REQ_INSTRUCTIONS_EVENT)
{
	struct freeze_run r;

	if (caps()->pm.version >= 4)
		t_skip_return(t, "CPUID.0AH:EAX[7:0] >= 4: streamlined freeze applies instead");
	if (!run(t, true, &r))
		return;
	expect_eq(t, r.ctrl_at_pmi, 0, RULE_FREEZE_LEGACY,
		  "IA32_PERF_GLOBAL_CTRL in the PMI handler, Freeze_PerfMon_On_PMI = 1");
	if (r.watched_counts)
		expect_eq(t, r.watched_end, r.watched_at_pmi, RULE_FREEZE_LEGACY,
			  "watched counter at the end of the workload vs at the PMI (frozen)");
}

TEST(freeze, streamlined_freeze_sets_ctr_frz, REQ_ARCH_PMU_V4 | REQ_APIC | REQ_INSTRUCTIONS_EVENT)
{
	struct freeze_run r;
	uint64_t before;

	if (!run(t, true, &r))
		return;
	expect_eq(t, r.ctrl_at_pmi, r.enabled, RULE_FREEZE_STREAMLINED,
		  "IA32_PERF_GLOBAL_CTRL in the PMI handler (v4 leaves it unchanged)");
	expect_eq(t, r.status_at_pmi & GLOBAL_STATUS_CTR_FRZ, GLOBAL_STATUS_CTR_FRZ,
		  RULE_FREEZE_STREAMLINED, "GLOBAL_STATUS.CTR_FRZ in the PMI handler");
	if (r.watched_counts)
		expect_eq(t, r.watched_end, r.watched_at_pmi, RULE_FREEZE_STREAMLINED,
			  "watched counter at the end of the workload vs at the PMI (frozen)");
	/* Still frozen: enabling and running again counts nothing ... */
	before = pmu_gp_read(r.ovf);
	pmu_run_gated(pmu_gate_global(GLOBAL_PMC_BIT(r.ovf)), PMU_ITERS);
	expect_eq(t, pmu_gp_read(r.ovf), before, RULE_FREEZE_STREAMLINED,
		  "IA32_PMC%u over a run while CTR_FRZ is still set", r.ovf);
	/* ... until CTR_FRZ (and the overflow bit) are reset. */
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_RESET, GLOBAL_STATUS_CTR_FRZ | GLOBAL_PMC_BIT(r.ovf));
	expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_CTR_FRZ, 0,
		  RULE_FREEZE_RESUME, "GLOBAL_STATUS.CTR_FRZ after STATUS_RESET");
	pmu_run_gated(pmu_gate_global(GLOBAL_PMC_BIT(r.ovf)), PMU_ITERS);
	expect_true(t, pmu_gp_read(r.ovf) > before, "the counter counts again", "it did not",
		    RULE_FREEZE_RESUME, "IA32_PMC%u %llu before, %llu after unfreezing", r.ovf,
		    (unsigned long long)before, (unsigned long long)pmu_gp_read(r.ovf));
}
