/* SPDX-License-Identifier: MIT */
/*
 * Event filtering by IA32_PERFEVTSELx and IA32_FIXED_CTR_CTRL: the USR and OS
 * ring filters at every CPL, and the EDGE, INV and CMASK qualifiers.
 * SDM Vol. 3B 20.2.1.1 (Figure 20-1) and 20.2.2 (Figure 20-2).
 * The tests belong to the counting suite (same names as before the split).
 */
#include "cmask_partition.h"
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

/*
 * Ring filtering. The workload runs at `cpl`; the count's growth between N
 * and 2N iterations is what the filter let through: everything (USR at
 * CPL > 0, OS at CPL 0) or nothing.
 */
struct ring_case {
	int cpl;
	bool usr, os;
};
static const struct ring_case ring_cases[] = {
    {3, true, false}, {3, false, true}, {3, true, true},  {2, true, false}, {2, false, true},
    {1, true, false}, {1, false, true}, {0, true, false}, {0, false, true},
};

static bool ring_counts(const struct ring_case *rc)
{
	return rc->cpl ? rc->usr : rc->os;
}

TEST(counting, usr_os_filter_gp, REQ_ARCH_PMU | REQ_EXACT_EVENT | REQ_GP_COUNTER)
{
	enum arch_event ev;
	uint64_t per_iter;

	pmu_exact_event(&ev, &per_iter);
	for_each_gp_counter(c) {
		if (!t_counter_counts(t, c))
			continue;
		for (unsigned k = 0; k < ARRAY_SIZE(ring_cases); k++) {
			const struct ring_case *rc = &ring_cases[k];
			uint64_t sel = pmu_evtsel(ev, (rc->usr ? PERFEVTSEL_USR : 0) |
							  (rc->os ? PERFEVTSEL_OS : 0));
			uint64_t c1 = 0, c2 = 0;
			int v1 = pmu_count_gp_at_cpl(c.idx, sel, PMU_ITERS, rc->cpl, &c1);
			int v2 = pmu_count_gp_at_cpl(c.idx, sel, 2 * PMU_ITERS, rc->cpl, &c2);

			if (!expect_no_fault(t, v1 | v2, RULE_EVTSEL_USR, "workload at CPL %d",
					     rc->cpl))
				return;
			expect_eq(t, c2 - c1, ring_counts(rc) ? PMU_ITERS * per_iter : 0,
				  rc->usr ? RULE_EVTSEL_USR : RULE_EVTSEL_OS,
				  COUNTER_FMT " %s with%s%s, workload at CPL %d: count(2N) - "
					      "count(N)",
				  COUNTER_ARG(c), caps_arch_events[ev].name, rc->usr ? " USR" : "",
				  rc->os ? " OS" : "", rc->cpl);
		}
	}
}

TEST(counting, usr_os_filter_fixed, REQ_FIXED0)
{
	if (!t_counter_counts(t, FIXED_COUNTER(0)))
		return;
	for (unsigned k = 0; k < ARRAY_SIZE(ring_cases); k++) {
		const struct ring_case *rc = &ring_cases[k];
		uint64_t field = (rc->usr ? FIXED_CTRL_USR : 0) | (rc->os ? FIXED_CTRL_OS : 0);
		uint64_t c1 = 0, c2 = 0;
		int v1 = pmu_count_fixed_at_cpl(0, field, PMU_ITERS, rc->cpl, &c1);
		int v2 = pmu_count_fixed_at_cpl(0, field, 2 * PMU_ITERS, rc->cpl, &c2);

		if (!expect_no_fault(t, v1 | v2, RULE_FIXED_USR, "workload at CPL %d", rc->cpl))
			return;
		expect_eq(t, c2 - c1, ring_counts(rc) ? PMU_ITERS * WORKLOAD_INSNS_PER_ITER : 0,
			  rc->usr ? RULE_FIXED_USR : RULE_FIXED_OS,
			  "IA32_FIXED_CTR0 EN = %llu, workload at CPL %d: count(2N) - count(N)",
			  (unsigned long long)field, rc->cpl);
	}
}

