// SPDX-License-Identifier: MIT
/*
 * Counting: the architectural events count the calibrated workload, exactly
 * where the SDM makes the count exact (instructions, branches) and within
 * bounds derived from the architecture elsewhere; disabled counters do not
 * count; USR/OS filtering; EDGE, INV and CMASK; rewriting a running counter.
 * SDM Vol. 3B 20.2.1, Figure 20-1, Tables 20-1 and 20-2.
 */
#include "ktap.h"
#include "pmu.h"
#include "rules.h"
#include "test.h"

/*
 * Bounds, argued from the architecture rather than measured:
 *  - no Intel core retires more than 16 instructions per cycle (8-wide
 *    retirement, macro-fused pairs), so cycles >= instructions / 16;
 *  - a 10-instruction register-only iteration takes far less than
 *    CYCLES_PER_ITER_MAX cycles even on a slow, throttled or virtualized
 *    core, and the gate adds less than CYCLES_OVERHEAD;
 *  - topdown slots are cycles times the issue width (<= 16 here);
 *  - cache, miss and LBR events happen at most once per iteration of a loop
 *    that touches no memory, plus the gate's overhead.
 */
#define MAX_IPC		    16ULL
#define CYCLES_PER_ITER_MAX 1000ULL
#define CYCLES_OVERHEAD	    1000000ULL
#define MAX_SLOT_WIDTH	    16ULL

struct bounds {
	uint64_t lo, hi;
	uint64_t exact_per_iter; /* non-zero: count(2N) - count(N) is exact */
	const char *rule;
};

static uint64_t cycles_hi(uint64_t n)
{
	return n * CYCLES_PER_ITER_MAX + CYCLES_OVERHEAD;
}

static struct bounds event_bounds(enum arch_event ev, uint64_t n, uint64_t tsc_delta)
{
	uint64_t insns = n * WORKLOAD_INSNS_PER_ITER;

	switch (ev) {
	case ARCH_EVENT_INSTRUCTIONS:
		return (struct bounds){insns, insns + PMU_OVERHEAD_EVENTS, WORKLOAD_INSNS_PER_ITER,
				       RULE_EVENT_INSTRUCTIONS};
	case ARCH_EVENT_BRANCHES:
		return (struct bounds){n, n + PMU_OVERHEAD_EVENTS, WORKLOAD_BRANCHES_PER_ITER,
				       RULE_EVENT_BRANCHES};
	case ARCH_EVENT_CORE_CYCLES:
		return (struct bounds){insns / MAX_IPC, cycles_hi(n), 0, RULE_EVENT_CYCLES};
	case ARCH_EVENT_REF_CYCLES:
		/* Counts at most at the TSC rate over the window the TSC saw. */
		return (struct bounds){1, tsc_delta + 1000, 0, RULE_EVENT_REF_CYCLES};
	case ARCH_EVENT_TOPDOWN_SLOTS:
		return (struct bounds){insns / MAX_IPC, MAX_SLOT_WIDTH * cycles_hi(n), 0,
				       RULE_EVENT_BOUNDED};
	case ARCH_EVENT_TOPDOWN_BACKEND:
	case ARCH_EVENT_TOPDOWN_BAD_SPEC:
	case ARCH_EVENT_TOPDOWN_FRONTEND:
	case ARCH_EVENT_TOPDOWN_RETIRING:
		return (struct bounds){0, MAX_SLOT_WIDTH * cycles_hi(n), 0, RULE_EVENT_BOUNDED};
	default: /* LLC references/misses, branch misses, LBR inserts */
		return (struct bounds){0, n + PMU_OVERHEAD_EVENTS, 0, RULE_EVENT_BOUNDED};
	}
}

/* Check one count of `n` iterations (and, for exact events, the difference
 * to a count of 2n iterations). */
static void check_count(struct t *t, enum arch_event ev, const char *where, uint64_t c1,
			uint64_t c2, uint64_t n, uint64_t tsc_delta)
{
	struct bounds b = event_bounds(ev, n, tsc_delta);

	expect_range(t, c1, b.lo, b.hi, b.rule, "%s counting %s over %llu iterations", where,
		     pmu_arch_events[ev].name, (unsigned long long)n);
	if (b.exact_per_iter)
		expect_eq(t, c2 - c1, n * b.exact_per_iter, b.rule, "%s: %s(2N) - %s(N), N = %llu",
			  where, pmu_arch_events[ev].name, pmu_arch_events[ev].name,
			  (unsigned long long)n);
}

