/* SPDX-License-Identifier: MIT */
/*
 * AMD core counters (AMD64 APM Vol. 2 13.2): legacy PerfEvtSel0-3 /
 * PerfCtr0-3 at C001_0000H / C001_0004H; with PerfCtrExtCore
 * (CPUID.80000001H:ECX[23]) six pairs at C001_0200H + 2n, the legacy
 * addresses aliasing the first four; with PerfMonV2 (CPUID.80000022H:EAX[0])
 * PerfCntrGlobalCtl / Status / StatusClr / StatusSet. Counters are 48 bits.
 * Events (the APM defines none; numbers from the PPRs of Families 17h-1Ah,
 * as Linux perf's pmu-events amdzen1..5 tables carry them):
 *   PMCx0C0 Retired Instructions (ExRetInstr): exact for the workload;
 *   PMCx0C2 Retired Branch Instructions (ExRetBrn): every retired branch,
 *           and exceptions and interrupts (none happen in the window): exact;
 *   PMCx076 Cycles not in Halt (LsNotHaltedCyc): bounded as Intel's core
 *           cycles are (suites/counting.c);
 *   PMCx0C3 Retired Branch Instructions Mispredicted (ExRetBrnMisp): lower
 *           bound on the branch-miss workload, as Intel's C5H.
 * The PerfEvtSel fields (Edge, INT, En, Inv, CntMask, EventSelect[11:8],
 * HG_ONLY) are the APM's (Vol. 2 13.2.1, Figure 13-7).
 */
#include "cmask_partition.h"
#include "fw_state.h"
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

#define AMD_EVT_CYCLES		 0x76
#define AMD_EVT_RETIRED_INSNS	 0xC0
#define AMD_EVT_RETIRED_BRANCHES 0xC2
#define AMD_EVT_BRANCH_MISSES	 0xC3
/* PerfEvtSel fields beyond Intel's layout (APM Vol. 2 Figure 13-7). */
#define AMD_SEL_EVENT_HI GENMASK_ULL(35, 32) /* EventSelect[11:8] */
#define AMD_SEL_HG_ONLY	 GENMASK_ULL(41, 40) /* GuestOnly 40, HostOnly 41 */
/* PerfEvtSel bits (APM Vol. 2 Figure 13-7): as Intel's for USR/OS/INT/EN. */
#define AMD_SEL_EV(ev, flags) ((ev) | PERFEVTSEL_USR | PERFEVTSEL_OS | (flags))
#define AMD_SEL(flags)	      AMD_SEL_EV(AMD_EVT_RETIRED_INSNS, flags)

/* Cycle bounds, argued as in kernel/pmu.h (PMU_MAX_IPC): no AMD core retires more
 * than 16 instructions per cycle (Zen 4/5 retire at most 8 macro-ops); a
 * 10-instruction register-only iteration takes far less than 1000 cycles
 * and the gate far less than 10^6. */
#define AMD_MAX_IPC		16ULL
#define AMD_CYCLES_PER_ITER_MAX 1000ULL
#define AMD_CYCLES_OVERHEAD	1000000ULL
#define AMD_CYCLES_HI(n)	((n)*AMD_CYCLES_PER_ITER_MAX + AMD_CYCLES_OVERHEAD)
/* Branch misses: at least 1 in 8 of the pseudo-random branches (include/
 * arch.h, arch_workload_branch_miss; the Intel check uses the same bound). */
#define AMD_BRMISS_MIN_DIVISOR 8
/* Events before an overflow in the PMI checks. */
#define AMD_PMI_K 64

static bool ext(void)
{
	return caps()->amd.perfctr_core || caps()->amd.perfmon_v2;
}

static unsigned n_ctrs(void)
{
	return caps()->amd.core_counters ? caps()->amd.core_counters : 4;
}

static uint32_t sel_msr(unsigned i)
{
	return ext() ? MSR_F15H_PERF_CTL0 + 2 * i : MSR_K7_EVNTSEL0 + i;
}

static uint32_t ctr_msr(unsigned i)
{
	return ext() ? MSR_F15H_PERF_CTR0 + 2 * i : MSR_K7_PERFCTR0 + i;
}

static uint64_t ctr_mask(void)
{
	return width_mask(AMD_COUNTER_WIDTH);
}

/* PerfMonV2: PerfCntrGlobalCtl <- bits (no such gate without it). */
static void global_ctl(uint64_t bits)
{
	if (caps()->amd.perfmon_v2)
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, bits);
}

static void status_clear(uint64_t bits)
{
	if (caps()->amd.perfmon_v2)
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, bits);
}

/*
 * Run counter i from `preset` with PerfEvtSel `sel` (without En) over
 * `iters` workload iterations, gated by En (and its PerfCntrGlobalCtl bit on
 * v2), with interrupts enabled around the loop when `irq`. Returns the
 * counter; the event select is left as `sel`.
 */