/* One counter (`sel` without EN) over the workload, on any version. */
static uint64_t count_one(int c, uint64_t sel)
{
	return pmu_count_gp((unsigned)c, sel & ~PERFEVTSEL_EN, PMU_ITERS);
}

TEST(counting, edge_inv_cmask,
     REQ_ARCH_PMU | REQ_GP_COUNTER | REQ_CORE_CYCLES_EVENT | REQ_INSTRUCTIONS_EVENT)
{
	uint64_t base = PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_EN;
	uint64_t ins = pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, base);
	uint64_t cyc = pmu_evtsel(ARCH_EVENT_CORE_CYCLES, base);
	static const struct cmask_partition_words words = {
	    .rule_cmask = RULE_EVTSEL_CMASK,
	    .rule_inv = RULE_EVTSEL_INV,
	    .rule_edge = RULE_EVTSEL_EDGE,
	    .cmask_one = "cycles retiring >= 1 instruction (CMASK = 1)",
	    .sum = "CMASK=1 + INV CMASK=1 == core cycles",
	    .cycles = "core cycles",
	    .edge_one = "EDGE CMASK=1 (transitions into retiring), INV CMASK=1",
	};
	int c[CMASK_COUNTERS];
	uint64_t sel[CMASK_COUNTERS], v[CMASK_COUNTERS], all = 0;
	unsigned n = 0;
	bool counts = true;

	for (unsigned k = 0; k < CMASK_COUNTERS; k++) {
		c[k] = pmu_gp_nth(k);
		if (c[k] >= 0) {
			n++;
			all |= GLOBAL_PMC_BIT(c[k]);
		}
	}
	/* Even "counts 0" needs a counter that counts. */
	if (!t_counter_counts(t, GP_COUNTER((unsigned)c[0])))
		return;
	/* CMASK = 255: no core retires 255 instructions in one cycle. */
	expect_eq(t, count_one(c[0], ins | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255)), 0,
		  RULE_EVTSEL_CMASK, "instructions with CMASK = 255 (cycles retiring >= 255)");
	/* INV + CMASK = 255 is every cycle: at least instructions / 16. */
	expect_range(t,
		     count_one(c[0], ins | PERFEVTSEL_INV | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255)),
		     PMU_ITERS * WORKLOAD_INSNS_PER_ITER / PMU_MAX_IPC, pmu_cycles_max(PMU_ITERS),
		     RULE_EVTSEL_INV, "instructions with INV, CMASK = 255 (every cycle)");
	/* EDGE on a condition that is always true (INV, CMASK = 255): one
	 * rising edge at most; on one that is never true: none. */
	expect_range(t,
		     count_one(c[0], ins | PERFEVTSEL_EDGE | PERFEVTSEL_INV |
					 FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255)),
		     0, 1, RULE_EVTSEL_EDGE,
		     "EDGE INV CMASK=255: rising edges of an always-true condition");
	expect_eq(t, count_one(c[0], ins | PERFEVTSEL_EDGE | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255)),
		  0, RULE_EVTSEL_EDGE, "EDGE CMASK=255: rising edges of a never-true condition");
	if (n < 2 || !pmu_has_global()) {
		t_diag(t,
		       "simultaneous INV/EDGE checks need 2+ GP counters and GLOBAL_CTRL "
		       "(%u counters, version %u)",
		       n, caps()->pm.version);
		return;
	}
	/* INV + CMASK = 255: every cycle retires fewer than 255. */
	if (!t_counter_counts(t, GP_COUNTER((unsigned)c[1])))
		return;
	pmu_gp_program(c[0], cyc, 0);
	pmu_gp_program(c[1], ins | PERFEVTSEL_INV | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255), 0);
	pmu_run_gated(pmu_gate_global(GLOBAL_PMC_BIT(c[0]) | GLOBAL_PMC_BIT(c[1])), PMU_ITERS);
	v[0] = pmu_gp_read(c[0]);
	v[1] = pmu_gp_read(c[1]);
	expect_true(t, v[0] > 0 && counts_close(v[0], v[1]), "INV count == core cycles (+-1/64)",
		    "differs", RULE_EVTSEL_INV, "INV CMASK=255 count %llu vs core cycles %llu",
		    (unsigned long long)v[1], (unsigned long long)v[0]);
	if (n < 4) {
		t_diag(t, "CMASK partition / EDGE checks need 4 GP counters (%u present)", n);
		return;
	}
	for (unsigned k = 2; k < CMASK_COUNTERS; k++)
		counts &= t_counter_counts(t, GP_COUNTER((unsigned)c[k]));
	if (!counts)
		return;
	/* CMASK = 1 and INV CMASK = 1 split the cycles; EDGE CMASK = 1 counts
	 * the rising edges of "retired >= 1", at most one per stall + 1. */
	cmask_partition_selects(cyc, ins, sel);
	for (unsigned k = 0; k < CMASK_COUNTERS; k++)
		pmu_gp_program(c[k], sel[k], 0);
	pmu_run_gated(pmu_gate_global(all), PMU_ITERS);
	for (unsigned k = 0; k < CMASK_COUNTERS; k++)
		v[k] = pmu_gp_read(c[k]);
	expect_cmask_partition(t, v, PMU_ITERS * WORKLOAD_INSNS_PER_ITER / PMU_MAX_IPC, &words);
}