TEST(counting, arch_events_every_gp_counter, REQ_ARCH_PMU)
{
	unsigned done = 0;
	char where[32];

	for (unsigned ev = 0; ev < ARCH_EVENT_COUNT; ev++) {
		if (!pmu_event_available(ev))
			continue;
		for (unsigned i = 0; i < pmu_num_gp(); i++) {
			uint64_t sel = pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR);
			uint64_t tsc0, c1, c2, tsc_delta;

			if (!pmu_gp_present(i))
				continue;
			tsc0 = arch_rdtsc();
			c1 = pmu_count_gp(i, sel, PMU_ITERS);
			tsc_delta = arch_rdtsc() - tsc0;
			c2 = pmu_count_gp(i, sel, 2 * PMU_ITERS);
			ksnprintf(where, sizeof(where), "IA32_PMC%u", i);
			check_count(t, ev, where, c1, c2, PMU_ITERS, tsc_delta);
			done++;
		}
	}
	if (!done)
		t_skip(t, "CPUID.0AH:EBX marks every architectural event unavailable");
}

/*
 * Lower bounds on the events the calibrated loop cannot cause, from the two
 * workloads that must cause them (include/arch.h argues each bound):
 *  - every load of arch_workload_llc_miss() follows a CLFLUSH of its line and
 *    an MFENCE, so it is an LLC reference and an LLC miss; prefetchers may
 *    refill a line in between (Vol. 2A CLFLUSH), so at least half of them are
 *    required; prefetches, page walks and the flushes may add a few more per
 *    load, never LLC_EVENTS_PER_LOAD_MAX;
 *  - arch_workload_branch_miss() branches on a fresh pseudo-random bit each
 *    iteration: a predictor mispredicts about half of them; 1/8 is required,
 *    and no more than the branches that retire.
 * A CPU or vPMU that never counts these events fails here, where the loop
 * of arch_events_every_gp_counter only bounds them from above.
 */
#define LLC_WALKS		4 /* walks of the buffer per count */
#define LLC_EVENTS_PER_LOAD_MAX 16
#define BRMISS_MIN_DIVISOR	8

static void llc_walks(void *arg)
{
	(void)arg;
	for (unsigned k = 0; k < LLC_WALKS; k++)
		arch_workload_llc_miss(pmu_llc_buffer(), PMU_LLC_LINES);
}

TEST(counting, llc_events_lower_bound, REQ_ARCH_PMU | REQ_CLFLUSH)
{
	static const struct {
		enum arch_event ev;
		const char *rule;
	} evs[] = {
	    {ARCH_EVENT_LLC_REFERENCES, RULE_EVENT_LLC_REF},
	    {ARCH_EVENT_LLC_MISSES, RULE_EVENT_LLC_MISS},
	};
	const uint64_t loads = LLC_WALKS * PMU_LLC_LINES;
	unsigned done = 0;

	for (unsigned k = 0; k < ARRAY_SIZE(evs); k++) {
		if (!pmu_event_available(evs[k].ev))
			continue;
		for (unsigned i = 0; i < pmu_num_gp(); i++) {
			uint64_t sel = pmu_evtsel(evs[k].ev, PERFEVTSEL_OS | PERFEVTSEL_USR);

			if (!pmu_gp_present(i))
				continue;
			expect_range(t, pmu_count_gp_call(i, sel, llc_walks, NULL), loads / 2,
				     loads * LLC_EVENTS_PER_LOAD_MAX + PMU_OVERHEAD_EVENTS,
				     evs[k].rule,
				     "IA32_PMC%u counting %s over %llu loads, each after CLFLUSH "
				     "and MFENCE of its line",
				     i, pmu_arch_events[evs[k].ev].name, (unsigned long long)loads);
			done++;
		}
	}
	if (!done)
		t_skip(t, "CPUID.0AH:EBX[3] and EBX[4]: LLC references and LLC misses unavailable");
}

