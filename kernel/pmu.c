/* SPDX-License-Identifier: MIT */
/*
 * PMU programming helpers (see pmu.h). Only include/arch.h is used to reach
 * the machine, so the same code runs on hardware and on the simulator.
 */
#include "pmu.h"

#include "fw_state.h"

#include "lbr.h"

#include "caps.h"

struct pmi_log g_pmi;
struct pmi_log g_pmi_nmi;

uint64_t pmu_evtsel(enum arch_event ev, uint64_t flags)
{
	return FIELD_PREP_ULL(PERFEVTSEL_EVENT, caps_arch_events[ev].event) |
	       FIELD_PREP_ULL(PERFEVTSEL_UMASK, caps_arch_events[ev].umask) | flags;
}

bool pmu_event_available(enum arch_event ev)
{
	return g_caps.pm.present && ev < ARCH_EVENT_COUNT && g_caps.pm.event_available[ev];
}

bool pmu_exact_event(enum arch_event *ev, uint64_t *per_iter)
{
	if (pmu_event_available(ARCH_EVENT_INSTRUCTIONS)) {
		*ev = ARCH_EVENT_INSTRUCTIONS;
		*per_iter = WORKLOAD_INSNS_PER_ITER;
		return true;
	}
	if (pmu_event_available(ARCH_EVENT_BRANCHES)) {
		*ev = ARCH_EVENT_BRANCHES;
		*per_iter = WORKLOAD_BRANCHES_PER_ITER;
		return true;
	}
	return false;
}

/* ---- What the record says ----------------------------------------------- */

bool pmu_has_global(void)
{
	return g_caps.pm.present && g_caps.pm.version >= 2;
}

bool pmu_gp_present(unsigned i)
{
	return g_caps.pm.present && i < 64 && (g_caps.pm.gp_mask & BIT_ULL(i));
}

bool pmu_fixed_present(unsigned i)
{
	return pmu_has_global() && i < FIXED_MAX && (g_caps.pm.fixed_supported & (1u << i));
}

unsigned pmu_gp_count(void)
{
	unsigned n = 0;

	for_each_gp_counter(c)
		n++;
	return n;
}

unsigned pmu_gp_end(void)
{
	unsigned end = 0;

	for_each_gp_counter(c)
		end = c.idx + 1;
	return end;
}

int pmu_gp_nth(unsigned n)
{
	for_each_gp_counter(c)
		if (n-- == 0)
			return (int)c.idx;
	return -1;
}

uint64_t pmu_gp_mask(void)
{
	return width_mask(g_caps.pm.gp_width);
}

uint64_t pmu_fixed_mask(void)
{
	return width_mask(g_caps.pm.fixed_width);
}

uint64_t pmu_global_counter_bits(void)
{
	uint64_t bits = 0;

	for_each_gp_counter(c)
		bits |= counter_global_bit(c);
	for_each_fixed_counter(c)
		bits |= counter_global_bit(c);
	return bits;
}

bool pmu_fixed_event(unsigned i, enum arch_event *ev)
{
	/* Table 20-2: the event each of the first four fixed counters counts. */
	static const enum arch_event fixed_event[] = {
	    [FIXED_INSTRUCTIONS] = ARCH_EVENT_INSTRUCTIONS,
	    [FIXED_CORE_CYCLES] = ARCH_EVENT_CORE_CYCLES,
	    [FIXED_REF_CYCLES] = ARCH_EVENT_REF_CYCLES,
	    [FIXED_TOPDOWN_SLOTS] = ARCH_EVENT_TOPDOWN_SLOTS,
	};
	_Static_assert(ARRAY_SIZE(fixed_event) == FIXED_TOPDOWN_SLOTS + 1,
		       "one event per fixed counter of Table 20-2");

	if (i >= ARRAY_SIZE(fixed_event))
		return false;
	*ev = fixed_event[i];
	return true;
}

/* ---- Counters ------------------------------------------------------------ */

bool counter_exists(struct counter c)
{
	return c.kind == COUNTER_GP ? pmu_gp_present(c.idx) : pmu_fixed_present(c.idx);
}

unsigned counter_next(enum counter_kind kind, unsigned from)
{
	unsigned limit = kind == COUNTER_GP ? PMU_COUNTER_MAX : PMU_FIXED_PROGRAMMABLE;

	while (from < limit && !counter_exists((struct counter){kind, from}))
		from++;
	return from < limit ? from : PMU_COUNTER_MAX;
}

