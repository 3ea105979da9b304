/* SPDX-License-Identifier: MIT */
/*
 * AMD Platform QoS allocation, register by register (APM Vol. 2 chapter
 * 19; rules in rdt_alloc.h): L3_MASK_n (C90H + n) takes any pattern, zero
 * included, with the bits above the CBM length read as zero; PQR_ASSOC's
 * COS (35:32) and must-be-zero bits; the bandwidth limits
 * L3QOS_BW_CONTROL_n and L3QOS_SMBW_CONTROL_n (BW and the U bit); the BMEC
 * event configurations QOS_EVT_CFG_n. ABMC (L3_QOS_EXT_CFG) must be
 * switched on every logical processor of a QOS domain at once: not checked
 * here. Every test puts back each register it changed, on the CPU it runs
 * on.
 */
#include "rdt_alloc.h"

/* AMD's L3 CAT, or a skip naming what is missing. */
static bool amd_l3(struct t *t, struct cat_res *c)
{
	struct cat_res res[2];

	if (!cat_resources(res) || res[0].base != MSR_IA32_L3_MASK_0) {
		t_skip(t, "no L3 allocation with known parameters (CPUID Fn0000_0010_x1)");
		return false;
	}
	*c = res[0];
	return true;
}

TEST(amd_pqos, l3_mask_any_pattern, REQ_AMD | REQ_RDT_ALLOC)
{
	struct cat_res c;

	if (!amd_l3(t, &c))
		return;
	uint32_t msr = c.base + cat_probe_cos(&c);
	uint64_t saved = rdmsr(msr);
	const uint64_t v[] = {0, BIT_ULL(0) | BIT_ULL(2), 0x5555555555555555ULL & width_mask(c.len),
			      BIT_ULL(c.len - 1) | BIT_ULL(0), width_mask(c.len)};

	t_diag(t, "L3: CBM %u bits, highest COS %u, CDP %d", c.len, c.max_cos, c.cdp);
	for (unsigned k = 0; k < ARRAY_SIZE(v); k++) {
		t_subject_msr(t, msr);
		if (expect_no_fault(t, wrmsr_safe(msr, v[k]), RULE_AMD_CAT_SPARSE,
				    "WRMSR L3_MASK_%u <- %#llx", msr - c.base,
				    (unsigned long long)v[k]))
			expect_eq(t, rdmsr(msr), v[k], RULE_AMD_CAT_SPARSE, "L3_MASK_%u read back",
				  msr - c.base);
	}
	wrmsr(msr, saved);
}

TEST(amd_pqos, l3_mask_high_bits_raz, REQ_AMD | REQ_RDT_ALLOC)
{
	struct cat_res c;

	if (!amd_l3(t, &c))
		return;
	uint32_t msr = c.base + cat_probe_cos(&c);
	uint64_t saved = rdmsr(msr);
	const uint64_t above[] = {c.len < 32 ? BIT_ULL(c.len) : 0, BIT_ULL(32), BIT_ULL(63)};

	for (unsigned k = 0; k < ARRAY_SIZE(above); k++) {
		uint64_t v = width_mask(c.len) | above[k];

		if (!above[k])
			continue;
		/* RAZ: the APM names no fault for a write; a #GP is recorded. */
		if (wrmsr_safe(msr, v)) {
			t_diag(t, "WRMSR L3_MASK_%u <- %#llx: #GP (not checked)", msr - c.base,
			       (unsigned long long)v);
			continue;
		}
		t_subject_msr(t, msr);
		expect_eq(t, rdmsr(msr) & ~width_mask(c.len), 0, RULE_AMD_CAT_RAZ,
			  "L3_MASK_%u bits above the CBM length after writing bit %u", msr - c.base,
			  __builtin_ctzll(above[k]));
	}
	wrmsr(msr, saved);
}