static uint64_t run_counter(unsigned i, uint64_t sel, uint64_t preset, uint64_t iters, bool irq)
{
	wrmsr(sel_msr(i), 0);
	wrmsr(ctr_msr(i), preset & ctr_mask());
	global_ctl(BIT_ULL(i));
	if (irq)
		arch_irq_enable();
	arch_workload_gated(iters, sel_msr(i), sel | PERFEVTSEL_EN, sel);
	if (irq)
		arch_irq_disable();
	global_ctl(0);
	return rdmsr(ctr_msr(i));
}

/* Count event `ev` over `iters` on counter i, gated by En (and
 * PerfCntrGlobalCtl on v2). */
static uint64_t count_event(unsigned i, unsigned ev, uint64_t iters)
{
	return run_counter(i, AMD_SEL_EV(ev, 0), 0, iters, false);
}

/*
 * An event the workload retires an exact number of times per iteration:
 * within [N * per_iter, N * per_iter + overhead] over N iterations, and
 * count(2N) - count(N) = N * per_iter exactly (the overhead cancels).
 */
static void check_exact_event(struct t *t, unsigned ev, uint64_t per_iter, const char *rule)
{
	for (unsigned i = 0; i < n_ctrs(); i++) {
		if (!t_amd_counter_counts(t, i))
			continue;
		uint64_t c1 = count_event(i, ev, PMU_ITERS);
		uint64_t c2 = count_event(i, ev, 2 * PMU_ITERS);

		expect_range(t, c1, PMU_ITERS * per_iter,
			     PMU_ITERS * per_iter + PMU_OVERHEAD_EVENTS, rule,
			     "PerfCtr%u event %02XH over N iterations", i, ev);
		expect_eq(t, c2 - c1, PMU_ITERS * per_iter, rule,
			  "PerfCtr%u event %02XH: count(2N) - count(N)", i, ev);
	}
}

TEST(amd, retired_instructions_every_counter, REQ_AMD)
{
	check_exact_event(t, AMD_EVT_RETIRED_INSNS, WORKLOAD_INSNS_PER_ITER, RULE_AMD_COUNT);
}

TEST(amd, retired_branches_every_counter, REQ_AMD)
{
	check_exact_event(t, AMD_EVT_RETIRED_BRANCHES, WORKLOAD_BRANCHES_PER_ITER,
			  RULE_AMD_BRANCHES);
}

TEST(amd, core_cycles_every_counter, REQ_AMD)
{
	for (unsigned i = 0; i < n_ctrs(); i++) {
		if (!t_amd_counter_counts(t, i))
			continue;
		uint64_t c1 = count_event(i, AMD_EVT_CYCLES, PMU_ITERS);
		uint64_t c2 = count_event(i, AMD_EVT_CYCLES, 2 * PMU_ITERS);

		t_subject_event(t, AMD_EVT_CYCLES, i);
		expect_range(t, c1, PMU_ITERS * WORKLOAD_INSNS_PER_ITER / AMD_MAX_IPC,
			     PMU_ITERS * AMD_CYCLES_PER_ITER_MAX + AMD_CYCLES_OVERHEAD,
			     RULE_AMD_CYCLES,
			     "PerfCtr%u cycles not in halt (76H) over N iterations", i);
		/* N more iterations retire 10N more instructions: >= 10N / 16
		 * more cycles, whatever the frequency did meanwhile. */
		t_subject_event(t, AMD_EVT_CYCLES, i);
		expect_range(
		    t, c2 > c1 ? c2 - c1 : 0, PMU_ITERS * WORKLOAD_INSNS_PER_ITER / AMD_MAX_IPC,
		    PMU_ITERS * AMD_CYCLES_PER_ITER_MAX + AMD_CYCLES_OVERHEAD, RULE_AMD_CYCLES,
		    "PerfCtr%u cycles not in halt: count(2N) - count(N)", i);
	}
}

TEST(amd, counters_48_bits_and_rdpmc, REQ_AMD)
{
	const uint64_t mask = width_mask(AMD_COUNTER_WIDTH);
	/* 16: past the L3 counters (ECX 10..15); 64: the index other suites
	 * probe (kvm-unit-tests RDPMC(64)) */
	const uint32_t bad[] = {16, 64, 0x100, 0xFFFF};

	for (unsigned i = 0; i < n_ctrs(); i++) {
		uint64_t rax, rdx;

		wrmsr(sel_msr(i), 0);
		if (!expect_no_fault(t, wrmsr_safe(ctr_msr(i), mask), RULE_AMD_WIDTH,
				     "WRMSR PerfCtr%u <- 48 ones", i))
			continue;
		/* A counter shown to hold no value fails here on that finding. */
		bool holds = t_amd_counter_holds(t, i);
		if (holds)
			expect_eq(t, rdmsr(ctr_msr(i)), mask, RULE_AMD_WIDTH, "PerfCtr%u read back",
				  i);
		if (expect_vector(t, rdpmc_safe(i, &rax, &rdx), 0, RULE_AMD_RDPMC, "RDPMC ECX=%u",
				  i) &&
		    holds)
			expect_eq(t, rdpmc_edx_eax(rax, rdx), mask, RULE_AMD_RDPMC,
				  "RDPMC %u vs the 48-bit value written", i);
		wrmsr(ctr_msr(i), 0);
	}
	for (unsigned k = 0; k < ARRAY_SIZE(bad); k++) {
		uint64_t rax, rdx;

		expect_vector(t, rdpmc_safe(bad[k], &rax, &rdx), X86_VEC_GP, RULE_AMD_RDPMC,
			      "RDPMC ECX=%#x", bad[k]);
	}
	if (!ext()) {
		uint64_t rax, rdx;

		expect_vector(t, rdpmc_safe(4, &rax, &rdx), X86_VEC_GP, RULE_AMD_RDPMC,
			      "RDPMC ECX=4 with 4 legacy counters only");
	}
}

