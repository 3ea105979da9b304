/* SPDX-License-Identifier: MIT */
/*
 * Instructions a hypervisor always intercepts (CPUID, WRMSR to an unused
 * counter control, IN from an unused port) are instructions like any other
 * for the PMU: Instructions Retired counts each exactly, absolutely and as
 * 2N-N; USR/OS and CMASK/INV/EDGE apply to them; an overflow they cause sets
 * its status bit and raises one PMI. On bare metal these are the SDM's
 * ordinary rules (Vol. 3B 20.2.1, 20.2.2); a vPMU that counts the exiting
 * instruction in software (KVM's kvm_pmu_trigger_event()) must apply them
 * too. The workload is arch_workload_intercepted() (include/arch.h).
 */
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

#define N_INTERCEPT 500ULL /* iterations: a VM exit each, keep it short */
#define UNUSED_PORT 0xED   /* Linux's alternative io_delay port: unclaimed */
#define CMASK_NEVER 255ULL /* no core retires 255 instructions in a cycle */

static const char *const kind_name[ARCH_INTERCEPT_COUNT] = {
    [ARCH_INTERCEPT_CPUID] = "CPUID",
    [ARCH_INTERCEPT_WRMSR] = "WRMSR",
    [ARCH_INTERCEPT_IN] = "IN",
};
_Static_assert(ARCH_INTERCEPT_COUNT == 3, "one name per intercepted instruction");

/* The counting counter and, for WRMSR, the unused one whose event select is
 * written (0: it stays disabled). */
struct setup {
	unsigned ctr, other;
	bool have_other;
};

static struct setup pick(void)
{
	struct setup s = {.ctr = (unsigned)pmu_gp_nth(0), .have_other = pmu_gp_count() > 1};
	if (s.have_other)
		s.other = (unsigned)pmu_gp_nth(1);
	return s;
}

static uint32_t target_of(enum arch_intercept k, const struct setup *s)
{
	return k == ARCH_INTERCEPT_WRMSR ? MSR_IA32_PERFEVTSEL(s->other) : UNUSED_PORT;
}

/* Program GP counter s->ctr with evtsel (no EN) preloaded to `start`, run
 * the intercepted loop in its gate (IF = 1 when `irq`), return the count. */
static uint64_t count_intercepted(const struct setup *s, enum arch_intercept k, uint64_t evtsel,
				  uint64_t start, uint64_t iters, bool irq)
{
	unsigned i = s->ctr;
	struct pmu_gate g;

	evtsel &= ~PERFEVTSEL_EN;
	if (pmu_has_global()) {
		pmu_gp_program(i, evtsel | PERFEVTSEL_EN, start);
		g = pmu_gate_global(GLOBAL_PMC_BIT(i));
	} else {
		pmu_gp_program(i, evtsel, start);
		g = pmu_gate_evtsel(i, evtsel);
	}
	if (irq)
		arch_irq_enable();
	arch_workload_intercepted(k, iters, g.msr, g.on, g.off, target_of(k, s));
	if (irq)
		arch_irq_disable();
	wrmsr(MSR_IA32_PERFEVTSEL(i), evtsel);
	return pmu_gp_read(i);
}

static bool kind_applies(struct t *t, enum arch_intercept k, const struct setup *s)
{
	if (k == ARCH_INTERCEPT_WRMSR && !s->have_other) {
		t_diag(t, "WRMSR variant not run: one GP counter, no unused event select to write");
		return false;
	}
	return true;
}

/* The first loop kind after `after` that this setup can run (each one
 * passed over is said in a diagnostic), or ARCH_INTERCEPT_COUNT. */
static int next_kind(struct t *t, const struct setup *s, int after)
{
	int k = after + 1;
	while (k < ARCH_INTERCEPT_COUNT && !kind_applies(t, k, s))
		k++;
	return k;
}

