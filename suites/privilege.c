/* SPDX-License-Identifier: MIT */
/*
 * RDPMC and privilege: CR4.PCE decides whether CPL 1, 2 and 3 may read the
 * counters; CPL 0 always may (SDM Vol. 2B RDPMC; Vol. 3A 2.5 CR4.PCE).
 * Each test restores CR4 and checks that it did.
 */
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

/* Result packing of the CPL > 0 reader: bit 63 set = the vector in bits 7:0,
 * else EDX:EAX (counters here are at most 48 bits wide, below bit 63). */
#define FAULTED BIT_ULL(63)

static __user_code uint64_t user_rdpmc(uint64_t ecx)
{
	uint64_t rax, rdx;
	int vec = rdpmc_safe(ecx, &rax, &rdx);

	if (vec)
		return FAULTED | (uint64_t)vec;
	return rdpmc_edx_eax(rax, rdx);
}

/* The counters the tests read: the first of each kind present. */
struct target {
	uint64_t ecx;
	uint32_t msr;
	char name[24];
};

static unsigned targets(struct target *tg)
{
	unsigned n = 0;

	if (caps()->pm.present) {
		/* the first GP counter present: leaf 23H may leave out PMC0 */
		int c = pmu_gp_nth(0);

		if (c >= 0) {
			struct counter gp = GP_COUNTER((unsigned)c);

			tg[n] = (struct target){RDPMC_ECX(RDPMC_TYPE_GP, gp.idx),
						MSR_IA32_PMC(gp.idx), ""};
			ksnprintf(tg[n++].name, sizeof(tg[0].name), COUNTER_FMT, COUNTER_ARG(gp));
		}
		if (pmu_fixed_present(0))
			tg[n++] = (struct target){RDPMC_ECX(RDPMC_TYPE_FIXED, 0),
						  MSR_AND_NAME(IA32_FIXED_CTR0)};
	} else if (caps()->netburst) {
		tg[n++] = (struct target){0, MSR_P4_COUNTER(0), "MSR_BPU_COUNTER0"};
	} else if (caps_amd_like(caps())) {
		tg[n++] = (struct target){0, MSR_K7_PERFCTR0, "PerfCtr0"};
	}
	return n;
}

static const int cpls[] = {1, 2, 3};

/* Run user_rdpmc at `cpl`; returns its packed result, or FAULTED|vector when
 * the call itself faulted (it should not: the probe catches RDPMC's fault). */
static uint64_t read_at(int cpl, uint64_t ecx)
{
	uint64_t res = 0;
	int vec = arch_call_at_cpl(cpl, user_rdpmc, ecx, &res);

	return vec ? FAULTED | (uint64_t)vec : res;
}

static void check_cr4(struct t *t, uint64_t cr4)
{
	expect_eq(t, arch_read_cr4(), cr4, RULE_CR4_RESTORED, "CR4 after the test");
}

static unsigned setup(struct t *t, struct target *tg)
{
	unsigned n = targets(tg);

	if (!n)
		t_skip(t, "no PMU: CPUID.0AH:EAX[7:0] = 0 and no NetBurst or AMD counters");
	for (unsigned k = 0; k < n; k++)
		wrmsr(tg[k].msr, 0x123456 + k); /* a stopped counter: a fixed value */
	return n;
}

/* RDPMC of every target at CPL 1, 2 and 3 with CR4.PCE = pce: #GP(0)
 * without PCE; with it, the value RDMSR reads at CPL 0. CR4 is put back. */
static void rdpmc_at_cpls(struct t *t, const struct target *tg, unsigned n, bool pce)
{
	uint64_t cr4 = arch_read_cr4();
	const char *rule = pce ? RULE_RDPMC_PCE_SET : RULE_RDPMC_PCE_CLEAR;

	arch_write_cr4(pce ? cr4 | CR4_PCE : cr4 & ~CR4_PCE);
	for (unsigned k = 0; k < n; k++) {
		for (unsigned c = 0; c < ARRAY_SIZE(cpls); c++) {
			uint64_t r = read_at(cpls[c], tg[k].ecx);
			int vec = (r & FAULTED) ? (int)(r & 0xFF) : 0;

			if (expect_vector(t, vec, pce ? 0 : X86_VEC_GP, rule,
					  "RDPMC %s at CPL %d with CR4.PCE = %d", tg[k].name,
					  cpls[c], pce) &&
			    pce)
				expect_eq(t, r, rdmsr(tg[k].msr), rule,
					  "RDPMC %s at CPL %d vs RDMSR at CPL 0", tg[k].name,
					  cpls[c]);
		}
	}
	arch_write_cr4(cr4);
	check_cr4(t, cr4);
}

