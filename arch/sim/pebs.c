/* SPDX-License-Identifier: MIT */
/*
 * PEBS on the simulated CPU (SDM Vol. 3B 18.4.9 "BTS and DS Save Area";
 * 20.9 "PEBS Facility", adaptive PEBS): the DS save area lives in the memory
 * of the process the suite runs in (the simulated kernel's memory), so the
 * model writes real records there, byte for byte what the suite then reads.
 *
 * A counter whose IA32_PEBS_ENABLE bit is set does not signal its overflow
 * the ordinary way: the PEBS assist writes a record at the DS PEBS index,
 * advances the index, reloads the counter from the DS reset field, and
 * when the index reaches the interrupt threshold sets
 * IA32_PERF_GLOBAL_STATUS.OvfBuf (bit 62) and requests a PMI.
 */
#include <string.h>

#include "sim.h"

static struct {
	uint64_t ds_area, enable, data_cfg;
	uint64_t apebs_base, apebs_index; /* IA32_PEBS_BASE, IA32_PEBS_INDEX */
} S;

/* DS save area, 64-bit layout (the 64-bit DS save area figure of 18.4.9): BTS
 * fields, then the PEBS buffer base, index, absolute maximum, interrupt
 * threshold, then the counter reset values: GP counter n at n, fixed
 * counter i after the eight GP slots of extended PEBS. */
enum ds_field {
	DS_PEBS_BASE = 4,
	DS_PEBS_INDEX = 5,
	DS_PEBS_ABS_MAX = 6,
	DS_PEBS_THRESHOLD = 7,
	DS_PEBS_RESET = 8,
	DS_PEBS_RESET_FIXED = 8 + 8,
	/* PEBS format 5 and later: 32 GP slots, then 16 fixed (Linux
	 * 2145e77fecfb "Enable PEBS format 5"). */
	DS_PEBS_RESET_FIXED_FMT5 = 8 + 32,
};

/* Architectural PEBS (PEBS_FMT = 0FH): "IA32_PEBS_ENABLE and
 * MSR_PEBS_DATA_CFG MSRs are no longer existed for arch-PEBS" (Linux
 * d243d0bb64af): the DS-area PEBS protocol is not there (IA32_DS_AREA stays,
 * BTS's). */
static bool arch_pebs(void)
{
	return FIELD_GET_ULL(PERF_CAP_PEBS_FMT, g_sim.perf_cap) == PERF_CAP_PEBS_FMT_ARCH;
}

/* Timed PEBS (IA32_PERF_CAPABILITIES[17]): the basic record's format field
 * is bits 31:0, bits 47:32 the retire latency (ISE "Timed Processor Event
 * Based Sampling"; kvm-unit-tests 939d7902). The model's latency: some
 * cycles, never 0. */
#define SIM_RETIRE_LATENCY 23

static unsigned reset_slot(bool fixed, unsigned idx)
{
	unsigned fmt = g_sim.caps.perf_cap.pebs_format;

	if (!fixed)
		return DS_PEBS_RESET + idx;
	if (fmt >= 5 && !quirk(Q_PEBS_RESET_FMT4_LAYOUT))
		return DS_PEBS_RESET_FIXED_FMT5 + idx;
	return DS_PEBS_RESET_FIXED + idx;
}

static bool has_ds(void)
{
	return g_sim.arch_pmu && g_sim.caps.ds;
}

/* The DS-area PEBS MSRs. Not on an architectural-PEBS part: "IA32_PEBS_ENABLE
 * and MSR_PEBS_DATA_CFG MSRs are no longer existed for arch-PEBS" (Linux
 * d243d0bb64af; caps_arch_pebs()); IA32_DS_AREA stays (BTS). */
static bool ds_pebs_msr(uint32_t msr)
{
	return (msr == MSR_IA32_PEBS_ENABLE || msr == MSR_PEBS_DATA_CFG) &&
	       caps_arch_pebs(&g_sim.caps);
}

