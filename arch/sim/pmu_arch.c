/* SPDX-License-Identifier: MIT */
/*
 * The Intel architectural PMU (SDM Vol. 3B 20.2, MSRs from Vol. 4 Table 2-2):
 * IA32_PMCx / IA32_A_PMCx / IA32_PERFEVTSELx, the fixed counters and the
 * global control, status and overflow MSRs, exactly as CPUID enumerates them.
 */
#include "model_events.h"
#include "sim.h"

/* This CPU's PMU state (g_sim is the running CPU, smp.c). */
#define P (&g_sim.pmu)

static inline bool gp_exists(unsigned i)
{
	return i < SIM_MAX_GP && ((g_sim.gp_exists >> i) & 1);
}

static inline bool fixed_exists(unsigned i)
{
	return i < SIM_MAX_FIXED && ((g_sim.fixed_exists >> i) & 1);
}

/* A fixed counter 16 or up may exist (its MSR, RDPMC) but has no 4-bit field
 * in IA32_FIXED_CTR_CTRL (16 fields) and no IA32_PERF_GLOBAL_CTRL/STATUS bit
 * (32 + i would reach the bits 48-63 defined otherwise): it never counts. */
static inline bool fixed_programmable(unsigned i)
{
	return i < GLOBAL_FIXED_BITS && fixed_exists(i);
}

static inline uint64_t gp_mask(void)
{
	return width_mask(g_sim.gp_width);
}

static inline uint64_t fixed_mask(void)
{
	return width_mask(g_sim.fixed_width);
}

/* Stored counter values are within the width (Vol. 3B 20.2.1: bits above
 * the width read as zero) unless the width-not-masked quirk keeps them. */
static uint64_t store(uint64_t v, uint64_t mask)
{
	return quirk(Q_WIDTH_NOT_MASKED) ? v : (v & mask);
}

/* ---- Events ------------------------------------------------------------ */

/* Vol. 3B Table 20-1: event select / umask of the architectural events, in
 * CPUID.0AH:EBX bit order. An independent copy of the kernel's table
 * (caps_arch_events) on purpose: the simulator is the oracle the suite is
 * run against, so it does not take the encodings from the suite;
 * testing/unit/test_sim.c checks that the two agree. */
static const struct {
	uint8_t event, umask;
	enum sim_event ev;
} arch_events[] = {
    [ARCH_EVENT_CORE_CYCLES] = {0x3C, 0x00, EV_CYCLES},
    [ARCH_EVENT_INSTRUCTIONS] = {0xC0, 0x00, EV_INSNS},
    [ARCH_EVENT_REF_CYCLES] = {0x3C, 0x01, EV_REF},
    [ARCH_EVENT_LLC_REFERENCES] = {0x2E, 0x4F, EV_LLC_REF},
    [ARCH_EVENT_LLC_MISSES] = {0x2E, 0x41, EV_LLC_MISS},
    [ARCH_EVENT_BRANCHES] = {0xC4, 0x00, EV_BRANCHES},
    [ARCH_EVENT_BRANCH_MISSES] = {0xC5, 0x00, EV_BR_MISS},
    [ARCH_EVENT_TOPDOWN_SLOTS] = {0xA4, 0x01, EV_TD_SLOTS},
    [ARCH_EVENT_TOPDOWN_BACKEND] = {0xA4, 0x02, EV_TD_BACKEND},
    [ARCH_EVENT_TOPDOWN_BAD_SPEC] = {0x73, 0x00, EV_TD_BADSPEC},
    [ARCH_EVENT_TOPDOWN_FRONTEND] = {0x9C, 0x01, EV_TD_FRONTEND},
    [ARCH_EVENT_TOPDOWN_RETIRING] = {0xC2, 0x02, EV_TD_RETIRING},
    [ARCH_EVENT_LBR_INSERTS] = {0xE4, 0x01, EV_NONE},
};
_Static_assert(ARRAY_SIZE(arch_events) == ARCH_EVENT_COUNT, "one row per event of Table 20-1");

bool sim_arch_event_encoding(unsigned i, uint8_t *event, uint8_t *umask)
{
	if (i >= ARCH_EVENT_COUNT)
		return false;
	*event = arch_events[i].event;
	*umask = arch_events[i].umask;
	return true;
}

/* The model-specific events with UMASK2 of include/model_events.h, on the
 * parts that define them with UMASK2 enumerated; EV_COUNT for none
 * (Q_UMASK2_IGNORED: never, the select then decodes without its UMASK2). */
static enum sim_event model_event(uint8_t e, uint8_t u, uint8_t u2)
{
	static const enum sim_event ev[MEV_COUNT] = {
	    [MEV_BR_COND] = EV_BR_COND,
	    [MEV_BR_COND_TAKEN] = EV_BR_COND_TAKEN,
	    [MEV_BR_COND_TAKEN_FWD] = EV_BR_COND_TAKEN_FWD,
	};
	const struct caps *c = &g_sim.caps;

	if (!lion_cove_core(c->family, c->model, c->core_type) || !c->l23.umask2 ||
	    quirk(Q_UMASK2_IGNORED))
		return EV_COUNT;
	for (unsigned i = 0; i < MEV_COUNT; i++)
		if (lion_cove_events[i].event == e && lion_cove_events[i].umask == u &&
		    lion_cove_events[i].umask2 == u2)
			return ev[i];
	return EV_COUNT;
}

/* The model event an event select counts. An event that CPUID does not
 * enumerate as available counts nothing here (the SDM leaves it
 * model-specific; the model picks the quiet choice). */
static enum sim_event decode_event(uint64_t sel)
{
	uint8_t e = FIELD_GET_ULL(PERFEVTSEL_EVENT, sel);
	uint8_t u = FIELD_GET_ULL(PERFEVTSEL_UMASK, sel);
	enum sim_event m = model_event(e, u, FIELD_GET_ULL(PERFEVTSEL_UMASK2, sel));

	if (m != EV_COUNT)
		return m;
	for (unsigned i = 0; i < ARCH_EVENT_COUNT; i++) {
		enum sim_event ev = arch_events[i].ev;

		if (arch_events[i].event != e || arch_events[i].umask != u)
			continue;
		if (quirk(Q_LLC_NEVER_COUNT) && (ev == EV_LLC_REF || ev == EV_LLC_MISS))
			return EV_NONE;
		if (quirk(Q_BR_MISS_NEVER_COUNTS) && ev == EV_BR_MISS)
			return EV_NONE;
		if (quirk(Q_TD_BACKEND_NEVER) && ev == EV_TD_BACKEND)
			return EV_NONE;
		return g_sim.caps.pm.event_available[i] ? ev : EV_NONE;
	}
	return EV_NONE;
}

