/* SPDX-License-Identifier: MIT */
/*
 * Counting preconditions (kernel/precondition.h): on each CPU, before the
 * suites that count, every counter is shown once to hold a written value
 * and to count an event the workload retires in one window. A counter that
 * does not is this test's failure, with its evidence; the later checks that
 * need it fail at once pointing here instead of proving it again with their
 * own windows.
 *
 * Intel: IA32_PMCx through its legacy address (a value below 2^31, which a
 * legacy write keeps as written: Vol. 3B 20.2.6) and IA32_FIXED_CTRx, each
 * counting the event the suites count on it (Table 20-1, 20-2). AMD: PerfCtrn
 * through the addresses the amd suite uses (extended with PerfCtrExtCore,
 * else legacy), counting PMCx0C0 Retired Instructions. P6 family (no leaf
 * 0AH): PerfCtr0/1 at C1H/C2H, IA32_PMC0/1's addresses (so their findings are
 * IA32_PMC0/1's), counting INST_RETIRED with PerfEvtSel0.EN, which starts
 * both counters (the P6 section of Vol. 3B).
 */
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

/* The value written: below 2^31 (a legacy IA32_PMCx write keeps it), within
 * every counter width, neither 0 nor all ones. */
#define PRE_VALUE 0x12345ULL
/* One window: enough events that any counting counter moves, few enough
 * that the check costs little next to the suites it spares. */
#define PRE_ITERS (PMU_ITERS / 10)

/* The rule that says the event counts (Table 20-1; the fixed counters count
 * the same events, Table 20-2). */
static const char *event_rule(enum arch_event ev)
{
	switch (ev) {
	case ARCH_EVENT_INSTRUCTIONS:
		return RULE_EVENT_INSTRUCTIONS;
	case ARCH_EVENT_BRANCHES:
		return RULE_EVENT_BRANCHES;
	case ARCH_EVENT_CORE_CYCLES:
		return RULE_EVENT_CYCLES;
	case ARCH_EVENT_REF_CYCLES:
		return RULE_EVENT_REF_CYCLES;
	default:
		return RULE_EVENT_BOUNDED;
	}
}

/* The event a GP counter is shown counting with: the exact one the suites
 * use, else core cycles; false when none is available. */
static bool gp_event(enum arch_event *ev)
{
	uint64_t per_iter;

	if (pmu_exact_event(ev, &per_iter))
		return true;
	*ev = ARCH_EVENT_CORE_CYCLES;
	return pmu_event_available(*ev);
}

static void establish_intel(struct t *t, struct counter c)
{
	enum arch_event ev;
	char name[40];
	struct precondition_evidence e = {
	    .name = name,
	    .wrote = PRE_VALUE,
	    .iters = PRE_ITERS,
	};

	ksnprintf(name, sizeof(name), COUNTER_FMT, COUNTER_ARG(c));
	e.msr = c.kind == COUNTER_GP ? MSR_IA32_PMC(c.idx) : MSR_IA32_FIXED_CTR(c.idx);
	/* Stopped (the runner's reset left every counter disabled). */
	e.write_vec = wrmsr_safe(e.msr, e.wrote);
	if (!e.write_vec)
		e.read_vec = rdmsr_safe(e.msr, &e.read);
	e.window = c.kind == COUNTER_GP ? gp_event(&ev) : pmu_fixed_event(c.idx, &ev);
	if (e.window) {
		e.event = caps_arch_events[ev].name;
		e.cfg = counter_cfg_all_rings(c, ev);
	}
	/* An event select the platform refuses (a hypervisor's event filter)
	 * is the suites' own finding, with their own exception: no window
	 * here, the counting not established. */
	if (e.window && c.kind == COUNTER_GP) {
		/* Both writes a window makes, the stop first: a select that
		 * takes the event but refuses 0 would be left programmed. */
		const uint64_t sel[] = {0, e.cfg, 0};
		for (unsigned k = 0; k < ARRAY_SIZE(sel) && e.window; k++) {
			int vec = wrmsr_safe(MSR_IA32_PERFEVTSEL(c.idx), sel[k]);
			if (!vec)
				continue;
			t_diag(
			    t,
			    "%s: WRMSR IA32_PERFEVTSEL%u <- %#llx raised %s: its counting is not "
			    "established",
			    name, c.idx, (unsigned long long)sel[k], x86_vector_name(vec));
			e.window = false;
		}
	}
	if (e.window)
		e.count = counter_count(c, e.cfg, e.iters);
	precondition_establish(t, c.kind == COUNTER_GP ? PRE_GP : PRE_FIXED, c.idx, &e,
			       c.kind == COUNTER_GP ? RULE_LEGACY_WRITE : RULE_FIXED_RW,
			       e.window ? event_rule(ev) : NULL);
	wrmsr_safe(e.msr, 0);
}