TEST(amd, legacy_msrs_alias_extended, REQ_AMD_PERFCTR_CORE)
{
	for (unsigned i = 0; i < 4; i++) {
		if (!t_amd_counter_holds(t, i))
			continue;
		wrmsr(MSR_K7_PERFCTR0 + i, 0x1000 + i);
		expect_eq(t, rdmsr(MSR_F15H_PERF_CTR0 + 2 * i), 0x1000 + i, RULE_AMD_LEGACY_ALIAS,
			  "PerfCtr%u at C001_%04XH after writing C001_%04XH", i,
			  (unsigned)(MSR_F15H_PERF_CTR0 + 2 * i) & 0xFFFF,
			  (unsigned)(MSR_K7_PERFCTR0 + i) & 0xFFFF);
		wrmsr(MSR_F15H_PERF_CTL0 + 2 * i, AMD_SEL(0));
		expect_eq(t, rdmsr(MSR_K7_EVNTSEL0 + i), AMD_SEL(0), RULE_AMD_LEGACY_ALIAS,
			  "PerfEvtSel%u at the legacy address after writing the extended one", i);
		wrmsr(MSR_F15H_PERF_CTL0 + 2 * i, 0);
		wrmsr(MSR_K7_PERFCTR0 + i, 0);
	}
}

TEST(amd, extended_msrs_absent_without_perfctr_core, REQ_AMD)
{
	uint64_t v;

	if (ext())
		t_skip_return(t, "CPUID.80000001H:ECX[23] (PerfCtrExtCore) = 1");
	expect_vector(t, rdmsr_safe(MSR_F15H_PERF_CTL0, &v), X86_VEC_GP, RULE_AMD_LEGACY_ALIAS,
		      "RDMSR C001_0200H without PerfCtrExtCore");
	expect_vector(t, wrmsr_safe(MSR_F15H_PERF_CTR0, 0), X86_VEC_GP, RULE_AMD_LEGACY_ALIAS,
		      "WRMSR C001_0201H without PerfCtrExtCore");
}

TEST(amd, perfmon_v2_global_ctl_and_status, REQ_AMD_PERFMON_V2)
{
	const uint64_t mask = width_mask(AMD_COUNTER_WIDTH);

	for (unsigned i = 0; i < n_ctrs(); i++) {
		uint64_t st;

		/* "counts nothing while gated off" says nothing of a counter that
		 * never counts. */
		if (!t_amd_counter_counts(t, i))
			continue;

		/* enabled locally, GlobalCtl bit clear: nothing */
		wrmsr(sel_msr(i), AMD_SEL(0));
		wrmsr(ctr_msr(i), 0);
		arch_workload_gated(PMU_ITERS, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0, 0);
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
		wrmsr(sel_msr(i), AMD_SEL(PERFEVTSEL_EN));
		arch_workload_gated(PMU_ITERS, MSR_AMD64_PERF_CNTR_GLOBAL_CTL,
				    ~BIT_ULL(i) & GENMASK_ULL(n_ctrs() - 1, 0), 0);
		expect_eq(t, rdmsr(ctr_msr(i)), 0, RULE_AMD_GLOBAL,
			  "PerfCtr%u with En = 1 and PerfCntrGlobalCtl bit %u clear", i, i);
		/* overflow sets the status bit; StatusClr clears; StatusSet sets */
		wrmsr(ctr_msr(i), mask - 15);
		arch_workload_gated(PMU_ITERS, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, BIT_ULL(i), 0);
		wrmsr(sel_msr(i), 0);
		st = rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS);
		expect_eq(t, st & BIT_ULL(i), BIT_ULL(i), RULE_AMD_GLOBAL,
			  "PerfCntrGlobalStatus bit %u after PerfCtr%u overflowed", i, i);
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, BIT_ULL(i));
		expect_eq(t, rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) & BIT_ULL(i), 0,
			  RULE_AMD_GLOBAL, "PerfCntrGlobalStatus bit %u after StatusClr", i);
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_SET, BIT_ULL(i));
		expect_eq(t, rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) & BIT_ULL(i), BIT_ULL(i),
			  RULE_AMD_GLOBAL, "PerfCntrGlobalStatus bit %u after StatusSet", i);
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, BIT_ULL(i));
		wrmsr(ctr_msr(i), 0);
	}
}

/* The AMD APIC leaves the LVT entry as software wrote it: the Intel rule
 * (SDM Vol.3A 11.5.1, mask set on PMI delivery) is not the APM's. */
