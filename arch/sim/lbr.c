/* SPDX-License-Identifier: MIT */
/*
 * Last branch records on the simulated CPU: the model-specific LBR stack of
 * the profile's DisplayModel (kernel/lbr.c, the suite's own table) and the
 * Architectural LBRs of CPUID leaf 1CH (SDM Vol. 3B chapter 19).
 *
 * Branches reach the model only through arch_branch_chain() (below): the
 * workload model has no branch addresses, so its branches are not recorded
 * (no check depends on them).
 */
#include <string.h>

#include "lbr.h"
#include "sim.h"

static struct {
	uint64_t from[ARCH_LBR_MAX_DEPTH], to[ARCH_LBR_MAX_DEPTH], info[ARCH_LBR_MAX_DEPTH];
	unsigned tos;	 /* legacy: MSR_LASTBRANCH_TOS */
	uint64_t select; /* legacy: MSR_LBR_SELECT */
	uint64_t ctl;	 /* Arch LBR: IA32_LBR_CTL */
	unsigned depth;	 /* Arch LBR: IA32_LBR_DEPTH */
	bool legacy;
	struct lbr_layout l;
} L;

/* AMD LBR v2: the stack (entry 0 the youngest), LBR_SELECT, DBG_EXTN_CFG. */
static struct {
	uint64_t from[64], to[64], select, extn;
} A;

static bool arch_lbr(void)
{
	return g_sim.caps.arch_lbr.present && g_sim.caps.arch_lbr.max_depth != 0;
}

static void lbr_reset(void)
{
	memset(&L, 0, sizeof(L));
	memset(&A, 0, sizeof(A));
	L.legacy = lbr_legacy_layout(&g_sim.caps, &L.l) == LBR_LAYOUT_OK;
	if (L.legacy && quirk(Q_LBR_STACK_SHORT))
		L.l.depth /= 2;
	/* Vol. 3B 19.1: IA32_LBR_DEPTH resets to the largest depth enumerated. */
	L.depth = g_sim.caps.arch_lbr.max_depth;
}

unsigned sim_arch_lbr_depth(void)
{
	return arch_lbr() ? L.depth : 0;
}

/* ---- The model-specific stack ------------------------------------------- */

static uint64_t legacy_select_valid(void)
{
	return GENMASK_ULL(8, 0) | (L.l.callstack ? LBR_SELECT_EN_CALLSTACK : 0);
}

/* An entry MSR among the FROM, TO and INFO stacks whose first MSRs are
 * base[0..2] (0: that stack is absent), n entries each: the model's array
 * for that stack, *x the entry; NULL when `msr` is not one. */
static uint64_t *entry_of(const uint32_t base[3], unsigned n, uint32_t msr, unsigned *x)
{
	uint64_t *const stack[3] = {L.from, L.to, L.info};
	for (int k = 0; k < 3; k++) {
		if (base[k] && msr >= base[k] && msr < base[k] + n) {
			*x = msr - base[k];
			return stack[k];
		}
	}
	return NULL;
}

/* An entry MSR of the legacy stack (the model's layout). */
static uint64_t *legacy_entry(uint32_t msr, unsigned *x)
{
	const uint32_t base[3] = {L.l.from, L.l.to, L.l.info};
	return entry_of(base, L.l.depth, msr, x);
}

static enum sim_msr_result legacy_rdmsr(uint32_t msr, uint64_t *val)
{
	unsigned x;
	uint64_t *e = legacy_entry(msr, &x);

