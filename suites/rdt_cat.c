/* SPDX-License-Identifier: MIT */
/*
 * Intel Cache Allocation Technology, register by register (rules in
 * rdt_alloc.h): the L3 and L2 capacity bitmasks IA32_L3_QOS_MASK_n (C90H +
 * n) and IA32_L2_QOS_MASK_n (D10H + n), the COS field of IA32_PQR_ASSOC,
 * Code and Data Prioritization (IA32_L3_QOS_CFG / IA32_L2_QOS_CFG bit 0 and
 * the code / data mask pairs), and, on either vendor, the occupancy a COS
 * leaves in the L3 measured with CMT. Every test puts back each mask, COS
 * and CDP enable it changed, on the CPU it runs on (the suites run on
 * every CPU).
 */
#include "rdt_alloc.h"
#include "rdt_cache.h"

/* The CDP enable of a resource that enumerates it: set means the masks are
 * code / data pairs, and the contiguity rule does not hold (SDM: "writes of
 * invalid mask values may lead to undefined behavior" with CDP on). */
static bool cdp_on(const struct cat_res *c)
{
	return c->cdp && (rdmsr(c->cfg) & QOS_CFG_CDP_ENABLE);
}

TEST(rdt_cat, mask_reserved_bits_gp, REQ_INTEL | REQ_RDT_ALLOC)
{
	struct cat_res res[2];
	unsigned n = cat_resources(res);

	for (unsigned k = 0; k < n; k++) {
		const struct cat_res *c = &res[k];
		uint32_t msr = c->base + cat_probe_cos(c);
		uint64_t saved = rdmsr(msr);
		const uint64_t bits[] = {c->len < 32 ? BIT_ULL(c->len) : 0,
					 c->len < 32 ? BIT_ULL(31) : 0, BIT_ULL(32), BIT_ULL(63)};

		t_diag(t, "%s CAT: CBM %u bits, highest COS %u, CDP %d, non-contiguous %d", c->name,
		       c->len, c->max_cos, c->cdp, c->noncont);
		for (unsigned b = 0; b < ARRAY_SIZE(bits); b++) {
			if (!bits[b])
				continue;
			t_subject_msr(t, msr);
			expect_vector(t, wrmsr_safe(msr, width_mask(c->len) | bits[b]), X86_VEC_GP,
				      RULE_CAT_MASK_RESERVED,
				      "WRMSR %s mask %#x <- all ones | bit %u", c->name, msr,
				      __builtin_ctzll(bits[b]));
			expect_eq(t, rdmsr(msr), saved, RULE_CAT_MASK_RESERVED,
				  "%s mask %#x after the faulting write", c->name, msr);
		}
		wrmsr(msr, saved);
	}
	if (!n)
		t_skip(t, "CPUID.(10H,1/2) read all zeros: no CAT resource's parameters known");
}

TEST(rdt_cat, mask_beyond_max_cos_gp, REQ_INTEL | REQ_RDT_ALLOC)
{
	struct cat_res res[2];
	unsigned n = cat_resources(res);
	uint64_t v;

	for (unsigned k = 0; k < n; k++) {
		const struct cat_res *c = &res[k];
		uint32_t msr = c->base + c->max_cos + 1;

		if (c->max_cos + 1 >= c->count) {
			t_diag(t, "%s: highest COS %u is the last architectural mask", c->name,
			       c->max_cos);
			continue;
		}
		t_subject_msr(t, msr);
		expect_vector(t, rdmsr_safe(msr, &v), X86_VEC_GP, RULE_CAT_MASK_COS_RANGE,
			      "RDMSR %s mask %#x (COS %u, highest %u)", c->name, msr,
			      c->max_cos + 1, c->max_cos);
		t_subject_msr(t, msr);
		expect_vector(t, wrmsr_safe(msr, width_mask(c->len)), X86_VEC_GP,
			      RULE_CAT_MASK_COS_RANGE, "WRMSR %s mask %#x <- all ones (COS %u)",
			      c->name, msr, c->max_cos + 1);
	}
	if (!t_checks(t))
		t_skip(t, "no CAT resource with a COS above its highest below the 128 / 64 "
			  "architectural masks");
}