const char *counter_prefix(struct counter c)
{
	/* The P6 family's PerfCtr0/1 sit at IA32_PMC0/1's addresses; its
	 * manual section names them PerfCtr. */
	if (c.kind == COUNTER_GP)
		return g_caps.p6 ? "PerfCtr" : "IA32_PMC";
	return "IA32_FIXED_CTR";
}

uint64_t counter_global_bit(struct counter c)
{
	if (c.kind == COUNTER_GP)
		return GLOBAL_PMC_BIT(c.idx);
	return c.idx < GLOBAL_FIXED_BITS ? GLOBAL_FIXED_BIT(c.idx) : 0;
}

unsigned counter_global_pos(struct counter c)
{
	return c.kind == COUNTER_GP ? c.idx : GLOBAL_FIXED_SHIFT + c.idx;
}

uint64_t counter_width_mask(struct counter c)
{
	return c.kind == COUNTER_GP ? pmu_gp_mask() : pmu_fixed_mask();
}

uint32_t counter_cfg_b_msr(struct counter c)
{
	return c.kind == COUNTER_GP ? MSR_IA32_PMC_GP_CFG_B(c.idx) : MSR_IA32_PMC_FX_CFG_B(c.idx);
}

uint32_t counter_cfg_c_msr(struct counter c)
{
	return c.kind == COUNTER_GP ? MSR_IA32_PMC_GP_CFG_C(c.idx) : MSR_IA32_PMC_FX_CFG_C(c.idx);
}

uint64_t counter_acr_cause_bit(struct counter c)
{
	return c.kind == COUNTER_GP ? ACR_CAUSE_GP(c.idx) : ACR_CAUSE_FX(c.idx);
}

bool counter_in_bitmaps(struct counter c, uint32_t gp, uint32_t fixed)
{
	return c.idx < 32 && (((c.kind == COUNTER_GP ? gp : fixed) >> c.idx) & 1);
}

unsigned counters_collect(struct counter *c, bool (*want)(struct counter))
{
	unsigned n = 0;

	for_each_gp_counter(g)
		if (!want || want(g))
			c[n++] = g;
	for_each_fixed_counter(f)
		if (f.idx < PMU_FIXED_PROGRAMMABLE && (!want || want(f)))
			c[n++] = f;
	return n;
}

void counter_program(struct counter c, uint64_t cfg, uint64_t value)
{
	if (c.kind == COUNTER_GP)
		pmu_gp_program(c.idx, cfg, value);
	else
		pmu_fixed_program(c.idx, cfg, value);
}

uint64_t counter_read(struct counter c)
{
	return c.kind == COUNTER_GP ? pmu_gp_read(c.idx) : pmu_fixed_read(c.idx);
}

void counter_preload(struct counter c, uint64_t k)
{
	if (c.kind == COUNTER_GP)
		pmu_gp_preload(c.idx, k);
	else
		pmu_fixed_preload(c.idx, k);
}

bool counter_wrapped_from_preload(struct counter c, uint64_t k)
{
	return counter_read(c) < ((0 - k) & counter_width_mask(c));
}

uint64_t counter_cfg_all_rings(struct counter c, enum arch_event ev)
{
	if (c.kind == COUNTER_GP)
		return pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR);
	return FIXED_CTRL_OS | FIXED_CTRL_USR;
}

uint64_t rdpmc_value(uint64_t ecx, int *vec)
{
	uint64_t rax = 0, rdx = 0;

	*vec = rdpmc_safe(ecx, &rax, &rdx);
	return rdpmc_edx_eax(rax, rdx);
}

/* ---- Clean state -------------------------------------------------------- */

static void reset_arch_pmu(void)
{
	uint64_t status = 0;

	if (pmu_has_global())
		wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	for_each_gp_counter(c) {
		wrmsr_safe(MSR_IA32_PERFEVTSEL(c.idx), 0);
		wrmsr_safe(MSR_IA32_PMC(c.idx), 0);
	}
	if (!pmu_has_global())
		return;
	wrmsr_safe(MSR_IA32_FIXED_CTR_CTRL, 0);
	for (unsigned i = 0; i < FIXED_MAX; i++)
		if (pmu_fixed_present(i))
			wrmsr_safe(MSR_IA32_FIXED_CTR(i), 0);
	/* Clear whatever overflow / freeze bits are set; if one of them cannot
	 * be cleared through OVF_CTRL (a reserved position there) fall back to
	 * the counter bits alone. */
	if (rdmsr_safe(MSR_IA32_PERF_GLOBAL_STATUS, &status) == 0 && status &&
	    wrmsr_safe(MSR_IA32_PERF_GLOBAL_OVF_CTRL, status) != 0)
		wrmsr_safe(MSR_IA32_PERF_GLOBAL_OVF_CTRL, status & pmu_global_counter_bits());
}