/* ---- EQ: CPUID.(23H,0):EBX[1] -------------------------------
 * Three counters over the same window count the instructions-retired event
 * with CMASK = 1, CMASK = 2 and CMASK = 1 with EQ: if EQ makes the CMASK
 * comparison "equal" (RULE_EVTSEL_EQ, inferred), the third is the first
 * minus the second. */
TEST(counting, eq_counts_cmask_equal, REQ_ARCH_PMU_V2 | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	uint64_t ins = pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, PERFEVTSEL_OS | PERFEVTSEL_EN);
	const uint64_t sel[3] = {ins | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 1),
				 ins | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 2),
				 ins | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 1) | PERFEVTSEL_EQ};
	uint64_t v[3], all = 0;
	int c[3];
	bool counts = true;

	if (!(caps()->l23.present && caps()->l23.eq))
		t_skip_return(t, "CPUID.(23H,0):EBX[1] = 0: no EQ bit");
	for (unsigned k = 0; k < 3; k++) {
		c[k] = pmu_gp_nth(k);
		if (c[k] < 0)
			t_skip_return(t, "EQ against CMASK needs 3 GP counters");
	}
	for (unsigned k = 0; k < 3; k++)
		counts &= t_counter_counts(t, GP_COUNTER((unsigned)c[k]));
	if (!counts)
		return;
	for (unsigned k = 0; k < 3; k++) {
		all |= GLOBAL_PMC_BIT(c[k]);
		pmu_gp_program(c[k], sel[k], 0);
	}
	pmu_run_gated(pmu_gate_global(all), PMU_ITERS);
	for (unsigned k = 0; k < 3; k++) {
		v[k] = pmu_gp_read(c[k]);
		pmu_gp_program(c[k], 0, 0);
	}
	t_diag(t, "cycles retiring >= 1: %llu, >= 2: %llu, EQ = 1: %llu", (unsigned long long)v[0],
	       (unsigned long long)v[1], (unsigned long long)v[2]);
	expect_true(t, v[0] >= v[1] && counts_close(v[0] - v[1], v[2]),
		    "CMASK=1 - CMASK=2 == EQ CMASK=1 (+-1/64 + 64)", "differs", RULE_EVTSEL_EQ,
		    "EQ CMASK=1 count %llu vs CMASK=1 %llu - CMASK=2 %llu",
		    (unsigned long long)v[2], (unsigned long long)v[0], (unsigned long long)v[1]);
}