/* P6: a write keeps a value below 2^31 as written; the window counts
 * INST_RETIRED on counter i, PerfEvtSel0.EN gating both counters (its event
 * none when counter 1 is the one shown), as the p6 suite counts. */
static void establish_p6(struct t *t, unsigned i)
{
	const uint64_t sel = P6_EVT_INST_RETIRED | PERFEVTSEL_USR | PERFEVTSEL_OS;
	const uint64_t sel0 = i == 0 ? sel : (PERFEVTSEL_USR | PERFEVTSEL_OS);
	char name[40];
	struct precondition_evidence e = {
	    .name = name,
	    .msr = MSR_P6_PERFCTR(i),
	    .wrote = PRE_VALUE,
	    .window = true,
	    .event = "INST_RETIRED (C0H)",
	    .cfg = sel,
	    .iters = PRE_ITERS,
	};

	ksnprintf(name, sizeof(name), "PerfCtr%u (%XH)", i, (unsigned)e.msr);
	wrmsr_safe(MSR_P6_EVNTSEL(0), 0);
	wrmsr_safe(MSR_P6_EVNTSEL(1), 0);
	e.write_vec = wrmsr_safe(e.msr, e.wrote);
	if (!e.write_vec)
		e.read_vec = rdmsr_safe(e.msr, &e.read);
	wrmsr_safe(e.msr, 0);
	if (i == 1)
		wrmsr_safe(MSR_P6_EVNTSEL(1), sel);
	arch_workload_gated(e.iters, MSR_P6_EVNTSEL(0), sel0 | PERFEVTSEL_EN, sel0);
	if (rdmsr_safe(e.msr, &e.count))
		e.count = 0;
	wrmsr_safe(MSR_P6_EVNTSEL(1), 0);
	wrmsr_safe(MSR_P6_EVNTSEL(0), 0);
	wrmsr_safe(e.msr, 0);
	precondition_establish(t, PRE_GP, i, &e, RULE_P6_CTR_RW, RULE_P6_INST_RETIRED);
}

#define AMD_RETIRED_INSNS 0xC0
#define AMD_SEL_INSNS	  (AMD_RETIRED_INSNS | PERFEVTSEL_USR | PERFEVTSEL_OS)

static void establish_amd(struct t *t, unsigned i)
{
	const bool ext = caps()->amd.perfctr_core || caps()->amd.perfmon_v2;
	const bool v2 = caps()->amd.perfmon_v2;
	const uint32_t sel = ext ? MSR_F15H_PERF_CTL0 + 2 * i : MSR_K7_EVNTSEL0 + i;
	char name[40];
	struct precondition_evidence e = {
	    .name = name,
	    .wrote = PRE_VALUE,
	    .window = true,
	    .event = "PMCx0C0 retired instructions",
	    .cfg = AMD_SEL_INSNS,
	    .iters = PRE_ITERS,
	};

	e.msr = ext ? MSR_F15H_PERF_CTR0 + 2 * i : MSR_K7_PERFCTR0 + i;
	ksnprintf(name, sizeof(name), "PerfCtr%u (C001_%04XH)", i, (unsigned)e.msr & 0xFFFF);
	wrmsr_safe(sel, 0);
	e.write_vec = wrmsr_safe(e.msr, e.wrote);
	if (!e.write_vec)
		e.read_vec = rdmsr_safe(e.msr, &e.read);
	/* The window, as the amd suite gates its own: En, and PerfCntrGlobalCtl
	 * with PerfMonV2. A faulting counter gives 0: nothing counted. */
	wrmsr_safe(e.msr, 0);
	if (v2)
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, BIT_ULL(i));
	arch_workload_gated(e.iters, sel, AMD_SEL_INSNS | PERFEVTSEL_EN, AMD_SEL_INSNS);
	if (v2)
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
	if (rdmsr_safe(e.msr, &e.count))
		e.count = 0;
	wrmsr_safe(sel, 0);
	wrmsr_safe(e.msr, 0);
	precondition_establish(t, PRE_AMD, i, &e, RULE_AMD_CTR_RW, RULE_AMD_COUNT);
}

TEST(counters, hold_and_count, REQ_NONE)
{
	if (caps()->pm.present) {
		for_each_gp_counter(c)
			establish_intel(t, c);
		for_each_fixed_counter(c)
			establish_intel(t, c);
	} else if (caps()->p6) {
		for (unsigned i = 0; i < P6_NUM_COUNTERS; i++)
			establish_p6(t, i);
	}
	if (caps_amd_like(caps())) {
		unsigned n = caps()->amd.core_counters ? caps()->amd.core_counters : 4;
		for (unsigned i = 0; i < n; i++)
			establish_amd(t, i);
	}
}