TEST(amd_pqos, cos_registers_beyond_max_gp, REQ_AMD | REQ_RDT_ALLOC)
{
	const struct caps_amd_pqos *a = &caps()->rdt.amd;
	struct cat_res c;
	uint64_t v;

	if (!amd_l3(t, &c))
		return;
	if (c.max_cos + 1 < c.count) {
		t_subject_msr(t, c.base + c.max_cos + 1);
		expect_vector(t, rdmsr_safe(c.base + c.max_cos + 1, &v), X86_VEC_GP,
			      RULE_AMD_COS_RANGE, "RDMSR L3_MASK_%u (MAX_COS %u)", c.max_cos + 1,
			      c.max_cos);
	}
	if (a->l3be_valid && a->bw_max_cos + 1 < 64) {
		t_subject_msr(t, MSR_AMD_L3QOS_BW_CONTROL_0 + a->bw_max_cos + 1);
		expect_vector(t, rdmsr_safe(MSR_AMD_L3QOS_BW_CONTROL_0 + a->bw_max_cos + 1, &v),
			      X86_VEC_GP, RULE_AMD_COS_RANGE,
			      "RDMSR L3QOS_BW_CONTROL_%u (COS_MAX %u)", a->bw_max_cos + 1,
			      a->bw_max_cos);
	}
	if (!t_checks(t))
		t_skip(t, "MAX_COS is the last architectural register");
}

TEST(amd_pqos, pqr_assoc_cos_and_mbz, REQ_AMD | REQ_RDT_ALLOC)
{
	struct cat_res c;

	if (!amd_l3(t, &c))
		return;
	uint64_t saved = rdmsr(MSR_IA32_PQR_ASSOC), last = saved;
	const unsigned cos[] = {0, c.max_cos >= 1 ? 1 : 0, c.max_cos};
	const uint64_t mbz[] = {BIT_ULL(12), BIT_ULL(31), BIT_ULL(36), BIT_ULL(63)};

	for (unsigned k = 0; k < ARRAY_SIZE(cos); k++) {
		uint64_t v =
		    (saved & ~AMD_PQR_ASSOC_COS) | FIELD_PREP_ULL(AMD_PQR_ASSOC_COS, cos[k]);

		if (cos[k] > FIELD_GET_ULL(AMD_PQR_ASSOC_COS, AMD_PQR_ASSOC_COS))
			continue;
		if (!expect_no_fault(t, wrmsr_safe(MSR_IA32_PQR_ASSOC, v), RULE_AMD_PQR_ASSOC,
				     "WRMSR PQR_ASSOC.COS <- %u (MAX_COS %u)", cos[k], c.max_cos))
			continue;
		last = rdmsr(MSR_IA32_PQR_ASSOC);
		expect_eq(t, last, v, RULE_AMD_PQR_ASSOC, "PQR_ASSOC read back (COS %u)", cos[k]);
	}
	if (c.max_cos + 1 <= FIELD_GET_ULL(AMD_PQR_ASSOC_COS, AMD_PQR_ASSOC_COS)) {
		t_subject_msr(t, MSR_IA32_PQR_ASSOC);
		expect_vector(t,
			      wrmsr_safe(MSR_IA32_PQR_ASSOC,
					 (saved & ~AMD_PQR_ASSOC_COS) |
					     FIELD_PREP_ULL(AMD_PQR_ASSOC_COS, c.max_cos + 1)),
			      X86_VEC_GP, RULE_AMD_PQR_ASSOC,
			      "WRMSR PQR_ASSOC.COS <- %u (MAX_COS %u)", c.max_cos + 1, c.max_cos);
	}
	for (unsigned k = 0; k < ARRAY_SIZE(mbz); k++) {
		t_subject_msr(t, MSR_IA32_PQR_ASSOC);
		expect_vector(t, wrmsr_safe(MSR_IA32_PQR_ASSOC, last | mbz[k]), X86_VEC_GP,
			      RULE_AMD_PQR_ASSOC, "WRMSR PQR_ASSOC <- must-be-zero bit %u",
			      __builtin_ctzll(mbz[k]));
	}
	expect_eq(t, rdmsr(MSR_IA32_PQR_ASSOC), last, RULE_AMD_PQR_ASSOC,
		  "PQR_ASSOC after the faulting writes");
	wrmsr(MSR_IA32_PQR_ASSOC, saved);
}

