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

static void pebs_reset(void)
{
	memset(&S, 0, sizeof(S));
}

static enum sim_msr_result pebs_rdmsr(uint32_t msr, uint64_t *val)
{
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
		if (val & ~DATA_CFG_VALID)
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

/* The instruction the model says overflowed: inside the gated loop. */
#define SIM_PEBS_IP_OFFSET 0x10

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
}

const struct sim_family sim_family_pebs =
    SIM_FAMILY("pebs", pebs_rdmsr, pebs_wrmsr, NULL, NULL, NULL, pebs_reset, NULL);

bool sim_pebs_overflow(bool fixed, unsigned idx)
{
	unsigned bit = fixed ? GLOBAL_FIXED_SHIFT + idx : idx;

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
