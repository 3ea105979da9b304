/* SPDX-License-Identifier: MIT */
/*
 * The model-specific LBR stack (SDM Vol. 3B 19.4.8 and the per-DisplayModel
 * LBR sections): its MSRs where the SDM puts them for the microarchitecture,
 * TOS and LBR_SELECT writable, the exact branches of arch_branch_chain() in
 * TOS order, LBR_SELECT filtering by CPL and branch type, the format's flag
 * bits, and FREEZE_LBRS_ON_PMI.
 *
 * The chain (include/arch.h) is eight taken branches at addresses the kernel
 * knows (JMP, Jcc, JMP, Jcc, JMP, Jcc, CALL, RET) between the WRMSR that
 * sets IA32_DEBUGCTL.LBR and the one that clears it: the stack must hold
 * exactly those, the youngest at TOS.
 */
#include "lbr.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

#define CHAIN ARCH_BRANCH_CHAIN_LEN

static bool layout(struct t *t, struct lbr_layout *l)
{
	switch (lbr_legacy_layout(caps(), l)) {
	case LBR_LAYOUT_OK:
		return true;
	case LBR_LAYOUT_ARCH_LBR:
		t_skip(t, "CPUID.(07H,0):EDX[19] Arch LBR: IA32_LBR_x replace the model-specific "
			  "stack (suite arch_lbr)");
		return false;
	case LBR_LAYOUT_NO_FORMAT:
		t_skip(t, "IA32_PERF_CAPABILITIES[5:0] LBR_FMT = 0 (32-bit records)");
		return false;
	case LBR_LAYOUT_UNKNOWN_MODEL:
		break;
	}
	t_skip(t,
	       "DisplayFamily_DisplayModel %02XH_%02XH: no LBR stack in the SDM tables this "
	       "suite knows (kernel/lbr.c)",
	       caps()->family, caps()->model);
	return false;
}

static void clear_stack(const struct lbr_layout *l)
{
	for (unsigned x = 0; x < l->depth; x++) {
		wrmsr(l->from + x, 0);
		wrmsr(l->to + x, 0);
		if (l->info)
			wrmsr(l->info + x, 0);
	}
	if (l->select)
		wrmsr(MSR_LBR_SELECT, 0);
}

/* The chain with IA32_DEBUGCTL.LBR set around it; returns the TOS before. */
static unsigned run_chain(const struct lbr_layout *l)
{
	uint64_t dbg = rdmsr(MSR_IA32_DEBUGCTL) & ~DEBUGCTL_LBR;
	unsigned tos = (unsigned)rdmsr(MSR_LBR_TOS);

	(void)l;
	arch_branch_chain(MSR_IA32_DEBUGCTL, dbg | DEBUGCTL_LBR, dbg);
	return tos;
}

/* The addresses of a chain: arch_branch_chain()'s (CPL 0) or the user
 * chain's (CPL 3). */
struct sites {
	uint64_t from[CHAIN], to[CHAIN];
	unsigned n;
};

static struct sites kernel_sites(void)
{
	struct sites s = {.n = CHAIN};
	arch_branch_chain_sites(s.from, s.to);
	return s;
}

/*
 * Compare the stack with the branches of a chain whose bit is set in `want`
 * (bit i: branch i was to be recorded), youngest at TOS; the entry below the
 * oldest expected one (when the stack is deeper) must still be the cleared 0.
 */
static void expect_sites(struct t *t, const struct lbr_layout *l, unsigned tos0,
			 const struct sites *s, unsigned want, const char *rule, const char *what)
{
	unsigned fmt = caps()->perf_cap.lbr_format, n = 0, tos = (unsigned)rdmsr(MSR_LBR_TOS);

	for (unsigned i = 0; i < s->n; i++)
		n += (want >> i) & 1;
	if (!expect_eq(t, tos, (tos0 + n) % l->depth, rule,
		       "%s: MSR_LASTBRANCH_TOS after %u recorded branches (before: %u)", what, n,
		       tos0))
		return;
	unsigned k = 0; /* entries checked, youngest first */
	for (int i = (int)s->n - 1; i >= 0 && k < l->depth; i--) {
		if (!((want >> i) & 1))
			continue;
		unsigned e = (tos + l->depth - k) % l->depth;
		uint64_t f = lbr_from_address(fmt, rdmsr(l->from + e));
		uint64_t d = lbr_to_address(fmt, rdmsr(l->to + e));
		if (!expect_eq(t, f, s->from[i], rule, "%s: entry %u (TOS - %u) FROM = branch %d",
			       what, e, k, i) ||
		    !expect_eq(t, d, s->to[i], rule,
			       "%s: entry %u (TOS - %u) TO = target of branch %d", what, e, k, i))
			return;
		k++;
	}
	if (k < l->depth) {
		unsigned e = (tos + l->depth - k) % l->depth;
		expect_eq(t, rdmsr(l->from + e), 0, rule,
			  "%s: entry %u below the oldest recorded branch is still the 0 written "
			  "before (no extra record)",
			  what, e);
	}
}