TEST(rdt_cat, noncontiguous_and_zero_masks, REQ_INTEL | REQ_RDT_ALLOC)
{
	struct cat_res res[2];
	unsigned n = cat_resources(res);

	for (unsigned k = 0; k < n; k++) {
		const struct cat_res *c = &res[k];
		uint32_t msr = c->base + cat_probe_cos(c);
		uint64_t saved = rdmsr(msr);
		const uint64_t sparse = BIT_ULL(0) | BIT_ULL(2);
		int vec;

		if (c->len < 3 || cdp_on(c)) {
			t_diag(t, "%s: %s", c->name,
			       c->len < 3 ? "CBM shorter than 3 bits: no hole fits"
					  : "CDP is on (invalid masks are undefined, not #GP)");
			continue;
		}
		t_subject_msr(t, msr);
		vec = wrmsr_safe(msr, sparse);
		if (c->noncont) {
			if (expect_no_fault(t, vec, RULE_CAT_NONCONT,
					    "WRMSR %s mask %#x <- 0x5 (CPUID.(10H):ECX[3] = 1)",
					    c->name, msr))
				expect_eq(t, rdmsr(msr), sparse, RULE_CAT_NONCONT,
					  "%s mask %#x read back", c->name, msr);
			/* Zero with ECX[3] = 1: no document says (Linux never writes it). */
			wrmsr(msr, saved);
			vec = wrmsr_safe(msr, 0);
			t_diag(t, "%s zero mask with non-contiguous CBMs: %s (not checked)",
			       c->name, vec ? "#GP" : "accepted");
		} else {
			expect_vector(t, vec, X86_VEC_GP, RULE_CAT_CONTIGUOUS,
				      "WRMSR %s mask %#x <- 0x5", c->name, msr);
			expect_eq(t, rdmsr(msr), saved, RULE_CAT_CONTIGUOUS,
				  "%s mask %#x after the non-contiguous write", c->name, msr);
			t_subject_msr(t, msr);
			expect_vector(t, wrmsr_safe(msr, 0), X86_VEC_GP, RULE_CAT_CONTIGUOUS,
				      "WRMSR %s mask %#x <- 0", c->name, msr);
			expect_eq(t, rdmsr(msr), saved, RULE_CAT_CONTIGUOUS,
				  "%s mask %#x after the zero write", c->name, msr);
		}
		wrmsr(msr, saved);
	}
	if (!t_checks(t))
		t_skip(t, "no CAT resource with a CBM of 3 bits or more and CDP off");
}

TEST(rdt_cat, legal_masks_read_back, REQ_INTEL | REQ_RDT_ALLOC)
{
	struct cat_res res[2];
	unsigned n = cat_resources(res);

	for (unsigned k = 0; k < n; k++) {
		const struct cat_res *c = &res[k];
		const unsigned cos[] = {cat_probe_cos(c), cat_last(c)};

		for (unsigned i = 0; i < ARRAY_SIZE(cos); i++) {
			uint32_t msr = c->base + cos[i];
			uint64_t saved = rdmsr(msr);
			unsigned bad = 0;

			/* Each single bit, each run from bit 0, the full mask. */
			for (unsigned b = 0; b < c->len; b++) {
				const uint64_t v[] = {BIT_ULL(b), width_mask(b + 1)};

				for (unsigned j = 0; j < ARRAY_SIZE(v); j++) {
					uint64_t got;

					if (wrmsr_safe(msr, v[j]) || (got = rdmsr(msr)) != v[j]) {
						if (!bad++)
							t_diag(t,
							       "%s mask %#x: %#llx does not "
							       "read back",
							       c->name, msr,
							       (unsigned long long)v[j]);
					}
				}
			}
			wrmsr(msr, saved);
			t_subject_msr(t, msr);
			expect_eq(t, bad, 0, RULE_CAT_READBACK,
				  "%s mask %#x (COS %u): single bits and runs from bit 0 that do "
				  "not read back (of %u)",
				  c->name, msr, cos[i], 2 * c->len);
		}
	}
	if (!n)
		t_skip(t, "CPUID.(10H,1/2) read all zeros: no CAT resource's parameters known");
}

/* The highest COS of any allocation resource (SDM: the largest
 * CPUID.(10H,ResID):EDX[15:0] over the valid ResIDs); false if none. */
