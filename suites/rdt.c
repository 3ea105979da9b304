/* SPDX-License-Identifier: MIT */
/*
 * RDT L3 cache monitoring (SDM Vol. 3B 17.18,
 * "Intel RDT Monitoring Features"): IA32_PQR_ASSOC holds an RMID; IA32_QM_EVTSEL selects
 * (RMID, event ID); IA32_QM_CTR returns data or Error (bit 63) for an RMID
 * above the maximum or an event ID not enumerated, or Unavailable (bit 62).
 */
#include "pmu.h"
#include "rdt_cache.h"
#include "rules.h"
#include "test.h"

static uint64_t qm_read(uint32_t rmid, uint32_t event)
{
	wrmsr(MSR_IA32_QM_EVTSEL,
	      FIELD_PREP_ULL(QM_EVTSEL_RMID, rmid) | FIELD_PREP_ULL(QM_EVTSEL_EVENT_ID, event));
	return rdmsr(MSR_IA32_QM_CTR);
}

/* IA32_QM_CTR bit 61 is an overflow flag, not data, when CPUID.(0FH,1):EAX[8]. */
static uint64_t ovf_bit(void)
{
	return caps()->rdt.l3.overflow_bit ? BIT_ULL(61) : 0;
}

static bool event_enumerated(uint32_t id)
{
	const struct caps_rdt_l3_mon *l3 = &caps()->rdt.l3;

	return (id == QM_EVENT_L3_OCCUPANCY && l3->occupancy) ||
	       (id == QM_EVENT_L3_TOTAL_BW && l3->total_bw) ||
	       (id == QM_EVENT_L3_LOCAL_BW && l3->local_bw);
}

TEST(rdt, pqr_assoc_rmid, REQ_RDT_L3_MON)
{
	uint64_t saved = rdmsr(MSR_IA32_PQR_ASSOC);
	uint32_t max = caps()->rdt.l3.max_rmid;
	const uint32_t rmids[] = {0, 1, max};

	t_diag(t, "max RMID %u (L3 %u), upscale %u, width %u, events: occ %d total %d local %d",
	       caps()->rdt.max_rmid, max, caps()->rdt.l3.upscale, caps()->rdt.l3.counter_width,
	       caps()->rdt.l3.occupancy, caps()->rdt.l3.total_bw, caps()->rdt.l3.local_bw);
	for (unsigned k = 0; k < ARRAY_SIZE(rmids); k++) {
		uint64_t v = (saved & ~PQR_ASSOC_RMID) | FIELD_PREP_ULL(PQR_ASSOC_RMID, rmids[k]);

		if (rmids[k] > max || rmids[k] > FIELD_GET_ULL(PQR_ASSOC_RMID, PQR_ASSOC_RMID))
			continue;
		if (!expect_no_fault(t, wrmsr_safe(MSR_IA32_PQR_ASSOC, v), RULE_RDT_PQR_ASSOC,
				     "WRMSR IA32_PQR_ASSOC.RMID <- %u", rmids[k]))
			continue;
		expect_eq(t, FIELD_GET_ULL(PQR_ASSOC_RMID, rdmsr(MSR_IA32_PQR_ASSOC)), rmids[k],
			  RULE_RDT_PQR_ASSOC, "IA32_PQR_ASSOC.RMID read back");
	}
	wrmsr(MSR_IA32_PQR_ASSOC, saved);
}