TEST(amd, pmi_leaves_lvt_unmasked, REQ_AMD | REQ_APIC)
{
	if (!t_amd_counter_counts(t, 0))
		return;
	pmu_pmi_install(true, 0, false);
	wrmsr(sel_msr(0), 0);
	wrmsr(ctr_msr(0), width_mask(AMD_COUNTER_WIDTH) - 63);
	if (caps()->amd.perfmon_v2)
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, BIT_ULL(0));
	arch_irq_enable();
	arch_workload_gated(PMU_ITERS, sel_msr(0), AMD_SEL(PERFEVTSEL_EN | PERFEVTSEL_INT),
			    AMD_SEL(PERFEVTSEL_INT));
	arch_irq_disable();
	wrmsr(sel_msr(0), 0);
	expect_eq(t, g_pmi.count, 1, RULE_PMI_DELIVER, "PMIs for the PerfCtr0 overflow");
	t_subject(t, SUBJECT_APIC, SUBJECT_APIC_LVT_PMI, 0);
	if (g_pmi.count)
		expect_eq(t, g_pmi.lvt & APIC_LVT_MASKED, 0, RULE_AMD_PMI_LVT_UNMASKED,
			  "LVT PMI mask bit read in the handler");
	pmu_pmi_uninstall();
}

/* ---- Parity with the Intel side --------------------------------- */

/* A seed no earlier run of this boot used (include/arch.h: predictors
 * memorize repeated sequences). */
static uint64_t fresh_seed(void)
{
	static uint64_t runs;

	return arch_rdtsc() ^ (++runs * 0x9E3779B97F4A7C15ULL);
}

TEST(amd, branch_misses_lower_bound, REQ_AMD)
{
	const uint64_t sel = AMD_SEL_EV(AMD_EVT_BRANCH_MISSES, 0);

	for (unsigned i = 0; i < n_ctrs(); i++) {
		if (!t_amd_counter_counts(t, i))
			continue;
		uint64_t seed = fresh_seed();

		wrmsr(sel_msr(i), 0);
		wrmsr(ctr_msr(i), 0);
		global_ctl(BIT_ULL(i));
		wrmsr(sel_msr(i), sel | PERFEVTSEL_EN);
		arch_workload_branch_miss(PMU_ITERS, seed);
		wrmsr(sel_msr(i), sel);
		global_ctl(0);
		/* The seed reproduces a sequence whose misses were counted; a
		 * counter that counted nothing owes nothing to it, and without it
		 * that failure reads the same on every CPU (the compact report,
		 * the compact report then says it once). */
		uint64_t misses = rdmsr(ctr_msr(i));
		char seed_text[32] = "";
		if (misses)
			ksnprintf(seed_text, sizeof(seed_text), " (seed %#llx)",
				  (unsigned long long)seed);
		expect_range(t, misses, PMU_ITERS / AMD_BRMISS_MIN_DIVISOR,
			     PMU_ITERS * WORKLOAD_BRMISS_BRANCHES_PER_ITER + PMU_OVERHEAD_EVENTS,
			     RULE_AMD_BR_MISS,
			     "PerfCtr%u counting C3H over %llu branches on pseudo-random bits%s", i,
			     (unsigned long long)PMU_ITERS, seed_text);
	}
}

/*
 * As global.overflow_exactly_at_wrap: C = the exact count of a gated run of
 * retired instructions (a calibration of the run's length); preset -(C + 1)
 * ends at all ones without overflow, -C ends at 0 with it. Every counter;
 * with PerfMonV2 the status bit must follow.
 */
TEST(amd, overflow_exactly_at_wrap, REQ_AMD)
{
	const uint64_t sel = AMD_SEL(0);
	const bool v2 = caps()->amd.perfmon_v2;

	for (unsigned i = 0; i < n_ctrs(); i++) {
		if (!t_amd_counter_counts(t, i))
			continue;
		uint64_t c = run_counter(i, sel, 0, PMU_ITERS, false);

		for (int hit = 0; hit < 2; hit++) {
			uint64_t k = hit ? c : c + 1;
			uint64_t v;

			status_clear(BIT_ULL(i));
			v = run_counter(i, sel, (0 - k) & ctr_mask(), PMU_ITERS, false);
			expect_eq(t, v, hit ? 0 : ctr_mask(), RULE_AMD_OVF_AT_WRAP,
				  "PerfCtr%u preset to -%llu, then %llu events", i,
				  (unsigned long long)k, (unsigned long long)c);
			if (v2)
				expect_eq(t, rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) & BIT_ULL(i),
					  hit ? BIT_ULL(i) : 0, RULE_AMD_OVF_AT_WRAP,
					  "PerfCntrGlobalStatus bit %u when PerfCtr%u %s", i, i,
					  hit ? "wrapped to 0" : "stopped at all ones");
		}
		status_clear(BIT_ULL(i));
		wrmsr(sel_msr(i), 0);
		wrmsr(ctr_msr(i), 0);
	}
}

