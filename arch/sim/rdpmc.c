/* SPDX-License-Identifier: MIT */
/*
 * RDPMC, exactly as SDM Vol. 2B "RDPMC—Read Performance-Monitoring
 * Counters":
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
#include "trace.h"

/* The first family that implements RDPMC on this CPU decodes ECX; true with
 * the 64-bit result in *v, fast reads already applied. */
static bool read_pmc(uint32_t ecx, uint64_t *v)
{
	for (unsigned i = 0; i < sim_family_count; i++) {
		const struct sim_family *f = sim_families[i];
		enum sim_rdpmc_result r = f->rdpmc ? f->rdpmc(ecx, v) : SIM_RDPMC_NOT_MINE;
		if (r != SIM_RDPMC_NOT_MINE)
			return r == SIM_RDPMC_READ;
	}
	return false;
}

static int rdpmc_probe(uint64_t rcx, uint64_t *rax, uint64_t *rdx)
{
	uint64_t v = 0;
	int fault = 0;

	g_sim.fault_error_code = 0;
	/* CR4.PCE clear: RDPMC only at CPL 0. */
	if (g_sim.cpl != 0 && !(g_sim.cr4 & CR4_PCE) && !quirk(Q_RDPMC_PCE_IGNORED) &&
	    !(quirk(Q_RDPMC_USR_DIS_OVERRIDES_PCE) && read_pmc((uint32_t)rcx, &v) && !v))
		return X86_VEC_GP;
	if (g_sim.cpl == 3 && quirk(Q_RDPMC_CPL3_GP))
		return X86_VEC_GP;
	if ((rcx >> 32) && quirk(Q_RDPMC_RCX_HIGH))
		return X86_VEC_GP;
	if (!read_pmc((uint32_t)rcx, &v))
		fault = quirk(Q_RDPMC_UD) ? X86_VEC_UD : X86_VEC_GP;
	else if (sim_arch_user_disable_faults((uint32_t)rcx))
		fault = X86_VEC_GP;
	if (fault) {
		if (fault == X86_VEC_GP && quirk(Q_RDPMC_ERRCODE))
			g_sim.fault_error_code = (uint32_t)(rcx & 0xFFF8) | 0x8;
		return fault;
	}
	/* A reader at CPL > 0 that sees the value of its first read for the
	 * whole stay there. */
	if (g_sim.cpl != 0 && quirk(Q_RDPMC_USER_FROZEN)) {
		static uint64_t snap, snap_entry, snap_rcx;
		if (snap_entry != g_sim.user_entries || snap_rcx != rcx) {
			snap = v;
			snap_entry = g_sim.user_entries;
			snap_rcx = rcx;
		}
		v = snap;
	}
	/* The instruction retires after its read. */
	sim_run_segments(SEG_INSN, 1);
	uint64_t keep = quirk(Q_RDPMC_KEEP_HIGH) ? ARCH_RDPMC_POISON & ~0xFFFFFFFFULL : 0;
	*rax = keep | (v & 0xFFFFFFFFULL);
	*rdx = keep | (v >> 32);
	return 0;
}

__user_code int rdpmc_safe(uint64_t rcx, uint64_t *rax, uint64_t *rdx)
{
	int fault = rdpmc_probe(rcx, rax, rdx);

	if (g_sim.cpl == 0) /* the kernel's access trace, as on the machine */
		trace_access(TRACE_RDPMC, (uint32_t)rcx,
			     fault ? 0 : (*rax & 0xFFFFFFFFULL) | (*rdx << 32), fault);
	return fault;
}
