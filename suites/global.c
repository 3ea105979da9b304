/* SPDX-License-Identifier: MIT */
/*
 * Global control and status (version 2+): IA32_PERF_GLOBAL_CTRL gates each
 * counter; overflow sets IA32_PERF_GLOBAL_STATUS; IA32_PERF_GLOBAL_OVF_CTRL
 * clears it; reserved bits fault; and the version-4 additions
 * IA32_PERF_GLOBAL_STATUS_SET / _STATUS_RESET / _INUSE.
 * SDM Vol. 3B 20.2.2, 20.2.4; Vol. 4 Table 2-2.
 */
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "reserved_bits.h"
#include "rules.h"
#include "test.h"

/* The counters that exist, GP then fixed. */
static unsigned existing_counters(struct counter *out)
{
	unsigned n = 0;

	for_each_gp_counter(c)
		out[n++] = c;
	for_each_fixed_counter(c)
		out[n++] = c;
	return n;
}

/* Does the workload surely cause c's event? GP counters count the event
 * picked for them; fixed counters 0-3 count the events of Table 20-2; 4 and
 * up count events the table does not tie to the workload. A counter whose
 * event surely occurs is one the checks need counting. */
static bool surely_counts(struct counter c)
{
	enum arch_event ev;

	return c.kind == COUNTER_GP || pmu_fixed_event(c.idx, &ev);
}

/* Program every counter to count (GP: a workload event; fixed: its own),
 * from 0, each with its PMI bit (EVTSEL.INT / fixed PMI) when asked. */
static void program_all(enum arch_event ev, bool int_bit)
{
	for_each_gp_counter(c)
		counter_program(c,
				counter_cfg_all_rings(c, ev) | PERFEVTSEL_EN |
				    (int_bit ? PERFEVTSEL_INT : 0),
				0);
	for_each_fixed_counter(c)
		counter_program(c, counter_cfg_all_rings(c, ev) | (int_bit ? FIXED_CTRL_PMI : 0),
				0);
}

static bool pick_event(struct t *t, enum arch_event *ev)
{
	uint64_t per_iter;

	if (pmu_exact_event(ev, &per_iter))
		return true;
	if (pmu_event_available(ARCH_EVENT_CORE_CYCLES)) {
		*ev = ARCH_EVENT_CORE_CYCLES;
		return true;
	}
	t_skip(t, "CPUID.0AH:EBX[0,1,5]: no cycles, instructions or branches event");
	return false;
}

TEST(global, ctrl_gates_each_counter, REQ_ARCH_PMU_V2)
{
	struct counter ctrs[2 * PMU_COUNTER_MAX];
	unsigned n = existing_counters(ctrs);
	enum arch_event ev;

	if (!pick_event(t, &ev))
		return;
	for (unsigned k = 0; k < n; k++) {
		unsigned others = 0;

		program_all(ev, false);
		pmu_run_gated(pmu_gate_global(counter_global_bit(ctrs[k])), PMU_ITERS);
		/* A counter shown to count nothing fails on that finding; the
		 * window still judges the others, which bit k must not start. */
		if (!surely_counts(ctrs[k]))
			t_diag(t, COUNTER_FMT " counted %llu alone (event not architectural)",
			       COUNTER_ARG(ctrs[k]), (unsigned long long)counter_read(ctrs[k]));
		else if (t_counter_counts(t, ctrs[k]))
			expect_true(t, counter_read(ctrs[k]) > 0, "counted", "0",
				    RULE_GLOBAL_CTRL_GATE,
				    COUNTER_FMT " with only GLOBAL_CTRL bit %u set",
				    COUNTER_ARG(ctrs[k]), counter_global_pos(ctrs[k]));
		for (unsigned j = 0; j < n; j++)
			others += j != k && counter_read(ctrs[j]) != 0;
		expect_eq(t, others, 0, RULE_GLOBAL_CTRL_GATE,
			  "counters that counted while only GLOBAL_CTRL bit %u was set",
			  counter_global_pos(ctrs[k]));
	}
}