TEST(rdt, valid_reads_have_no_error, REQ_RDT_L3_MON)
{
	const struct caps_rdt_l3_mon *l3 = &caps()->rdt.l3;
	uint64_t saved = rdmsr(MSR_IA32_PQR_ASSOC);
	unsigned done = 0;

	/* Some traffic tagged with RMID 1 (or 0) first. */
	wrmsr(MSR_IA32_PQR_ASSOC,
	      (saved & ~PQR_ASSOC_RMID) | FIELD_PREP_ULL(PQR_ASSOC_RMID, l3->max_rmid ? 1 : 0));
	arch_workload(PMU_ITERS);
	wrmsr(MSR_IA32_PQR_ASSOC, saved);
	for (uint32_t id = 1; id <= 3; id++) {
		const uint32_t rmids[] = {0, l3->max_rmid ? 1 : 0, l3->max_rmid};

		if (!event_enumerated(id))
			continue;
		for (unsigned k = 0; k < ARRAY_SIZE(rmids); k++) {
			uint64_t v = qm_read(rmids[k], id);

			done++;
			expect_eq(t, v & QM_CTR_ERROR, 0, RULE_RDT_VALID_READ,
				  "IA32_QM_CTR.Error for RMID %u, event %u", rmids[k], id);
			if (v & QM_CTR_UNAVAILABLE) {
				t_diag(t, "RMID %u event %u: Unavailable (bit 62)", rmids[k], id);
				continue;
			}
			expect_range(t, v & QM_CTR_DATA & ~ovf_bit(), 0,
				     width_mask(l3->counter_width), RULE_RDT_VALID_READ,
				     "IA32_QM_CTR data for RMID %u, event %u "
				     "(width %u)",
				     rmids[k], id, l3->counter_width);
		}
	}
	if (!done)
		t_skip(t, "CPUID.(0FH,1):EDX[2:0] = 0: no monitoring event enumerated");
}

/* WRMSR IA32_QM_EVTSEL of RMID `rmid`, event `event`, through wrmsr_safe():
 * its vector (0: taken). */
static int qm_select_safe(uint32_t rmid, uint32_t event)
{
	return wrmsr_safe(MSR_IA32_QM_EVTSEL, FIELD_PREP_ULL(QM_EVTSEL_RMID, rmid) |
						  FIELD_PREP_ULL(QM_EVTSEL_EVENT_ID, event));
}

/*
 * Two ranges, as both manuals give them (SDM Vol. 3B 17.18, AMD APM Vol. 2
 * 19.3): an RMID above the global maximum CPUID.(0FH,0):EBX is refused by
 * the WRMSR itself, #GP(0); one above only the L3's maximum
 * CPUID.(0FH,1):ECX is taken, and IA32_QM_CTR reports Error.
 */
TEST(rdt, rmid_above_max_sets_error, REQ_RDT_L3_MON)
{
	uint32_t max = caps()->rdt.l3.max_rmid, global = caps()->rdt.max_rmid;
	uint32_t field_max = FIELD_GET_ULL(QM_EVTSEL_RMID, QM_EVTSEL_RMID);
	uint32_t id = caps()->rdt.l3.occupancy	? QM_EVENT_L3_OCCUPANCY
		      : caps()->rdt.l3.total_bw ? QM_EVENT_L3_TOTAL_BW
						: QM_EVENT_L3_LOCAL_BW;

	if (max < global && max < field_max) {
		uint32_t rmid = max + 1;
		if (expect_vector(t, qm_select_safe(rmid, id), 0, RULE_RDT_RMID_RANGE,
				  "WRMSR IA32_QM_EVTSEL RMID %u (L3 max %u, global max %u)", rmid,
				  max, global))
			expect_eq(t, rdmsr(MSR_IA32_QM_CTR) & QM_CTR_ERROR, QM_CTR_ERROR,
				  RULE_RDT_RMID_RANGE, "IA32_QM_CTR.Error for RMID %u (L3 max %u)",
				  rmid, max);
	}
	if (global >= field_max) {
		if (!t_checks(t))
			t_skip_return(t,
				      "CPUID.(0FH,0):EBX = %u, (0FH,1):ECX = %u: no RMID above "
				      "either fits IA32_QM_EVTSEL",
				      global, max);
		return;
	}
	const uint32_t above[] = {global + 1, field_max};
	for (unsigned k = 0; k < ARRAY_SIZE(above); k++) {
		t_subject_msr(t, MSR_IA32_QM_EVTSEL);
		expect_vector(t, qm_select_safe(above[k], id), X86_VEC_GP, RULE_RDT_RMID_ABOVE_MAX,
			      "WRMSR IA32_QM_EVTSEL RMID %u (global max %u)", above[k], global);
	}
}

