/* SPDX-License-Identifier: MIT */
/*
 * Counter widths: GP and fixed counters are as wide as CPUID says and no
 * wider; legacy IA32_PMCx writes sign-extend EAX[31:0]; IA32_A_PMCx take
 * full-width writes only when enumerated; NetBurst / P6 counters are 40 bits;
 * a running counter takes a write (the counting suite's rewrite test).
 * SDM Vol. 3B 20.2.1, 20.2.2, 20.2.6; Vol. 2B RDPMC.
 *
 * A read-back needs a counter that holds a written value, a count one that
 * counts: on a counter shown not to (kernel/precondition.h) the test fails
 * on that finding and leaves out those checks on it; the writes' faults are
 * still judged.
 */
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

/* Legacy writes: value written (EDX:EAX) -> value read, for a width w. */
struct legacy_case {
	uint64_t write;
	const char *what;
};
static const struct legacy_case legacy_cases[] = {
    {0x00000000FFFFFFFFULL, "EAX = 0xffffffff: sign-extends to all ones"},
    {0xDEADBEEF7FFFFFFFULL, "EAX = 0x7fffffff, EDX garbage: EDX ignored"},
    {0x0000000080000000ULL, "EAX = 0x80000000: bit 31 fills the bits above"},
    {0x0000000100001234ULL, "EDX = 1: ignored"},
};

static uint64_t sign_extend32(uint64_t v, unsigned w)
{
	uint64_t lo = v & 0xFFFFFFFFULL;

	return (lo & BIT_ULL(31) ? lo | ~0xFFFFFFFFULL : lo) & width_mask(w);
}

TEST(width, gp_legacy_writes_and_width, REQ_ARCH_PMU)
{
	unsigned w = caps()->pm.gp_width;

	for_each_gp_counter(ctr) {
		unsigned i = ctr.idx;
		bool holds = t_counter_holds(t, ctr);

		for (unsigned k = 0; k < ARRAY_SIZE(legacy_cases); k++) {
			const struct legacy_case *c = &legacy_cases[k];
			uint64_t want = sign_extend32(c->write, w), got;
			int vec = wrmsr_safe(MSR_IA32_PMC(i), c->write);

			if (!expect_no_fault(t, vec, RULE_LEGACY_WRITE, "WRMSR IA32_PMC%u <- %#llx",
					     i, (unsigned long long)c->write))
				continue;
			if (holds)
				expect_eq(t, rdmsr(MSR_IA32_PMC(i)), want, RULE_LEGACY_WRITE,
					  "RDMSR IA32_PMC%u after %s (width %u)", i, c->what, w);
			got = rdpmc_value(RDPMC_ECX(RDPMC_TYPE_GP, i), &vec);
			expect_vector(t, vec, 0, RULE_RDPMC_GP, "RDPMC ECX=%#x", i);
			if (holds)
				expect_eq(t, got, want, RULE_RDPMC_WIDTH,
					  "RDPMC %u after %s (width %u)", i, c->what, w);
		}
	}
}