TEST(privilege, pce_clear_faults_at_cpl_1_2_3, REQ_NONE)
{
	struct target tg[2];
	unsigned n = targets(tg);

	/* #GP(0) for CPL > 0 with PCE = 0 holds whatever ECX names, so the
	 * rule is checked on a machine without counters too (ECX = 0). */
	if (!n)
		tg[n++] = (struct target){0, 0, "ECX=0 (no PMU)"};
	for (unsigned k = 0; k < n; k++)
		if (tg[k].msr)
			wrmsr(tg[k].msr, 0x123456 + k);
	rdpmc_at_cpls(t, tg, n, false);
}

TEST(privilege, pce_set_reads_at_cpl_1_2_3, REQ_NONE)
{
	struct target tg[2];
	unsigned n = setup(t, tg);

	if (n)
		rdpmc_at_cpls(t, tg, n, true);
}

TEST(privilege, cpl0_reads_whatever_pce, REQ_NONE)
{
	struct target tg[2];
	unsigned n = setup(t, tg);
	uint64_t cr4 = arch_read_cr4();

	if (!n)
		return;
	for (int pce = 0; pce < 2; pce++) {
		arch_write_cr4(pce ? cr4 | CR4_PCE : cr4 & ~CR4_PCE);
		for (unsigned k = 0; k < n; k++) {
			uint64_t rax, rdx;
			int vec = rdpmc_safe(tg[k].ecx, &rax, &rdx);

			if (!expect_vector(t, vec, 0, RULE_RDPMC_CPL0,
					   "RDPMC %s at CPL 0 with CR4.PCE = %d", tg[k].name, pce))
				continue;
			expect_eq(t, rdpmc_edx_eax(rax, rdx), rdmsr(tg[k].msr), RULE_RDPMC_CPL0,
				  "RDPMC %s at CPL 0 (PCE = %d) vs RDMSR", tg[k].name, pce);
		}
	}
	arch_write_cr4(cr4);
	check_cr4(t, cr4);
}

/* RDMSR / WRMSR of a counter at CPL > 0: bit 0 of arg selects WRMSR. */
static __user_code uint64_t user_msr(uint64_t arg)
{
	uint32_t msr = (uint32_t)(arg >> 1);
	uint64_t v = 0;

	return (uint64_t)((arg & 1) ? wrmsr_safe(msr, 0) : rdmsr_safe(msr, &v));
}

TEST(privilege, rdmsr_wrmsr_fault_at_cpl_1_2_3, REQ_NONE)
{
	struct target tg[2];
	unsigned n = setup(t, tg);
	uint64_t cr4 = arch_read_cr4();

	uint64_t before;

	if (!n)
		return;
	before = rdmsr(tg[0].msr);
	arch_write_cr4(cr4 | CR4_PCE); /* PCE opens RDPMC, never RDMSR */
	for (unsigned c = 0; c < ARRAY_SIZE(cpls); c++) {
		for (int wr = 0; wr < 2; wr++) {
			uint64_t res = 0;
			int vec = arch_call_at_cpl(cpls[c], user_msr,
						   ((uint64_t)tg[0].msr << 1) | (uint64_t)wr, &res);

			if (!vec)
				vec = (int)res;
			expect_vector(t, vec, X86_VEC_GP, RULE_MSR_CPL, "%s %s at CPL %d",
				      wr ? "WRMSR" : "RDMSR", tg[0].name, cpls[c]);
		}
	}
	arch_write_cr4(cr4);
	check_cr4(t, cr4);
	expect_eq(t, rdmsr(tg[0].msr), before, RULE_MSR_CPL,
		  "%s after the refused WRMSR at CPL > 0", tg[0].name);
}

