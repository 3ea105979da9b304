/* SPDX-License-Identifier: MIT */
/* What the firmware left at hand-over (kernel/fw_state.h). */
#include "fw_state.h"

#include "arch.h"
#include "boot_info.h"
#include "caps.h"
#include "ktap.h"
#include "msr.h"
#include "pmu.h"

#define MAX_CONTROLS 40 /* GP event selects, fixed control, global control */

/* The CPUs whose CPUID limit was lifted (one flag per CPU, set on each). */
static volatile uint32_t lifted_cpus, lifted_max_before, lifted_max_after;

static bool is_intel_fam6_from(uint8_t model)
{
	struct cpuid_regs r;
	arch_cpuid(0, 0, &r);
	/* "GenuineIntel" */
	if (r.ebx != 0x756e6547 || r.edx != 0x49656e69 || r.ecx != 0x6c65746e || r.eax < 1)
		return false;
	arch_cpuid(1, 0, &r);
	unsigned family = (r.eax >> 8) & 0xf, m = ((r.eax >> 4) & 0xf) | ((r.eax >> 12) & 0xf0);
	return family > 6 || (family == 6 && m >= model);
}

void fw_state_lift_cpuid_limit(void)
{
	struct cpuid_regs r;
	uint64_t misc;

	/* Linux: family > 6, or 6 from model 0DH (Pentium M) on, where
	 * IA32_MISC_ENABLE[22] is "Limit CPUID Maxval" (SDM Vol. 4 Table 2-2:
	 * when set, CPUID.0H:EAX reads at most 2). */
	if (!is_intel_fam6_from(0x0d) || rdmsr_safe(MSR_IA32_MISC_ENABLE, &misc) ||
	    !(misc & MISC_ENABLE_LIMIT_CPUID))
		return;
	arch_cpuid(0, 0, &r);
	uint32_t before = r.eax;
	if (wrmsr_safe(MSR_IA32_MISC_ENABLE, misc & ~MISC_ENABLE_LIMIT_CPUID))
		return;
	/* Kept: the guarded run that reads this CPU's record would otherwise
	 * put the firmware's limit back. */
	arch_msr_keep();
	arch_cpuid(0, 0, &r);
	lifted_max_before = before;
	lifted_max_after = r.eax;
	__atomic_fetch_add(&lifted_cpus, 1, __ATOMIC_RELAXED);
}

struct control {
	const char *name;
	unsigned index; /* printed after the name when the name ends in '%' */
	uint64_t value;
};

static struct {
	bool read, global_valid, amd_global_valid;
	uint64_t global_ctrl, global_power_on, amd_global_ctl;
	struct control ctl[MAX_CONTROLS];
	unsigned n;
	const char *firmware_why; /* NULL: no firmware ran */
	const char *who;	  /* "firmware", or the kernel that ran before (kexec) */
} fw;

/* Each CPU's global counter control as it was handed over:
 * IA32_PERF_GLOBAL_CTRL, or on AMD with PerfMonV2 PerfCntrGlobalCtl. */
static struct {
	bool valid;
	uint64_t value;
} global_at_handover[ARCH_MAX_CPUS];

/* The vendor's global counter control MSR (0: none), from CPUID itself:
 * this runs before the CPU's record is decoded. AMD and Hygon ("Auth",
 * "Hygo" in CPUID.0:EBX) with PerfMonV2 (CPUID 8000_0022H EAX[0]). */
static uint32_t global_ctrl_msr(void)
{
	struct cpuid_regs r;

	arch_cpuid(0, 0, &r);
	if (r.ebx != 0x68747541 && r.ebx != 0x6f677948)
		return MSR_IA32_PERF_GLOBAL_CTRL;
	arch_cpuid(0x80000000, 0, &r);
	if (r.eax < 0x80000022)
		return 0;
	arch_cpuid(0x80000022, 0, &r);
	return (r.eax & 1) ? MSR_AMD64_PERF_CNTR_GLOBAL_CTL : 0;
}

