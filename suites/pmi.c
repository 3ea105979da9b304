/* SPDX-License-Identifier: MIT */
/*
 * Performance-monitoring interrupts: overflow with INT (or the fixed PMI bit)
 * delivers exactly one interrupt through the LVT performance-counter entry,
 * which the local APIC then masks; no INT, a masked LVT or RFLAGS.IF = 0
 * deliver nothing (IF = 0 holds it pending); a second PMI waits for EOI.
 * With the entry in delivery mode NMI (what Linux perf programs) the same
 * overflow is one NMI, taken whatever RFLAGS.IF says.
 * SDM Vol. 3B 20.2.1.1, 20.2.2, Figure 20-2; Vol. 3A 6.8.1, 11.5.1, 11.8.4.
 *
 * Every check here needs an overflow, so a counter that counts: on one shown
 * to count nothing (kernel/precondition.h) a test fails on that finding and
 * runs no window on it.
 */
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

/* Events before overflow, and the run that crosses it. */
#define PMI_K 64

/* The exact-count event the GP counters count here (REQ_EXACT_EVENT). */
static enum arch_event exact_event(void)
{
	enum arch_event ev = ARCH_EVENT_INSTRUCTIONS;
	uint64_t per_iter;

	pmu_exact_event(&ev, &per_iter);
	return ev;
}

/* The first GP counter present (REQ_GP_COUNTER; leaf 23H may leave out
 * PMC0). */
static unsigned first_gp(void)
{
	return (unsigned)pmu_gp_nth(0);
}

/* Program GP counter i to overflow after PMI_K events of `ev`; returns the
 * gate that runs it (GLOBAL_CTRL on v2+, EN on v1). */
static struct pmu_gate arm_gp(unsigned i, enum arch_event ev, bool int_bit)
{
	uint64_t sel =
	    pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR | (int_bit ? PERFEVTSEL_INT : 0));

	if (pmu_has_global()) {
		pmu_gp_program(i, sel | PERFEVTSEL_EN, 0);
		pmu_gp_preload(i, PMI_K);
		return pmu_gate_global(GLOBAL_PMC_BIT(i));
	}
	pmu_gp_program(i, sel, 0);
	pmu_gp_preload(i, PMI_K);
	return pmu_gate_evtsel(i, sel);
}

static struct pmu_gate arm_fixed(unsigned i, bool pmi_bit)
{
	pmu_fixed_program(i, FIXED_CTRL_OS | FIXED_CTRL_USR | (pmi_bit ? FIXED_CTRL_PMI : 0), 0);
	pmu_fixed_preload(i, PMI_K);
	return pmu_gate_global(GLOBAL_FIXED_BIT(i));
}

/* Counter c armed to overflow after PMI_K events, with its PMI bit. */
static struct pmu_gate arm(struct counter c, enum arch_event ev)
{
	return c.kind == COUNTER_GP ? arm_gp(c.idx, ev, true) : arm_fixed(c.idx, true);
}

/*
 * Fixed counters 4 and up count events Table 20-2 does not tie to the
 * workload: their overflow is checked when it happened (the counter wrapped
 * past its preload) and reported when their event did not occur PMI_K
 * times. Every other counter's event surely occurs.
 */
static bool overflow_expected(struct t *t, struct counter c)
{
	enum arch_event ev;

	if (c.kind == COUNTER_GP || pmu_fixed_event(c.idx, &ev) ||
	    counter_wrapped_from_preload(c, PMI_K))
		return true;
	t_diag(t, COUNTER_FMT " counted fewer than %u events (its event is not architectural)",
	       COUNTER_ARG(c), PMI_K);
	return false;
}

static void clear_status(void)
{
	if (pmu_has_global())
		wrmsr_safe(MSR_IA32_PERF_GLOBAL_OVF_CTRL, pmu_global_counter_bits());
}

