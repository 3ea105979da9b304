/* SPDX-License-Identifier: MIT */
/*
 * RDPMC on the Intel architectural PMU (SDM Vol. 2B "RDPMC"):
 * ECX[31:16] type, ECX[15:0] index: type 0 GP
 * (index < CPUID.0AH:EAX[15:8]), type 4000H fixed (EDX[4:0] > x or
 * ECX[x] = 1), type 2000H PERF_METRICS (PERF_CAPABILITIES[15]); bits above a
 * counter's width read as zero; any other encoding #GP(0). ECX[31] (the
 * fast read of non-architectural PMUs) is part of the type here.
 */
#include "sim.h"

#define TYPE_GP	     0x0000U
#define TYPE_FIXED   0x4000U
#define TYPE_METRICS 0x2000U

enum sim_rdpmc_result sim_arch_rdpmc(uint32_t ecx, uint64_t *v)
{
	if (!g_sim.arch_pmu)
		return SIM_RDPMC_NOT_MINE;
	/* KVM's VMware backdoor pseudo-PMCs: host TSC, then boot time and
	 * apparent time in ns (the model's TSC stands in for all three). */
	if (quirk(Q_KVM_VMWARE_PMCS) && ecx >= 0x10000 && ecx <= 0x10002) {
		*v = arch_rdtsc();
		return SIM_RDPMC_READ;
	}
	if (ecx & BIT_ULL(31)) {
		/* Fast read is for non-architectural PMUs only: on an
		 * architectural PMU bit 31 is part of the type, unsupported. */
		if (!quirk(Q_RDPMC_FAST_ON_ARCH))
			return SIM_RDPMC_INVALID;
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
			return SIM_RDPMC_READ;
		}
		if (quirk(Q_RDPMC_GP_UNBOUNDED) && idx >= g_sim.n_gp) {
			*v = 0;
			return SIM_RDPMC_READ;
		}
		/* Xeon 7400: eight 32-bit special-purpose counters at 2-9. */
		if (quirk(Q_RDPMC_SPECIAL_2_9) && idx >= 2 && idx <= 9) {
			*v = 0;
			return SIM_RDPMC_READ;
		}
		return SIM_RDPMC_INVALID;
	case TYPE_FIXED:
		if (quirk(Q_RDPMC_INDEX_TRUNC))
			idx &= 0x1F;
		if (idx >= 32 || !sim_arch_fixed_value(idx, quirk(Q_RDPMC_FIXED_EDX_ONLY), v))
			return SIM_RDPMC_INVALID;
		if (quirk(Q_RDPMC_SIGN_EXT) && g_sim.fixed_width < 64 &&
		    ((*v >> (g_sim.fixed_width - 1)) & 1))
			*v |= ~width_mask(g_sim.fixed_width);
		return SIM_RDPMC_READ;
	case TYPE_METRICS:
		if (!g_sim.perf_metrics) {
			if (quirk(Q_RDPMC_METRICS_UNCHECKED)) {
				*v = 0;
				return SIM_RDPMC_READ;
			}
			return SIM_RDPMC_INVALID;
		}
		/* The index is implementation specific: the model has one,
		 * index 0, the IA32_PERF_METRICS value. */
		if (idx != 0)
			return SIM_RDPMC_INVALID;
		*v = quirk(Q_RDPMC_METRICS_ZERO) ? 0 : sim_perf_metrics();
		sim_arch_metrics_read();
		return SIM_RDPMC_READ;
	default:
		return SIM_RDPMC_INVALID;
	}
}