TEST(global, ctrl_reads_back, REQ_ARCH_PMU_V2)
{
	uint64_t all = pmu_global_counter_bits();

	expect_no_fault(t, wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, all), RULE_GLOBAL_CTRL_RW,
			"WRMSR IA32_PERF_GLOBAL_CTRL <- %#llx", (unsigned long long)all);
	expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_CTRL), all, RULE_GLOBAL_CTRL_RW,
		  "IA32_PERF_GLOBAL_CTRL read back");
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
}

/* Counter positions of counters that do not exist (the existence rule of
 * kernel/pmu.h: leaf 23H's bitmaps where valid, holes included, else leaf
 * 0AH): GP bits 31:0 and fixed bits 47:32. */
static uint64_t absent_counter_bits(void)
{
	uint64_t b = 0;

	for (unsigned i = 0; i < PMU_COUNTER_MAX; i++)
		if (!pmu_gp_present(i))
			b |= GLOBAL_PMC_BIT(i);
	for (unsigned i = 0; i < GLOBAL_FIXED_BITS; i++)
		if (!pmu_fixed_present(i))
			b |= GLOBAL_FIXED_BIT(i);
	return b;
}

TEST(global, reserved_bits_fault, REQ_ARCH_PMU_V2)
{
	uint64_t absent = absent_counter_bits();
	/* GLOBAL_CTRL: only counter enables (and EN_PERF_METRICS, bit 48, with
	 * PERF_METRICS_AVAILABLE) are defined. */
	uint64_t ctrl_rsvd = absent | GENMASK_ULL(63, 49);

	if (!(caps()->perf_cap.valid && caps()->perf_cap.perf_metrics))
		ctrl_rsvd |= BIT_ULL(48);
	expect_reserved_bits_fault(t, MSR_AND_NAME(IA32_PERF_GLOBAL_CTRL), ctrl_rsvd,
				   RULE_GLOBAL_CTRL_RSVD, false);
	/* OVF_CTRL: clear bits of counters that do not exist. */
	expect_reserved_bits_fault(t, MSR_AND_NAME(IA32_PERF_GLOBAL_OVF_CTRL), absent,
				   RULE_GLOBAL_OVF_RSVD, false);
}

/*
 * The observed outcome of a check that found GLOBAL_STATUS bits `left` set
 * where they should be clear: it tells the deviation the known-deviations
 * table names (zxc-ovf-clear-needs-global-enable: IA32_PERF_GLOBAL_OVF_CTRL
 * clears them only while IA32_PERF_GLOBAL_CTRL is enabled) from every other
 * cause (bits set again, OVF_CTRL that never clears...). OVF_CTRL is
 * written with GLOBAL_CTRL 0; where that leaves them set it is written again
 * with GLOBAL_CTRL enabling those counters: OUTCOME_BITS (the bits that only
 * the second write cleared) when it clears them all, OUTCOME_ABOVE
 * otherwise. Either way the bits end clear where the machine can clear them.
 */
static void stuck_status_outcome(struct t *t, uint64_t left)
{
	uint64_t ctrl = rdmsr(MSR_IA32_PERF_GLOBAL_CTRL), after;

	t_subject_msr(t, MSR_IA32_PERF_GLOBAL_STATUS);
	if (!left || !pmu_has_global()) {
		t_outcome_bits(t, left);
		return;
	}
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, left);
	if (!(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & left)) {
		t_outcome(t, OUTCOME_ABOVE);
	} else {
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, left);
		wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, left);
		after = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & left;
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
		if (after)
			t_outcome(t, OUTCOME_ABOVE);
		else
			t_outcome_bits(t, left);
	}
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, ctrl);
}

TEST(global, status_is_read_only, REQ_ARCH_PMU_V2)
{
	const uint64_t vals[] = {0, GLOBAL_PMC_BIT(0), GLOBAL_STATUS_COND_CHGD};

	for (unsigned k = 0; k < ARRAY_SIZE(vals); k++) {
		t_subject_msr(t, MSR_IA32_PERF_GLOBAL_STATUS);
		expect_vector(t, wrmsr_safe(MSR_IA32_PERF_GLOBAL_STATUS, vals[k]), X86_VEC_GP,
			      RULE_GLOBAL_STATUS_RO, "WRMSR IA32_PERF_GLOBAL_STATUS <- %#llx",
			      (unsigned long long)vals[k]);
	}
	uint64_t left = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & pmu_global_counter_bits();

	stuck_status_outcome(t, left);
	expect_eq(t, left, 0, RULE_GLOBAL_STATUS_RO,
		  "GLOBAL_STATUS counter bits after the refused writes");
}