static bool max_cos(unsigned *max)
{
	const struct caps_rdt *r = &caps()->rdt;
	bool any = false;

	*max = 0;
	if (r->l3_cat && r->l3_params_valid) {
		*max = r->l3_max_cos;
		any = true;
	}
	if (r->l2_cat && r->l2_params_valid) {
		*max = r->l2_max_cos > *max ? r->l2_max_cos : *max;
		any = true;
	}
	if (r->mba && r->mba_params_valid) {
		*max = r->mba_max_cos > *max ? r->mba_max_cos : *max;
		any = true;
	}
	return any;
}

TEST(rdt_cat, pqr_assoc_cos_range, REQ_INTEL | REQ_RDT_ALLOC)
{
	uint64_t saved = rdmsr(MSR_IA32_PQR_ASSOC), last = saved;
	unsigned max;

	if (!max_cos(&max))
		t_skip_return(t, "CPUID.(10H,1..3) read all zeros: no highest COS known");
	const unsigned cos[] = {0, 1, max};
	for (unsigned i = 0; i < ARRAY_SIZE(cos); i++) {
		uint64_t v = (saved & ~PQR_ASSOC_COS) | FIELD_PREP_ULL(PQR_ASSOC_COS, cos[i]);

		if (cos[i] > max)
			continue;
		if (!expect_no_fault(t, wrmsr_safe(MSR_IA32_PQR_ASSOC, v), RULE_PQR_COS_RANGE,
				     "WRMSR IA32_PQR_ASSOC.COS <- %u (highest %u)", cos[i], max))
			continue;
		last = rdmsr(MSR_IA32_PQR_ASSOC);
		expect_eq(t, last, v, RULE_PQR_COS_RANGE,
			  "IA32_PQR_ASSOC read back (COS %u, RMID %llu)", cos[i],
			  (unsigned long long)FIELD_GET_ULL(PQR_ASSOC_RMID, saved));
	}
	t_subject_msr(t, MSR_IA32_PQR_ASSOC);
	expect_vector(t,
		      wrmsr_safe(MSR_IA32_PQR_ASSOC,
				 (saved & ~PQR_ASSOC_COS) | FIELD_PREP_ULL(PQR_ASSOC_COS, max + 1)),
		      X86_VEC_GP, RULE_PQR_COS_RANGE, "WRMSR IA32_PQR_ASSOC.COS <- %u (highest %u)",
		      max + 1, max);
	expect_eq(t, rdmsr(MSR_IA32_PQR_ASSOC), last, RULE_PQR_COS_RANGE,
		  "IA32_PQR_ASSOC after the faulting write");
	wrmsr(MSR_IA32_PQR_ASSOC, saved);
}

/* The masks of COS 0..last and the CDP enable, as found. */
struct cat_state {
	uint64_t mask[RDT_L3_MASK_COUNT];
	uint64_t cfg, pqr;
};

static void cat_save(const struct cat_res *c, struct cat_state *s)
{
	for (unsigned i = 0; i <= cat_last(c); i++)
		s->mask[i] = rdmsr(c->base + i);
	s->cfg = rdmsr(c->cfg);
	s->pqr = rdmsr(MSR_IA32_PQR_ASSOC);
}

/* The SDM's order for a CDP change (2016 ed. 17.17.4.2): this CPU on COS 0,
 * every mask all ones, then the enable. */
static int cdp_switch(const struct cat_res *c, const struct cat_state *s, uint64_t cfg)
{
	wrmsr(MSR_IA32_PQR_ASSOC, s->pqr & ~PQR_ASSOC_COS);
	for (unsigned i = 0; i <= cat_last(c); i++)
		wrmsr(c->base + i, width_mask(c->len));
	return wrmsr_safe(c->cfg, cfg);
}

/* Back as found: the found CDP enable by the same order, then the masks
 * (legal under it, being what it held) and the COS. */
static void cat_restore(const struct cat_res *c, const struct cat_state *s)
{
	if (rdmsr(c->cfg) != s->cfg)
		cdp_switch(c, s, s->cfg);
	for (unsigned i = 0; i <= cat_last(c); i++)
		wrmsr(c->base + i, s->mask[i]);
	wrmsr(MSR_IA32_PQR_ASSOC, s->pqr);
}