/* The checks on one delivered PMI of the counter at GLOBAL_STATUS `bit`. */
static void check_one_pmi(struct t *t, const char *name, uint64_t bit, const char *rule)
{
	expect_eq(t, g_pmi.count, 1, rule, "PMIs delivered at vector %#x for %s overflow",
		  PMI_VECTOR, name);
	if (!g_pmi.count)
		return;
	if (pmu_has_global())
		expect_eq(t, g_pmi.status & bit, bit, RULE_PMI_STATUS_IN_HANDLER,
			  "GLOBAL_STATUS read in the PMI handler (%s)", name);
	t_subject(t, SUBJECT_APIC, SUBJECT_APIC_LVT_PMI, 0);
	expect_eq(t, g_pmi.lvt & APIC_LVT_MASKED, APIC_LVT_MASKED, RULE_PMI_LVT_MASK_SET,
		  "LVT PMI mask bit read in the handler (%s)", name);
}

TEST(pmi, lvt_programmed_to_kernel_vector, REQ_ARCH_PMU | REQ_APIC)
{
	uint32_t lvt;

	pmu_pmi_install(true, 0, false);
	lvt = arch_apic_read_lvt_pmi();
	expect_eq(t, FIELD_GET_ULL(APIC_LVT_VECTOR, lvt), PMI_VECTOR, RULE_PMI_LVT_RW,
		  "LVT performance-counter vector");
	expect_eq(t, lvt & (APIC_LVT_MASKED | APIC_LVT_DELIVERY_MODE), 0, RULE_PMI_LVT_RW,
		  "LVT performance-counter mask and delivery mode (fixed, unmasked)");
	arch_apic_write_lvt_pmi(PMI_VECTOR | APIC_LVT_MASKED);
	expect_eq(t, arch_apic_read_lvt_pmi() & APIC_LVT_MASKED, APIC_LVT_MASKED, RULE_PMI_LVT_RW,
		  "LVT performance-counter mask bit after masking");
	pmu_pmi_uninstall();
}

TEST(pmi, gp_overflow_delivers_one_pmi, REQ_ARCH_PMU | REQ_APIC | REQ_EXACT_EVENT)
{
	enum arch_event ev = exact_event();
	char name[24];

	for_each_gp_counter(c) {
		unsigned i = c.idx;
		struct pmu_gate g;

		if (!t_counter_counts(t, c))
			continue;
		pmu_pmi_install(true, 0, false);
		g = arm_gp(i, ev, true);
		pmu_run_gated_irq(g, PMU_ITERS);
		ksnprintf(name, sizeof(name), COUNTER_FMT, COUNTER_ARG(c));
		check_one_pmi(t, name, GLOBAL_PMC_BIT(i), RULE_PMI_DELIVER);
		t_subject(t, SUBJECT_APIC, SUBJECT_APIC_LVT_PMI, 0);
		expect_eq(t, arch_apic_read_lvt_pmi() & APIC_LVT_MASKED, APIC_LVT_MASKED,
			  RULE_PMI_LVT_MASK_SET, "LVT PMI mask bit after the PMI (%s)", name);
		pmu_gp_program(i, 0, 0);
		clear_status();
	}
	pmu_pmi_uninstall();
}

TEST(pmi, fixed_overflow_delivers_one_pmi, REQ_FIXED | REQ_APIC)
{
	char name[24];

	for_each_fixed_counter(c) {
		struct pmu_gate g;

		if (!t_counter_counts(t, c))
			continue;
		pmu_pmi_install(true, 0, false);
		g = arm_fixed(c.idx, true);
		pmu_run_gated_irq(g, PMU_ITERS);
		ksnprintf(name, sizeof(name), COUNTER_FMT, COUNTER_ARG(c));
		if (overflow_expected(t, c))
			check_one_pmi(t, name, counter_global_bit(c), RULE_FIXED_PMI);
		pmu_fixed_program(c.idx, 0, 0);
		clear_status();
	}
	pmu_pmi_uninstall();
}