/* Fixed counters, Vol. 3B Table 20-2. Counters 4 and above are not named
 * by the tables the project cites: the model counts core cycles on them. */
static enum sim_event fixed_event(unsigned i)
{
	switch (i) {
	case FIXED_INSTRUCTIONS:
		return EV_INSNS;
	case FIXED_CORE_CYCLES:
		return EV_CYCLES;
	case FIXED_REF_CYCLES:
		/* The quirk's slow clock: one tick per loop iteration. */
		return quirk(Q_REF_TSC_SLOW) ? EV_BRANCHES : EV_REF;
	case FIXED_TOPDOWN_SLOTS:
		return quirk(Q_TD_SLOTS_NEVER) ? EV_NONE : EV_TD_SLOTS;
	/* Fixed counters 4-6 (Linux a932aa0e868f, Skymont): the encodings of
	 * architectural events 9-11, TOPDOWN_BAD_SPECULATION.ALL 0073H,
	 * TOPDOWN_FE_BOUND.ALL 019CH, TOPDOWN_RETIRING.ALL 02C2H. */
	case 4:
		return quirk(Q_FIXED_4_6_CYCLES) ? EV_CYCLES : EV_TD_BADSPEC;
	case 5:
		return quirk(Q_FIXED_4_6_CYCLES) ? EV_CYCLES : EV_TD_FRONTEND;
	case 6:
		return quirk(Q_FIXED_4_6_CYCLES) ? EV_CYCLES : EV_TD_RETIRING;
	default:
		return EV_CYCLES;
	}
}

/* ---- Who counts -------------------------------------------------------- */

/* USR (bit 16) counts at CPL 1, 2, 3; OS (bit 17) at CPL 0 (Vol. 3B
 * 20.2.1.1). */
static bool cpl_selected(bool usr, bool os)
{
	if (quirk(Q_CPL_FILTER_IGNORED))
		return usr || os;
	if (g_sim.cpl == 0)
		return os;
	if (quirk(Q_USR_CPL3_ONLY))
		return usr && g_sim.cpl == 3;
	return usr;
}

static bool frozen(void)
{
	/* v4: counting requires !IA32_PERF_GLOBAL_STATUS.CTR_FRZ (Vol. 3B
	 * 20.2.4.1). */
	return g_sim.version >= 4 && (P->global_status & GLOBAL_STATUS_CTR_FRZ);
}

static bool global_enabled(unsigned bit)
{
	/* v2+: the enable bit in IA32_PERF_GLOBAL_CTRL is ANDed with the
	 * counter's own enables (Vol. 4 Table 2-2, 38FH). */
	if (g_sim.version < 2 || quirk(Q_GLOBAL_CTRL_IGNORED))
		return true;
	return (P->global_ctrl >> bit) & 1;
}

static bool gp_counting(unsigned i)
{
	uint64_t sel = P->evtsel[i];
	if (!gp_exists(i) || frozen())
		return false;
	if (!(sel & PERFEVTSEL_EN) && !quirk(Q_EN_IGNORED))
		return false;
	/* IN_TX: only what occurs inside a transactional region (Vol. 3B
	 * 20.3.6.5). */
	if ((sel & PERFEVTSEL_IN_TX) && !g_sim.in_tx && !quirk(Q_IN_TX_COUNTS_OUTSIDE))
		return false;
	/* The 2019 TSX microcode holds IA32_PMC3 while a transaction runs. */
	if (i == 3 && g_sim.in_tx && quirk(Q_TSX_USES_PMC3))
		return false;
	if ((sel & PERFEVTSEL_RDPMC_USR_DISABLE) && quirk(Q_RDPMC_USR_DIS_STOPS))
		return false;
	return global_enabled(i) && cpl_selected(sel & PERFEVTSEL_USR, sel & PERFEVTSEL_OS);
}

void sim_arch_tx_begin(void)
{
	for (unsigned i = 0; i < SIM_MAX_GP; i++)
		P->txcp_checkpoint[i] = P->pmc[i];
}

void sim_arch_tx_abort(void)
{
	if (quirk(Q_IN_TXCP_KEEPS_ABORTED))
		return;
	for (unsigned i = 0; i < SIM_MAX_GP; i++)
		if (gp_exists(i) && (P->evtsel[i] & PERFEVTSEL_IN_TXCP))
			P->pmc[i] = P->txcp_checkpoint[i];
}

static bool fixed_counting(unsigned i)
{
	if (!g_sim.arch_pmu || !fixed_programmable(i) || frozen())
		return false;
	uint64_t f = (P->fixed_ctrl >> (4 * i)) & 0xF;
	bool os = f & FIXED_CTRL_OS, usr = f & FIXED_CTRL_USR;
	if (quirk(Q_FIXED_EN_SWAPPED)) {
		bool t = os;
		os = usr;
		usr = t;
	}
	if (i < FIXED_CTRL_HIGH_FIELDS && (P->fixed_ctrl & FIXED_CTRL_RDPMC_USR_DISABLE(i)) &&
	    quirk(Q_RDPMC_USR_DIS_STOPS))
		return false;
	return global_enabled(GLOBAL_FIXED_SHIFT + i) && cpl_selected(usr, os);
}

/* Counting deviations of a vPMU, the same for GP and fixed counters:
 * intercepted instructions counted in software, a scaled cycle count. */
#define CYCLES_SCALE 16 /* Q_CYCLES_SCALED */
static void platform_counting(struct sim_filter *f)
{
	f->emulated_retire = quirk(Q_KVM_EMULATED_RETIRE) || quirk(Q_EMULATED_OVF_NO_PMI);
	if (quirk(Q_CYCLES_SCALED) && f->ev == EV_CYCLES)
		f->scale = CYCLES_SCALE;
}