struct brmiss_run {
	uint64_t iters, seed;
};

static void brmiss_run(void *arg)
{
	const struct brmiss_run *r = arg;

	arch_workload_branch_miss(r->iters, r->seed);
}

/* A seed no earlier run of this boot used, so that no predictor has seen
 * the sequence (include/arch.h: predictors memorize repeated ones). */
static uint64_t fresh_seed(void)
{
	static uint64_t runs;

	return arch_rdtsc() ^ (++runs * 0x9E3779B97F4A7C15ULL);
}

TEST(counting, branch_misses_lower_bound, REQ_ARCH_PMU)
{
	uint64_t sel = pmu_evtsel(ARCH_EVENT_BRANCH_MISSES, PERFEVTSEL_OS | PERFEVTSEL_USR);

	if (!pmu_event_available(ARCH_EVENT_BRANCH_MISSES)) {
		t_skip(t, "CPUID.0AH:EBX[6]: branch misses retired unavailable");
		return;
	}
	for (unsigned i = 0; i < pmu_num_gp(); i++) {
		struct brmiss_run r = {PMU_ITERS, fresh_seed()};

		if (!pmu_gp_present(i))
			continue;
		expect_range(
		    t, pmu_count_gp_call(i, sel, brmiss_run, &r), PMU_ITERS / BRMISS_MIN_DIVISOR,
		    PMU_ITERS * WORKLOAD_BRMISS_BRANCHES_PER_ITER + PMU_OVERHEAD_EVENTS,
		    RULE_EVENT_BRANCH_MISSES,
		    "IA32_PMC%u counting branch misses over %llu branches on pseudo-random "
		    "bits (seed %#llx)",
		    i, (unsigned long long)PMU_ITERS, (unsigned long long)r.seed);
	}
}

/* Event each fixed counter counts, Table 20-2. */
static const int fixed_event[] = {
    [FIXED_INSTRUCTIONS] = ARCH_EVENT_INSTRUCTIONS,
    [FIXED_CORE_CYCLES] = ARCH_EVENT_CORE_CYCLES,
    [FIXED_REF_CYCLES] = ARCH_EVENT_REF_CYCLES,
    [FIXED_TOPDOWN_SLOTS] = ARCH_EVENT_TOPDOWN_SLOTS,
};

TEST(counting, fixed_counter_events, REQ_FIXED)
{
	char where[32];

	for (unsigned i = 0; i < FIXED_MAX; i++) {
		uint64_t field = FIXED_CTRL_OS | FIXED_CTRL_USR, tsc0, c1, c2, dt;

		if (!pmu_fixed_present(i))
			continue;
		tsc0 = arch_rdtsc();
		c1 = pmu_count_fixed(i, field, PMU_ITERS);
		dt = arch_rdtsc() - tsc0;
		c2 = pmu_count_fixed(i, field, 2 * PMU_ITERS);
		if (i >= ARRAY_SIZE(fixed_event)) {
			/* Table 20-2 names no architectural event for it. */
			t_diag(t, "IA32_FIXED_CTR%u counted %llu / %llu (event not architectural)",
			       i, (unsigned long long)c1, (unsigned long long)c2);
			continue;
		}
		ksnprintf(where, sizeof(where), "IA32_FIXED_CTR%u", i);
		check_count(t, fixed_event[i], where, c1, c2, PMU_ITERS, dt);
	}
}

