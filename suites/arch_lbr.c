/* SPDX-License-Identifier: MIT */
/*
 * Architectural LBRs (SDM Vol. 3B 19.1; CPUID.(07H,0):EDX[19], leaf 1CH):
 * IA32_LBR_DEPTH takes exactly the depths CPUID enumerates and a write
 * clears the entries; IA32_LBR_CTL's reserved bits; IA32_LBR_x_FROM_IP /
 * _TO_IP / _INFO below the depth; the branches of arch_branch_chain() with
 * IA32_LBR_0 the youngest; CPL, branch-type and call-stack filtering and the
 * BR_TYPE field, each where leaf 1CH enumerates it.
 */
#include "lbr.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

#define CHAIN ARCH_BRANCH_CHAIN_LEN

static const enum arch_branch_kind chain_kinds[CHAIN] = ARCH_BRANCH_CHAIN_KINDS;

/* Each kind of branch the chain takes, as Arch LBRs know it (SDM Vol. 3B
 * 19.1): the IA32_LBR_CTL bit that records it and its LBR_INFO.BR_TYPE. */
static const struct {
	uint64_t ctl;
	unsigned br_type;
} kind_lbr[] = {
    [ARCH_BRANCH_JMP] = {LBR_CTL_NEAR_REL_JMP, ARCH_LBR_BR_NEAR_REL_JMP},
    [ARCH_BRANCH_JCC] = {LBR_CTL_COND, ARCH_LBR_BR_JCC},
    [ARCH_BRANCH_CALL] = {LBR_CTL_NEAR_REL_CALL, ARCH_LBR_BR_NEAR_REL_CALL},
    [ARCH_BRANCH_RET] = {LBR_CTL_NEAR_RET, ARCH_LBR_BR_NEAR_RET},
};

_Static_assert(ARRAY_SIZE(kind_lbr) == ARCH_BRANCH_RET + 1, "a row per enum arch_branch_kind");

static const struct caps_arch_lbr *al(void)
{
	return &caps()->arch_lbr;
}

/* Every entry back to 0 (a write to IA32_LBR_DEPTH), at the largest depth. */
static void reset_entries(void)
{
	wrmsr(MSR_IA32_LBR_CTL, 0);
	wrmsr(MSR_IA32_LBR_DEPTH, al()->max_depth);
}

/* IA32_LBR_CTL for recording everything at CPL 0: LBREn, and OS and the
 * branch-type bits where enumerated (without the enumeration they are
 * reserved and everything is recorded). */
static uint64_t ctl_all(void)
{
	return LBR_CTL_LBREN | (al()->cpl_filter ? LBR_CTL_OS | LBR_CTL_USR : 0) |
	       (al()->branch_filter ? LBR_CTL_ALL_BRANCHES : 0);
}

static void run_chain(uint64_t ctl)
{
	reset_entries();
	arch_branch_chain(MSR_IA32_LBR_CTL, ctl, 0);
}

/* Entries 0.. hold the branches from[i] -> to[i] (i < n) whose bit is set in
 * `want`, youngest first, then a cleared entry. */
static void expect_sites(struct t *t, const uint64_t *from, const uint64_t *to, unsigned n,
			 unsigned want, const char *rule, const char *what)
{
	unsigned x = 0;

	for (int i = (int)n - 1; i >= 0 && x < al()->max_depth; i--) {
		if (!((want >> i) & 1))
			continue;
		if (!expect_eq(t, rdmsr(MSR_IA32_LBR_0_FROM_IP + x), from[i], rule,
			       "%s: IA32_LBR_%u_FROM_IP = branch %d", what, x, i) ||
		    !expect_eq(t, rdmsr(MSR_IA32_LBR_0_TO_IP + x), to[i], rule,
			       "%s: IA32_LBR_%u_TO_IP = target of branch %d", what, x, i))
			return;
		x++;
	}
	if (x < al()->max_depth)
		expect_eq(t, rdmsr(MSR_IA32_LBR_0_FROM_IP + x), 0, rule,
			  "%s: IA32_LBR_%u_FROM_IP after the oldest expected branch (no extra "
			  "record)",
			  what, x);
}

