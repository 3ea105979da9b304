/* SPDX-License-Identifier: MIT */
/*
 * PERF_METRICS (IA32_PERF_CAPABILITIES[15]; SDM Vol. 3B 20.3.9.3): fixed
 * counter 3 counts TOPDOWN.SLOTS, IA32_PERF_METRICS holds the level-1
 * topdown fractions of those slots as bytes summing to FFH, writing 0 to
 * both clears them, bit 48 of the global MSRs belongs to it, RDPMC type
 * 2000H reads it, and where CPUID.0AH:EBX enumerates the level-1 topdown
 * events their counts over one window partition the slots.
 */
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

#define EN_PERF_METRICS BIT_ULL(48)

/* Fixed counters 0 (instructions) and 3 (slots) from 0 over one gated run,
 * with EN_PERF_METRICS. IA32_PERF_METRICS is derived from fixed counter 3:
 * both start from 0, fixed counter 3 written first and IA32_PERF_METRICS
 * after it (the order writing_zero_clears uses, and the one Linux
 * intel_update_topdown_event() requires: "The fixed counter 3 has to be
 * written before the PERF_METRICS"), so that no write of fixed counter 3
 * follows the one that clears the metrics. False, the run not made, when
 * fixed counter 3 was shown to count nothing: the slots and the metrics
 * derived from them are what every caller judges (the test failed naming
 * the finding). */
static bool run_slots(struct t *t, uint64_t *insns, uint64_t *slots)
{
	if (!t_counter_counts(t, FIXED_COUNTER(FIXED_TOPDOWN_SLOTS)))
		return false;
	pmu_fixed_program(FIXED_INSTRUCTIONS, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
	pmu_fixed_program(FIXED_TOPDOWN_SLOTS, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
	wrmsr(MSR_IA32_PERF_METRICS, 0);
	pmu_run_gated(pmu_gate_global(GLOBAL_FIXED_BIT(FIXED_INSTRUCTIONS) |
				      GLOBAL_FIXED_BIT(FIXED_TOPDOWN_SLOTS) | EN_PERF_METRICS),
		      PMU_ITERS);
	*insns = pmu_fixed_read(FIXED_INSTRUCTIONS);
	*slots = pmu_fixed_read(FIXED_TOPDOWN_SLOTS);
	return true;
}

TEST(metrics, slots_count, REQ_PERF_METRICS | REQ_ARCH_PMU_V2 | REQ_FIXED0 | REQ_FIXED_SLOTS)
{
	uint64_t insns, slots;

	/* The bound is in instructions: fixed counter 0 must count too. */
	if (!t_counter_counts(t, FIXED_COUNTER(FIXED_INSTRUCTIONS)) | !run_slots(t, &insns, &slots))
		return;
	t_measure(t, "slots", slots, "slots");
	expect_true(t, slots >= insns / 2, ">= instructions / 2", "fewer", RULE_METRICS_SLOTS,
		    "TOPDOWN.SLOTS %llu over %llu instructions", (unsigned long long)slots,
		    (unsigned long long)insns);
}

TEST(metrics, level1_fields_sum_to_ff,
     REQ_PERF_METRICS | REQ_ARCH_PMU_V2 | REQ_FIXED0 | REQ_FIXED_SLOTS)
{
	uint64_t insns, slots;
	static const char *const field[4] = {"retiring", "bad speculation", "frontend bound",
					     "backend bound"};

	if (!run_slots(t, &insns, &slots))
		return;
	uint64_t m = rdmsr(MSR_IA32_PERF_METRICS), sum = 0;
	for (unsigned i = 0; i < 4; i++) {
		uint64_t f = (m >> (8 * i)) & 0xFF;
		t_measure(t, field[i], f, "/255");
		sum += f;
	}
	expect_range(t, sum, 0xFF - 3, 0xFF + 3, RULE_METRICS_SUM,
		     "sum of the level-1 fields of IA32_PERF_METRICS %#llx", (unsigned long long)m);
}

TEST(metrics, level2_within_level1,
     REQ_PERF_METRICS | REQ_ARCH_PMU_V2 | REQ_FIXED0 | REQ_FIXED_SLOTS)
{
	static const char *const child[4] = {"heavy operations", "branch mispredicts",
					     "fetch latency", "memory bound"};
	uint64_t insns, slots;

	if (!run_slots(t, &insns, &slots))
		return;
	uint64_t m = rdmsr(MSR_IA32_PERF_METRICS);
	if (!(m >> 32))
		t_diag(t, "IA32_PERF_METRICS bytes 4-7 are 0 (no level-2 metrics, as on Ice Lake)");
	for (unsigned i = 0; i < 4; i++) {
		uint64_t c = (m >> (8 * (i + 4))) & 0xFF, p = (m >> (8 * i)) & 0xFF;

		t_measure(t, child[i], c, "/255");
		expect_range(t, c, 0, p + 1, RULE_METRICS_LEVEL2,
			     "level-2 byte %u (%s) against its parent, byte %u (%#llx)", i + 4,
			     child[i], i, (unsigned long long)p);
	}
}

TEST(metrics, writing_zero_clears,
     REQ_PERF_METRICS | REQ_ARCH_PMU_V2 | REQ_FIXED0 | REQ_FIXED_SLOTS)
{
	uint64_t insns, slots;

	if (!run_slots(t, &insns, &slots))
		return;
	if (!expect_ne(t, rdmsr(MSR_IA32_PERF_METRICS), 0, RULE_METRICS_SUM,
		       "IA32_PERF_METRICS after a run"))
		return;
	wrmsr(MSR_IA32_FIXED_CTR(FIXED_TOPDOWN_SLOTS), 0);
	wrmsr(MSR_IA32_PERF_METRICS, 0);
	expect_eq(t, rdmsr(MSR_IA32_FIXED_CTR(FIXED_TOPDOWN_SLOTS)), 0, RULE_METRICS_CLEAR,
		  "FIXED_CTR3 after writing 0");
	expect_eq(t, rdmsr(MSR_IA32_PERF_METRICS), 0, RULE_METRICS_CLEAR,
		  "IA32_PERF_METRICS after writing 0 to it and to FIXED_CTR3");
}

TEST(metrics, global_bit_48, REQ_PERF_METRICS | REQ_ARCH_PMU_V2)
{
	if (expect_no_fault(t, wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, EN_PERF_METRICS),
			    RULE_METRICS_GLOBAL, "WRMSR IA32_PERF_GLOBAL_CTRL <- bit 48"))
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_CTRL), EN_PERF_METRICS, RULE_METRICS_GLOBAL,
			  "IA32_PERF_GLOBAL_CTRL read back");
	pmu_global_disable();
	if (caps()->pm.version < 4)
		return;
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, GLOBAL_STATUS_PERF_METRICS);
	expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_PERF_METRICS,
		  GLOBAL_STATUS_PERF_METRICS, RULE_METRICS_GLOBAL,
		  "GLOBAL_STATUS bit 48 after STATUS_SET bit 48");
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_RESET, GLOBAL_STATUS_PERF_METRICS);
	expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_PERF_METRICS, 0,
		  RULE_METRICS_GLOBAL, "GLOBAL_STATUS bit 48 after STATUS_RESET bit 48");
}