/* ---- checks the peers make: RDPMC of a running counter at CPL 3 ------------- */

/* RDPMC, the workload, RDPMC, all at CPL 3: the difference, or FAULTED. */
static __user_code uint64_t user_rdpmc_around_workload(uint64_t ecx)
{
	uint64_t a0, d0, a1, d1;

	if (rdpmc_safe(ecx, &a0, &d0) || (arch_workload(PMU_ITERS), rdpmc_safe(ecx, &a1, &d1)))
		return FAULTED;
	return (rdpmc_edx_eax(a1, d1) - rdpmc_edx_eax(a0, d0));
}

/*
 * perf's x86 RDPMC self-test reads a counting event from user space (Linux
 * sets CR4.PCE for it) around loops of growing length; here: a GP counter
 * counting retired instructions in every ring, running, read by RDPMC at
 * CPL 3 between two RDMSRs at CPL 0 (monotonic, consistent), and around N
 * iterations of the workload at CPL 3 (exactly 10N more, plus the RDPMC).
 */
TEST(privilege, rdpmc_cpl3_running_counter, REQ_ARCH_PMU | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	const uint64_t cr4 = arch_read_cr4();
	const uint64_t n_insns = PMU_ITERS * WORKLOAD_INSNS_PER_ITER;
	struct counter c = GP_COUNTER((unsigned)pmu_gp_nth(0));
	uint64_t ecx = RDPMC_ECX(RDPMC_TYPE_GP, c.idx), v0, v1, r, d;

	if (!t_counter_counts(t, c))
		return;
	counter_program(c, counter_cfg_all_rings(c, ARCH_EVENT_INSTRUCTIONS) | PERFEVTSEL_EN, 0);
	if (pmu_has_global())
		pmu_global_enable(counter_global_bit(c));
	arch_write_cr4(cr4 | CR4_PCE);
	v0 = rdmsr(MSR_IA32_PMC(c.idx));
	r = read_at(3, ecx);
	v1 = rdmsr(MSR_IA32_PMC(c.idx));
	d = 0;
	if (expect_eq(t, r & FAULTED, 0, RULE_RDPMC_PCE_SET,
		      "RDPMC " COUNTER_FMT " at CPL 3 with CR4.PCE = 1 (running)", COUNTER_ARG(c)))
		expect_true(t, v0 <= r && r <= v1, "RDMSR before <= RDPMC <= RDMSR after",
			    "out of order", RULE_RDPMC_CPL3_RUNNING,
			    "RDMSR %llu, RDPMC at CPL 3 %llu, RDMSR %llu (" COUNTER_FMT ")",
			    (unsigned long long)v0, (unsigned long long)r, (unsigned long long)v1,
			    COUNTER_ARG(c));
	if (!expect_eq(t, arch_call_at_cpl(3, user_rdpmc_around_workload, ecx, &d), 0,
		       RULE_RDPMC_CPL3_RUNNING, "the CPL 3 reader ran") ||
	    !expect_eq(t, d & FAULTED, 0, RULE_RDPMC_PCE_SET,
		       "RDPMC " COUNTER_FMT " around the workload at CPL 3", COUNTER_ARG(c)))
		d = 0;
	else
		expect_range(t, d, n_insns, n_insns + PMU_OVERHEAD_EVENTS, RULE_RDPMC_CPL3_RUNNING,
			     "RDPMC delta at CPL 3 around %llu iterations (" COUNTER_FMT ")",
			     (unsigned long long)PMU_ITERS, COUNTER_ARG(c));
	if (pmu_has_global())
		pmu_global_disable();
	counter_program(c, 0, 0);
	arch_write_cr4(cr4);
	check_cr4(t, cr4);
}

/* ---- RDPMC user disable: CPUID.(23H,0):EBX[2] ----------------
 * IA32_PERFEVTSELx bit 37 and IA32_FIXED_CTR_CTRL bit 33 + 4i: RDPMC at
 * CPL > 0 of that counter returns 0, CPL 0 still reads it, the other counters
 * and the counting itself are unaffected, CR4.PCE = 0 still faults. */