TEST(rdt_cat, cdp_enable_bit, REQ_INTEL | REQ_RDT_ALLOC)
{
	struct cat_res res[2];
	unsigned n = cat_resources(res);
	static struct cat_state s;

	for (unsigned k = 0; k < n; k++) {
		const struct cat_res *c = &res[k];
		const uint64_t reserved[] = {BIT_ULL(1), BIT_ULL(31), BIT_ULL(32), BIT_ULL(63)};

		cat_save(c, &s);
		if (!c->cdp) {
			t_subject_msr(t, c->cfg);
			expect_vector(t, wrmsr_safe(c->cfg, QOS_CFG_CDP_ENABLE), X86_VEC_GP,
				      RULE_CDP_CFG_ABSENT, "WRMSR %s QOS_CFG %#x <- 1 (no CDP)",
				      c->name, c->cfg);
		} else {
			uint64_t on = s.cfg | QOS_CFG_CDP_ENABLE;

			if (expect_no_fault(t, cdp_switch(c, &s, on), RULE_CDP_ENABLE,
					    "WRMSR %s QOS_CFG %#x <- CDP enable", c->name, c->cfg))
				expect_eq(t, rdmsr(c->cfg), on, RULE_CDP_ENABLE,
					  "%s QOS_CFG %#x read back", c->name, c->cfg);
		}
		for (unsigned b = 0; b < ARRAY_SIZE(reserved); b++) {
			uint64_t before = rdmsr(c->cfg);

			t_subject_msr(t, c->cfg);
			expect_vector(t, wrmsr_safe(c->cfg, before | reserved[b]), X86_VEC_GP,
				      RULE_CDP_CFG_RESERVED, "WRMSR %s QOS_CFG %#x <- bit %u",
				      c->name, c->cfg, __builtin_ctzll(reserved[b]));
			expect_eq(t, rdmsr(c->cfg), before, RULE_CDP_CFG_RESERVED,
				  "%s QOS_CFG %#x after the faulting write", c->name, c->cfg);
		}
		cat_restore(c, &s);
	}
	if (!n)
		t_skip(t, "CPUID.(10H,1/2) read all zeros: no CAT resource's parameters known");
}

TEST(rdt_cat, cdp_code_data_pairs, REQ_INTEL | REQ_RDT_ALLOC)
{
	struct cat_res res[2];
	unsigned n = cat_resources(res);
	static struct cat_state s;

	for (unsigned k = 0; k < n; k++) {
		const struct cat_res *c = &res[k];
		/* COS 1's pair where CDP leaves one, else COS 0's. */
		unsigned cos = (cat_last(c) >> 1) >= 1 ? 1 : 0;
		uint32_t data = c->base + 2 * cos, code = data + 1;
		unsigned half = c->len > 1 ? c->len / 2 : 1;
		uint64_t dv = width_mask(half),
			 cv = width_mask(c->len) & ~width_mask(c->len - half);

		if (!c->cdp || cat_last(c) < 1)
			continue;
		if (c->len < 2)
			cv = dv;
		cat_save(c, &s);
		if (expect_no_fault(t, cdp_switch(c, &s, s.cfg | QOS_CFG_CDP_ENABLE),
				    RULE_CDP_ENABLE, "WRMSR %s QOS_CFG %#x <- CDP enable", c->name,
				    c->cfg)) {
			t_subject_msr(t, data);
			expect_no_fault(t, wrmsr_safe(data, dv), RULE_CDP_PAIRS,
					"WRMSR %s data mask of COS %u (%#x) <- %#llx", c->name, cos,
					data, (unsigned long long)dv);
			t_subject_msr(t, code);
			expect_no_fault(t, wrmsr_safe(code, cv), RULE_CDP_PAIRS,
					"WRMSR %s code mask of COS %u (%#x) <- %#llx", c->name, cos,
					code, (unsigned long long)cv);
			t_subject_msr(t, data);
			expect_eq(t, rdmsr(data), dv, RULE_CDP_PAIRS,
				  "%s data mask of COS %u (%#x) read back", c->name, cos, data);
			t_subject_msr(t, code);
			expect_eq(t, rdmsr(code), cv, RULE_CDP_PAIRS,
				  "%s code mask of COS %u (%#x) read back", c->name, cos, code);
		}
		cat_restore(c, &s);
	}
	if (!t_checks(t))
		t_skip(t, "no CAT resource with CDP (CPUID.(10H,1/2):ECX[2]) and two COS");
}

/* ---- Measured: a COS fills only its share of the L3 ---- */

