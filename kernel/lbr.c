/* SPDX-License-Identifier: MIT */
/*
 * Model-specific LBR stacks by DisplayFamily_DisplayModel (family 06H), from
 * the SDM's per-microarchitecture LBR sections (Vol. 3B chapter 19: Core 2
 * and Atom 19.5-19.6 era tables at 40H/60H; Nehalem, Sandy Bridge, Haswell
 * at 680H/6C0H with 16 entries; Skylake and later 32 entries with
 * MSR_LBR_INFO_x at DC0H; Goldmont 32 entries). Linux perf's lbr.c places
 * them the same way (independent evidence, read not copied).
 */
#include "lbr.h"

#include "arch.h"
#include "bits.h"
#include "msr.h"

enum stack { CORE4, ATOM8, SLM8, NHM16, HSW16, SKL32, GLM32, KNL8 };

static const struct lbr_layout stacks[] = {
    [CORE4] = {4, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, 0, false, false, "Core 2"},
    [ATOM8] = {8, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, 0, false, false, "Atom"},
    [SLM8] = {8, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, 0, true, false, "Silvermont"},
    [NHM16] = {16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, 0, true, false, "Nehalem/Sandy Bridge"},
    [HSW16] = {16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, 0, true, true, "Haswell/Broadwell"},
    [SKL32] = {32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, MSR_LBR_INFO_0, true, true, "Skylake"},
    [GLM32] = {32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, MSR_LBR_INFO_0, true, true, "Goldmont"},
    [KNL8] = {8, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, 0, true, false, "Knights Landing"},
};
_Static_assert(ARRAY_SIZE(stacks) == KNL8 + 1, "a layout per enum stack");

static const struct {
	uint8_t model;
	enum stack stack;
} models[] = {
    {0x0F, CORE4}, {0x16, CORE4}, {0x17, CORE4}, {0x1D, CORE4}, /* Core 2 */
    {0x1C, ATOM8}, {0x26, ATOM8}, {0x27, ATOM8}, {0x35, ATOM8}, {0x36, ATOM8},
    {0x37, SLM8},  {0x4A, SLM8},  {0x4C, SLM8},	 {0x4D, SLM8},	{0x5A, SLM8},
    {0x5D, SLM8},  {0x1A, NHM16}, {0x1E, NHM16}, {0x1F, NHM16}, {0x2E, NHM16}, /* Nehalem */
    {0x25, NHM16}, {0x2C, NHM16}, {0x2F, NHM16},			       /* Westmere */
    {0x2A, NHM16}, {0x2D, NHM16}, {0x3A, NHM16}, {0x3E, NHM16},		       /* SNB, IVB */
    {0x3C, HSW16}, {0x3F, HSW16}, {0x45, HSW16}, {0x46, HSW16},		       /* Haswell */
    {0x3D, HSW16}, {0x47, HSW16}, {0x4F, HSW16}, {0x56, HSW16},		       /* Broadwell */
    {0x4E, SKL32}, {0x5E, SKL32}, {0x55, SKL32}, {0x8E, SKL32},		       /* Skylake, Kaby */
    {0x9E, SKL32}, {0xA5, SKL32}, {0xA6, SKL32},			       /* Coffee, Comet */
    {0x66, SKL32}, {0x6A, SKL32}, {0x6C, SKL32}, {0x7D, SKL32},		       /* Cannon, Ice */
    {0x7E, SKL32}, {0x8C, SKL32}, {0x8D, SKL32}, {0xA7, SKL32}, /* Ice, Tiger, Rocket */
    {0x5C, GLM32}, {0x5F, GLM32}, {0x7A, GLM32},		/* Goldmont (Plus) */
    {0x57, KNL8},  {0x85, KNL8},
};

enum lbr_layout_result lbr_legacy_layout(const struct caps *c, struct lbr_layout *l)
{
	if (c->arch_lbr.enumerated)
		return LBR_LAYOUT_ARCH_LBR;
	if (!c->perf_cap.valid || c->perf_cap.lbr_format == 0)
		return LBR_LAYOUT_NO_FORMAT;
	if (c->vendor != VENDOR_INTEL || c->family != 6)
		return LBR_LAYOUT_UNKNOWN_MODEL;
	for (unsigned i = 0; i < ARRAY_SIZE(models); i++) {
		if (models[i].model != c->model)
			continue;
		*l = stacks[models[i].stack];
		if (!lbr_fmt_has_info(c->perf_cap.lbr_format))
			l->info = 0;
		return LBR_LAYOUT_OK;
	}
	return LBR_LAYOUT_UNKNOWN_MODEL;
}

void lbr_pebs_reset(void)
{
	const struct caps *c = &g_caps;

	if (c->vendor != VENDOR_INTEL || !c->msr)
		return;
	if (c->ds && c->pm.present) {
		(void)wrmsr_safe(MSR_IA32_PEBS_ENABLE, 0);
		(void)wrmsr_safe(MSR_IA32_DS_AREA, 0);
	}
	if (c->arch_lbr.present)
		(void)wrmsr_safe(MSR_IA32_LBR_CTL, 0);
}

bool lbr_legacy_present(const struct caps *c)
{
	struct lbr_layout l;
	return lbr_legacy_layout(c, &l) == LBR_LAYOUT_OK;
}

bool lbr_legacy_has_select(const struct caps *c)
{
	struct lbr_layout l;
	return lbr_legacy_layout(c, &l) == LBR_LAYOUT_OK && l.select;
}

bool lbr_fmt_from_flags(unsigned fmt)
{
	return fmt == 3 || fmt == 4 || fmt == 6;
}

bool lbr_fmt_tsx_flags(unsigned fmt)
{
	return fmt == 4;
}

bool lbr_fmt_has_info(unsigned fmt)
{
	return fmt == 5 || fmt == 7;
}

bool lbr_fmt_to_cycles(unsigned fmt)
{
	return fmt == 6;
}

/* Sign-extend from bit `top` (the highest address bit kept). */
static uint64_t sext(uint64_t v, unsigned top)
{
	unsigned sh = 63 - top;
	return (uint64_t)((int64_t)(v << sh) >> sh);
}

uint64_t lbr_from_address(unsigned fmt, uint64_t raw)
{
	if (lbr_fmt_tsx_flags(fmt))
		return sext(raw, 60);
	if (lbr_fmt_from_flags(fmt))
		return sext(raw, 62);
	return raw;
}

uint64_t lbr_to_address(unsigned fmt, uint64_t raw)
{
	return lbr_fmt_to_cycles(fmt) ? sext(raw, 47) : raw;
}

unsigned lbr_chain_except(int kind)
{
	static const enum arch_branch_kind kinds[ARCH_BRANCH_CHAIN_LEN] = ARCH_BRANCH_CHAIN_KINDS;
	unsigned m = 0;

	for (unsigned i = 0; i < ARCH_BRANCH_CHAIN_LEN; i++)
		if ((int)kinds[i] != kind)
			m |= 1U << i;
	return m;
}
