/* SPDX-License-Identifier: MIT */
/*
 * The counting engine: runs segments of the workload model over every
 * counter that is counting, in bulk between overflows, so that each overflow
 * happens at the exact boundary (within the iteration where the counter
 * wraps; the PMI follows at the end of that iteration, a skid of less than
 * one iteration as real hardware has).
 */
#include "sim.h"

static struct sim_counter_set counting;
static struct sim_cpu *owner[SIM_MAX_ACTIVE]; /* whose counter counting.c[i] is */

/* Iterations until the counter overflows (UINT64_MAX: never within n). */
static uint64_t iters_to_overflow(const struct sim_counter *c, uint64_t inc1, uint64_t incn)
{
	uint64_t mask = width_mask(c->width);
	uint64_t v = *c->val & mask;
	/* Overflow: the counter wraps from all-ones to 0 (Vol. 3B 20.2.2,
	 * "overflow" of a counter of the enumerated width). */
	uint64_t dist = mask - v + 1;
	if (c->width >= 64 && v == 0)
		dist = UINT64_MAX;
	/* NetBurst CCCR.FORCE_OVF: the first increment overflows. */
	if (c->f.force_ovf)
		dist = 1;
	if (quirk(Q_OVF_EARLY) && dist > 1)
		dist--;
	if (inc1 >= dist)
		return 1;
	if (incn == 0)
		return UINT64_MAX;
	uint64_t rest = dist - inc1;
	return 1 + (rest + incn - 1) / incn;
}

/* Effects of the run other than counter increments: the TSC (the reference
 * clock), and each family's accumulators. */
static void advance(const struct sim_segment *s, uint64_t k)
{
	g_sim.tsc += sim_segment_total(s, EV_REF) * k;
	for (unsigned i = 0; i < sim_family_count; i++)
		if (sim_families[i]->advance)
			sim_families[i]->advance(s, k);
}

static void collect_families(struct sim_cpu *cpu)
{
	unsigned from = counting.n;

	for (unsigned i = 0; i < sim_family_count; i++)
		if (sim_families[i]->collect)
			sim_families[i]->collect(&counting);
	unsigned keep = from;
	for (unsigned i = from; i < counting.n; i++)
		if (!dead_counter_silent(&counting.c[i]))
			counting.c[keep++] = counting.c[i];
	counting.n = keep;
	for (unsigned i = from; i < counting.n; i++)
		owner[i] = cpu;
}

/*
 * This CPU's counters, and its sibling thread's counters with AnyThread
 * set: "counting the associated event conditions occurring across all
 * logical processors sharing a processor core" (Vol. 3B 20.2.3). The
 * sibling's USR/OS selection is applied at this thread's CPL, where the
 * events occur.
 */
static void collect(void)
{
	struct sim_cpu *me = g_sim_cur, *sib = g_sim.sibling;

	counting.n = 0;
	collect_families(me);
	if (!sib || quirk(Q_SMP_ANYTHREAD_IGNORED))
		return;
	unsigned from = counting.n;
	int cpl = sib->cpl;
	sib->cpl = me->cpl;
	g_sim_cur = sib;
	collect_families(sib);
	g_sim_cur = me;
	sib->cpl = cpl;
	unsigned keep = from;
	for (unsigned i = from; i < counting.n; i++) {
		if (counting.c[i].f.any_thread) {
			owner[keep] = owner[i];
			counting.c[keep++] = counting.c[i];
		}
	}
	counting.n = keep;
}

/* A counter wrapped: its own CPU sets the status and asks for the PMI; a
 * sibling's (AnyThread) is parked with interrupts on and takes it at once. */
static void overflow(const struct sim_counter *c, struct sim_cpu *cpu)
{
	struct sim_cpu *me = g_sim_cur;

	if (cpu == me) {
		c->family->overflow(c);
		return;
	}
	g_sim_cur = cpu;
	bool irq = g_sim.irq_enabled;
	g_sim.irq_enabled = true;
	c->family->overflow(c);
	sim_pmi_deliver_pending();
	g_sim.irq_enabled = irq;
	g_sim_cur = me;
}