static void expect_stack(struct t *t, const struct lbr_layout *l, unsigned tos0, unsigned want,
			 const char *rule, const char *what)
{
	struct sites s = kernel_sites();
	expect_sites(t, l, tos0, &s, want, rule, what);
}

TEST(lbr, stack_msrs_exist, REQ_INTEL | REQ_LBR_FMT)
{
	struct lbr_layout l;
	const char *name[3] = {"FROM_IP", "TO_IP", "INFO"};

	if (!layout(t, &l))
		return;
	t_diag(t, "%s stack: %u entries, FROM at %#x, TO at %#x, INFO at %#x, LBR_FMT %u", l.family,
	       l.depth, l.from, l.to, l.info, caps()->perf_cap.lbr_format);
	uint32_t base[3] = {l.from, l.to, l.info};
	for (unsigned k = 0; k < 3; k++) {
		unsigned x = 0;
		uint64_t v;
		int vec = 0;
		if (!base[k])
			continue;
		for (; x < l.depth && !vec; x++)
			vec = rdmsr_safe(base[k] + x, &v);
		expect_vector(t, vec, 0, RULE_LBR_MSRS,
			      "RDMSR MSR_LASTBRANCH_x_%s (%#x + x) for x < %u%s", name[k], base[k],
			      l.depth, vec ? " (first fault above)" : "");
	}
	uint64_t tos;
	if (expect_no_fault(t, rdmsr_safe(MSR_LBR_TOS, &tos), RULE_LBR_MSRS,
			    "RDMSR MSR_LASTBRANCH_TOS"))
		expect_range(t, tos, 0, l.depth - 1, RULE_LBR_MSRS,
			     "MSR_LASTBRANCH_TOS within the stack");
}

TEST(lbr, tos_and_select_writable, REQ_INTEL | REQ_LBR_FMT)
{
	struct lbr_layout l;

	if (!layout(t, &l))
		return;
	for (unsigned v = l.depth - 1;; v = 0) {
		if (expect_no_fault(t, wrmsr_safe(MSR_LBR_TOS, v), RULE_LBR_TOS_SELECT,
				    "WRMSR MSR_LASTBRANCH_TOS <- %u", v))
			expect_eq(t, rdmsr(MSR_LBR_TOS), v, RULE_LBR_TOS_SELECT,
				  "MSR_LASTBRANCH_TOS read back");
		if (v == 0)
			break;
	}
	if (!l.select)
		return;
	uint64_t sel = LBR_SELECT_JCC | LBR_SELECT_NEAR_REL_JMP | LBR_SELECT_FAR_BRANCH;
	if (expect_no_fault(t, wrmsr_safe(MSR_LBR_SELECT, sel), RULE_LBR_TOS_SELECT,
			    "WRMSR MSR_LBR_SELECT <- %#llx", (unsigned long long)sel))
		expect_eq(t, rdmsr(MSR_LBR_SELECT), sel, RULE_LBR_TOS_SELECT,
			  "MSR_LBR_SELECT read back");
	wrmsr(MSR_LBR_SELECT, 0);
}

TEST(lbr, records_chain_in_tos_order, REQ_INTEL | REQ_LBR_FMT)
{
	struct lbr_layout l;

	if (!layout(t, &l))
		return;
	clear_stack(&l);
	unsigned tos0 = run_chain(&l);
	expect_stack(t, &l, tos0, (1U << CHAIN) - 1, RULE_LBR_RECORD, "every branch");
}

/* Suppress by MSR_LBR_SELECT and check what is left. */
static void filtered(struct t *t, const struct lbr_layout *l, uint64_t sel, unsigned want,
		     const char *rule, const char *what)
{
	clear_stack(l);
	wrmsr(MSR_LBR_SELECT, sel);
	unsigned tos0 = run_chain(l);
	wrmsr(MSR_LBR_SELECT, 0);
	expect_stack(t, l, tos0, want, rule, what);
}

