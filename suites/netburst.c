/* SPDX-License-Identifier: MIT */
/*
 * Pentium 4 / Xeon (NetBurst) counters: ESCR + CCCR set-up as the SDM's
 * procedure gives it (Vol. 3B 20.6.3, "Setting up an Event to Count" and
 * "Filtering Events"), counting instr_retired: ESCR MSR_CRU_ESCR0, event
 * select 02H, event mask NBOGUSNTAG|NBOGUSTAG (non-bogus instructions),
 * counted on IQ_COUNTER0 (counter 12) with CCCR ESCR_SELECT 04H (Vol. 3B
 * Appendix "Performance-Monitoring Events for Pentium 4", instr_retired).
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
	t_subject_msr(t, MSR_P4_CCCR(c));
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

/* ---- CCCR flags (Vol. 3B 20.6.3.3 and the subsections of 20.6.3.5) ------ */

#define P4_IQ_COUNTER2	    14 /* the alternate of IQ_COUNTER0 in the IQ block */
#define P4_CRU_ESCR2_SELECT 0x5
#define P4_OVF_AFTER	    100ULL

/* Program `c` with ESCR `escr_msr` <- `escr_val`, counter <- start, and the
 * CCCR as given (not enabled unless `cccr_val` says so). */
static void program(unsigned c, uint32_t escr_msr, uint64_t escr_val, uint64_t start,
		    uint64_t cccr_val)
{
	wrmsr(MSR_P4_CCCR(c), P4_CCCR_RESERVED_ONES);
	wrmsr(escr_msr, escr_val);
	wrmsr(MSR_P4_COUNTER(c), start);
	wrmsr(MSR_P4_CCCR(c), cccr_val);
}

TEST(netburst, cccr_force_ovf, REQ_NETBURST)
{
	const unsigned c = P4_IQ_COUNTER0;
	uint64_t v;

	/* From 0 the counter cannot wrap within the workload: OVF can only
	 * come from FORCE_OVF. Not gated by a CCCR write (it would clear OVF). */
	program(c, MSR_CRU_ESCR0, escr(true, true), 0, cccr(P4_CCCR_FORCE_OVF | P4_CCCR_ENABLE));
	arch_workload(PMU_ITERS);
	t_subject_msr(t, MSR_P4_CCCR(c));
	expect_eq(t, rdmsr(MSR_P4_CCCR(c)) & P4_CCCR_OVF, P4_CCCR_OVF, RULE_P4_FORCE_OVF,
		  "CCCR OVF after counting from 0 with FORCE_OVF");
	v = rdmsr(MSR_P4_COUNTER(c));
	expect_range(t, v, PMU_ITERS * WORKLOAD_INSNS_PER_ITER,
		     PMU_ITERS * WORKLOAD_INSNS_PER_ITER + PMU_OVERHEAD_EVENTS, RULE_P4_FORCE_OVF,
		     "IQ_COUNTER0 with FORCE_OVF still counts every event");
	program(c, MSR_CRU_ESCR0, escr(true, true), 0, cccr(P4_CCCR_ENABLE));
	arch_workload(PMU_ITERS);
	expect_eq(t, rdmsr(MSR_P4_CCCR(c)) & P4_CCCR_OVF, 0, RULE_P4_FORCE_OVF,
		  "CCCR OVF after counting from 0 without FORCE_OVF (no wrap)");
	wrmsr(MSR_P4_CCCR(c), cccr(0));
}

/* PMIs taken while `iters` run with counter c programmed as given. */
static unsigned pmis_over_workload(unsigned c, uint64_t start, uint64_t cccr_extra)
{
	pmu_pmi_install(true, 0, false);
	program(c, MSR_CRU_ESCR0, escr(true, true), start, cccr(cccr_extra | P4_CCCR_ENABLE));
	arch_irq_enable();
	arch_workload(PMU_ITERS);
	arch_irq_disable();
	wrmsr(MSR_P4_CCCR(c), cccr(0));
	return g_pmi.count;
}

TEST(netburst, cccr_ovf_pmi, REQ_NETBURST | REQ_APIC)
{
	const unsigned c = P4_IQ_COUNTER0;
	const uint64_t start = width_mask(P4_COUNTER_WIDTH) - (P4_OVF_AFTER - 1);

	expect_eq(t, pmis_over_workload(c, start, P4_CCCR_OVF_PMI), 1, RULE_P4_OVF_PMI,
		  "PMIs after IQ_COUNTER0 wrapped with OVF_PMI");
	expect_eq(t, g_pmi.lvt & APIC_LVT_MASKED, APIC_LVT_MASKED, RULE_P4_PMI_MASK,
		  "LVT performance-counter mask bit in the PMI handler");
	expect_eq(t, arch_apic_read_lvt_pmi() & APIC_LVT_MASKED, APIC_LVT_MASKED, RULE_P4_PMI_MASK,
		  "LVT performance-counter mask bit after the PMI");
	expect_eq(t, pmis_over_workload(c, start, 0), 0, RULE_P4_OVF_PMI,
		  "PMIs after IQ_COUNTER0 wrapped without OVF_PMI");
	/* FORCE_OVF: the first increment is an overflow, hence a PMI. */
	expect_eq(t, pmis_over_workload(c, 0, P4_CCCR_FORCE_OVF | P4_CCCR_OVF_PMI), 1,
		  RULE_P4_FORCE_OVF, "PMIs with FORCE_OVF and OVF_PMI, counting from 0");
	pmu_pmi_uninstall();
}