static void reset_model_pmus(void)
{
	if (g_caps.netburst) {
		for (unsigned i = 0; i < P4_NUM_COUNTERS; i++) {
			wrmsr_safe(MSR_P4_CCCR(i), P4_CCCR_RESERVED_ONES);
			wrmsr_safe(MSR_P4_COUNTER(i), 0);
		}
	}
	if (g_caps.nehalem_uncore) {
		wrmsr_safe(MSR_UNCORE_PERF_GLOBAL_CTRL, 0);
		wrmsr_safe(MSR_UNCORE_FIXED_CTR_CTRL, 0);
		wrmsr_safe(MSR_UNCORE_FIXED_CTR0, 0);
		for (unsigned i = 0; i < UNCORE_NUM_GP; i++) {
			wrmsr_safe(MSR_UNCORE_PERFEVTSEL0 + i, 0);
			wrmsr_safe(MSR_UNCORE_PMC0 + i, 0);
		}
		wrmsr_safe(MSR_UNCORE_PERF_GLOBAL_OVF_CTRL,
			   GENMASK_ULL(UNCORE_NUM_GP - 1, 0) | BIT_ULL(32));
	}
	if (caps_amd_like(&g_caps)) {
		if (g_caps.amd.perfmon_v2)
			wrmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
		for (unsigned i = 0; i < 4; i++) {
			wrmsr_safe(MSR_K7_EVNTSEL0 + i, 0);
			wrmsr_safe(MSR_K7_PERFCTR0 + i, 0);
		}
		if (g_caps.amd.perfctr_core || g_caps.amd.perfmon_v2) {
			for (unsigned i = 0; i < g_caps.amd.core_counters; i++) {
				wrmsr_safe(MSR_F15H_PERF_CTL0 + 2 * i, 0);
				wrmsr_safe(MSR_F15H_PERF_CTR0 + 2 * i, 0);
			}
		}
		/* The counters' overflow bits only: a write of ~0 sets bits the
		 * APM leaves undefined, and a PMU that faults on those (the
		 * simulator's model does) would keep stale overflows. */
		if (g_caps.amd.perfmon_v2 && g_caps.amd.core_counters)
			wrmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR,
				   GENMASK_ULL(g_caps.amd.core_counters - 1, 0));
	}
}

static bool boot_ctrl_valid;
static uint64_t boot_ctrl;

bool pmu_global_ctrl_at_boot(uint64_t *val)
{
	if (!boot_ctrl_valid && pmu_has_global() &&
	    rdmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, &boot_ctrl) == 0)
		boot_ctrl_valid = true;
	*val = boot_ctrl;
	return boot_ctrl_valid;
}

void pmu_reset_all(void)
{
	uint64_t debugctl;

	if (!g_caps.msr)
		return;
	pmu_global_ctrl_at_boot(&debugctl); /* snapshot before the first reset */
	if (g_caps.pm.present)
		reset_arch_pmu();
	reset_model_pmus();
	lbr_pebs_reset();
	if (g_caps.pm.present && rdmsr_safe(MSR_IA32_DEBUGCTL, &debugctl) == 0) {
		uint64_t want = debugctl & ~(DEBUGCTL_FREEZE_PERFMON_ON_PMI | DEBUGCTL_LBR |
					     DEBUGCTL_FREEZE_LBRS_ON_PMI);

		/* An SMI during an exact count would add the SMM handler's
		 * instructions: where IA32_PERF_CAPABILITIES[12] enumerates
		 * FREEZE_WHILE_SMM, counters stop in SMM (SDM Vol. 3B 18.4.7,
		 * 20.8). */
		if (g_caps.perf_cap.valid && g_caps.perf_cap.freeze_while_smm)
			want |= DEBUGCTL_FREEZE_WHILE_SMM;
		if (want != debugctl)
			wrmsr_safe(MSR_IA32_DEBUGCTL, want);
	}
	if (g_caps.apic)
		pmu_pmi_uninstall();
}