TEST(counting, all_counters_at_once, REQ_ARCH_PMU_V2)
{
	enum arch_event ev;
	uint64_t per_iter, bits = pmu_global_counter_bits();
	uint64_t c1[32], f1[FIXED_MAX];

	if (!pmu_exact_event(&ev, &per_iter)) {
		t_skip(t,
		       "CPUID.0AH:EBX[1] and EBX[5]: neither instructions nor branches available");
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		uint64_t n = pass ? 2 * PMU_ITERS : PMU_ITERS;

		for (unsigned i = 0; i < pmu_num_gp() && i < 32; i++)
			if (pmu_gp_present(i))
				pmu_gp_program(
				    i,
				    pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_EN),
				    0);
		for (unsigned i = 0; i < FIXED_MAX; i++)
			if (pmu_fixed_present(i))
				pmu_fixed_program(i, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
		pmu_run_gated(pmu_gate_global(bits), n);
		for (unsigned i = 0; i < pmu_num_gp() && i < 32; i++) {
			uint64_t v;

			if (!pmu_gp_present(i))
				continue;
			v = pmu_gp_read(i);
			if (!pass)
				c1[i] = v;
			else
				expect_eq(t, v - c1[i], PMU_ITERS * per_iter, RULE_ALL_COUNTERS,
					  "IA32_PMC%u (%s) with all counters enabled: count(2N) - "
					  "count(N)",
					  i, pmu_arch_events[ev].name);
		}
		for (unsigned i = 0; i < FIXED_MAX; i++) {
			uint64_t v;

			if (!pmu_fixed_present(i))
				continue;
			v = pmu_fixed_read(i);
			if (!pass)
				f1[i] = v;
			else if (i == FIXED_INSTRUCTIONS)
				expect_eq(t, v - f1[i], PMU_ITERS * WORKLOAD_INSNS_PER_ITER,
					  RULE_ALL_COUNTERS,
					  "IA32_FIXED_CTR0 with all counters enabled: count(2N) - "
					  "count(N)");
			else if (i >= ARRAY_SIZE(fixed_event))
				/* Table 20-2 ties no event to it: it may not occur */
				t_diag(t,
				       "IA32_FIXED_CTR%u with all counters enabled: %llu then %llu",
				       i, (unsigned long long)f1[i], (unsigned long long)v);
			else
				expect_true(
				    t, v > f1[i], "count(2N) > count(N)",
				    v > f1[i] ? "larger" : "not larger", RULE_ALL_COUNTERS,
				    "IA32_FIXED_CTR%u with all counters enabled: %llu then %llu", i,
				    (unsigned long long)f1[i], (unsigned long long)v);
		}
	}
}

TEST(counting, disabled_counter_does_not_count, REQ_ARCH_PMU)
{
	enum arch_event ev;
	uint64_t per_iter, all = pmu_global_counter_bits();

	if (!pmu_exact_event(&ev, &per_iter)) {
		t_skip(t,
		       "CPUID.0AH:EBX[1] and EBX[5]: neither instructions nor branches available");
		return;
	}
	for (unsigned i = 0; i < pmu_num_gp(); i++) {
		uint64_t sel = pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR);

		if (!pmu_gp_present(i))
			continue;
		/* EN clear, global enable set (or, on v1, nothing else gating). */
		pmu_gp_program(i, sel, 0);
		if (pmu_has_global())
			pmu_run_gated(pmu_gate_global(GLOBAL_PMC_BIT(i)), PMU_ITERS);
		else
			arch_workload(PMU_ITERS);
		expect_eq(t, pmu_gp_read(i), 0, RULE_EVTSEL_EN, "IA32_PMC%u with EVTSEL.EN = 0", i);
		if (!pmu_has_global())
			continue;
		/* EN set, its global enable clear while every other one is set. */
		pmu_gp_program(i, sel | PERFEVTSEL_EN, 0);
		pmu_run_gated(pmu_gate_global(all & ~GLOBAL_PMC_BIT(i)), PMU_ITERS);
		expect_eq(t, pmu_gp_read(i), 0, RULE_GLOBAL_CTRL_GATE,
			  "IA32_PMC%u with EN = 1 and GLOBAL_CTRL bit %u clear", i, i);
		pmu_gp_program(i, 0, 0);
	}
	for (unsigned i = 0; i < FIXED_MAX; i++) {
		if (!pmu_fixed_present(i))
			continue;
		pmu_fixed_program(i, 0, 0);
		pmu_run_gated(pmu_gate_global(GLOBAL_FIXED_BIT(i)), PMU_ITERS);
		expect_eq(t, pmu_fixed_read(i), 0, RULE_FIXED_CTRL_EN,
			  "IA32_FIXED_CTR%u with its EN field 0 and GLOBAL_CTRL bit set", i);
		pmu_fixed_program(i, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
		pmu_run_gated(pmu_gate_global(all & ~GLOBAL_FIXED_BIT(i)), PMU_ITERS);
		expect_eq(t, pmu_fixed_read(i), 0, RULE_GLOBAL_CTRL_GATE,
			  "IA32_FIXED_CTR%u with EN = 3 and GLOBAL_CTRL bit %u clear", i, 32 + i);
		pmu_fixed_program(i, 0, 0);
	}
}

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