/* The layout of a stack with MSR_LBR_SELECT (Nehalem and later). */
static bool select_layout(struct t *t, struct lbr_layout *l)
{
	if (!layout(t, l))
		return false;
	if (!l->select)
		t_skip(t, "%s: no MSR_LBR_SELECT (SDM: Nehalem and later)", l->family);
	return l->select;
}

TEST(lbr, select_filters_by_cpl, REQ_INTEL | REQ_LBR_FMT)
{
	struct lbr_layout l;

	if (!select_layout(t, &l))
		return;
	filtered(t, &l, LBR_SELECT_CPL_EQ_0, 0, RULE_LBR_SELECT_CPL,
		 "CPL_EQ_0 set, chain at CPL 0: nothing");
	filtered(t, &l, LBR_SELECT_CPL_NEQ_0, (1U << CHAIN) - 1, RULE_LBR_SELECT_CPL,
		 "CPL_NEQ_0 set, chain at CPL 0: every branch");
}

/* The user chain at CPL 3 with CPL_EQ_0 and every kind but near relative
 * JMP and Jcc suppressed: exactly its six branches (include/arch.h: nothing
 * else at CPL > 0 is a JMP or Jcc). */
TEST(lbr, select_records_cpl3_only, REQ_INTEL | REQ_LBR_FMT)
{
	struct lbr_layout l;
	struct sites s = {.n = ARCH_BRANCH_USER_CHAIN_LEN};
	uint64_t sel = LBR_SELECT_CPL_EQ_0 | LBR_SELECT_NEAR_REL_CALL | LBR_SELECT_NEAR_IND_CALL |
		       LBR_SELECT_NEAR_RET | LBR_SELECT_NEAR_IND_JMP | LBR_SELECT_FAR_BRANCH;
	uint64_t res;

	if (!select_layout(t, &l))
		return;
	arch_branch_chain_user_sites(s.from, s.to);
	clear_stack(&l);
	wrmsr(MSR_LBR_SELECT, sel);
	unsigned tos0 = (unsigned)rdmsr(MSR_LBR_TOS);
	uint64_t dbg = rdmsr(MSR_IA32_DEBUGCTL) & ~DEBUGCTL_LBR;
	wrmsr(MSR_IA32_DEBUGCTL, dbg | DEBUGCTL_LBR);
	int vec = arch_call_at_cpl(3, arch_branch_chain_user, 0, &res);
	wrmsr(MSR_IA32_DEBUGCTL, dbg);
	wrmsr(MSR_LBR_SELECT, 0);
	if (!expect_no_fault(t, vec, RULE_LBR_SELECT_CPL, "the user chain at CPL 3"))
		return;
	expect_sites(t, &l, tos0, &s, (1U << s.n) - 1, RULE_LBR_SELECT_CPL,
		     "CPL_EQ_0 and all but JMP/Jcc suppressed, chain at CPL 3");
}

TEST(lbr, select_filters_by_type, REQ_INTEL | REQ_LBR_FMT)
{
	struct lbr_layout l;

	if (!select_layout(t, &l))
		return;
	filtered(t, &l, LBR_SELECT_NEAR_REL_JMP, lbr_chain_except(ARCH_BRANCH_JMP),
		 RULE_LBR_SELECT_TYPE, "NEAR_REL_JMP suppressed");
	filtered(t, &l, LBR_SELECT_JCC, lbr_chain_except(ARCH_BRANCH_JCC), RULE_LBR_SELECT_TYPE,
		 "JCC suppressed");
}

