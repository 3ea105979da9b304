/* SPDX-License-Identifier: MIT */
/*
 * The counting model: what the calibrated workload does, cycle by cycle.
 *
 * arch_workload(iters) is an entry segment, `iters` loop segments and an exit
 * segment; arch_workload_gated(iters, ...) is one gate segment (after the
 * enabling WRMSR) and `iters` loop segments. Per loop iteration (the
 * contract of include/arch.h): 10 instructions retired, 1 branch (taken,
 * predicted), 20 core cycles (CPI 2), 15 reference cycles (ratio 3/4),
 * 80 topdown slots (4 per cycle). Per arch_workload() call the fixed
 * overhead is: 8 instructions, 2 branches (call, ret), 1 branch miss (the
 * loop exit), 16 core cycles, 12 reference cycles, 2 LLC references and
 * 1 LLC miss. Per gated call: 2 instructions, 0 branches, 1 branch miss,
 * 4 core cycles, 3 reference cycles. RDPMC and CPUID (arch_serialize) each
 * retire one instruction of 4 cycles (3 reference cycles) when they
 * complete, so a loop of reads sees a running counter move, as on hardware;
 * RDMSR / WRMSR / RDTSC are not counted. arch_workload_llc_miss() and
 * arch_workload_branch_miss() are the entry segment, their own line or
 * iteration segments (below) and the exit segment. Checks must work on differences of two
 * lengths (the overhead cancels), as on real hardware.
 *
 * Events are given per cycle so that CMASK / INV / EDGE (Vol. 3B 20.2.1.1,
 * Figure 20-1) act on per-cycle counts: in a loop iteration 4, 4, 1
 * instructions retire in cycles 0..2 and 1 (the branch) in cycle 19.
 */
#include "sim.h"

/* The events of each cycle that the workload's code decides; the others
 * follow from these (segment_event(), below). */