/* The instruction the model says overflowed: inside the gated loop. */
#define SIM_PEBS_IP_OFFSET 0x10

/* ---- Architectural PEBS (ISE ch. 11, as Linux d243d0bb64af / 2721e8da2de7
 * lay it out: include/msr.h APEBS_*): IA32_PEBS_BASE names a buffer of
 * 4 KiB << SIZE, IA32_PEBS_INDEX its write offset WR (16-byte units), FULL,
 * EN and the threshold; a counter's CFG_C (pmu_arch.c stores it) enables
 * it and names the groups. The model writes the header, the basic group
 * and zeroed groups of the enumerated sizes. */
static bool apebs_msr(uint32_t msr)
{
	return (msr == MSR_IA32_PEBS_BASE || msr == MSR_IA32_PEBS_INDEX) &&
	       caps_arch_pebs(&g_sim.caps) && g_sim.arch_pmu;
}

static enum sim_msr_result apebs_wrmsr(uint32_t msr, uint64_t val)
{
	if (msr == MSR_IA32_PEBS_BASE) {
		S.apebs_base = val;
		return SIM_MSR_OK;
	}
	if ((val & APEBS_INDEX_RSVD) && !quirk(Q_APEBS_INDEX_RSVD))
		return SIM_MSR_GP;
	S.apebs_index = val;
	return SIM_MSR_OK;
}

/* A record's parts after its header, in the order Linux's
 * setup_arch_pebs_sample_data() reads them (basic, AUX, GPR, XMM with its
 * header, LBR with its header, counters with theirs): each carries the
 * header bits that name it and its bytes. */
struct apebs_part {
	uint64_t bits;
	unsigned bytes;
};

/* The LBR group's entries: 8 or 16 by the field, or (NUM_VAR) the depth its
 * header gives, which the model takes from IA32_LBR_DEPTH. */
static unsigned apebs_lbr_entries(uint64_t cfg)
{
	unsigned v = (unsigned)FIELD_GET_ULL(APEBS_CFG_LBR, cfg);

	return v == APEBS_LBR_NUM_VAR ? sim_arch_lbr_depth() : v * APEBS_LBR_BASE_ENTRIES;
}

/* The counters group's snapshot: the counters whose CFG_C has ALLOW, of the
 * kinds the sampling counter's CFG_C names (Q_APEBS_CNTR_ALLOW_IGNORED:
 * every GP counter that exists). */
static void apebs_cntr_masks(uint64_t cfg, uint32_t *gp, uint32_t *fx, bool *metrics)
{
	*gp = *fx = 0;
	for (unsigned i = 0; i < 32; i++) {
		if ((cfg & APEBS_CFG_CNTR_GP) && ((g_sim.gp_exists >> i) & 1) &&
		    ((g_sim.pmu.acr_c[i] & APEBS_CFG_CNTR_ALLOW) ||
		     quirk(Q_APEBS_CNTR_ALLOW_IGNORED)))
			*gp |= 1U << i;
		if ((cfg & APEBS_CFG_CNTR_FIXED) && i < 16 && ((g_sim.fixed_exists >> i) & 1) &&
		    (g_sim.pmu.acr_fx_c[i] & APEBS_CFG_CNTR_ALLOW))
			*fx |= 1U << i;
	}
	*metrics = (cfg & APEBS_CFG_CNTR_METRICS) && g_sim.perf_metrics;
}