TEST(counting, usr_os_filter_gp, REQ_ARCH_PMU)
{
	enum arch_event ev;
	uint64_t per_iter;

	if (!pmu_exact_event(&ev, &per_iter)) {
		t_skip(t,
		       "CPUID.0AH:EBX[1] and EBX[5]: neither instructions nor branches available");
		return;
	}
	for (unsigned i = 0; i < pmu_num_gp(); i++) {
		if (!pmu_gp_present(i))
			continue;
		for (unsigned k = 0; k < ARRAY_SIZE(ring_cases); k++) {
			const struct ring_case *rc = &ring_cases[k];
			uint64_t sel = pmu_evtsel(ev, (rc->usr ? PERFEVTSEL_USR : 0) |
							  (rc->os ? PERFEVTSEL_OS : 0));
			uint64_t c1 = 0, c2 = 0;
			int v1 = pmu_count_gp_at_cpl(i, sel, PMU_ITERS, rc->cpl, &c1);
			int v2 = pmu_count_gp_at_cpl(i, sel, 2 * PMU_ITERS, rc->cpl, &c2);

			if (!expect_no_fault(t, v1 | v2, RULE_EVTSEL_USR, "workload at CPL %d",
					     rc->cpl))
				return;
			expect_eq(
			    t, c2 - c1, ring_counts(rc) ? PMU_ITERS * per_iter : 0,
			    rc->usr ? RULE_EVTSEL_USR : RULE_EVTSEL_OS,
			    "IA32_PMC%u %s with%s%s, workload at CPL %d: count(2N) - count(N)", i,
			    pmu_arch_events[ev].name, rc->usr ? " USR" : "", rc->os ? " OS" : "",
			    rc->cpl);
		}
	}
}

