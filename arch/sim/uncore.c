/* SPDX-License-Identifier: MIT */
/*
 * The Nehalem uncore PMU (SDM Vol. 3B 20.3.1.2, Vol. 4 Table 2-15,
 * "Performance Monitoring Facility in the Uncore"), present on DisplayFamily 06H with
 * DisplayModel 1AH, 1EH, 1FH, 2EH: eight 48-bit GP counters, one 48-bit
 * fixed counter, a global control / status / overflow-control set.
 *
 * Counting model: the uncore clock ticks once per core cycle of the
 * workload; every uncore event counts those ticks (the fixed counter counts
 * them by definition), with EDGE / INV / CMASK applied. The uncore does not
 * filter by CPL.
 */
#include "sim.h"

/* This CPU's PMU state (g_sim is the running CPU, smp.c). */
#define P (&g_sim.pmu)

static unsigned width(void)
{
	return quirk(Q_UNC_WIDTH32) ? 32 : UNCORE_WIDTH;
}

/* MSR_UNCORE_PerfEvtSelx (Figure 20-31): event 7:0, umask 15:8,
 * OCC_CTR_RST 17, edge 18, PMI 20, EN 22, INV 23, CMASK 31:24. */
#define UNC_SEL_VALID                                                                              \
	(GENMASK_ULL(15, 0) | BIT_ULL(17) | BIT_ULL(18) | BIT_ULL(20) | GENMASK_ULL(31, 22))
/* MSR_UNCORE_PERF_GLOBAL_CTRL (Figure 20-29): EN_PC0..7, EN_FC0,
 * EN_PMI_CORE0..3, PMI_FRZ. */
#define UNC_GLOBAL_VALID                                                                           \
	(GENMASK_ULL(7, 0) | UNCORE_GLOBAL_EN_FC0 | GENMASK_ULL(51, 48) | UNCORE_GLOBAL_PMI_FRZ)
/* MSR_UNCORE_PERF_GLOBAL_STATUS (Figure 20-30): OVF_PC0..7, OVF_FC0,
 * OVF_PMI (61), CHG (63). */
#define UNC_STATUS_VALID (GENMASK_ULL(7, 0) | BIT_ULL(32) | BIT_ULL(61) | BIT_ULL(63))

