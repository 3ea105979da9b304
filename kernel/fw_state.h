/* SPDX-License-Identifier: MIT */
/*
 * Firmware is not the CPU. The firmware runs after reset and may program
 * the PMU (counters left enabled, counters used from SMM, "Limit CPUID
 * Maxval"); what it wrote is reported as firmware state, never judged as
 * a CPU deviation. The suites start from a state pmutest set itself
 * (pmu_reset_all before every test).
 */
#ifndef PMUTEST_FW_STATE_H
#define PMUTEST_FW_STATE_H

#include <stdbool.h>
#include <stdint.h>

/* On each CPU before its CPUID is decoded: an Intel CPU whose firmware set
 * IA32_MISC_ENABLE[22] (Limit CPUID Maxval) has the bit cleared, as Linux
 * does (arch/x86/kernel/cpu/intel.c, early_init_intel()). */
void fw_state_lift_cpuid_limit(void);

/* On the boot CPU, with g_caps decoded and before any test: the counter
 * controls as the firmware handed them over, and whether a firmware can
 * have written them (struct boot_info). */
struct boot_info;
void fw_state_read(const struct boot_info *bi);
/* On each CPU, before anything wrote its PMU: its IA32_PERF_GLOBAL_CTRL. */
void fw_state_read_cpu(void);
/* "# firmware state: ..." lines. */
void fw_state_report(void);
/* IA32_PERF_GLOBAL_CTRL (AMD with PerfMonV2: PerfCntrGlobalCtl) of `cpu`
 * at hand-over; false when it was not readable. */
bool fw_state_global_ctrl(unsigned cpu, uint64_t *val);
/* PerfCntrGlobalCtl's reset value on AMD with PerfMonV2: PerfCntrEn of
 * each core counter (CPUID 8000_0022H EBX[3:0]; RULE_AMD_GLOBAL_CTL_RESET). */
uint64_t fw_state_amd_global_ctl_reset(void);
/* NULL when nothing ran before pmutest that could have written the PMU's
 * MSRs (their values at hand-over are the CPU's reset values); else why a
 * firmware may have. */
const char *fw_state_firmware_may_have_run(void);

/* MSR_SMI_COUNT (34H) where the CPU has it (Intel, Nehalem and later,
 * SDM Vol. 4 Table 2-20 and later tables); false elsewhere. */
bool fw_smi_count(uint64_t *count);

#endif