void fw_state_read_cpu(void)
{
	unsigned cpu = arch_cpu_current();
	uint32_t msr = global_ctrl_msr();
	uint64_t v;

	if (cpu < ARCH_MAX_CPUS && msr && rdmsr_safe(msr, &v) == 0)
		global_at_handover[cpu] = (typeof(global_at_handover[0])){true, v};
}

uint64_t fw_state_amd_global_ctl_reset(void)
{
	return GENMASK_ULL(g_caps.amd.core_counters - 1, 0);
}

bool fw_state_global_ctrl(unsigned cpu, uint64_t *val)
{
	if (cpu >= ARCH_MAX_CPUS)
		return false;
	*val = global_at_handover[cpu].value;
	return global_at_handover[cpu].valid;
}

const char *fw_state_firmware_may_have_run(void)
{
	return fw.firmware_why;
}

static void read_control(const char *name, unsigned index, uint32_t msr)
{
	uint64_t v;
	if (fw.n < MAX_CONTROLS && rdmsr_safe(msr, &v) == 0 && v)
		fw.ctl[fw.n++] = (struct control){name, index, v};
}

void fw_state_read(const struct boot_info *bi)
{
	if (fw.read)
		return;
	fw.firmware_why = bi->firmware == BOOT_NO_FIRMWARE
			      ? NULL
			      : (bi->firmware_why ? bi->firmware_why : "a firmware may have run");
	fw.who = bi->firmware == BOOT_PREVIOUS_KERNEL && bi->previous_kernel ? bi->previous_kernel
									     : "firmware";
	if (!g_caps.msr)
		return;
	fw.read = true;
	if (g_caps.pm.present) {
		for_each_gp_counter(c)
			read_control("IA32_PERFEVTSEL", c.idx, MSR_IA32_PERFEVTSEL(c.idx));
		if (pmu_has_global()) {
			if (g_caps.pm.fixed_counters_edx || g_caps.pm.fixed_bitmask)
				read_control("FIXED_CTR_CTRL", ~0u, MSR_IA32_FIXED_CTR_CTRL);
			fw.global_valid = fw_state_global_ctrl(arch_cpu_current(), &fw.global_ctrl);
			/* SDM Vol. 3B 21.2.2 / Vol. 4 Table 2-2 (38FH): at power-up
			 * the GP counters' enable bits are set, the others clear. */
			for_each_gp_counter(c)
				fw.global_power_on |= counter_global_bit(c);
		}
	}
	if (caps_amd_like(&g_caps)) {
		bool core = g_caps.amd.perfctr_core || g_caps.amd.perfmon_v2;
		unsigned n = core ? g_caps.amd.core_counters : 4;
		for (unsigned i = 0; i < n && i < 16; i++)
			read_control("PerfEvtSel", i,
				     core ? MSR_F15H_PERF_CTL0 + 2 * i : MSR_K7_EVNTSEL0 + i);
		/* PerfCntrGlobalCtl at its reset value (every core counter's
		 * PerfCntrEn) is the CPU's, not a firmware's doing. */
		uint64_t v;
		if (g_caps.amd.perfmon_v2 && g_caps.amd.core_counters &&
		    rdmsr_safe(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, &v) == 0) {
			fw.amd_global_valid = true;
			fw.amd_global_ctl = v;
			if (v && v != fw_state_amd_global_ctl_reset())
				read_control("PerfCntrGlobalCtl", ~0u,
					     MSR_AMD64_PERF_CNTR_GLOBAL_CTL);
		}
	}
}