static void arch_collect(struct sim_counter_set *set)
{
	if (!g_sim.arch_pmu)
		return;
	int first = -1;
	for (unsigned i = 0; i < SIM_MAX_GP && first < 0; i++)
		if (gp_counting(i))
			first = (int)i;
	for (unsigned i = 0; i < SIM_MAX_GP; i++) {
		if (!gp_counting(i))
			continue;
		uint64_t sel = P->evtsel[i];
		struct sim_filter f = {
		    .ev = decode_event(quirk(Q_EVTSEL_SHARED) ? P->evtsel[first] : sel),
		    .cmask = quirk(Q_CMASK_IGNORED) ? 0 : FIELD_GET_ULL(PERFEVTSEL_CMASK, sel),
		    .inv = !quirk(Q_INV_IGNORED) && (sel & PERFEVTSEL_INV),
		    .edge = !quirk(Q_EDGE_IGNORED) && (sel & PERFEVTSEL_EDGE),
		    .eq = g_sim.caps.l23.present && g_sim.caps.l23.eq && (sel & PERFEVTSEL_EQ) &&
			  !quirk(Q_EQ_IGNORED),
		    .any_thread = g_sim.anythread_ok && (sel & PERFEVTSEL_ANY),
		};
		platform_counting(&f);
		sim_counter_add(set,
				&(struct sim_counter){&P->pmc[i], &P->gp_last[i], g_sim.gp_width, f,
						      &sim_family_arch, ARCH_GP, i});
	}
	for (unsigned i = 0; i < SIM_MAX_FIXED; i++) {
		if (!fixed_counting(i))
			continue;
		struct sim_filter f = {
		    .ev = fixed_event(i),
		    .any_thread =
			g_sim.anythread_ok && (P->fixed_ctrl & FIXED_CTRL_FIELD(i, FIXED_CTRL_ANY)),
		};
		platform_counting(&f);
		sim_counter_add(set, &(struct sim_counter){&P->fixed[i], &P->fixed_last[i],
							   g_sim.fixed_width, f, &sim_family_arch,
							   ARCH_FIXED, i});
	}
}

/* ---- Overflow ---------------------------------------------------------- */

/*
 * Auto Counter Reload at the overflow of counter (fixed, idx): every
 * reloadable counter whose CFG_B names it restarts from its CFG_C reload
 * value (bits 31:0; Linux writes the u32 -period, ec980e4facef). The engine
 * overflows at the end of an iteration, `post` events after the wrap: the
 * model gives the reloaded counters the same `post` on top of the reload
 * value (exact when they count the overflowing counter's event, as the
 * suite's do). True when the counter reloaded itself: "the overflow bit
 * (IA32_PERF_GLOBAL_STATUS.PMCn_OVF) is never set for self-reloaded events"
 * (Linux 1271aeccc307, citing the SDM).
 */
static bool acr_reloadable(bool fixed, unsigned i); /* with the MSRs, below */

static bool acr_reload(bool fixed, unsigned idx, uint64_t post)
{
	uint64_t cause = fixed ? BIT_ULL(32 + idx) : BIT_ULL(idx);
	bool self = false;

	if (!g_sim.caps.l23.acr_valid || quirk(Q_ACR_NO_RELOAD) || idx >= 32)
		return false;
	for (unsigned k = 0; k < 2; k++) {
		bool fx = k == 1;

		for (unsigned i = 0; i < (fx ? SIM_MAX_FIXED : SIM_MAX_GP); i++) {
			uint64_t b = fx ? P->acr_fx_b[i] : P->acr_b[i];
			uint64_t r = (fx ? P->acr_fx_c[i] : P->acr_c[i]) & 0xFFFFFFFFULL;

			if (!(b & cause) || !acr_reloadable(fx, i))
				continue;
			if (quirk(Q_ACR_RELOAD_ZERO))
				r = 0;
			if (fx)
				P->fixed[i] = (r + post) & fixed_mask();
			else
				P->pmc[i] = (r + post) & gp_mask();
			if (fx == fixed && i == idx)
				self = true;
		}
	}
	return self;
}

/*
 * Vol. 3B 20.2.2: an overflow sets the counter's bit in
 * IA32_PERF_GLOBAL_STATUS; with INT (GP) / PMI (fixed) set it signals a PMI
 * through the local APIC. Vol. 3B 18.4.7 / 20.2.4.1: with
 * DEBUGCTL.FREEZE_PERFMON_ON_PMI the PMI freezes the counters: before v4 by
 * clearing IA32_PERF_GLOBAL_CTRL, from v4 by setting CTR_FRZ (GLOBAL_CTRL is
 * left alone). Likewise FREEZE_LBRS_ON_PMI: DEBUGCTL.LBR cleared / LBR_FRZ.
 */
static void arch_overflow(const struct sim_counter *c)
{
	bool fixed = c->kind == ARCH_FIXED;
	unsigned idx = c->idx;
	bool pmi;

	/* Q_REF_TSC_STICKY_OVF: IA32_FIXED_CTR2 is clocked slower than the
	 * core; after its overflow, the reset that follows the status clear
	 * flips the bit high once more (ref_tsc_refire()). */
	if (fixed && idx == FIXED_REF_CYCLES && quirk(Q_REF_TSC_STICKY_OVF)) {
		P->ref_sticky = true;
		P->ref_cleared = false;
	}

	/* A PEBS-enabled counter's overflow is the PEBS assist's (pebs.c). */
	if (sim_pebs_overflow(fixed, idx))
		return;
	bool self_reloaded = acr_reload(fixed, idx, c->val ? *c->val : 0);
	if (g_sim.version >= 2 && !quirk(Q_OVF_NO_STATUS) &&
	    (!self_reloaded || quirk(Q_ACR_SELF_STATUS)))
		P->global_status |= fixed ? GLOBAL_FIXED_BIT(idx) : GLOBAL_PMC_BIT(idx);
	if (fixed)
		pmi =
		    !quirk(Q_FIXED_PMI_IGNORED) && ((P->fixed_ctrl >> (4 * idx)) & FIXED_CTRL_PMI);
	else
		pmi = P->evtsel[idx] & PERFEVTSEL_INT;
	if (quirk(Q_PMI_INT_CLEAR) || (quirk(Q_PMI_NO_INT_ABOVE_0) && idx > 0))
		pmi = true;
	if (quirk(Q_EMULATED_OVF_NO_PMI) && g_sim.segment == SEG_INTERCEPT_ITER)
		pmi = false;
	if (!pmi)
		return;
	if ((P->debugctl & DEBUGCTL_FREEZE_PERFMON_ON_PMI) && !quirk(Q_FREEZE_IGNORED)) {
		if (g_sim.version >= 4 && !quirk(Q_FREEZE_LEGACY_ON_V4))
			P->global_status |= GLOBAL_STATUS_CTR_FRZ;
		else
			P->global_ctrl = 0;
	}
	if ((P->debugctl & DEBUGCTL_FREEZE_LBRS_ON_PMI) || quirk(Q_LBR_FREEZE_ALWAYS)) {
		if (g_sim.version >= 4) {
			if (!quirk(Q_LBR_FRZ_NOT_SET))
				P->global_status |= GLOBAL_STATUS_LBR_FRZ;
		} else if (!quirk(Q_LBR_FREEZE_IGNORED)) {
			P->debugctl &= ~DEBUGCTL_LBR;
		}
	}
	sim_pmi_request();
}

/* Intel's description of CPU_CLK_UNHALTED.REF_TSC: after the counter has
 * overflowed and software clears the overflow status bit and resets the
 * counter below MAX, the reset value is not clocked in at once, so the bit
 * flips high again and raises another PMI if enabled (Q_REF_TSC_STICKY_OVF):
 * once, at the reset that follows the clear. */