static enum sim_msr_result uncore_rdmsr(uint32_t msr, uint64_t *val)
{
	if (!g_sim.caps.nehalem_uncore)
		return SIM_MSR_NOT_MINE;
	if (sim_msr_read_bank(msr, MSR_UNCORE_PMC0, UNCORE_NUM_GP, P->unc.pmc, val) ||
	    sim_msr_read_bank(msr, MSR_UNCORE_PERFEVTSEL0, UNCORE_NUM_GP, P->unc.sel, val))
		return SIM_MSR_OK;
	switch (msr) {
	case MSR_UNCORE_PERF_GLOBAL_CTRL:
		*val = P->unc.global_ctrl;
		return SIM_MSR_OK;
	case MSR_UNCORE_PERF_GLOBAL_STATUS:
		*val = P->unc.status;
		return SIM_MSR_OK;
	case MSR_UNCORE_PERF_GLOBAL_OVF_CTRL:
		*val = 0; /* write-only: reads 0 */
		return SIM_MSR_OK;
	case MSR_UNCORE_FIXED_CTR0:
		*val = P->unc.fixed;
		return SIM_MSR_OK;
	case MSR_UNCORE_FIXED_CTR_CTRL:
		*val = P->unc.fixed_ctrl;
		return SIM_MSR_OK;
	case MSR_UNCORE_ADDR_OPCODE_MATCH:
		*val = P->unc.opcode;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static enum sim_msr_result uncore_wrmsr(uint32_t msr, uint64_t val)
{
	uint64_t m = width_mask(width());
	unsigned i;
	if (!g_sim.caps.nehalem_uncore)
		return SIM_MSR_NOT_MINE;
	if (sim_msr_in(msr, MSR_UNCORE_PMC0, UNCORE_NUM_GP, &i)) {
		/* 48-bit counters: bits above are reserved. */
		if (val & ~width_mask(UNCORE_WIDTH))
			return SIM_MSR_GP;
		P->unc.pmc[i] = val & m;
		return SIM_MSR_OK;
	}
	if (sim_msr_in(msr, MSR_UNCORE_PERFEVTSEL0, UNCORE_NUM_GP, &i)) {
		if (val & ~UNC_SEL_VALID)
			return SIM_MSR_GP;
		P->unc.sel[i] = val;
		P->unc.last[i] = false;
		return SIM_MSR_OK;
	}
	switch (msr) {
	case MSR_UNCORE_PERF_GLOBAL_CTRL:
		if ((val & ~UNC_GLOBAL_VALID) && !quirk(Q_UNC_GLOBAL_CTRL_RESERVED))
			return SIM_MSR_GP;
		P->unc.global_ctrl = val;
		return SIM_MSR_OK;
	case MSR_UNCORE_PERF_GLOBAL_STATUS:
		if (quirk(Q_UNC_STATUS_WRITABLE)) {
			P->unc.status = val;
			return SIM_MSR_OK;
		}
		return SIM_MSR_GP; /* read-only */
	case MSR_UNCORE_PERF_GLOBAL_OVF_CTRL:
		if (val & ~UNC_STATUS_VALID)
			return SIM_MSR_GP;
		P->unc.status &= ~val;
		return SIM_MSR_OK;
	case MSR_UNCORE_FIXED_CTR0:
		if (val & ~width_mask(UNCORE_WIDTH))
			return SIM_MSR_GP;
		P->unc.fixed = val & m;
		return SIM_MSR_OK;
	case MSR_UNCORE_FIXED_CTR_CTRL:
		/* Figure "Layout of MSR_UNCORE_FIXED_CTR_CTRL": EN 0, PMI 2,
		 * the rest reserved (Vol. 2B WRMSR: #GP(0)). */
		if ((val & ~(UNCORE_FIXED_CTRL_EN | UNCORE_FIXED_CTRL_PMI)) &&
		    !quirk(Q_UNC_FIXED_CTRL_RESERVED))
			return SIM_MSR_GP;
		P->unc.fixed_ctrl = val;
		return SIM_MSR_OK;
	case MSR_UNCORE_ADDR_OPCODE_MATCH:
		P->unc.opcode = val;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static bool enabled(uint64_t bit)
{
	return quirk(Q_UNC_GLOBAL_IGNORED) || (P->unc.global_ctrl & bit);
}

/* The family's counter kinds (struct sim_counter.kind). */
enum uncore_counter_kind { UNCORE_GP, UNCORE_FIXED };

static void uncore_collect(struct sim_counter_set *set)
{
	if (!g_sim.caps.nehalem_uncore)
		return;
	for (unsigned i = 0; i < UNCORE_NUM_GP; i++) {
		uint64_t sel = P->unc.sel[i];
		/* EN (bit 22) and EN_PCx in the global control (Vol. 3B 20.3.1.2). */
		if (!(sel & UNCORE_EVTSEL_EN) || !enabled(BIT_ULL(i)))
			continue;
		struct sim_filter f = {
		    .ev = EV_CYCLES,
		    .cmask = FIELD_GET_ULL(UNCORE_EVTSEL_CMASK, sel),
		    .inv = sel & UNCORE_EVTSEL_INV,
		    .edge = sel & UNCORE_EVTSEL_EDGE,
		};
		sim_counter_add(set, &(struct sim_counter){&P->unc.pmc[i], &P->unc.last[i], width(),
							   f, &sim_family_uncore, UNCORE_GP, i});
	}
	if ((P->unc.fixed_ctrl & UNCORE_FIXED_CTRL_EN) && enabled(UNCORE_GLOBAL_EN_FC0)) {
		struct sim_filter f = {.ev = EV_CYCLES};
		sim_counter_add(set, &(struct sim_counter){&P->unc.fixed,
							   &P->unc.last[UNCORE_NUM_GP], width(), f,
							   &sim_family_uncore, UNCORE_FIXED, 0});
	}
}

/* Overflow (Vol. 3B 20.3.1.2): OVF bit and CHG. With the counter's PMI bit
 * the uncore makes an interrupt request: OVF_PMI is set, with PMI_FRZ every
 * uncore counter is disabled (the global enables are cleared: software
 * "must explicitly re-enable" them), and the request reaches the cores whose
 * EN_PMI_COREx is set (each CPU's core: smp.c) that have
 * IA32_DEBUGCTL.ENABLE_UNCORE_PMI set ("PMI delivery due to an uncore
 * counter overflow is enabled by setting IA32_DEBUGCTL.Offcore_PMI_EN"). */
static void uncore_overflow(const struct sim_counter *c)
{
	bool fixed = c->kind == UNCORE_FIXED;
	unsigned idx = c->idx;
	bool pmi = fixed ? (P->unc.fixed_ctrl & UNCORE_FIXED_CTRL_PMI)
			 : (P->unc.sel[idx] & UNCORE_EVTSEL_PMI);

	P->unc.status |= fixed ? UNCORE_STATUS_FC0 : BIT_ULL(idx);
	if (!quirk(Q_UNC_CHG_NOT_SET))
		P->unc.status |= UNCORE_STATUS_CHG;
	if (!pmi)
		return;
	if (!quirk(Q_UNC_OVF_PMI_NOT_SET))
		P->unc.status |= UNCORE_STATUS_OVF_PMI;
	if ((P->unc.global_ctrl & UNCORE_GLOBAL_PMI_FRZ) && !quirk(Q_UNC_PMI_FRZ_IGNORED))
		P->unc.global_ctrl &= ~(GENMASK_ULL(7, 0) | UNCORE_GLOBAL_EN_FC0);
	if (quirk(Q_UNC_PMI_NOT_DELIVERED))
		return;
	/* Every CPU of the package whose core is selected (smp.c: one package;
	 * a one-CPU machine is core 0). */
	uint64_t en = P->unc.global_ctrl & GENMASK_ULL(51, 48);
	for (unsigned i = 0; i < sim_cpu_count(); i++) {
		struct sim_cpu *cpu = sim_cpu_at(i);
		unsigned core = sim_core_of(cpu);
		bool routed = (core < 4 && (en & UNCORE_GLOBAL_EN_PMI_CORE(core))) ||
			      quirk(Q_UNC_PMI_IGNORES_EN_CORE);
		if (quirk(Q_SMP_UNC_PMI_CORE0))
			routed = en && core == 0;
		bool accepted = (cpu->pmu.debugctl & DEBUGCTL_ENABLE_UNCORE_PMI) ||
				quirk(Q_UNC_PMI_IGNORES_DEBUGCTL);
		if (routed && accepted)
			sim_pmi_request_on(cpu);
	}
}

const struct sim_family sim_family_uncore =
    SIM_FAMILY("nehalem-uncore", uncore_rdmsr, uncore_wrmsr, uncore_collect, uncore_overflow, NULL,
	       NULL, NULL);
