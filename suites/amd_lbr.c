/* SPDX-License-Identifier: MIT */
/*
 * AMD LBR v2 (CPUID 8000_0022H EAX[1] LbrStack, depth EBX[9:4]): the AMD
 * counterpart of suites/lbr.c. MSR_AMD_DBG_EXTN_CFG (C000_010FH) bit 6 turns
 * the stack on; entry i's FROM is C001_0300H + 2i, its TO the next MSR;
 * entry 0 is always the youngest branch; MSR_AMD64_LBR_SELECT (C000_010EH)
 * suppresses by CPL and branch type. The APM text was not reachable: the
 * layout is Linux's (arch/x86/events/amd/lbr.c, ca5b7c0d9621 and after),
 * so every check here is sourced: its departure is a failure, citing Linux.
 *
 * The chain is arch_branch_chain()'s eight branches (include/arch.h) between
 * the WRMSR that sets LBRV2EN and the one that clears it. A TO with VALID
 * clear and SPEC set is a wrong-path branch (Linux lbr_spec_map): skipped.
 *
 * LbrAndPmcFreeze (EAX[2]): with DEBUGCTL.FREEZE_LBRS_ON_PMI a counter's
 * PMI sets PerfCntrGlobalStatus[58] and the stack records nothing until
 * software clears it (Linux amd_pmu_v2_handle_irq(), "perf/x86/amd/lbr: Use
 * freeze based on availability").
 *
 * Not checked: the mispredict and speculation flags' values.
 */
#include "lbr.h"
#include "pmu.h"
#include "rules.h"
#include "test.h"

#define CHAIN ARCH_BRANCH_CHAIN_LEN
#define ALL   ((1U << CHAIN) - 1)

static unsigned depth(void)
{
	return caps()->amd.lbr_v2_stack_size;
}

/* The address in a FROM / TO: bits 57:0, sign-extended. */
static uint64_t lbr_ip(uint64_t v)
{
	return (uint64_t)((int64_t)(v << 6) >> 6);
}

static void clear_stack(void)
{
	for (unsigned i = 0; i < depth(); i++) {
		wrmsr(MSR_AMD_SAMP_BR_FROM(i), 0);
		wrmsr(MSR_AMD_SAMP_BR_TO(i), 0);
	}
}

/* The chain with LBR_SELECT = sel; then the recorded branches (VALID set),
 * youngest first, must be exactly those of `want` (bit i: chain branch i). */
static void expect_chain(struct t *t, uint64_t sel, unsigned want, const char *rule,
			 const char *what)
{
	uint64_t from[CHAIN], to[CHAIN], cfg = rdmsr(MSR_AMD_DBG_EXTN_CFG);
	unsigned k = 0, n = 0;
	int i = CHAIN - 1;

	arch_branch_chain_sites(from, to);
	clear_stack();
	wrmsr(MSR_AMD64_LBR_SELECT, sel);
	arch_branch_chain(MSR_AMD_DBG_EXTN_CFG, cfg | AMD_DBG_EXTN_CFG_LBRV2EN,
			  cfg & ~AMD_DBG_EXTN_CFG_LBRV2EN);
	wrmsr(MSR_AMD64_LBR_SELECT, 0);
	for (unsigned b = 0; b < CHAIN; b++)
		n += (want >> b) & 1;
	for (unsigned e = 0; e < depth(); e++) {
		uint64_t f = rdmsr(MSR_AMD_SAMP_BR_FROM(e)), d = rdmsr(MSR_AMD_SAMP_BR_TO(e));

		if (!(d & AMD_LBR_TO_VALID))
			continue;
		while (i >= 0 && !((want >> i) & 1))
			i--;
		if (!expect_true(t, i >= 0, "no more records", "one more", rule,
				 "%s: entry %u FROM %#llx TO %#llx beyond the %u expected", what, e,
				 (unsigned long long)f, (unsigned long long)d, n))
			return;
		if (!expect_eq(t, lbr_ip(f), from[i], rule, "%s: entry %u FROM = branch %d", what,
			       e, i) ||
		    !expect_eq(t, lbr_ip(d), to[i], rule, "%s: entry %u TO = target of branch %d",
			       what, e, i))
			return;
		i--;
		k++;
	}
	expect_eq(t, k, n, rule, "%s: valid records (entry 0 the youngest)", what);
}