TEST(rdt, unsupported_event_sets_error, REQ_RDT_L3_MON)
{
	const uint32_t ids[] = {0, 1, 2, 3, 4, 0x80, 0xFF};

	for (unsigned k = 0; k < ARRAY_SIZE(ids); k++) {
		if (event_enumerated(ids[k]))
			continue;
		expect_eq(t, qm_read(0, ids[k]) & QM_CTR_ERROR, QM_CTR_ERROR, RULE_RDT_EVENT_ID,
			  "IA32_QM_CTR.Error for event ID %#x (not in CPUID.(0FH,1):EDX)", ids[k]);
	}
}

TEST(rdt, qm_ctr_read_only, REQ_RDT_L3_MON)
{
	expect_vector(t, wrmsr_safe(MSR_IA32_QM_CTR, 0), X86_VEC_GP, RULE_RDT_QM_CTR_RO,
		      "WRMSR IA32_QM_CTR <- 0");
}

/* ---- Values ---------------------------------------------------- */

static void set_rmid(uint64_t saved, uint32_t rmid)
{
	wrmsr(MSR_IA32_PQR_ASSOC, (saved & ~PQR_ASSOC_RMID) | FIELD_PREP_ULL(PQR_ASSOC_RMID, rmid));
}

/* The RMID the value checks charge (1: not the boot default 0) and the one
 * they leave unused (the highest). */
static bool pick_rmids(struct t *t, uint32_t *used, uint32_t *unused)
{
	uint32_t max = caps()->rdt.l3.max_rmid;

	if (max < 2) {
		t_skip(t, "CPUID.(0FH,1):ECX = %u: fewer than 3 RMIDs (one to charge, one unused)",
		       max);
		return false;
	}
	*used = 1;
	*unused = max;
	return true;
}

TEST(rdt, occupancy_of_touched_bytes, REQ_RDT_L3_MON | REQ_CLFLUSH)
{
	const struct caps_rdt_l3_mon *l3 = &caps()->rdt.l3;
	struct cache_sizes cs = cache_sizes();
	const uint8_t *buf = arch_scratch_buffer();
	uint64_t saved, s, v, occ;
	uint32_t r, u;

	if (!l3->occupancy)
		t_skip_return(t, "CPUID.(0FH,1):EDX[0] = 0: L3 occupancy not enumerated");
	if (!buf || !cs.llc_level || cs.llc_level < 3)
		t_skip_return(t,
			      "no scratch memory, or no L3 in the deterministic cache parameters "
			      "(CPUID.04H / 8000001DH)");
	s = cs.llc / 4;
	if (s > ARCH_SCRATCH_BYTES)
		s = ARCH_SCRATCH_BYTES;
	s &= ~63ULL;
	if (s < 4 * cs.l2 || s / 2 < 4ULL * l3->upscale)
		t_skip_return(
		    t,
		    "L3 %llu KiB, L2 %llu KiB, upscale %u: no size S <= L3/4 that is >= 4x L2 "
		    "and >= 8 units",
		    (unsigned long long)(cs.llc >> 10), (unsigned long long)(cs.l2 >> 10),
		    l3->upscale);
	if (!pick_rmids(t, &r, &u))
		return;
	saved = rdmsr(MSR_IA32_PQR_ASSOC);
	/* Out of every cache first, so that each line is filled under RMID r. */
	arch_flush_buffer(buf, s);
	set_rmid(saved, r);
	arch_workload_touch(buf, s);
	arch_workload_touch(buf, s);
	wrmsr(MSR_IA32_PQR_ASSOC, saved);
	v = qm_read(r, QM_EVENT_L3_OCCUPANCY);
	t_diag(t, "S = %llu KiB (L3 %llu KiB, L2 %llu KiB), upscale %u",
	       (unsigned long long)(s >> 10), (unsigned long long)(cs.llc >> 10),
	       (unsigned long long)(cs.l2 >> 10), l3->upscale);
	if (expect_eq(t, v & (QM_CTR_ERROR | QM_CTR_UNAVAILABLE), 0, RULE_RDT_OCCUPANCY,
		      "IA32_QM_CTR Error / Unavailable for RMID %u occupancy", r)) {
		occ = (v & QM_CTR_DATA & ~ovf_bit()) * l3->upscale;
		expect_range(t, occ, s / 2, cs.llc, RULE_RDT_OCCUPANCY,
			     "L3 occupancy of RMID %u (bytes) after touching %llu bytes", r,
			     (unsigned long long)s);
	}
	v = qm_read(u, QM_EVENT_L3_OCCUPANCY);
	expect_eq(t, v & QM_CTR_ERROR, 0, RULE_RDT_VALID_READ,
		  "IA32_QM_CTR.Error for the unused RMID %u", u);
	if (v & QM_CTR_UNAVAILABLE) {
		t_diag(t, "RMID %u occupancy: Unavailable (no data: never used)", u);
		return;
	}
	expect_range(t, (v & QM_CTR_DATA & ~ovf_bit()) * l3->upscale, 0, s / 8,
		     RULE_RDT_OCCUPANCY_UNUSED, "L3 occupancy of RMID %u, never associated (bytes)",
		     u);
}

