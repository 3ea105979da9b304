/* SPDX-License-Identifier: MIT */
/*
 * AMD core performance counters (AMD64 APM Vol. 2 13.2): four legacy
 * PerfEvtSel / PerfCtr pairs at C001_0000H / C001_0004H; with
 * CPUID.80000001H:ECX[23] PerfCtrExtCore six pairs at C001_0200H + 2n /
 * C001_0201H + 2n, the legacy addresses aliasing the first four; with
 * CPUID.80000022H:EAX[0] PerfMonV2 the global control / status MSRs at
 * C000_0300H..0303H and EBX[3:0] counters. Counters are 48 bits wide.
 */
#include "sim.h"

/* This CPU's PMU state (g_sim is the running CPU, smp.c). */
#define P (&g_sim.pmu)

static bool is_amd(void)
{
	return caps_amd_like(&g_sim.caps);
}

static unsigned n_ctrs(void)
{
	unsigned n = g_sim.caps.amd.core_counters;
	if (!n)
		n = 4;
	return n > SIM_MAX_AMD_CORE ? SIM_MAX_AMD_CORE : n;
}

/* PerfEvtSel (APM Vol. 2 Figure 13-7): EventSelect[7:0], UnitMask[15:8],
 * USR 16, OS 17, Edge 18, INT 20, EN 22, Inv 23, CntMask[31:24],
 * EventSelect[11:8] at 35:32, HG_ONLY at 41:40; the rest reserved. */
#define AMD_SEL_VALID                                                                              \
	(GENMASK_ULL(18, 0) | BIT_ULL(20) | GENMASK_ULL(31, 22) | GENMASK_ULL(35, 32) |            \
	 GENMASK_ULL(41, 40))
#define AMD_SEL_RESERVED (~AMD_SEL_VALID & ~BIT_ULL(19))
/* What KVM clears from a guest's PerfEvtSel write (amd_pmu_set_msr(), its
 * pmu->reserved_bits = 0xfffffff000280000 from amd_pmu_refresh()): bits 19,
 * 21 and 63:36, HostOnly / GuestOnly included [quirk
 * kvm-amd-reserved-writes-dropped]. */
#define KVM_AMD_SEL_DROPPED (BIT_ULL(19) | BIT_ULL(21) | GENMASK_ULL(63, 36))

/* Which counter register an address names. */
enum amd_reg { AMD_NONE, AMD_LEGACY_SEL, AMD_LEGACY_CTR, AMD_EXT_SEL, AMD_EXT_CTR };
static enum amd_reg classify(uint32_t msr, unsigned *i)
{
	if (sim_msr_in(msr, MSR_K7_EVNTSEL0, 4, i))
		return AMD_LEGACY_SEL;
	if (sim_msr_in(msr, MSR_K7_PERFCTR0, 4, i))
		return AMD_LEGACY_CTR;
	/* PERF_CTLn and PERF_CTRn interleaved: CTL0, CTR0, CTL1, ... */
	if (sim_msr_in(msr, MSR_F15H_PERF_CTL0, 2 * SIM_MAX_AMD_CORE, i)) {
		bool ctr = *i % 2;
		*i /= 2;
		return ctr ? AMD_EXT_CTR : AMD_EXT_SEL;
	}
	return AMD_NONE;
}

static bool is_select(enum amd_reg k)
{
	return k == AMD_LEGACY_SEL || k == AMD_EXT_SEL;
}

static uint64_t *reg(enum amd_reg k, unsigned i)
{
	bool separate = quirk(Q_AMD_NOT_ALIASED) && g_sim.caps.amd.perfctr_core;
	switch (k) {
	case AMD_LEGACY_SEL:
		return separate ? &P->amd_lsel[i] : &P->amd_sel[i];
	case AMD_LEGACY_CTR:
		return separate ? &P->amd_lctr[i] : &P->amd_ctr[i];
	case AMD_EXT_SEL:
		return &P->amd_sel[i];
	default:
		return &P->amd_ctr[i];
	}
}

/* The extended MSRs exist with PerfCtrExtCore, for the counters there are. */
static bool exists(enum amd_reg k, unsigned i)
{
	if (k == AMD_EXT_SEL || k == AMD_EXT_CTR) {
		if (!g_sim.caps.amd.perfctr_core && !quirk(Q_AMD_EXT_WITHOUT_CORE))
			return false;
		if (i >= n_ctrs() && !(quirk(Q_AMD_EXT_WITHOUT_CORE) && i < 6))
			return false;
	}
	return true;
}