/* Every GP and fixed counter (kvm-unit-tests alternates INT over all of
 * them): an overflow without INT / PMI raises nothing, and on v2+ is still
 * in GLOBAL_STATUS. */
TEST(pmi, no_int_bit_no_pmi, REQ_ARCH_PMU | REQ_APIC | REQ_EXACT_EVENT)
{
	enum arch_event ev = exact_event();

	for_each_gp_counter(c) {
		if (!t_counter_counts(t, c))
			continue;
		pmu_pmi_install(true, 0, false);
		pmu_run_gated_irq(arm_gp(c.idx, ev, false), PMU_ITERS);
		expect_eq(t, g_pmi.count, 0, RULE_PMI_NO_INT,
			  "PMIs for IA32_PMC%u overflow with INT = 0", c.idx);
		if (pmu_has_global())
			expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & counter_global_bit(c),
				  counter_global_bit(c), RULE_PMI_NO_INT,
				  "GLOBAL_STATUS bit %u after the overflow without INT", c.idx);
		pmu_gp_program(c.idx, 0, 0);
		clear_status();
	}
	for_each_fixed_counter(c) {
		if (!t_counter_counts(t, c))
			continue;
		pmu_pmi_install(true, 0, false);
		pmu_run_gated_irq(arm_fixed(c.idx, false), PMU_ITERS);
		expect_eq(t, g_pmi.count, 0, RULE_PMI_NO_INT,
			  "PMIs for IA32_FIXED_CTR%u overflow with its PMI bit = 0", c.idx);
		if (overflow_expected(t, c))
			expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & counter_global_bit(c),
				  counter_global_bit(c), RULE_PMI_NO_INT,
				  "GLOBAL_STATUS bit %u after the fixed overflow without PMI",
				  counter_global_pos(c));
		pmu_fixed_program(c.idx, 0, 0);
		clear_status();
	}
	pmu_pmi_uninstall();
}

TEST(pmi, masked_lvt_delivers_nothing, REQ_ARCH_PMU | REQ_APIC | REQ_EXACT_EVENT | REQ_GP_COUNTER)
{
	enum arch_event ev = exact_event();
	unsigned c = first_gp();

	if (!t_counter_counts(t, GP_COUNTER(c)))
		return;
	pmu_pmi_install(true, 0, true);
	pmu_run_gated_irq(arm_gp(c, ev, true), PMU_ITERS);
	expect_eq(t, g_pmi.count, 0, RULE_PMI_MASKED,
		  "PMIs for IA32_PMC%u overflow (INT = 1) with the LVT entry masked", c);
	if (pmu_has_global())
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_PMC_BIT(c),
			  GLOBAL_PMC_BIT(c), RULE_GLOBAL_STATUS_OVF,
			  "GLOBAL_STATUS bit %u after the masked overflow", c);
	pmu_pmi_uninstall();
}

TEST(pmi, held_pending_while_if_clear, REQ_ARCH_PMU | REQ_APIC | REQ_EXACT_EVENT | REQ_GP_COUNTER)
{
	enum arch_event ev = exact_event();
	unsigned c = first_gp();

	if (!t_counter_counts(t, GP_COUNTER(c)))
		return;
	pmu_pmi_install(true, 0, false);
	pmu_run_gated(arm_gp(c, ev, true), PMU_ITERS); /* RFLAGS.IF = 0 */
	expect_eq(t, g_pmi.count, 0, RULE_PMI_DELIVER,
		  "PMIs taken while RFLAGS.IF = 0 (maskable interrupt, SDM Vol.3A 6.8.1)");
	arch_irq_enable();
	arch_workload(10);
	arch_irq_disable();
	expect_eq(t, g_pmi.count, 1, RULE_PMI_DELIVER,
		  "PMIs once RFLAGS.IF = 1 (held pending in IRR meanwhile)");
	pmu_pmi_uninstall();
}