/* One bandwidth register set: L3BE or L3SMBE. */
static void bw_checks(struct t *t, const char *name, uint32_t base, unsigned len, unsigned max_cos)
{
	if (len >= 62)
		t_skip_return(t, "%s BW_LEN %u: no room for the U bit below bit 62", name, len);
	const unsigned cos[] = {max_cos >= 1 ? 1 : 0, max_cos < 64 ? max_cos : 63};
	const uint64_t v[] = {0, 1, width_mask(len), BIT_ULL(len), BIT_ULL(len) | 1};

	t_diag(t, "%s: BW_LEN %u, COS_MAX %u", name, len, max_cos);
	for (unsigned i = 0; i < ARRAY_SIZE(cos); i++) {
		uint32_t msr = base + cos[i];
		uint64_t saved = rdmsr(msr);

		for (unsigned k = 0; k < ARRAY_SIZE(v); k++) {
			t_subject_msr(t, msr);
			if (expect_no_fault(t, wrmsr_safe(msr, v[k]), RULE_AMD_BW,
					    "WRMSR %s_%u <- %#llx", name, cos[i],
					    (unsigned long long)v[k]))
				expect_eq(t, rdmsr(msr), v[k], RULE_AMD_BW, "%s_%u read back", name,
					  cos[i]);
		}
		wrmsr(msr, saved);
	}
}

TEST(amd_pqos, bw_control, REQ_AMD | REQ_RDT_ALLOC)
{
	const struct caps_amd_pqos *a = &caps()->rdt.amd;

	if (!a->l3be)
		t_skip_return(t, "CPUID Fn8000_0020_EBX_x0[L3BE] (bit 1) = 0");
	if (!a->l3be_valid)
		t_skip_return(t, "CPUID Fn8000_0020_x1 reads all zeros: BW_LEN, COS_MAX unknown");
	bw_checks(t, "L3QOS_BW_CONTROL", MSR_AMD_L3QOS_BW_CONTROL_0, a->bw_len, a->bw_max_cos);
}

TEST(amd_pqos, smbw_control, REQ_AMD | REQ_RDT_ALLOC)
{
	const struct caps_amd_pqos *a = &caps()->rdt.amd;

	if (!a->l3smbe)
		t_skip_return(t, "CPUID Fn8000_0020_EBX_x0[L3SMBE] (bit 2) = 0");
	if (!a->l3smbe_valid)
		t_skip_return(t, "CPUID Fn8000_0020_x2 reads all zeros: SMBW_LEN, COS_MAX unknown");
	bw_checks(t, "L3QOS_SMBW_CONTROL", MSR_AMD_L3QOS_SMBW_CONTROL_0, a->smbw_len,
		  a->smbw_max_cos);
}

TEST(amd_pqos, bmec_event_config, REQ_AMD | REQ_RDT_ALLOC)
{
	const struct caps_amd_pqos *a = &caps()->rdt.amd;

	if (!a->bmec)
		t_skip_return(t, "CPUID Fn8000_0020_EBX_x0[BMEC] (bit 3) = 0");
	if (!a->bmec_valid || !a->evt_num)
		t_skip_return(t, "CPUID Fn8000_0020_x3 reads all zeros or EVT_NUM = 0");
	t_diag(t, "BMEC: %u configurations, bandwidth types %#x", a->evt_num, a->evt_types);
	for (unsigned n = 0; n < a->evt_num && n < 8; n++) {
		uint32_t msr = MSR_AMD_QOS_EVT_CFG_0 + n;
		uint64_t saved = rdmsr(msr), bad = (AMD_QOS_EVT_CFG_BITS & ~(uint64_t)a->evt_types);
		const uint64_t reserved[] = {BIT_ULL(7), BIT_ULL(63), bad ? bad & -bad : 0};

		for (unsigned b = 0; b < 7; b++) {
			if (!(a->evt_types & BIT_ULL(b)))
				continue;
			t_subject_msr(t, msr);
			if (expect_no_fault(t, wrmsr_safe(msr, BIT_ULL(b)), RULE_AMD_BMEC,
					    "WRMSR QOS_EVT_CFG_%u <- bit %u", n, b))
				expect_eq(t, rdmsr(msr), BIT_ULL(b), RULE_AMD_BMEC,
					  "QOS_EVT_CFG_%u read back", n);
		}
		wrmsr(msr, saved);
		for (unsigned k = 0; k < ARRAY_SIZE(reserved); k++) {
			if (!reserved[k])
				continue;
			t_subject_msr(t, msr);
			expect_vector(t, wrmsr_safe(msr, saved | reserved[k]), X86_VEC_GP,
				      RULE_AMD_BMEC, "WRMSR QOS_EVT_CFG_%u <- bit %u", n,
				      __builtin_ctzll(reserved[k]));
		}
		expect_eq(t, rdmsr(msr), saved, RULE_AMD_BMEC,
			  "QOS_EVT_CFG_%u after the faulting writes", n);
		wrmsr(msr, saved);
	}
}
