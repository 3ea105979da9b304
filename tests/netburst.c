// SPDX-License-Identifier: MIT
/*
 * Pentium 4 / Xeon (NetBurst) counters: ESCR + CCCR set-up as the SDM's
 * procedure gives it (../shared/spec/netburst-escr-cccr-counting.txt,
 * Vol. 3B 20.6.3), counting instr_retired: ESCR MSR_CRU_ESCR0, event select
 * 02H, event mask NBOGUSNTAG|NBOGUSTAG (non-bogus instructions), counted on
 * IQ_COUNTER0 (counter 12) with CCCR ESCR_SELECT 04H (Vol. 3B Appendix
 * "Performance-Monitoring Events for Pentium 4", instr_retired).
 */
#include "pmu.h"
#include "rules.h"
#include "test.h"

#define P4_IQ_COUNTER0		12
#define P4_INSTR_RETIRED_EVENT	0x02
#define P4_INSTR_RETIRED_NBOGUS 0x3 /* NBOGUSNTAG | NBOGUSTAG */
#define P4_CRU_ESCR_SELECT	0x4

static uint64_t escr(bool usr, bool os)
{
	return FIELD_PREP_ULL(P4_ESCR_EVENT_SELECT, P4_INSTR_RETIRED_EVENT) |
	       FIELD_PREP_ULL(P4_ESCR_EVENT_MASK, P4_INSTR_RETIRED_NBOGUS) |
	       (usr ? P4_ESCR_USR : 0) | (os ? P4_ESCR_OS : 0);
}

static uint64_t cccr(uint64_t extra)
{
	return P4_CCCR_RESERVED_ONES | FIELD_PREP_ULL(P4_CCCR_ESCR_SELECT, P4_CRU_ESCR_SELECT) |
	       extra;
}

/* Count `iters` at CPL 0, gated by the CCCR Enable flag. */
static uint64_t count(uint64_t escr_val, uint64_t cccr_extra, uint64_t iters, uint64_t start)
{
	const unsigned c = P4_IQ_COUNTER0;

	wrmsr(MSR_P4_CCCR(c), cccr(0));
	wrmsr(MSR_CRU_ESCR0, escr_val);
	wrmsr(MSR_P4_COUNTER(c), start);
	arch_workload_gated(iters, MSR_P4_CCCR(c), cccr(cccr_extra | P4_CCCR_ENABLE),
			    cccr(cccr_extra));
	return rdmsr(MSR_P4_COUNTER(c));
}

/* Count at `cpl` (enabled at CPL 0 around the ring transition). */
static int count_at_cpl(uint64_t escr_val, uint64_t iters, int cpl, uint64_t *out)
{
	const unsigned c = P4_IQ_COUNTER0;
	uint64_t res;
	int vec;

	wrmsr(MSR_P4_CCCR(c), cccr(0));
	wrmsr(MSR_CRU_ESCR0, escr_val);
	wrmsr(MSR_P4_COUNTER(c), 0);
	wrmsr(MSR_P4_CCCR(c), cccr(P4_CCCR_ENABLE));
	vec = arch_call_at_cpl(cpl, pmu_user_workload, iters, &res);
	wrmsr(MSR_P4_CCCR(c), cccr(0));
	*out = rdmsr(MSR_P4_COUNTER(c));
	return vec;
}

TEST(netburst, instr_retired_exact, REQ_NETBURST)
{
	uint64_t c1 = count(escr(true, true), 0, PMU_ITERS, 0);
	uint64_t c2 = count(escr(true, true), 0, 2 * PMU_ITERS, 0);

	expect_range(t, c1, PMU_ITERS * WORKLOAD_INSNS_PER_ITER,
		     PMU_ITERS * WORKLOAD_INSNS_PER_ITER + PMU_OVERHEAD_EVENTS,
		     RULE_P4_INSTR_RETIRED, "instr_retired over N = %llu iterations",
		     (unsigned long long)PMU_ITERS);
	expect_eq(t, c2 - c1, PMU_ITERS * WORKLOAD_INSNS_PER_ITER, RULE_P4_INSTR_RETIRED,
		  "instr_retired(2N) - instr_retired(N)");
}

