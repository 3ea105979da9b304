/* SPDX-License-Identifier: MIT */
/*
 * The PMI both LBR suites freeze on (suites/lbr.c, suites/arch_lbr.c): the
 * first GP counter counts instructions with INT, preset to overflow 64
 * instructions into the gated workload, interrupts on.
 */
#include "lbr.h"
#include "pmu.h"

void lbr_pmi_run(uint64_t debugctl_set, struct lbr_pmi_run *r)
{
	uint64_t dbg = rdmsr(MSR_IA32_DEBUGCTL) & ~(DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI);

	r->ovf = (unsigned)pmu_gp_nth(0);
	pmu_gp_program(r->ovf,
		       pmu_evtsel(ARCH_EVENT_INSTRUCTIONS,
				  PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_INT | PERFEVTSEL_EN),
		       0);
	pmu_gp_preload(r->ovf, 64);
	wrmsr(MSR_IA32_DEBUGCTL, dbg | debugctl_set);
	pmu_pmi_install(true, 0, false);
	pmu_run_gated_irq(pmu_gate_global(GLOBAL_PMC_BIT(r->ovf)), PMU_ITERS);
	r->status = g_pmi.status;
	r->pmis = g_pmi.count;
	pmu_pmi_uninstall();
	r->debugctl = rdmsr(MSR_IA32_DEBUGCTL);
	wrmsr(MSR_IA32_DEBUGCTL, dbg);
}
