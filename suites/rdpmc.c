/* SPDX-License-Identifier: MIT */
/*
 * RDPMC, against the instruction page (SDM Vol. 2B RDPMC):
 * every PMC type and index, the #GP(0) cases, the
 * register halves, and monotonicity. Expected outcomes are derived from the
 * CPUID fields as the page states them, extended by leaf 23H
 * (suites/enumeration.h), not from the capability record's own derived
 * bitmaps, so a decoder error cannot hide a CPU error.
 */
#include "enumeration.h"
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

/* Fixed counter x readable per the RDPMC page (EDX[4:0] > x or ECX[x] = 1,
 * ECX from version 5 on) and leaf 23H. */
static bool rdpmc_fixed_ok(unsigned x)
{
	return sdm_fixed_counter_exists(x);
}

static bool metrics_ok(void)
{
	return caps()->perf_cap.valid && caps()->perf_cap.perf_metrics;
}

/* Expected outcome of an architectural-PMU RDPMC with ECX = ecx: true when it
 * reads a counter, false when it raises #GP(0). Type 2000H with metrics is
 * implementation specific and not predicted (returns true). */
static bool rdpmc_ecx_ok(uint32_t ecx)
{
	uint32_t type = ecx >> 16, index = ecx & 0xFFFF;

	if (type == RDPMC_TYPE_GP)
		return sdm_gp_counter_exists(index);
	if (type == RDPMC_TYPE_FIXED)
		return index < 32 && rdpmc_fixed_ok(index);
	if (type == RDPMC_TYPE_METRICS)
		return metrics_ok();
	return false;
}

static bool is_gp0(int vec)
{
	return vec == X86_VEC_GP && arch_fault_error_code() == 0;
}

TEST(rdpmc, gp_counters_read, REQ_ARCH_PMU)
{
	unsigned w = caps()->pm.gp_width;

	for_each_gp_counter(c) {
		unsigned i = c.idx;
		/* bit 31 set: sign-extension fills EDX, so both halves matter */
		uint64_t want = (0xFFFFFFFF80000000ULL | (0x1234 + 0x111 * i)) & width_mask(w);
		uint64_t rax, rdx;
		int vec;
		/* RDPMC reads whatever the counter has; what was written only
		 * from a counter that holds it. */
		bool holds = t_counter_holds(t, c);

		pmu_gp_program(i, 0, 0);
		wrmsr(MSR_IA32_PMC(i), want & 0xFFFFFFFFULL);
		vec = rdpmc_safe(RDPMC_ECX(RDPMC_TYPE_GP, i), &rax, &rdx);
		if (!expect_vector(t, vec, 0, RULE_RDPMC_GP, "RDPMC ECX=%#x", i))
			continue;
		expect_eq(t, rdpmc_edx_eax(rax, rdx), rdmsr(MSR_IA32_PMC(i)), RULE_RDPMC_GP,
			  "RDPMC %u vs RDMSR IA32_PMC%u", i, i);
		if (holds)
			expect_eq(t, rdpmc_edx_eax(rax, rdx), want, RULE_RDPMC_WIDTH,
				  "RDPMC %u after writing EAX=%#llx (width %u)", i,
				  (unsigned long long)(want & 0xFFFFFFFFULL), w);
		expect_eq(t, (rax >> 32) | ((rdx >> 32) << 32), 0, RULE_RDPMC_RAX_RDX_HIGH,
			  "RDPMC %u: RDX[63:32]:RAX[63:32] (loaded with %#llx before)", i,
			  (unsigned long long)ARCH_RDPMC_POISON);
	}
}

TEST(rdpmc, gp_index_bounds, REQ_ARCH_PMU)
{
	unsigned n = sdm_gp_counter_end();
	/* 32 and 64: one past the largest GLOBAL_CTRL-addressable counter, and
	 * the index other suites probe (kvm-unit-tests RDPMC(64)). */
	const uint32_t idx[] = {n, n + 1, 32, 64, 0xFF, 0x100, 0x100 | 1, 0x8000, 0xFFFF};

	for (unsigned k = 0; k < ARRAY_SIZE(idx); k++) {
		uint64_t rax, rdx;

		if (idx[k] < n || idx[k] > 0xFFFF)
			continue;
		t_subject_rdpmc(t, RDPMC_ECX(RDPMC_TYPE_GP, idx[k]));
		expect_vector(t, rdpmc_safe(RDPMC_ECX(RDPMC_TYPE_GP, idx[k]), &rax, &rdx),
			      X86_VEC_GP, RULE_RDPMC_GP_INDEX,
			      "RDPMC ECX=%#x (GP counters below %u)", idx[k], n);
	}
}