static void ref_tsc_refire(void)
{
	if (!P->ref_sticky || !P->ref_cleared || !P->ref_rewritten)
		return;
	P->ref_sticky = P->ref_cleared = P->ref_rewritten = false;
	arch_overflow(&(struct sim_counter){.kind = ARCH_FIXED, .idx = FIXED_REF_CYCLES});
	P->ref_sticky = false; /* the flip is not itself an overflow */
}

/* ---- PERF_METRICS (Vol. 3B 20.3.9.3) ---------------------------------- */

/* Byte 0 retiring, 1 bad speculation, 2 frontend bound, 3 backend bound:
 * each the fraction of the slots counted by FIXED_CTR3 since the last reset
 * of PERF_METRICS / FIXED_CTR3, scaled to 0..255. */
/* Level 2 (Linux INTEL_TD_METRIC_HEAVY_OPS..MEM_BOUND, bytes 4-7: heavy
 * operations, branch mispredicts, fetch latency, memory bound): Linux reads
 * eight metrics from Golden Cove on (intel_pmu_init_glc()), four on the Ice
 * Lake / Tiger Lake / Rocket Lake cores (intel_pmu_init icl: 4), whose
 * upper bytes the model leaves 0. Byte i + 4, the model: a fixed part of
 * level-1 byte i's slots (its child, by the names; inferred). */
bool sim_metrics_level2(const struct caps *c)
{
	static const uint8_t icl[] = {0x6A, 0x6C, 0x7D, 0x7E, 0x8C, 0x8D, 0xA7};

	for (unsigned i = 0; c->family == 6 && i < ARRAY_SIZE(icl); i++)
		if (c->model == icl[i])
			return false;
	return true;
}

uint64_t sim_perf_metrics(void)
{
	static const uint8_t l2_quarters[4] = {1, 3, 2, 2}; /* child = parent x n / 4 */
	uint64_t sum = 0, v = 0, scale = quirk(Q_METRICS_NOT_FF) ? 0xF0 : 0xFF;
	for (unsigned i = 0; i < 4; i++)
		sum += P->td_acc[i];
	if (!sum)
		return 0;
	for (unsigned i = 0; i < 4; i++) {
		uint64_t parent = P->td_acc[i] * scale / sum;

		v |= parent << (8 * i);
		if (!sim_metrics_level2(&g_sim.caps))
			continue;
		uint64_t child = P->td_acc[i] * l2_quarters[i] / 4 * scale / sum;
		if (quirk(Q_METRICS_L2_ABOVE_PARENT) && i == 0)
			child = parent + 8 > 0xFF ? 0xFF : parent + 8;
		v |= child << (8 * (i + 4));
	}
	return v;
}

static void reset_metrics(void)
{
	for (unsigned i = 0; i < 4; i++)
		P->td_acc[i] = 0;
}

/* RDPMC metrics clear mode (ISE, as Linux 0e45818ec189 quotes it): with
 * IA32_PERF_CAPABILITIES[19] and IA32_FIXED_CTR_CTRL.METRICS_CLEAR_EN[14],
 * RDPMC of the metrics clears "the PERF_METRICS-related resources as well
 * as the fixed-function performance monitoring counter 3 after the read". */
void sim_arch_metrics_read(void)
{
	bool en = (g_sim.perf_cap & PERF_CAP_RDPMC_METRICS_CLEAR) &&
		  (P->fixed_ctrl & FIXED_CTRL_METRICS_CLEAR);

	if (quirk(Q_METRICS_CLEAR_ALWAYS) && (g_sim.perf_cap & PERF_CAP_RDPMC_METRICS_CLEAR))
		en = true;
	if (!en || quirk(Q_METRICS_CLEAR_IGNORED))
		return;
	reset_metrics();
	if (!quirk(Q_METRICS_CLEAR_KEEPS_SLOTS))
		P->fixed[FIXED_TOPDOWN_SLOTS] = 0;
}

/* The slots of each topdown class accumulate while TOPDOWN.SLOTS counts. */
static void arch_advance(const struct sim_segment *s, uint64_t k)
{
	if (!fixed_counting(FIXED_TOPDOWN_SLOTS))
		return;
	P->td_acc[0] += sim_segment_total(s, EV_TD_RETIRING) * k;
	P->td_acc[1] += sim_segment_total(s, EV_TD_BADSPEC) * k;
	P->td_acc[2] += sim_segment_total(s, EV_TD_FRONTEND) * k;
	P->td_acc[3] += sim_segment_total(s, EV_TD_BACKEND) * k;
}

/* ---- MSRs -------------------------------------------------------------- */

static uint64_t inuse(void)
{
	/* Vol. 3B 20.2.4.3: PERFEVTSELn_InUse = (PERFEVTSELn[7:0] != 0);
	 * FCi_InUse = (IA32_FIXED_CTR_CTRL[4i+1:4i] != 0); PMI_InUse when any
	 * INT / PMI enable is set. */
	uint64_t v = 0;
	if (quirk(Q_INUSE_ZERO))
		return 0;
	for (unsigned i = 0; i < SIM_MAX_GP; i++) {
		if (!gp_exists(i))
			continue;
		if (P->evtsel[i] & 0xFF)
			v |= BIT_ULL(i);
		if (P->evtsel[i] & PERFEVTSEL_INT)
			v |= GLOBAL_INUSE_PMI;
	}
	for (unsigned i = 0; i < SIM_MAX_FIXED; i++) {
		if (!fixed_programmable(i))
			continue;
		uint64_t f = (P->fixed_ctrl >> (4 * i)) & 0xF;
		if (f & 3)
			v |= GLOBAL_FIXED_BIT(i);
		if (f & FIXED_CTRL_PMI)
			v |= GLOBAL_INUSE_PMI;
	}
	return v;
}

/* Which counter an address names, when in a counter range. The K_V6_*
 * kinds are version 6's 19xxH aliases (classify_v6). */
enum kind {
	K_NONE,
	K_PMC,
	K_APMC,
	K_EVTSEL,
	K_FIXED,
	K_V6_CTR,
	K_V6_CFG_A,
	K_V6_FX_CTR,
	K_V6_FX_CFG_A,
	K_V6_CFG_B,
	K_V6_CFG_C,
	K_V6_FX_CFG_B,
	K_V6_FX_CFG_C
};

/* Version 6 (ISE "Architectural Performance Monitoring Version 6"): GPn_CTR
 * and GPn_CFG_A are IA32_PMCn and IA32_PERFEVTSELn, FXm_CTR is
 * IA32_FIXED_CTRm; FXm_CFG_A is no register. CFG_B / CFG_C are not modelled
 * here (K_NONE: #GP). */
