/* SPDX-License-Identifier: MIT */
/*
 * Auto Counter Reload (SDM Vol. 3B "Auto Counter Reload", rev. 085+;
 * enumerated by CPUID.(23H,2)): a counter's IA32_PMC_*_CFG_B names the
 * counters whose overflow reloads it with its IA32_PMC_*_CFG_C value. The
 * MSRs exist for the reloadable counters; a counter reloaded by another one
 * restarts from the reload value at that overflow; a counter that reloads
 * itself never sets its IA32_PERF_GLOBAL_STATUS bit; CFG_B takes only the
 * enumerated causes (inferred).
 *
 * Not checked: whether a self-reloading counter with INT set raises a PMI
 * (Linux 1271aeccc307 saw an NMI "for unknown reason" there, so no rule that
 * it does not); the width of the reload value (the suite uses one below
 * 2^31, the same under every reading).
 *
 * A reload is an overflow: every window needs both of its counters to count
 * (kernel/precondition.h), a pair with one shown not to is not run.
 */
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

#define ACR_RELOAD 0x10000ULL /* the CFG_C value: bit 31 clear */
#define ACR_K	   1000ULL    /* the cause overflows after K events */
#define ACR_SLACK  64ULL      /* RULE_ACR_RELOAD's tolerance */

static bool reloadable(struct counter c)
{
	const struct caps_leaf23 *l = &caps()->l23;

	return counter_in_bitmaps(c, l->acr_gp_reloadable, l->acr_fixed_reloadable);
}

static bool cause(struct counter c)
{
	const struct caps_leaf23 *l = &caps()->l23;

	return counter_in_bitmaps(c, l->acr_gp_cause, l->acr_fixed_cause);
}

/* Whether c counts `ev` (GP: any; fixed: its own event), and program it to
 * count it at CPL 0 from 0. */
static bool counts(struct counter c, enum arch_event ev)
{
	enum arch_event fev;

	return c.kind == COUNTER_GP || (pmu_fixed_event(c.idx, &fev) && fev == ev);
}

static void program(struct counter c, enum arch_event ev)
{
	if (c.kind == COUNTER_GP)
		pmu_gp_program(c.idx, pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_EN), 0);
	else
		pmu_fixed_program(c.idx, FIXED_CTRL_OS, 0);
}

static bool any_counter(struct counter c)
{
	return true;
}

static bool not_cause(struct counter c)
{
	return !cause(c);
}

/* Do both counters of a window count (each one shown not to is named)? */
static bool both_count(struct t *t, struct counter x, struct counter y)
{
	return t_counter_counts(t, x) & t_counter_counts(t, y);
}

/* The first counter of c[0..n) other than c[self] that counts `ev` and that
 * `want` accepts: its index, or -1. */
static int partner(const struct counter *c, unsigned n, unsigned self, enum arch_event ev,
		   bool (*want)(struct counter))
{
	for (unsigned k = 0; k < n; k++)
		if (k != self && want(c[k]) && counts(c[k], ev))
			return (int)k;
	return -1;
}

/* Stop c; a reloadable one also gets CFG_B and CFG_C back to 0 (the others
 * may have neither MSR). */
static void unprogram(struct counter c)
{
	if (reloadable(c)) {
		wrmsr(counter_cfg_b_msr(c), 0);
		wrmsr(counter_cfg_c_msr(c), 0);
	}
	counter_program(c, 0, 0);
}

