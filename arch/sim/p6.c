/* SPDX-License-Identifier: MIT */
/*
 * P6-family counters (Pentium Pro, Pentium II, Pentium III, Pentium M), SDM
 * Vol. 3B "Performance Monitoring (P6 Family Processor)": two 40-bit
 * counters PerfCtr0/1 (C1H/C2H) and their event selects PerfEvtSel0/1
 * (186H/187H), on an Intel DisplayFamily 06H CPU without leaf 0AH
 * (caps.p6).
 *
 *  - PerfEvtSel: event 7:0, unit mask 15:8, USR 16, OS 17, E 18, PC 19,
 *    INT 20, EN 22, INV 23, CMASK 31:24. EN "is only present in the
 *    PerfEvtSel0 MSR" and enables counting in both counters; bit 22 of
 *    PerfEvtSel1 has no effect. The registers are 32 bits: bits 63:32 do
 *    not exist (WRMSR setting them raises #GP(0), Vol. 2B WRMSR).
 *  - PerfCtr: 40 bits; a WRMSR writes bits 31:0 and bits 39:32 take the
 *    sign of bit 31 ("so that both positive and negative values can be
 *    written"); RDMSR and RDPMC return all 40 bits.
 *  - RDPMC: ECX selects PerfCtr0 or PerfCtr1; any other value raises
 *    #GP(0) (Vol. 2B RDPMC).
 *  - Events modelled: C0H INST_RETIRED, 79H CPU_CLK_UNHALTED, C4H
 *    BR_INST_RETIRED (the P6 event table); others count nothing. CMASK,
 *    INV and E apply as on the architectural PMU.
 */
#include "sim.h"

/* This CPU's PMU state (g_sim is the running CPU, smp.c). */
#define P (&g_sim.pmu)

static bool is_p6(void)
{
	return g_sim.caps.p6;
}

static enum sim_msr_result p6_rdmsr(uint32_t msr, uint64_t *val)
{
	if (!is_p6())
		return SIM_MSR_NOT_MINE;
	if (sim_msr_read_bank(msr, MSR_P6_PERFCTR(0), P6_NUM_COUNTERS, P->p6_ctr, val) ||
	    sim_msr_read_bank(msr, MSR_P6_EVNTSEL(0), P6_NUM_COUNTERS, P->p6_sel, val))
		return SIM_MSR_OK;
	return SIM_MSR_NOT_MINE;
}

static enum sim_msr_result p6_wrmsr(uint32_t msr, uint64_t val)
{
	unsigned i;

	if (!is_p6())
		return SIM_MSR_NOT_MINE;
	if (sim_msr_in(msr, MSR_P6_PERFCTR(0), P6_NUM_COUNTERS, &i)) {
		uint64_t lo = val & 0xFFFFFFFFULL;
		if ((lo & BIT_ULL(31)) && !quirk(Q_P6_NO_SIGN_EXTEND))
			lo |= GENMASK_ULL(P6_COUNTER_WIDTH - 1, 32);
		P->p6_ctr[i] = lo;
		return SIM_MSR_OK;
	}
	if (sim_msr_in(msr, MSR_P6_EVNTSEL(0), P6_NUM_COUNTERS, &i)) {
		if (val & P6_EVTSEL_RESERVED)
			return SIM_MSR_GP;
		P->p6_sel[i] = val;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static enum sim_event p6_event(uint64_t sel)
{
	switch (FIELD_GET_ULL(PERFEVTSEL_EVENT, sel)) {
	case P6_EVT_INST_RETIRED:
		return EV_INSNS;
	case P6_EVT_CPU_CLK_UNHALTED:
		return EV_CYCLES;
	case P6_EVT_BR_INST_RETIRED:
		return EV_BRANCHES;
	default:
		return EV_NONE;
	}
}

/* Does counter i count now? PerfEvtSel0.EN gates both. */
static bool p6_enabled(unsigned i)
{
	if (quirk(Q_P6_EN_IGNORED))
		return true;
	if (quirk(Q_P6_EN_PER_COUNTER))
		return P->p6_sel[i] & PERFEVTSEL_EN;
	return P->p6_sel[0] & PERFEVTSEL_EN;
}

static void p6_collect(struct sim_counter_set *set)
{
	if (!is_p6())
		return;
	for (unsigned i = 0; i < P6_NUM_COUNTERS; i++) {
		uint64_t sel = P->p6_sel[i];
		bool cpl_ok = g_sim.cpl == 0 ? (sel & PERFEVTSEL_OS) : (sel & PERFEVTSEL_USR);
		enum sim_event ev = p6_event(sel);

		if (!p6_enabled(i) || !cpl_ok || ev == EV_NONE)
			continue;
		struct sim_filter f = {
		    .ev = ev,
		    .cmask = (unsigned)FIELD_GET_ULL(PERFEVTSEL_CMASK, sel),
		    .inv = sel & PERFEVTSEL_INV,
		    .edge = sel & PERFEVTSEL_EDGE,
		};
		sim_counter_add(set,
				&(struct sim_counter){&P->p6_ctr[i], &P->p6_last[i],
						      P6_COUNTER_WIDTH, f, &sim_family_p6, 0, i});
	}
}

/* INT (bit 20): an overflow raises a PMI through the local APIC. */
static void p6_overflow(const struct sim_counter *c)
{
	if (P->p6_sel[c->idx] & PERFEVTSEL_INT)
		sim_pmi_request();
}

static enum sim_rdpmc_result p6_rdpmc(uint32_t ecx, uint64_t *v)
{
	if (!is_p6())
		return SIM_RDPMC_NOT_MINE;
	if (ecx >= P6_NUM_COUNTERS)
		return SIM_RDPMC_INVALID;
	*v = P->p6_ctr[ecx] & width_mask(P6_COUNTER_WIDTH);
	return SIM_RDPMC_READ;
}

const struct sim_family sim_family_p6 =
    SIM_FAMILY("p6", p6_rdmsr, p6_wrmsr, p6_collect, p6_overflow, p6_rdpmc, NULL, NULL);