TEST(amd, pmi_iff_int_every_counter, REQ_AMD | REQ_APIC)
{
	for (unsigned i = 0; i < n_ctrs(); i++) {
		if (!t_amd_counter_counts(t, i))
			continue;
		for (int with_int = 1; with_int >= 0; with_int--) {
			pmu_pmi_install(true, 0, false);
			status_clear(BIT_ULL(i));
			run_counter(i, AMD_SEL(with_int ? PERFEVTSEL_INT : 0), 0 - AMD_PMI_K,
				    PMU_ITERS, true);
			wrmsr(sel_msr(i), 0);
			expect_eq(t, g_pmi.count, (unsigned)with_int, RULE_AMD_PMI_INT,
				  "PMIs for the PerfCtr%u overflow with INT = %d", i, with_int);
			if (caps()->amd.perfmon_v2)
				expect_eq(
				    t, rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) & BIT_ULL(i),
				    BIT_ULL(i), RULE_AMD_OVF_AT_WRAP,
				    "PerfCntrGlobalStatus bit %u after the overflow (INT = %d)", i,
				    with_int);
			status_clear(BIT_ULL(i));
			wrmsr(ctr_msr(i), 0);
		}
	}
	pmu_pmi_uninstall();
}

/* Several counters with their own selects, started and stopped together:
 * by PerfCntrGlobalCtl on v2; otherwise all but the last are enabled first
 * and the last's En is the gate (the others then count a constant extra). */
static void run_together(unsigned n, const uint64_t *sel, uint64_t iters)
{
	for (unsigned i = 0; i < n; i++) {
		wrmsr(sel_msr(i), 0);
		wrmsr(ctr_msr(i), 0);
	}
	global_ctl(0);
	for (unsigned i = 0; i + 1 < n; i++)
		wrmsr(sel_msr(i), sel[i] | PERFEVTSEL_EN);
	if (caps()->amd.perfmon_v2) {
		wrmsr(sel_msr(n - 1), sel[n - 1] | PERFEVTSEL_EN);
		arch_workload_gated(iters, MSR_AMD64_PERF_CNTR_GLOBAL_CTL, GENMASK_ULL(n - 1, 0),
				    0);
	} else {
		arch_workload_gated(iters, sel_msr(n - 1), sel[n - 1] | PERFEVTSEL_EN, sel[n - 1]);
	}
	for (unsigned i = 0; i < n; i++)
		wrmsr(sel_msr(i), sel[i]);
}

TEST(amd, edge_inv_cmask, REQ_AMD)
{
	const uint64_t ins = AMD_SEL(0);
	const uint64_t lo = PMU_ITERS * WORKLOAD_INSNS_PER_ITER / AMD_MAX_IPC;
	static const struct cmask_partition_words words = {
	    .rule_cmask = RULE_AMD_CNTMASK,
	    .rule_inv = RULE_AMD_INV,
	    .rule_edge = RULE_AMD_EDGE,
	    .cmask_one = "clocks retiring >= 1 instruction (CntMask = 1)",
	    .sum = "CntMask=1 + Inv CntMask=1 == clocks (+-1/64)",
	    .cycles = "cycles not in halt",
	    .edge_one = "Edge CntMask = 1 (transitions into retiring), Inv CntMask = 1",
	};
	uint64_t sel[CMASK_COUNTERS], v[CMASK_COUNTERS];

	/* Even "counts 0" needs a counter that counts. */
	if (!t_amd_counter_counts(t, 0))
		return;
	/* CntMask = 255: no core retires 255 instructions in one clock. */
	expect_eq(t,
		  run_counter(0, ins | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255), 0, PMU_ITERS, false),
		  0, RULE_AMD_CNTMASK, "C0H with CntMask = 255 (clocks retiring >= 255)");
	/* Inv + CntMask = 255: every clock. */
	expect_range(t,
		     run_counter(0, ins | PERFEVTSEL_INV | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255), 0,
				 PMU_ITERS, false),
		     lo, AMD_CYCLES_HI(PMU_ITERS), RULE_AMD_INV,
		     "C0H with Inv, CntMask = 255 (every clock)");
	/* Edge on an always-true condition: at most one rising edge; on a
	 * never-true one: none. */
	expect_range(t,
		     run_counter(0,
				 ins | PERFEVTSEL_EDGE | PERFEVTSEL_INV |
				     FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255),
				 0, PMU_ITERS, false),
		     0, 1, RULE_AMD_EDGE,
		     "Edge Inv CntMask = 255: rising edges of an always-true "
		     "condition");
	expect_eq(t,
		  run_counter(0, ins | PERFEVTSEL_EDGE | FIELD_PREP_ULL(PERFEVTSEL_CMASK, 255), 0,
			      PMU_ITERS, false),
		  0, RULE_AMD_EDGE, "Edge CntMask = 255: rising edges of a never-true condition");
	if (n_ctrs() < 4 || !caps()->amd.perfmon_v2) {
		/* Without PerfCntrGlobalCtl two counters cannot start in one
		 * clock, and cycle counts differ between runs. */
		t_diag(t, "simultaneous Inv / Edge partition needs PerfMonV2 and 4 counters");
		return;
	}
	bool all_count = true;
	for (unsigned k = 1; k < CMASK_COUNTERS; k++)
		all_count &= t_amd_counter_counts(t, k);
	if (!all_count)
		return;
	/* Clocks: CntMask = 1 and Inv CntMask = 1 split them; Edge CntMask = 1
	 * counts the transitions into retiring, at most one per clock of the
	 * other state plus one. */
	cmask_partition_selects(AMD_SEL_EV(AMD_EVT_CYCLES, 0), ins, sel);
	run_together(CMASK_COUNTERS, sel, PMU_ITERS);
	for (unsigned k = 0; k < CMASK_COUNTERS; k++)
		v[k] = rdmsr(ctr_msr(k));
	expect_cmask_partition(t, v, lo, &words);
}