/* Whether an MSR is this family's, for RDMSR and WRMSR alike: a counter or
 * select (*k, index *i) or, with PerfMonV2, possibly a global register
 * (*k = AMD_NONE; the caller's switch decides). SIM_MSR_GP for an extended
 * MSR of a counter that does not exist. */
static enum sim_msr_result locate(uint32_t msr, enum amd_reg *k, unsigned *i)
{
	if (!is_amd())
		return SIM_MSR_NOT_MINE;
	*k = classify(msr, i);
	if (*k != AMD_NONE)
		return exists(*k, *i) ? SIM_MSR_OK : SIM_MSR_GP;
	return g_sim.caps.amd.perfmon_v2 ? SIM_MSR_OK : SIM_MSR_NOT_MINE;
}

/* IA32_EFER as the model keeps it: long mode on (SCE, LME, LMA, NXE: what
 * the kernel runs in) and SVME, which SVM (CPUID.80000001H:ECX[2]) allows. */
#define SIM_EFER_BASE 0xD01ULL
#define EFER_SVME     BIT_ULL(12)

static bool has_svm(void)
{
	struct cpuid_regs r;
	arch_cpuid(0x80000001, 0, &r);
	return r.ecx & BIT_ULL(2);
}

static enum sim_msr_result efer_access(uint64_t *val, bool write)
{
	if (!write) {
		*val = SIM_EFER_BASE | (P->amd_svme ? EFER_SVME : 0);
		return SIM_MSR_OK;
	}
	if ((*val & ~EFER_SVME) != SIM_EFER_BASE || ((*val & EFER_SVME) && !has_svm()))
		return SIM_MSR_GP;
	P->amd_svme = *val & EFER_SVME;
	return SIM_MSR_OK;
}