TEST(amd_lbr, msrs_read_write, REQ_AMD_LBR_V2)
{
	uint64_t v;

	if (expect_no_fault(t, wrmsr_safe(MSR_AMD64_LBR_SELECT, AMD_LBR_SELECT_VALID),
			    RULE_AMD_LBR_MSRS, "WRMSR LBR_SELECT <- 1FFH"))
		expect_eq(t, rdmsr(MSR_AMD64_LBR_SELECT), AMD_LBR_SELECT_VALID, RULE_AMD_LBR_MSRS,
			  "LBR_SELECT read back");
	expect_vector(t, wrmsr_safe(MSR_AMD64_LBR_SELECT, BIT_ULL(9)), X86_VEC_GP,
		      RULE_AMD_LBR_MSRS, "WRMSR LBR_SELECT <- bit 9 (reserved)");
	wrmsr(MSR_AMD64_LBR_SELECT, 0);
	expect_no_fault(t, rdmsr_safe(MSR_AMD_DBG_EXTN_CFG, &v), RULE_AMD_LBR_MSRS,
			"RDMSR DBG_EXTN_CFG");
	for (unsigned i = 0; i < depth(); i++) {
		expect_no_fault(t, wrmsr_safe(MSR_AMD_SAMP_BR_FROM(i), 0), RULE_AMD_LBR_MSRS,
				"WRMSR entry %u FROM (%#x) <- 0", i, MSR_AMD_SAMP_BR_FROM(i));
		expect_no_fault(t, wrmsr_safe(MSR_AMD_SAMP_BR_TO(i), 0), RULE_AMD_LBR_MSRS,
				"WRMSR entry %u TO (%#x) <- 0", i, MSR_AMD_SAMP_BR_TO(i));
	}
}

TEST(amd_lbr, records_chain_youngest_first, REQ_AMD_LBR_V2)
{
	expect_chain(t, 0, ALL, RULE_AMD_LBR_RECORD, "every branch");
}

TEST(amd_lbr, select_filters, REQ_AMD_LBR_V2)
{
	expect_chain(t, AMD_LBR_SELECT_KERNEL, 0, RULE_AMD_LBR_SELECT,
		     "branches ending at CPL 0 suppressed, chain at CPL 0: nothing");
	expect_chain(t, AMD_LBR_SELECT_USER, ALL, RULE_AMD_LBR_SELECT,
		     "branches ending at CPL > 0 suppressed, chain at CPL 0: every branch");
	expect_chain(t, AMD_LBR_SELECT_JCC, lbr_chain_except(ARCH_BRANCH_JCC), RULE_AMD_LBR_SELECT,
		     "Jcc suppressed");
	expect_chain(t, AMD_LBR_SELECT_JMP_REL, lbr_chain_except(ARCH_BRANCH_JMP),
		     RULE_AMD_LBR_SELECT, "near relative JMP suppressed");
	expect_chain(t, AMD_LBR_SELECT_CALL_REL | AMD_LBR_SELECT_RET,
		     lbr_chain_except(ARCH_BRANCH_CALL) & lbr_chain_except(ARCH_BRANCH_RET),
		     RULE_AMD_LBR_SELECT, "near relative CALL and near RET suppressed");
}

#define AMD_STATUS_LBRS_FROZEN BIT_ULL(58)
#define AMD_EV_RETIRED_INSNS   0xC0ULL

TEST(amd_lbr, freeze_on_pmi, REQ_AMD_LBR_V2 | REQ_APIC)
{
	uint64_t dbg = rdmsr(MSR_IA32_DEBUGCTL), ctl = rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL);
	uint64_t sel = AMD_EV_RETIRED_INSNS | PERFEVTSEL_USR | PERFEVTSEL_OS | PERFEVTSEL_INT;

	if (!caps()->amd.lbr_pmc_freeze)
		t_skip_return(t, "CPUID 8000_0022H EAX[2] LbrAndPmcFreeze clear");
	wrmsr(MSR_IA32_DEBUGCTL, dbg | DEBUGCTL_FREEZE_LBRS_ON_PMI);
	pmu_pmi_install(true, 0, false);
	wrmsr(MSR_F15H_PERF_CTL0, 0);
	wrmsr(MSR_F15H_PERF_CTR0, GENMASK_ULL(47, 0) - 63); /* 64 instructions */
	wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, BIT_ULL(0));
	arch_irq_enable();
	arch_workload_gated(PMU_ITERS, MSR_F15H_PERF_CTL0, sel | PERFEVTSEL_EN, sel);
	arch_irq_disable();
	wrmsr(MSR_F15H_PERF_CTL0, 0);
	uint64_t status = rdmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS);
	unsigned pmis = g_pmi.count;
	pmu_pmi_uninstall();
	if (expect_eq(t, pmis, 1, RULE_PMI_DELIVER, "PMIs for the PerfCtr0 overflow") &&
	    expect_eq(t, status & AMD_STATUS_LBRS_FROZEN, AMD_STATUS_LBRS_FROZEN,
		      RULE_AMD_LBR_FREEZE, "PerfCntrGlobalStatus[58] after the PMI (%#llx)",
		      (unsigned long long)status)) {
		expect_chain(t, 0, 0, RULE_AMD_LBR_FREEZE, "frozen: nothing recorded");
		wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, AMD_STATUS_LBRS_FROZEN);
		expect_chain(t, 0, ALL, RULE_AMD_LBR_FREEZE, "bit 58 cleared: recording again");
	}
	wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, status);
	wrmsr(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, ctl);
	wrmsr(MSR_IA32_DEBUGCTL, dbg);
}
