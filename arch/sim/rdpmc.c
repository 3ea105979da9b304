/* SPDX-License-Identifier: MIT */
/*
 * RDPMC, exactly as SDM Vol. 2B "RDPMC" (../shared/spec/rdpmc.txt):
 *  - RCX[63:32] ignored; RAX[63:32] and RDX[63:32] cleared;
 *  - CR4.PCE clear: only CPL 0 may execute it, else #GP(0);
 *  - architectural PMU: ECX[31:16] type, ECX[15:0] index: type 0 GP
 *    (index < CPUID.0AH:EAX[15:8]), type 4000H fixed (EDX[4:0] > x or
 *    ECX[x] = 1), type 2000H PERF_METRICS (PERF_CAPABILITIES[15]);
 *  - no architectural PMU: ECX[30:0] index, ECX[31] fast read (EAX = bits
 *    31:0, EDX = 0);
 *  - unimplemented bits read as zero; any other encoding #GP(0).
 * AMD (APM Vol. 3 RDPMC): ECX is the index of a core counter.
 */
#include "sim.h"

#define TYPE_GP	     0x0000U
#define TYPE_FIXED   0x4000U
#define TYPE_METRICS 0x2000U

static bool arch_read(uint32_t ecx, uint64_t *v)
{
	const struct caps *c = &g_sim.caps;

	if (ecx & BIT_ULL(31)) {
		/* Fast read is for non-architectural PMUs only: on an
		 * architectural PMU bit 31 is part of the type, unsupported. */
		if (!quirk(Q_RDPMC_FAST_ON_ARCH))
			return false;
		ecx &= ~(uint32_t)BIT_ULL(31);
	}
	uint32_t type = ecx >> 16, idx = ecx & 0xFFFF;
	if (quirk(Q_RDPMC_TYPE_FLAGS)) {
		/* ECX[30] read as "fixed", ECX[29] as "metrics", the rest of
		 * the type ignored. */
		type = (ecx & BIT_ULL(30))   ? TYPE_FIXED
		       : (ecx & BIT_ULL(29)) ? TYPE_METRICS
					     : TYPE_GP;
	}
	switch (type) {
	case TYPE_GP:
		if (quirk(Q_RDPMC_INDEX_TRUNC))
			idx &= 0xFF;
		if (sim_arch_gp_value(idx, v)) {
			*v &= quirk(Q_WIDTH_NOT_MASKED) ? ~0ULL : width_mask(g_sim.gp_width);
			if (quirk(Q_RDPMC_SIGN_EXT) && g_sim.gp_width < 64 &&
			    ((*v >> (g_sim.gp_width - 1)) & 1))
				*v |= ~width_mask(g_sim.gp_width);
			return true;
		}
		if (quirk(Q_RDPMC_GP_UNBOUNDED) && idx >= g_sim.n_gp) {
			*v = 0;
			return true;
		}
		return false;
	case TYPE_FIXED:
		if (quirk(Q_RDPMC_INDEX_TRUNC))
			idx &= 0x1F;
		if (idx >= 32 || !sim_arch_fixed_value(idx, quirk(Q_RDPMC_FIXED_EDX_ONLY), v))
			return false;
		if (quirk(Q_RDPMC_SIGN_EXT) && g_sim.fixed_width < 64 &&
		    ((*v >> (g_sim.fixed_width - 1)) & 1))
			*v |= ~width_mask(g_sim.fixed_width);
		return true;
	case TYPE_METRICS:
		if (!g_sim.perf_metrics) {
			if (quirk(Q_RDPMC_METRICS_UNCHECKED)) {
				*v = 0;
				return true;
			}
			return false;
		}
		/* The index is implementation specific: the model has one,
		 * index 0, the IA32_PERF_METRICS value. */
		if (idx != 0)
			return false;
		*v = quirk(Q_RDPMC_METRICS_ZERO) ? 0 : sim_perf_metrics();
		return true;
	default:
		(void)c;
		return false;
	}
}

/* Returns true with the 64-bit result in *v, fast reads already applied. */
static bool read_pmc(uint32_t ecx, uint64_t *v)
{
	const struct caps *c = &g_sim.caps;

	if (g_sim.arch_pmu)
		return arch_read(ecx, v);
	if (c->vendor == VENDOR_AMD || c->vendor == VENDOR_HYGON)
		return sim_amd_rdpmc(ecx, v);
	if (c->netburst) {
		/* Non-architectural: ECX[30:0] index, ECX[31] fast. */
		bool fast = ecx & BIT_ULL(31);
		if (!sim_p4_value(ecx & 0x7FFFFFFF, v))
			return false;
		if (fast && !quirk(Q_P4_FAST_FULL))
			*v &= 0xFFFFFFFFULL;
		return true;
	}
	return false;
}

__user_code int rdpmc_safe(uint64_t rcx, uint64_t *rax, uint64_t *rdx)
{
	uint64_t v = 0;
	int fault = 0;

	g_sim.fault_error_code = 0;
	/* CR4.PCE clear: RDPMC only at CPL 0. */
	if (g_sim.cpl != 0 && !(g_sim.cr4 & CR4_PCE) && !quirk(Q_RDPMC_PCE_IGNORED))
		return X86_VEC_GP;
	if (g_sim.cpl == 3 && quirk(Q_RDPMC_CPL3_GP))
		return X86_VEC_GP;
	if ((rcx >> 32) && quirk(Q_RDPMC_RCX_HIGH))
		return X86_VEC_GP;
	if (!read_pmc((uint32_t)rcx, &v))
		fault = quirk(Q_RDPMC_UD) ? X86_VEC_UD : X86_VEC_GP;
	if (fault) {
		if (fault == X86_VEC_GP && quirk(Q_RDPMC_ERRCODE))
			g_sim.fault_error_code = (uint32_t)(rcx & 0xFFF8) | 0x8;
		return fault;
	}
	/* The instruction retires after its read. */
	sim_run_segments(SEG_INSN, 1);
	uint64_t keep = quirk(Q_RDPMC_KEEP_HIGH) ? ARCH_RDPMC_POISON & ~0xFFFFFFFFULL : 0;
	*rax = keep | (v & 0xFFFFFFFFULL);
	*rdx = keep | (v >> 32);
	return 0;
}
