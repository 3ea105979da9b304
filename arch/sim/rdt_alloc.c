/* SPDX-License-Identifier: MIT */
/*
 * RDT allocation as the documents describe it.
 *
 * Intel (SDM Vol. 3B 17.19, "Intel RDT Allocation Features"): the CAT masks
 * IA32_L3_QOS_MASK_n (C90H + n) and IA32_L2_QOS_MASK_n (D10H + n) exist for
 * n <= CPUID.(10H,ResID):EDX[15:0]; any other one of the architectural 128 /
 * 64 raises #GP(0) on RDMSR and WRMSR ("accessing a QOS mask register
 * outside the supported COS"). A write with a bit at or above the CBM length
 * (or in 63:32) is a reserved-bit write, #GP(0); a CBM without contiguous
 * ones, zero included, is #GP(0) unless CPUID.(10H,ResID):ECX[3] allows
 * non-contiguous masks, and with CDP enabled it is undefined (the model then
 * accepts it). A legal mask reads back as written. Masks reset to all ones.
 * IA32_L3_QOS_CFG (C81H) / IA32_L2_QOS_CFG (C82H): bit 0 enables CDP where
 * (10H,ResID):ECX[2] enumerates it, every other bit reserved (#GP(0)).
 * IA32_L2_QoS_Ext_BW_Thrtl_n (D50H + n), n <= CPUID.(10H,3):EDX[15:0]: the
 * MBA delay; it holds what was written (the SDM rounds the *applied* delay
 * down to the precision and says nothing of the read-back), values above
 * the maximum throttling are rejected (#GP(0): the model's choice, no test
 * relies on it). The register of a COS above the maximum raises #GP(0), by
 * analogy with the masks.
 *
 * AMD (APM Vol. 2 chapter 19): L3_MASK_n takes any bit pattern, zero
 * included (19.4.2.2), bits above the CBM length read as zero (RAZ);
 * L3_QOS_CFG1 bit 0 is CDP_En, 63:1 RAZ (19.4.3.2); L3QOS_BW_CONTROL_n /
 * L3QOS_SMBW_CONTROL_n hold BW in bits BW_LEN-1:0 and U at bit BW_LEN, the
 * rest RAZ, U set at reset (19.4.5.1, 19.4.6.1); QOS_EVT_CFG_n, n < EVT_NUM,
 * takes the bandwidth types CPUID.(8000_0020H,3):ECX enumerates, anything
 * else #GP(0) (19.3.3.2), and resets to every type (CFG_0, total) and the
 * local ones (CFG_1). A register of a COS above the maximum: #GP(0)
 * (pmutest's inference: the register does not exist).
 *
 * Fills (arch_workload_touch, rdt.c): a COS whose L3 mask has b of the
 * CBM's len bits fills at most b/len of the last-level cache.
 */
#include "sim.h"

#define P (&g_sim.pmu)
#define R (&g_sim.caps.rdt)

static bool amd(void)
{
	return caps_amd_like(&g_sim.caps);
}

/* One contiguous run of ones, not zero (SDM Vol. 3B 17.19.1). */
static bool contiguous(uint64_t m)
{
	if (!m)
		return false;
	m >>= __builtin_ctzll(m);
	return (m & (m + 1)) == 0;
}

struct cat_res {
	bool valid;
	unsigned len, max_cos, count;
	bool cdp, noncont;
	uint64_t *masks, *cfg;
};

static struct cat_res cat_l3(void)
{
	return (struct cat_res){R->alloc_present && R->l3_params_valid,
				R->l3_cbm_len,
				R->l3_max_cos,
				128,
				R->l3_cdp,
				R->l3_noncont || amd(),
				P->l3_mask,
				&P->l3_qos_cfg};
}

static struct cat_res cat_l2(void)
{
	return (struct cat_res){R->alloc_present && R->l2_params_valid && !amd(),
				R->l2_cbm_len,
				R->l2_max_cos,
				64,
				R->l2_cdp,
				R->l2_noncont,
				P->l2_mask,
				&P->l2_qos_cfg};
}