TEST(width, full_width_writes, REQ_ARCH_PMU | REQ_FW_WRITE)
{
	unsigned w = caps()->pm.gp_width;
	uint64_t mask = width_mask(w);

	for_each_gp_counter(ctr) {
		unsigned i = ctr.idx;
		/* bit w-1 set, bit 31 clear: a legacy write could not make it */
		uint64_t pattern = (BIT_ULL(w - 1) | 0x12345ULL) & mask;
		bool holds = t_counter_holds(t, ctr);

		expect_no_fault(t, wrmsr_safe(MSR_IA32_A_PMC(i), mask), RULE_FULL_WIDTH,
				"WRMSR IA32_A_PMC%u <- %#llx (all %u bits)", i,
				(unsigned long long)mask, w);
		if (holds)
			expect_eq(t, rdmsr(MSR_IA32_PMC(i)), mask, RULE_FULL_WIDTH,
				  "IA32_PMC%u after a full-width all-ones write", i);
		expect_no_fault(t, wrmsr_safe(MSR_IA32_A_PMC(i), pattern), RULE_FULL_WIDTH,
				"WRMSR IA32_A_PMC%u <- %#llx", i, (unsigned long long)pattern);
		if (holds) {
			expect_eq(t, rdmsr(MSR_IA32_PMC(i)), pattern, RULE_FULL_WIDTH,
				  "IA32_PMC%u after a full-width write (not sign-extended)", i);
			expect_eq(t, rdmsr(MSR_IA32_A_PMC(i)), pattern, RULE_A_PMC_ALIAS,
				  "RDMSR IA32_A_PMC%u after the full-width write", i);
		}
		{
			int vec;
			uint64_t got = rdpmc_value(RDPMC_ECX(RDPMC_TYPE_GP, i), &vec);

			if (expect_vector(t, vec, 0, RULE_RDPMC_GP, "RDPMC ECX=%#x", i) && holds)
				expect_eq(t, got, pattern, RULE_A_PMC_ALIAS,
					  "RDPMC %u after the full-width write", i);
		}
		if (w < 64)
			expect_vector(t, wrmsr_safe(MSR_IA32_A_PMC(i), BIT_ULL(w)), X86_VEC_GP,
				      RULE_FULL_WIDTH_GP, "WRMSR IA32_A_PMC%u <- bit %u (width %u)",
				      i, w, w);
	}
}

TEST(width, full_width_absent_without_cap, REQ_ARCH_PMU)
{
	uint64_t v;

	if (caps()->perf_cap.valid && caps()->perf_cap.full_width_write)
		t_skip_return(t, "IA32_PERF_CAPABILITIES[13] (FW_WRITE) = 1: IA32_A_PMCx exist");
	/* Every counter that exists, PMC8 and up included: IA32_A_PMCx =
	 * 4C1H + x is the alias of a counter that exists (Vol. 3B 20.2.6). */
	for_each_gp_counter(ctr) {
		unsigned i = ctr.idx;

		expect_vector(t, wrmsr_safe(MSR_IA32_A_PMC(i), 1), X86_VEC_GP,
			      RULE_FULL_WIDTH_ABSENT, "WRMSR IA32_A_PMC%u without FW_WRITE", i);
		expect_vector(t, rdmsr_safe(MSR_IA32_A_PMC(i), &v), X86_VEC_GP,
			      RULE_FULL_WIDTH_ABSENT, "RDMSR IA32_A_PMC%u without FW_WRITE", i);
	}
}

TEST(width, fixed_width, REQ_FIXED)
{
	unsigned w = caps()->pm.fixed_width;
	uint64_t mask = width_mask(w);

	for_each_fixed_counter(ctr) {
		unsigned i = ctr.idx;
		bool holds = t_counter_holds(t, ctr);
		uint64_t got;
		int vec;

		expect_no_fault(t, wrmsr_safe(MSR_IA32_FIXED_CTR(i), mask), RULE_FIXED_WIDTH,
				"WRMSR IA32_FIXED_CTR%u <- %#llx (all %u bits)", i,
				(unsigned long long)mask, w);
		if (holds)
			expect_eq(t, rdmsr(MSR_IA32_FIXED_CTR(i)), mask, RULE_FIXED_WIDTH,
				  "IA32_FIXED_CTR%u read back (width %u)", i, w);
		got = rdpmc_value(RDPMC_ECX(RDPMC_TYPE_FIXED, i), &vec);
		expect_vector(t, vec, 0, RULE_RDPMC_FIXED, "RDPMC ECX=%#llx",
			      (unsigned long long)RDPMC_ECX(RDPMC_TYPE_FIXED, i));
		if (holds)
			expect_eq(t, got, mask, RULE_RDPMC_WIDTH, "RDPMC fixed %u (width %u)", i,
				  w);
		/* A bit above the width is not part of the counter: a reserved
		 * bit, so WRMSR raises #GP(0) (Vol. 2B WRMSR), as for
		 * IA32_A_PMCx (Vol. 3B 20.2.6). */
		if (w < 64)
			expect_vector(t, wrmsr_safe(MSR_IA32_FIXED_CTR(i), BIT_ULL(w)), X86_VEC_GP,
				      RULE_FIXED_WIDTH_GP,
				      "WRMSR IA32_FIXED_CTR%u <- bit %u (width %u)", i, w, w);
	}
}

