/* SPDX-License-Identifier: MIT */
/*
 * RDMSR / WRMSR: privilege, then each family's MSRs in the order of
 * sim_families[] (the last, "cpu", the few non-PMU MSRs the suite touches). An MSR nobody claims
 * raises #GP(0) (Vol. 2B RDMSR/WRMSR: "If the value in ECX specifies a reserved or unimplemented
 * MSR address").
 */
#include "sim.h"
#include "trace.h"

static enum sim_msr_result cpu_rdmsr(uint32_t msr, uint64_t *val)
{
	const struct caps *c = &g_sim.caps;

	switch (msr) {
	case MSR_IA32_APIC_BASE:
		*val = 0xFEE00000ULL | APIC_BASE_BSP | APIC_BASE_EN;
		return SIM_MSR_OK;
	case MSR_IA32_DEBUGCTL:
		*val = g_sim.pmu.debugctl;
		return SIM_MSR_OK;
	case MSR_SMI_COUNT:
		return sim_smi_count(val) ? SIM_MSR_OK : SIM_MSR_NOT_MINE;
	case MSR_IA32_PERF_CAPABILITIES:
		/* Exists when CPUID.01H:ECX[15] PDCM (Vol. 4 Table 2-2, 345H). */
		if (!c->pdcm) {
			if (!quirk(Q_PERF_CAP_WITHOUT_PDCM))
				return SIM_MSR_NOT_MINE;
			*val = 0;
			return SIM_MSR_OK;
		}
		*val = g_sim.perf_cap;
		return SIM_MSR_OK;
	case MSR_IA32_MISC_ENABLE:
		if (c->vendor != VENDOR_INTEL)
			return SIM_MSR_NOT_MINE;
		/* Bit 7 PERF_MON_AVAILABLE, bit 12 PEBS_UNAVAILABLE (RO). */
		*val = (g_sim.arch_pmu || c->netburst ? MISC_ENABLE_PERF_MON_AVAILABLE : 0) |
		       (c->ds ? 0 : MISC_ENABLE_PEBS_UNAVAILABLE) | BIT_ULL(0) |
		       (g_sim.cpuid_limited ? MISC_ENABLE_LIMIT_CPUID : 0);
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static enum sim_msr_result cpu_wrmsr(uint32_t msr, uint64_t val)
{
	const struct caps *c = &g_sim.caps;
	uint64_t valid;

	switch (msr) {
	case MSR_IA32_APIC_BASE:
		return SIM_MSR_OK; /* the model keeps the APIC where it is */
	case MSR_SMI_COUNT: {	   /* read only (SDM Vol. 4 Table 2-20) */
		uint64_t v;
		return sim_smi_count(&v) ? SIM_MSR_GP : SIM_MSR_NOT_MINE;
	}
	case MSR_IA32_DEBUGCTL:
		/* Vol. 3B Figure 18-3: LBR(0), BTF(1), TR(6), BTS(7), BTINT(8),
		 * BTS_OFF_OS(9), BTS_OFF_USR(10), FREEZE_LBRS_ON_PMI(11),
		 * FREEZE_PERFMON_ON_PMI(12), FREEZE_WHILE_SMM(14, when
		 * IA32_PERF_CAPABILITIES[12]); the rest reserved, #GP(0). */
		valid = BIT_ULL(0) | BIT_ULL(1) | GENMASK_ULL(12, 6);
		if (g_sim.perf_cap & PERF_CAP_FREEZE_WHILE_SMM)
			valid |= DEBUGCTL_FREEZE_WHILE_SMM;
		/* Nehalem: bit 13 ENABLE_UNCORE_PMI (Vol. 3B 20.3.1.2). */
		if (c->nehalem_uncore)
			valid |= DEBUGCTL_ENABLE_UNCORE_PMI;
		if (val & ~valid)
			return SIM_MSR_GP;
		if ((val & DEBUGCTL_FREEZE_PERFMON_ON_PMI) && quirk(Q_DEBUGCTL_FREEZE_GP))
			return SIM_MSR_GP;
		g_sim.pmu.debugctl = val;
		return SIM_MSR_OK;
	case MSR_IA32_PERF_CAPABILITIES:
		if (!c->pdcm)
			return SIM_MSR_NOT_MINE;
		/* Read-only (Vol. 4 Table 2-2, 345H "RO"). */
		if (quirk(Q_PERF_CAP_CLEAR_ACCEPTED) && !(val & ~g_sim.perf_cap) &&
		    val != g_sim.perf_cap)
			return SIM_MSR_OK;
		return quirk(Q_PERF_CAP_WRITABLE) ? SIM_MSR_OK : SIM_MSR_GP;
	case MSR_IA32_MISC_ENABLE:
		if (c->vendor != VENDOR_INTEL)
			return SIM_MSR_NOT_MINE;
		/* Bit 22 Limit CPUID Maxval is read/write (Vol. 4 Table 2-2). */
		g_sim.cpuid_limited = (val & MISC_ENABLE_LIMIT_CPUID) != 0;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

/* The processor's own MSRs that the suite touches: a family without
 * counters, last in the dispatch order. */
const struct sim_family sim_family_cpu =
    SIM_FAMILY("cpu", cpu_rdmsr, cpu_wrmsr, NULL, NULL, NULL, NULL, NULL);

/* The first family that claims the address decides: RDMSR into *val, or
 * WRMSR of *val. */
static enum sim_msr_result family_access(uint32_t msr, uint64_t *val, bool write)
{
	for (unsigned i = 0; i < sim_family_count; i++) {
		const struct sim_family *f = sim_families[i];
		enum sim_msr_result r = SIM_MSR_NOT_MINE;
		if (write && f->wrmsr)
			r = f->wrmsr(msr, *val);
		else if (!write && f->rdmsr)
			r = f->rdmsr(msr, val);
		if (r != SIM_MSR_NOT_MINE)
			return r;
	}
	return SIM_MSR_NOT_MINE;
}

/* A PMU MSR by address, for the no-PMU read-as-zero quirk. */
static bool pmu_msr_address(uint32_t msr)
{
	return (msr >= 0xC1 && msr <= 0xC8) || (msr >= 0x186 && msr <= 0x18D) ||
	       (msr >= 0x309 && msr <= 0x30C) || (msr >= 0x38D && msr <= 0x392) ||
	       (msr >= 0x4C1 && msr <= 0x4C8) || msr == MSR_IA32_PERF_METRICS;
}

/* The two P6 counters and their event selects (C1H, C2H, 186H, 187H). */
static bool p6_counter_msr(uint32_t msr)
{
	return msr == MSR_IA32_PMC0 || msr == MSR_IA32_PMC0 + 1 || msr == MSR_IA32_PERFEVTSEL0 ||
	       msr == MSR_IA32_PERFEVTSEL0 + 1;
}

/* MSRs no family claims that a no-PMU quirk still answers (read 0, write
 * ignored). */
static bool no_pmu_raz(uint32_t msr)
{
	return (quirk(Q_NO_PMU_MSRS_RAZ) && pmu_msr_address(msr)) ||
	       (quirk(Q_KVM_P6_MSRS_RAZ) && p6_counter_msr(msr));
}

int sim_rdmsr(uint32_t msr, uint64_t *val)
{
	/* Vol. 2B RDMSR: #GP(0) if the current privilege level is not 0. */
	if (g_sim.cpl != 0 && !quirk(Q_MSR_CPL_UNCHECKED))
		return X86_VEC_GP;
	enum sim_msr_result r = family_access(msr, val, false);
	if (r == SIM_MSR_OK && dead_counter_msr(msr))
		*val = 0;
	if (r == SIM_MSR_NOT_MINE && no_pmu_raz(msr)) {
		*val = 0;
		r = SIM_MSR_OK;
	}
	/* An MSR nobody claims does not exist: #GP(0). */
	return r == SIM_MSR_OK ? 0 : X86_VEC_GP;
}

int sim_wrmsr(uint32_t msr, uint64_t val)
{
	if (g_sim.cpl != 0 && !quirk(Q_MSR_CPL_UNCHECKED))
		return X86_VEC_GP;
	sim_msr_trace_before_write(msr);
	uint64_t old;
	/* A dead counter that exists takes the write and drops it. */
	enum sim_msr_result r =
	    dead_counter_msr(msr) && family_access(msr, &old, false) == SIM_MSR_OK
		? SIM_MSR_OK
		: family_access(msr, &val, true);
	if (r == SIM_MSR_NOT_MINE && no_pmu_raz(msr))
		r = SIM_MSR_OK;
	sim_msr_trace_write(msr, r == SIM_MSR_OK ? 0 : X86_VEC_GP);
	return r == SIM_MSR_OK ? 0 : X86_VEC_GP;
}

/* ---- include/arch.h ---------------------------------------------------- */

/* The kernel's access trace (kernel/trace.h) sees what the machine's probes
 * can show it: accesses at CPL 0. */
static void trace(enum trace_op op, uint32_t msr, uint64_t val, int vec)
{
	if (g_sim.cpl == 0)
		trace_access(op, msr, val, vec);
}

__user_code int rdmsr_safe(uint32_t msr, uint64_t *val)
{
	int v = sim_rdmsr(msr, val);
	g_sim.fault_error_code = 0; /* every MSR fault here is #GP(0) */
	trace(TRACE_RDMSR, msr, *val, v);
	return v;
}

__user_code int wrmsr_safe(uint32_t msr, uint64_t val)
{
	int v = sim_wrmsr(msr, val);
	g_sim.fault_error_code = 0;
	trace(TRACE_WRMSR, msr, val, v);
	return v;
}

uint64_t rdmsr(uint32_t msr)
{
	uint64_t v = 0;
	int vec = sim_rdmsr(msr, &v);
	trace(TRACE_RDMSR, msr, v, vec);
	if (vec)
		sim_raise(vec, 0, (uint64_t)__builtin_return_address(0), 0);
	return v;
}

void wrmsr(uint32_t msr, uint64_t val)
{
	int vec = sim_wrmsr(msr, val);
	trace(TRACE_WRMSR, msr, val, vec);
	if (vec)
		sim_raise(vec, 0, (uint64_t)__builtin_return_address(0), 0);
}

uint32_t arch_fault_error_code(void)
{
	return g_sim.fault_error_code;
}
