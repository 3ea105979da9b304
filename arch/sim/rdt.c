/* SPDX-License-Identifier: MIT */
/*
 * RDT monitoring (SDM Vol. 3B 17.18, "Intel Resource Director
 * Technology (Intel RDT) Monitoring Features"): IA32_PQR_ASSOC, IA32_QM_EVTSEL, IA32_QM_CTR.
 *
 * Model: the RMID in IA32_PQR_ASSOC is charged for the workload: L3
 * occupancy grows by one unit (CPUID.(0FH,1):EBX bytes) per 64 instructions
 * up to 64 KiB (the loop's own code and stack; at least one unit), total and local bandwidth by one
 * unit per LLC miss. IA32_QM_CTR reports, for the RMID / event in IA32_QM_EVTSEL: Error (bit 63)
 * when the event is not enumerated in CPUID.(0FH,1):EDX or the RMID exceeds CPUID.(0FH,1):ECX;
 * Unavailable (bit 62) when the RMID has never been associated since reset (no data for it);
 * otherwise the count in bits 61:0, wrapping at the width 24 + CPUID.(0FH,1):EAX[7:0].
 *
 * The memory workloads (include/arch.h): arch_flush_buffer() takes the
 * scratch buffer out of the model's caches; the next arch_workload_touch()
 * of B bytes fills them, charging the associated RMID B bytes of occupancy
 * and B bytes of total (and local) bandwidth, in upscale units; a touch of
 * a buffer still cached charges nothing. A bandwidth counter starts 256
 * units below its wrap when its RMID is first used (hardware gives no reset
 * value), so that every bandwidth check crosses the wrap.
 */
#include "sim.h"

/* This CPU's PMU state (g_sim is the running CPU, smp.c). */
#define P (&g_sim.pmu)

static unsigned mbm_width(void)
{
	return g_sim.caps.rdt.l3.counter_width ? g_sim.caps.rdt.l3.counter_width : 24;
}

/* First association of an RMID since reset: its data becomes available. */
static void use_rmid(uint64_t rmid)
{
	if (rmid >= 1024 || P->rmid_used[rmid])
		return;
	P->rmid_used[rmid] = true;
	P->rmid_bw[rmid] = width_mask(mbm_width()) - 256;
}

static unsigned rmid_bits(void)
{
	/* Vol. 3B 17.18.6: the RMID field of IA32_PQR_ASSOC is
	 * Ceil(Log2(1 + CPUID.(0FH,0):EBX)) bits wide. */
	unsigned b = 0;
	while ((1ULL << b) < (uint64_t)g_sim.caps.rdt.max_rmid + 1)
		b++;
	return b;
}

static enum sim_msr_result rdt_rdmsr(uint32_t msr, uint64_t *val)
{
	const struct caps_rdt *r = &g_sim.caps.rdt;

	if (!r->mon_present && !r->alloc_present)
		return SIM_MSR_NOT_MINE;
	switch (msr) {
	case MSR_IA32_PQR_ASSOC:
		*val = P->pqr_assoc;
		return SIM_MSR_OK;
	case MSR_IA32_QM_EVTSEL:
		if (!r->mon_present)
			return SIM_MSR_NOT_MINE;
		*val = P->qm_evtsel;
		return SIM_MSR_OK;
	case MSR_IA32_QM_CTR: {
		if (!r->mon_present)
			return SIM_MSR_NOT_MINE;
		unsigned ev = FIELD_GET_ULL(QM_EVTSEL_EVENT_ID, P->qm_evtsel);
		uint64_t rmid = FIELD_GET_ULL(QM_EVTSEL_RMID, P->qm_evtsel);
		bool ev_ok = (ev == QM_EVENT_L3_OCCUPANCY && r->l3.occupancy) ||
			     (ev == QM_EVENT_L3_TOTAL_BW && r->l3.total_bw) ||
			     (ev == QM_EVENT_L3_LOCAL_BW && r->l3.local_bw);
		if ((!ev_ok && !quirk(Q_RDT_EVENT_NO_ERROR)) ||
		    (rmid > r->l3.max_rmid && !quirk(Q_RDT_RMID_NO_ERROR)) ||
		    (rmid == r->l3.max_rmid && quirk(Q_RDT_MAX_RMID_ERROR))) {
			*val = QM_CTR_ERROR;
			return SIM_MSR_OK;
		}
		if (rmid >= 1024 || !P->rmid_used[rmid]) {
			*val = QM_CTR_UNAVAILABLE;
			return SIM_MSR_OK;
		}
		uint64_t w = width_mask(mbm_width());
		if (ev != QM_EVENT_L3_OCCUPANCY && quirk(Q_RDT_MBM_WIDTH_UNMASKED))
			w = QM_CTR_DATA;
		*val = (ev == QM_EVENT_L3_OCCUPANCY ? P->rmid_occ[rmid] : P->rmid_bw[rmid]) & w;
		return SIM_MSR_OK;
	}
	}
	return SIM_MSR_NOT_MINE;
}

static enum sim_msr_result rdt_wrmsr(uint32_t msr, uint64_t val)
{
	const struct caps_rdt *r = &g_sim.caps.rdt;