/* Passes over the scratch buffer the bandwidth check streams. */
#define MBM_PASSES 4

/* (cur - prev) modulo 2^width: the counter wraps at its width. */
static uint64_t mbm_delta(uint64_t prev, uint64_t cur, unsigned width)
{
	return (cur - prev) & width_mask(width);
}

TEST(rdt, mbm_total_bytes_of_streamed_buffer, REQ_RDT_L3_MON | REQ_CLFLUSH)
{
	const struct caps_rdt_l3_mon *l3 = &caps()->rdt.l3;
	const uint8_t *buf = arch_scratch_buffer();
	const uint64_t b = (uint64_t)MBM_PASSES * ARCH_SCRATCH_BYTES;
	const uint32_t ids[] = {QM_EVENT_L3_TOTAL_BW, QM_EVENT_L3_LOCAL_BW};
	uint64_t saved, v0, v1;
	uint32_t r, u;

	if (!l3->total_bw)
		t_skip_return(t, "CPUID.(0FH,1):EDX[1] = 0: L3 total bandwidth not enumerated");
	if (!buf)
		t_skip_return(t, "no scratch memory to stream");
	if (!pick_rmids(t, &r, &u))
		return;
	saved = rdmsr(MSR_IA32_PQR_ASSOC);
	set_rmid(saved, r);
	v0 = qm_read(r, QM_EVENT_L3_TOTAL_BW);
	for (unsigned pass = 0; pass < MBM_PASSES; pass++) {
		arch_flush_buffer(buf, ARCH_SCRATCH_BYTES);
		arch_workload_touch(buf, ARCH_SCRATCH_BYTES);
	}
	v1 = qm_read(r, QM_EVENT_L3_TOTAL_BW);
	wrmsr(MSR_IA32_PQR_ASSOC, saved);
	if (!expect_eq(t, (v0 | v1) & (QM_CTR_ERROR | QM_CTR_UNAVAILABLE), 0, RULE_RDT_MBM_TOTAL,
		       "IA32_QM_CTR Error / Unavailable for RMID %u total bandwidth", r))
		return;
	t_diag(t, "total bandwidth counter %#llx -> %#llx (width %u, upscale %u)",
	       (unsigned long long)v0, (unsigned long long)v1, l3->counter_width, l3->upscale);
	expect_true(t,
		    mbm_delta(v0 & QM_CTR_DATA & ~ovf_bit(), v1 & QM_CTR_DATA & ~ovf_bit(),
			      l3->counter_width) *
			    l3->upscale >=
			b / 2,
		    ">= B/2", "less", RULE_RDT_MBM_TOTAL,
		    "RMID %u total bandwidth delta x upscale after streaming B = %llu bytes", r,
		    (unsigned long long)b);
	/* The width: every MBM read of the charged RMID, no data above it. */
	for (unsigned k = 0; k < ARRAY_SIZE(ids); k++) {
		uint64_t v;

		if (!event_enumerated(ids[k]))
			continue;
		v = qm_read(r, ids[k]);
		if (v & (QM_CTR_ERROR | QM_CTR_UNAVAILABLE))
			continue;
		expect_eq(t, v & QM_CTR_DATA & ~ovf_bit() & ~width_mask(l3->counter_width), 0,
			  RULE_RDT_MBM_WIDTH,
			  "IA32_QM_CTR data bits above width %u (RMID %u, event %u)",
			  l3->counter_width, r, ids[k]);
	}
}
