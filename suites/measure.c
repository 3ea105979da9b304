/* SPDX-License-Identifier: MIT */
/*
 * Measurements, reported as diagnostics and in the report (t_measure): the
 * cost of RDPMC (GP, fixed, fast where valid), of RDMSR and WRMSR of a
 * counter, and PMI latency and skid. Each figure is a mean over MEASURE_N
 * back-to-back operations in TSC ticks, probe-call overhead included. The
 * checks here only assert that what was timed did work.
 */
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

#define MEASURE_N 1000

static uint64_t time_rdpmc(uint64_t ecx, unsigned *faults)
{
	uint64_t rax, rdx, t0 = arch_rdtsc();

	for (unsigned k = 0; k < MEASURE_N; k++)
		*faults += rdpmc_safe(ecx, &rax, &rdx) != 0;
	return (arch_rdtsc() - t0) / MEASURE_N;
}

TEST(measure, rdpmc_rdmsr_wrmsr_cost, REQ_ARCH_PMU | REQ_GP_COUNTER)
{
	unsigned faults = 0;
	uint64_t t0, v = 0;
	int c = pmu_gp_nth(0);
	uint32_t pmc;

	pmc = MSR_IA32_PMC(c);
	t_measure(t, "rdpmc.gp", time_rdpmc(RDPMC_ECX(RDPMC_TYPE_GP, c), &faults), "tsc_cycles");
	expect_eq(t, faults, 0, RULE_RDPMC_GP, "faults timing RDPMC of IA32_PMC%d", c);
	if (pmu_fixed_present(0)) {
		faults = 0;
		t_measure(t, "rdpmc.fixed", time_rdpmc(RDPMC_ECX(RDPMC_TYPE_FIXED, 0), &faults),
			  "tsc_cycles");
		expect_eq(t, faults, 0, RULE_RDPMC_FIXED, "faults timing RDPMC of IA32_FIXED_CTR0");
	}
	t0 = arch_rdtsc();
	for (unsigned k = 0; k < MEASURE_N; k++)
		v += rdmsr(pmc);
	t_measure(t, "rdmsr.pmc", (arch_rdtsc() - t0) / MEASURE_N, "tsc_cycles");
	t0 = arch_rdtsc();
	for (unsigned k = 0; k < MEASURE_N; k++)
		wrmsr(pmc, k);
	t_measure(t, "wrmsr.pmc", (arch_rdtsc() - t0) / MEASURE_N, "tsc_cycles");
	if (t_counter_holds(t, GP_COUNTER((unsigned)c)))
		expect_eq(t, rdmsr(pmc), MEASURE_N - 1, RULE_LEGACY_WRITE,
			  "IA32_PMC%d after the timed writes (last value written)", c);
	(void)v;
}

TEST(measure, fast_rdpmc_cost, REQ_NETBURST)
{
	unsigned faults = 0;

	t_measure(t, "rdpmc.fast", time_rdpmc(RDPMC_FAST | 0, &faults), "tsc_cycles");
	t_measure(t, "rdpmc.full", time_rdpmc(0, &faults), "tsc_cycles");
	expect_eq(t, faults, 0, RULE_RDPMC_FAST_NONARCH, "faults timing NetBurst RDPMC");
}

/*
 * PMI latency and skid. IA32_PMC0 counts instructions from -K, INT set; the
 * handler reads the TSC and the counter. Latency: TSC at handler entry minus
 * TSC at the start of the run, less the time the same run takes to retire K
 * instructions without a PMI (calibration). Skid: the counter's value in the
 * handler, i.e. instructions retired after the overflow (the handler's own
 * few instructions before its RDMSR included). Skid is not architectural, but
 * that the counter has wrapped by then is: a PMI taken before the overflow
 * would find it near all ones.
 */
TEST(measure, pmi_latency_and_skid,
     REQ_ARCH_PMU | REQ_APIC | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	const uint64_t k = 1000;
	uint64_t sel =
	    pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_INT);
	struct pmu_gate g;
	uint64_t t0, calib;
	int c = pmu_gp_nth(0);

	if (!t_counter_counts(t, GP_COUNTER((unsigned)c)))
		return;
	g = pmu_has_global() ? pmu_gate_global(GLOBAL_PMC_BIT(c))
			     : pmu_gate_evtsel((unsigned)c, sel);
	/* calibration: K instructions' worth of workload, no overflow */
	pmu_gp_program((unsigned)c, pmu_has_global() ? sel | PERFEVTSEL_EN : sel, 0);
	t0 = arch_rdtsc();
	pmu_run_gated(g, k / WORKLOAD_INSNS_PER_ITER);
	calib = arch_rdtsc() - t0;
	/* the real run */
	pmu_pmi_install(true, MSR_IA32_PMC(c), false);
	pmu_gp_program((unsigned)c, pmu_has_global() ? sel | PERFEVTSEL_EN : sel, 0);
	pmu_gp_preload((unsigned)c, k);
	t0 = arch_rdtsc();
	pmu_run_gated_irq(g, PMU_ITERS);
	if (!expect_eq(t, g_pmi.count, 1, RULE_PMI_DELIVER, "PMIs in the latency run"))
		return;
	t_measure(t, "pmi.latency", g_pmi.tsc - t0 > calib ? g_pmi.tsc - t0 - calib : 0,
		  "tsc_cycles");
	t_measure(t, "pmi.skid", g_pmi.watched, "instructions");
	/* wrapped: at most what the whole run retires after the overflow */
	expect_range(t, g_pmi.watched, 0, PMU_ITERS * WORKLOAD_INSNS_PER_ITER + PMU_OVERHEAD_EVENTS,
		     RULE_PMI_AFTER_OVERFLOW, "IA32_PMC%d read in the PMI handler", c);
	pmu_pmi_uninstall();
}