TEST(rdpmc, fixed_type_reads_supported, REQ_ARCH_PMU)
{
	for (unsigned x = 0; x < 32; x++) {
		uint64_t ecx = RDPMC_ECX(RDPMC_TYPE_FIXED, x), rax, rdx;
		/* a stopped counter holding a pattern of its own (not the zero
		 * a reset leaves, which a RDPMC returning 0 would match) */
		uint64_t want = (0x5A5A5A5A5AULL + x) & pmu_fixed_mask();
		int vec;

		if (rdpmc_fixed_ok(x) && pmu_fixed_present(x))
			wrmsr(MSR_IA32_FIXED_CTR(x), want);
		vec = rdpmc_safe(ecx, &rax, &rdx);

		t_subject_rdpmc(t, ecx);
		if (!rdpmc_fixed_ok(x)) {
			expect_vector(t, vec, X86_VEC_GP, RULE_RDPMC_FIXED_INDEX,
				      "RDPMC ECX=%#llx (fixed %u not enumerated)",
				      (unsigned long long)ecx, x);
			continue;
		}
		if (!expect_vector(t, vec, 0, RULE_RDPMC_FIXED, "RDPMC ECX=%#llx",
				   (unsigned long long)ecx))
			continue;
		expect_eq(t, rdpmc_edx_eax(rax, rdx), rdmsr(MSR_IA32_FIXED_CTR(x)),
			  RULE_RDPMC_FIXED, "RDPMC fixed %u vs RDMSR IA32_FIXED_CTR%u", x, x);
		if (pmu_fixed_present(x)) {
			if (t_counter_holds(t, FIXED_COUNTER(x)))
				expect_eq(t, rdpmc_edx_eax(rax, rdx), want, RULE_RDPMC_FIXED,
					  "RDPMC fixed %u after writing %#llx to IA32_FIXED_CTR%u",
					  x, (unsigned long long)want, x);
			expect_eq(t, (rax >> 32) | ((rdx >> 32) << 32), 0, RULE_RDPMC_RAX_RDX_HIGH,
				  "RDPMC fixed %u: RDX[63:32]:RAX[63:32]", x);
			wrmsr(MSR_IA32_FIXED_CTR(x), 0);
		}
	}
}

TEST(rdpmc, fixed_index_high_bits, REQ_ARCH_PMU)
{
	const uint32_t high[] = {0x20, 0x40, 0x100, 0x8000, 0xFFE0};

	for (unsigned k = 0; k < ARRAY_SIZE(high); k++) {
		/* a supported counter's index with ECX[15:5] != 0 */
		uint32_t index = high[k] | (rdpmc_fixed_ok(0) ? 0 : 1);
		uint64_t rax, rdx;

		t_subject_rdpmc(t, RDPMC_ECX(RDPMC_TYPE_FIXED, index));
		expect_vector(t, rdpmc_safe(RDPMC_ECX(RDPMC_TYPE_FIXED, index), &rax, &rdx),
			      X86_VEC_GP, RULE_RDPMC_FIXED_INDEX, "RDPMC ECX=%#llx",
			      (unsigned long long)RDPMC_ECX(RDPMC_TYPE_FIXED, index));
	}
}

TEST(rdpmc, metrics_type, REQ_ARCH_PMU)
{
	const uint32_t idx[] = {0, 1, 0xFFFF};

	if (metrics_ok()) {
		uint64_t rax, rdx;

		/* The index is implementation specific; 0 reads the metrics. */
		t_subject_rdpmc(t, RDPMC_ECX(RDPMC_TYPE_METRICS, 0));
		expect_vector(t, rdpmc_safe(RDPMC_ECX(RDPMC_TYPE_METRICS, 0), &rax, &rdx), 0,
			      RULE_RDPMC_METRICS,
			      "RDPMC ECX=0x20000000 with PERF_METRICS_AVAILABLE");
		return;
	}
	for (unsigned k = 0; k < ARRAY_SIZE(idx); k++) {
		uint64_t rax, rdx;

		t_subject_rdpmc(t, RDPMC_ECX(RDPMC_TYPE_METRICS, idx[k]));
		expect_vector(t, rdpmc_safe(RDPMC_ECX(RDPMC_TYPE_METRICS, idx[k]), &rax, &rdx),
			      X86_VEC_GP, RULE_RDPMC_METRICS,
			      "RDPMC ECX=%#llx without PERF_METRICS_AVAILABLE",
			      (unsigned long long)RDPMC_ECX(RDPMC_TYPE_METRICS, idx[k]));
	}
}

/*
 * Every type ECX[31:16] other than 0, 4000H (and 2000H with metrics) must
 * raise #GP(0), whatever the index. One check per index swept; the first
 * offenders are listed on failure.
 */