	if (e) {
		*val = e[x];
		return SIM_MSR_OK;
	}
	if (msr == MSR_LBR_TOS) {
		*val = L.tos;
		return SIM_MSR_OK;
	}
	if (msr == MSR_LBR_SELECT && L.l.select) {
		*val = L.select;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static enum sim_msr_result legacy_wrmsr(uint32_t msr, uint64_t val)
{
	unsigned x;
	uint64_t *e = legacy_entry(msr, &x);

	if (e) {
		e[x] = val;
		return SIM_MSR_OK;
	}
	if (msr == MSR_LBR_TOS) {
		/* The TOS field covers the stack (Vol. 3B "LBR Stack Size and TOS
		 * Pointer Range"); the model keeps it in range. */
		if (!quirk(Q_LBR_TOS_READONLY))
			L.tos = (unsigned)(val % L.l.depth);
		return SIM_MSR_OK;
	}
	if (msr == MSR_LBR_SELECT && L.l.select) {
		if (val & ~legacy_select_valid())
			return SIM_MSR_GP;
		if (!quirk(Q_LBR_SELECT_READONLY))
			L.select = val;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

/* MSR_LBR_SELECT bits SUPPRESS (Vol. 3B "Filtering of Last Branch
 * Records"): CPL_EQ_0 / CPL_NEQ_0 by the ring the branch ends in. */
static bool legacy_suppressed(enum arch_branch_kind kind)
{
	uint64_t s = L.select;
	if (!L.l.select)
		return false;
	if (quirk(Q_LBR_CPL_FILTER_IGNORED))
		s &= ~(LBR_SELECT_CPL_EQ_0 | LBR_SELECT_CPL_NEQ_0);
	if (quirk(Q_LBR_JMP_FILTER_IGNORED))
		s &= ~LBR_SELECT_NEAR_REL_JMP;
	if (g_sim.cpl == 0 ? (s & LBR_SELECT_CPL_EQ_0) : (s & LBR_SELECT_CPL_NEQ_0))
		return true;
	switch (kind) {
	case ARCH_BRANCH_JMP:
		return s & LBR_SELECT_NEAR_REL_JMP;
	case ARCH_BRANCH_JCC:
		return s & LBR_SELECT_JCC;
	case ARCH_BRANCH_CALL:
		return s & LBR_SELECT_NEAR_REL_CALL;
	case ARCH_BRANCH_RET:
		return s & LBR_SELECT_NEAR_RET;
	}
	return false;
}

/* v4: LBR_Frz in IA32_PERF_GLOBAL_STATUS stops recording (Vol. 3B
 * 20.2.4.1 / 18.4.7). */
static bool lbr_frozen(void)
{
	return g_sim.version >= 4 && (g_sim.pmu.global_status & GLOBAL_STATUS_LBR_FRZ);
}

/* The model: every branch predicted, 2 cycles since the last one. */
#define SIM_LBR_CYCLES 2

static void legacy_record(uint64_t from, uint64_t to, enum arch_branch_kind kind)
{
	unsigned fmt = g_sim.caps.perf_cap.lbr_format;

	if (!(g_sim.pmu.debugctl & DEBUGCTL_LBR) || lbr_frozen() || legacy_suppressed(kind))
		return;
	L.tos = (L.tos + 1) % L.l.depth;
	L.from[L.tos] = quirk(Q_LBR_FROM_TO_SWAPPED) ? to : from;
	L.to[L.tos] = quirk(Q_LBR_FROM_TO_SWAPPED) ? from : to;
	/* Flag formats: the flags replace the top address bits (all clear:
	 * predicted, no transaction). */
	if (lbr_fmt_tsx_flags(fmt))
		L.from[L.tos] &= ~(LBR_FROM_MISPRED | LBR_FROM_IN_TX | LBR_FROM_ABORT);
	else if (lbr_fmt_from_flags(fmt))
		L.from[L.tos] &= ~LBR_FROM_MISPRED;
	/* Format 6: the cycle count in TO[63:48] (Vol. 3B 19.4.8.1). */
	if (lbr_fmt_to_cycles(fmt))
		L.to[L.tos] = (L.to[L.tos] & GENMASK_ULL(47, 0)) | ((uint64_t)SIM_LBR_CYCLES << 48);
	if (lbr_fmt_has_info(fmt))
		L.info[L.tos] = SIM_LBR_CYCLES | (quirk(Q_LBR_IN_TX_SET) ? LBR_INFO_IN_TX : 0);
	else if (lbr_fmt_tsx_flags(fmt) && quirk(Q_LBR_IN_TX_SET))
		L.from[L.tos] |= LBR_FROM_IN_TX;
}

/* ---- Architectural LBRs ------------------------------------------------- */

/* IA32_LBR_CTL bits defined by CPUID.1CH (Vol. 3B 19.1, the IA32_LBR_CTL
 * table: OS/USR with EBX[0], CALL_STACK with EBX[2], the branch-type bits
 * with EBX[1]; the rest reserved). */
static uint64_t ctl_valid(void)
{
	const struct caps_arch_lbr *a = &g_sim.caps.arch_lbr;
	return LBR_CTL_LBREN | (a->cpl_filter ? LBR_CTL_OS | LBR_CTL_USR : 0) |
	       (a->call_stack ? LBR_CTL_CALL_STACK : 0) |
	       (a->branch_filter ? LBR_CTL_ALL_BRANCHES : 0);
}

static bool depth_valid(uint64_t d)
{
	if (quirk(Q_ALBR_DEPTH_ANY) && d >= 1 && d <= ARCH_LBR_MAX_DEPTH)
		return true;
	return d % 8 == 0 && d >= 8 && d <= ARCH_LBR_MAX_DEPTH &&
	       (g_sim.caps.arch_lbr.depth_mask >> (d / 8 - 1) & 1);
}

/* IA32_LBR_x_FROM_IP/TO_IP/INFO: x < the largest depth enumerated exists;
 * entries at or beyond IA32_LBR_DEPTH read 0 (the callers). */
static uint64_t *arch_entry(uint32_t msr, unsigned *x)
{
	const uint32_t base[3] = {MSR_IA32_LBR_0_FROM_IP, MSR_IA32_LBR_0_TO_IP,
				  MSR_IA32_LBR_0_INFO};
	uint64_t *e = entry_of(base, g_sim.caps.arch_lbr.max_depth, msr, x);
	return e == L.info && quirk(Q_ALBR_INFO_MISSING) ? NULL : e;
}

static enum sim_msr_result arch_rdmsr(uint32_t msr, uint64_t *val)
{
	unsigned x;
	uint64_t *e = arch_entry(msr, &x);

	if (e) {
		*val = x >= L.depth ? 0 : e[x];
		return SIM_MSR_OK;
	}
	switch (msr) {
	case MSR_IA32_LBR_CTL:
		*val = L.ctl;
		return SIM_MSR_OK;
	case MSR_IA32_LBR_DEPTH:
		*val = L.depth;
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static void arch_clear(void)
{
	memset(L.from, 0, sizeof(L.from));
	memset(L.to, 0, sizeof(L.to));
	memset(L.info, 0, sizeof(L.info));
}

static enum sim_msr_result arch_wrmsr(uint32_t msr, uint64_t val)
{
	unsigned x;
	uint64_t *e = arch_entry(msr, &x);

	if (e) {
		if (x < L.depth)
			e[x] = val;
		return SIM_MSR_OK;
	}
	switch (msr) {
	case MSR_IA32_LBR_CTL:
		if ((val & ~ctl_valid()) && !quirk(Q_ALBR_CTL_RESERVED))
			return SIM_MSR_GP;
		L.ctl = val;
		return SIM_MSR_OK;
	case MSR_IA32_LBR_DEPTH:
		/* Only the depths CPUID.1CH:EAX[7:0] enumerates; a write resets
		 * every LBR entry to 0 (Vol. 3B 19.1 "LBR Depth"). */
		if (!depth_valid(val))
			return SIM_MSR_GP;
		L.depth = (unsigned)val;
		if (!quirk(Q_ALBR_DEPTH_KEEPS_ENTRIES))
			arch_clear();
		return SIM_MSR_OK;
	}
	return SIM_MSR_NOT_MINE;
}

static uint64_t ctl_type_bit(enum arch_branch_kind kind)
{
	switch (kind) {
	case ARCH_BRANCH_JMP:
		return LBR_CTL_NEAR_REL_JMP;
	case ARCH_BRANCH_JCC:
		return LBR_CTL_COND;
	case ARCH_BRANCH_CALL:
		return LBR_CTL_NEAR_REL_CALL;
	case ARCH_BRANCH_RET:
		return LBR_CTL_NEAR_RET;
	}
	return 0;
}

/* The model's own reading of IA32_LBR_x_INFO.BR_TYPE (Vol. 3B 19.1), kept
 * apart from suites/arch_lbr.c's on purpose: a misreading in one of them is
 * then a failure, not an agreement. */
static enum arch_lbr_br_type br_type(enum arch_branch_kind kind)
{
	static const enum arch_lbr_br_type t[] = {
	    [ARCH_BRANCH_JMP] = ARCH_LBR_BR_NEAR_REL_JMP,
	    [ARCH_BRANCH_JCC] = ARCH_LBR_BR_JCC,
	    [ARCH_BRANCH_CALL] = ARCH_LBR_BR_NEAR_REL_CALL,
	    [ARCH_BRANCH_RET] = ARCH_LBR_BR_NEAR_RET,
	};
	_Static_assert(ARRAY_SIZE(t) == ARCH_BRANCH_RET + 1, "a BR_TYPE per enum arch_branch_kind");
	return quirk(Q_ALBR_BR_TYPE_ZERO) ? ARCH_LBR_BR_JCC : t[kind];
}

/* Remove entry 0 (call-stack mode: a RET pops its CALL), or push a new one:
 * entry 0 is always the most recent (Vol. 3B 19.1). */
static void arch_shift(bool push)
{
	unsigned d = L.depth;
	if (push) {
		for (unsigned i = d - 1; i > 0; i--) {
			L.from[i] = L.from[i - 1];
			L.to[i] = L.to[i - 1];
			L.info[i] = L.info[i - 1];
		}
		return;
	}
	for (unsigned i = 0; i + 1 < d; i++) {
		L.from[i] = L.from[i + 1];
		L.to[i] = L.to[i + 1];
		L.info[i] = L.info[i + 1];
	}
	L.from[d - 1] = L.to[d - 1] = L.info[d - 1] = 0;
}

static void arch_record(uint64_t from, uint64_t to, enum arch_branch_kind kind)
{
	const struct caps_arch_lbr *a = &g_sim.caps.arch_lbr;
	uint64_t ctl = L.ctl;

	if (!(ctl & LBR_CTL_LBREN) || lbr_frozen() || L.depth == 0)
		return;
	/* OS: branches ending at CPL 0; USR: at CPL > 0. */
	if (a->cpl_filter && !quirk(Q_ALBR_CPL_IGNORED) &&
	    !(ctl & (g_sim.cpl == 0 ? LBR_CTL_OS : LBR_CTL_USR)))
		return;
	if (a->branch_filter && !quirk(Q_ALBR_TYPE_FILTER_IGNORED) && !(ctl & ctl_type_bit(kind)))
		return;
	/* Call-stack mode: a RET pops the most recent CALL entry instead of
	 * being recorded (Vol. 3B 19.1 "Call-Stack Mode"). */
	if (a->call_stack && (ctl & LBR_CTL_CALL_STACK) && kind == ARCH_BRANCH_RET &&
	    !quirk(Q_ALBR_CALLSTACK_NO_POP)) {
		if (FIELD_GET_ULL(LBR_INFO_BR_TYPE, L.info[0]) == ARCH_LBR_BR_NEAR_REL_CALL)
			arch_shift(false);
		return;
	}
	unsigned slot = 0;
	if (quirk(Q_ALBR_OLDEST_FIRST)) {
		/* entries fill from the top of the array down: oldest at 0 */
		while (slot < L.depth && L.from[slot])
			slot++;
		if (slot == L.depth)
			return;
	} else {
		arch_shift(true);
	}
	L.from[slot] = from;
	L.to[slot] = to;
	L.info[slot] = ((uint64_t)br_type(kind) << 56) |
		       (a->timed ? SIM_LBR_CYCLES | LBR_INFO_CYC_CNT_VALID : 0);
	if (!a->branch_type)
		L.info[slot] &= ~LBR_INFO_BR_TYPE;
}

/* ---- AMD LBR v2 (CPUID 8000_0022H EAX[1]; as Linux amd/lbr.c programs
 * it, include/msr.h): entry 0 the youngest, LBR_SELECT suppresses. -------- */

static bool amd_lbr_v2(void)
{
	return caps_amd_like(&g_sim.caps) && g_sim.caps.amd.perfmon_v2 &&
	       g_sim.caps.amd.lbr_stack_v2 && g_sim.caps.amd.lbr_v2_stack_size;
}

static uint64_t *amd_entry(uint32_t msr)
{
	unsigned i = (msr - MSR_AMD_SAMP_BR_FROM(0)) / 2;

	if (msr < MSR_AMD_SAMP_BR_FROM(0) || i >= g_sim.caps.amd.lbr_v2_stack_size)
		return NULL;
	return (msr & 1) ? &A.to[i] : &A.from[i];
}

static enum sim_msr_result amd_lbr_access(uint32_t msr, uint64_t *val, bool write)
{
	uint64_t *r = amd_entry(msr);

	if (msr == MSR_AMD64_LBR_SELECT) {
		if (write && (*val & ~AMD_LBR_SELECT_VALID) && !quirk(Q_AMD_LBR_SELECT_RSVD))
			return SIM_MSR_GP;
		r = &A.select;
	} else if (msr == MSR_AMD_DBG_EXTN_CFG) {
		r = &A.extn;
	}
	if (!r)
		return SIM_MSR_NOT_MINE;
	if (write)
		*r = *val;
	else
		*val = *r;
	return SIM_MSR_OK;
}

static uint64_t amd_select_bit(enum arch_branch_kind kind)
{
	switch (kind) {
	case ARCH_BRANCH_JMP:
		return AMD_LBR_SELECT_JMP_REL;
	case ARCH_BRANCH_JCC:
		return AMD_LBR_SELECT_JCC;
	case ARCH_BRANCH_CALL:
		return AMD_LBR_SELECT_CALL_REL;
	case ARCH_BRANCH_RET:
		return AMD_LBR_SELECT_RET;
	}
	return 0;
}

static void amd_record(uint64_t from, uint64_t to, enum arch_branch_kind kind)
{
	unsigned n = g_sim.caps.amd.lbr_v2_stack_size;
	uint64_t cpl = g_sim.cpl ? AMD_LBR_SELECT_USER : AMD_LBR_SELECT_KERNEL;

	if (!(A.extn & AMD_DBG_EXTN_CFG_LBRV2EN) || (A.select & cpl))
		return;
	if (g_sim.pmu.amd_global_status & amd_lbr_frozen_bit())
		return; /* frozen by a PMI (amd.c) */
	if ((A.select & amd_select_bit(kind)) && !quirk(Q_AMD_LBR_SELECT_TYPE_IGNORED))
		return;
	/* The youngest at 0 (the quirk: a TOS that moves, as Intel's). */
	if (quirk(Q_AMD_LBR_OLDEST_FIRST)) {
		unsigned e = 0;
		while (e + 1 < n && (A.to[e] & AMD_LBR_TO_VALID))
			e++;
		A.from[e] = from & GENMASK_ULL(62, 0);
		A.to[e] = (to & GENMASK_ULL(60, 0)) | AMD_LBR_TO_VALID;
		return;
	}
	memmove(&A.from[1], &A.from[0], (n - 1) * sizeof(A.from[0]));
	memmove(&A.to[1], &A.to[0], (n - 1) * sizeof(A.to[0]));
	A.from[0] = from & GENMASK_ULL(62, 0); /* 63: mispredicted, never here */
	A.to[0] = (to & GENMASK_ULL(60, 0)) | AMD_LBR_TO_VALID;
}

/* ---- Dispatch ----------------------------------------------------------- */

static enum sim_msr_result lbr_rdmsr(uint32_t msr, uint64_t *val)
{
	if (amd_lbr_v2())
		return amd_lbr_access(msr, val, false);
	if (arch_lbr())
		return arch_rdmsr(msr, val);
	return L.legacy ? legacy_rdmsr(msr, val) : SIM_MSR_NOT_MINE;
}

static enum sim_msr_result lbr_wrmsr(uint32_t msr, uint64_t val)
{
	if (amd_lbr_v2())
		return amd_lbr_access(msr, &val, true);
	if (arch_lbr())
		return arch_wrmsr(msr, val);
	return L.legacy ? legacy_wrmsr(msr, val) : SIM_MSR_NOT_MINE;
}

/* The model-specific LBR stack or Arch LBR, whichever the CPU has. Branches
 * reach it from arch_branch_chain() below, not from the engine. */
const struct sim_family sim_family_lbr =
    SIM_FAMILY("lbr", lbr_rdmsr, lbr_wrmsr, NULL, NULL, NULL, lbr_reset, NULL);

static void sim_lbr_branch(uint64_t from, uint64_t to, enum arch_branch_kind kind)
{
	if (g_sim.cpl != 0 && quirk(Q_LBR_RING3_NOT_RECORDED))
		return;
	if (amd_lbr_v2())
		amd_record(from, to, kind);
	else if (arch_lbr())
		arch_record(from, to, kind);
	else if (L.legacy)
		legacy_record(from, to, kind);
}

/* ---- include/arch.h: the branch chain ------------------------------------ */

/* Addresses of the simulated chain: a function at SIM_CHAIN_BASE whose
 * branches sit 8 bytes apart, the CALL's target after its RET site. */
#define SIM_CHAIN_BASE 0xFFFFFFFF81002000ULL

void arch_branch_chain_sites(uint64_t from[ARCH_BRANCH_CHAIN_LEN],
			     uint64_t to[ARCH_BRANCH_CHAIN_LEN])
{
	for (unsigned i = 0; i < 6; i++) {
		from[i] = SIM_CHAIN_BASE + 0x20 + 8 * i;
		to[i] = from[i] + 8;
	}
	from[6] = SIM_CHAIN_BASE + 0x60; /* CALL */
	to[6] = SIM_CHAIN_BASE + 0x80;	 /* its target: the RET */
	from[7] = to[6];
	to[7] = from[6] + 5; /* the instruction after the CALL */
}

/* The user chain: a __user_code function in the simulated user pages. */
#define SIM_USER_CHAIN_BASE 0x0000000000402000ULL

void arch_branch_chain_user_sites(uint64_t from[ARCH_BRANCH_USER_CHAIN_LEN],
				  uint64_t to[ARCH_BRANCH_USER_CHAIN_LEN])
{
	for (unsigned i = 0; i < ARCH_BRANCH_USER_CHAIN_LEN; i++) {
		from[i] = SIM_USER_CHAIN_BASE + 2 + 4 * i;
		to[i] = from[i] + 4;
	}
}

__user_code uint64_t arch_branch_chain_user(uint64_t arg)
{
	static const enum arch_branch_kind kinds[] = ARCH_BRANCH_CHAIN_KINDS;
	uint64_t from[ARCH_BRANCH_USER_CHAIN_LEN], to[ARCH_BRANCH_USER_CHAIN_LEN];

	(void)arg;
	arch_branch_chain_user_sites(from, to);
	for (unsigned i = 0; i < ARCH_BRANCH_USER_CHAIN_LEN; i++)
		sim_lbr_branch(from[i], to[i], kinds[i]);
	return 0;
}

void arch_branch_chain(uint32_t msr, uint64_t on, uint64_t off)
{
	static const enum arch_branch_kind kinds[] = ARCH_BRANCH_CHAIN_KINDS;
	uint64_t from[ARCH_BRANCH_CHAIN_LEN], to[ARCH_BRANCH_CHAIN_LEN];

	arch_branch_chain_sites(from, to);
	wrmsr(msr, on);
	for (unsigned i = 0; i < ARCH_BRANCH_CHAIN_LEN; i++) {
		if (i == 0 && quirk(Q_LBR_ONE_SHORT))
			continue;
		sim_lbr_branch(from[i], to[i], kinds[i]);
	}
	wrmsr(msr, off);
}