/* The same for arch_branch_chain(). */
static void expect_entries(struct t *t, unsigned want, const char *rule, const char *what)
{
	uint64_t from[CHAIN], to[CHAIN];

	arch_branch_chain_sites(from, to);
	expect_sites(t, from, to, CHAIN, want, rule, what);
}

TEST(arch_lbr, depth_takes_enumerated_values_only, REQ_INTEL | REQ_ARCH_LBR)
{
	for (unsigned d = 0; d <= ARCH_LBR_MAX_DEPTH + 8; d++) {
		bool listed = d >= 8 && d % 8 == 0 && d <= ARCH_LBR_MAX_DEPTH &&
			      ((al()->depth_mask >> (d / 8 - 1)) & 1);
		/* Every multiple of 8 and a few others: 0, 1, 7, 9, 65. */
		if (d % 8 && d != 1 && d != 7 && d != 9 && d != ARCH_LBR_MAX_DEPTH + 1)
			continue;
		int vec = wrmsr_safe(MSR_IA32_LBR_DEPTH, d);
		if (!expect_vector(t, vec, listed ? 0 : X86_VEC_GP, RULE_ALBR_DEPTH,
				   "WRMSR IA32_LBR_DEPTH <- %u (CPUID.1CH:EAX[7:0] = %#x)", d,
				   al()->depth_mask))
			continue;
		if (listed)
			expect_eq(t, rdmsr(MSR_IA32_LBR_DEPTH), d, RULE_ALBR_DEPTH,
				  "IA32_LBR_DEPTH read back");
	}
	wrmsr(MSR_IA32_LBR_DEPTH, al()->max_depth);
}

TEST(arch_lbr, ctl_reserved_bits, REQ_INTEL | REQ_ARCH_LBR)
{
	uint64_t valid = LBR_CTL_LBREN | (al()->cpl_filter ? LBR_CTL_OS | LBR_CTL_USR : 0) |
			 (al()->call_stack ? LBR_CTL_CALL_STACK : 0) |
			 (al()->branch_filter ? LBR_CTL_ALL_BRANCHES : 0);
	static const unsigned bits[] = {1, 2, 3, 4, 15, 16, 22, 23, 31, 32, 63};

	for (unsigned i = 0; i < ARRAY_SIZE(bits); i++) {
		uint64_t v = BIT_ULL(bits[i]);
		bool ok = v & valid;
		expect_vector(t, wrmsr_safe(MSR_IA32_LBR_CTL, v), ok ? 0 : X86_VEC_GP,
			      RULE_ALBR_CTL_RESERVED, "WRMSR IA32_LBR_CTL <- bit %u (%s)", bits[i],
			      ok ? "defined" : "reserved");
	}
	wrmsr(MSR_IA32_LBR_CTL, 0);
}

TEST(arch_lbr, entry_msrs_exist, REQ_INTEL | REQ_ARCH_LBR)
{
	static const struct {
		uint32_t base;
		const char *name;
	} kinds[] = {{MSR_IA32_LBR_0_FROM_IP, "FROM_IP"},
		     {MSR_IA32_LBR_0_TO_IP, "TO_IP"},
		     {MSR_IA32_LBR_0_INFO, "INFO"}};

	for (unsigned k = 0; k < ARRAY_SIZE(kinds); k++) {
		unsigned x = 0;
		uint64_t v;
		int vec = 0;
		for (; x < al()->max_depth && !vec; x++)
			vec = rdmsr_safe(kinds[k].base + x, &v);
		expect_vector(t, vec, 0, RULE_ALBR_MSRS, "RDMSR IA32_LBR_x_%s (%#x + x), x < %u%s",
			      kinds[k].name, kinds[k].base, al()->max_depth,
			      vec ? " (first fault above)" : "");
	}
}

