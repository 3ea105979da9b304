/* SPDX-License-Identifier: MIT */
/*
 * include/arch.h's probes: the fault probes of user.asm, and the kernel's
 * access trace (kernel/trace.h) fed at CPL 0. The wrappers are __user_code
 * (a test calls the probes at CPL 1-3 too); they call into kernel text only
 * after reading CS says CPL 0, where every page is reachable. The gated
 * workloads (CPL 0 only) add their WRMSRs to the trace after the loop, as
 * the simulator's engine.c makes them: the gate's on and off (and for the
 * WRMSR intercept its target, once), never inside the counting window.
 */
#include "x86.h"

#include "trace.h"

static __user_code bool at_cpl0(void)
{
	uint16_t cs;
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	return (cs & 3) == 0;
}

__user_code int rdmsr_safe(uint32_t msr, uint64_t *val)
{
	int vec = x86_rdmsr_probe(msr, val);
	if (at_cpl0())
		trace_access(TRACE_RDMSR, msr, *val, vec);
	return vec;
}

__user_code int wrmsr_safe(uint32_t msr, uint64_t val)
{
	int vec = x86_wrmsr_probe(msr, val);
	if (at_cpl0())
		trace_access(TRACE_WRMSR, msr, val, vec);
	return vec;
}

__user_code int rdpmc_safe(uint64_t rcx, uint64_t *rax, uint64_t *rdx)
{
	int vec = x86_rdpmc_probe(rcx, rax, rdx);
	if (at_cpl0())
		trace_access(TRACE_RDPMC, (uint32_t)rcx,
			     vec ? 0 : (*rax & 0xFFFFFFFFULL) | (*rdx << 32), vec);
	return vec;
}

void arch_workload_gated(uint64_t iters, uint32_t msr, uint64_t on, uint64_t off)
{
	x86_workload_gated(iters, msr, on, off);
	if (!iters)
		return;
	trace_access(TRACE_WRMSR, msr, on, 0);
	trace_access(TRACE_WRMSR, msr, off, 0);
}

void arch_workload_intercepted(enum arch_intercept kind, uint64_t iters, uint32_t msr, uint64_t on,
			       uint64_t off, uint32_t target)
{
	x86_workload_intercepted(kind, iters, msr, on, off, target);
	if (!iters || kind >= ARCH_INTERCEPT_COUNT)
		return;
	if (kind == ARCH_INTERCEPT_WRMSR)
		trace_access(TRACE_WRMSR, target, 0, 0);
	trace_access(TRACE_WRMSR, msr, on, 0);
	trace_access(TRACE_WRMSR, msr, off, 0);
}
