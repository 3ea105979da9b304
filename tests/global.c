// SPDX-License-Identifier: MIT
/*
 * Global control and status (version 2+): IA32_PERF_GLOBAL_CTRL gates each
 * counter; overflow sets IA32_PERF_GLOBAL_STATUS; IA32_PERF_GLOBAL_OVF_CTRL
 * clears it; reserved bits fault; and the version-4 additions
 * GLOBAL_STATUS_SET / STATUS_RESET / GLOBAL_INUSE.
 * SDM Vol. 3B 20.2.2, 20.2.4; Vol. 4 Table 2-2.
 */
#include "ktap.h"
#include "pmu.h"
#include "rules.h"
#include "test.h"

/* Fixed counters whose event (Table 20-2) surely counts in the workload:
 * instructions, core cycles, reference cycles, topdown slots. Counters 4 and
 * up count events the SDM does not tie to retirement. */
#define FIXED_COUNTING 4

/* Counters, GP then fixed, as GLOBAL_CTRL bit positions; `counting_only`
 * leaves out fixed counters whose event may not occur in the workload. */
static unsigned counter_bits(unsigned *bits, bool counting_only)
{
	unsigned n = 0;

	for (unsigned i = 0; i < 32; i++)
		if (pmu_gp_present(i))
			bits[n++] = i;
	for (unsigned i = 0; i < (counting_only ? FIXED_COUNTING : FIXED_MAX); i++)
		if (pmu_fixed_present(i))
			bits[n++] = GLOBAL_FIXED_SHIFT + i;
	return n;
}

static const char *counter_name(unsigned bit, char *buf, size_t len)
{
	if (bit < GLOBAL_FIXED_SHIFT)
		ksnprintf(buf, len, "IA32_PMC%u", bit);
	else
		ksnprintf(buf, len, "IA32_FIXED_CTR%u", bit - GLOBAL_FIXED_SHIFT);
	return buf;
}

/* Program every counter to count (GP: a workload event; fixed: its own),
 * from `value`, each with `int_bit` (EVTSEL.INT / fixed PMI) when asked. */
static void program_all(enum arch_event ev, bool int_bit)
{
	for (unsigned i = 0; i < 32; i++)
		if (pmu_gp_present(i))
			pmu_gp_program(i,
				       pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR |
							  PERFEVTSEL_EN |
							  (int_bit ? PERFEVTSEL_INT : 0)),
				       0);
	for (unsigned i = 0; i < FIXED_MAX; i++)
		if (pmu_fixed_present(i))
			pmu_fixed_program(
			    i, FIXED_CTRL_OS | FIXED_CTRL_USR | (int_bit ? FIXED_CTRL_PMI : 0), 0);
}