TEST(arch_lbr, depth_write_clears_entries, REQ_INTEL | REQ_ARCH_LBR)
{
	run_chain(ctl_all());
	if (!expect_ne(t, rdmsr(MSR_IA32_LBR_0_FROM_IP), 0, RULE_ALBR_RECORD,
		       "IA32_LBR_0_FROM_IP after the chain (something recorded)"))
		return;
	wrmsr(MSR_IA32_LBR_DEPTH, al()->max_depth);
	for (unsigned x = 0; x < CHAIN && x < al()->max_depth; x++) {
		uint64_t v = rdmsr(MSR_IA32_LBR_0_FROM_IP + x) | rdmsr(MSR_IA32_LBR_0_TO_IP + x) |
			     rdmsr(MSR_IA32_LBR_0_INFO + x);
		if (!expect_eq(t, v, 0, RULE_ALBR_DEPTH_RESET,
			       "IA32_LBR_%u_FROM_IP | _TO_IP | _INFO after writing IA32_LBR_DEPTH",
			       x))
			return;
	}
}

TEST(arch_lbr, records_chain_youngest_first, REQ_INTEL | REQ_ARCH_LBR)
{
	run_chain(ctl_all());
	expect_entries(t, (1U << CHAIN) - 1, RULE_ALBR_RECORD, "every branch");
	if (!al()->branch_type)
		return;
	for (unsigned x = 0; x < CHAIN && x < al()->max_depth; x++) {
		enum arch_branch_kind k = chain_kinds[CHAIN - 1 - x];

		if (!expect_eq(t, FIELD_GET_ULL(LBR_INFO_BR_TYPE, rdmsr(MSR_IA32_LBR_0_INFO + x)),
			       kind_lbr[k].br_type, RULE_ALBR_BR_TYPE, "IA32_LBR_%u_INFO.BR_TYPE",
			       x))
			return;
	}
}

TEST(arch_lbr, cpl_filter, REQ_INTEL | REQ_ARCH_LBR)
{
	if (!al()->cpl_filter)
		t_skip_return(t, "CPUID.1CH:EBX[0] = 0: no CPL filtering");
	uint64_t types = al()->branch_filter ? LBR_CTL_ALL_BRANCHES : 0;
	run_chain(LBR_CTL_LBREN | LBR_CTL_USR | types);
	expect_entries(t, 0, RULE_ALBR_CPL, "USR only, chain at CPL 0: nothing");
	run_chain(LBR_CTL_LBREN | LBR_CTL_OS | types);
	expect_entries(t, (1U << CHAIN) - 1, RULE_ALBR_CPL, "OS only, chain at CPL 0: all");
	if (!al()->branch_filter) {
		t_diag(t, "CPUID.1CH:EBX[1] = 0: CPL 3 recording not checked (the ring "
			  "transitions could not be filtered out)");
		return;
	}
	/* USR with only JMP and Jcc: exactly the user chain at CPL 3
	 * (include/arch.h: nothing else at CPL > 0 is a JMP or Jcc). */
	uint64_t from[ARCH_BRANCH_USER_CHAIN_LEN], to[ARCH_BRANCH_USER_CHAIN_LEN], res;
	arch_branch_chain_user_sites(from, to);
	reset_entries();
	wrmsr(MSR_IA32_LBR_CTL, LBR_CTL_LBREN | LBR_CTL_USR | LBR_CTL_COND | LBR_CTL_NEAR_REL_JMP);
	int vec = arch_call_at_cpl(3, arch_branch_chain_user, 0, &res);
	wrmsr(MSR_IA32_LBR_CTL, 0);
	if (expect_no_fault(t, vec, RULE_ALBR_CPL, "the user chain at CPL 3"))
		expect_sites(t, from, to, ARCH_BRANCH_USER_CHAIN_LEN,
			     (1U << ARCH_BRANCH_USER_CHAIN_LEN) - 1, RULE_ALBR_CPL,
			     "USR with JMP and Jcc, user chain at CPL 3");
}

