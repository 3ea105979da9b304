// SPDX-License-Identifier: MIT
/*
 * Counters that do not count (quirks counter-1-dead, fixed-counter-0-dead,
 * counter-1-holds-never-counts, counter-0-counts-instructions-only,
 * cpu0-counters-dead, cpu1-counters-dead): one dead GP or fixed counter
 * among working ones, one that holds values but never counts, one that
 * counts some events only, one CPU whose counters are dead (the
 * architectural, P6-family and AMD counters; not NetBurst's). Two points of
 * the model: the counter MSRs (sim_rdmsr / sim_wrmsr in msr.c ask
 * dead_counter_msr() first) and the engine's collection of counting
 * counters (engine.c asks dead_counter_silent()).
 */
#include "sim.h"

#include "msr.h"

/* Counter i's value registers: IA32_PMCi, IA32_A_PMCi, AMD PerfCtri through
 * the legacy and the extended address. */
static bool counter_i_msr(uint32_t msr, unsigned i)
{
	return msr == MSR_IA32_PMC(i) || msr == MSR_IA32_A_PMC(i) ||
	       (i < 4 && msr == MSR_K7_PERFCTR0 + i) || msr == MSR_F15H_PERF_CTR0 + 2 * i;
}

/* Any counter's value register (GP, fixed, AMD core). */
static bool any_counter_msr(uint32_t msr)
{
	return (msr >= MSR_IA32_PMC(0) && msr < MSR_IA32_PMC(SIM_MAX_GP)) ||
	       (msr >= MSR_IA32_A_PMC(0) && msr < MSR_IA32_A_PMC(SIM_MAX_GP)) ||
	       (msr >= MSR_IA32_FIXED_CTR(0) && msr < MSR_IA32_FIXED_CTR(SIM_MAX_FIXED)) ||
	       (msr >= MSR_K7_PERFCTR0 && msr < MSR_K7_PERFCTR0 + 4) ||
	       (msr >= MSR_F15H_PERF_CTR0 && msr < MSR_F15H_PERF_CTR0 + 2 * SIM_MAX_AMD_CORE &&
		(msr - MSR_F15H_PERF_CTR0) % 2 == 0);
}

static bool this_cpu_dead(void)
{
	return (quirk(Q_CPU1_COUNTERS_DEAD) && g_sim.index == 1) ||
	       (quirk(Q_CPU0_COUNTERS_DEAD) && g_sim.index == 0);
}

bool dead_counter_msr(uint32_t msr)
{
	/* NetBurst's counters (300H-311H) share addresses with IA32_FIXED_CTRx;
	 * these quirks model the architectural, P6 and AMD counters only. */
	if (g_sim.caps.netburst)
		return false;
	return (quirk(Q_COUNTER1_DEAD) && counter_i_msr(msr, 1)) ||
	       (quirk(Q_FIXED0_DEAD) && msr == MSR_IA32_FIXED_CTR(0)) ||
	       (this_cpu_dead() && any_counter_msr(msr));
}

bool dead_counter_silent(const struct sim_counter *c)
{
	bool p6 = c->family == &sim_family_p6; /* PerfCtr0/1: IA32_PMC0/1's addresses */
	bool gp = (c->family == &sim_family_arch && c->kind == ARCH_GP) || p6;
	bool amd = c->family == &sim_family_amd;
	bool arch = c->family == &sim_family_arch;

	if (this_cpu_dead() && (arch || amd || p6))
		return true;
	if (quirk(Q_FIXED0_DEAD) && arch && c->kind == ARCH_FIXED && c->idx == 0)
		return true;
	if ((quirk(Q_COUNTER1_DEAD) || quirk(Q_COUNTER1_NEVER_COUNTS)) && (gp || amd) &&
	    c->idx == 1)
		return true;
	return quirk(Q_COUNTER0_INSNS_ONLY) && (gp || amd) && c->idx == 0 && c->f.ev != EV_INSNS;
}