/* Counter i counting retired instructions: written with `value` while it
 * runs, then `n` iterations; returns the count. */
static uint64_t rewrite_running(unsigned i, uint64_t value, uint64_t n)
{
	wrmsr(sel_msr(i), 0);
	wrmsr(ctr_msr(i), 0);
	global_ctl(BIT_ULL(i));
	wrmsr(sel_msr(i), AMD_SEL(PERFEVTSEL_EN));
	arch_workload(100); /* it is running: count something first */
	wrmsr(ctr_msr(i), value);
	arch_workload(n);
	wrmsr(sel_msr(i), AMD_SEL(0));
	global_ctl(0);
	return rdmsr(ctr_msr(i));
}

TEST(amd, running_counter_rewritten, REQ_AMD)
{
	const uint64_t value = 0x123400000000ULL;
	const uint64_t n_insns = PMU_ITERS * WORKLOAD_INSNS_PER_ITER;

	for (unsigned i = 0; i < n_ctrs(); i++) {
		if (!t_amd_counter_counts(t, i))
			continue;
		uint64_t c1 = rewrite_running(i, value, PMU_ITERS);
		uint64_t c2 = rewrite_running(i, value, 2 * PMU_ITERS);
		uint64_t v;

		expect_range(t, c1, value + n_insns, value + n_insns + PMU_OVERHEAD_EVENTS,
			     RULE_AMD_COUNTER_WRITE,
			     "PerfCtr%u rewritten to %#llx while counting, then N iterations", i,
			     (unsigned long long)value);
		expect_eq(t, c2 - c1, n_insns, RULE_AMD_COUNTER_WRITE,
			  "PerfCtr%u rewritten while counting: count(2N) - count(N)", i);
		/* All ones while running: the next event wraps it. */
		status_clear(BIT_ULL(i));
		v = rewrite_running(i, ctr_mask(), PMU_ITERS);
		expect_range(
		    t, v, n_insns - 1, n_insns + PMU_OVERHEAD_EVENTS, RULE_AMD_COUNTER_WRITE,
		    "PerfCtr%u rewritten to all ones while counting, then N iterations", i);
		if (caps()->amd.perfmon_v2)
			expect_eq(
			    t, rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS) & BIT_ULL(i), BIT_ULL(i),
			    RULE_AMD_COUNTER_WRITE,
			    "PerfCntrGlobalStatus bit %u after PerfCtr%u wrapped from all ones", i,
			    i);
		status_clear(BIT_ULL(i));
		wrmsr(sel_msr(i), 0);
		wrmsr(ctr_msr(i), 0);
	}
}

/* The event each counter takes in all_counters_different_events: each is
 * checked against its own bound (exact per iteration, or cycles). */
static const struct {
	unsigned ev;
	uint64_t per_iter; /* 0: cycles, bounded */
	const char *name;
} mix[] = {
    {AMD_EVT_RETIRED_INSNS, WORKLOAD_INSNS_PER_ITER, "retired instructions"},
    {AMD_EVT_RETIRED_BRANCHES, WORKLOAD_BRANCHES_PER_ITER, "retired branches"},
    {AMD_EVT_CYCLES, 0, "cycles not in halt"},
};

TEST(amd, all_counters_different_events, REQ_AMD)
{
	const unsigned n = n_ctrs();
	uint64_t sel[AMD_CORE_COUNTERS_MAX], c1[AMD_CORE_COUNTERS_MAX], c2[AMD_CORE_COUNTERS_MAX];
	bool counts[AMD_CORE_COUNTERS_MAX], any = false;

	/* The counters shown not to count fail here; the others run together. */
	for (unsigned i = 0; i < n; i++)
		any |= counts[i] = t_amd_counter_counts(t, i);
	if (!any)
		return;
	for (unsigned i = 0; i < n; i++)
		sel[i] = AMD_SEL_EV(mix[i % ARRAY_SIZE(mix)].ev, 0);
	run_together(n, sel, PMU_ITERS);
	for (unsigned i = 0; i < n; i++)
		c1[i] = rdmsr(ctr_msr(i));
	run_together(n, sel, 2 * PMU_ITERS);
	for (unsigned i = 0; i < n; i++)
		c2[i] = rdmsr(ctr_msr(i));
	for (unsigned i = 0; i < n; i++) {
		uint64_t per = mix[i % ARRAY_SIZE(mix)].per_iter;
		const char *name = mix[i % ARRAY_SIZE(mix)].name;

		if (!counts[i])
			continue;
		t_subject_event(t, mix[i % ARRAY_SIZE(mix)].ev, i);
		if (!per) {
			expect_range(t, c1[i], PMU_ITERS * WORKLOAD_INSNS_PER_ITER / AMD_MAX_IPC,
				     AMD_CYCLES_HI(PMU_ITERS), RULE_AMD_ALL_COUNTERS,
				     "PerfCtr%u (%s) with all counters enabled, N iterations", i,
				     name);
			continue;
		}
		expect_range(t, c1[i], PMU_ITERS * per, PMU_ITERS * per + PMU_OVERHEAD_EVENTS,
			     RULE_AMD_ALL_COUNTERS,
			     "PerfCtr%u (%s) with all counters enabled, N iterations", i, name);
		t_subject_event(t, mix[i % ARRAY_SIZE(mix)].ev, i);
		expect_eq(t, c2[i] - c1[i], PMU_ITERS * per, RULE_AMD_ALL_COUNTERS,
			  "PerfCtr%u (%s) with all counters enabled: count(2N) - count(N)", i,
			  name);
	}
	for (unsigned i = 0; i < n; i++) {
		wrmsr(sel_msr(i), 0);
		wrmsr(ctr_msr(i), 0);
	}
}

