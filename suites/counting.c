/* SPDX-License-Identifier: MIT */
/*
 * Counting: the architectural events count the calibrated workload, exactly
 * where the SDM makes the count exact (instructions, branches) and within
 * bounds derived from the architecture elsewhere, on every counter that
 * exists, alone and all at once; an unavailable event is still programmable.
 * SDM Vol. 3B 20.2.1, Tables 20-1 and 20-2.
 *
 * Ring filtering and EDGE/INV/CMASK are in filtering.c, the disabled-counter
 * test beside GLOBAL_CTRL gating in global.c, the running-counter rewrite
 * beside the widths in width.c.
 */
#include "cmask_partition.h" /* counts_close */
#include "ktap.h"
#include "model_events.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

/* Topdown slots are cycles times the issue width (<= 16 here); cache, miss
 * and LBR events happen at most once per iteration of a loop that touches
 * no memory, plus the gate's overhead. */
#define MAX_SLOT_WIDTH 16ULL

struct bounds {
	uint64_t lo, hi;
	uint64_t exact_per_iter; /* non-zero: count(2N) - count(N) is exact */
	const char *rule;
};

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
		return (struct bounds){insns / PMU_MAX_IPC, pmu_cycles_max(n), 0,
				       RULE_EVENT_CYCLES};
	case ARCH_EVENT_REF_CYCLES:
		/* Counts at most at the TSC rate over the window the TSC saw. */
		return (struct bounds){1, tsc_delta + 1000, 0, RULE_EVENT_REF_CYCLES};
	case ARCH_EVENT_TOPDOWN_SLOTS:
		return (struct bounds){insns / PMU_MAX_IPC, MAX_SLOT_WIDTH * pmu_cycles_max(n), 0,
				       RULE_EVENT_BOUNDED};
	case ARCH_EVENT_TOPDOWN_BACKEND:
	case ARCH_EVENT_TOPDOWN_BAD_SPEC:
	case ARCH_EVENT_TOPDOWN_FRONTEND:
	case ARCH_EVENT_TOPDOWN_RETIRING:
		return (struct bounds){0, MAX_SLOT_WIDTH * pmu_cycles_max(n), 0,
				       RULE_EVENT_BOUNDED};
	default: /* LLC references/misses, branch misses, LBR inserts */
		return (struct bounds){0, n + PMU_OVERHEAD_EVENTS, 0, RULE_EVENT_BOUNDED};
	}
}

/* Count `ev` on counter c over N and 2N iterations and check the count of N
 * (and, for exact events, the difference). */
static void count_and_check(struct t *t, struct counter c, enum arch_event ev, uint64_t cfg)
{
	const uint64_t n = PMU_ITERS;
	uint64_t tsc0 = arch_rdtsc(), c1, c2, tsc_delta;
	struct bounds b;

	if (!t_counter_counts(t, c))
		return;
	c1 = counter_count(c, cfg, n);
	tsc_delta = arch_rdtsc() - tsc0;
	c2 = counter_count(c, cfg, 2 * n);
	b = event_bounds(ev, n, tsc_delta);
	expect_range(t, c1, b.lo, b.hi, b.rule, COUNTER_FMT " counting %s over %llu iterations",
		     COUNTER_ARG(c), caps_arch_events[ev].name, (unsigned long long)n);
	if (b.exact_per_iter)
		expect_eq(t, c2 - c1, n * b.exact_per_iter, b.rule,
			  COUNTER_FMT ": %s(2N) - %s(N), N = %llu", COUNTER_ARG(c),
			  caps_arch_events[ev].name, caps_arch_events[ev].name,
			  (unsigned long long)n);
}