/* ---- Programming -------------------------------------------------------- */

void pmu_gp_write(unsigned i, uint64_t value)
{
	if (g_caps.perf_cap.valid && g_caps.perf_cap.full_width_write)
		wrmsr(MSR_IA32_A_PMC(i), value & pmu_gp_mask());
	else
		wrmsr(MSR_IA32_PMC(i), value & 0xFFFFFFFFULL);
}

void pmu_gp_program(unsigned i, uint64_t evtsel, uint64_t value)
{
	wrmsr(MSR_IA32_PERFEVTSEL(i), 0);
	pmu_gp_write(i, value);
	wrmsr(MSR_IA32_PERFEVTSEL(i), evtsel);
}

uint64_t pmu_gp_read(unsigned i)
{
	return rdmsr(MSR_IA32_PMC(i));
}

void pmu_gp_preload(unsigned i, uint64_t k)
{
	/* Legacy write: EAX[31:0] = -k sign-extends to 2^width - k. */
	wrmsr(MSR_IA32_PMC(i), (0 - k) & 0xFFFFFFFFULL);
}

void pmu_fixed_program(unsigned i, uint64_t field, uint64_t value)
{
	uint64_t ctrl = rdmsr(MSR_IA32_FIXED_CTR_CTRL);

	ctrl &= ~FIXED_CTRL_FIELD(i, 0xF);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, ctrl);
	wrmsr(MSR_IA32_FIXED_CTR(i), value);
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, ctrl | FIXED_CTRL_FIELD(i, field & 0xF));
}

uint64_t pmu_fixed_read(unsigned i)
{
	return rdmsr(MSR_IA32_FIXED_CTR(i));
}

void pmu_fixed_preload(unsigned i, uint64_t k)
{
	wrmsr(MSR_IA32_FIXED_CTR(i), (0 - k) & pmu_fixed_mask());
}

void pmu_global_enable(uint64_t bits)
{
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, bits);
}

void pmu_global_disable(void)
{
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
}

/* ---- Counting the workload ---------------------------------------------- */

struct pmu_gate pmu_gate_global(uint64_t bits)
{
	return (struct pmu_gate){MSR_IA32_PERF_GLOBAL_CTRL, bits, 0};
}

struct pmu_gate pmu_gate_evtsel(unsigned i, uint64_t evtsel)
{
	return (struct pmu_gate){MSR_IA32_PERFEVTSEL(i), evtsel | PERFEVTSEL_EN,
				 evtsel & ~PERFEVTSEL_EN};
}

void pmu_run_gated(struct pmu_gate g, uint64_t iters)
{
	arch_workload_gated(iters, g.msr, g.on, g.off);
}

void pmu_run_gated_irq(struct pmu_gate g, uint64_t iters)
{
	arch_irq_enable();
	arch_workload_gated(iters, g.msr, g.on, g.off);
	arch_irq_disable();
}

/* MSR_SMI_COUNT read right before and right after a gated window: the
 * SMIs inside it, not those while the counter was programmed or read. */
struct smi_bracket {
	bool valid;
	uint64_t before, after;
};

static void run_gated_smi(struct pmu_gate g, uint64_t iters, struct smi_bracket *smi)
{
	smi->valid = fw_smi_count(&smi->before);
	pmu_run_gated(g, iters);
	smi->valid = smi->valid && fw_smi_count(&smi->after);
}

/* Program counter c from zero (`cfg`: EVTSEL without EN, or the fixed
 * field), preload it when k != 0, gate it alone for `iters` iterations, stop
 * it and read it; *smi: MSR_SMI_COUNT around the gated part. */
static uint64_t count_gated(struct counter c, uint64_t cfg, uint64_t k, uint64_t iters,
			    struct smi_bracket *smi)
{
	unsigned i = c.idx;