static unsigned kinds_in(uint64_t ctl)
{
	unsigned m = 0;
	for (unsigned i = 0; i < CHAIN; i++)
		if (ctl & kind_lbr[chain_kinds[i]].ctl)
			m |= 1U << i;
	return m;
}

TEST(arch_lbr, branch_type_filter, REQ_INTEL | REQ_ARCH_LBR)
{
	static const uint64_t sel[] = {LBR_CTL_COND, LBR_CTL_NEAR_REL_JMP,
				       LBR_CTL_NEAR_REL_CALL | LBR_CTL_NEAR_RET};

	if (!al()->branch_filter)
		t_skip_return(t, "CPUID.1CH:EBX[1] = 0: no branch filtering");
	uint64_t cpl = al()->cpl_filter ? LBR_CTL_OS | LBR_CTL_USR : 0;
	for (unsigned i = 0; i < ARRAY_SIZE(sel); i++) {
		run_chain(LBR_CTL_LBREN | cpl | sel[i]);
		expect_entries(t, kinds_in(sel[i]), RULE_ALBR_TYPE,
			       i == 0	? "COND only"
			       : i == 1 ? "NEAR_REL_JMP only"
					: "CALL and RET");
	}
}

TEST(arch_lbr, call_stack_mode_pops, REQ_INTEL | REQ_ARCH_LBR)
{
	if (!al()->call_stack || !al()->branch_filter)
		t_skip_return(
		    t, "CPUID.1CH:EBX[2] call-stack mode with EBX[1] branch filtering needed");
	uint64_t cpl = al()->cpl_filter ? LBR_CTL_OS | LBR_CTL_USR : 0;
	run_chain(LBR_CTL_LBREN | cpl | LBR_CTL_NEAR_REL_CALL | LBR_CTL_NEAR_RET |
		  LBR_CTL_CALL_STACK);
	expect_entries(t, 0, RULE_ALBR_CALL_STACK, "call-stack mode: the RET pops its CALL");
}

/* FREEZE_LBRS_ON_PMI with Arch LBRs (every Arch LBR CPU is version 4 or
 * later): the PMI sets LBR_Frz and the LBRs record nothing until it is
 * cleared (Vol. 3B 20.2.4.1). */
TEST(arch_lbr, freeze_on_pmi, REQ_INTEL | REQ_ARCH_LBR | REQ_ARCH_PMU_V4 | REQ_LBR_PMI_RUN)
{
	struct lbr_pmi_run r;

	/* The PMI is the first GP counter's overflow (kernel/lbr_pmi.c). */
	if (!t_counter_counts(t, GP_COUNTER((unsigned)pmu_gp_nth(0))))
		return;
	wrmsr(MSR_IA32_LBR_CTL, ctl_all());
	lbr_pmi_run(DEBUGCTL_FREEZE_LBRS_ON_PMI, &r);
	wrmsr(MSR_IA32_LBR_CTL, 0);
	if (!expect_eq(t, r.pmis, 1, RULE_PMI_DELIVER, "PMIs for the IA32_PMC%u overflow", r.ovf))
		return;
	expect_eq(t, r.status & GLOBAL_STATUS_LBR_FRZ, GLOBAL_STATUS_LBR_FRZ, RULE_LBR_FREEZE_V4,
		  "IA32_PERF_GLOBAL_STATUS.LBR_Frz in the PMI handler");
	run_chain(ctl_all());
	expect_entries(t, 0, RULE_LBR_FREEZE_V4, "LBR_Frz set: nothing recorded");
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_RESET, GLOBAL_STATUS_LBR_FRZ | GLOBAL_PMC_BIT(r.ovf));
	run_chain(ctl_all());
	expect_entries(t, (1U << CHAIN) - 1, RULE_LBR_FREEZE_V4, "LBR_Frz cleared: all recorded");
}