void fw_state_report(void)
{
	if (lifted_cpus)
		ktap_diag(&g_ktap,
			  "firmware state: CPUID maximum limited by the firmware "
			  "(IA32_MISC_ENABLE[22] = 1, CPUID.0H:EAX = %#x) on %u CPU(s); pmutest "
			  "cleared the bit as Linux does: CPUID.0H:EAX = %#x",
			  lifted_max_before, lifted_cpus, lifted_max_after);
	if (!fw.read)
		return;
	char list[320];
	size_t at = 0;
	list[0] = 0;
	for (unsigned i = 0; i < fw.n && at < sizeof(list); i++) {
		const struct control *c = &fw.ctl[i];
		char idx[12] = "";
		if (c->index != ~0u)
			ksnprintf(idx, sizeof(idx), "%u", c->index);
		at += ksnprintf(list + at, sizeof(list) - at, "%s%s%s = %#llx", i ? ", " : "",
				c->name, idx, (unsigned long long)c->value);
	}
	if (fw.n)
		ktap_diag(&g_ktap,
			  "firmware state: %s left counters enabled: %s (written before the "
			  "hand-over; not a CPU deviation: every test starts from controls "
			  "pmutest cleared)",
			  fw.who ? fw.who : "firmware", list);
	uint64_t defined = pmu_global_counter_bits();
	if (g_caps.perf_cap.valid && g_caps.perf_cap.perf_metrics)
		defined |= BIT_ULL(48);
	if (fw.global_valid && (fw.global_ctrl & ~defined))
		ktap_diag(&g_ktap,
			  "firmware state: IA32_PERF_GLOBAL_CTRL = %#llx at hand-over has reserved "
			  "bits set (%#llx): no WRMSR can set them, so they are the CPU's "
			  "(cpuid.global_ctrl_reset_value)",
			  (unsigned long long)fw.global_ctrl,
			  (unsigned long long)(fw.global_ctrl & ~defined));
	else if (fw.global_valid && fw.global_ctrl != fw.global_power_on && fw.firmware_why)
		ktap_diag(&g_ktap,
			  "firmware state: IA32_PERF_GLOBAL_CTRL = %#llx at hand-over, power-on "
			  "value %#llx: may have been written after reset by the %s (%s)",
			  (unsigned long long)fw.global_ctrl,
			  (unsigned long long)fw.global_power_on, fw.who ? fw.who : "firmware",
			  fw.firmware_why);
	else if (fw.global_valid && fw.global_ctrl != fw.global_power_on)
		ktap_diag(
		    &g_ktap,
		    "IA32_PERF_GLOBAL_CTRL = %#llx at hand-over, power-on value %#llx, and no "
		    "firmware ran: the CPU's own reset value (cpuid.global_ctrl_reset_value "
		    "judges it)",
		    (unsigned long long)fw.global_ctrl, (unsigned long long)fw.global_power_on);
	if (fw.amd_global_valid && fw.amd_global_ctl == fw_state_amd_global_ctl_reset())
		ktap_diag(&g_ktap,
			  "firmware state: PerfCntrGlobalCtl = %#llx at hand-over: the reset value "
			  "(PerfCntrEn of each of the %u core counters), not a firmware's doing",
			  (unsigned long long)fw.amd_global_ctl, g_caps.amd.core_counters);
	if (!fw.n && (!fw.global_valid || fw.global_ctrl == fw.global_power_on))
		ktap_diag(&g_ktap, "firmware state: no counter control set at hand-over%s",
			  fw.global_valid ? "; IA32_PERF_GLOBAL_CTRL at its power-on value" : "");
}

bool fw_smi_count(uint64_t *count)
{
	/* MSR_SMI_COUNT is model-specific: Nehalem (06_1AH) and later
	 * (SDM Vol. 4 Table 2-20 on); an older CPU may have another MSR or
	 * none at 34H. */
	static const uint8_t bonnell[] = {0x1c, 0x26, 0x27, 0x35, 0x36}; /* Atoms without it */
	if (g_caps.vendor != VENDOR_INTEL || g_caps.family != 6 || g_caps.model < 0x1a)
		return false;
	for (unsigned i = 0; i < ARRAY_SIZE(bonnell); i++)
		if (g_caps.model == bonnell[i])
			return false;
	return rdmsr_safe(MSR_SMI_COUNT, count) == 0;
}
