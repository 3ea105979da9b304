/* SPDX-License-Identifier: MIT */
/*
 * What each architectural PMU version adds, and what does not exist before
 * it: v1 has no fixed counters and no global MSRs; counters beyond the
 * enumerated count do not exist; v3 AnyThread, and its deprecation; the v5
 * fixed-counter bitmask (ECX), including counters beyond EDX[4:0].
 * SDM Vol. 3B 20.2.1-20.2.5; Vol. 2A CPUID leaf 0AH.
 *
 * Counter existence is recomputed here from the raw CPUID fields as the SDM
 * words it (suites/enumeration.h: leaf 0AH, extended by leaf 23H),
 * independently of the capability record's bitmap.
 */
#include "enumeration.h"
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "reserved_bits.h"
#include "rules.h"
#include "test.h"

/*
 * How far past the last counter the GP MSRs are probed. IA32_PMCx = C1H + x,
 * IA32_PERFEVTSELx = 186H + x and IA32_A_PMCx = 4C1H + x are architectural
 * only for counters that exist; past them the three ranges run into other
 * MSRs, the nearest being IA32_PMC13 = CEH (MSR_PLATFORM_INFO on most Intel
 * models, SDM Vol. 4). So the probe covers indices up to 12: at least two
 * past the last counter and all of the eight of the first versions, never
 * 13 or beyond.
 */
#define GP_PROBE_END	   13 /* IA32_PMC13 would be CEH */
#define GP_PROBE_MIN_END   8
#define GP_PROBE_PAST_LAST 2
TEST(versions, v1_has_no_fixed_or_global_msrs, REQ_ARCH_PMU)
{
	static const struct {
		uint32_t msr;
		const char *name;
	} absent[] = {
	    {MSR_AND_NAME(IA32_FIXED_CTR_CTRL)},       {MSR_AND_NAME(IA32_FIXED_CTR0)},
	    {MSR_AND_NAME(IA32_PERF_GLOBAL_CTRL)},     {MSR_AND_NAME(IA32_PERF_GLOBAL_STATUS)},
	    {MSR_AND_NAME(IA32_PERF_GLOBAL_OVF_CTRL)},
	};

	if (caps()->pm.version != 1)
		t_skip_return(t, "CPUID.0AH:EAX[7:0] = %u: test needs version 1",
			      caps()->pm.version);
	for (unsigned k = 0; k < ARRAY_SIZE(absent); k++) {
		uint64_t v;

		expect_vector(t, rdmsr_safe(absent[k].msr, &v), X86_VEC_GP, RULE_V1_NO_GLOBAL,
			      "RDMSR %s on version 1", absent[k].name);
		expect_vector(t, wrmsr_safe(absent[k].msr, 0), X86_VEC_GP, RULE_V1_NO_GLOBAL,
			      "WRMSR %s <- 0 on version 1", absent[k].name);
	}
}

TEST(versions, no_pmu_no_counter_msrs, REQ_NO_ARCH_PMU | REQ_INTEL)
{
	static const uint32_t msrs[] = {MSR_IA32_PMC0, MSR_IA32_PERFEVTSEL0,
					MSR_IA32_PERF_GLOBAL_CTRL, MSR_IA32_FIXED_CTR0};
	uint64_t v, rax, rdx;

	/* P6 (no leaf 0AH) and NetBurst have model-specific counters. */
	if (caps()->netburst || caps()->max_basic_leaf < 0x0A)
		t_skip_return(t,
			      "leaf 0AH absent (CPUID.0H:EAX = %#x): model-specific PMU may exist",
			      caps()->max_basic_leaf);
	for (unsigned k = 0; k < ARRAY_SIZE(msrs); k++) {
		expect_vector(t, rdmsr_safe(msrs[k], &v), X86_VEC_GP, RULE_NO_PMU_MSRS,
			      "RDMSR %#x with CPUID.0AH:EAX = 0", msrs[k]);
		expect_vector(t, wrmsr_safe(msrs[k], 1), X86_VEC_GP, RULE_NO_PMU_MSRS,
			      "WRMSR %#x <- 1 with CPUID.0AH:EAX = 0", msrs[k]);
	}
	expect_vector(t, rdpmc_safe(0, &rax, &rdx), X86_VEC_GP, RULE_NO_PMU_RDPMC,
		      "RDPMC ECX=0 with no counter");
}