static enum kind classify_v6(uint32_t msr, unsigned *idx)
{
	unsigned slot;

	if (g_sim.version < 6)
		return K_NONE;
	if (sim_msr_in(msr, MSR_IA32_PMC_GP0_CTR, PMC_V6_GP_SLOTS * MSR_IA32_PMC_V6_STEP, &slot)) {
		*idx = slot / MSR_IA32_PMC_V6_STEP;
		switch (slot % MSR_IA32_PMC_V6_STEP) {
		case 0:
			return K_V6_CTR;
		case 1:
			return K_V6_CFG_A;
		case 2:
			return K_V6_CFG_B;
		}
		return K_V6_CFG_C;
	}
	if (sim_msr_in(msr, MSR_IA32_PMC_FX0_CTR, PMC_V6_FX_SLOTS * MSR_IA32_PMC_V6_STEP, &slot)) {
		*idx = slot / MSR_IA32_PMC_V6_STEP;
		switch (slot % MSR_IA32_PMC_V6_STEP) {
		case 0:
			return K_V6_FX_CTR;
		case 1:
			return K_V6_FX_CFG_A;
		case 2:
			return K_V6_FX_CFG_B;
		}
		return K_V6_FX_CFG_C;
	}
	return K_NONE;
}

static enum kind classify(uint32_t msr, unsigned *idx)
{
	if (sim_msr_in(msr, MSR_IA32_PMC0, SIM_MAX_GP, idx))
		return K_PMC;
	if (sim_msr_in(msr, MSR_IA32_A_PMC0, SIM_MAX_GP, idx))
		return K_APMC;
	/* PERFEVTSELx at 186H + x, up to 19FH: IA32_MISC_ENABLE is at 1A0H. */
	if (sim_msr_in(msr, MSR_IA32_PERFEVTSEL0, MSR_IA32_MISC_ENABLE - MSR_IA32_PERFEVTSEL0, idx))
		return K_EVTSEL;
	if (sim_msr_in(msr, MSR_IA32_FIXED_CTR0, SIM_MAX_FIXED, idx))
		return K_FIXED;
	return classify_v6(msr, idx);
}

/* A counter MSR exists exactly when CPUID enumerates its counter (Vol. 4
 * Table 2-2: "If CPUID.0AH: EAX[15:8] > n", fixed: the v5 bitmask rule).
 * An absent one: the caller raises #GP, or the beyond-count quirks'
 * read-as-zero applies. */
/* Auto Counter Reload (SDM Vol. 3B "Auto Counter Reload", read in Linux
 * ec980e4facef / 1856c6c2f841): CFG_B and CFG_C of the counters
 * CPUID.(23H,2) EAX (GP) / EBX (fixed) says can be reloaded; CFG_C also of
 * the architectural-PEBS counters (CPUID.(23H,5)), whose PEBS configuration
 * it holds. The model: everything else #GP. */
static bool acr_reloadable(bool fixed, unsigned i)
{
	const struct caps_leaf23 *l = &g_sim.caps.l23;

	if (!l->present || !l->acr_valid || i >= 32)
		return false;
	return fixed ? fixed_exists(i) && ((l->acr_fixed_reloadable >> i) & 1)
		     : gp_exists(i) && ((l->acr_gp_reloadable >> i) & 1);
}

static bool acr_msr_present(enum kind k, unsigned i)
{
	const struct caps_leaf23 *l = &g_sim.caps.l23;
	bool fixed = k == K_V6_FX_CFG_B || k == K_V6_FX_CFG_C;
	bool cfg_c = k == K_V6_CFG_C || k == K_V6_FX_CFG_C;

	if (acr_reloadable(fixed, i))
		return !(cfg_c && quirk(Q_ACR_CFG_C_MISSING));
	if (cfg_c && l->present && l->arch_pebs && i < 32)
		return fixed ? (l->pebs_fixed >> i) & 1 : (l->pebs_gp >> i) & 1;
	return false;
}

/* The counters CPUID.(23H,2) ECX (GP, bit n) / EDX (fixed, bit 32 + m) says
 * can cause a reload: CFG_B's defined bits (the model: others #GP, as Linux
 * saw on Panther Lake, 43796f305078). */
static uint64_t acr_cause_mask(void)
{
	const struct caps_leaf23 *l = &g_sim.caps.l23;

	return (uint64_t)l->acr_gp_cause | ((uint64_t)l->acr_fixed_cause << 32);
}

/* An architectural-PEBS counter's CFG_C (CPUID.(23H,5)): the reload value,
 * EN[63] and the groups CPUID.(23H,4):EBX enumerates at 32 + k (Linux
 * `arch_pebs_cap.caps = EBX << 32`); the model: other bits #GP. A counter
 * only ACR reloads keeps any value. */
static bool apebs_cfg_c_ok(bool fixed, unsigned i, uint64_t v)
{
	const struct caps_leaf23 *l = &g_sim.caps.l23;
	uint64_t valid = APEBS_CFG_RELOAD | APEBS_CFG_EN | ((uint64_t)l->pebs_caps << 32);

	if (!l->arch_pebs || i >= 32 || !(((fixed ? l->pebs_fixed : l->pebs_gp) >> i) & 1))
		return true;
	return !(v & ~valid) || quirk(Q_APEBS_GROUPS_UNCHECKED);
}

enum counter_msr { CTR_MSR_NONE, CTR_MSR_PRESENT, CTR_MSR_ABSENT };
static enum counter_msr counter_msr(uint32_t msr, enum kind *k, unsigned *idx)
{
	*k = classify(msr, idx);
	switch (*k) {
	case K_NONE:
		return CTR_MSR_NONE;
	case K_PMC:
	case K_EVTSEL:
		return gp_exists(*idx) ? CTR_MSR_PRESENT : CTR_MSR_ABSENT;
	case K_APMC:
		/* IA32_A_PMCx only with IA32_PERF_CAPABILITIES[13] (Vol. 3B
		 * 20.2.6 "Full-Width Writes"). */
		if (!g_sim.fw_write && !quirk(Q_FW_WITHOUT_CAP))
			return CTR_MSR_ABSENT;
		return gp_exists(*idx) ? CTR_MSR_PRESENT : CTR_MSR_ABSENT;
	case K_FIXED:
		return (g_sim.version >= 2 && fixed_exists(*idx)) ? CTR_MSR_PRESENT
								  : CTR_MSR_ABSENT;
	case K_V6_CTR:
	case K_V6_CFG_A:
		return gp_exists(*idx) ? CTR_MSR_PRESENT : CTR_MSR_ABSENT;
	case K_V6_FX_CTR:
		return fixed_exists(*idx) ? CTR_MSR_PRESENT : CTR_MSR_ABSENT;
	case K_V6_FX_CFG_A:
		return CTR_MSR_ABSENT;
	case K_V6_CFG_B:
	case K_V6_CFG_C:
	case K_V6_FX_CFG_B:
	case K_V6_FX_CFG_C:
		return acr_msr_present(*k, *idx) ? CTR_MSR_PRESENT : CTR_MSR_ABSENT;
	}
	return CTR_MSR_NONE;
}