static unsigned apebs_parts(uint64_t cfg, struct apebs_part *p)
{
	unsigned n = 0;

	p[n++] = (struct apebs_part){APEBS_HDR_BASIC, APEBS_BASIC_BYTES};
	if (cfg & APEBS_CFG_AUX)
		p[n++] = (struct apebs_part){APEBS_HDR_AUX, APEBS_AUX_BYTES};
	if (cfg & APEBS_CFG_GPR)
		p[n++] = (struct apebs_part){
		    APEBS_HDR_GPR, APEBS_GPR_BYTES - (quirk(Q_APEBS_GPR_NO_SSP) ? 16 : 0)};
	if (cfg & APEBS_CFG_XMM)
		p[n++] = (struct apebs_part){APEBS_HDR_XMM, APEBS_XMM_BYTES};
	if (cfg & APEBS_CFG_LBR)
		p[n++] = (struct apebs_part){cfg & APEBS_HDR_LBR,
					     APEBS_LBR_HDR_BYTES +
						 apebs_lbr_entries(cfg) * APEBS_LBR_ENTRY_BYTES};
	if (cfg & APEBS_CFG_CNTR_KINDS) {
		uint32_t gp, fx;
		bool m;

		apebs_cntr_masks(cfg, &gp, &fx, &m);
		p[n++] = (struct apebs_part){
		    cfg & APEBS_CFG_CNTR_KINDS,
		    APEBS_CNTR_HDR_BYTES + 8 * (unsigned)(__builtin_popcount(gp) +
							  __builtin_popcount(fx) + (m ? 2 : 0))};
	}
	return n;
}

/* Split records (the header's CONT[31]): Linux's parser takes a record in
 * fragments, each with its own header and size, every one but the last
 * with CONT, the basic group in the first (d21954c8a0ff's
 * arch_pebs_record_continued(), intel_pmu_drain_arch_pebs()). No text read
 * says when the hardware splits: the model splits a record at its parts'
 * boundaries into fragments of at most this many bytes (a part larger than
 * that is a fragment of its own), so the rules the parser relies on are
 * exercised by every record with groups beyond it. */
#define SIM_APEBS_FRAGMENT_BYTES 0x200

static unsigned apebs_fragments(const struct apebs_part *p, unsigned n, unsigned *first)
{
	unsigned frags = 0, fill = 0;

	for (unsigned k = 0; k < n; k++) {
		if (k == 0 || fill + p[k].bytes > SIM_APEBS_FRAGMENT_BYTES) {
			first[frags++] = k;
			fill = APEBS_HDR_BYTES;
		}
		fill += p[k].bytes;
	}
	first[frags] = n;
	return frags;
}

/* Write part k's contents at q (zeroed): the basic group's IP, applicable
 * counters and TSC, the LBR header's depth, the counters snapshot. */
static void apebs_fill(uint64_t *q, const struct apebs_part *p, uint64_t cfg, bool fixed,
		       unsigned idx)
{
	uint64_t lo, hi;

	if (p->bits == APEBS_HDR_BASIC) {
		arch_workload_gated_range(&lo, &hi);
		q[0] = lo + SIM_PEBS_IP_OFFSET;
		q[1] = quirk(Q_APEBS_APPLICABLE_ZERO) ? 0 : BIT_ULL(fixed ? 32 + idx : idx);
		q[2] = g_sim.tsc;
	} else if (p->bits & APEBS_HDR_LBR) {
		q[APEBS_LBR_HDR_DEPTH] =
		    apebs_lbr_entries(cfg) + (quirk(Q_APEBS_LBR_DEPTH_WRONG) ? 8 : 0);
	} else if (p->bits & APEBS_HDR_CNTR) {
		uint32_t gp, fx;
		bool m;
		uint64_t *v = q + APEBS_CNTR_HDR_BYTES / 8;

		apebs_cntr_masks(cfg, &gp, &fx, &m);
		q[0] = gp | ((uint64_t)fx << 32);
		q[1] = m ? PEBS_CNTR_METRICS : 0;
		for (unsigned i = 0; i < 32; i++)
			if ((gp >> i) & 1)
				*v++ = g_sim.pmu.pmc[i];
		for (unsigned i = 0; i < 32; i++)
			if ((fx >> i) & 1)
				*v++ = g_sim.pmu.fixed[i];
		if (m) {
			v[0] = g_sim.pmu.fixed[3];
			v[1] = sim_perf_metrics();
		}
	}
}

