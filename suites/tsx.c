/* SPDX-License-Identifier: MIT */
/*
 * TSX qualifiers of the event select (SDM Vol. 3B 20.3.6.5, "Intel TSX
 * performance monitoring"): IN_TX counts only inside a transactional
 * region, IN_TXCP (IA32_PERFEVTSEL2 only) discards what an aborted region
 * counted. Run where CPUID.(07H,0):EBX.RTM[11] enumerates RTM, with
 * arch_workload_tsx() (include/arch.h): a loop outside, a loop inside one
 * transaction. That the bits are writable where HLE/RTM is enumerated, and
 * that IN_TXCP #GPs on every counter but IA32_PERFEVTSEL2, is
 * versions.evtsel_defined_high_bits / versions.evtsel_reserved_bits.
 */
#include "arch.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

/* Iterations inside the transaction: short (an RTM region is bounded by the
 * core's transactional buffers and anything may abort it, Vol. 1 16.3.8),
 * register-only, yet far more events than the slack below. */
#define TSX_INSIDE_ITERS  100ULL
#define TSX_OUTSIDE_ITERS PMU_ITERS
/* The aborted region of the IN_TXCP check: its loop, kept by the counter,
 * would leave the bound of what runs outside plus PMU_OVERHEAD_EVENTS. */
#define TSX_ABORTED_ITERS 1000ULL
_Static_assert(TSX_ABORTED_ITERS *WORKLOAD_INSNS_PER_ITER > PMU_OVERHEAD_EVENTS,
	       "the aborted loop must not hide in the overhead bound");
/*
 * Inside the region, beside the loop, are the instructions between the
 * loop and XEND/XABORT and those themselves (tsx.asm: TEST, JZ, XEND or
 * XABORT). The SDM does not say whether XBEGIN, XEND or XABORT count as
 * inside the region, so the check takes a bound (inferred), not equality.
 */
#define TSX_EDGE_INSNS 8ULL
/* Attempts before a transaction that aborts for another reason (Vol. 1
 * 16.3.8.2: software may not rule that out) makes the check inconclusive. */
#define TSX_ATTEMPTS 8

/* One run of the workload counted on GP counter i with `sel` (no EN): the
 * count, and the workload's status in *status. The runner reset the PMU
 * before the test; only counter i (and the global enable) is written. */
static uint64_t tsx_count(unsigned i, uint64_t sel, uint64_t inside, bool abort, uint32_t *status)
{
	pmu_gp_program(i, sel | PERFEVTSEL_EN, 0);
	if (pmu_has_global())
		pmu_global_enable(BIT_ULL(i));
	*status = arch_workload_tsx(TSX_OUTSIDE_ITERS, inside, abort);
	wrmsr(MSR_IA32_PERFEVTSEL(i), sel);
	if (pmu_has_global())
		pmu_global_disable();
	return pmu_gp_read(i);
}

static uint32_t wanted_status(bool abort)
{
	return abort ? ARCH_TSX_ABORT_EXPLICIT | (ARCH_TSX_XABORT_CODE << 24) : ARCH_TSX_COMMITTED;
}

/* tsx_count() until the transaction ends the way asked (committed, or by
 * its own XABORT); false when it never did in TSX_ATTEMPTS tries. */
static bool tsx_count_as_asked(unsigned i, uint64_t sel, uint64_t inside, bool abort,
			       uint64_t *count, uint32_t *status)
{
	for (int n = 0; n < TSX_ATTEMPTS; n++) {
		*count = tsx_count(i, sel, inside, abort, status);
		if (*status == wanted_status(abort))
			return true;
		/* an XABORT that left another status is a deviation, not bad luck */
		if (abort && (*status & ARCH_TSX_ABORT_EXPLICIT))
			return true;
	}
	return false;
}

TEST(tsx, in_tx_counts_inside_only,
     REQ_ARCH_PMU | REQ_RTM | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	const uint64_t inside = TSX_INSIDE_ITERS * WORKLOAD_INSNS_PER_ITER;
	uint64_t sel = pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, PERFEVTSEL_OS | PERFEVTSEL_IN_TX);

	for_each_gp_counter(ctr) {
		if (!t_counter_counts(t, ctr))
			continue;
		for (int abort = 0; abort <= 1; abort++) {
			uint64_t n;
			uint32_t st;

			if (!tsx_count_as_asked(ctr.idx, sel, TSX_INSIDE_ITERS, abort, &n, &st)) {
				t_diag(t,
				       COUNTER_FMT ": every transaction aborted (last status %#x)",
				       COUNTER_ARG(ctr), st);
				t_skip_return(t, "no transaction ran to its end; nothing to check");
			}
			if (abort)
				expect_eq(t, st, wanted_status(true), RULE_XABORT_STATUS,
					  "arch_workload_tsx status after XABORT %#x",
					  ARCH_TSX_XABORT_CODE);
			t_subject(t, SUBJECT_GP, ctr.idx, 0);
			expect_range(t, n, inside, inside + TSX_EDGE_INSNS, RULE_IN_TX_INSIDE_ONLY,
				     COUNTER_FMT
				     " instructions with IN_TX: %llu iterations outside "
				     "and %llu inside %s transaction (bound: the %llu inside "
				     "plus %llu for the region's edges, inferred)",
				     COUNTER_ARG(ctr), TSX_OUTSIDE_ITERS, TSX_INSIDE_ITERS,
				     abort ? "an aborted" : "a committed",
				     (unsigned long long)inside, TSX_EDGE_INSNS);
		}
	}
}

TEST(tsx, in_txcp_discards_aborted, REQ_ARCH_PMU | REQ_RTM | REQ_INSTRUCTIONS_EVENT)
{
	const uint64_t outside = TSX_OUTSIDE_ITERS * WORKLOAD_INSNS_PER_ITER;
	uint64_t sel = pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, PERFEVTSEL_OS | PERFEVTSEL_IN_TXCP);
	uint64_t n;
	uint32_t st;

	if (!pmu_gp_present(2))
		t_skip_return(t, "no IA32_PMC2 (IN_TXCP exists on IA32_PERFEVTSEL2 only)");
	if (!t_counter_counts(t, GP_COUNTER(2)))
		return;
	if (!tsx_count_as_asked(2, sel, TSX_ABORTED_ITERS, true, &n, &st))
		t_skip_return(t, "the transaction never reached its XABORT (last status %#x)", st);
	expect_eq(t, st, wanted_status(true), RULE_XABORT_STATUS,
		  "arch_workload_tsx status after XABORT %#x", ARCH_TSX_XABORT_CODE);
	expect_range(t, n, outside, outside + PMU_OVERHEAD_EVENTS, RULE_IN_TXCP_ABORTED,
		     "IA32_PMC2 instructions with IN_TXCP: %llu iterations outside, then %llu "
		     "inside a transaction that XABORTs (bound: the %llu outside plus the "
		     "call's overhead, not the aborted loop)",
		     TSX_OUTSIDE_ITERS, TSX_ABORTED_ITERS, (unsigned long long)outside);
}