static enum sim_msr_result amd_rdmsr(uint32_t msr, uint64_t *val)
{
	enum amd_reg k;
	unsigned i;
	if (msr == MSR_IA32_EFER && is_amd())
		return efer_access(val, false);
	enum sim_msr_result r = locate(msr, &k, &i);
	if (r != SIM_MSR_OK)
		return r;
	if (k != AMD_NONE) {
		*val = quirk(Q_KVM_AMD_NO_VPMU) ? 0 : *reg(k, i);
		return SIM_MSR_OK;
	}
	switch (msr) {
	case MSR_AMD64_PERF_CNTR_GLOBAL_STATUS:
		*val = P->amd_global_status;
		return SIM_MSR_OK;
	case MSR_AMD64_PERF_CNTR_GLOBAL_CTL:
		*val = P->amd_global_ctl;
		return SIM_MSR_OK;
	case MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET:
		if (quirk(Q_AMD_STATUS_SET_GP))
			return SIM_MSR_GP;
		*val = 0;
		return SIM_MSR_OK;
	case MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR:
		*val = 0;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static enum sim_msr_result amd_wrmsr(uint32_t msr, uint64_t val)
{
	enum amd_reg k;
	unsigned i;
	uint64_t cmask = width_mask(n_ctrs());
	if (msr == MSR_IA32_EFER && is_amd())
		return efer_access(&val, true);
	enum sim_msr_result r = locate(msr, &k, &i);
	if (r != SIM_MSR_OK)
		return r;
	if (k != AMD_NONE && quirk(Q_KVM_AMD_NO_VPMU))
		return SIM_MSR_OK; /* dropped: nothing counts */
	if (k != AMD_NONE) {
		if (is_select(k)) {
			if (quirk(Q_KVM_AMD_RESERVED_DROPPED) ||
			    quirk(Q_KVM_AMD_MEDIATED_SEL_DROPPED))
				val &= ~KVM_AMD_SEL_DROPPED;
			if (val & AMD_SEL_RESERVED)
				return SIM_MSR_GP;
			if (quirk(Q_AMD_SEL_HIGH_RESERVED) &&
			    (val & (GENMASK_ULL(35, 32) | GENMASK_ULL(41, 40))))
				return SIM_MSR_GP;
			*reg(k, i) = val;
			if (i < SIM_MAX_AMD_CORE)
				P->amd_last[i] = false;
		} else {
			if (quirk(Q_AMD_RUNNING_WRITE_IGNORED) && i < SIM_MAX_AMD_CORE &&
			    (P->amd_sel[i] & BIT_ULL(22)))
				return SIM_MSR_OK;
			/* 48-bit counter: the model ignores bits 63:48. */
			*reg(k, i) = val & width_mask(AMD_COUNTER_WIDTH);
		}
		return SIM_MSR_OK;
	}
	/* KVM (kvm_pmu_set_msr()): a write to the read-only status is ignored,
	 * the reserved bits of the others are dropped, never #GP. A status
	 * clear clears what it names of KVM's status (global_status &= ~data):
	 * a status bit the model sets (the LBR freeze, where the CPUID of a
	 * bare-metal dump enumerates it) is cleared as named. */
	if (quirk(Q_KVM_AMD_RESERVED_DROPPED)) {
		if (msr == MSR_AMD64_PERF_CNTR_GLOBAL_STATUS)
			return SIM_MSR_OK;
		val &= cmask |
		       (msr == MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR ? amd_lbr_frozen_bit() : 0);
	}
	switch (msr) {
	case MSR_AMD64_PERF_CNTR_GLOBAL_STATUS:
		return SIM_MSR_GP; /* read-only */
	case MSR_AMD64_PERF_CNTR_GLOBAL_CTL:
		if (val & ~cmask)
			return SIM_MSR_GP;
		P->amd_global_ctl = val;
		return SIM_MSR_OK;
	case MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR:
		if (val & ~cmask & ~BIT_ULL(59) & ~amd_lbr_frozen_bit())
			return SIM_MSR_GP;
		P->amd_global_status &= ~val;
		return SIM_MSR_OK;
	case MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET:
		if (quirk(Q_AMD_STATUS_SET_GP))
			return SIM_MSR_GP;
		if (val & ~cmask & ~BIT_ULL(59))
			return SIM_MSR_GP;
		P->amd_global_status |= val;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static enum sim_event amd_event(uint64_t sel, unsigned ctr)
{
	unsigned e =
	    (unsigned)(sel & 0xFF) | (unsigned)(FIELD_GET_ULL(GENMASK_ULL(35, 32), sel) << 8);
	switch (e) {
	case 0x76: /* CPU clocks not halted */
		/* Family 15h: a CU event, PerfCtr0-2 only (Q_AMD_F15H_CU_EVENTS). */
		if (quirk(Q_AMD_CYCLES_NEVER_COUNT) || (quirk(Q_AMD_F15H_CU_EVENTS) && ctr > 2))
			return EV_NONE;
		return EV_CYCLES;
	case 0xC0: /* retired instructions */
		return EV_INSNS;
	case 0xC2: /* retired branch instructions */
		return quirk(Q_AMD_BRANCHES_AS_INSNS) ? EV_INSNS : EV_BRANCHES;
	case 0xC3: /* retired mispredicted branches */
		return quirk(Q_AMD_BR_MISS_NEVER_COUNTS) ? EV_NONE : EV_BR_MISS;
	default:
		return EV_NONE;
	}
}

/* HostOnly (10B) / GuestOnly (01B) in the model, which never runs a guest:
 * ignored while EFER.SVME = 0, and with SVME = 1 (host mode) GuestOnly alone
 * counts nothing (KVM's svm_pmu_host_guest_test). */
static bool hg_counts(uint64_t hg)
{
	if (!P->amd_svme)
		return !(quirk(Q_AMD_HG_NOTHING_NO_SVME) && (hg == 1 || hg == 2));
	return hg != 1 || quirk(Q_AMD_HG_SVME_IGNORED);
}

static void amd_collect(struct sim_counter_set *set)
{
	if (!is_amd())
		return;
	int first_en = -1;
	for (unsigned i = 0; i < n_ctrs() && first_en < 0; i++)
		if (P->amd_sel[i] & BIT_ULL(22))
			first_en = (int)i;
	for (unsigned i = 0; i < n_ctrs(); i++) {
		uint64_t sel = P->amd_sel[i];
		if (!(sel & BIT_ULL(22)))
			continue;
		if (quirk(Q_AMD_HG_BOTH_NOTHING) && FIELD_GET_ULL(GENMASK_ULL(41, 40), sel) == 3)
			continue;
		if (!hg_counts(FIELD_GET_ULL(GENMASK_ULL(41, 40), sel)))
			continue;
		if (g_sim.caps.amd.perfmon_v2 && !quirk(Q_AMD_GLOBAL_IGNORED) &&
		    !((P->amd_global_ctl >> i) & 1))
			continue;
		bool usr = sel & BIT_ULL(16), os = sel & BIT_ULL(17);
		if (!(g_sim.cpl == 0 ? os : usr))
			continue;
		uint64_t ev_sel = quirk(Q_AMD_EVTSEL_SHARED) ? P->amd_sel[first_en] : sel;
		struct sim_filter f = {
		    .ev = amd_event(ev_sel, i),
		    .cmask =
			quirk(Q_AMD_CNTMASK_IGNORED) ? 0 : FIELD_GET_ULL(GENMASK_ULL(31, 24), sel),
		    .inv = !quirk(Q_AMD_INV_IGNORED) && (sel & BIT_ULL(23)),
		    .edge = !quirk(Q_AMD_EDGE_IGNORED) && (sel & BIT_ULL(18)),
		};
		unsigned width = quirk(Q_AMD_WIDTH_47) ? AMD_COUNTER_WIDTH - 1 : AMD_COUNTER_WIDTH;
		sim_counter_add(set, &(struct sim_counter){&P->amd_ctr[i], &P->amd_last[i], width,
							   f, &sim_family_amd, 0, i});
	}
}

/* PerfCntrGlobalStatus bit 58, LBRs frozen, where LbrAndPmcFreeze is
 * enumerated (0 elsewhere). */
uint64_t amd_lbr_frozen_bit(void)
{
	return g_sim.caps.amd.perfmon_v2 && g_sim.caps.amd.lbr_pmc_freeze ? BIT_ULL(58) : 0;
}

static void amd_overflow(const struct sim_counter *c)
{
	unsigned i = c->idx;

	if (g_sim.caps.amd.perfmon_v2)
		P->amd_global_status |= BIT_ULL(i);
	if (quirk(Q_AMD_PMI_CTR0_ONLY) && i != 0)
		return;
	if (!(P->amd_sel[i] & BIT_ULL(20)) && !quirk(Q_AMD_PMI_WITHOUT_INT))
		return;
	/* LbrAndPmcFreeze (CPUID 8000_0022H EAX[2]) with DEBUGCTL.
	 * FREEZE_LBRS_ON_PMI: the PMI freezes the LBR stack and sets bit 58
	 * (Linux amd_pmu_v2_handle_irq(), GLOBAL_STATUS_LBRS_FROZEN). */
	if ((P->debugctl & DEBUGCTL_FREEZE_LBRS_ON_PMI) && !quirk(Q_AMD_LBR_FREEZE_IGNORED))
		P->amd_global_status |= amd_lbr_frozen_bit();
	sim_pmi_request();
}

/* APM Vol. 3 RDPMC: ECX is the index of a core counter. */
static enum sim_rdpmc_result amd_rdpmc(uint32_t ecx, uint64_t *v)
{
	if (!is_amd())
		return SIM_RDPMC_NOT_MINE;
	if (quirk(Q_KVM_AMD_NO_VPMU))
		return SIM_RDPMC_INVALID;
	if (ecx < n_ctrs()) {
		*v = P->amd_ctr[ecx] & width_mask(AMD_COUNTER_WIDTH);
		return SIM_RDPMC_READ;
	}
	if (quirk(Q_AMD_RDPMC_UNBOUNDED)) {
		*v = 0;
		return SIM_RDPMC_READ;
	}
	return SIM_RDPMC_INVALID;
}

/* PerfMonV2: PerfCntrGlobalCtl resets with the core counters enabled, so
 * that software unaware of it keeps working (APM Vol. 2 13.2.2). */
static void amd_reset(void)
{
	if (g_sim.caps.amd.perfmon_v2 && !quirk(Q_AMD_GLOBAL_CTL_RESET_ZERO))
		P->amd_global_ctl = width_mask(g_sim.caps.amd.core_counters);
}

const struct sim_family sim_family_amd =
    SIM_FAMILY("amd", amd_rdmsr, amd_wrmsr, amd_collect, amd_overflow, amd_rdpmc, amd_reset, NULL);