/* The record, fragment by fragment, at r; its bytes. */
static unsigned apebs_write(uint8_t *r, uint64_t cfg, bool fixed, unsigned idx, bool dry)
{
	struct apebs_part p[8];
	unsigned n = apebs_parts(cfg, p), first[9], frags = apebs_fragments(p, n, first), at = 0;

	for (unsigned f = 0; f < frags; f++) {
		uint64_t bits = 0;
		unsigned size = APEBS_HDR_BYTES;

		for (unsigned k = first[f]; k < first[f + 1]; k++) {
			if (!dry) {
				memset(r + at + size, 0, p[k].bytes);
				apebs_fill((uint64_t *)(r + at + size), &p[k], cfg, fixed, idx);
			}
			bits |= p[k].bits;
			size += p[k].bytes;
		}
		/* WR counts 16-byte units: a fragment ends on one (the counters
		 * group's odd quadword padded). */
		size = (size + APEBS_UNIT - 1) & ~(APEBS_UNIT - 1);
		if (!dry) {
			bool cont = f + 1 < frags && !quirk(Q_APEBS_SPLIT_NO_CONT);
			uint64_t *h = (uint64_t *)(r + at);

			h[0] = (quirk(Q_APEBS_SIZE_NO_HEADER) ? size - APEBS_HDR_BYTES : size) |
			       bits | (cont ? APEBS_HDR_CONT : 0);
			h[1] = 0;
		}
		at += size;
	}
	return at;
}

static bool apebs_overflow(bool fixed, unsigned idx)
{
	uint64_t cfg = fixed ? g_sim.pmu.acr_fx_c[idx] : g_sim.pmu.acr_c[idx];
	uint64_t base = S.apebs_base & ~0xFFFULL;
	uint64_t end = base + (4096ULL << FIELD_GET_ULL(APEBS_BASE_SIZE, S.apebs_base));
	uint64_t wr = FIELD_GET_ULL(APEBS_INDEX_WR, S.apebs_index) * APEBS_UNIT;

	if (!(cfg & APEBS_CFG_EN) || !(S.apebs_index & APEBS_INDEX_EN) || !base)
		return false;
	unsigned bytes = apebs_write(NULL, cfg, fixed, idx, true);
	if (base + wr + bytes > end && !quirk(Q_APEBS_OVERRUN)) {
		S.apebs_index |= APEBS_INDEX_FULL;
	} else {
		apebs_write((uint8_t *)(uintptr_t)(base + wr), cfg, fixed, idx, false);
		if (!quirk(Q_APEBS_WR_STUCK))
			wr += bytes;
		S.apebs_index = (S.apebs_index & ~APEBS_INDEX_WR) | ((wr / APEBS_UNIT) << 4);
	}
	/* The counter restarts from its CFG_C reload value. */
	if (fixed)
		g_sim.pmu.fixed[idx] = (cfg & APEBS_CFG_RELOAD) & width_mask(g_sim.fixed_width);
	else
		g_sim.pmu.pmc[idx] = (cfg & APEBS_CFG_RELOAD) & width_mask(g_sim.gp_width);
	uint64_t thresh = FIELD_GET_ULL(APEBS_INDEX_THRESH, S.apebs_index) * APEBS_UNIT;
	bool at = wr >= thresh || quirk(Q_APEBS_THRESH_EARLY);
	if (at && !quirk(Q_APEBS_THRESH_NO_STATUS)) {
		g_sim.pmu.global_status |= GLOBAL_STATUS_ARCH_PEBS;
		sim_pmi_request();
	}
	return true;
}

static bool baseline(void)
{
	return has_ds() && (g_sim.perf_cap & PERF_CAP_PEBS_BASELINE);
}

/* IA32_PEBS_ENABLE: a bit per GP counter (PMC0-3 before extended PEBS,
 * every counter with PEBS_BASELINE) and, with PEBS_BASELINE, per fixed
 * counter at 32 + i. */
static uint64_t enable_valid(void)
{
	if (quirk(Q_PEBS_ENABLE_RESERVED))
		return ~0ULL;
	if (!baseline())
		return g_sim.gp_exists & 0xF;
	uint64_t fixed = quirk(Q_PEBS_FIXED_IGNORED) ? 0 : g_sim.fixed_exists;
	return g_sim.gp_exists | (fixed << GLOBAL_FIXED_SHIFT);
}