	if (c.kind == COUNTER_FIXED) {
		pmu_fixed_program(i, cfg, 0);
		if (k)
			pmu_fixed_preload(i, k);
		run_gated_smi(pmu_gate_global(GLOBAL_FIXED_BIT(i)), iters, smi);
		pmu_fixed_program(i, 0, pmu_fixed_read(i));
		return pmu_fixed_read(i);
	}
	cfg &= ~PERFEVTSEL_EN;
	if (pmu_has_global()) {
		pmu_gp_program(i, cfg | PERFEVTSEL_EN, 0);
		if (k)
			pmu_gp_preload(i, k);
		run_gated_smi(pmu_gate_global(GLOBAL_PMC_BIT(i)), iters, smi);
	} else {
		pmu_gp_program(i, cfg, 0);
		if (k)
			pmu_gp_preload(i, k);
		run_gated_smi(pmu_gate_evtsel(i, cfg), iters, smi);
	}
	wrmsr(MSR_IA32_PERFEVTSEL(i), cfg);
	return pmu_gp_read(i);
}

static unsigned smi_windows;
static struct pmu_smi_frozen smi_frozen;
static struct pmu_smi_log smi_log;

unsigned pmu_smi_windows(void)
{
	return smi_windows;
}

void pmu_smi_frozen_take(struct pmu_smi_frozen *out)
{
	*out = smi_frozen;
	smi_frozen = (struct pmu_smi_frozen){0};
}

void pmu_smi_log_take(struct pmu_smi_log *out)
{
	*out = smi_log;
	smi_log = (struct pmu_smi_log){0};
}

/*
 * An SMI inside a counting window adds what the SMM handler executed
 * unless FREEZE_WHILE_SMM stops the counters (SDM Vol. 3B 18.4.1: with
 * IA32_DEBUGCTL.FREEZE_WHILE_SMM set, the processor clears the enable bits
 * of IA32_PERF_GLOBAL_CTRL on SMI delivery and sets them again at RSM).
 * Where the CPU counts SMIs (MSR_SMI_COUNT, kernel/fw_state.c) the count is
 * read around the window, and a window an SMI hit is measured once more,
 * from the GLOBAL_STATUS the first one started from (an overflow that only
 * SMM's counts caused must not leak into it). Where FREEZE_WHILE_SMM was
 * set, the two must agree: a difference is kept for the runner's check
 * (pmu_smi_frozen_take), not thrown away.
 */
static uint64_t count_window(struct counter c, uint64_t cfg, uint64_t k, uint64_t iters)
{
	uint64_t smi0, status0 = 0, debugctl = 0;
	bool global = fw_smi_count(&smi0) && pmu_has_global();
	struct smi_bracket smi, smi_again;

	if (global)
		status0 = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
	uint64_t v = count_gated(c, cfg, k, iters, &smi);

	if (smi.valid && smi.after != smi.before) {
		uint64_t bit = counter_global_bit(c);
		bool frozen = rdmsr_safe(MSR_IA32_DEBUGCTL, &debugctl) == 0 &&
			      (debugctl & DEBUGCTL_FREEZE_WHILE_SMM);

		smi_windows++;
		if (global && !(status0 & bit))
			wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, bit);
		uint64_t again = count_gated(c, cfg, k, iters, &smi_again);
		/* The evidence: both values, for the runner to print. */
		if (smi_log.n < PMU_SMI_SHOWN)
			smi_log.w[smi_log.n++] =
			    (struct pmu_smi_window){c, v, again, smi.before, smi.after, frozen};
		smi_log.windows++;
		if (frozen) {
			smi_frozen.windows++;
			if (again != v && !smi_frozen.differ++) {
				smi_frozen.c = c;
				smi_frozen.first = v;
				smi_frozen.again = again;
			}
		}
		v = again;
	}
	return v;
}

uint64_t pmu_count_gp(unsigned i, uint64_t evtsel, uint64_t iters)
{
	return count_window(GP_COUNTER(i), evtsel, 0, iters);
}

uint64_t counter_count(struct counter c, uint64_t cfg, uint64_t iters)
{
	return count_window(c, cfg, 0, iters);
}

uint64_t counter_count_preloaded(struct counter c, uint64_t cfg, uint64_t k, uint64_t iters)
{
	return count_window(c, cfg, k, iters);
}

uint64_t pmu_count_gp_call(unsigned i, uint64_t evtsel, void (*fn)(void *), void *arg)
{
	evtsel &= ~PERFEVTSEL_EN;
	if (pmu_has_global()) {
		pmu_gp_program(i, evtsel | PERFEVTSEL_EN, 0);
		pmu_global_enable(GLOBAL_PMC_BIT(i));
		fn(arg);
		pmu_global_disable();
	} else {
		pmu_gp_program(i, evtsel, 0);
		wrmsr(MSR_IA32_PERFEVTSEL(i), evtsel | PERFEVTSEL_EN);
		fn(arg);
	}
	wrmsr(MSR_IA32_PERFEVTSEL(i), evtsel);
	return pmu_gp_read(i);
}