TEST(lbr, format_flags, REQ_INTEL | REQ_LBR_FMT)
{
	struct lbr_layout l;
	unsigned fmt = caps()->perf_cap.lbr_format;

	if (!layout(t, &l))
		return;
	if (!lbr_fmt_tsx_flags(fmt) && fmt != 5) {
		t_skip(t,
		       "LBR_FMT %u records no TSX flags (SDM Vol.3B 19.4.8.1; formats 4 and 5 "
		       "do): its address bits are checked by records_chain_in_tos_order",
		       fmt);
		return;
	}
	clear_stack(&l);
	unsigned tos0 = run_chain(&l), tos = (unsigned)rdmsr(MSR_LBR_TOS);
	unsigned n = CHAIN < l.depth ? CHAIN : l.depth, mispred = 0;
	uint64_t cycles = 0, tsx = 0;
	(void)tos0;
	for (unsigned k = 0; k < n; k++) {
		unsigned e = (tos + l.depth - k) % l.depth;
		uint64_t from = rdmsr(l.from + e), to = rdmsr(l.to + e);
		uint64_t info = l.info ? rdmsr(l.info + e) : 0;
		if (lbr_fmt_has_info(fmt)) {
			mispred += !!(info & LBR_INFO_MISPRED);
			cycles += FIELD_GET_ULL(LBR_INFO_CYC_CNT, info);
			tsx |= info & (LBR_INFO_IN_TX | LBR_INFO_TSX_ABORT);
		} else {
			mispred += !!(from & LBR_FROM_MISPRED);
			if (lbr_fmt_tsx_flags(fmt))
				tsx |= from & (LBR_FROM_IN_TX | LBR_FROM_ABORT);
			if (lbr_fmt_to_cycles(fmt))
				cycles += FIELD_GET_ULL(LBR_TO_CYCLES, to);
		}
	}
	t_measure(t, "mispredicted", mispred, "branches");
	t_measure(t, "cycles", cycles, "cycles");
	expect_eq(t, tsx, 0, RULE_LBR_TSX,
		  "IN_TX / TSX_ABORT of the chain's %u entries (no transaction ran)", n);
}

/* FREEZE_LBRS_ON_PMI: a PMI with the LBRs on (kernel/lbr_pmi.c), from
 * the overflow of the first GP counter: none without its counting. */
static bool pmi_run(struct t *t, bool freeze, struct lbr_pmi_run *r)
{
	if (!t_counter_counts(t, GP_COUNTER((unsigned)pmu_gp_nth(0))))
		return false;
	lbr_pmi_run(DEBUGCTL_LBR | (freeze ? DEBUGCTL_FREEZE_LBRS_ON_PMI : 0), r);
	return expect_eq(t, r->pmis, 1, RULE_PMI_DELIVER, "PMIs for the IA32_PMC%u overflow",
			 r->ovf);
}

TEST(lbr, freeze_on_pmi, REQ_INTEL | REQ_LBR_FMT | REQ_ARCH_PMU_V2 | REQ_LBR_PMI_RUN)
{
	struct lbr_layout l;
	struct lbr_pmi_run r;

	if (!layout(t, &l) || !pmi_run(t, true, &r))
		return;
	if (caps()->pm.version < 4) {
		t_subject_msr(t, MSR_IA32_DEBUGCTL);
		expect_eq(t, r.debugctl & DEBUGCTL_LBR, 0, RULE_LBR_FREEZE_LEGACY,
			  "IA32_DEBUGCTL.LBR after the PMI, FREEZE_LBRS_ON_PMI = 1");
		return;
	}
	expect_eq(t, r.status & GLOBAL_STATUS_LBR_FRZ, GLOBAL_STATUS_LBR_FRZ, RULE_LBR_FREEZE_V4,
		  "IA32_PERF_GLOBAL_STATUS.LBR_Frz in the PMI handler");
	/* Frozen: the chain is not recorded ... */
	clear_stack(&l);
	unsigned tos0 = run_chain(&l);
	expect_stack(t, &l, tos0, 0, RULE_LBR_FREEZE_V4, "LBR_Frz set: nothing recorded");
	/* ... until LBR_Frz is cleared. */
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_RESET, GLOBAL_STATUS_LBR_FRZ | GLOBAL_PMC_BIT(r.ovf));
	tos0 = run_chain(&l);
	expect_stack(t, &l, tos0, (1U << CHAIN) - 1, RULE_LBR_FREEZE_V4,
		     "LBR_Frz cleared: recording again");
}

TEST(lbr, no_freeze_without_debugctl_bit,
     REQ_INTEL | REQ_LBR_FMT | REQ_ARCH_PMU_V2 | REQ_LBR_PMI_RUN)
{
	struct lbr_layout l;
	struct lbr_pmi_run r;

	if (!layout(t, &l) || !pmi_run(t, false, &r))
		return;
	expect_eq(t, r.debugctl & DEBUGCTL_LBR, DEBUGCTL_LBR, RULE_LBR_FREEZE_LEGACY,
		  "IA32_DEBUGCTL.LBR after the PMI, FREEZE_LBRS_ON_PMI = 0");
	if (caps()->pm.version >= 4)
		expect_eq(t, r.status & GLOBAL_STATUS_LBR_FRZ, 0, RULE_LBR_FREEZE_V4,
			  "IA32_PERF_GLOBAL_STATUS.LBR_Frz in the PMI handler, no freeze asked");
}