/* The counters with a user-disable bit: every GP counter, fixed 0-7. */
static unsigned user_disable_targets(struct counter *c)
{
	unsigned n = 0;

	for_each_gp_counter(g)
		c[n++] = g;
	for_each_fixed_counter(f)
		if (f.idx < FIXED_CTRL_HIGH_FIELDS && f.idx < PMU_FIXED_PROGRAMMABLE)
			c[n++] = f;
	return n;
}

static uint64_t user_disable_ecx(struct counter c)
{
	return RDPMC_ECX(c.kind == COUNTER_GP ? RDPMC_TYPE_GP : RDPMC_TYPE_FIXED, c.idx);
}

static uint32_t user_disable_ctr_msr(struct counter c)
{
	return c.kind == COUNTER_GP ? MSR_IA32_PMC(c.idx) : MSR_IA32_FIXED_CTR(c.idx);
}

/* Set or clear c's RDPMC_USR_DISABLE (nothing else programmed); the vector
 * of the write. */
static int user_disable_set(struct counter c, bool on)
{
	if (c.kind == COUNTER_GP)
		return wrmsr_safe(MSR_IA32_PERFEVTSEL(c.idx),
				  on ? PERFEVTSEL_RDPMC_USR_DISABLE : 0);
	return wrmsr_safe(MSR_IA32_FIXED_CTR_CTRL, on ? FIXED_CTRL_RDPMC_USR_DISABLE(c.idx) : 0);
}

/* The value `c` was given (a stopped counter: it stays). */
#define USER_DISABLE_VALUE(k) (0x123456ULL + (k))

/* Only counters shown to hold the value written are read against it:
 * `holds` (a dead counter reads 0 disabled or not). */
static void user_disable_one(struct t *t, const struct counter *c, const bool *holds, unsigned n,
			     unsigned x)
{
	uint64_t ecx = user_disable_ecx(c[x]), rax, rdx;

	for (unsigned k = 0; k < ARRAY_SIZE(cpls); k++) {
		uint64_t r = read_at(cpls[k], ecx);

		if (expect_eq(t, r & FAULTED, 0, RULE_RDPMC_USR_DIS_ZERO,
			      "RDPMC " COUNTER_FMT " at CPL %d, user-disabled, CR4.PCE = 1",
			      COUNTER_ARG(c[x]), cpls[k]))
			expect_eq(t, r, 0, RULE_RDPMC_USR_DIS_ZERO,
				  "RDPMC " COUNTER_FMT " at CPL %d, user-disabled (count %#llx)",
				  COUNTER_ARG(c[x]), cpls[k],
				  (unsigned long long)USER_DISABLE_VALUE(x));
	}
	if (expect_no_fault(t, rdpmc_safe(ecx, &rax, &rdx), RULE_RDPMC_USR_DIS_CPL0,
			    "RDPMC " COUNTER_FMT " at CPL 0, user-disabled", COUNTER_ARG(c[x])))
		expect_eq(t, rdpmc_edx_eax(rax, rdx), USER_DISABLE_VALUE(x),
			  RULE_RDPMC_USR_DIS_CPL0, "RDPMC " COUNTER_FMT " at CPL 0, user-disabled",
			  COUNTER_ARG(c[x]));
	for (unsigned y = 0; y < n; y++) {
		if (y == x || !holds[y])
			continue;
		expect_eq(t, read_at(3, user_disable_ecx(c[y])), USER_DISABLE_VALUE(y),
			  RULE_RDPMC_USR_DIS_OTHERS,
			  "RDPMC " COUNTER_FMT " at CPL 3 while only " COUNTER_FMT
			  " is user-disabled",
			  COUNTER_ARG(c[y]), COUNTER_ARG(c[x]));
	}
}