/* Page-aligned so that line i is the first line of page i. */
static uint8_t llc_buffer[PMU_LLC_LINES * WORKLOAD_LLC_STRIDE]
    __attribute__((aligned(WORKLOAD_LLC_STRIDE)));

const void *pmu_llc_buffer(void)
{
	return llc_buffer;
}

__user_code uint64_t pmu_user_workload(uint64_t iters)
{
	arch_workload(iters);
	return 0;
}

static int run_at_cpl(int cpl, uint64_t iters)
{
	uint64_t res;

	if (cpl == 0) {
		arch_workload(iters);
		return 0;
	}
	return arch_call_at_cpl(cpl, pmu_user_workload, iters, &res);
}

int pmu_count_gp_at_cpl(unsigned i, uint64_t evtsel, uint64_t iters, int cpl, uint64_t *count)
{
	int vec;

	evtsel &= ~PERFEVTSEL_EN;
	pmu_gp_program(i, evtsel | PERFEVTSEL_EN, 0);
	if (pmu_has_global())
		pmu_global_enable(GLOBAL_PMC_BIT(i));
	vec = run_at_cpl(cpl, iters);
	if (pmu_has_global())
		pmu_global_disable();
	wrmsr(MSR_IA32_PERFEVTSEL(i), evtsel);
	*count = pmu_gp_read(i);
	return vec;
}

int pmu_count_fixed_at_cpl(unsigned i, uint64_t field, uint64_t iters, int cpl, uint64_t *count)
{
	int vec;

	pmu_fixed_program(i, field, 0);
	pmu_global_enable(GLOBAL_FIXED_BIT(i));
	vec = run_at_cpl(cpl, iters);
	pmu_global_disable();
	*count = pmu_fixed_read(i);
	pmu_fixed_program(i, 0, *count);
	return vec;
}

/* ---- PMI bookkeeping ------------------------------------------------------ */

/* The first delivery's snapshot, and the count. Used by the PMI and the NMI
 * handler alike: its probes read MSRs the PMU has, which do not fault (see
 * arch_set_nmi_handler). */
static void log_delivery(struct pmi_log *l)
{
	uint64_t tsc = arch_rdtsc();
	uint64_t v;

	if (l->count == 0) {
		l->tsc = tsc;
		l->lvt = arch_apic_read_lvt_pmi();
		if (l->watch_msr && rdmsr_safe(l->watch_msr, &v) == 0)
			l->watched = v;
		if (pmu_has_global()) {
			if (rdmsr_safe(MSR_IA32_PERF_GLOBAL_STATUS, &v) == 0)
				l->status = v;
			if (rdmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, &v) == 0)
				l->global_ctrl = v;
		}
	}
	l->count = l->count + 1;
}

static void pmi_handler(void)
{
	log_delivery(&g_pmi);
	if (g_pmi.send_eoi)
		arch_apic_eoi();
}

static void nmi_handler(void)
{
	log_delivery(&g_pmi_nmi);
}

static void log_reset(struct pmi_log *l, bool send_eoi, uint32_t watch_msr)
{
	*l = (struct pmi_log){.watch_msr = watch_msr, .send_eoi = send_eoi};
}

void pmu_pmi_install(bool send_eoi, uint32_t watch_msr, bool masked)
{
	log_reset(&g_pmi, send_eoi, watch_msr);
	arch_set_pmi_handler(pmi_handler);
	arch_apic_write_lvt_pmi(PMI_VECTOR | (masked ? APIC_LVT_MASKED : 0));
}

void pmu_pmi_install_nmi(void)
{
	log_reset(&g_pmi, true, 0);
	log_reset(&g_pmi_nmi, false, 0);
	arch_set_pmi_handler(pmi_handler);
	arch_set_nmi_handler(nmi_handler);
	arch_apic_write_lvt_pmi(PMI_VECTOR |
				(uint32_t)FIELD_PREP_ULL(APIC_LVT_DELIVERY_MODE, APIC_DM_NMI));
}

void pmu_pmi_uninstall(void)
{
	arch_apic_write_lvt_pmi(PMI_VECTOR | APIC_LVT_MASKED);
	arch_set_pmi_handler(NULL);
	arch_set_nmi_handler(NULL);
}