/* Write counter c's bit to `msr` (OVF_CTRL / STATUS_RESET clear it,
 * STATUS_SET sets it): the write must not fault and GLOBAL_STATUS must then
 * have the bit set or clear as `sets` says. */
static void write_status_bit(struct t *t, struct counter c, uint32_t msr, const char *msr_name,
			     bool sets, const char *rule)
{
	uint64_t bit = counter_global_bit(c);

	t_subject_msr(t, msr);
	expect_no_fault(t, wrmsr_safe(msr, bit), rule, "WRMSR %s <- %#llx (" COUNTER_FMT ")",
			msr_name, (unsigned long long)bit, COUNTER_ARG(c));
	uint64_t got = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & bit;

	if (sets)
		t_subject_msr(t, MSR_IA32_PERF_GLOBAL_STATUS);
	else
		stuck_status_outcome(t, got);
	expect_eq(t, got, sets ? bit : 0, rule, "GLOBAL_STATUS bit %u after the write to %s",
		  counter_global_pos(c), msr_name);
}

/* Overflow after OVF_K events of a counter counting the workload. */
#define OVF_K 16

TEST(global, overflow_sets_status_and_ovf_ctrl_clears, REQ_ARCH_PMU_V2)
{
	struct counter ctrs[2 * PMU_COUNTER_MAX];
	unsigned n = existing_counters(ctrs);
	uint64_t all = pmu_global_counter_bits();
	enum arch_event ev;

	if (!pick_event(t, &ev))
		return;
	for (unsigned k = 0; k < n; k++) {
		uint64_t bit = counter_global_bit(ctrs[k]), status;
		unsigned pos = counter_global_pos(ctrs[k]);

		/* No overflow without counting: a counter shown to count
		 * nothing fails on that finding, without a window. */
		if (surely_counts(ctrs[k]) && !t_counter_counts(t, ctrs[k]))
			continue;
		program_all(ev, false);
		counter_preload(ctrs[k], OVF_K);
		pmu_run_gated(pmu_gate_global(bit), PMU_ITERS);
		status = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
		if (!surely_counts(ctrs[k]) && !counter_wrapped_from_preload(ctrs[k], OVF_K)) {
			t_diag(t, COUNTER_FMT " counted fewer than %u events: no overflow to check",
			       COUNTER_ARG(ctrs[k]), OVF_K);
			wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, all);
			continue;
		}
		expect_eq(t, status & bit, bit, RULE_GLOBAL_STATUS_OVF,
			  "GLOBAL_STATUS bit %u after " COUNTER_FMT " overflowed", pos,
			  COUNTER_ARG(ctrs[k]));
		t_subject_msr(t, MSR_IA32_PERF_GLOBAL_STATUS);
		t_outcome_bits(t, status & all & ~bit);
		expect_eq(t, status & all & ~bit, 0, RULE_GLOBAL_STATUS_ONLY,
			  "other counters' GLOBAL_STATUS bits after " COUNTER_FMT " overflowed",
			  COUNTER_ARG(ctrs[k]));
		write_status_bit(t, ctrs[k], MSR_IA32_PERF_GLOBAL_OVF_CTRL,
				 "IA32_PERF_GLOBAL_OVF_CTRL", false, RULE_GLOBAL_OVF_CTRL);
	}
}

/*
 * Software cannot make CondChgd set (no STATUS_SET bit for it), so only the
 * write is checked: bit 63 of OVF_CTRL is defined, not reserved. Whether it
 * was set before is reported.
 */