static uint64_t read_counter(unsigned bit)
{
	return bit < GLOBAL_FIXED_SHIFT ? pmu_gp_read(bit)
					: pmu_fixed_read(bit - GLOBAL_FIXED_SHIFT);
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
	unsigned bits[64], n = counter_bits(bits, true);
	enum arch_event ev;
	char name[32];

	if (!pick_event(t, &ev))
		return;
	for (unsigned k = 0; k < n; k++) {
		unsigned others = 0;

		program_all(ev, false);
		pmu_run_gated(pmu_gate_global(BIT_ULL(bits[k])), PMU_ITERS);
		expect_true(t, read_counter(bits[k]) > 0, "counted", "0", RULE_GLOBAL_CTRL_GATE,
			    "%s with only GLOBAL_CTRL bit %u set",
			    counter_name(bits[k], name, sizeof(name)), bits[k]);
		for (unsigned j = 0; j < n; j++)
			others += j != k && read_counter(bits[j]) != 0;
		expect_eq(t, others, 0, RULE_GLOBAL_CTRL_GATE,
			  "counters that counted while only GLOBAL_CTRL bit %u was set", bits[k]);
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

/* Counter positions that do not exist: GP bits at or above the count, and
 * fixed bits of unsupported counters (bits 47:32). */
static uint64_t absent_counter_bits(void)
{
	uint64_t b = 0;

	for (unsigned i = caps()->pm.gp_counters; i < 32; i++)
		b |= BIT_ULL(i);
	for (unsigned i = 0; i < 16; i++)
		if (!pmu_fixed_present(i))
			b |= GLOBAL_FIXED_BIT(i);
	return b;
}

static void sweep_reserved(struct t *t, uint32_t msr, const char *msr_name, uint64_t rsvd,
			   const char *rule)
{
	unsigned bad = 0, swept = 0;
	char first[96] = "";
	size_t len = 0;

	for (unsigned b = 0; b < 64; b++) {
		int vec;

		if (!(rsvd & BIT_ULL(b)))
			continue;
		swept++;
		vec = wrmsr_safe(msr, BIT_ULL(b));
		if (vec == X86_VEC_GP && arch_fault_error_code() == 0)
			continue;
		if (bad++ < 6 && len < sizeof(first) - 12)
			len += ksnprintf(first + len, sizeof(first) - len, "%sbit %u",
					 len ? ", " : "", b);
	}
	wrmsr_safe(msr, 0);
	expect_true(t, bad == 0, "#GP(0) for each reserved bit", bad ? first : "all #GP(0)", rule,
		    "%s: %u of %u reserved bits accepted", msr_name, bad, swept);
}

TEST(global, reserved_bits_fault, REQ_ARCH_PMU_V2)
{
	uint64_t absent = absent_counter_bits();
	/* GLOBAL_CTRL: only counter enables (and EN_PERF_METRICS, bit 48, with
	 * PERF_METRICS_AVAILABLE) are defined. */
	uint64_t ctrl_rsvd = absent | GENMASK_ULL(63, 49);

	if (!(caps()->perf_cap.valid && caps()->perf_cap.perf_metrics))
		ctrl_rsvd |= BIT_ULL(48);
	sweep_reserved(t, MSR_IA32_PERF_GLOBAL_CTRL, "IA32_PERF_GLOBAL_CTRL", ctrl_rsvd,
		       RULE_GLOBAL_CTRL_RSVD);
	/* OVF_CTRL: clear bits of counters that do not exist. */
	sweep_reserved(t, MSR_IA32_PERF_GLOBAL_OVF_CTRL, "IA32_PERF_GLOBAL_OVF_CTRL", absent,
		       RULE_GLOBAL_OVF_RSVD);
}

TEST(global, status_is_read_only, REQ_ARCH_PMU_V2)
{
	const uint64_t vals[] = {0, GLOBAL_PMC_BIT(0), GLOBAL_STATUS_COND_CHGD};

	for (unsigned k = 0; k < ARRAY_SIZE(vals); k++)
		expect_vector(t, wrmsr_safe(MSR_IA32_PERF_GLOBAL_STATUS, vals[k]), X86_VEC_GP,
			      RULE_GLOBAL_STATUS_RO, "WRMSR IA32_PERF_GLOBAL_STATUS <- %#llx",
			      (unsigned long long)vals[k]);
	expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & pmu_global_counter_bits(), 0,
		  RULE_GLOBAL_STATUS_RO, "GLOBAL_STATUS counter bits after the refused writes");
}

/* Overflow after OVF_K events of a counter counting the workload. */
#define OVF_K 16

static void preload(unsigned bit)
{
	if (bit < GLOBAL_FIXED_SHIFT)
		pmu_gp_preload(bit, OVF_K);
	else
		pmu_fixed_preload(bit - GLOBAL_FIXED_SHIFT, OVF_K);
}

TEST(global, overflow_sets_status_and_ovf_ctrl_clears, REQ_ARCH_PMU_V2)
{
	unsigned bits[64], n = counter_bits(bits, true);
	uint64_t all = pmu_global_counter_bits();
	enum arch_event ev;
	char name[32];

	if (!pick_event(t, &ev))
		return;
	for (unsigned k = 0; k < n; k++) {
		uint64_t bit = BIT_ULL(bits[k]), status;

		program_all(ev, false);
		preload(bits[k]);
		pmu_run_gated(pmu_gate_global(bit), PMU_ITERS);
		status = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
		counter_name(bits[k], name, sizeof(name));
		expect_eq(t, status & bit, bit, RULE_GLOBAL_STATUS_OVF,
			  "GLOBAL_STATUS bit %u after %s overflowed", bits[k], name);
		expect_eq(t, status & all & ~bit, 0, RULE_GLOBAL_STATUS_ONLY,
			  "other counters' GLOBAL_STATUS bits after %s overflowed", name);
		expect_no_fault(t, wrmsr_safe(MSR_IA32_PERF_GLOBAL_OVF_CTRL, bit),
				RULE_GLOBAL_OVF_CTRL, "WRMSR IA32_PERF_GLOBAL_OVF_CTRL <- %#llx",
				(unsigned long long)bit);
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & bit, 0, RULE_GLOBAL_OVF_CTRL,
			  "GLOBAL_STATUS bit %u after OVF_CTRL cleared it", bits[k]);
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
	unsigned bits[64], n = counter_bits(bits, false);
	char name[32];

	for (unsigned k = 0; k < n; k++) {
		uint64_t bit = BIT_ULL(bits[k]);

		counter_name(bits[k], name, sizeof(name));
		expect_no_fault(t, wrmsr_safe(MSR_IA32_PERF_GLOBAL_STATUS_SET, bit),
				RULE_STATUS_SET, "WRMSR IA32_PERF_GLOBAL_STATUS_SET <- %#llx (%s)",
				(unsigned long long)bit, name);
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & bit, bit, RULE_STATUS_SET,
			  "GLOBAL_STATUS bit %u after STATUS_SET", bits[k]);
		expect_no_fault(t, wrmsr_safe(MSR_IA32_PERF_GLOBAL_STATUS_RESET, bit),
				RULE_STATUS_RESET, "WRMSR IA32_PERF_GLOBAL_STATUS_RESET <- %#llx",
				(unsigned long long)bit);
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & bit, 0, RULE_STATUS_RESET,
			  "GLOBAL_STATUS bit %u after STATUS_RESET", bits[k]);
	}
}

