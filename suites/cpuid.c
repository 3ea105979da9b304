/* SPDX-License-Identifier: MIT */
/*
 * CPUID leaf 0AH: the fields as diagnostics, and the consistency the SDM
 * demands of them and of the MSRs they promise. Runs first (the runner puts
 * this suite first), so it also sees IA32_PERF_GLOBAL_CTRL as the machine
 * came out of reset / firmware. SDM Vol. 2A CPUID; Vol. 3B 20.2.
 */
#include "fw_state.h"
#include "pmu.h"
#include "rules.h"
#include "test.h"

/*
 * IA32_PERF_GLOBAL_CTRL as this CPU was handed over (read on each CPU before
 * any test, kernel/fw_state.c). Its reset value is the GP counters' enable
 * bits, the rest clear (RULE_GLOBAL_CTRL_RESET_VALUE). Where nothing ran
 * between reset and pmutest (the simulator, a VMM's direct boot without a
 * BIOS: struct boot_info) that is the value read, exactly. Where a firmware
 * ran, the enable bits may be what it wrote: the test checks only what no
 * software can have set, a reserved bit (WRMSR of one raises #GP(0),
 * global.reserved_bits_fault), and is otherwise a SKIP naming the firmware,
 * never a PASS of a value nobody can attribute.
 */
TEST(cpuid, global_ctrl_reset_value, REQ_ARCH_PMU_V2)
{
	uint64_t gp = 0, v = 0, defined = pmu_global_counter_bits();
	unsigned cpu = arch_cpu_current();
	const char *firmware = fw_state_firmware_may_have_run();

	if (caps()->perf_cap.valid && caps()->perf_cap.perf_metrics)
		defined |= BIT_ULL(48); /* EN_PERF_METRICS */
	for_each_gp_counter(c)
		gp |= counter_global_bit(c);
	if (!expect_true(t, fw_state_global_ctrl(cpu, &v), "readable", "RDMSR faulted",
			 RULE_GLOBAL_CTRL_RESET, "RDMSR IA32_PERF_GLOBAL_CTRL at hand-over, cpu %u",
			 cpu))
		return;
	if (!firmware) {
		t_subject_msr(t, MSR_IA32_PERF_GLOBAL_CTRL);
		expect_eq(t, v, gp, RULE_GLOBAL_CTRL_RESET_VALUE,
			  "IA32_PERF_GLOBAL_CTRL at hand-over on cpu %u, nothing having run before "
			  "pmutest",
			  cpu);
		return;
	}
	expect_eq(t, v & ~defined, 0, RULE_GLOBAL_CTRL_RESET,
		  "reserved bits of IA32_PERF_GLOBAL_CTRL at hand-over (%#llx), cpu %u",
		  (unsigned long long)v, cpu);
	t_skip(t,
	       "IA32_PERF_GLOBAL_CTRL = %#llx at hand-over (reset value %#llx): %s, which may have "
	       "written it",
	       (unsigned long long)v, (unsigned long long)gp, firmware);
}

TEST(cpuid, leaf_0ah_fields, REQ_NONE)
{
	const struct caps *c = caps();
	const struct caps_arch_perfmon *pm = &c->pm;
	struct cpuid_regs r;

	t_diag(t, "vendor %s family %#x model %#x stepping %u hypervisor %d", c->vendor_string,
	       c->family, c->model, c->stepping, c->hypervisor);
	if (!pm->present) {
		/* nothing to hold consistent: the absence itself is checked by
		 * versions.no_pmu_no_counter_msrs */
		t_skip_return(t, "CPUID.0AH:EAX[7:0] = 0 or leaf 0AH above the maximum (%#x)",
			      c->max_basic_leaf);
	}
	arch_cpuid(0x0A, 0, &r);
	t_diag(t, "CPUID.0AH: EAX=0x%08x EBX=0x%08x ECX=0x%08x EDX=0x%08x", r.eax, r.ebx, r.ecx,
	       r.edx);
	t_diag(t, "version %u, %u GP counters x %u bits, EBX length %u", pm->version,
	       pm->gp_counters, pm->gp_width, pm->ebx_length);
	for (unsigned e = 0; e < ARCH_EVENT_COUNT; e++)
		t_diag(t, "  event %2u %-26s %s", e, caps_arch_events[e].name,
		       pm->event_available[e] ? "available" : "not available");
	if (pm->version >= 2)
		t_diag(t,
		       "fixed: EDX[4:0] = %u x %u bits, ECX bitmask %#x, supported %#x, "
		       "AnyThread deprecated %u",
		       pm->fixed_counters_edx, pm->fixed_width, pm->fixed_bitmask,
		       pm->fixed_supported, pm->anythread_deprecated);
	if (r.edx & (GENMASK_ULL(14, 13) | GENMASK_ULL(31, 16)))
		t_diag(t, "note: reserved bits set in CPUID.0AH:EDX (%#x)",
		       (unsigned)(r.edx & (GENMASK_ULL(14, 13) | GENMASK_ULL(31, 16))));

	/* Field consistency (the record holds the raw fields). */
	expect_eq(t, pm->version, FIELD_GET_ULL(GENMASK_ULL(7, 0), r.eax), RULE_CPUID_VERSION_FIELD,
		  "version vs CPUID.0AH:EAX[7:0]");
	expect_range(t, pm->gp_counters, 1, 32, RULE_CPUID_GP_COUNT, "CPUID.0AH:EAX[15:8]");
	expect_range(t, pm->gp_width, 33, 64, RULE_CPUID_GP_WIDTH, "CPUID.0AH:EAX[23:16]");
	if (pm->version >= 2) {
		bool any_fixed = pm->fixed_counters_edx || pm->fixed_bitmask;

		t_subject(t, SUBJECT_CPUID, 0xA, 0);
		t_outcome(t, OUTCOME_ZERO); /* the fixed counters it enumerates */
		expect_true(t, any_fixed, "EDX[4:0] > 0 or ECX != 0", "no fixed counter",
			    RULE_CPUID_V2_FIXED, "fixed counters on version %u", pm->version);
		if (any_fixed)
			expect_range(t, pm->fixed_width, 1, 64, RULE_CPUID_FIXED_WIDTH,
				     "CPUID.0AH:EDX[12:5]");
		if (pm->fixed_counters_edx < 3)
			t_diag(t, "note: fewer than the 3 fixed counters version 2 introduced");
	}
}