TEST(rdpmc, all_types_sweep, REQ_ARCH_PMU)
{
	const uint32_t idx[] = {0, 1, 3, 0xFFFF};

	for (unsigned k = 0; k < ARRAY_SIZE(idx); k++) {
		unsigned bad = 0, swept = 0;
		char first[160] = "";
		size_t len = 0;

		for (uint32_t type = 0; type <= 0xFFFF; type++) {
			uint32_t ecx = (type << 16) | idx[k];
			uint64_t rax, rdx;
			int vec;

			if (type == RDPMC_TYPE_GP || type == RDPMC_TYPE_FIXED ||
			    (type == RDPMC_TYPE_METRICS && metrics_ok()))
				continue;
			swept++;
			vec = rdpmc_safe(ecx, &rax, &rdx);
			if (is_gp0(vec))
				continue;
			t_offender(t, SUBJECT_RDPMC, ecx, t_vector_class(vec));
			if (bad++ < 4 && len < sizeof(first) - 40)
				len += ksnprintf(first + len, sizeof(first) - len, "%s%#x->%s(%u)",
						 len ? ", " : "", ecx,
						 vec ? x86_vector_name(vec) : "no fault",
						 vec ? arch_fault_error_code() : 0);
		}
		expect_true(t, bad == 0, "#GP(0) for every unsupported type",
			    bad ? first : "all #GP(0)", RULE_RDPMC_BAD_TYPE,
			    "%u types swept with index %#x: %u did not raise #GP(0)", swept, idx[k],
			    bad);
	}
}

TEST(rdpmc, gp_and_fixed_outcome_table, REQ_ARCH_PMU)
{
	/* Encodings around the defined types, each outcome from rdpmc_ecx_ok(). */
	const uint32_t ecx[] = {
	    0x00000000, 0x00000001, 0x00000007, 0x00000008, 0x0000001F, 0x00000020,
	    0x40000000, 0x40000001, 0x40000002, 0x40000003, 0x40000004, 0x40000005,
	    0x40000007, 0x4000001F, 0x80000000, 0x80000001, 0xC0000000, 0x00010000,
	    0x40010000, 0x60000000, 0x3FFF0000, 0x7FFF0000, 0xFFFF0000, 0x20010000,
	};

	for (unsigned k = 0; k < ARRAY_SIZE(ecx); k++) {
		uint64_t rax, rdx;
		bool ok = rdpmc_ecx_ok(ecx[k]);
		int vec = rdpmc_safe(ecx[k], &rax, &rdx);

		if ((ecx[k] >> 16) == RDPMC_TYPE_METRICS && ok)
			continue;
		t_subject_rdpmc(t, ecx[k]);
		expect_vector(
		    t, vec, ok ? 0 : X86_VEC_GP,
		    ok ? ((ecx[k] >> 16) ? RULE_RDPMC_FIXED : RULE_RDPMC_GP)
		       : ((ecx[k] & BIT_ULL(31)) ? RULE_RDPMC_FAST_ARCH : RULE_RDPMC_BAD_TYPE),
		    "RDPMC ECX=%#x", ecx[k]);
	}
}

TEST(rdpmc, rcx_high_ignored, REQ_ARCH_PMU | REQ_GP_COUNTER)
{
	const uint64_t high[] = {BIT_ULL(32), 0xFFFFFFFF00000000ULL, 0x4000000000000000ULL};
	int c = pmu_gp_nth(0);
	/* Each read is checked against the value written where the counter
	 * was shown to hold one. */
	bool holds = t_counter_holds(t, GP_COUNTER((unsigned)c));

	pmu_gp_program((unsigned)c, 0, 0);
	wrmsr(MSR_IA32_PMC(c), 0x5A5A5A);
	for (unsigned k = 0; k < ARRAY_SIZE(high); k++) {
		uint64_t rcx = high[k] | RDPMC_ECX(RDPMC_TYPE_GP, c), rax, rdx;
		int vec = rdpmc_safe(rcx, &rax, &rdx);

		if (!expect_vector(t, vec, 0, RULE_RDPMC_RCX_HIGH, "RDPMC RCX=%#llx",
				   (unsigned long long)rcx) ||
		    !holds)
			continue;
		expect_eq(t, (rdx << 32) | rax, 0x5A5A5A, RULE_RDPMC_RCX_HIGH,
			  "RDPMC RCX=%#llx reads IA32_PMC%d", (unsigned long long)rcx, c);
	}
	if (rdpmc_fixed_ok(0) && pmu_fixed_present(0)) {
		uint64_t rax, rdx;

		wrmsr(MSR_IA32_FIXED_CTR0, 0xA5A5A5);
		if (expect_vector(t,
				  rdpmc_safe(0xFFFFFFFF00000000ULL | RDPMC_ECX(RDPMC_TYPE_FIXED, 0),
					     &rax, &rdx),
				  0, RULE_RDPMC_RCX_HIGH, "RDPMC RCX=0xffffffff40000000") &&
		    t_counter_holds(t, FIXED_COUNTER(0)))
			expect_eq(t, (rdx << 32) | rax, 0xA5A5A5, RULE_RDPMC_RCX_HIGH,
				  "RDPMC RCX=0xffffffff40000000 reads IA32_FIXED_CTR0");
		wrmsr(MSR_IA32_FIXED_CTR0, 0);
	}
}