/* Counting through C001_0000H / C001_0004H on a part whose counters live at
 * C001_0200H: the legacy addresses are the same registers, so they count
 * (read back through both addresses). */
TEST(amd, legacy_msrs_count_on_ext_parts, REQ_AMD_PERFCTR_CORE)
{
	for (unsigned i = 0; i < 4; i++) {
		uint64_t c[2];

		if (!t_amd_counter_counts(t, i))
			continue;

		for (int pass = 0; pass < 2; pass++) {
			wrmsr(MSR_K7_EVNTSEL0 + i, 0);
			wrmsr(MSR_K7_PERFCTR0 + i, 0);
			global_ctl(BIT_ULL(i));
			arch_workload_gated(pass ? 2 * PMU_ITERS : PMU_ITERS, MSR_K7_EVNTSEL0 + i,
					    AMD_SEL(PERFEVTSEL_EN), AMD_SEL(0));
			global_ctl(0);
			c[pass] = rdmsr(MSR_K7_PERFCTR0 + i);
		}
		expect_eq(
		    t, c[1] - c[0], PMU_ITERS * WORKLOAD_INSNS_PER_ITER, RULE_AMD_LEGACY_COUNT,
		    "legacy PerfCtr%u (C001_%04XH) programmed through C001_%04XH: count(2N) - "
		    "count(N)",
		    i, (unsigned)(MSR_K7_PERFCTR0 + i) & 0xFFFF,
		    (unsigned)(MSR_K7_EVNTSEL0 + i) & 0xFFFF);
		expect_eq(t, rdmsr(MSR_F15H_PERF_CTR0 + 2 * i), c[1], RULE_AMD_LEGACY_COUNT,
			  "PerfCtr%u at C001_%04XH vs the legacy address", i,
			  (unsigned)(MSR_F15H_PERF_CTR0 + 2 * i) & 0xFFFF);
		wrmsr(MSR_K7_EVNTSEL0 + i, 0);
		wrmsr(MSR_K7_PERFCTR0 + i, 0);
	}
}

TEST(amd, event_select_high_and_hg_only, REQ_AMD)
{
	const uint64_t high = AMD_SEL_EVENT_HI | AMD_SEL_HG_ONLY;

	for (unsigned i = 0; i < n_ctrs(); i++) {
		uint64_t sel = AMD_SEL(0) | high, c1, c2;

		t_subject_msr(t, sel_msr(i));
		if (expect_no_fault(t, wrmsr_safe(sel_msr(i), sel), RULE_AMD_SEL_HIGH,
				    "WRMSR PerfEvtSel%u <- %#llx (EventSelect[11:8] = FH, "
				    "HG_ONLY = 11B)",
				    i, (unsigned long long)sel)) {
			uint64_t back = rdmsr(sel_msr(i));
			/* The outcome: the bits the write dropped (or added). */
			t_subject_msr(t, sel_msr(i));
			t_outcome_bits(t, back ^ sel);
			expect_eq(t, back, sel, RULE_AMD_SEL_HIGH, "PerfEvtSel%u read back", i);
		}
		wrmsr(sel_msr(i), 0);
		if (!t_amd_counter_counts(t, i))
			continue;
		/* HG_ONLY = 11B counts like 00B: retired instructions, exact. */
		c1 = run_counter(i, AMD_SEL(AMD_SEL_HG_ONLY), 0, PMU_ITERS, false);
		c2 = run_counter(i, AMD_SEL(AMD_SEL_HG_ONLY), 0, 2 * PMU_ITERS, false);
		expect_eq(t, c2 - c1, PMU_ITERS * WORKLOAD_INSNS_PER_ITER, RULE_AMD_HG_BOTH,
			  "PerfCtr%u counting C0H with HostOnly = GuestOnly = 1: count(2N) - "
			  "count(N)",
			  i);
		wrmsr(sel_msr(i), 0);
	}
}

/* EFER.SVME (APM Vol. 2 15.4: EFER bit 12) and the SVM feature
 * (CPUID.80000001H:ECX[2]); with VM_CR.SVMDIS set, setting SVME raises #GP. */