/* The highest COS of any allocation resource (SDM Vol. 3B 17.19: the
 * maximum of CPUID.(10H,ResID):EDX[15:0] over the valid ResIDs); on AMD
 * the L3's MAX_COS (APM 19.3.1.1). False when none is known. */
bool sim_rdt_alloc_max_cos(unsigned *max)
{
	bool any = false;

	*max = 0;
	if (!R->alloc_present)
		return false;
	if (R->l3_params_valid) {
		*max = R->l3_max_cos;
		any = true;
	}
	if (!amd() && R->l2_params_valid) {
		*max = R->l2_max_cos > *max ? R->l2_max_cos : *max;
		any = true;
	}
	if (!amd() && R->mba_params_valid) {
		*max = R->mba_max_cos > *max ? R->mba_max_cos : *max;
		any = true;
	}
	return any;
}

/* IA32_PQR_ASSOC with allocation (rdt.c calls it for every write): the
 * COS, and on AMD the must-be-zero bits. True when the write is legal. */
bool sim_rdt_alloc_pqr_ok(uint64_t val)
{
	unsigned max;

	if (amd() && R->alloc_present && !quirk(Q_AMD_PQR_MBZ_ACCEPTED) &&
	    (val & ~(AMD_PQR_ASSOC_RMID | AMD_PQR_ASSOC_COS)))
		return false;
	if (quirk(Q_PQR_COS_UNCHECKED) || !sim_rdt_alloc_max_cos(&max))
		return true;
	return (amd() ? FIELD_GET_ULL(AMD_PQR_ASSOC_COS, val)
		      : FIELD_GET_ULL(PQR_ASSOC_COS, val)) <= max;
}

/* Bytes of a B-byte fill that stay in the last-level cache under the COS
 * in IA32_PQR_ASSOC: B, capped at b/len of the LLC for an L3 mask of b of
 * len bits (the data mask with CDP). */
uint64_t sim_rdt_alloc_fill_bytes(uint64_t bytes, uint64_t llc)
{
	struct cat_res l3 = cat_l3();
	uint64_t cos, mask, share;

	if (!l3.valid || !llc || quirk(Q_CAT_FILLS_IGNORE_MASK))
		return bytes;
	cos = amd() ? FIELD_GET_ULL(AMD_PQR_ASSOC_COS, P->pqr_assoc)
		    : FIELD_GET_ULL(PQR_ASSOC_COS, P->pqr_assoc);
	if (*l3.cfg & QOS_CFG_CDP_ENABLE)
		cos *= 2;
	if (cos > l3.max_cos)
		return bytes;
	mask = l3.masks[cos] & width_mask(l3.len);
	share = llc / l3.len * (uint64_t)__builtin_popcountll(mask);
	return bytes < share ? bytes : share;
}

static enum sim_msr_result mask_rd(const struct cat_res *c, unsigned n, uint64_t *val)
{
	if (n > c->max_cos) {
		if (!quirk(Q_CAT_MASK_BEYOND_COS))
			return SIM_MSR_GP;
		*val = 0;
		return SIM_MSR_OK;
	}
	*val = c->masks[n];
	if (quirk(Q_CAT_READBACK_WIDENED) && !amd())
		*val |= (*val & -*val) >> 1; /* 400H reads 600H */
	return SIM_MSR_OK;
}

static enum sim_msr_result mask_wr(const struct cat_res *c, unsigned n, uint64_t val)
{
	if (n > c->max_cos)
		return quirk(Q_CAT_MASK_BEYOND_COS) ? SIM_MSR_OK : SIM_MSR_GP;
	if (amd()) {
		/* APM 19.4.2.2: any pattern, zero included; above the length RAZ. */
		if (quirk(Q_AMD_CAT_SPARSE_GP) && !contiguous(val & width_mask(c->len)))
			return SIM_MSR_GP;
		c->masks[n] = quirk(Q_AMD_CAT_RAZ_KEPT) ? val : val & width_mask(c->len);
		return SIM_MSR_OK;
	}
	if (val & ~width_mask(c->len)) {
		if (!quirk(Q_CAT_RESERVED_DROPPED))
			return SIM_MSR_GP;
		val &= width_mask(c->len);
	}
	bool cdp_on = *c->cfg & QOS_CFG_CDP_ENABLE;
	if (!cdp_on && !contiguous(val)) {
		if (!c->noncont && !quirk(Q_CAT_NONCONT_ACCEPTED))
			return SIM_MSR_GP;
		if (c->noncont && val && quirk(Q_CAT_NONCONT_GP))
			return SIM_MSR_GP;
	}
	if (cdp_on && (n & 1) && quirk(Q_CDP_CODE_ALIASES_DATA))
		c->masks[n - 1] = val;
	c->masks[n] = val;
	return SIM_MSR_OK;
}