/* Every loop kind this setup can run. */
#define for_each_kind(t, k, s)                                                                     \
	for (int k = next_kind(t, s, -1); k < ARCH_INTERCEPT_COUNT; k = next_kind(t, s, k))

/* Instructions counted with the event select bits `bits` over one window of
 * N_INTERCEPT iterations of the k loop (the filter checks). */
static uint64_t insns_with(const struct setup *s, enum arch_intercept k, uint64_t bits)
{
	return count_intercepted(s, k, pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, bits), 0, N_INTERCEPT,
				 false);
}

/* The next check is about loop k, counting `count` over n iterations where
 * lo..hi were expected: a count exactly one per iteration above that (the
 * intercepted instruction counted as the event) is its observed outcome. */
static void loop_subject(struct t *t, enum arch_intercept k, uint64_t count, uint64_t lo,
			 uint64_t hi, uint64_t n)
{
	t_subject(t, SUBJECT_INTERCEPT, (uint64_t)k, 0);
	if (count >= lo + n && count <= hi + n)
		t_outcome(t, OUTCOME_PLUS_ONE_PER_ITER);
}

TEST(intercepted, instructions_and_branches_exact, REQ_ARCH_PMU | REQ_GP_COUNTER | REQ_EXACT_EVENT)
{
	const uint64_t n = N_INTERCEPT, per = INTERCEPT_INSNS_PER_ITER;
	const uint64_t base = n * per + INTERCEPT_CLOSE_INSNS;
	struct setup s = pick();
	bool insns = pmu_event_available(ARCH_EVENT_INSTRUCTIONS);
	bool branches = pmu_event_available(ARCH_EVENT_BRANCHES);

	/* Even "counts 0" needs a counter that counts. */
	if (!t_counter_counts(t, GP_COUNTER(s.ctr)))
		return;
	for_each_kind(t, k, &s)
	{
		if (insns) {
			uint64_t sel =
			    pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, PERFEVTSEL_USR | PERFEVTSEL_OS);
			uint64_t c1 = count_intercepted(&s, k, sel, 0, n, false);
			uint64_t c2 = count_intercepted(&s, k, sel, 0, 2 * n, false);
			loop_subject(t, k, c1, base, base + 2, n);
			expect_range(t, c1, base, base + 2, RULE_INTERCEPT_INSNS,
				     "instructions retired in a window of %llu %s iterations",
				     (unsigned long long)n, kind_name[k]);
			loop_subject(t, k, c2 - c1, n * per, n * per, n);
			expect_eq(t, c2 - c1, n * per, RULE_INTERCEPT_INSNS,
				  "instructions(2N) - instructions(N), %s, N = %llu", kind_name[k],
				  (unsigned long long)n);
		}
		if (branches) {
			uint64_t sel =
			    pmu_evtsel(ARCH_EVENT_BRANCHES, PERFEVTSEL_USR | PERFEVTSEL_OS);
			uint64_t b = count_intercepted(&s, k, sel, 0, n, false);

			loop_subject(t, k, b, n * INTERCEPT_BRANCHES_PER_ITER,
				     n * INTERCEPT_BRANCHES_PER_ITER, n);
			expect_eq(t, b, n * INTERCEPT_BRANCHES_PER_ITER, RULE_INTERCEPT_BRANCHES,
				  "branches retired in a window of %llu %s iterations",
				  (unsigned long long)n, kind_name[k]);
		}
	}
}

TEST(intercepted, usr_os_filter, REQ_ARCH_PMU | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	const uint64_t base = N_INTERCEPT * INTERCEPT_INSNS_PER_ITER + INTERCEPT_CLOSE_INSNS;
	struct setup s = pick();

	/* Even "counts 0" needs a counter that counts. */
	if (!t_counter_counts(t, GP_COUNTER(s.ctr)))
		return;
	for_each_kind(t, k, &s)
	{
		expect_eq(t, insns_with(&s, k, PERFEVTSEL_USR), 0, RULE_INTERCEPT_USR_OS,
			  "USR-only instructions at CPL 0, %s loop", kind_name[k]);
		uint64_t os = insns_with(&s, k, PERFEVTSEL_OS);
		loop_subject(t, k, os, base, base + 2, N_INTERCEPT);
		expect_range(t, os, base, base + 2, RULE_INTERCEPT_USR_OS,
			     "OS-only instructions at CPL 0, %s loop", kind_name[k]);
	}
}