TEST(rdpmc, fast_bit_on_arch_pmu, REQ_ARCH_PMU)
{
	for (unsigned i = 0; i < 2; i++) {
		uint64_t rax, rdx;

		t_subject_rdpmc(t, RDPMC_FAST | i);
		expect_vector(t, rdpmc_safe(RDPMC_FAST | i, &rax, &rdx), X86_VEC_GP,
			      RULE_RDPMC_FAST_ARCH, "RDPMC ECX=%#llx on an architectural PMU",
			      (unsigned long long)(RDPMC_FAST | i));
	}
}

TEST(rdpmc, monotonic_with_serialization, REQ_ARCH_PMU | REQ_EXACT_EVENT | REQ_GP_COUNTER)
{
	enum arch_event ev;
	uint64_t per_iter, prev = 0, rax, rdx;
	unsigned back = 0, faults = 0;
	int c = pmu_gp_nth(0);

	/* A counter that never moves never goes backwards either. */
	if (!t_counter_counts(t, GP_COUNTER((unsigned)c)))
		return;
	pmu_exact_event(&ev, &per_iter);
	pmu_gp_program((unsigned)c, pmu_evtsel(ev, PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_EN),
		       0);
	if (pmu_has_global())
		pmu_global_enable(GLOBAL_PMC_BIT(c));
	for (unsigned k = 0; k < 1000; k++) {
		uint64_t v;

		faults += rdpmc_safe(RDPMC_ECX(RDPMC_TYPE_GP, c), &rax, &rdx) != 0;
		v = rdpmc_edx_eax(rax, rdx);
		back += v < prev;
		prev = v;
		arch_serialize();
	}
	if (pmu_has_global())
		pmu_global_disable();
	expect_eq(t, faults, 0, RULE_RDPMC_GP, "faults over 1000 RDPMC of IA32_PMC%d", c);
	expect_eq(t, back, 0, RULE_RDPMC_MONOTONIC,
		  "serialized back-to-back RDPMC reads that went backwards (of 1000)");
	expect_true(t, prev > 0, "the counter ran", prev ? "ran" : "stayed 0", RULE_RDPMC_MONOTONIC,
		    "IA32_PMC%d after 1000 reads", c);
}

/* NetBurst: ECX[30:0] is the counter, ECX[31] the fast read. */
TEST(rdpmc, nonarch_index_and_fast_read, REQ_NETBURST)
{
	const uint64_t value = 0xABCDEF0123ULL; /* 40 bits */

	for (unsigned i = 0; i < P4_NUM_COUNTERS; i++) {
		uint64_t rax, rdx;

		wrmsr(MSR_P4_CCCR(i), P4_CCCR_RESERVED_ONES);
		wrmsr(MSR_P4_COUNTER(i), value);
		if (expect_vector(t, rdpmc_safe(i, &rax, &rdx), 0, RULE_P4_RDPMC, "RDPMC ECX=%u",
				  i))
			expect_eq(t, rdpmc_edx_eax(rax, rdx), value, RULE_P4_RDPMC,
				  "RDPMC %u (full read)", i);
		if (expect_vector(t, rdpmc_safe(RDPMC_FAST | i, &rax, &rdx), 0,
				  RULE_RDPMC_FAST_NONARCH, "RDPMC ECX=%#llx (fast)",
				  (unsigned long long)(RDPMC_FAST | i)))
			expect_eq(t, rdpmc_edx_eax(rax, rdx), value & 0xFFFFFFFFULL,
				  RULE_RDPMC_FAST_NONARCH, "fast RDPMC %u: EDX:EAX", i);
		wrmsr(MSR_P4_COUNTER(i), 0);
	}
	{
		uint64_t rax, rdx;

		t_subject_rdpmc(t, P4_NUM_COUNTERS);
		expect_vector(t, rdpmc_safe(P4_NUM_COUNTERS, &rax, &rdx), X86_VEC_GP,
			      RULE_RDPMC_BAD_TYPE, "RDPMC ECX=%u (no such counter)",
			      P4_NUM_COUNTERS);
	}
}