TEST(global, ovf_ctrl_accepts_clr_cond_chgd, REQ_ARCH_PMU_V2)
{
	uint64_t before = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);

	expect_no_fault(t, wrmsr_safe(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_STATUS_COND_CHGD),
			RULE_GLOBAL_COND_CHGD, "WRMSR IA32_PERF_GLOBAL_OVF_CTRL <- ClrCondChgd");
	t_diag(t, "GLOBAL_STATUS.CondChgd %d before, %d after ClrCondChgd",
	       (before & GLOBAL_STATUS_COND_CHGD) != 0,
	       (rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_COND_CHGD) != 0);
}

TEST(global, status_set_and_reset, REQ_ARCH_PMU_V4)
{
	struct counter ctrs[2 * PMU_COUNTER_MAX];
	unsigned n = existing_counters(ctrs);

	for (unsigned k = 0; k < n; k++) {
		write_status_bit(t, ctrs[k], MSR_IA32_PERF_GLOBAL_STATUS_SET,
				 "IA32_PERF_GLOBAL_STATUS_SET", true, RULE_STATUS_SET);
		write_status_bit(t, ctrs[k], MSR_IA32_PERF_GLOBAL_STATUS_RESET,
				 "IA32_PERF_GLOBAL_STATUS_RESET", false, RULE_STATUS_RESET);
	}
}

TEST(global, inuse_tracks_programming, REQ_ARCH_PMU_V4)
{
	for_each_gp_counter(c) {
		unsigned i = c.idx;

		/* event select 3CH, not enabled: in use all the same */
		wrmsr(MSR_IA32_PERFEVTSEL(i), pmu_evtsel(ARCH_EVENT_CORE_CYCLES, PERFEVTSEL_OS));
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_INUSE) & BIT_ULL(i), BIT_ULL(i),
			  RULE_INUSE_GP, "INUSE bit %u with IA32_PERFEVTSEL%u[7:0] = 0x3c", i, i);
		wrmsr(MSR_IA32_PERFEVTSEL(i), 0);
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_INUSE) & BIT_ULL(i), 0, RULE_INUSE_GP,
			  "INUSE bit %u with IA32_PERFEVTSEL%u = 0", i, i);
	}
	for_each_fixed_counter(c) {
		unsigned i = c.idx;

		wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_FIELD(i, FIXED_CTRL_OS));
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_INUSE) & GLOBAL_FIXED_BIT(i),
			  GLOBAL_FIXED_BIT(i), RULE_INUSE_FIXED,
			  "INUSE bit %u with fixed counter %u enabled (EN = 1)",
			  counter_global_pos(c), i);
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_INUSE) & GLOBAL_FIXED_BIT(i), 0,
			  RULE_INUSE_FIXED, "INUSE bit %u with fixed counter %u disabled",
			  counter_global_pos(c), i);
	}
	if (pmu_gp_nth(0) >= 0) {
		unsigned c = (unsigned)pmu_gp_nth(0);

		wrmsr(MSR_IA32_PERFEVTSEL(c),
		      pmu_evtsel(ARCH_EVENT_CORE_CYCLES, PERFEVTSEL_OS | PERFEVTSEL_INT));
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_INUSE) & GLOBAL_INUSE_PMI, GLOBAL_INUSE_PMI,
			  RULE_INUSE_PMI, "INUSE[63] with IA32_PERFEVTSEL%u.INT = 1", c);
		wrmsr(MSR_IA32_PERFEVTSEL(c), 0);
	}
	expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_INUSE) & GLOBAL_INUSE_PMI, 0, RULE_INUSE_PMI,
		  "INUSE[63] with no INT / PMI bit set");
	expect_vector(t, wrmsr_safe(MSR_IA32_PERF_GLOBAL_INUSE, 0), X86_VEC_GP, RULE_INUSE_RO,
		      "WRMSR IA32_PERF_GLOBAL_INUSE <- 0");
}

/*
 * Overflow happens at the wrap, not at all ones: C = the exact count of a
 * gated run (instructions are deterministic, as the exact 2N - N checks of
 * the counting suite establish); preloaded with -(C + 1) the counter ends at
 * all ones and has not overflowed; with -C it ends at 0 and has. C is a
 * calibration of the run's length, the expected values (all ones, 0, the
 * status bit) are the SDM's. Every GP counter, and IA32_FIXED_CTR0 (whose
 * event, instructions, is exact too).
 */