TEST(pmi, second_pmi_waits_for_eoi, REQ_ARCH_PMU | REQ_APIC | REQ_EXACT_EVENT | REQ_GP_COUNTER)
{
	enum arch_event ev = exact_event();
	unsigned c = first_gp();

	if (!t_counter_counts(t, GP_COUNTER(c)))
		return;
	pmu_pmi_install(false, 0, false); /* the handler sends no EOI */
	pmu_run_gated_irq(arm_gp(c, ev, true), PMU_ITERS);
	expect_eq(t, g_pmi.count, 1, RULE_PMI_DELIVER, "first PMI (handler sends no EOI)");
	/* Re-arm: unmask, clear the status, overflow again. */
	clear_status();
	arch_apic_write_lvt_pmi(PMI_VECTOR);
	pmu_run_gated_irq(arm_gp(c, ev, true), PMU_ITERS);
	expect_eq(t, g_pmi.count, 1, RULE_PMI_EOI,
		  "PMIs while the first is still in service (no EOI yet)");
	arch_irq_enable();
	arch_apic_eoi();
	arch_workload(10);
	arch_irq_disable();
	expect_eq(t, g_pmi.count, 2, RULE_PMI_EOI, "PMIs after EOI of the first");
	arch_apic_eoi(); /* the second one's */
	pmu_pmi_uninstall();
}

/*
 * The LVT vector is honoured: with the entry holding SPURIOUS_VECTOR (whose
 * handler survives a real interrupt) nothing may arrive at PMI_VECTOR. The
 * extra EOI retires the interrupt if it was delivered in service.
 */
TEST(pmi, delivered_at_lvt_vector, REQ_ARCH_PMU | REQ_APIC | REQ_EXACT_EVENT | REQ_GP_COUNTER)
{
	enum arch_event ev = exact_event();
	unsigned c = first_gp();

	/* Nothing at PMI_VECTOR says something only of an overflow. */
	if (!t_counter_counts(t, GP_COUNTER(c)))
		return;
	pmu_pmi_install(true, 0, false);
	arch_apic_write_lvt_pmi(SPURIOUS_VECTOR);
	pmu_run_gated_irq(arm_gp(c, ev, true), PMU_ITERS);
	arch_apic_eoi();
	expect_eq(t, g_pmi.count, 0, RULE_PMI_LVT_VECTOR,
		  "interrupts at PMI_VECTOR (%#x) with the LVT entry at vector %#x", PMI_VECTOR,
		  SPURIOUS_VECTOR);
	pmu_pmi_uninstall();
}

/* ---- Delivery mode NMI (LVT bits 10:8 = 100B) ------------------------------- */

/* RFLAGS.IF while the counter overflows: NMI delivery must not care (fixed
 * delivery holds the PMI while IF = 0, held_pending_while_if_clear). */
static const struct nmi_if_case {
	bool if_set;
	const char *what;
} nmi_if_cases[] = {
    {true, "RFLAGS.IF = 1"},
    {false, "RFLAGS.IF = 0"},
};

/*
 * One overflow of `s` with the LVT entry in NMI mode: exactly one NMI, taken
 * at once even with IF = 0; nothing at the vector field (PMI_VECTOR); the
 * status bit set and the LVT mask bit set in the NMI handler, and the mask
 * bit still set afterwards. `counts`: the finding on `s` (the caller asks it
 * once per counter); false leaves only the delivery-mode read-back, which
 * needs no overflow.
 */