TEST(rdt_cat, occupancy_confined_to_mask, REQ_RDT_ALLOC | REQ_RDT_L3_MON | REQ_CLFLUSH)
{
	const struct caps_rdt *r = &caps()->rdt;
	const uint8_t *buf = arch_scratch_buffer();
	struct cache_sizes cs = cache_sizes();
	uint64_t saved_pqr, saved_mask, s, share, bound, v, occ;
	const uint32_t rmid = 2;
	unsigned b, cos = 1;

	if (!r->l3_cat || !r->l3_params_valid || r->l3_max_cos < 1)
		t_skip_return(t, "no L3 CAT with two COS (CPUID.(10H,1))");
	if (!r->l3.occupancy || r->l3.max_rmid < rmid)
		t_skip_return(t, "no L3 occupancy (CPUID.(0FH,1):EDX[0]) or fewer than 3 RMIDs");
	if (r->l3_cdp && (rdmsr(MSR_IA32_L3_QOS_CFG) & QOS_CFG_CDP_ENABLE))
		t_skip_return(t, "L3 CDP is on: COS %u's mask is a code / data pair", cos);
	if (!buf || cs.llc_level < 3)
		t_skip_return(t, "no scratch memory, or no L3 in CPUID.04H / 8000001DH");
	/* b of len bits, at least one, an eighth of the CBM. */
	b = r->l3_cbm_len / 8 ? r->l3_cbm_len / 8 : 1;
	share = cs.llc / r->l3_cbm_len * b;
	bound = share + (share * 15 / 100 > (2ULL << 20) ? share * 15 / 100 : (2ULL << 20));
	s = (cs.llc < ARCH_SCRATCH_BYTES ? cs.llc : ARCH_SCRATCH_BYTES) & ~63ULL;
	if (s <= bound)
		t_skip_return(t,
			      "buffer %llu KiB <= the bound %llu KiB (share %llu KiB): the check "
			      "could not fail",
			      (unsigned long long)(s >> 10), (unsigned long long)(bound >> 10),
			      (unsigned long long)(share >> 10));
	saved_pqr = rdmsr(MSR_IA32_PQR_ASSOC);
	saved_mask = rdmsr(MSR_IA32_L3_MASK_0 + cos);
	wrmsr(MSR_IA32_L3_MASK_0 + cos, width_mask(b));
	arch_flush_buffer(buf, s);
	wrmsr(MSR_IA32_PQR_ASSOC, (saved_pqr & ~(PQR_ASSOC_COS | PQR_ASSOC_RMID)) |
				      FIELD_PREP_ULL(PQR_ASSOC_COS, cos) |
				      FIELD_PREP_ULL(PQR_ASSOC_RMID, rmid));
	arch_workload_touch(buf, s);
	arch_workload_touch(buf, s);
	wrmsr(MSR_IA32_PQR_ASSOC, saved_pqr);
	wrmsr(MSR_IA32_L3_MASK_0 + cos, saved_mask);
	wrmsr(MSR_IA32_QM_EVTSEL, FIELD_PREP_ULL(QM_EVTSEL_RMID, rmid) |
				      FIELD_PREP_ULL(QM_EVTSEL_EVENT_ID, QM_EVENT_L3_OCCUPANCY));
	v = rdmsr(MSR_IA32_QM_CTR);
	t_diag(t, "L3 %llu KiB, CBM %u bits, COS %u mask %#llx: share %llu KiB, buffer %llu KiB",
	       (unsigned long long)(cs.llc >> 10), r->l3_cbm_len, cos,
	       (unsigned long long)width_mask(b), (unsigned long long)(share >> 10),
	       (unsigned long long)(s >> 10));
	if (!expect_eq(t, v & (QM_CTR_ERROR | QM_CTR_UNAVAILABLE), 0, RULE_CAT_OCCUPANCY,
		       "IA32_QM_CTR Error / Unavailable for RMID %u occupancy", rmid))
		return;
	occ = (v & QM_CTR_DATA & ~(r->l3.overflow_bit ? BIT_ULL(61) : 0)) * r->l3.upscale;
	t_measure(t, "rdt_cat.occupancy_under_mask", occ, "bytes");
	expect_range(t, occ, 0, bound, RULE_CAT_OCCUPANCY,
		     "L3 occupancy of RMID %u (bytes) filled under COS %u (%u of %u bits)", rmid,
		     cos, b, r->l3_cbm_len);
}