TEST(acr, msrs_exist_where_enumerated, REQ_ACR)
{
	const struct caps_leaf23 *l = &caps()->l23;
	struct counter c[2 * PMU_COUNTER_MAX];
	unsigned n = counters_collect(c, NULL);

	for (unsigned k = 0; k < n; k++) {
		uint64_t v;
		bool pebs = l->arch_pebs && counter_in_bitmaps(c[k], l->pebs_gp, l->pebs_fixed);

		if (!reloadable(c[k])) {
			expect_vector(t, rdmsr_safe(counter_cfg_b_msr(c[k]), &v), X86_VEC_GP,
				      RULE_ACR_MSRS_ABSENT, "RDMSR " COUNTER_FMT "'s CFG_B (%#x)",
				      COUNTER_ARG(c[k]), counter_cfg_b_msr(c[k]));
			if (!pebs)
				expect_vector(t, rdmsr_safe(counter_cfg_c_msr(c[k]), &v),
					      X86_VEC_GP, RULE_ACR_MSRS_ABSENT,
					      "RDMSR " COUNTER_FMT "'s CFG_C (%#x)",
					      COUNTER_ARG(c[k]), counter_cfg_c_msr(c[k]));
			continue;
		}
		expect_no_fault(t, rdmsr_safe(counter_cfg_b_msr(c[k]), &v), RULE_ACR_MSRS,
				"RDMSR " COUNTER_FMT "'s CFG_B (%#x)", COUNTER_ARG(c[k]),
				counter_cfg_b_msr(c[k]));
		expect_no_fault(t, wrmsr_safe(counter_cfg_b_msr(c[k]), 0), RULE_ACR_MSRS,
				"WRMSR " COUNTER_FMT "'s CFG_B <- 0", COUNTER_ARG(c[k]));
		if (expect_no_fault(t, wrmsr_safe(counter_cfg_c_msr(c[k]), ACR_RELOAD),
				    RULE_ACR_MSRS, "WRMSR " COUNTER_FMT "'s CFG_C (%#x) <- %#llx",
				    COUNTER_ARG(c[k]), counter_cfg_c_msr(c[k]),
				    (unsigned long long)ACR_RELOAD) &&
		    expect_no_fault(t, rdmsr_safe(counter_cfg_c_msr(c[k]), &v), RULE_ACR_MSRS,
				    "RDMSR " COUNTER_FMT "'s CFG_C", COUNTER_ARG(c[k])))
			expect_eq(t, v, ACR_RELOAD, RULE_ACR_MSRS, COUNTER_FMT "'s CFG_C read back",
				  COUNTER_ARG(c[k]));
		wrmsr_safe(counter_cfg_c_msr(c[k]), 0);
	}
}

/* One window: `cause` preloaded to overflow after ACR_K events, `target`
 * (reloaded by `cause`'s overflow, CFG_C = ACR_RELOAD) from 0, and the
 * counters of `also` (GLOBAL_CTRL bits, programmed by the caller). */
static void reload_window(struct counter cause_c, struct counter target, enum arch_event ev,
			  uint64_t also)
{
	program(cause_c, ev);
	program(target, ev);
	wrmsr(counter_cfg_c_msr(target), ACR_RELOAD);
	wrmsr(counter_cfg_b_msr(target), counter_acr_cause_bit(cause_c));
	counter_preload(cause_c, ACR_K);
	pmu_run_gated(
	    pmu_gate_global(counter_global_bit(cause_c) | counter_global_bit(target) | also),
	    PMU_ITERS);
}

static void clear_status(void)
{
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS));
}

TEST(acr, reload_by_another_counter, REQ_ACR | REQ_EXACT_EVENT)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	unsigned n = counters_collect(c, NULL), pairs = 0;
	enum arch_event ev;
	uint64_t per_iter;

	pmu_exact_event(&ev, &per_iter);
	for (unsigned b = 0; b < n; b++) {
		int a = partner(c, n, b, ev, cause);

		if (!reloadable(c[b]) || !counts(c[b], ev) || a < 0)
			continue;
		pairs++;
		if (!both_count(t, c[a], c[b]))
			continue;
		reload_window(c[a], c[b], ev, 0);
		uint64_t va = counter_read(c[a]), vb = counter_read(c[b]);

		expect_range(t, vb - ACR_RELOAD, va - ACR_SLACK, va, RULE_ACR_RELOAD,
			     COUNTER_FMT " reloaded by " COUNTER_FMT
					 "'s overflow: itself minus %#llx (" COUNTER_FMT
					 " read %llu)",
			     COUNTER_ARG(c[b]), COUNTER_ARG(c[a]), (unsigned long long)ACR_RELOAD,
			     COUNTER_ARG(c[a]), (unsigned long long)va);
		unprogram(c[a]);
		unprogram(c[b]);
		clear_status();
	}
	if (!pairs)
		t_skip(t, "no reloadable counter with another counter that can cause its reload "
			  "counting the same exact event");
}