#define DATA_CFG_VALID                                                                             \
	(PEBS_DATA_CFG_MEMINFO | PEBS_DATA_CFG_GPRS | PEBS_DATA_CFG_XMMS | PEBS_DATA_CFG_LBRS |    \
	 PEBS_DATA_CFG_LBR_ENTRIES)

/* PEBS format 6 adds counters snapshotting (Linux e02e9b0374c3): the group,
 * the metrics, and a bit per GP / fixed counter that exists. */
static uint64_t data_cfg_valid(void)
{
	uint64_t v = DATA_CFG_VALID;

	if (g_sim.caps.perf_cap.pebs_format < 6)
		return v;
	v |= PEBS_DATA_CFG_CNTR | (g_sim.perf_metrics ? PEBS_DATA_CFG_METRICS : 0);
	v |= FIELD_PREP_ULL(PEBS_DATA_CFG_CNTR_GP, g_sim.gp_exists & 0xFFFF);
	return v | FIELD_PREP_ULL(PEBS_DATA_CFG_CNTR_FIXED, g_sim.fixed_exists & 0xFF);
}

/* DATA_CFG[5]: the metrics snapshot (Q_PEBS_CNTR_METRICS_MISSING: left out). */
static bool metrics_snapshot(uint64_t cfg)
{
	return (cfg & PEBS_DATA_CFG_METRICS) && !quirk(Q_PEBS_CNTR_METRICS_MISSING);
}

/* The counters group's quadwords: header 2, one per counter, metrics 2. */
static unsigned cntr_qwords(uint64_t cfg)
{
	if (!(cfg & PEBS_DATA_CFG_CNTR))
		return 0;
	return 2 + (unsigned)__builtin_popcountll(cfg & PEBS_DATA_CFG_CNTR_GP) +
	       (unsigned)__builtin_popcountll(cfg & PEBS_DATA_CFG_CNTR_FIXED) +
	       (metrics_snapshot(cfg) ? 2 : 0);
}

static void pebs_reset(void)
{
	memset(&S, 0, sizeof(S));
}