void sim_run_segments(unsigned seg, uint64_t n)
{
	const struct sim_segment *s = &sim_segments[seg];
	unsigned outer = g_sim.segment;

	g_sim.segment = seg;
	while (n > 0) {
		collect();
		struct sim_counter *ctrs = counting.c;
		unsigned n_ctrs = counting.n;

		uint64_t inc1[SIM_MAX_ACTIVE], incn[SIM_MAX_ACTIVE], need[SIM_MAX_ACTIVE];
		bool last_after[SIM_MAX_ACTIVE];
		uint64_t k = n;
		for (unsigned i = 0; i < n_ctrs; i++) {
			bool l = *ctrs[i].last;
			inc1[i] = sim_segment_count(s, &ctrs[i].f, &l);
			last_after[i] = l;
			incn[i] = sim_segment_count(s, &ctrs[i].f, &l);
			need[i] = iters_to_overflow(&ctrs[i], inc1[i], incn[i]);
			if (need[i] < k)
				k = need[i];
		}
		for (unsigned i = 0; i < n_ctrs; i++) {
			struct sim_counter *c = &ctrs[i];
			uint64_t mask = width_mask(c->width);
			uint64_t total = inc1[i] + (k - 1) * incn[i];
			uint64_t nv = (*c->val + total) & mask;
			if (quirk(Q_WIDTH_NOT_MASKED))
				nv |= *c->val & ~mask;
			if (need[i] == k && quirk(Q_COUNTER_SATURATES))
				nv = mask;
			*c->val = nv;
			*c->last = last_after[i];
		}
		advance(s, k);
		n -= k;
		unsigned n_over = 0;
		struct sim_counter over[SIM_MAX_ACTIVE];
		struct sim_cpu *over_cpu[SIM_MAX_ACTIVE];
		for (unsigned i = 0; i < n_ctrs; i++) {
			if (need[i] == k) {
				over_cpu[n_over] = owner[i];
				over[n_over++] = ctrs[i];
			}
		}
		for (unsigned i = 0; i < n_over; i++)
			overflow(&over[i], over_cpu[i]);
		/* A PMI is taken at the end of the iteration that overflowed; the
		 * handler may reprogram anything, so the next step re-collects. */
		if (n_over)
			sim_pmi_deliver_pending();
		g_sim.segment = seg; /* a PMI handler may have run other segments */
	}
	g_sim.segment = outer;
}

/* Q_GATE_COUNTS_HOST: the hypervisor's code that a counter enabled by the
 * gate's WRMSR also sees (SEG_INSN: 1 instruction each; 4 of them branches). */
static void host_code_around_gate(void)
{
	if (!quirk(Q_GATE_COUNTS_HOST))
		return;
	sim_run_segments(SEG_INSN, 16);
	sim_run_segments(SEG_BRMISS_ITER, 1);
}

/* ---- The workload (include/arch.h) ---- */

__user_code void arch_workload(uint64_t iters)
{
	sim_run_segments(SEG_ENTRY, 1);
	sim_run_segments(SEG_LOOP, iters);
	sim_run_segments(SEG_EXIT, 1);
}

void arch_workload_gated(uint64_t iters, uint32_t msr, uint64_t on, uint64_t off)
{
	/* WRMSR(on); loop; WRMSR(off): nothing else in between. An unchecked
	 * WRMSR: a fault is an unexpected exception. */
	wrmsr(msr, on);
	sim_window_begins(); /* an SMI may strike (platform.c) */
	host_code_around_gate();
	sim_run_segments(SEG_GATED_EDGE, 1);
	sim_run_segments(SEG_LOOP, iters);
	wrmsr(msr, off);
}

/* The intercepted instruction of each iteration has its architectural
 * effect once (a WRMSR to the target; an unchecked one: a fault is an
 * unexpected exception); the counts are the model's (pmu_model.c). */