TEST(global, inuse_tracks_programming, REQ_ARCH_PMU_V4)
{
	for (unsigned i = 0; i < 32; i++) {
		if (!pmu_gp_present(i))
			continue;
		/* event select 3CH, not enabled: in use all the same */
		wrmsr(MSR_IA32_PERFEVTSEL(i), pmu_evtsel(ARCH_EVENT_CORE_CYCLES, PERFEVTSEL_OS));
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_INUSE) & BIT_ULL(i), BIT_ULL(i),
			  RULE_INUSE_GP, "INUSE bit %u with IA32_PERFEVTSEL%u[7:0] = 3CH", i, i);
		wrmsr(MSR_IA32_PERFEVTSEL(i), 0);
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_INUSE) & BIT_ULL(i), 0, RULE_INUSE_GP,
			  "INUSE bit %u with IA32_PERFEVTSEL%u = 0", i, i);
	}
	for (unsigned i = 0; i < FIXED_MAX; i++) {
		if (!pmu_fixed_present(i))
			continue;
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_FIELD(i, FIXED_CTRL_OS));
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_INUSE) & GLOBAL_FIXED_BIT(i),
			  GLOBAL_FIXED_BIT(i), RULE_INUSE_FIXED,
			  "INUSE bit %u with fixed counter %u enabled (EN = 1)", 32 + i, i);
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
		expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_INUSE) & GLOBAL_FIXED_BIT(i), 0,
			  RULE_INUSE_FIXED, "INUSE bit %u with fixed counter %u disabled", 32 + i,
			  i);
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
static uint64_t gated_count(unsigned bit, uint64_t sel, uint64_t preload_k, bool preload)
{
	if (bit >= GLOBAL_FIXED_SHIFT) {
		unsigned f = bit - GLOBAL_FIXED_SHIFT;

		pmu_fixed_program(f, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
		if (preload)
			pmu_fixed_preload(f, preload_k);
		pmu_run_gated(pmu_gate_global(GLOBAL_FIXED_BIT(f)), PMU_ITERS);
		pmu_fixed_program(f, 0, pmu_fixed_read(f));
		return pmu_fixed_read(f);
	}
	if (!pmu_has_global()) {
		/* version 1: no status, gated by EN; the wrap itself is checked */
		pmu_gp_program(bit, sel, 0);
		if (preload)
			pmu_gp_preload(bit, preload_k);
		pmu_run_gated(pmu_gate_evtsel(bit, sel), PMU_ITERS);
		return pmu_gp_read(bit);
	}
	pmu_gp_program(bit, sel | PERFEVTSEL_EN, 0);
	if (preload)
		pmu_gp_preload(bit, preload_k);
	pmu_run_gated(pmu_gate_global(GLOBAL_PMC_BIT(bit)), PMU_ITERS);
	wrmsr(MSR_IA32_PERFEVTSEL(bit), sel);
	return pmu_gp_read(bit);
}

TEST(global, overflow_exactly_at_wrap, REQ_ARCH_PMU)
{
	enum arch_event ev;
	uint64_t per_iter, sel;
	unsigned bits[64], n = 0;
	char name[32];

	if (!pmu_exact_event(&ev, &per_iter)) {
		t_skip(t,
		       "CPUID.0AH:EBX[1] and EBX[5]: neither instructions nor branches available");
		return;
	}
	sel = pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR);
	for (unsigned i = 0; i < 32; i++)
		if (pmu_gp_present(i))
			bits[n++] = i;
	if (pmu_fixed_present(FIXED_INSTRUCTIONS))
		bits[n++] = GLOBAL_FIXED_SHIFT + FIXED_INSTRUCTIONS;
	for (unsigned k = 0; k < n; k++) {
		uint64_t bit = BIT_ULL(bits[k]);
		uint64_t mask = bits[k] >= GLOBAL_FIXED_SHIFT ? pmu_fixed_mask() : pmu_gp_mask();
		uint64_t c = gated_count(bits[k], sel, 0, false);

		counter_name(bits[k], name, sizeof(name));
		for (int hit = 0; hit < 2; hit++) {
			uint64_t k_pre = hit ? c : c + 1, v;

			if (pmu_has_global())
				wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, bit);
			v = gated_count(bits[k], sel, k_pre, true);
			expect_eq(t, v, hit ? 0 : mask, RULE_OVF_AT_WRAP,
				  "%s preloaded with -%llu, then %llu events", name,
				  (unsigned long long)k_pre, (unsigned long long)c);
			if (pmu_has_global())
				expect_eq(t, rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & bit,
					  hit ? bit : 0, RULE_OVF_AT_WRAP,
					  "GLOBAL_STATUS bit %u when %s %s", bits[k], name,
					  hit ? "wrapped to 0" : "stopped at all ones");
		}
		if (pmu_has_global())
			wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, bit);
	}
}