TEST(intercepted, cmask_inv_edge_filter, REQ_ARCH_PMU | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	/* Both rings, CMASK = 255: no cycle retires 255 instructions. */
	const uint64_t never =
	    PERFEVTSEL_USR | PERFEVTSEL_OS | FIELD_PREP_ULL(PERFEVTSEL_CMASK, CMASK_NEVER);
	struct setup s = pick();

	/* Even "counts 0" needs a counter that counts. */
	if (!t_counter_counts(t, GP_COUNTER(s.ctr)))
		return;
	for_each_kind(t, k, &s)
	{
		uint64_t c = insns_with(&s, k, never);

		loop_subject(t, k, c, 0, 0, N_INTERCEPT);
		expect_eq(t, c, 0, RULE_INTERCEPT_CMASK, "instructions with CMASK = 255, %s loop",
			  kind_name[k]);
		c = insns_with(&s, k, never | PERFEVTSEL_EDGE);
		loop_subject(t, k, c, 0, 0, N_INTERCEPT);
		expect_eq(t, c, 0, RULE_INTERCEPT_CMASK,
			  "instructions with CMASK = 255 and EDGE, %s loop", kind_name[k]);
		c = insns_with(&s, k, never | PERFEVTSEL_INV | PERFEVTSEL_EDGE);
		loop_subject(t, k, c, 0, 1, N_INTERCEPT);
		expect_range(t, c, 0, 1, RULE_INTERCEPT_INV_EDGE,
			     "instructions with CMASK = 255, INV and EDGE, %s loop", kind_name[k]);
	}
}

/*
 * Preload the counter so that it wraps within the loop, at each of the six
 * instructions of one iteration in turn (the enabling WRMSR may or may not
 * count: stepping through a whole iteration covers the intercepted
 * instruction either way). Every run: the status bit and exactly one PMI.
 */
TEST(intercepted, overflow_inside_one_pmi,
     REQ_ARCH_PMU | REQ_GP_COUNTER | REQ_APIC | REQ_INSTRUCTIONS_EVENT)
{
	const uint64_t iters = 20, wrap_iter = 10;
	struct setup s = pick();
	uint64_t bit = GLOBAL_PMC_BIT(s.ctr);
	uint64_t sel =
	    pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, PERFEVTSEL_USR | PERFEVTSEL_OS | PERFEVTSEL_INT);

	/* Even "counts 0" needs a counter that counts. */
	if (!t_counter_counts(t, GP_COUNTER(s.ctr)))
		return;
	for_each_kind(t, k, &s)
	{
		for (uint64_t at = 0; at < INTERCEPT_INSNS_PER_ITER; at++) {
			uint64_t k_left = wrap_iter * INTERCEPT_INSNS_PER_ITER + at;

			pmu_pmi_install(true, 0, false);
			count_intercepted(&s, k, sel, (pmu_gp_mask() + 1 - k_left) & pmu_gp_mask(),
					  iters, true);
			expect_eq(t, g_pmi.count, 1, RULE_INTERCEPT_OVERFLOW,
				  "PMIs for a wrap %llu instructions into the %s loop",
				  (unsigned long long)k_left, kind_name[k]);
			if (pmu_has_global())
				expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & bit, bit,
					  RULE_INTERCEPT_OVERFLOW,
					  "IA32_PERF_GLOBAL_STATUS after a wrap in the %s loop",
					  kind_name[k]);
			pmu_pmi_uninstall();
			if (pmu_has_global())
				wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, bit);
		}
	}
}