static enum sim_msr_result pebs_rdmsr(uint32_t msr, uint64_t *val)
{
	if (apebs_msr(msr)) {
		*val = msr == MSR_IA32_PEBS_BASE ? S.apebs_base : S.apebs_index;
		return SIM_MSR_OK;
	}
	if (!has_ds() || ds_pebs_msr(msr))
		return SIM_MSR_NOT_MINE;
	switch (msr) {
	case MSR_IA32_DS_AREA:
		*val = S.ds_area;
		return SIM_MSR_OK;
	case MSR_IA32_PEBS_ENABLE:
		if (arch_pebs())
			return SIM_MSR_NOT_MINE;
		*val = S.enable;
		return SIM_MSR_OK;
	case MSR_PEBS_DATA_CFG:
		if (!baseline() || arch_pebs())
			return SIM_MSR_NOT_MINE;
		*val = S.data_cfg;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static enum sim_msr_result pebs_wrmsr(uint32_t msr, uint64_t val)
{
	if (apebs_msr(msr))
		return apebs_wrmsr(msr, val);
	if (!has_ds() || ds_pebs_msr(msr))
		return SIM_MSR_NOT_MINE;
	switch (msr) {
	case MSR_IA32_DS_AREA:
		S.ds_area = val;
		return SIM_MSR_OK;
	case MSR_IA32_PEBS_ENABLE:
		if (arch_pebs())
			return SIM_MSR_NOT_MINE;
		if (val & ~enable_valid())
			return SIM_MSR_GP;
		uint64_t newly = val & ~S.enable;
		S.enable = val;
		/* Q_PEBS_RECORD_ON_ENABLE: a record for each GP counter PEBS
		 * is switched on for, before any overflow. */
		for (unsigned i = 0; quirk(Q_PEBS_RECORD_ON_ENABLE) && i < GLOBAL_FIXED_SHIFT; i++)
			if ((newly >> i) & 1)
				sim_pebs_overflow(false, i);
		return SIM_MSR_OK;
	case MSR_PEBS_DATA_CFG:
		if (!baseline() || arch_pebs())
			return SIM_MSR_NOT_MINE;
		if (val & ~data_cfg_valid())
			return SIM_MSR_GP;
		S.data_cfg = val;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

/* Group sizes of an adaptive record (20.9, the record layout tables): basic
 * 4 quadwords, memory info 4, GPRs 18, XMM 16 x 128 bits, 3 per LBR entry. */
#define BASIC_QWORDS   4
#define MEMINFO_QWORDS 4
#define GPR_QWORDS     18
#define XMM_QWORDS     32
#define LBR_QWORDS     3

static unsigned lbr_entries(uint64_t cfg)
{
	return (unsigned)FIELD_GET_ULL(PEBS_DATA_CFG_LBR_ENTRIES, cfg) + 1;
}

/* A record in quadwords: adaptive (the groups of cfg), basic, or the
 * legacy layout of PEBS formats 1-3 (18 registers and 4, 6 or 7 more). */
static unsigned record_qwords(bool adaptive, uint64_t cfg, bool size_field)
{
	if (baseline()) {
		unsigned n = BASIC_QWORDS;
		if (!adaptive)
			return n;
		n += (cfg & PEBS_DATA_CFG_MEMINFO) ? MEMINFO_QWORDS : 0;
		n += (cfg & PEBS_DATA_CFG_GPRS) ? GPR_QWORDS : 0;
		if ((cfg & PEBS_DATA_CFG_XMMS) && !(size_field && quirk(Q_PEBS_SIZE_IGNORES_XMM)))
			n += XMM_QWORDS;
		n += (cfg & PEBS_DATA_CFG_LBRS) ? LBR_QWORDS * lbr_entries(cfg) : 0;
		if (!(size_field && quirk(Q_PEBS_SIZE_IGNORES_CNTR)))
			n += cntr_qwords(cfg);
		return n;
	}
	switch (g_sim.caps.perf_cap.pebs_format) {
	case 1:
		return 22;
	case 2:
		return 24;
	default:
		return 25;
	}
}

static void write_record(uint64_t *r, unsigned qwords, bool adaptive, uint64_t applicable)
{
	uint64_t lo, hi;

	arch_workload_gated_range(&lo, &hi);
	memset(r, 0, qwords * sizeof(uint64_t));
	if (!baseline()) {
		r[0] = 0x2;			/* RFLAGS */
		r[1] = lo + SIM_PEBS_IP_OFFSET; /* RIP */
		r[18] = applicable;
		return;
	}
	uint64_t cfg = adaptive && !quirk(Q_PEBS_FORMAT_FIELD_ZERO) ? S.data_cfg : 0;
	unsigned size = record_qwords(adaptive, S.data_cfg, true) * 8;
	if (g_sim.perf_cap & PERF_CAP_PEBS_TIMING_INFO && quirk(Q_PEBS_TIMED_GROUPS_HIGH))
		r[0] = ((cfg & GENMASK_ULL(15, 0)) << 32) | ((uint64_t)size << 48);
	else if (g_sim.perf_cap & PERF_CAP_PEBS_TIMING_INFO)
		r[0] = (cfg & GENMASK_ULL(31, 0)) | ((uint64_t)SIM_RETIRE_LATENCY << 32) |
		       ((uint64_t)size << 48);
	else
		r[0] = (cfg & GENMASK_ULL(47, 0)) | ((uint64_t)size << 48);
	r[1] = quirk(Q_PEBS_IP_ZERO) ? 0 : lo + SIM_PEBS_IP_OFFSET;
	r[2] = quirk(Q_PEBS_APPLICABLE_ZERO) ? 0 : applicable;
	r[3] = g_sim.tsc;
	/* The counters group, last: each named counter's value now. */
	unsigned q = cntr_qwords(adaptive ? S.data_cfg : 0);
	if (!q)
		return;
	uint64_t *g = r + record_qwords(adaptive, S.data_cfg, false) - q, *v = g + 2;
	uint32_t gp = (uint32_t)FIELD_GET_ULL(PEBS_DATA_CFG_CNTR_GP, S.data_cfg);
	uint32_t fx = (uint32_t)FIELD_GET_ULL(PEBS_DATA_CFG_CNTR_FIXED, S.data_cfg);
	g[0] = gp | ((uint64_t)fx << 32);
	g[1] = metrics_snapshot(S.data_cfg) ? PEBS_CNTR_METRICS : 0;
	for (unsigned i = 0; i < 32; i++)
		if ((gp >> i) & 1)
			*v++ = quirk(Q_PEBS_CNTR_SNAPSHOT_ZERO) ? 0 : g_sim.pmu.pmc[i];
	for (unsigned i = 0; i < 32; i++)
		if ((fx >> i) & 1)
			*v++ = quirk(Q_PEBS_CNTR_SNAPSHOT_ZERO) ? 0 : g_sim.pmu.fixed[i];
	if (metrics_snapshot(S.data_cfg)) {
		v[0] = g_sim.pmu.fixed[3];
		v[1] = sim_perf_metrics();
	}
}

const struct sim_family sim_family_pebs =
    SIM_FAMILY("pebs", pebs_rdmsr, pebs_wrmsr, NULL, NULL, NULL, pebs_reset, NULL);

bool sim_pebs_overflow(bool fixed, unsigned idx)
{
	unsigned bit = fixed ? GLOBAL_FIXED_SHIFT + idx : idx;

	if (caps_arch_pebs(&g_sim.caps))
		return g_sim.arch_pmu && apebs_overflow(fixed, idx);
	if (!has_ds() || !((S.enable >> bit) & 1) || S.ds_area == 0)
		return false;
	if (fixed && !baseline())
		return false;
	/* The quirk: only the lowest enabled counter is PEBS-capable. */
	if (quirk(Q_PEBS_FIRST_COUNTER_ONLY) && (S.enable & (BIT_ULL(bit) - 1)))
		return false;
	uint64_t *ds = (uint64_t *)(uintptr_t)S.ds_area;
	bool adaptive = baseline() && (quirk(Q_PEBS_ADAPTIVE_ALWAYS) ||
				       (fixed ? (g_sim.pmu.fixed_ctrl & FIXED_CTRL_ADAPTIVE(idx))
					      : (g_sim.pmu.evtsel[idx] & PERFEVTSEL_ADAPTIVE)));
	unsigned bytes = record_qwords(adaptive, S.data_cfg, false) * 8;
	unsigned copies = quirk(Q_PEBS_DUPLICATE_RECORD) ? 2 : 1;

	for (unsigned k = 0; k < copies; k++) {
		if (ds[DS_PEBS_INDEX] + bytes > ds[DS_PEBS_ABS_MAX])
			break;
		write_record((uint64_t *)(uintptr_t)ds[DS_PEBS_INDEX], bytes / 8, adaptive,
			     BIT_ULL(bit));
		ds[DS_PEBS_INDEX] += bytes;
	}
	/* The counter restarts from its DS reset value. */
	uint64_t reset = ds[reset_slot(fixed, idx)];
	if (fixed)
		g_sim.pmu.fixed[idx] = reset & width_mask(g_sim.fixed_width);
	else
		g_sim.pmu.pmc[idx] = reset & width_mask(g_sim.gp_width);
	bool full = ds[DS_PEBS_INDEX] >= ds[DS_PEBS_THRESHOLD];
	if (quirk(Q_PEBS_OVFBUF_EARLY))
		full = true;
	if (full && !quirk(Q_PEBS_OVFBUF_NEVER)) {
		g_sim.pmu.global_status |= GLOBAL_STATUS_OVF_BUFFER;
		sim_pmi_request();
	}
	return true;
}