TEST(netburst, cccr_enable_gates, REQ_NETBURST)
{
	const unsigned c = P4_IQ_COUNTER0;

	wrmsr(MSR_P4_CCCR(c), cccr(0));
	wrmsr(MSR_CRU_ESCR0, escr(true, true));
	wrmsr(MSR_P4_COUNTER(c), 0);
	arch_workload(PMU_ITERS);
	expect_eq(t, rdmsr(MSR_P4_COUNTER(c)), 0, RULE_P4_ENABLE,
		  "IQ_COUNTER0 with CCCR Enable = 0");
	expect_eq(t,
		  count(0 | FIELD_PREP_ULL(P4_ESCR_EVENT_SELECT, P4_INSTR_RETIRED_EVENT) |
			    FIELD_PREP_ULL(P4_ESCR_EVENT_MASK, P4_INSTR_RETIRED_NBOGUS),
			0, PMU_ITERS, 0),
		  0, RULE_P4_ENABLE, "IQ_COUNTER0 with ESCR T0_USR = T0_OS = 0");
}

TEST(netburst, escr_usr_os_filter, REQ_NETBURST)
{
	static const struct {
		int cpl;
		bool usr, os;
	} cases[] = {{3, true, false}, {3, false, true}, {0, true, false}, {0, false, true}};

	for (unsigned k = 0; k < ARRAY_SIZE(cases); k++) {
		uint64_t c1 = 0, c2 = 0;
		bool counts = cases[k].cpl ? cases[k].usr : cases[k].os;
		int v = count_at_cpl(escr(cases[k].usr, cases[k].os), PMU_ITERS, cases[k].cpl, &c1);

		v |=
		    count_at_cpl(escr(cases[k].usr, cases[k].os), 2 * PMU_ITERS, cases[k].cpl, &c2);
		if (!expect_no_fault(t, v, RULE_P4_ENABLE, "workload at CPL %d", cases[k].cpl))
			return;
		expect_eq(t, c2 - c1, counts ? PMU_ITERS * WORKLOAD_INSNS_PER_ITER : 0,
			  RULE_P4_ENABLE, "ESCR%s%s, workload at CPL %d: count(2N) - count(N)",
			  cases[k].usr ? " T0_USR" : "", cases[k].os ? " T0_OS" : "", cases[k].cpl);
	}
}

TEST(netburst, threshold_compare, REQ_NETBURST)
{
	/* Inputs are 0..15 per cycle: never above threshold 15. */
	uint64_t thr = P4_CCCR_COMPARE | FIELD_PREP_ULL(P4_CCCR_THRESHOLD, 15);

	expect_eq(t, count(escr(true, true), thr, PMU_ITERS, 0), 0, RULE_P4_THRESHOLD,
		  "Compare, threshold 15: cycles with more than 15 instructions retired");
	expect_true(t, count(escr(true, true), thr | P4_CCCR_COMPLEMENT, PMU_ITERS, 0) > 0, "> 0",
		    "0", RULE_P4_THRESHOLD,
		    "Compare + Complement, threshold 15: cycles with <= 15 (every cycle)");
}

TEST(netburst, overflow_sets_cccr_ovf, REQ_NETBURST)
{
	const unsigned c = P4_IQ_COUNTER0;
	uint64_t start = width_mask(P4_COUNTER_WIDTH) - 99; /* overflows after 100 */
	uint64_t after;

	/* Not gated by a CCCR write: that write would also clear OVF. */
	wrmsr(MSR_P4_CCCR(c), cccr(0));
	wrmsr(MSR_CRU_ESCR0, escr(true, true));
	wrmsr(MSR_P4_COUNTER(c), start);
	wrmsr(MSR_P4_CCCR(c), cccr(P4_CCCR_ENABLE));
	arch_workload(PMU_ITERS);
	expect_eq(t, rdmsr(MSR_P4_CCCR(c)) & P4_CCCR_OVF, P4_CCCR_OVF, RULE_P4_OVF,
		  "CCCR OVF after IQ_COUNTER0 wrapped");
	after = rdmsr(MSR_P4_COUNTER(c));
	expect_true(t, after < PMU_ITERS * WORKLOAD_INSNS_PER_ITER + PMU_OVERHEAD_EVENTS,
		    "wrapped to a small value", "did not wrap", RULE_P4_WIDTH,
		    "IQ_COUNTER0 = %#llx after starting at %#llx", (unsigned long long)after,
		    (unsigned long long)start);
	wrmsr(MSR_P4_CCCR(c), cccr(0));
	expect_eq(t, rdmsr(MSR_P4_CCCR(c)) & P4_CCCR_OVF, 0, RULE_P4_OVF,
		  "CCCR OVF after software cleared it");
}