void arch_workload_intercepted(enum arch_intercept kind, uint64_t iters, uint32_t msr, uint64_t on,
			       uint64_t off, uint32_t target)
{
	if (!iters || kind >= ARCH_INTERCEPT_COUNT)
		return;
	if (kind == ARCH_INTERCEPT_WRMSR)
		wrmsr(target, 0);
	wrmsr(msr, on);
	sim_window_begins(); /* an SMI may strike (platform.c) */
	host_code_around_gate();
	sim_run_segments(SEG_GATED_EDGE, 1);
	unsigned seg = SEG_INTERCEPT_ITER;
	if (kind == ARCH_INTERCEPT_CPUID && quirk(Q_CPUID_COUNTS_AS_BRANCH))
		seg = SEG_INTERCEPT_CPUID_AS_BRANCH;
	else if (quirk(Q_ATOM_VMEXIT_OVERCOUNT))
		seg = SEG_INTERCEPT_EXIT_OVERCOUNT;
	else if (quirk(Q_CWF_VMEXIT_INSN_OVERCOUNT))
		seg = SEG_INTERCEPT_EXIT_OVERCOUNT_INSNS;
	sim_run_segments(seg, iters);
	sim_run_segments(SEG_INTERCEPT_CLOSE, 1);
	wrmsr(msr, off);
}

/* CLFLUSH without CPUID.01H:EDX.CLFSH is #UD (SDM Vol. 2A CLFLUSH). The
 * buffer is not touched: the model counts what the SDM says the loads are. */
__user_code void arch_workload_llc_miss(const void *buf, uint64_t lines)
{
	(void)buf;
	if (!g_sim.caps.clflush)
		sim_raise(X86_VEC_UD, 0, (uint64_t)(uintptr_t)arch_workload_llc_miss, 0);
	sim_run_segments(SEG_ENTRY, 1);
	sim_run_segments(SEG_LLC_LINE, lines);
	sim_run_segments(SEG_EXIT, 1);
}

/* The seed does not matter to the model: every second iteration mispredicts. */
__user_code void arch_workload_branch_miss(uint64_t iters, uint64_t seed)
{
	(void)seed;
	sim_run_segments(SEG_ENTRY, 1);
	sim_run_segments(SEG_BRMISS_PAIR, iters / 2);
	sim_run_segments(SEG_BRMISS_ITER, iters % 2);
	sim_run_segments(SEG_EXIT, 1);
}

/* The transaction always starts and runs to its end (nothing in the model
 * aborts it); XEND commits, XABORT rolls the IN_TXCP counters back. */
uint32_t arch_workload_tsx(uint64_t outside, uint64_t inside, bool abort)
{
	if (!g_sim.caps.rtm)
		sim_raise(X86_VEC_UD, 0, (uint64_t)(uintptr_t)arch_workload_tsx, 0);
	sim_run_segments(SEG_ENTRY, 1);
	sim_run_segments(SEG_LOOP, outside);
	sim_arch_tx_begin();
	g_sim.in_tx = true;
	sim_run_segments(SEG_LOOP, inside);
	g_sim.in_tx = false;
	if (abort) {
		sim_arch_tx_abort();
		sim_run_segments(SEG_EXIT, 1);
		return ARCH_TSX_ABORT_EXPLICIT | (ARCH_TSX_XABORT_CODE << 24);
	}
	sim_run_segments(SEG_EXIT, 1);
	return ARCH_TSX_COMMITTED;
}

/* The gated workload's code, for the IP of a PEBS record (pebs.c): a
 * function at a fixed address of the simulated kernel. */
#define SIM_WORKLOAD_GATED_BASE 0xFFFFFFFF81001000ULL
void arch_workload_gated_range(uint64_t *start, uint64_t *end)
{
	*start = SIM_WORKLOAD_GATED_BASE;
	*end = SIM_WORKLOAD_GATED_BASE + 0x40;
}