/* Without architectural PM: NetBurst's 18 counters at 300H, or P6-family
 * PerfCtr0/1 at C1H/C2H (legacy 32-bit writes, sign-extended to 40 bits). */
TEST(width, nonarch_40_bit_counters, REQ_NO_ARCH_PMU | REQ_INTEL)
{
	const uint64_t mask40 = width_mask(40);

	if (caps()->netburst) {
		for (unsigned i = 0; i < P4_NUM_COUNTERS; i++) {
			uint64_t got;
			int vec;

			expect_no_fault(t, wrmsr_safe(MSR_P4_COUNTER(i), mask40), RULE_P4_WIDTH,
					"WRMSR counter %u <- 40 ones", i);
			expect_eq(t, rdmsr(MSR_P4_COUNTER(i)), mask40, RULE_P4_WIDTH,
				  "NetBurst counter %u read back", i);
			got = rdpmc_value(i, &vec);
			expect_vector(t, vec, 0, RULE_P4_RDPMC, "RDPMC ECX=%u", i);
			expect_eq(t, got, mask40, RULE_RDPMC_NONARCH_WIDTH, "RDPMC %u (40 bits)",
				  i);
			wrmsr(MSR_P4_COUNTER(i), 0);
		}
		return;
	}
	/* P6 family (Pentium Pro .. Pentium M) predates leaf 0AH (the capability
	 * record's P6 rule); a family-6 CPU that has leaf 0AH with version 0 has
	 * no PMU at all (an emulator), and its absence of counters is checked
	 * elsewhere. */
	if (!caps()->p6)
		t_skip_return(
		    t, "no NetBurst or P6-family counters (DisplayFamily 06H without leaf 0AH)");
	for (unsigned i = 0; i < 2; i++) {
		uint64_t got;
		int vec;

		expect_no_fault(t, wrmsr_safe(MSR_IA32_PMC(i), 0xFFFFFFFFULL), RULE_NONARCH_WIDTH,
				"WRMSR PerfCtr%u <- 0xffffffff", i);
		bool holds = t_counter_holds(t, GP_COUNTER(i));
		if (holds)
			expect_eq(t, rdmsr(MSR_IA32_PMC(i)), mask40, RULE_NONARCH_WIDTH,
				  "PerfCtr%u after a sign-extended write", i);
		got = rdpmc_value(i, &vec);
		expect_vector(t, vec, 0, RULE_RDPMC_GP, "RDPMC ECX=%u", i);
		if (holds)
			expect_eq(t, got, mask40, RULE_RDPMC_NONARCH_WIDTH, "RDPMC %u (40 bits)",
				  i);
		wrmsr(MSR_IA32_PMC(i), 0);
	}
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

/* Written into a running counter: positive, so a legacy write keeps it. */
#define REWRITE_VALUE 0x40000000ULL

/* GP counter i (the exact event `ev`, per_iter per iteration) rewritten
 * while it counts: to REWRITE_VALUE, then to all ones. */
static void rewritten_gp(struct t *t, unsigned i, enum arch_event ev, uint64_t per_iter)
{
	uint64_t c[2], v;

	c[0] = rewrite_running_gp(i, ev, REWRITE_VALUE, PMU_ITERS);
	c[1] = rewrite_running_gp(i, ev, REWRITE_VALUE, 2 * PMU_ITERS);
	expect_range(t, c[0], REWRITE_VALUE + PMU_ITERS * per_iter,
		     REWRITE_VALUE + PMU_ITERS * per_iter + PMU_OVERHEAD_EVENTS, RULE_COUNTER_WRITE,
		     "IA32_PMC%u rewritten to %#llx while counting, then N iterations", i,
		     (unsigned long long)REWRITE_VALUE);
	expect_eq(t, c[1] - c[0], PMU_ITERS * per_iter, RULE_COUNTER_WRITE,
		  "IA32_PMC%u rewritten while counting: count(2N) - count(N)", i);
	/* Rewritten to all ones (EAX = FFFFFFFFH sign-extends) while running:
	 * the next event wraps it, so N iterations leave it small, and on v2+
	 * the overflow is in GLOBAL_STATUS. */
	if (pmu_has_global())
		wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_PMC_BIT(i));
	v = rewrite_running_gp(i, ev, 0xFFFFFFFFULL, PMU_ITERS);
	expect_range(t, v, PMU_ITERS * per_iter - 1, PMU_ITERS * per_iter + PMU_OVERHEAD_EVENTS,
		     RULE_COUNTER_WRITE_OVF,
		     "IA32_PMC%u rewritten to all ones while counting, then N iterations", i);
	if (pmu_has_global())
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_PMC_BIT(i),
			  GLOBAL_PMC_BIT(i), RULE_COUNTER_WRITE_OVF,
			  "GLOBAL_STATUS bit %u after IA32_PMC%u wrapped from all ones", i, i);
}