static bool absent_reads_zero(enum kind k, unsigned idx)
{
	if (k == K_V6_FX_CFG_A)
		return quirk(Q_V6_FX_CFG_A);
	if (k == K_V6_CTR || k == K_V6_CFG_A || k == K_V6_FX_CTR)
		return quirk(Q_V6_ALIAS_BEYOND_BITMAP);
	if (k == K_V6_CFG_B || k == K_V6_CFG_C || k == K_V6_FX_CFG_B || k == K_V6_FX_CFG_C)
		return quirk(Q_ACR_MSRS_EVERYWHERE);
	if (k == K_FIXED)
		return quirk(Q_FIXED_BEYOND_COUNT);
	if (k == K_APMC && !g_sim.fw_write)
		return false;
	return quirk(Q_GP_BEYOND_COUNT) && idx >= g_sim.n_gp;
}

static enum sim_msr_result arch_rdmsr(uint32_t msr, uint64_t *val)
{
	enum kind k;
	unsigned i;

	if (!g_sim.arch_pmu)
		return SIM_MSR_NOT_MINE;
	enum counter_msr c = counter_msr(msr, &k, &i);
	if (c == CTR_MSR_ABSENT) {
		if (absent_reads_zero(k, i)) {
			*val = 0;
			return SIM_MSR_OK;
		}
		return SIM_MSR_GP;
	}
	if (c == CTR_MSR_PRESENT) {
		switch (k) {
		case K_PMC:
			*val = P->pmc[i];
			return SIM_MSR_OK;
		case K_APMC:
			*val = quirk(Q_A_PMC_SHADOW) ? P->apmc_shadow[i] : P->pmc[i];
			return SIM_MSR_OK;
		case K_EVTSEL:
			*val = P->evtsel[i];
			return SIM_MSR_OK;
		case K_FIXED:
			*val = P->fixed[i];
			return SIM_MSR_OK;
		case K_V6_CTR:
			*val = quirk(Q_V6_ALIAS_SEPARATE) ? P->v6_ctr[i]
			       : quirk(Q_V6_ALIAS_STALE)  ? P->v6_written[i]
							  : P->pmc[i];
			return SIM_MSR_OK;
		case K_V6_CFG_A:
			*val = quirk(Q_V6_ALIAS_SEPARATE) ? P->v6_cfg_a[i] : P->evtsel[i];
			return SIM_MSR_OK;
		case K_V6_FX_CTR:
			*val = quirk(Q_V6_ALIAS_SEPARATE) ? P->v6_fx[i] : P->fixed[i];
			return SIM_MSR_OK;
		case K_V6_CFG_B:
			*val = P->acr_b[i];
			return SIM_MSR_OK;
		case K_V6_CFG_C:
			*val = P->acr_c[i];
			return SIM_MSR_OK;
		case K_V6_FX_CFG_B:
			*val = P->acr_fx_b[i];
			return SIM_MSR_OK;
		case K_V6_FX_CFG_C:
			*val = P->acr_fx_c[i];
			return SIM_MSR_OK;
		default:
			break;
		}
	}
	if (g_sim.version >= 2 || quirk(Q_V1_GLOBAL_MSRS)) {
		switch (msr) {
		case MSR_IA32_FIXED_CTR_CTRL:
			*val = P->fixed_ctrl;
			return SIM_MSR_OK;
		case MSR_IA32_PERF_GLOBAL_STATUS:
			*val = P->global_status;
			return SIM_MSR_OK;
		case MSR_IA32_PERF_GLOBAL_CTRL:
			*val = P->global_ctrl;
			return SIM_MSR_OK;
		case MSR_IA32_PERF_GLOBAL_OVF_CTRL:
			/* write-1-to-clear; reads return 0 */
			*val = 0;
			return SIM_MSR_OK;
		}
	}
	if (g_sim.version >= 4) {
		switch (msr) {
		case MSR_IA32_PERF_GLOBAL_STATUS_SET:
			*val = 0;
			return SIM_MSR_OK;
		case MSR_IA32_PERF_GLOBAL_INUSE:
			*val = inuse();
			return SIM_MSR_OK;
		}
	}
	if (msr == MSR_IA32_PERF_METRICS && g_sim.perf_metrics) {
		*val = sim_perf_metrics();
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

/* The encoding of an architectural event CPUID.0AH:EBX marks unavailable
 * (only the evtsel-unavailable-event-rejected quirk cares). */
static bool unavailable_arch_event(uint64_t sel)
{
	uint8_t e = FIELD_GET_ULL(PERFEVTSEL_EVENT, sel);
	uint8_t u = FIELD_GET_ULL(PERFEVTSEL_UMASK, sel);

	for (unsigned i = 0; i < ARCH_EVENT_COUNT; i++)
		if (arch_events[i].event == e && arch_events[i].umask == u)
			return !g_sim.caps.pm.event_available[i];
	return false;
}

/* The bits the 2023-2026 parts define, as the documents describe them and
 * independently of the suite's reading: BR_CNTR (35) on PMCi
 * when CPUID.(1CH,0):ECX[16 + i] (Linux 33744916196b, `lbr_counters`, one
 * bit per PMC0-3), RDPMC_USR_DISABLE (37) on every counter when
 * CPUID.(23H,0):EBX[2] (Linux 59af95e028d4). */
uint64_t sim_evtsel_new_bits(unsigned i)
{
	const struct caps *c = &g_sim.caps;
	uint64_t bits = 0;

	if (c->arch_lbr.present && i < 4 && (c->arch_lbr.event_logging >> i) & 1)
		bits |= PERFEVTSEL_BR_CNTR;
	if (c->l23.present && c->l23.rdpmc_user_disable)
		bits |= PERFEVTSEL_RDPMC_USR_DISABLE;
	return bits;
}

/* Xen's vpmu=ipc / vpmu=arch event filter (core2_vpmu_do_wrmsr(),
 * xen/arch/x86/cpu/vpmu_intel.c): bits 15:0 of every IA32_PERFEVTSELx write,
 * enabled or not (0 included), must be one of its listed encodings. */
static bool xen_event_blocked(uint64_t sel)
{
	static const uint16_t ipc[] = {0x003C, 0x013C, 0x00C0};
	static const uint16_t arch[] = {0x4F2E, 0x412E, 0x00C4, 0x00C5};
	uint16_t ue = (uint16_t)(sel & 0xFFFF);

	if (!quirk(Q_XEN_IPC_ONLY) && !quirk(Q_XEN_ARCH_ONLY))
		return false;
	for (unsigned i = 0; i < ARRAY_SIZE(ipc); i++)
		if (ue == ipc[i])
			return false;
	for (unsigned i = 0; quirk(Q_XEN_ARCH_ONLY) && i < ARRAY_SIZE(arch); i++)
		if (ue == arch[i])
			return false;
	return true;
}

/* IA32_PERFEVTSELi's reserved bits: the high half as caps.c reads the SDM
 * (caps_evtsel_high_reserved), AnyThread (21) unless version 3 allows it. */
static uint64_t evtsel_reserved(unsigned i)
{
	const struct caps *c = &g_sim.caps;
	uint64_t res = caps_evtsel_high_reserved(c, i);

	if (quirk(Q_ADAPTIVE_RECORD_REJECTED))
		res |= PERFEVTSEL_ADAPTIVE;
	if (quirk(Q_IN_TX_REJECTED))
		res |= PERFEVTSEL_IN_TX | PERFEVTSEL_IN_TXCP;
	if (quirk(Q_IN_TXCP_EVERY_COUNTER) && (c->hle || c->rtm))
		res &= ~PERFEVTSEL_IN_TXCP;
	if (!g_sim.anythread_ok)
		res |= PERFEVTSEL_ANY;
	if (quirk(Q_EVTSEL_NEW_BITS_REJECTED))
		return res | PERFEVTSEL_BR_CNTR | PERFEVTSEL_RDPMC_USR_DISABLE;
	res &= ~sim_evtsel_new_bits(i);
	if (quirk(Q_RDPMC_USR_DIS_RESERVED))
		res |= PERFEVTSEL_RDPMC_USR_DISABLE;
	return res;
}

static enum sim_msr_result write_counter(enum kind k, unsigned i, uint64_t v)
{
	switch (k) {
	case K_PMC:
		if (quirk(Q_PMC_LEGACY_WRITE_IGNORED) && g_sim.fw_write)
			return SIM_MSR_OK;
		/* Vol. 3B 20.2.6: a WRMSR to IA32_PMCx writes EAX[31:0]
		 * sign-extended to the counter width. */
		if (quirk(Q_LEGACY_FULL))
			P->pmc[i] = store(v, gp_mask());
		else if (quirk(Q_LEGACY_ZERO_EXT))
			P->pmc[i] = store((uint32_t)v, gp_mask());
		else
			P->pmc[i] = store((uint64_t)(int64_t)(int32_t)(uint32_t)v, gp_mask());
		P->v6_written[i] = P->pmc[i];
		return SIM_MSR_OK;
	case K_APMC:
		/* Full-width writes: bits above the width are reserved, #GP(0). */
		if ((v & ~gp_mask()) && !quirk(Q_FW_NO_WIDTH_GP))
			return SIM_MSR_GP;
		P->pmc[i] = v & gp_mask();
		P->apmc_shadow[i] = P->pmc[i];
		P->v6_written[i] = P->pmc[i];
		return SIM_MSR_OK;
	case K_V6_CTR:
		/* The model takes full-width writes (Linux writes full-width
		 * values through GPn_CTR; no text read states it). */
		if (v & ~gp_mask())
			return SIM_MSR_GP;
		if (quirk(Q_V6_ALIAS_SEPARATE)) {
			P->v6_ctr[i] = v;
			return SIM_MSR_OK;
		}
		return write_counter(K_APMC, i, v);
	case K_V6_CFG_A:
		if ((v & evtsel_reserved(i)) && !quirk(Q_V6_CFG_A_RESERVED))
			return SIM_MSR_GP;
		if (quirk(Q_V6_ALIAS_SEPARATE)) {
			P->v6_cfg_a[i] = v;
			return SIM_MSR_OK;
		}
		P->evtsel[i] = v;
		P->gp_last[i] = false;
		return SIM_MSR_OK;
	case K_V6_FX_CTR:
		if (quirk(Q_V6_ALIAS_SEPARATE)) {
			if (v & ~fixed_mask())
				return SIM_MSR_GP;
			P->v6_fx[i] = v;
			return SIM_MSR_OK;
		}
		return write_counter(K_FIXED, i, v);
	case K_V6_CFG_B:
	case K_V6_FX_CFG_B:
		if ((v & ~acr_cause_mask()) && !quirk(Q_ACR_CAUSE_UNCHECKED))
			return SIM_MSR_GP;
		*(k == K_V6_CFG_B ? &P->acr_b[i] : &P->acr_fx_b[i]) = v;
		return SIM_MSR_OK;
	case K_V6_CFG_C:
	case K_V6_FX_CFG_C:
		if (!apebs_cfg_c_ok(k == K_V6_FX_CFG_C, i, v))
			return SIM_MSR_GP;
		*(k == K_V6_CFG_C ? &P->acr_c[i] : &P->acr_fx_c[i]) = v;
		return SIM_MSR_OK;
	case K_FIXED:
		/* Vol. 3B 20.2.2: bits beyond the fixed width are reserved. */
		if ((v & ~fixed_mask()) && !quirk(Q_FIXED_NO_WIDTH_GP))
			return SIM_MSR_GP;
		P->fixed[i] = v & fixed_mask();
		if (i == FIXED_TOPDOWN_SLOTS && !quirk(Q_METRICS_NO_CLEAR))
			reset_metrics();
		if (i == FIXED_REF_CYCLES && P->ref_sticky) {
			/* Only a reset below MAX that follows the clear. */
			P->ref_rewritten = P->ref_cleared && P->fixed[i] != fixed_mask();
			if (P->ref_rewritten)
				ref_tsc_refire();
			else
				P->ref_sticky = false;
		}
		return SIM_MSR_OK;
	case K_EVTSEL:
		if ((v & evtsel_reserved(i)) && !quirk(Q_EVTSEL_RESERVED))
			return SIM_MSR_GP;
		if (quirk(Q_EVTSEL_UNAVAIL_GP) && unavailable_arch_event(v))
			return SIM_MSR_GP;
		if (xen_event_blocked(v))
			return SIM_MSR_GP;
		P->evtsel[i] = v;
		P->gp_last[i] = false;
		return SIM_MSR_OK;
	default:
		return SIM_MSR_GP;
	}
}

static enum sim_msr_result arch_wrmsr(uint32_t msr, uint64_t v)
{
	enum kind k;
	unsigned i;

	if (!g_sim.arch_pmu)
		return SIM_MSR_NOT_MINE;
	enum counter_msr c = counter_msr(msr, &k, &i);
	if (c == CTR_MSR_ABSENT)
		return absent_reads_zero(k, i) ? SIM_MSR_OK : SIM_MSR_GP;
	if (c == CTR_MSR_PRESENT)
		return write_counter(k, i, v);
	if (g_sim.version >= 2 || quirk(Q_V1_GLOBAL_MSRS)) {
		switch (msr) {
		case MSR_IA32_FIXED_CTR_CTRL:
			if ((v & ~g_sim.fixed_ctrl_valid) && !quirk(Q_FIXED_CTRL_RESERVED))
				return SIM_MSR_GP;
			P->fixed_ctrl = v;
			return SIM_MSR_OK;
		case MSR_IA32_PERF_GLOBAL_STATUS:
			/* Read-only (Vol. 4 Table 2-2, 38EH "RO"). */
			if (!quirk(Q_STATUS_WRITABLE))
				return SIM_MSR_GP;
			P->global_status = v;
			return SIM_MSR_OK;
		case MSR_IA32_PERF_GLOBAL_CTRL:
			if ((v & ~g_sim.global_ctrl_valid) && !quirk(Q_GLOBAL_CTRL_RESERVED))
				return SIM_MSR_GP;
			P->global_ctrl = v;
			return SIM_MSR_OK;
		case MSR_IA32_PERF_GLOBAL_OVF_CTRL:
			if ((v & ~g_sim.status_reset_valid) && !quirk(Q_OVF_CTRL_RESERVED))
				return SIM_MSR_GP;
			if ((v & GLOBAL_STATUS_COND_CHGD) && quirk(Q_CLR_COND_CHGD_GP))
				return SIM_MSR_GP;
			if (!quirk(Q_OVF_CTRL_NO_CLEAR) &&
			    !(quirk(Q_ZXC_OVF_CLEAR_NEEDS_ENABLE) && !P->global_ctrl)) {
				P->global_status &= ~v;
				if (P->ref_sticky && (v & GLOBAL_FIXED_BIT(FIXED_REF_CYCLES)))
					P->ref_cleared = true;
			}
			return SIM_MSR_OK;
		}
	}
	if (g_sim.version >= 4) {
		switch (msr) {
		case MSR_IA32_PERF_GLOBAL_STATUS_SET:
			/* Vol. 3B 20.2.4.2: sets the written bits in STATUS. */
			if (v & ~g_sim.status_set_valid)
				return SIM_MSR_GP;
			if (!quirk(Q_STATUS_SET_IGNORED))
				P->global_status |= v;
			return SIM_MSR_OK;
		case MSR_IA32_PERF_GLOBAL_INUSE:
			return SIM_MSR_GP; /* read-only */
		}
	}
	if (msr == MSR_IA32_PERF_METRICS && g_sim.perf_metrics) {
		/* The model: any write resets the accumulated fractions. */
		if (!quirk(Q_METRICS_NO_CLEAR))
			reset_metrics();
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

/* RDPMC user disable (ISE, read in Linux 59af95e028d4): "If (!CPL0 &&
 * RDPMC_USR_DISABLE[x] == 1) ? 0 : counter_value". `set` is the counter's
 * bit; the quirks are the ways to get it wrong. */
static uint64_t user_disable_read(bool set, uint64_t v)
{
	bool any = false;

	if (!g_sim.caps.l23.rdpmc_user_disable || quirk(Q_RDPMC_USR_DIS_IGNORED))
		return v;
	if (quirk(Q_RDPMC_USR_DIS_ALL_COUNTERS)) {
		for (unsigned i = 0; i < SIM_MAX_GP; i++)
			any |= (P->evtsel[i] & PERFEVTSEL_RDPMC_USR_DISABLE) != 0;
		for (unsigned i = 0; i < FIXED_CTRL_HIGH_FIELDS; i++)
			any |= (P->fixed_ctrl & FIXED_CTRL_RDPMC_USR_DISABLE(i)) != 0;
	}
	if (!set && !any)
		return v;
	if (g_sim.cpl != 0 || quirk(Q_RDPMC_USR_DIS_AT_CPL0))
		return 0;
	return v;
}

/* RDPMC's view of the counters (rdpmc_arch.c). */
bool sim_arch_gp_value(unsigned i, uint64_t *v)
{
	if (!gp_exists(i))
		return false;
	*v = user_disable_read(P->evtsel[i] & PERFEVTSEL_RDPMC_USR_DISABLE, P->pmc[i]);
	return true;
}

bool sim_arch_fixed_value(unsigned i, bool edx_rule_only, uint64_t *v)
{
	bool ok = edx_rule_only ? i < g_sim.caps.pm.fixed_counters_edx : fixed_exists(i);
	if (!ok || g_sim.version < 2)
		return false;
	*v = i < SIM_MAX_FIXED ? P->fixed[i] : 0;
	if (i < FIXED_CTRL_HIGH_FIELDS)
		*v = user_disable_read(P->fixed_ctrl & FIXED_CTRL_RDPMC_USR_DISABLE(i), *v);
	return true;
}

/* The RDPMC at CPL > 0 of a user-disabled counter (rdpmc.c): true when the
 * faulting quirk turns the 0 into a #GP. */
bool sim_arch_user_disable_faults(uint32_t ecx)
{
	uint32_t type = ecx >> 16, idx = ecx & 0xFFFF;

	if (!quirk(Q_RDPMC_USR_DIS_FAULTS) || g_sim.cpl == 0 || !g_sim.caps.l23.rdpmc_user_disable)
		return false;
	if (type == 0 && idx < SIM_MAX_GP)
		return P->evtsel[idx] & PERFEVTSEL_RDPMC_USR_DISABLE;
	if (type == 0x4000 && idx < FIXED_CTRL_HIGH_FIELDS)
		return P->fixed_ctrl & FIXED_CTRL_RDPMC_USR_DISABLE(idx);
	return false;
}

/* Power-up: Vol. 3B 20.2.2, the enable bits of the GP counters in
 * IA32_PERF_GLOBAL_CTRL are set (v1 software keeps working). */
static void arch_reset(void)
{
	bool wrong_here =
	    quirk(Q_GLOBAL_CTRL_RESET_ZERO) || (quirk(Q_GLOBAL_CTRL_RESET_AP) && g_sim.index != 0);
	if (g_sim.version >= 2 && !wrong_here)
		P->global_ctrl = g_sim.gp_reset;
	if (g_sim.version >= 2 && quirk(Q_GLOBAL_CTRL_RESET_RSVD))
		P->global_ctrl |= BIT_ULL(62);
}

const struct sim_family sim_family_arch =
    SIM_FAMILY("architectural", arch_rdmsr, arch_wrmsr, arch_collect, arch_overflow, sim_arch_rdpmc,
	       arch_reset, arch_advance);