#define EFER_SVME	 BIT_ULL(12)
#define CPUID_E1_ECX_SVM BIT_ULL(2)

/*
 * HostOnly / GuestOnly (PerfEvtSel bits 41:40) in the four combinations,
 * with EFER.SVME clear and then set, as KVM's selftest svm_pmu_host_guest_test
 * steps 1, 2 and 5 do (its steps 3-4 need a nested guest: not here). pmutest
 * runs as the host (or as L1 of a hypervisor offering SVM): with SVME set it
 * is in host mode, so GuestOnly alone must count nothing. Bare metal and a
 * guest with SVM run the same code.
 */
/*
 * The AMD twin of cpuid.global_ctrl_reset_value: PerfCntrGlobalCtl as it was
 * handed over (kernel/fw_state.c, read before any test), judged exactly
 * where nothing ran before pmutest; where a firmware ran it may be what the
 * firmware wrote, so only reserved bits are judged and the test skips.
 */
TEST(amd, perfmon_v2_global_ctl_reset_value, REQ_AMD_PERFMON_V2)
{
	uint64_t v = 0, reset = fw_state_amd_global_ctl_reset();
	unsigned cpu = arch_cpu_current();
	const char *firmware = fw_state_firmware_may_have_run();

	if (!expect_true(t, fw_state_global_ctrl(cpu, &v), "readable", "RDMSR faulted",
			 RULE_AMD_GLOBAL_CTL_RESET, "RDMSR PerfCntrGlobalCtl at hand-over, cpu %u",
			 cpu))
		return;
	t_subject_msr(t, MSR_AMD64_PERF_CNTR_GLOBAL_CTL);
	if (!firmware) {
		expect_eq(t, v, reset, RULE_AMD_GLOBAL_CTL_RESET,
			  "PerfCntrGlobalCtl at hand-over on cpu %u, nothing having run before "
			  "pmutest",
			  cpu);
		return;
	}
	expect_eq(t, v & ~reset, 0, RULE_AMD_GLOBAL_CTL_RESET,
		  "reserved bits of PerfCntrGlobalCtl at hand-over (%#llx), cpu %u",
		  (unsigned long long)v, cpu);
	t_skip(t,
	       "PerfCntrGlobalCtl = %#llx at hand-over (reset value %#llx): %s, which may have "
	       "written it",
	       (unsigned long long)v, (unsigned long long)reset, firmware);
}

TEST(amd, hg_only_with_efer_svme, REQ_AMD)
{
	struct cpuid_regs r;
	const uint64_t exact = PMU_ITERS * WORKLOAD_INSNS_PER_ITER;

	arch_cpuid(0x80000001, 0, &r);
	if (!(r.ecx & CPUID_E1_ECX_SVM))
		t_skip_return(t, "CPUID.80000001H:ECX.SVM[2] = 0: EFER.SVME cannot be set");
	if (!t_amd_counter_counts(t, 0))
		return;
	uint64_t efer = rdmsr(MSR_IA32_EFER);
	uint64_t base = run_counter(0, AMD_SEL(0), 0, 2 * PMU_ITERS, false) -
			run_counter(0, AMD_SEL(0), 0, PMU_ITERS, false);
	if (base != exact)
		t_skip_return(t,
			      "PerfCtr0 counting C0H with HG_ONLY = 00B gave %llu, not %llu: no "
			      "exact count to compare HostOnly / GuestOnly with "
			      "(amd.retired_instructions_every_counter checks that)",
			      (unsigned long long)base, (unsigned long long)exact);
	for (unsigned svme = 0; svme <= 1; svme++) {
		uint64_t want = svme ? efer | EFER_SVME : efer & ~EFER_SVME;
		if (wrmsr_safe(MSR_IA32_EFER, want)) {
			wrmsr(MSR_IA32_EFER, efer);
			t_skip_return(t,
				      "WRMSR IA32_EFER.SVME <- %u raised #GP (SVM disabled: "
				      "VM_CR.SVMDIS)",
				      svme);
		}
		for (unsigned hg = 0; hg < 4; hg++) {
			unsigned i = hg % n_ctrs();
			if (!t_amd_counter_counts(t, i))
				continue;
			uint64_t sel = AMD_SEL((uint64_t)hg << 40);
			uint64_t c1 = run_counter(i, sel, 0, PMU_ITERS, false);
			uint64_t c2 = run_counter(i, sel, 0, 2 * PMU_ITERS, false);
			bool counts = !(svme && hg == 1); /* GuestOnly alone, in host mode */
			t_subject_msr(t, sel_msr(i));
			expect_eq(t, c2 - c1, counts ? exact : 0,
				  svme ? RULE_AMD_HG_SVME_HOST : RULE_AMD_HG_NO_SVME,
				  "PerfCtr%u counting C0H with HostOnly = %u, GuestOnly = %u, "
				  "EFER.SVME = %u: count(2N) - count(N)",
				  i, hg >> 1, hg & 1, svme);
			wrmsr(sel_msr(i), 0);
		}
	}
	wrmsr(MSR_IA32_EFER, efer);
}