TEST(counting, usr_os_filter_fixed, REQ_FIXED)
{
	if (!pmu_fixed_present(FIXED_INSTRUCTIONS)) {
		t_skip(t, "CPUID.0AH:EDX[4:0] > 0 or ECX[0]: fixed counter 0 not supported");
		return;
	}
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

/* |a - b| <= a / 64 + 64: two counters that count the same cycles in the
 * same window, allowing for the enable taking effect a few cycles apart. */
static bool close_to(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;

	return d <= a / 64 + 64;
}

/* One counter (`sel` without EN) over the workload, on any version. */
static uint64_t count_one(int c, uint64_t sel)
{
	return pmu_count_gp((unsigned)c, sel & ~PERFEVTSEL_EN, PMU_ITERS);
}

TEST(counting, edge_inv_cmask, REQ_ARCH_PMU)
{
	uint64_t base = PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_EN;
	uint64_t ins = pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, base);
	uint64_t cyc = pmu_evtsel(ARCH_EVENT_CORE_CYCLES, base);
	int c[4];
	uint64_t v[4], all = 0;
	unsigned n = 0;

	if (!pmu_event_available(ARCH_EVENT_INSTRUCTIONS) ||
	    !pmu_event_available(ARCH_EVENT_CORE_CYCLES)) {
		t_skip(t, "CPUID.0AH:EBX[0] or EBX[1]: core cycles / instructions unavailable");
		return;
	}
	for (unsigned k = 0; k < 4; k++) {
		c[k] = pmu_gp_nth(k);
		if (c[k] >= 0) {
			n++;
			all |= GLOBAL_PMC_BIT(c[k]);
		}
	}
	if (!n) {
		t_skip(t, "CPUID.(23H,1):EAX: no general-purpose counter present");
		return;
	}
	/* CMASK = 255: no core retires 255 instructions in one cycle. */
	expect_eq(t, count_one(c[0], ins | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255)), 0,
		  RULE_EVTSEL_CMASK, "instructions with CMASK = 255 (cycles retiring >= 255)");
	/* INV + CMASK = 255 is every cycle: at least instructions / 16. */
	expect_range(t,
		     count_one(c[0], ins | PERFEVTSEL_INV | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255)),
		     PMU_ITERS * WORKLOAD_INSNS_PER_ITER / MAX_IPC, cycles_hi(PMU_ITERS),
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
	pmu_gp_program(c[0], cyc, 0);
	pmu_gp_program(c[1], ins | PERFEVTSEL_INV | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255), 0);
	pmu_run_gated(pmu_gate_global(GLOBAL_PMC_BIT(c[0]) | GLOBAL_PMC_BIT(c[1])), PMU_ITERS);
	v[0] = pmu_gp_read(c[0]);
	v[1] = pmu_gp_read(c[1]);
	expect_true(t, v[0] > 0 && close_to(v[0], v[1]), "INV count == core cycles (+-1/64)",
		    "differs", RULE_EVTSEL_INV, "INV CMASK=255 count %llu vs core cycles %llu",
		    (unsigned long long)v[1], (unsigned long long)v[0]);
	if (n < 4) {
		t_diag(t, "CMASK partition / EDGE checks need 4 GP counters (%u present)", n);
		return;
	}
	/* CMASK = 1 and INV CMASK = 1 split the cycles; EDGE CMASK = 1 counts
	 * the rising edges of "retired >= 1", at most one per stall + 1. */
	pmu_gp_program(c[0], cyc, 0);
	pmu_gp_program(c[1], ins | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 1), 0);
	pmu_gp_program(c[2], ins | PERFEVTSEL_INV | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 1), 0);
	pmu_gp_program(c[3], ins | PERFEVTSEL_EDGE | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 1), 0);
	pmu_run_gated(pmu_gate_global(all), PMU_ITERS);
	for (unsigned k = 0; k < 4; k++)
		v[k] = pmu_gp_read(c[k]);
	expect_range(t, v[1], PMU_ITERS * WORKLOAD_INSNS_PER_ITER / MAX_IPC,
		     PMU_ITERS * WORKLOAD_INSNS_PER_ITER + PMU_OVERHEAD_EVENTS, RULE_EVTSEL_CMASK,
		     "cycles retiring >= 1 instruction (CMASK = 1)");
	expect_true(t, close_to(v[0], v[1] + v[2]), "CMASK=1 + INV CMASK=1 == core cycles",
		    "differs", RULE_EVTSEL_INV, "%llu + %llu vs core cycles %llu",
		    (unsigned long long)v[1], (unsigned long long)v[2], (unsigned long long)v[0]);
	expect_range(t, v[3], 1, v[2] + 1, RULE_EVTSEL_EDGE,
		     "EDGE CMASK=1 (transitions into retiring), INV CMASK=1 count %llu",
		     (unsigned long long)v[2]);
}

/* Run GP counter `i` (counting `ev`), write `value` into it while it runs,
 * run `n` more iterations, stop it and return the count. */
static uint64_t rewrite_running_gp(unsigned i, enum arch_event ev, uint64_t value, uint64_t n)
{
	uint64_t sel = pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_EN);

	pmu_gp_program(i, sel, 0);
	if (pmu_has_global())
		pmu_global_enable(GLOBAL_PMC_BIT(i));
	arch_workload(100); /* it is running: count something first */
	wrmsr(MSR_IA32_PMC(i), value & 0xFFFFFFFFULL);
	arch_workload(n);
	if (pmu_has_global())
		pmu_global_disable();
	wrmsr(MSR_IA32_PERFEVTSEL(i), sel & ~PERFEVTSEL_EN);
	return pmu_gp_read(i);
}