TEST(versions, gp_msrs_beyond_count_absent, REQ_ARCH_PMU)
{
	unsigned n = sdm_gp_counter_end();
	unsigned end =
	    n + GP_PROBE_PAST_LAST > GP_PROBE_MIN_END ? n + GP_PROBE_PAST_LAST : GP_PROBE_MIN_END;

	if (end > GP_PROBE_END)
		end = GP_PROBE_END;
	if (n >= end)
		t_skip_return(t,
			      "GP counters up to IA32_PMC%u: past them IA32_PMC13 would be CEH, "
			      "another MSR",
			      n - 1);
	for (unsigned x = n; x < end; x++) {
		uint64_t v;

		t_subject_msr(t, MSR_IA32_PMC(x));
		expect_vector(t, rdmsr_safe(MSR_IA32_PMC(x), &v), X86_VEC_GP, RULE_GP_ABSENT,
			      "RDMSR IA32_PMC%u (GP counters below %u)", x, n);
		t_subject_msr(t, MSR_IA32_PMC(x));
		expect_vector(t, wrmsr_safe(MSR_IA32_PMC(x), 0), X86_VEC_GP, RULE_GP_ABSENT,
			      "WRMSR IA32_PMC%u (GP counters below %u)", x, n);
		t_subject_msr(t, MSR_IA32_PERFEVTSEL(x));
		expect_vector(t, rdmsr_safe(MSR_IA32_PERFEVTSEL(x), &v), X86_VEC_GP, RULE_GP_ABSENT,
			      "RDMSR IA32_PERFEVTSEL%u (GP counters below %u)", x, n);
		t_subject_msr(t, MSR_IA32_PERFEVTSEL(x));
		expect_vector(t, wrmsr_safe(MSR_IA32_PERFEVTSEL(x), 0), X86_VEC_GP, RULE_GP_ABSENT,
			      "WRMSR IA32_PERFEVTSEL%u (GP counters below %u)", x, n);
		/* the full-width alias exists only for counters that exist */
		if (caps()->perf_cap.valid && caps()->perf_cap.full_width_write) {
			t_subject_msr(t, MSR_IA32_A_PMC(x));
			expect_vector(t, rdmsr_safe(MSR_IA32_A_PMC(x), &v), X86_VEC_GP,
				      RULE_GP_ABSENT, "RDMSR IA32_A_PMC%u (GP counters below %u)",
				      x, n);
			t_subject_msr(t, MSR_IA32_A_PMC(x));
			expect_vector(t, wrmsr_safe(MSR_IA32_A_PMC(x), 0), X86_VEC_GP,
				      RULE_GP_ABSENT, "WRMSR IA32_A_PMC%u (GP counters below %u)",
				      x, n);
		}
	}
}

/* Leaf 23H may leave holes in the GP counters: those do not exist either. */
TEST(versions, gp_bitmap_holes_absent, REQ_ARCH_PMU)
{
	const struct caps_leaf23 *l = &caps()->l23;
	unsigned end = sdm_gp_counter_end();

	if (!l->counters_valid)
		t_skip_return(t, "CPUID.(23H,0):EAX[1] = 0: no GP counter bitmap");
	for (unsigned x = 0; x < end; x++) {
		uint64_t v;

		if (sdm_gp_counter_exists(x))
			continue;
		t_subject_msr(t, MSR_IA32_PMC(x));
		expect_vector(t, rdmsr_safe(MSR_IA32_PMC(x), &v), X86_VEC_GP, RULE_GP_ABSENT,
			      "RDMSR IA32_PMC%u (not in CPUID.(23H,1):EAX)", x);
		t_subject_msr(t, MSR_IA32_PERFEVTSEL(x));
		expect_vector(t, rdmsr_safe(MSR_IA32_PERFEVTSEL(x), &v), X86_VEC_GP, RULE_GP_ABSENT,
			      "RDMSR IA32_PERFEVTSEL%u (not in CPUID.(23H,1):EAX)", x);
	}
	if (t_checks(t) == 0)
		t_skip(t, "CPUID.(23H,1):EAX = %#x has no hole below its highest counter",
		       l->gp_bitmap);
}

/* A bit of fixed counter x's IA32_FIXED_CTR_CTRL field (USR, else PMI, else
 * OS) that no enumeration defines for another counter; 0 when there is none. */
static uint64_t fixed_field_probe(unsigned x)
{
	static const uint64_t bits[] = {FIXED_CTRL_USR, FIXED_CTRL_PMI, FIXED_CTRL_OS};
	uint64_t defined = caps_fixed_ctrl_high_defined(caps());

	for (unsigned i = 0; i < ARRAY_SIZE(bits); i++)
		if (!(FIXED_CTRL_FIELD(x, bits[i]) & defined))
			return FIXED_CTRL_FIELD(x, bits[i]);
	return 0;
}