/* IA32_FIXED_CTR0 (instructions, exact) rewritten to REWRITE_VALUE while it
 * counts. */
static void rewritten_fixed0(struct t *t)
{
	uint64_t c[2];

	for (int pass = 0; pass < 2; pass++) {
		uint64_t n = pass ? 2 * PMU_ITERS : PMU_ITERS;

		pmu_fixed_program(0, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
		pmu_global_enable(GLOBAL_FIXED_BIT(0));
		arch_workload(100);
		wrmsr(MSR_IA32_FIXED_CTR0, REWRITE_VALUE);
		arch_workload(n);
		pmu_global_disable();
		c[pass] = pmu_fixed_read(0);
	}
	expect_range(t, c[0], REWRITE_VALUE + PMU_ITERS * WORKLOAD_INSNS_PER_ITER,
		     REWRITE_VALUE + PMU_ITERS * WORKLOAD_INSNS_PER_ITER + PMU_OVERHEAD_EVENTS,
		     RULE_COUNTER_WRITE,
		     "IA32_FIXED_CTR0 rewritten while counting, then N iterations");
	expect_eq(t, c[1] - c[0], PMU_ITERS * WORKLOAD_INSNS_PER_ITER, RULE_COUNTER_WRITE,
		  "IA32_FIXED_CTR0 rewritten while counting: count(2N) - count(N)");
}

/* Each counter shown to count nothing fails on that finding; the other
 * still runs. */
TEST(counting, running_counter_rewritten, REQ_ARCH_PMU | REQ_EXACT_EVENT | REQ_GP_COUNTER)
{
	struct counter gp = GP_COUNTER((unsigned)pmu_gp_nth(0));
	enum arch_event ev;
	uint64_t per_iter;

	pmu_exact_event(&ev, &per_iter);
	if (t_counter_counts(t, gp))
		rewritten_gp(t, gp.idx, ev, per_iter);
	if (pmu_fixed_present(FIXED_INSTRUCTIONS) &&
	    t_counter_counts(t, FIXED_COUNTER(FIXED_INSTRUCTIONS)))
		rewritten_fixed0(t);
}

/* ---- checks the peers make: presets through IA32_A_PMCx, both aliases ------- */

/*
 * With FW_WRITE, kvm-unit-tests runs its overflow checks with presets written
 * through IA32_A_PMCx. Here, on every GP counter: a legacy write read back
 * through IA32_A_PMCx (sign-extended to the width); a preset of 2^width - C
 * (C the exact count of a gated run) written through IA32_A_PMCx, read back
 * through both aliases, wrapping to exactly 0 with its GLOBAL_STATUS bit
 * after C events, the wrapped value read through both aliases.
 */
TEST(width, full_width_presets_and_aliases, REQ_ARCH_PMU | REQ_FW_WRITE | REQ_EXACT_EVENT)
{
	const uint64_t mask = width_mask(caps()->pm.gp_width);
	const uint64_t legacy = 0x80000010ULL; /* bit 31 set: sign-extends */
	enum arch_event ev;
	uint64_t per_iter;

	pmu_exact_event(&ev, &per_iter);
	for_each_gp_counter(c) {
		uint64_t cfg = counter_cfg_all_rings(c, ev), cnt, preset;
		unsigned i = c.idx;

		/* The read-backs need a counter that holds a value; the count
		 * and the wrap (the preset is calibrated by the count) one that
		 * counts. */
		if (!t_counter_holds(t, c))
			continue;
		wrmsr(MSR_IA32_PERFEVTSEL(i), 0);
		wrmsr(MSR_IA32_PMC(i), legacy);
		expect_eq(t, rdmsr(MSR_IA32_A_PMC(i)), (legacy | ~0xFFFFFFFFULL) & mask,
			  RULE_A_PMC_AFTER_LEGACY,
			  "RDMSR IA32_A_PMC%u after IA32_PMC%u <- %#llx (sign-extended)", i, i,
			  (unsigned long long)legacy);
		if (!t_counter_counts(t, c)) {
			wrmsr(MSR_IA32_PMC(i), 0);
			continue;
		}
		cnt = counter_count(c, cfg, PMU_ITERS);
		expect_eq(t, rdmsr(MSR_IA32_A_PMC(i)), cnt, RULE_A_PMC_AFTER_LEGACY,
			  "RDMSR IA32_A_PMC%u vs IA32_PMC%u after counting", i, i);
		preset = (mask + 1 - cnt) & mask;
		if (pmu_has_global())
			wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, counter_global_bit(c));
		wrmsr(MSR_IA32_A_PMC(i), preset);
		expect_eq(t, rdmsr(MSR_IA32_PMC(i)), preset, RULE_A_PMC_PRESET,
			  "RDMSR IA32_PMC%u after IA32_A_PMC%u <- %#llx", i, i,
			  (unsigned long long)preset);
		expect_eq(t, rdmsr(MSR_IA32_A_PMC(i)), preset, RULE_A_PMC_PRESET,
			  "RDMSR IA32_A_PMC%u after IA32_A_PMC%u <- %#llx", i, i,
			  (unsigned long long)preset);
		if (pmu_has_global()) {
			counter_program(c, cfg | PERFEVTSEL_EN, 0);
			wrmsr(MSR_IA32_A_PMC(i), preset);
			pmu_run_gated(pmu_gate_global(counter_global_bit(c)), PMU_ITERS);
		} else {
			counter_program(c, cfg, 0);
			wrmsr(MSR_IA32_A_PMC(i), preset);
			pmu_run_gated(pmu_gate_evtsel(i, cfg), PMU_ITERS);
		}
		wrmsr(MSR_IA32_PERFEVTSEL(i), cfg);
		expect_eq(t, rdmsr(MSR_IA32_A_PMC(i)), 0, RULE_A_PMC_PRESET,
			  "IA32_A_PMC%u preset to 2^%u - %llu, then %llu events", i,
			  caps()->pm.gp_width, (unsigned long long)cnt, (unsigned long long)cnt);
		expect_eq(t, rdmsr(MSR_IA32_PMC(i)), 0, RULE_A_PMC_PRESET,
			  "IA32_PMC%u after the wrap of the IA32_A_PMC%u preset", i, i);
		if (pmu_has_global())
			expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & counter_global_bit(c),
				  counter_global_bit(c), RULE_A_PMC_PRESET,
				  "GLOBAL_STATUS bit %u after the IA32_A_PMC%u preset wrapped", i,
				  i);
		if (pmu_has_global())
			wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, counter_global_bit(c));
		counter_program(c, 0, 0);
	}
}