static enum sim_msr_result cfg_wr(const struct cat_res *c, uint64_t val)
{
	uint64_t ok = c->cdp ? QOS_CFG_CDP_ENABLE : 0;

	if (amd()) {
		*c->cfg = val & ok; /* 63:1 RAZ (APM 19.4.3.2) */
		return SIM_MSR_OK;
	}
	if (val & ~ok) {
		if (!quirk(Q_CDP_CFG_RESERVED_DROPPED))
			return SIM_MSR_GP;
		val &= ok;
	}
	if (quirk(Q_CDP_ENABLE_IGNORED))
		val &= ~QOS_CFG_CDP_ENABLE;
	*c->cfg = val;
	return SIM_MSR_OK;
}

/* The MBA delay a write leaves in the register (see the header). */
static uint64_t mba_stored(uint64_t v)
{
	unsigned gran = 100 - R->mba_max_delay;

	if (quirk(Q_MBA_ROUNDED_UP) && R->mba_linear && gran && v % gran)
		return (v / gran + 1) * gran;
	if (quirk(Q_MBA_READBACK_REMAPPED) && v)
		return v >= 70 ? 90 : v >= 30 ? 10 : v;
	return v;
}

static bool in(uint32_t msr, uint32_t base, unsigned count, unsigned *n)
{
	if (msr < base || msr >= base + count)
		return false;
	*n = msr - base;
	return true;
}

/* AMD's bandwidth registers: BW_LEN-bit limit, U at bit BW_LEN, RAZ above. */
struct amd_bw {
	bool valid;
	unsigned len, max_cos;
	uint64_t *regs;
};

static bool amd_bw_of(uint32_t msr, struct amd_bw *b, unsigned *n)
{
	const struct caps_amd_pqos *a = &R->amd;

	if (in(msr, MSR_AMD_L3QOS_BW_CONTROL_0, 64, n))
		*b = (struct amd_bw){a->l3be_valid, a->bw_len, a->bw_max_cos, P->amd_bw};
	else if (in(msr, MSR_AMD_L3QOS_SMBW_CONTROL_0, 64, n))
		*b = (struct amd_bw){a->l3smbe_valid, a->smbw_len, a->smbw_max_cos, P->amd_smbw};
	else
		return false;
	return b->valid && b->len < 62;
}

static enum sim_msr_result alloc_rdmsr(uint32_t msr, uint64_t *val)
{
	struct cat_res l3 = cat_l3(), l2 = cat_l2();
	struct amd_bw b;
	unsigned n;