TEST(counting, arch_events_every_gp_counter, REQ_ARCH_PMU | REQ_GP_COUNTER)
{
	unsigned done = 0;

	for (unsigned ev = 0; ev < ARCH_EVENT_COUNT; ev++) {
		if (!pmu_event_available(ev))
			continue;
		for_each_gp_counter(c) {
			count_and_check(t, c, ev, counter_cfg_all_rings(c, ev));
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

TEST(counting, llc_events_lower_bound, REQ_ARCH_PMU | REQ_CLFLUSH | REQ_GP_COUNTER)
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
		for_each_gp_counter(c) {
			uint64_t sel = counter_cfg_all_rings(c, evs[k].ev);

			done++;
			if (!t_counter_counts(t, c))
				continue;
			expect_range(t, pmu_count_gp_call(c.idx, sel, llc_walks, NULL), loads / 2,
				     loads * LLC_EVENTS_PER_LOAD_MAX + PMU_OVERHEAD_EVENTS,
				     evs[k].rule,
				     COUNTER_FMT " counting %s over %llu loads, each after CLFLUSH "
						 "and MFENCE of its line",
				     COUNTER_ARG(c), caps_arch_events[evs[k].ev].name,
				     (unsigned long long)loads);
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

TEST(counting, branch_misses_lower_bound, REQ_ARCH_PMU | REQ_GP_COUNTER | REQ_BRANCH_MISSES_EVENT)
{
	for_each_gp_counter(c) {
		if (!t_counter_counts(t, c))
			continue;
		uint64_t sel = counter_cfg_all_rings(c, ARCH_EVENT_BRANCH_MISSES);
		struct brmiss_run r = {PMU_ITERS, fresh_seed()};

		expect_range(
		    t, pmu_count_gp_call(c.idx, sel, brmiss_run, &r),
		    PMU_ITERS / BRMISS_MIN_DIVISOR,
		    PMU_ITERS * WORKLOAD_BRMISS_BRANCHES_PER_ITER + PMU_OVERHEAD_EVENTS,
		    RULE_EVENT_BRANCH_MISSES,
		    COUNTER_FMT " counting branch misses over %llu branches on pseudo-random "
				"bits (seed %#llx)",
		    COUNTER_ARG(c), (unsigned long long)PMU_ITERS, (unsigned long long)r.seed);
	}
}

TEST(counting, fixed_counter_events, REQ_FIXED)
{
	for_each_fixed_counter(c) {
		uint64_t cfg = counter_cfg_all_rings(c, 0);
		enum arch_event ev;

		if (pmu_fixed_event(c.idx, &ev)) {
			count_and_check(t, c, ev, cfg);
			continue;
		}
		/* Table 20-2 names no architectural event for it: what it
		 * counted is reported, and it must count without faulting. */
		t_diag(t, COUNTER_FMT " counted %llu / %llu (event not architectural)",
		       COUNTER_ARG(c), (unsigned long long)counter_count(c, cfg, PMU_ITERS),
		       (unsigned long long)counter_count(c, cfg, 2 * PMU_ITERS));
	}
}

/* Every counter that exists programmed to count the exact event (fixed
 * counters their own), all enabled by one GLOBAL_CTRL write. */
static void program_all_counting(enum arch_event ev)
{
	for_each_gp_counter(c)
		counter_program(c, counter_cfg_all_rings(c, ev) | PERFEVTSEL_EN, 0);
	for_each_fixed_counter(c)
		counter_program(c, counter_cfg_all_rings(c, ev), 0);
}

static void check_all_at_once(struct t *t, struct counter c, enum arch_event ev, uint64_t per_iter,
			      uint64_t v1, uint64_t v2)
{
	enum arch_event fev;

	if (c.kind == COUNTER_GP || c.idx == FIXED_INSTRUCTIONS) {
		if (c.kind == COUNTER_FIXED) {
			ev = ARCH_EVENT_INSTRUCTIONS;
			per_iter = WORKLOAD_INSNS_PER_ITER;
		}
		expect_eq(t, v2 - v1, PMU_ITERS * per_iter, RULE_ALL_COUNTERS,
			  COUNTER_FMT " (%s) with all counters enabled: count(2N) - count(N)",
			  COUNTER_ARG(c), caps_arch_events[ev].name);
	} else if (!pmu_fixed_event(c.idx, &fev)) {
		/* Table 20-2 ties no event to it: it may not occur */
		t_diag(t, COUNTER_FMT " with all counters enabled: %llu then %llu", COUNTER_ARG(c),
		       (unsigned long long)v1, (unsigned long long)v2);
	} else {
		expect_true(t, v2 > v1, "count(2N) > count(N)", v2 > v1 ? "larger" : "not larger",
			    RULE_ALL_COUNTERS,
			    COUNTER_FMT " with all counters enabled: %llu then %llu",
			    COUNTER_ARG(c), (unsigned long long)v1, (unsigned long long)v2);
	}
}

/* Which counters the findings let count (each one that does not is this
 * test's failure, named once); false when none does. The others run
 * together as before: a counter that counts keeps its window. */
static bool counting_counters(struct t *t, bool gp[PMU_COUNTER_MAX], bool fixed[PMU_COUNTER_MAX])
{
	bool any = false;

	for_each_gp_counter(c)
		any |= gp[c.idx] = t_counter_counts(t, c);
	for_each_fixed_counter(c)
		any |= fixed[c.idx] = t_counter_counts(t, c);
	return any;
}

TEST(counting, all_counters_at_once, REQ_ARCH_PMU_V2 | REQ_EXACT_EVENT)
{
	enum arch_event ev;
	uint64_t per_iter, bits = pmu_global_counter_bits();
	uint64_t gp1[PMU_COUNTER_MAX], f1[PMU_COUNTER_MAX];
	bool gp_counts[PMU_COUNTER_MAX], fixed_counts[PMU_COUNTER_MAX];

	if (!counting_counters(t, gp_counts, fixed_counts))
		return;
	pmu_exact_event(&ev, &per_iter);
	program_all_counting(ev);
	pmu_run_gated(pmu_gate_global(bits), PMU_ITERS);
	for_each_gp_counter(c)
		gp1[c.idx] = counter_read(c);
	for_each_fixed_counter(c)
		f1[c.idx] = counter_read(c);
	program_all_counting(ev);
	pmu_run_gated(pmu_gate_global(bits), 2 * PMU_ITERS);
	for_each_gp_counter(c) {
		if (gp_counts[c.idx])
			check_all_at_once(t, c, ev, per_iter, gp1[c.idx], counter_read(c));
	}
	for_each_fixed_counter(c) {
		if (fixed_counts[c.idx])
			check_all_at_once(t, c, ev, per_iter, f1[c.idx], counter_read(c));
	}
}

/*
 * An event CPUID.0AH:EBX marks unavailable is still an encoding of the
 * event-select and UMask fields, which are not reserved: programming it must
 * not fault and must read back. (What it counts is not architectural, so no
 * count is checked.)
 */
TEST(counting, unavailable_event_programmable, REQ_ARCH_PMU | REQ_GP_COUNTER)
{
	int i = pmu_gp_nth(0);
	unsigned done = 0;

	for (unsigned ev = 0; ev < ARCH_EVENT_COUNT; ev++) {
		uint64_t sel = pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR);

		if (pmu_event_available(ev))
			continue;
		done++;
		if (expect_no_fault(t, wrmsr_safe(MSR_IA32_PERFEVTSEL(i), sel),
				    RULE_EVTSEL_ANY_EVENT,
				    "WRMSR IA32_PERFEVTSEL%d <- %#llx (%s, CPUID.0AH:EBX[%u] "
				    "unavailable)",
				    i, (unsigned long long)sel, caps_arch_events[ev].name, ev))
			expect_eq(t, rdmsr(MSR_IA32_PERFEVTSEL(i)), sel, RULE_EVTSEL_ANY_EVENT,
				  "IA32_PERFEVTSEL%d read back (%s)", i, caps_arch_events[ev].name);
	}
	wrmsr(MSR_IA32_PERFEVTSEL(i), 0);
	if (!done)
		t_skip(t, "CPUID.0AH:EBX / EAX[31:24]: every architectural event available");
}

/* ---- checks the peers make: a different available event on each counter ---- */

/* The k-th available architectural event (cycling through them): counters
 * that count different events at once must each count their own. */
static bool nth_available_event(unsigned k, enum arch_event *ev)
{
	unsigned n = 0;

	for (unsigned e = 0; e < ARCH_EVENT_COUNT; e++)
		n += pmu_event_available((enum arch_event)e);
	if (!n)
		return false;
	k %= n;
	for (unsigned e = 0; e < ARCH_EVENT_COUNT; e++) {
		if (!pmu_event_available((enum arch_event)e))
			continue;
		if (!k--) {
			*ev = (enum arch_event)e;
			return true;
		}
	}
	return false;
}

TEST(counting, all_counters_different_events, REQ_ARCH_PMU_V2 | REQ_GP_COUNTER)
{
	const uint64_t bits = pmu_global_counter_bits();
	enum arch_event evs[PMU_COUNTER_MAX];
	uint64_t v1[PMU_COUNTER_MAX], tsc0, tsc_delta;
	bool gp_counts[PMU_COUNTER_MAX], fixed_counts[PMU_COUNTER_MAX];
	unsigned k = 0;

	for_each_gp_counter(c) {
		if (!nth_available_event(k++, &evs[c.idx]))
			t_skip_return(t, "CPUID.0AH:EBX: no architectural event available");
	}
	if (!counting_counters(t, gp_counts, fixed_counts))
		return;
	for (int pass = 0; pass < 2; pass++) {
		uint64_t n = pass ? 2 * PMU_ITERS : PMU_ITERS;

		for_each_gp_counter(c)
			counter_program(c, counter_cfg_all_rings(c, evs[c.idx]) | PERFEVTSEL_EN, 0);
		/* the fixed counters run alongside, as in kvm-unit-tests */
		for_each_fixed_counter(c)
			counter_program(c, counter_cfg_all_rings(c, 0), 0);
		tsc0 = arch_rdtsc();
		pmu_run_gated(pmu_gate_global(bits), n);
		tsc_delta = arch_rdtsc() - tsc0;
		for_each_gp_counter(c) {
			uint64_t v = counter_read(c);
			struct bounds b = event_bounds(evs[c.idx], PMU_ITERS, tsc_delta);

			if (!gp_counts[c.idx])
				continue;
			if (!pass) {
				v1[c.idx] = v;
				expect_range(t, v, b.lo, b.hi, b.rule,
					     COUNTER_FMT " counting %s with every GP counter on a "
							 "different event, N iterations",
					     COUNTER_ARG(c), caps_arch_events[evs[c.idx]].name);
			} else if (b.exact_per_iter) {
				expect_eq(t, v - v1[c.idx], PMU_ITERS * b.exact_per_iter, b.rule,
					  COUNTER_FMT " counting %s with every GP counter on a "
						      "different event: count(2N) - count(N)",
					  COUNTER_ARG(c), caps_arch_events[evs[c.idx]].name);
			}
		}
		for_each_fixed_counter(c) {
			enum arch_event fev;
			struct bounds b;

			if (pass || !fixed_counts[c.idx] || !pmu_fixed_event(c.idx, &fev))
				continue;
			b = event_bounds(fev, PMU_ITERS, tsc_delta);
			expect_range(t, counter_read(c), b.lo, b.hi, b.rule,
				     COUNTER_FMT " (%s) alongside GP counters on different events",
				     COUNTER_ARG(c), caps_arch_events[fev].name);
		}
	}
	for_each_gp_counter(c)
		counter_program(c, 0, 0);
	for_each_fixed_counter(c)
		counter_program(c, 0, 0);
}

/* ---- Fixed counters 4-6 --------------------------------------
 * Each counts the encoding of an architectural topdown event (9-11): run it
 * and a GP counter programmed with that event over the same window. */
TEST(counting, fixed_4_6_match_gp_event, REQ_ARCH_PMU_V2 | REQ_GP_COUNTER)
{
	int g = pmu_gp_nth(0);
	unsigned tested = 0;

	for (unsigned m = 4; m <= 6; m++) {
		enum arch_event ev = ARCH_EVENT_TOPDOWN_BAD_SPEC + (m - 4);
		struct counter f = FIXED_COUNTER(m);
		uint64_t vf, vg;

		if (!pmu_fixed_present(m) || !pmu_event_available(ev))
			continue;
		tested++;
		/* Both named when both were shown not to count. */
		if (!t_counter_counts(t, f) | !t_counter_counts(t, GP_COUNTER((unsigned)g)))
			continue;
		pmu_fixed_program(m, FIXED_CTRL_OS, 0);
		pmu_gp_program((unsigned)g, pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_EN), 0);
		pmu_run_gated(pmu_gate_global(counter_global_bit(f) | GLOBAL_PMC_BIT(g)),
			      PMU_ITERS);
		vf = pmu_fixed_read(m);
		vg = pmu_gp_read((unsigned)g);
		pmu_fixed_program(m, 0, 0);
		pmu_gp_program((unsigned)g, 0, 0);
		expect_true(t, counts_close(vf, vg), "the same count (+-1/64 + 64)", "differs",
			    RULE_FIXED_4_6_EVENTS, "IA32_FIXED_CTR%u %llu vs IA32_PMC%d on %s %llu",
			    m, (unsigned long long)vf, g, caps_arch_events[ev].name,
			    (unsigned long long)vg);
	}
	if (!tested)
		t_skip(t, "no fixed counter 4-6 whose architectural event (9-11) CPUID.0AH:EBX "
			  "makes available");
}

/* ---- UMASK2: CPUID.(23H,0):EBX[0] -----------------------------
 * No architectural event has a UMASK2 value; the parts whose event files
 * define one (include/model_events.h: BR_INST_RETIRED on the Lion Cove
 * P-cores) count it over the gated loop, whose one branch per iteration is
 * a JNZ taken backward in every iteration but the last (include/arch.h):
 * count(2N) - count(N) is N conditional branches, N taken, 0 taken forward
 * (RULE_UMASK2_EVENT, inferred: the event files are not the SDM). A CPU
 * that drops UMASK2 counts C4H / 00H, all branches, for the last. */
TEST(counting, umask2_model_event, REQ_ARCH_PMU_V2 | REQ_GP_COUNTER)
{
	static const unsigned per_iter[MEV_COUNT] = {
	    [MEV_BR_COND] = 1, [MEV_BR_COND_TAKEN] = 1, [MEV_BR_COND_TAKEN_FWD] = 0};
	const struct caps *c = caps();
	int i = pmu_gp_nth(0);

	if (!(c->l23.present && c->l23.umask2))
		t_skip_return(t, "CPUID.(23H,0):EBX[0] = 0: no UMASK2");
	if (!lion_cove_core(c->family, c->model, c->core_type))
		t_skip_return(
		    t,
		    "no event with UMASK2 known for DisplayFamily_DisplayModel %02XH_%02XH "
		    "core type %02XH (include/model_events.h: the Lion Cove P-cores "
		    "06_BDH, 06_C5H, 06_C6H)",
		    c->family, c->model, (unsigned)c->core_type);
	if (!t_counter_counts(t, GP_COUNTER((unsigned)i)))
		return;
	for (unsigned k = 0; k < MEV_COUNT; k++) {
		uint64_t sel = FIELD_PREP_ULL(PERFEVTSEL_EVENT, lion_cove_events[k].event) |
			       FIELD_PREP_ULL(PERFEVTSEL_UMASK, lion_cove_events[k].umask) |
			       FIELD_PREP_ULL(PERFEVTSEL_UMASK2, lion_cove_events[k].umask2) |
			       PERFEVTSEL_OS | PERFEVTSEL_USR;
		uint64_t n1 = pmu_count_gp((unsigned)i, sel, PMU_ITERS);
		uint64_t n2 = pmu_count_gp((unsigned)i, sel, 2 * PMU_ITERS);

		expect_eq(t, n2 - n1, PMU_ITERS * per_iter[k], RULE_UMASK2_EVENT,
			  "%s (event %02XH UMASK %02XH UMASK2 %02XH): count(%llu) - count(%llu) "
			  "iterations",
			  lion_cove_events[k].name, lion_cove_events[k].event,
			  lion_cove_events[k].umask, lion_cove_events[k].umask2, 2 * PMU_ITERS,
			  PMU_ITERS);
	}
}