TEST(versions, fixed_counters_exist_as_enumerated, REQ_ARCH_PMU_V2)
{
	uint64_t ctrl_ok = 0;

	for (unsigned x = 0; x < GLOBAL_FIXED_BITS; x++) {
		uint64_t v;

		if (sdm_fixed_counter_exists(x)) {
			ctrl_ok |=
			    FIXED_CTRL_FIELD(x, FIXED_CTRL_OS | FIXED_CTRL_USR | FIXED_CTRL_PMI);
			/* The write and read-back are the establishing test's:
			 * a counter shown to hold no value is named instead. */
			if (!t_counter_holds(t, FIXED_COUNTER(x)))
				continue;
			expect_no_fault(t, wrmsr_safe(MSR_IA32_FIXED_CTR(x), 0x1234),
					RULE_FIXED_BITMASK, "WRMSR IA32_FIXED_CTR%u (enumerated)",
					x);
			expect_eq(t, rdmsr(MSR_IA32_FIXED_CTR(x)), 0x1234, RULE_FIXED_BITMASK,
				  "IA32_FIXED_CTR%u read back", x);
			wrmsr(MSR_IA32_FIXED_CTR(x), 0);
			continue;
		}
		t_subject_msr(t, MSR_IA32_FIXED_CTR(x));
		expect_vector(t, rdmsr_safe(MSR_IA32_FIXED_CTR(x), &v), X86_VEC_GP,
			      RULE_FIXED_ABSENT, "RDMSR IA32_FIXED_CTR%u (not enumerated)", x);
		t_subject_msr(t, MSR_IA32_FIXED_CTR(x));
		expect_vector(t, wrmsr_safe(MSR_IA32_FIXED_CTR(x), 0), X86_VEC_GP,
			      RULE_FIXED_ABSENT, "WRMSR IA32_FIXED_CTR%u (not enumerated)", x);
		/* An enable bit of the field that nothing else defines: with
		 * PEBS_BASELINE bit 32 + 4i (the OS bit of field 8 + i) is fixed
		 * counter i's Adaptive_Record (Vol. 3B 20.9), with
		 * RDPMC_USR_DISABLE bit 33 + 4i (its USR bit) fixed counter i's
		 * (caps_fixed_ctrl_high_defined()). */
		uint64_t probe = fixed_field_probe(x);
		if (!probe)
			continue;
		int vec = wrmsr_safe(MSR_IA32_FIXED_CTR_CTRL, probe);
		/* Accepted: the observed outcome is the field's bit. */
		t_subject_msr(t, MSR_IA32_FIXED_CTR_CTRL);
		if (!vec)
			t_outcome_bits(t, probe);
		expect_vector(t, vec, X86_VEC_GP, RULE_FIXED_CTRL_RSVD,
			      "WRMSR IA32_FIXED_CTR_CTRL <- %#llx enabling fixed counter %u (not "
			      "enumerated)",
			      (unsigned long long)probe, x);
	}
	if (ctrl_ok) {
		expect_no_fault(t, wrmsr_safe(MSR_IA32_FIXED_CTR_CTRL, ctrl_ok), RULE_FIXED_BITMASK,
				"WRMSR IA32_FIXED_CTR_CTRL <- %#llx (every enumerated field)",
				(unsigned long long)ctrl_ok);
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	}
}

TEST(versions, v5_fixed_beyond_edx_count, REQ_ARCH_PMU_V5)
{
	const struct caps_arch_perfmon *pm = &caps()->pm;
	unsigned found = 0;

	for (unsigned x = pm->fixed_counters_edx; x < 32; x++) {
		uint64_t rax, rdx;

		if (!((pm->fixed_bitmask >> x) & 1))
			continue;
		found++;
		expect_no_fault(t, rdpmc_safe(RDPMC_ECX(RDPMC_TYPE_FIXED, x), &rax, &rdx),
				RULE_FIXED_BITMASK, "RDPMC fixed %u (ECX[%u] = 1, EDX[4:0] = %u)",
				x, x, pm->fixed_counters_edx);
		/* IA32_FIXED_CTR_CTRL has 16 fields and GLOBAL_CTRL 16 fixed
		 * enables (bits 47:32): a counter 16 or up has neither. */
		if (x >= GLOBAL_FIXED_BITS)
			continue;
		expect_no_fault(t, wrmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_FIXED_BIT(x)),
				RULE_FIXED_BITMASK, "IA32_PERF_GLOBAL_CTRL enable of fixed %u", x);
		wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
		expect_no_fault(
		    t, wrmsr_safe(MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_FIELD(x, FIXED_CTRL_OS)),
		    RULE_FIXED_BITMASK, "IA32_FIXED_CTR_CTRL field of fixed %u", x);
		wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	}
	if (!found)
		t_skip(t, "CPUID.0AH:ECX = %#x has no bit at or above EDX[4:0] = %u",
		       pm->fixed_bitmask, pm->fixed_counters_edx);
}