/*
 * Cascade IQ_COUNTER0 (12, overflows after half the workload) into its
 * alternate IQ_COUNTER2 (14, CASCADE set, Enable clear): 14 must count the
 * events after 12's overflow, i.e. about what 12 holds after its wrap.
 */
static void cascade_run(uint64_t start12, uint64_t cccr14_extra, uint64_t *c12, uint64_t *c14)
{
	const unsigned a = P4_IQ_COUNTER0, b = P4_IQ_COUNTER2;

	program(b, MSR_CRU_ESCR1, escr(true, true), 0, cccr(cccr14_extra));
	program(a, MSR_CRU_ESCR0, escr(true, true), start12, cccr(0));
	arch_workload_gated(PMU_ITERS, MSR_P4_CCCR(a), cccr(P4_CCCR_ENABLE), cccr(0));
	wrmsr(MSR_P4_CCCR(b), cccr(0));
	*c12 = rdmsr(MSR_P4_COUNTER(a));
	*c14 = rdmsr(MSR_P4_COUNTER(b));
}

TEST(netburst, cccr_cascade, REQ_NETBURST)
{
	const uint64_t half = PMU_ITERS * WORKLOAD_INSNS_PER_ITER / 2;
	const uint64_t start = width_mask(P4_COUNTER_WIDTH) - (half - 1);
	uint64_t c12, c14;

	cascade_run(start, P4_CCCR_CASCADE, &c12, &c14);
	expect_true(t, c12 < half + PMU_OVERHEAD_EVENTS, "IQ_COUNTER0 wrapped", "no wrap",
		    RULE_P4_CASCADE,
		    "IQ_COUNTER0 = %#llx after starting %llu events before "
		    "overflow",
		    (unsigned long long)c12, (unsigned long long)half);
	expect_range(t, c14, c12 > PMU_OVERHEAD_EVENTS ? c12 - PMU_OVERHEAD_EVENTS : 0,
		     c12 + PMU_OVERHEAD_EVENTS, RULE_P4_CASCADE,
		     "IQ_COUNTER2 (CASCADE, Enable clear) vs the %llu events IQ_COUNTER0 "
		     "counted after its overflow",
		     (unsigned long long)c12);
	cascade_run(0, P4_CCCR_CASCADE, &c12, &c14);
	expect_eq(t, c14, 0, RULE_P4_CASCADE,
		  "IQ_COUNTER2 (CASCADE) when IQ_COUNTER0 never "
		  "overflows");
	cascade_run(start, 0, &c12, &c14);
	expect_eq(t, c14, 0, RULE_P4_CASCADE,
		  "IQ_COUNTER2 (Enable and CASCADE clear) after IQ_COUNTER0 overflowed");
}

/* count(2N) - count(N) on counter c with the given ESCR_SELECT. */
static uint64_t select_delta(unsigned c, unsigned sel)
{
	uint64_t n[2];

	for (unsigned k = 0; k < 2; k++) {
		uint64_t cc = P4_CCCR_RESERVED_ONES | FIELD_PREP_ULL(P4_CCCR_ESCR_SELECT, sel);

		wrmsr(MSR_P4_CCCR(c), cc);
		wrmsr(MSR_P4_COUNTER(c), 0);
		arch_workload_gated((k + 1) * PMU_ITERS, MSR_P4_CCCR(c), cc | P4_CCCR_ENABLE, cc);
		n[k] = rdmsr(MSR_P4_COUNTER(c));
	}
	return n[1] - n[0];
}

TEST(netburst, cccr_escr_select, REQ_NETBURST)
{
	const uint64_t n = PMU_ITERS * WORKLOAD_INSNS_PER_ITER;
	static const struct {
		unsigned counter, sel;
		uint32_t armed; /* the one ESCR holding instr_retired */
		bool counts;
		const char *what;
	} cases[] = {
	    {P4_IQ_COUNTER0, P4_CRU_ESCR_SELECT, MSR_CRU_ESCR0, true,
	     "IQ_COUNTER0, select 4 (CRU_ESCR0)"},
	    {P4_IQ_COUNTER0, P4_CRU_ESCR2_SELECT, MSR_CRU_ESCR2, true,
	     "IQ_COUNTER0, select 5 (CRU_ESCR2)"},
	    {P4_IQ_COUNTER0, P4_CRU_ESCR2_SELECT, MSR_CRU_ESCR0, false,
	     "IQ_COUNTER0, select 5 (CRU_ESCR2 empty, CRU_ESCR0 armed)"},
	    {P4_IQ_COUNTER2, P4_CRU_ESCR_SELECT, MSR_CRU_ESCR1, true,
	     "IQ_COUNTER2, select 4 (CRU_ESCR1)"},
	    {P4_IQ_COUNTER2, P4_CRU_ESCR_SELECT, MSR_CRU_ESCR0, false,
	     "IQ_COUNTER2, select 4 (CRU_ESCR1 empty, CRU_ESCR0 armed)"},
	};

	for (unsigned k = 0; k < ARRAY_SIZE(cases); k++) {
		wrmsr(MSR_CRU_ESCR0, 0);
		wrmsr(MSR_CRU_ESCR1, 0);
		wrmsr(MSR_CRU_ESCR2, 0);
		wrmsr(cases[k].armed, escr(true, true));
		expect_eq(t, select_delta(cases[k].counter, cases[k].sel), cases[k].counts ? n : 0,
			  RULE_P4_ESCR_SELECT, "%s: count(2N) - count(N)", cases[k].what);
	}
	wrmsr(MSR_CRU_ESCR0, 0);
	wrmsr(MSR_CRU_ESCR1, 0);
	wrmsr(MSR_CRU_ESCR2, 0);
}