TEST(privilege, rdpmc_user_disable_reads_zero, REQ_RDPMC_USER_DISABLE)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	unsigned n = user_disable_targets(c);
	const uint64_t cr4 = arch_read_cr4();
	bool holds[2 * PMU_COUNTER_MAX];

	for (unsigned k = 0; k < n; k++) {
		holds[k] = t_counter_holds(t, c[k]);
		wrmsr(user_disable_ctr_msr(c[k]), USER_DISABLE_VALUE(k));
	}
	arch_write_cr4(cr4 | CR4_PCE);
	for (unsigned x = 0; x < n; x++) {
		if (!expect_no_fault(t, user_disable_set(c[x], true), RULE_RDPMC_USR_DIS_DEFINED,
				     "setting RDPMC_USR_DISABLE of " COUNTER_FMT,
				     COUNTER_ARG(c[x])))
			continue;
		if (holds[x])
			user_disable_one(t, c, holds, n, x);
		user_disable_set(c[x], false);
	}
	arch_write_cr4(cr4);
	check_cr4(t, cr4);
	for (unsigned k = 0; k < n; k++)
		wrmsr(user_disable_ctr_msr(c[k]), 0);
}

TEST(privilege, rdpmc_user_disable_counting_unaffected,
     REQ_RDPMC_USER_DISABLE | REQ_ARCH_PMU_V2 | REQ_EXACT_EVENT)
{
	enum arch_event ev;
	uint64_t per_iter, cnt[2];

	pmu_exact_event(&ev, &per_iter);
	for_each_gp_counter(g) {
		if (!t_counter_counts(t, g))
			continue;
		for (unsigned k = 0; k < 2; k++)
			cnt[k] = pmu_count_gp(
			    g.idx, pmu_evtsel(ev, PERFEVTSEL_OS) | PERFEVTSEL_RDPMC_USR_DISABLE,
			    PMU_ITERS << k);
		expect_eq(t, cnt[1] - cnt[0], PMU_ITERS * per_iter, RULE_RDPMC_USR_DIS_COUNTS,
			  COUNTER_FMT " user-disabled: count(2N) - count(N), N = %llu",
			  COUNTER_ARG(g), (unsigned long long)PMU_ITERS);
		wrmsr(MSR_IA32_PERFEVTSEL(g.idx), 0);
	}
	for_each_fixed_counter(f) {
		enum arch_event fev;

		if (f.idx >= FIXED_CTRL_HIGH_FIELDS || !pmu_fixed_event(f.idx, &fev) || fev != ev ||
		    !t_counter_counts(t, f))
			continue;
		for (unsigned k = 0; k < 2; k++) {
			wrmsr(MSR_IA32_FIXED_CTR(f.idx), 0);
			wrmsr(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_FIELD(f.idx, FIXED_CTRL_OS) |
							   FIXED_CTRL_RDPMC_USR_DISABLE(f.idx));
			pmu_run_gated(pmu_gate_global(counter_global_bit(f)), PMU_ITERS << k);
			cnt[k] = rdmsr(MSR_IA32_FIXED_CTR(f.idx));
		}
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
		expect_eq(t, cnt[1] - cnt[0], PMU_ITERS * per_iter, RULE_RDPMC_USR_DIS_COUNTS,
			  COUNTER_FMT " user-disabled: count(2N) - count(N), N = %llu",
			  COUNTER_ARG(f), (unsigned long long)PMU_ITERS);
	}
}

TEST(privilege, rdpmc_user_disable_pce_clear_faults, REQ_RDPMC_USER_DISABLE)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	unsigned n = user_disable_targets(c);
	const uint64_t cr4 = arch_read_cr4();

	arch_write_cr4(cr4 & ~CR4_PCE);
	for (unsigned x = 0; x < n; x++) {
		wrmsr(user_disable_ctr_msr(c[x]), USER_DISABLE_VALUE(x));
		if (user_disable_set(c[x], true))
			continue; /* rdpmc_user_disable_reads_zero reports it */
		for (unsigned k = 0; k < ARRAY_SIZE(cpls); k++) {
			uint64_t r = read_at(cpls[k], user_disable_ecx(c[x]));

			expect_vector(t, (r & FAULTED) ? (int)(r & 0xFF) : 0, X86_VEC_GP,
				      RULE_RDPMC_USR_DIS_PCE,
				      "RDPMC " COUNTER_FMT " at CPL %d, user-disabled, CR4.PCE = 0",
				      COUNTER_ARG(c[x]), cpls[k]);
		}
		user_disable_set(c[x], false);
		wrmsr(user_disable_ctr_msr(c[x]), 0);
	}
	arch_write_cr4(cr4);
	check_cr4(t, cr4);
}