TEST(acr, self_reload_sets_no_status, REQ_ACR | REQ_EXACT_EVENT)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	unsigned n = counters_collect(c, NULL), tested = 0;
	enum arch_event ev;
	uint64_t per_iter;

	pmu_exact_event(&ev, &per_iter);
	for (unsigned s = 0; s < n; s++) {
		/* A reference counter on the same event, from 0, no reload. */
		int r = partner(c, n, s, ev, any_counter);

		if (!reloadable(c[s]) || !cause(c[s]) || !counts(c[s], ev) || r < 0)
			continue;
		tested++;
		if (!both_count(t, c[s], c[r]))
			continue;
		program(c[r], ev);
		/* the counter is its own cause */
		reload_window(c[s], c[s], ev, counter_global_bit(c[r]));
		uint64_t status = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
		uint64_t vs = counter_read(c[s]), vr = counter_read(c[r]);

		expect_eq(t, status & counter_global_bit(c[s]), 0, RULE_ACR_SELF_STATUS,
			  "IA32_PERF_GLOBAL_STATUS bit of " COUNTER_FMT
			  " after it reloaded itself (status %#llx)",
			  COUNTER_ARG(c[s]), (unsigned long long)status);
		expect_range(t, vs - ACR_RELOAD, vr - ACR_K - ACR_SLACK, vr - ACR_K,
			     RULE_ACR_RELOAD,
			     COUNTER_FMT " reloading itself: minus %#llx, against " COUNTER_FMT
					 " (%llu) minus the %llu events before the overflow",
			     COUNTER_ARG(c[s]), (unsigned long long)ACR_RELOAD, COUNTER_ARG(c[r]),
			     (unsigned long long)vr, (unsigned long long)ACR_K);
		unprogram(c[s]);
		unprogram(c[r]);
		clear_status();
	}
	if (!tested)
		t_skip(t, "no counter both reloadable and a cause (CPUID.(23H,2)) with another "
			  "counter on the same exact event");
}

TEST(acr, cfg_b_takes_enumerated_causes_only, REQ_ACR | REQ_EXACT_EVENT)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	unsigned n = counters_collect(c, NULL), tested = 0;
	enum arch_event ev;
	uint64_t per_iter;

	pmu_exact_event(&ev, &per_iter);
	for (unsigned b = 0; b < n; b++) {
		int x = partner(c, n, b, ev, not_cause);

		if (!reloadable(c[b]) || !counts(c[b], ev) || x < 0)
			continue;
		tested++;
		int vec = wrmsr_safe(counter_cfg_b_msr(c[b]), counter_acr_cause_bit(c[x]));

		if (vec) { /* refused: the rule's first branch */
			expect_vector(t, vec, X86_VEC_GP, RULE_ACR_CAUSE,
				      "WRMSR " COUNTER_FMT "'s CFG_B naming " COUNTER_FMT
				      " (not a cause)",
				      COUNTER_ARG(c[b]), COUNTER_ARG(c[x]));
			continue;
		}
		if (!both_count(t, c[x], c[b])) {
			wrmsr(counter_cfg_b_msr(c[b]), 0);
			continue;
		}
		reload_window(c[x], c[b], ev, 0);
		uint64_t vx = counter_read(c[x]), vb = counter_read(c[b]);

		/* Same event, same window: b counted exactly K more than x. */
		expect_eq(
		    t, vb - vx, ACR_K, RULE_ACR_CAUSE,
		    COUNTER_FMT " with CFG_B naming " COUNTER_FMT
				" (not a cause) after its overflow: " COUNTER_FMT " - " COUNTER_FMT,
		    COUNTER_ARG(c[b]), COUNTER_ARG(c[x]), COUNTER_ARG(c[b]), COUNTER_ARG(c[x]));
		unprogram(c[b]);
		unprogram(c[x]);
		clear_status();
	}
	if (!tested)
		t_skip(t, "every counter that exists can cause a reload (CPUID.(23H,2) ECX / EDX)");
}