TEST(metrics, rdpmc_type_2000h_reads_metrics,
     REQ_PERF_METRICS | REQ_ARCH_PMU_V2 | REQ_FIXED0 | REQ_FIXED_SLOTS)
{
	uint64_t insns, slots, rax, rdx;

	if (!run_slots(t, &insns, &slots))
		return;
	uint64_t m = rdmsr(MSR_IA32_PERF_METRICS);
	if (!expect_no_fault(t, rdpmc_safe(RDPMC_ECX(RDPMC_TYPE_METRICS, 0), &rax, &rdx),
			     RULE_METRICS_RDPMC, "RDPMC ECX=0x20000000"))
		return;
	expect_eq(t, rdpmc_edx_eax(rax, rdx), m, RULE_METRICS_RDPMC,
		  "RDPMC type 2000H vs RDMSR IA32_PERF_METRICS (counters stopped)");
}

TEST(metrics, level1_events_partition_slots,
     REQ_PERF_METRICS | REQ_ARCH_PMU_V2 | REQ_FIXED0 | REQ_FIXED_SLOTS)
{
	static const enum arch_event ev[4] = {
	    ARCH_EVENT_TOPDOWN_BACKEND, ARCH_EVENT_TOPDOWN_BAD_SPEC, ARCH_EVENT_TOPDOWN_FRONTEND,
	    ARCH_EVENT_TOPDOWN_RETIRING};
	uint64_t bits = GLOBAL_FIXED_BIT(FIXED_TOPDOWN_SLOTS), sum = 0;
	int c[4];

	for (unsigned i = 0; i < 4; i++) {
		c[i] = pmu_gp_nth(i);
		if (!pmu_event_available(ev[i]) || c[i] < 0) {
			t_skip_return(t,
				      "needs the level-1 topdown events (CPUID.0AH:EBX[11:8] with "
				      "EAX[31:24] >= 12) and 4 GP counters");
		}
	}
	/* A sum over every counter of the window: each one must count. */
	bool all_count = t_counter_counts(t, FIXED_COUNTER(FIXED_TOPDOWN_SLOTS));
	for (unsigned i = 0; i < 4; i++)
		all_count &= t_counter_counts(t, GP_COUNTER((unsigned)c[i]));
	if (!all_count)
		return;
	for (unsigned i = 0; i < 4; i++) {
		pmu_gp_program((unsigned)c[i],
			       pmu_evtsel(ev[i], PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_EN),
			       0);
		bits |= GLOBAL_PMC_BIT(c[i]);
	}
	pmu_fixed_program(FIXED_TOPDOWN_SLOTS, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
	pmu_run_gated(pmu_gate_global(bits), PMU_ITERS);
	for (unsigned i = 0; i < 4; i++)
		sum += pmu_gp_read((unsigned)c[i]);
	uint64_t slots = pmu_fixed_read(FIXED_TOPDOWN_SLOTS), tol = slots / 100 + 64;
	expect_range(t, sum, slots > tol ? slots - tol : 0, slots + tol, RULE_METRICS_L1_EVENTS,
		     "backend + bad spec + frontend + retiring vs TOPDOWN.SLOTS %llu",
		     (unsigned long long)slots);
}

/* ---- RDPMC metrics clear mode: IA32_PERF_CAPABILITIES[19] ----
 * RDPMC type 2000H with IA32_FIXED_CTR_CTRL.METRICS_CLEAR_EN[14] returns the
 * metrics and then clears them and IA32_FIXED_CTR3; without the bit it only
 * reads. Bit 14 is in fixed counter 3's field (its AnyThread position), so
 * it is set after the field is programmed, with the counters stopped. */
static void metrics_rdpmc(struct t *t, bool clear_en)
{
	uint64_t insns, slots, rax, rdx;
	uint64_t ctrl = rdmsr(MSR_IA32_FIXED_CTR_CTRL);
	const char *rule = clear_en ? RULE_METRICS_RDPMC_CLEAR : RULE_METRICS_RDPMC_CLEAR_OFF;

	if (!run_slots(t, &insns, &slots))
		return;
	uint64_t m = rdmsr(MSR_IA32_PERF_METRICS);
	if (clear_en &&
	    !expect_no_fault(t,
			     wrmsr_safe(MSR_IA32_FIXED_CTR_CTRL,
					rdmsr(MSR_IA32_FIXED_CTR_CTRL) | FIXED_CTRL_METRICS_CLEAR),
			     RULE_METRICS_RDPMC_CLEAR, "setting METRICS_CLEAR_EN (bit 14)"))
		return;
	if (!expect_no_fault(t, rdpmc_safe(RDPMC_ECX(RDPMC_TYPE_METRICS, 0), &rax, &rdx), rule,
			     "RDPMC ECX=0x20000000, METRICS_CLEAR_EN = %d", clear_en))
		return;
	expect_eq(t, rdpmc_edx_eax(rax, rdx), m, rule,
		  "RDPMC type 2000H vs IA32_PERF_METRICS before it, METRICS_CLEAR_EN = %d",
		  clear_en);
	expect_eq(t, rdmsr(MSR_IA32_PERF_METRICS), clear_en ? 0 : m, rule,
		  "IA32_PERF_METRICS after the RDPMC, METRICS_CLEAR_EN = %d", clear_en);
	expect_eq(t, pmu_fixed_read(FIXED_TOPDOWN_SLOTS), clear_en ? 0 : slots, rule,
		  "IA32_FIXED_CTR3 (slots %llu) after the RDPMC, METRICS_CLEAR_EN = %d",
		  (unsigned long long)slots, clear_en);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, ctrl);
}

TEST(metrics, rdpmc_clear_mode, REQ_PERF_METRICS | REQ_ARCH_PMU_V2 | REQ_FIXED0 | REQ_FIXED_SLOTS)
{
	if (!caps()->perf_cap.rdpmc_metrics_clear)
		t_skip_return(t, "IA32_PERF_CAPABILITIES[19] RDPMC_METRICS_CLEAR = 0");
	metrics_rdpmc(t, false);
	metrics_rdpmc(t, true);
	pmu_fixed_program(FIXED_TOPDOWN_SLOTS, 0, 0);
	pmu_fixed_program(FIXED_INSTRUCTIONS, 0, 0);
}
