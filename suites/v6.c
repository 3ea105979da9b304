/* SPDX-License-Identifier: MIT */
/*
 * Architectural performance monitoring version 6: the 19xxH MSR range.
 * IA32_PMC_GPn_CTR (1900H + 4n), IA32_PMC_GPn_CFG_A (1901H + 4n) and
 * IA32_PMC_FXm_CTR (1980H + 4m) are new names of IA32_PMCn,
 * IA32_PERFEVTSELn and IA32_FIXED_CTRm: the same registers both ways, the
 * same count, the same reserved bits; only the counters that exist have
 * them; no FXm_CFG_A. Auto Counter Reload's CFG_B / CFG_C are not probed
 * here. ISE "Architectural Performance Monitoring Version 6" (rules.h ISE_V6).
 */
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "reserved_bits.h"
#include "rules.h"
#include "test.h"

/* Values with bit 31 clear: the same through a legacy IA32_PMCx write (which
 * sign-extends bit 31) and a full-width one, so the check does not depend on
 * which of the two the alias is. */
#define V6_LEGACY_VALUE(i) (0x1230ULL + (i))
#define V6_ALIAS_VALUE(i)  (0x4560ULL + (i))
/* An event select without EN: programs nothing that counts. */
#define V6_CFG_A_VALUE(i) (PERFEVTSEL_USR | PERFEVTSEL_OS | 0xC0 | ((uint64_t)(i) << 8))

/* One name pair: what is written through `a` reads back through `b`. */
static void expect_same_register(struct t *t, uint32_t a, const char *an, uint32_t b,
				 const char *bn, unsigned idx, uint64_t v)
{
	uint64_t got = 0;

	if (!expect_no_fault(t, wrmsr_safe(a, v), RULE_V6_ALIAS, "WRMSR %s%u <- %#llx", an, idx,
			     (unsigned long long)v))
		return;
	if (expect_no_fault(t, rdmsr_safe(b, &got), RULE_V6_ALIAS, "RDMSR %s%u", bn, idx))
		expect_eq(t, got, v, RULE_V6_ALIAS, "%s%u after WRMSR %s%u", bn, idx, an, idx);
}

TEST(v6, aliases_are_the_same_registers, REQ_ARCH_PMU_V6)
{
	for_each_gp_counter(c) {
		unsigned i = c.idx;

		/* A value read back through the other name: a counter that holds
		 * one. The event selects alias whatever the counter does. */
		if (t_counter_holds(t, c)) {
			expect_same_register(t, MSR_IA32_PMC(i), "IA32_PMC", MSR_IA32_PMC_GP_CTR(i),
					     "IA32_PMC_GP_CTR n=", i, V6_LEGACY_VALUE(i));
			expect_same_register(t, MSR_IA32_PMC_GP_CTR(i),
					     "IA32_PMC_GP_CTR n=", MSR_IA32_PMC(i), "IA32_PMC", i,
					     V6_ALIAS_VALUE(i));
		}
		expect_same_register(t, MSR_IA32_PERFEVTSEL(i), "IA32_PERFEVTSEL",
				     MSR_IA32_PMC_GP_CFG_A(i), "IA32_PMC_GP_CFG_A n=", i,
				     V6_CFG_A_VALUE(i));
		expect_same_register(t, MSR_IA32_PMC_GP_CFG_A(i),
				     "IA32_PMC_GP_CFG_A n=", MSR_IA32_PERFEVTSEL(i),
				     "IA32_PERFEVTSEL", i, V6_CFG_A_VALUE(i) | PERFEVTSEL_INV);
		wrmsr(MSR_IA32_PERFEVTSEL(i), 0);
		wrmsr(MSR_IA32_PMC(i), 0);
	}
	for_each_fixed_counter(c) {
		unsigned m = c.idx;

		if (!t_counter_holds(t, c))
			continue;
		expect_same_register(t, MSR_IA32_FIXED_CTR(m), "IA32_FIXED_CTR",
				     MSR_IA32_PMC_FX_CTR(m), "IA32_PMC_FX_CTR m=", m,
				     V6_LEGACY_VALUE(m));
		expect_same_register(t, MSR_IA32_PMC_FX_CTR(m),
				     "IA32_PMC_FX_CTR m=", MSR_IA32_FIXED_CTR(m), "IA32_FIXED_CTR",
				     m, V6_ALIAS_VALUE(m));
		wrmsr(MSR_IA32_FIXED_CTR(m), 0);
	}
}

/* Count N and 2N iterations on a counter programmed through its alias and
 * read it through both names: equal, exact where the event is, growing
 * where it surely occurs (fixed counters 4 and up count events Table 20-2
 * does not tie to the workload). */
