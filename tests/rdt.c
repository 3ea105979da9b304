// SPDX-License-Identifier: MIT
/*
 * RDT L3 cache monitoring (../shared/spec/rdt-cache-monitoring-cpuid-0fh.txt,
 * SDM Vol. 3B 17.18): IA32_PQR_ASSOC holds an RMID; IA32_QM_EVTSEL selects
 * (RMID, event ID); IA32_QM_CTR returns data or Error (bit 63) for an RMID
 * above the maximum or an event ID not enumerated, or Unavailable (bit 62).
 */
#include "pmu.h"
#include "rules.h"
#include "test.h"

static uint64_t qm_read(uint32_t rmid, uint32_t event)
{
	wrmsr(MSR_IA32_QM_EVTSEL,
	      FIELD_PREP_ULL(QM_EVTSEL_RMID, rmid) | FIELD_PREP_ULL(QM_EVTSEL_EVENT_ID, event));
	return rdmsr(MSR_IA32_QM_CTR);
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
			expect_range(t, v & QM_CTR_DATA, 0, width_mask(l3->counter_width),
				     RULE_RDT_VALID_READ,
				     "IA32_QM_CTR data for RMID %u, event %u "
				     "(width %u)",
				     rmids[k], id, l3->counter_width);
		}
	}
	if (!done)
		t_skip(t, "CPUID.(0FH,1):EDX[2:0] = 0: no monitoring event enumerated");
}

TEST(rdt, rmid_above_max_sets_error, REQ_RDT_L3_MON)
{
	uint32_t max = caps()->rdt.l3.max_rmid;
	uint32_t field_max = FIELD_GET_ULL(QM_EVTSEL_RMID, QM_EVTSEL_RMID);
	uint32_t id = caps()->rdt.l3.occupancy	? QM_EVENT_L3_OCCUPANCY
		      : caps()->rdt.l3.total_bw ? QM_EVENT_L3_TOTAL_BW
						: QM_EVENT_L3_LOCAL_BW;

	if (max >= field_max) {
		t_skip(t, "CPUID.(0FH,1):ECX = %u: no RMID above it fits IA32_QM_EVTSEL", max);
		return;
	}
	expect_eq(t, qm_read(max + 1, id) & QM_CTR_ERROR, QM_CTR_ERROR, RULE_RDT_RMID_RANGE,
		  "IA32_QM_CTR.Error for RMID %u (max %u), event %u", max + 1, max, id);
	expect_eq(t, qm_read(field_max, id) & QM_CTR_ERROR, QM_CTR_ERROR, RULE_RDT_RMID_RANGE,
		  "IA32_QM_CTR.Error for RMID %u (max %u), event %u", field_max, max, id);
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
