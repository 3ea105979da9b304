/* SPDX-License-Identifier: MIT */
/*
 * Intel Memory Bandwidth Allocation, register by register (rules in
 * rdt_alloc.h): IA32_L2_QoS_Ext_BW_Thrtl_n (D50H + n) for n up to
 * CPUID.(10H,3):EDX[15:0], a delay up to the maximum throttling
 * CPUID.(10H,3):EAX[11:0] + 1, linear (ECX[2]: a percentage in steps of
 * 100 - maximum) or not (powers of two). Every test puts back each delay
 * it changed.
 */
#include "rdt_alloc.h"

/* The MBA parameters, or a skip naming what is missing. */
static bool mba_params(struct t *t)
{
	const struct caps_rdt *r = &caps()->rdt;

	if (!r->mba)
		t_skip(t, "CPUID.(10H,0):EBX[3] = 0: no MBA");
	else if (!r->mba_params_valid)
		t_skip(t, "CPUID.(10H,3) reads all zeros: MBA parameters unknown");
	else
		return true;
	return false;
}

/* The delays the precision represents exactly: linear, the multiples of
 * 100 - max up to max; non-linear, 0 and the powers of two up to max. */
static unsigned exact_delays(unsigned *out, unsigned cap)
{
	const struct caps_rdt *r = &caps()->rdt;
	unsigned n = 0, max = r->mba_max_delay;

	if (r->mba_linear) {
		unsigned gran = max < 100 ? 100 - max : 0;

		for (unsigned v = 0; gran && v <= max && n < cap; v += gran)
			out[n++] = v;
	} else {
		out[n++] = 0;
		for (unsigned v = 1; v <= max && n < cap; v <<= 1)
			out[n++] = v;
	}
	return n;
}

TEST(rdt_mba, delay_read_back, REQ_INTEL | REQ_RDT_ALLOC)
{
	const struct caps_rdt *r = &caps()->rdt;
	unsigned v[64], n;

	if (!mba_params(t))
		return;
	n = exact_delays(v, ARRAY_SIZE(v));
	t_diag(t, "MBA: max throttling %u, highest COS %u, linear %d, per-thread %d",
	       r->mba_max_delay, r->mba_max_cos, r->mba_linear, r->mba_per_thread);
	if (n < 2)
		t_skip_return(t, "maximum throttling %u (linear %d): no delay steps to write",
			      r->mba_max_delay, r->mba_linear);
	const unsigned cos[] = {r->mba_max_cos >= 1 ? 1 : 0, r->mba_max_cos};
	for (unsigned i = 0; i < ARRAY_SIZE(cos); i++) {
		uint32_t msr = MSR_IA32_L2_QOS_EXT_BW_THRTL_0 + cos[i];
		uint64_t saved = rdmsr(msr);

		for (unsigned k = 0; k < n; k++) {
			t_subject_msr(t, msr);
			if (expect_no_fault(t, wrmsr_safe(msr, v[k]), RULE_MBA_READBACK,
					    "WRMSR IA32_L2_QoS_Ext_BW_Thrtl_%u <- %u", cos[i],
					    v[k]))
				expect_eq(t, rdmsr(msr), v[k], RULE_MBA_READBACK,
					  "IA32_L2_QoS_Ext_BW_Thrtl_%u read back", cos[i]);
		}
		wrmsr(msr, saved);
	}
}

TEST(rdt_mba, delay_rounds_down, REQ_INTEL | REQ_RDT_ALLOC)
{
	const struct caps_rdt *r = &caps()->rdt;
	unsigned gran;

	if (!mba_params(t))
		return;
	gran = r->mba_max_delay < 100 ? 100 - r->mba_max_delay : 0;
	if (!r->mba_linear || gran < 2)
		t_skip_return(t, "linear %d, precision %u: no delay between two steps",
			      r->mba_linear, gran);
	uint32_t msr = MSR_IA32_L2_QOS_EXT_BW_THRTL_0 + (r->mba_max_cos >= 1 ? 1 : 0);
	uint64_t saved = rdmsr(msr);
	for (unsigned v = gran / 2; v < r->mba_max_delay; v += gran) {
		uint64_t got;

		if (wrmsr_safe(msr, v)) {
			t_diag(t, "delay %u (not a multiple of %u): #GP (not checked)", v, gran);
			continue;
		}
		got = rdmsr(msr);
		t_subject_msr(t, msr);
		expect_true(t, got == v || got == v - v % gran, "the value or its rounding down",
			    "other", RULE_MBA_ROUNDING, "delay %u (precision %u) read back as %llu",
			    v, gran, (unsigned long long)got);
	}
	wrmsr(msr, saved);
}

TEST(rdt_mba, delay_beyond_max_cos_gp, REQ_INTEL | REQ_RDT_ALLOC)
{
	const struct caps_rdt *r = &caps()->rdt;
	uint64_t v;

	if (!mba_params(t))
		return;
	if (r->mba_max_cos + 1 >= 64)
		t_skip_return(t, "highest MBA COS %u: no register above it in D50H-D8FH",
			      r->mba_max_cos);
	uint32_t msr = MSR_IA32_L2_QOS_EXT_BW_THRTL_0 + r->mba_max_cos + 1;
	t_subject_msr(t, msr);
	expect_vector(t, rdmsr_safe(msr, &v), X86_VEC_GP, RULE_MBA_COS_RANGE,
		      "RDMSR IA32_L2_QoS_Ext_BW_Thrtl_%u (highest COS %u)", r->mba_max_cos + 1,
		      r->mba_max_cos);
	t_subject_msr(t, msr);
	expect_vector(t, wrmsr_safe(msr, 0), X86_VEC_GP, RULE_MBA_COS_RANGE,
		      "WRMSR IA32_L2_QoS_Ext_BW_Thrtl_%u <- 0", r->mba_max_cos + 1);
}