static void count_both_names(struct t *t, struct counter c, uint32_t alias, uint32_t legacy,
			     uint64_t per_iter, bool counts_workload)
{
	uint64_t a[2], l[2];

	for (unsigned k = 0; k < 2; k++) {
		wrmsr(alias, 0);
		pmu_run_gated(pmu_gate_global(counter_global_bit(c)), PMU_ITERS << k);
		a[k] = rdmsr(alias);
		l[k] = rdmsr(legacy);
		expect_eq(t, a[k], l[k], RULE_V6_ALIAS_COUNTS,
			  COUNTER_FMT ": the alias after %llu iterations", COUNTER_ARG(c),
			  (unsigned long long)(PMU_ITERS << k));
	}
	if (per_iter)
		expect_eq(t, a[1] - a[0], PMU_ITERS * per_iter, RULE_V6_ALIAS_COUNTS,
			  COUNTER_FMT " through its alias: count(2N) - count(N), N = %llu",
			  COUNTER_ARG(c), (unsigned long long)PMU_ITERS);
	else if (counts_workload)
		expect_true(t, a[1] > a[0], "count(2N) > count(N)",
			    a[1] > a[0] ? "larger" : "not larger", RULE_V6_ALIAS_COUNTS,
			    COUNTER_FMT " through its alias", COUNTER_ARG(c));
}

TEST(v6, alias_counts_as_legacy, REQ_ARCH_PMU_V6 | REQ_EXACT_EVENT)
{
	enum arch_event ev;
	uint64_t per_iter;

	pmu_exact_event(&ev, &per_iter);
	for_each_gp_counter(c) {
		if (!t_counter_counts(t, c))
			continue;
		wrmsr(MSR_IA32_PMC_GP_CFG_A(c.idx), pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_EN));
		count_both_names(t, c, MSR_IA32_PMC_GP_CTR(c.idx), MSR_IA32_PMC(c.idx), per_iter,
				 true);
		wrmsr(MSR_IA32_PMC_GP_CFG_A(c.idx), 0);
	}
	for_each_fixed_counter(c) {
		enum arch_event fev;
		bool known = pmu_fixed_event(c.idx, &fev), exact = known && fev == ev;

		if (c.idx >= PMU_FIXED_PROGRAMMABLE || !t_counter_counts(t, c))
			continue;
		pmu_fixed_program(c.idx, FIXED_CTRL_OS, 0);
		count_both_names(t, c, MSR_IA32_PMC_FX_CTR(c.idx), MSR_IA32_FIXED_CTR(c.idx),
				 exact ? per_iter : 0, known);
		pmu_fixed_program(c.idx, 0, 0);
	}
}

TEST(v6, cfg_a_reserved_bits, REQ_ARCH_PMU_V6 | REQ_GP_COUNTER)
{
	for_each_gp_counter(c) {
		char name[40];

		ksnprintf(name, sizeof(name), "IA32_PMC_GP%u_CFG_A", c.idx);
		expect_reserved_bits_fault(t, MSR_IA32_PMC_GP_CFG_A(c.idx), name,
					   caps_evtsel_high_reserved(caps(), c.idx),
					   RULE_V6_CFG_A_RSVD, true);
	}
}

/* One alias that must not exist: RDMSR and WRMSR 0 raise #GP(0). */
static void expect_no_register(struct t *t, uint32_t msr, const char *rule, const char *name,
			       unsigned idx)
{
	uint64_t v;

	expect_vector(t, rdmsr_safe(msr, &v), X86_VEC_GP, rule, "RDMSR %s%u (%#x)", name, idx, msr);
	expect_vector(t, wrmsr_safe(msr, 0), X86_VEC_GP, rule, "WRMSR %s%u (%#x) <- 0", name, idx,
		      msr);
}

TEST(v6, aliases_of_absent_counters_gp, REQ_ARCH_PMU_V6)
{
	for (unsigned n = 0; n < PMC_V6_GP_SLOTS; n++) {
		if (pmu_gp_present(n))
			continue;
		expect_no_register(t, MSR_IA32_PMC_GP_CTR(n), RULE_V6_ALIAS_ABSENT,
				   "IA32_PMC_GP_CTR n=", n);
		expect_no_register(t, MSR_IA32_PMC_GP_CFG_A(n), RULE_V6_ALIAS_ABSENT,
				   "IA32_PMC_GP_CFG_A n=", n);
	}
	for (unsigned m = 0; m < PMC_V6_FX_SLOTS; m++)
		if (!pmu_fixed_present(m))
			expect_no_register(t, MSR_IA32_PMC_FX_CTR(m), RULE_V6_ALIAS_ABSENT,
					   "IA32_PMC_FX_CTR m=", m);
	if (t_checks(t) == 0)
		t_skip(t, "all %u GP and %u fixed slots of the 19xxH range are enumerated",
		       PMC_V6_GP_SLOTS, PMC_V6_FX_SLOTS);
}

TEST(v6, no_fixed_cfg_a, REQ_ARCH_PMU_V6)
{
	for (unsigned m = 0; m < PMC_V6_FX_SLOTS; m++)
		expect_no_register(t, MSR_IA32_PMC_FX_CFG_A(m), RULE_V6_NO_FX_CFG_A,
				   "IA32_PMC_FX_CFG_A m=", m);
}