const struct sim_segment sim_segments[] = {
    [SEG_LOOP] =
	{
	    .cycles = 20,
	    .ev =
		{
		    [EV_INSNS] = {4, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
		    [EV_BRANCHES] = {[19] = 1},
		    /* the loop's JNZ: conditional, taken backward (the last
		     * iteration's, not taken, is SEG_EXIT's); only the gated
		     * loop's branch kinds are modelled (suites/counting.c's
		     * UMASK2 check counts over it) */
		    [EV_BR_COND] = {[19] = 1},
		    [EV_BR_COND_TAKEN] = {[19] = 1},
		    [EV_TD_FRONTEND] = {0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
		    /* a few bad-speculation slots, so that every level-1
		     * category (and fixed counter 4, which counts them) occurs */
		    [EV_TD_BADSPEC] = {[13] = 1, [14] = 1},
		},
	},
    [SEG_ENTRY] =
	{
	    .cycles = 8,
	    .ev =
		{
		    [EV_INSNS] = {2, 2},
		    [EV_BRANCHES] = {0, 1},
		    [EV_TD_FRONTEND] = {0, 0, 1, 1, 1, 1, 1, 1},
		},
	},
    [SEG_EXIT] =
	{
	    .cycles = 8,
	    .ev =
		{
		    [EV_INSNS] = {1, 1, 1, 1},
		    [EV_BRANCHES] = {0, 0, 0, 1},
		    [EV_BR_MISS] = {1},
		    [EV_LLC_REF] = {0, 0, 0, 0, 1, 1},
		    [EV_LLC_MISS] = {0, 0, 0, 0, 0, 1},
		    [EV_TD_BADSPEC] = {0, 0, 0, 0, 2, 2, 2, 2},
		},
	},
    [SEG_INSN] =
	{
	    .cycles = 4,
	    .ev =
		{
		    [EV_INSNS] = {1},
		},
	},
    [SEG_GATED_EDGE] =
	{
	    .cycles = 4,
	    .ev =
		{
		    [EV_INSNS] = {1, 1},
		    [EV_BR_MISS] = {0, 0, 0, 1},
		    [EV_TD_BADSPEC] = {0, 0, 2, 2},
		},
	},
    /* One line of arch_workload_llc_miss(): CLFLUSH, MFENCE (cycles 0, 1),
     * the load, which is 1 LLC reference and 1 LLC miss (cycle 2) and
     * completes at cycle 18, then ADD, DEC, JNZ. No prefetch hits, no extra
     * references: the model is the SDM's lower bound, exactly. */
    [SEG_LLC_LINE] =
	{
	    .cycles = 20,
	    .ev =
		{
		    [EV_INSNS] = {1, 1, [18] = 1, [19] = 3},
		    [EV_BRANCHES] = {[19] = 1},
		    [EV_LLC_REF] = {[2] = 1},
		    [EV_LLC_MISS] = {[2] = 1},
		},
	},
    /* Two iterations of arch_workload_branch_miss(), 10 cycles each: 17
     * instructions and 3 branches (JS at cycle 6, JMP, JNZ) per iteration;
     * the JS of the second one is mispredicted. The model: exactly every
     * second iteration mispredicts, whatever the seed (half, as a predictor
     * facing coin flips does on average). */
    [SEG_BRMISS_PAIR] =
	{
	    .cycles = 20,
	    .ev =
		{
		    [EV_INSNS] = {2, 2, 2, 2, 2, 2, 2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 1, 0},
		    [EV_BRANCHES] = {[6] = 1, [7] = 1, [8] = 1, [16] = 1, [17] = 1, [18] = 1},
		    [EV_BR_MISS] = {[16] = 1},
		},
	},
    /* One iteration of arch_workload_intercepted(): two instructions at
     * cycle 0, the intercepted one (CPUID / WRMSR / IN) alone at cycle 10,
     * NOP-or-DEC and JNZ at cycle 19: 6 instructions, 1 branch. */
    [SEG_INTERCEPT_ITER] =
	{
	    .cycles = 20,
	    .ev =
		{
		    [EV_INSNS] = {2, [10] = 1, [19] = 3},
		    [EV_INTERCEPTED] = {[10] = 1},
		    [EV_BRANCHES] = {[19] = 1},
		},
	},
    /* Core 2 erratum W146: CPUID counts as a retired branch too
     * (BR_INST_RETIRED.ANY, the architectural Branch Instructions Retired):
     * SEG_INSN and SEG_INTERCEPT_ITER with a branch where CPUID retires. */
    [SEG_CPUID_AS_BRANCH] =
	{
	    .cycles = 4,
	    .ev =
		{
		    [EV_INSNS] = {1},
		    [EV_BRANCHES] = {1},
		},
	},
    [SEG_INTERCEPT_CPUID_AS_BRANCH] =
	{
	    .cycles = 20,
	    .ev =
		{
		    [EV_INSNS] = {2, [10] = 1, [19] = 3},
		    [EV_INTERCEPTED] = {[10] = 1},
		    [EV_BRANCHES] = {[10] = 1, [19] = 1},
		},
	},
    /* Erratum SRF7 (kvm-unit-tests 3ffdf39c): VMENTRY/VMEXIT overcount
     * Instructions Retired and, up to Sierra Forest, Branch Instructions
     * Retired; one more of each where the intercepted instruction retires. */
    [SEG_INTERCEPT_EXIT_OVERCOUNT] =
	{
	    .cycles = 20,
	    .ev =
		{
		    [EV_INSNS] = {2, [10] = 2, [19] = 3},
		    [EV_INTERCEPTED] = {[10] = 1},
		    [EV_BRANCHES] = {[10] = 1, [19] = 1},
		},
	},
    [SEG_INTERCEPT_EXIT_OVERCOUNT_INSNS] =
	{
	    .cycles = 20,
	    .ev =
		{
		    [EV_INSNS] = {2, [10] = 2, [19] = 3},
		    [EV_INTERCEPTED] = {[10] = 1},
		    [EV_BRANCHES] = {[19] = 1},
		},
	},
    /* The three MOVs that load the closing WRMSR. */
    [SEG_INTERCEPT_CLOSE] =
	{
	    .cycles = 2,
	    .ev =
		{
		    [EV_INSNS] = {2, 1},
		},
	},
    /* The odd iteration of an odd count: predicted. */
    [SEG_BRMISS_ITER] =
	{
	    .cycles = 10,
	    .ev =
		{
		    [EV_INSNS] = {2, 2, 2, 2, 2, 2, 2, 2, 1, 0},
		    [EV_BRANCHES] = {[6] = 1, [7] = 1, [8] = 1},
		},
	},
};
_Static_assert(ARRAY_SIZE(sim_segments) == SEG_COUNT, "a segment per SEG_*");

/* Topdown slots per cycle: the model's issue width. */
#define TD_SLOTS_PER_CYCLE 4

/*
 * The count of `ev` in cycle `c` of segment `s`. Events that are the same in
 * every segment are not written in the table but follow here: one core cycle
 * per cycle; a reference cycle in 3 of every 4 (cycle c % 4 == 3 has none:
 * the ratio 3/4 of include/arch.h); TD_SLOTS_PER_CYCLE topdown slots, of
 * which as many retire as instructions do, the table's bad-speculation and
 * frontend-bound ones are lost, and the rest are backend bound (the four
 * level-1 categories share the slots). The table leaves the rest >= 0.
 */
static unsigned segment_event(const struct sim_segment *s, enum sim_event ev, unsigned c)
{
	switch (ev) {
	case EV_CYCLES:
		return 1;
	case EV_REF:
		return c % 4 != 3;
	case EV_TD_SLOTS:
		return TD_SLOTS_PER_CYCLE;
	case EV_TD_RETIRING:
		return s->ev[EV_INSNS][c];
	case EV_TD_BACKEND:
		return TD_SLOTS_PER_CYCLE - s->ev[EV_INSNS][c] - s->ev[EV_TD_BADSPEC][c] -
		       s->ev[EV_TD_FRONTEND][c];
	default:
		return s->ev[ev][c];
	}
}

/*
 * Vol. 3B 20.2.1.1: with CMASK = 0 the counter adds the event count of each
 * cycle; with CMASK != 0 it adds 1 in each cycle whose count is >= CMASK
 * (INV clear) or < CMASK (INV set). EDGE counts deasserted-to-asserted
 * transitions of that condition (with CMASK = 0, of "count > 0").
 */
uint64_t sim_segment_count(const struct sim_segment *s, const struct sim_filter *f, bool *last)
{
	uint64_t n = 0;
	bool prev = *last;
	bool soft = f->emulated_retire && f->ev == EV_INSNS;

	if (f->ev == EV_NONE) {
		*last = false;
		return 0;
	}
	if (soft)
		n += sim_segment_total(s, EV_INTERCEPTED);
	for (unsigned c = 0; c < s->cycles; c++) {
		unsigned v = segment_event(s, f->ev, c) - (soft ? s->ev[EV_INTERCEPTED][c] : 0);
		bool cond;
		if (f->cmask == 0 && !f->edge) {
			n += v;
			prev = v > 0;
			continue;
		}
		if (f->cmask == 0)
			cond = v > 0;
		else if (f->eq)
			cond = f->inv ? v != f->cmask : v == f->cmask;
		else
			cond = f->inv ? v < f->cmask : v >= f->cmask;
		if (f->edge)
			n += cond && !prev;
		else
			n += cond;
		prev = cond;
	}
	*last = prev;
	if (quirk(Q_INSNS_EXTRA_PER_ITER) && f->ev == EV_INSNS && f->cmask == 0 && !f->edge &&
	    s == &sim_segments[SEG_LOOP])
		n++;
	return f->scale ? n * f->scale : n;
}

uint64_t sim_segment_total(const struct sim_segment *s, enum sim_event ev)
{
	uint64_t n = 0;
	for (unsigned c = 0; c < s->cycles; c++)
		n += segment_event(s, ev, c);
	return n;
}