TEST(cpuid, enumerated_msrs_exist, REQ_NONE)
{
	const struct caps *c = caps();
	uint64_t v;

	if (c->pdcm)
		expect_no_fault(t, rdmsr_safe(MSR_IA32_PERF_CAPABILITIES, &v), RULE_CPUID_PDCM,
				"RDMSR IA32_PERF_CAPABILITIES with CPUID.01H:ECX[15] = 1");
	if (c->perf_cap.valid)
		t_diag(t, "IA32_PERF_CAPABILITIES = %#llx (FW_WRITE %d, PERF_METRICS %d)",
		       (unsigned long long)c->perf_cap.raw, c->perf_cap.full_width_write,
		       c->perf_cap.perf_metrics);
	if (!c->pm.present) {
		if (!c->pdcm)
			t_skip(
			    t,
			    "CPUID.01H:ECX[15] = 0 and no architectural PMU: nothing enumerated");
		return;
	}
	for_each_gp_counter(ctr) {
		expect_no_fault(t, rdmsr_safe(MSR_IA32_PMC(ctr.idx), &v), RULE_CPUID_ARCH_MSRS,
				"RDMSR IA32_PMC%u", ctr.idx);
		expect_no_fault(t, rdmsr_safe(MSR_IA32_PERFEVTSEL(ctr.idx), &v),
				RULE_CPUID_ARCH_MSRS, "RDMSR IA32_PERFEVTSEL%u", ctr.idx);
	}
	if (c->pm.version >= 2) {
		expect_no_fault(t, rdmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, &v), RULE_CPUID_V2_FIXED,
				"RDMSR IA32_PERF_GLOBAL_CTRL (version %u)", c->pm.version);
		expect_no_fault(t, rdmsr_safe(MSR_IA32_PERF_GLOBAL_STATUS, &v), RULE_CPUID_V2_FIXED,
				"RDMSR IA32_PERF_GLOBAL_STATUS (version %u)", c->pm.version);
		expect_no_fault(t, rdmsr_safe(MSR_IA32_FIXED_CTR_CTRL, &v), RULE_CPUID_V2_FIXED,
				"RDMSR IA32_FIXED_CTR_CTRL (version %u)", c->pm.version);
	}
}

TEST(cpuid, perf_capabilities_read_only, REQ_PDCM)
{
	uint64_t v;

	if (rdmsr_safe(MSR_IA32_PERF_CAPABILITIES, &v))
		t_skip_return(t, "IA32_PERF_CAPABILITIES unreadable (see enumerated_msrs_exist)");
	expect_vector(t, wrmsr_safe(MSR_IA32_PERF_CAPABILITIES, v), X86_VEC_GP, RULE_PERF_CAP_RO,
		      "WRMSR IA32_PERF_CAPABILITIES <- its own value");
	/* Read-only whatever is written (vmx_pmu_caps_test asks the same of a
	 * guest): 0, and the value with each single bit flipped. */
	expect_vector(t, wrmsr_safe(MSR_IA32_PERF_CAPABILITIES, 0), X86_VEC_GP, RULE_PERF_CAP_RO,
		      "WRMSR IA32_PERF_CAPABILITIES <- 0");
	for (unsigned b = 0; b < 64; b++)
		expect_vector(t, wrmsr_safe(MSR_IA32_PERF_CAPABILITIES, v ^ BIT_ULL(b)), X86_VEC_GP,
			      RULE_PERF_CAP_RO,
			      "WRMSR IA32_PERF_CAPABILITIES <- %#llx (bit %u flipped)",
			      (unsigned long long)(v ^ BIT_ULL(b)), b);
	expect_eq(t, rdmsr(MSR_IA32_PERF_CAPABILITIES), v, RULE_PERF_CAP_RO,
		  "IA32_PERF_CAPABILITIES after the refused writes");
}

/* Vol. 4 Table 2-2 (345H): IA32_PERF_CAPABILITIES exists "if CPUID.01H:ECX[15]
 * = 1"; without PDCM it is not an MSR of the processor: RDMSR #GP(0). */
TEST(cpuid, perf_capabilities_absent_without_pdcm, REQ_INTEL)
{
	uint64_t v;

	if (caps()->pdcm)
		t_skip_return(t, "CPUID.01H:ECX[15] PDCM = 1: IA32_PERF_CAPABILITIES exists");
	expect_vector(t, rdmsr_safe(MSR_IA32_PERF_CAPABILITIES, &v), X86_VEC_GP,
		      RULE_PERF_CAP_ABSENT, "RDMSR IA32_PERF_CAPABILITIES with PDCM = 0");
}