	if (!R->alloc_present)
		return SIM_MSR_NOT_MINE;
	if (l3.valid && in(msr, MSR_IA32_L3_MASK_0, l3.count, &n))
		return mask_rd(&l3, n, val);
	if (l2.valid && in(msr, MSR_IA32_L2_MASK_0, l2.count, &n))
		return mask_rd(&l2, n, val);
	if (l3.valid && msr == MSR_IA32_L3_QOS_CFG) {
		*val = *l3.cfg;
		return SIM_MSR_OK;
	}
	if (l2.valid && msr == MSR_IA32_L2_QOS_CFG) {
		*val = *l2.cfg;
		return SIM_MSR_OK;
	}
	if (!amd() && R->mba_params_valid && in(msr, MSR_IA32_L2_QOS_EXT_BW_THRTL_0, 64, &n)) {
		if (n > R->mba_max_cos && !quirk(Q_MBA_BEYOND_COS))
			return SIM_MSR_GP;
		*val = n > R->mba_max_cos ? 0 : P->mba_delay[n];
		return SIM_MSR_OK;
	}
	if (amd() && amd_bw_of(msr, &b, &n)) {
		if (n > b.max_cos)
			return SIM_MSR_GP;
		*val = b.regs[n];
		return SIM_MSR_OK;
	}
	if (amd() && R->amd.bmec_valid &&
	    in(msr, MSR_AMD_QOS_EVT_CFG_0, ARRAY_SIZE(P->amd_evt_cfg), &n) && n < R->amd.evt_num) {
		*val = P->amd_evt_cfg[n];
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static enum sim_msr_result alloc_wrmsr(uint32_t msr, uint64_t val)
{
	struct cat_res l3 = cat_l3(), l2 = cat_l2();
	struct amd_bw b;
	unsigned n;

	if (!R->alloc_present)
		return SIM_MSR_NOT_MINE;
	if (l3.valid && in(msr, MSR_IA32_L3_MASK_0, l3.count, &n))
		return mask_wr(&l3, n, val);
	if (l2.valid && in(msr, MSR_IA32_L2_MASK_0, l2.count, &n))
		return mask_wr(&l2, n, val);
	if (l3.valid && msr == MSR_IA32_L3_QOS_CFG)
		return cfg_wr(&l3, val);
	if (l2.valid && msr == MSR_IA32_L2_QOS_CFG)
		return cfg_wr(&l2, val);
	if (!amd() && R->mba_params_valid && in(msr, MSR_IA32_L2_QOS_EXT_BW_THRTL_0, 64, &n)) {
		if (n > R->mba_max_cos)
			return quirk(Q_MBA_BEYOND_COS) ? SIM_MSR_OK : SIM_MSR_GP;
		if (val > R->mba_max_delay)
			return SIM_MSR_GP;
		P->mba_delay[n] = mba_stored(val);
		return SIM_MSR_OK;
	}
	if (amd() && amd_bw_of(msr, &b, &n)) {
		if (n > b.max_cos)
			return SIM_MSR_GP;
		val &= width_mask(b.len + 1);
		if (quirk(Q_AMD_BW_UNLIMITED_DROPPED))
			val &= ~BIT_ULL(b.len);
		b.regs[n] = val;
		return SIM_MSR_OK;
	}
	if (amd() && R->amd.bmec_valid &&
	    in(msr, MSR_AMD_QOS_EVT_CFG_0, ARRAY_SIZE(P->amd_evt_cfg), &n) && n < R->amd.evt_num) {
		if ((val & ~(uint64_t)R->amd.evt_types) && !quirk(Q_AMD_BMEC_RESERVED_ACCEPTED))
			return SIM_MSR_GP;
		P->amd_evt_cfg[n] = val;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

/* Reset: masks all ones within the length, CDP off, no MBA delay, AMD's
 * bandwidth registers unlimited (U), BMEC's total and local configurations
 * (APM 19.3.3.2: bits 0, 2, 4 are the local types). */
static void alloc_reset(void)
{
	struct cat_res l3 = cat_l3(), l2 = cat_l2();
	const struct caps_amd_pqos *a = &R->amd;

	for (unsigned i = 0; i < ARRAY_SIZE(P->l3_mask); i++)
		P->l3_mask[i] = l3.valid ? width_mask(l3.len) : 0;
	for (unsigned i = 0; i < ARRAY_SIZE(P->l2_mask); i++)
		P->l2_mask[i] = l2.valid ? width_mask(l2.len) : 0;
	P->l3_qos_cfg = P->l2_qos_cfg = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(P->mba_delay); i++)
		P->mba_delay[i] = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(P->amd_bw); i++) {
		P->amd_bw[i] = a->l3be_valid && a->bw_len < 62 ? BIT_ULL(a->bw_len) : 0;
		P->amd_smbw[i] = a->l3smbe_valid && a->smbw_len < 62 ? BIT_ULL(a->smbw_len) : 0;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(P->amd_evt_cfg); i++)
		P->amd_evt_cfg[i] = i == 0 ? a->evt_types : i == 1 ? a->evt_types & 0x15 : 0;
}

const struct sim_family sim_family_rdt_alloc =
    SIM_FAMILY("rdt_alloc", alloc_rdmsr, alloc_wrmsr, NULL, NULL, NULL, alloc_reset, NULL);