TEST(global, overflow_exactly_at_wrap, REQ_ARCH_PMU | REQ_EXACT_EVENT)
{
	struct counter ctrs[PMU_COUNTER_MAX + 1];
	enum arch_event ev;
	uint64_t per_iter, sel;
	unsigned n = 0;

	pmu_exact_event(&ev, &per_iter);
	sel = pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR);
	for_each_gp_counter(c)
		ctrs[n++] = c;
	if (pmu_fixed_present(FIXED_INSTRUCTIONS))
		ctrs[n++] = FIXED_COUNTER(FIXED_INSTRUCTIONS);
	for (unsigned k = 0; k < n; k++) {
		struct counter c = ctrs[k];
		uint64_t bit = counter_global_bit(c), mask = counter_width_mask(c);
		uint64_t cfg = c.kind == COUNTER_GP ? sel : counter_cfg_all_rings(c, ev);
		uint64_t cnt;

		/* The calibration and both runs count: a counter shown to
		 * count nothing fails on that finding. */
		if (!t_counter_counts(t, c))
			continue;
		cnt = counter_count(c, cfg, PMU_ITERS);
		for (int hit = 0; hit < 2; hit++) {
			uint64_t k_pre = hit ? cnt : cnt + 1, v;

			if (pmu_has_global())
				wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, bit);
			v = counter_count_preloaded(c, cfg, k_pre, PMU_ITERS);
			t_subject(t, c.kind == COUNTER_GP ? SUBJECT_GP : SUBJECT_FIXED, c.idx, 0);
			expect_eq(t, v, hit ? 0 : mask, RULE_OVF_AT_WRAP,
				  COUNTER_FMT " preloaded with -%llu, then %llu events",
				  COUNTER_ARG(c), (unsigned long long)k_pre,
				  (unsigned long long)cnt);
			if (pmu_has_global()) {
				uint64_t got = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & bit;

				if (hit)
					t_subject_msr(t, MSR_IA32_PERF_GLOBAL_STATUS);
				else
					stuck_status_outcome(t, got);
				expect_eq(t, got, hit ? bit : 0, RULE_OVF_AT_WRAP,
					  "GLOBAL_STATUS bit %u when " COUNTER_FMT " %s",
					  counter_global_pos(c), COUNTER_ARG(c),
					  hit ? "wrapped to 0" : "stopped at all ones");
			}
		}
		if (pmu_has_global())
			wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, bit);
	}
}

TEST(counting, disabled_counter_does_not_count, REQ_ARCH_PMU | REQ_EXACT_EVENT)
{
	enum arch_event ev;
	uint64_t per_iter, all = pmu_global_counter_bits();

	pmu_exact_event(&ev, &per_iter);
	/* Not counting while disabled says nothing of a counter shown to count
	 * nothing at all: it fails on that finding. */
	for_each_gp_counter(c) {
		unsigned i = c.idx;
		uint64_t sel = counter_cfg_all_rings(c, ev);

		if (!t_counter_counts(t, c))
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
	for_each_fixed_counter(c) {
		unsigned i = c.idx;

		if (!t_counter_counts(t, c))
			continue;
		pmu_fixed_program(i, 0, 0);
		pmu_run_gated(pmu_gate_global(GLOBAL_FIXED_BIT(i)), PMU_ITERS);
		expect_eq(t, pmu_fixed_read(i), 0, RULE_FIXED_CTRL_EN,
			  "IA32_FIXED_CTR%u with its EN field 0 and GLOBAL_CTRL bit set", i);
		pmu_fixed_program(i, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
		pmu_run_gated(pmu_gate_global(all & ~GLOBAL_FIXED_BIT(i)), PMU_ITERS);
		expect_eq(t, pmu_fixed_read(i), 0, RULE_GLOBAL_CTRL_GATE,
			  "IA32_FIXED_CTR%u with EN = 3 and GLOBAL_CTRL bit %u clear", i,
			  counter_global_pos(c));
		pmu_fixed_program(i, 0, 0);
	}
}