	if (!r->mon_present && !r->alloc_present)
		return SIM_MSR_NOT_MINE;
	switch (msr) {
	case MSR_IA32_PQR_ASSOC: {
		/* RMID beyond its field width, bits 31:10, or a COS without
		 * allocation: reserved, #GP(0). */
		uint64_t valid = width_mask(rmid_bits());
		if (r->alloc_present)
			valid |= PQR_ASSOC_COS;
		if ((val & ~valid) || !sim_rdt_alloc_pqr_ok(val))
			return SIM_MSR_GP;
		if (quirk(Q_RDT_RMID_TRUNCATED))
			val &= ~PQR_ASSOC_RMID | 0x7;
		P->pqr_assoc = val;
		uint64_t rmid = FIELD_GET_ULL(PQR_ASSOC_RMID, val);
		use_rmid(rmid);
		return SIM_MSR_OK;
	}
	case MSR_IA32_QM_EVTSEL:
		if (!r->mon_present)
			return SIM_MSR_NOT_MINE;
		/* Event ID 7:0 and RMID 41:32; the rest reserved. An RMID
		 * above CPUID.(0FH,0):EBX is #GP(0) (SDM Vol. 3B 17.18, AMD APM
		 * Vol. 2 19.3); above a resource's maximum only, Error. */
		if (val & ~(QM_EVTSEL_EVENT_ID | QM_EVTSEL_RMID))
			return SIM_MSR_GP;
		if (FIELD_GET_ULL(QM_EVTSEL_RMID, val) > r->max_rmid &&
		    !quirk(Q_RDT_RMID_ABOVE_MAX_TAKEN))
			return SIM_MSR_GP;
		P->qm_evtsel = val;
		return SIM_MSR_OK;
	case MSR_IA32_QM_CTR:
		if (!r->mon_present)
			return SIM_MSR_NOT_MINE;
		return quirk(Q_RDT_QM_CTR_WRITABLE) ? SIM_MSR_OK : SIM_MSR_GP; /* read-only */
	}
	return SIM_MSR_NOT_MINE;
}

/* The associated RMID is charged for the run (the model above). */
static void rdt_advance(const struct sim_segment *s, uint64_t k)
{
	uint64_t insns = sim_segment_total(s, EV_INSNS) * k;
	uint64_t llc_misses = sim_segment_total(s, EV_LLC_MISS) * k;

	if (!g_sim.caps.rdt.mon_present)
		return;
	uint64_t rmid = FIELD_GET_ULL(PQR_ASSOC_RMID, P->pqr_assoc);
	if (rmid >= 1024)
		return;
	use_rmid(rmid);
	/* The loop touches its code and stack only: a few lines, 64 KiB at
	 * most, however long it runs. */
	uint64_t cap = 65536 / (g_sim.caps.rdt.l3.upscale ? g_sim.caps.rdt.l3.upscale : 1);
	if (cap < 1)
		cap = 1;
	if (P->rmid_occ[rmid] < cap) {
		P->rmid_occ[rmid] += insns / 64;
		if (P->rmid_occ[rmid] > cap)
			P->rmid_occ[rmid] = cap;
	}
	P->rmid_bw[rmid] += llc_misses;
}

/* IA32_PQR_ASSOC resets to RMID 0, COS 0: RMID 0 is associated. */
static void rdt_reset(void)
{
	use_rmid(0);
}

const struct sim_family sim_family_rdt =
    SIM_FAMILY("rdt", rdt_rdmsr, rdt_wrmsr, NULL, NULL, NULL, rdt_reset, rdt_advance);

/* ---- The memory workloads (include/arch.h) ---- */

static uint8_t scratch[ARCH_SCRATCH_BYTES] __attribute__((aligned(4096)));

void *arch_scratch_buffer(void)
{
	return scratch;
}

/* CLFLUSH without CPUID.01H:EDX.CLFSH is #UD (SDM Vol. 2A CLFLUSH). */
void arch_flush_buffer(const void *buf, uint64_t bytes)
{
	(void)buf;
	(void)bytes;
	if (!g_sim.caps.clflush)
		sim_raise(X86_VEC_UD, 0, (uint64_t)(uintptr_t)arch_flush_buffer, 0);
	P->scratch_cached = false;
}

/* The last-level cache's size from the deterministic cache parameters
 * (CPUID.04H on Intel, 8000001DH on AMD): ways x partitions x line x sets. */
static uint64_t llc_bytes(void)
{
	uint32_t leaf = caps_amd_like(&g_sim.caps) ? 0x8000001D : 4;
	uint64_t llc = 0;
	struct cpuid_regs r;

	for (uint32_t sub = 0; sub < 16; sub++) {
		arch_cpuid(leaf, sub, &r);
		if (!(r.eax & 0x1F))
			break;
		if ((r.eax & 0x1F) != 1)
			llc = (uint64_t)((r.ebx >> 22) + 1) * (((r.ebx >> 12) & 0x3FF) + 1) *
			      ((r.ebx & 0xFFF) + 1) * ((uint64_t)r.ecx + 1);
	}
	return llc;
}

void arch_workload_touch(const void *buf, uint64_t bytes)
{
	const struct caps_rdt *r = &g_sim.caps.rdt;
	uint64_t rmid = FIELD_GET_ULL(PQR_ASSOC_RMID, P->pqr_assoc);
	uint64_t units, filled;

	(void)buf;
	if (P->scratch_cached || !r->mon_present || rmid >= 1024) {
		P->scratch_cached = true;
		return;
	}
	P->scratch_cached = true;
	units = bytes / (r->l3.upscale ? r->l3.upscale : 1);
	/* What stays in the LLC: the share the COS's L3 mask allows. */
	filled = sim_rdt_alloc_fill_bytes(bytes, llc_bytes()) / (r->l3.upscale ? r->l3.upscale : 1);
	use_rmid(rmid);
	if (quirk(Q_RDT_OCC_EVERY_RMID)) {
		for (uint32_t i = 0; i <= r->l3.max_rmid && i < 1024; i++) {
			use_rmid(i);
			P->rmid_occ[i] += filled;
		}
	} else if (!quirk(Q_RDT_OCC_IGNORES_FILLS)) {
		P->rmid_occ[rmid] += filled;
	}
	if (!quirk(Q_RDT_MBM_IGNORES_READS))
		P->rmid_bw[rmid] += units;
}