static void nmi_overflow(struct t *t, struct counter s, enum arch_event ev,
			 const struct nmi_if_case *ic, const char *rule, bool counts)
{
	uint64_t bit = counter_global_bit(s);
	struct pmu_gate g;
	unsigned nmis;
	char name[24];

	ksnprintf(name, sizeof(name), COUNTER_FMT, COUNTER_ARG(s));
	pmu_pmi_install_nmi();
	expect_eq(t, FIELD_GET_ULL(APIC_LVT_DELIVERY_MODE, arch_apic_read_lvt_pmi()), APIC_DM_NMI,
		  RULE_PMI_LVT_DM_RW, "LVT performance-counter delivery mode after writing 100B");
	if (!counts) {
		pmu_pmi_uninstall();
		return;
	}
	g = arm(s, ev);
	if (ic->if_set)
		pmu_run_gated_irq(g, PMU_ITERS);
	else
		pmu_run_gated(g, PMU_ITERS);
	nmis = g_pmi_nmi.count;
	if (!ic->if_set) {
		/* Whatever IF = 0 held arrives now: counted here, not in a
		 * later test. */
		arch_irq_enable();
		arch_workload(10);
		arch_irq_disable();
	}
	if (!overflow_expected(t, s)) {
		counter_program(s, 0, 0);
		clear_status();
		pmu_pmi_uninstall();
		return;
	}
	expect_eq(t, nmis, 1, ic->if_set ? rule : RULE_PMI_NMI_IGNORES_IF,
		  "NMIs for %s overflow, LVT delivery mode NMI, %s", name, ic->what);
	if (!ic->if_set)
		expect_eq(t, g_pmi_nmi.count - nmis, 0, RULE_PMI_NMI_IGNORES_IF,
			  "NMIs for %s overflow that waited for RFLAGS.IF = 1", name);
	expect_eq(t, g_pmi.count, 0, RULE_PMI_NMI_NO_VECTOR,
		  "interrupts at the LVT vector field %#x for %s overflow, delivery mode NMI, %s",
		  PMI_VECTOR, name, ic->what);
	if (g_pmi_nmi.count) {
		if (pmu_has_global())
			expect_eq(t, g_pmi_nmi.status & bit, bit, RULE_PMI_STATUS_IN_HANDLER,
				  "GLOBAL_STATUS read in the NMI handler (%s)", name);
		t_subject(t, SUBJECT_APIC, SUBJECT_APIC_LVT_PMI, 0);
		expect_eq(t, g_pmi_nmi.lvt & APIC_LVT_MASKED, APIC_LVT_MASKED,
			  RULE_PMI_LVT_MASK_SET, "LVT PMI mask bit read in the NMI handler (%s)",
			  name);
	}
	t_subject(t, SUBJECT_APIC, SUBJECT_APIC_LVT_PMI, 0);
	expect_eq(t, arch_apic_read_lvt_pmi() & APIC_LVT_MASKED, APIC_LVT_MASKED,
		  RULE_PMI_LVT_MASK_SET, "LVT PMI mask bit after the NMI (%s, %s)", name, ic->what);
	counter_program(s, 0, 0);
	clear_status();
	pmu_pmi_uninstall();
}

TEST(pmi, nmi_mode_gp_overflow, REQ_ARCH_PMU | REQ_APIC | REQ_EXACT_EVENT)
{
	enum arch_event ev = exact_event();

	for_each_gp_counter(c) {
		bool counts = t_counter_counts(t, c);

		for (unsigned k = 0; k < ARRAY_SIZE(nmi_if_cases); k++)
			nmi_overflow(t, c, ev, &nmi_if_cases[k], RULE_PMI_NMI_DELIVER, counts);
	}
}

/* Every fixed counter, as fixed_overflow_delivers_one_pmi (counters 4 and
 * up where their event made them overflow). The event argument is for GP
 * counters only. */
TEST(pmi, nmi_mode_fixed_overflow, REQ_FIXED | REQ_APIC)
{
	for_each_fixed_counter(c) {
		bool counts = t_counter_counts(t, c);

		for (unsigned k = 0; k < ARRAY_SIZE(nmi_if_cases); k++)
			nmi_overflow(t, c, ARCH_EVENT_INSTRUCTIONS, &nmi_if_cases[k],
				     RULE_FIXED_PMI_NMI, counts);
	}
}