TEST(versions, anythread, REQ_ARCH_PMU)
{
	const struct caps_arch_perfmon *pm = &caps()->pm;
	int c = pmu_gp_nth(0);
	uint64_t sel = pmu_evtsel(ARCH_EVENT_CORE_CYCLES, PERFEVTSEL_OS | PERFEVTSEL_ANY);
	bool accepted = pm->version >= 3 && !pm->anythread_deprecated;
	const char *rule = pm->version < 3 ? RULE_ANYTHREAD_RSVD
			   : accepted	   ? RULE_ANYTHREAD_V3
					   : RULE_ANYTHREAD_DEPRECATED;
	int vec;

	t_diag(t, "version %u, AnyThread deprecation (EDX[15]) %u: AnyThread %s", pm->version,
	       pm->anythread_deprecated, accepted ? "supported" : "reserved");
	if (c >= 0) {
		vec = wrmsr_safe(MSR_IA32_PERFEVTSEL(c), sel);
		if (expect_vector(t, vec, accepted ? 0 : X86_VEC_GP, rule,
				  "WRMSR IA32_PERFEVTSEL%d with AnyThread (bit 21)", c) &&
		    accepted)
			expect_eq(t, rdmsr(MSR_IA32_PERFEVTSEL(c)), sel, rule,
				  "IA32_PERFEVTSEL%d read back with AnyThread", c);
		wrmsr(MSR_IA32_PERFEVTSEL(c), 0);
	}
	if (!pmu_fixed_present(0))
		return;
	vec = wrmsr_safe(MSR_IA32_FIXED_CTR_CTRL,
			 FIXED_CTRL_FIELD(0, FIXED_CTRL_OS | FIXED_CTRL_ANY));
	if (expect_vector(t, vec, accepted ? 0 : X86_VEC_GP, rule,
			  "WRMSR IA32_FIXED_CTR_CTRL with fixed 0 AnyThread (bit 2)") &&
	    accepted)
		expect_eq(t, rdmsr(MSR_IA32_FIXED_CTR_CTRL),
			  FIXED_CTRL_FIELD(0, FIXED_CTRL_OS | FIXED_CTRL_ANY), rule,
			  "IA32_FIXED_CTR_CTRL read back with AnyThread");
	wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
}

/* Bits 63:32 of each present IA32_PERFEVTSELx: reserved unless the SDM's
 * enumeration defines them (caps_evtsel_high_reserved(): IN_TX / IN_TXCP
 * with HLE or RTM, the latter on IA32_PERFEVTSEL2 only; Adaptive_Record
 * with PEBS_BASELINE; EQ and UMASK2 by leaf 23H). */
TEST(versions, evtsel_reserved_bits, REQ_ARCH_PMU | REQ_GP_COUNTER)
{
	for_each_gp_counter(ctr) {
		char name[32];

		ksnprintf(name, sizeof(name), "IA32_PERFEVTSEL%u", ctr.idx);
		expect_reserved_bits_fault(t, MSR_IA32_PERFEVTSEL(ctr.idx), name,
					   caps_evtsel_high_reserved(caps(), ctr.idx),
					   RULE_EVTSEL_RSVD, true);
	}
}

/* The defined high bits are writable (EN clear: nothing counts). */
TEST(versions, evtsel_defined_high_bits, REQ_ARCH_PMU)
{
	unsigned written = 0;

	for_each_gp_counter(ctr) {
		unsigned c = ctr.idx;
		uint64_t defined = ~caps_evtsel_high_reserved(caps(), c) & GENMASK_ULL(63, 32);

		for (unsigned b = 32; b < 64; b++) {
			if (!(defined & BIT_ULL(b)))
				continue;
			written++;
			if (expect_no_fault(t, wrmsr_safe(MSR_IA32_PERFEVTSEL(c), BIT_ULL(b)),
					    RULE_EVTSEL_HIGH_DEFINED,
					    "WRMSR IA32_PERFEVTSEL%u <- bit %u (enumerated)", c, b))
				expect_eq(t, rdmsr(MSR_IA32_PERFEVTSEL(c)), BIT_ULL(b),
					  RULE_EVTSEL_HIGH_DEFINED,
					  "IA32_PERFEVTSEL%u bit %u read back", c, b);
		}
		wrmsr(MSR_IA32_PERFEVTSEL(c), 0);
	}
	if (!written)
		t_skip(t, "no IA32_PERFEVTSELx bit above 31 enumerated (HLE/RTM, PEBS_BASELINE, "
			  "CPUID.(23H,0):EBX)");
}