TEST(counting, running_counter_rewritten, REQ_ARCH_PMU)
{
	const uint64_t value = 0x40000000ULL; /* positive: legacy write keeps it */
	enum arch_event ev;
	uint64_t per_iter, c[2], v;
	int i = pmu_gp_nth(0);

	if (!pmu_exact_event(&ev, &per_iter) || i < 0) {
		t_skip(t, "CPUID.0AH:EBX[1] and EBX[5]: neither instructions nor branches "
			  "available, or no GP counter present");
		return;
	}
	c[0] = rewrite_running_gp((unsigned)i, ev, value, PMU_ITERS);
	c[1] = rewrite_running_gp((unsigned)i, ev, value, 2 * PMU_ITERS);
	expect_range(t, c[0], value + PMU_ITERS * per_iter,
		     value + PMU_ITERS * per_iter + PMU_OVERHEAD_EVENTS, RULE_COUNTER_WRITE,
		     "IA32_PMC%d rewritten to %#llx while counting, then N iterations", i,
		     (unsigned long long)value);
	expect_eq(t, c[1] - c[0], PMU_ITERS * per_iter, RULE_COUNTER_WRITE,
		  "IA32_PMC%d rewritten while counting: count(2N) - count(N)", i);
	/* Rewritten to all ones (EAX = FFFFFFFFH sign-extends) while running:
	 * the next event wraps it, so N iterations leave it small, and on v2+
	 * the overflow is in GLOBAL_STATUS. */
	if (pmu_has_global())
		wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_PMC_BIT(i));
	v = rewrite_running_gp((unsigned)i, ev, 0xFFFFFFFFULL, PMU_ITERS);
	expect_range(t, v, PMU_ITERS * per_iter - 1, PMU_ITERS * per_iter + PMU_OVERHEAD_EVENTS,
		     RULE_COUNTER_WRITE_OVF,
		     "IA32_PMC%d rewritten to all ones while counting, then N iterations", i);
	if (pmu_has_global())
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_PMC_BIT(i),
			  GLOBAL_PMC_BIT(i), RULE_COUNTER_WRITE_OVF,
			  "GLOBAL_STATUS bit %d after IA32_PMC%d wrapped from all ones", i, i);
	if (!pmu_fixed_present(FIXED_INSTRUCTIONS))
		return;
	for (int pass = 0; pass < 2; pass++) {
		uint64_t n = pass ? 2 * PMU_ITERS : PMU_ITERS;

		pmu_fixed_program(0, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
		pmu_global_enable(GLOBAL_FIXED_BIT(0));
		arch_workload(100);
		wrmsr(MSR_IA32_FIXED_CTR0, value);
		arch_workload(n);
		pmu_global_disable();
		c[pass] = pmu_fixed_read(0);
	}
	expect_range(t, c[0], value + PMU_ITERS * WORKLOAD_INSNS_PER_ITER,
		     value + PMU_ITERS * WORKLOAD_INSNS_PER_ITER + PMU_OVERHEAD_EVENTS,
		     RULE_COUNTER_WRITE,
		     "IA32_FIXED_CTR0 rewritten while counting, then N iterations");
	expect_eq(t, c[1] - c[0], PMU_ITERS * WORKLOAD_INSNS_PER_ITER, RULE_COUNTER_WRITE,
		  "IA32_FIXED_CTR0 rewritten while counting: count(2N) - count(N)");
}

/*
 * An event CPUID.0AH:EBX marks unavailable is still an encoding of the
 * event-select and UMask fields, which are not reserved: programming it must
 * not fault and must read back. (What it counts is not architectural, so no
 * count is checked.)
 */
TEST(counting, unavailable_event_programmable, REQ_ARCH_PMU)
{
	int i = pmu_gp_nth(0);
	unsigned done = 0;

	if (i < 0) {
		t_skip(t, "CPUID.(23H,1):EAX: no general-purpose counter present");
		return;
	}
	for (unsigned ev = 0; ev < ARCH_EVENT_COUNT; ev++) {
		uint64_t sel = pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR);

		if (pmu_event_available(ev))
			continue;
		done++;
		if (expect_no_fault(t, wrmsr_safe(MSR_IA32_PERFEVTSEL(i), sel),
				    RULE_EVTSEL_ANY_EVENT,
				    "WRMSR IA32_PERFEVTSEL%d <- %#llx (%s, CPUID.0AH:EBX[%u] "
				    "unavailable)",
				    i, (unsigned long long)sel, pmu_arch_events[ev].name, ev))
			expect_eq(t, rdmsr(MSR_IA32_PERFEVTSEL(i)), sel, RULE_EVTSEL_ANY_EVENT,
				  "IA32_PERFEVTSEL%d read back (%s)", i, pmu_arch_events[ev].name);
	}
	wrmsr(MSR_IA32_PERFEVTSEL(i), 0);
	if (!done)
		t_skip(t, "CPUID.0AH:EBX / EAX[31:24]: every architectural event available");
}
