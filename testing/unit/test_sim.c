/* SPDX-License-Identifier: MIT */
/*
 * Host unit tests of the simulator (arch/sim): the SDM rules it must model,
 * with expected values taken from the SDM text, not from what the sim prints.
 */
#include <stdlib.h>

#include "boot_info.h"
#include "lbr.h"
#include "runner.h"
#include "sim.h"
#include "trace.h"
#include "unit.h"

struct caps g_caps; /* the kernel's record; unused here */

/* The runner is not linked here: no test is ever under way. */
const char *runner_current_suite(void)
{
	return NULL;
}

const struct test_desc *runner_current_test(void)
{
	return NULL;
}

/* Nor the access trace (kernel/trace.c): no test is traced. */
void trace_access(enum trace_op op, uint32_t addr, uint64_t value, int vector)
{
	(void)op;
	(void)addr;
	(void)value;
	(void)vector;
}

void kernel_main(const struct boot_info *bi)
{
	(void)bi;
	exit(3);
}

static void configure(const char *name)
{
	char err[256];
	const struct sim_profile *p = sim_find_profile(name);
	if (!p || sim_configure(p, NULL, err, sizeof(err)) != SIM_CONFIG_OK) {
		printf("Bail out! profile %s\n", name);
		exit(1);
	}
}

static uint64_t rdpmc_at(uint64_t ecx)
{
	uint64_t rax = ARCH_RDPMC_POISON, rdx = ARCH_RDPMC_POISON;
	int v = rdpmc_safe(ecx, &rax, &rdx);
	return v ? 0xDEAD0000ULL | (uint64_t)v : (rdx << 32) | (rax & 0xFFFFFFFFULL);
}

static uint64_t user_rdpmc(uint64_t ecx)
{
	uint64_t rax, rdx;
	return (uint64_t)rdpmc_safe(ecx, &rax, &rdx);
}

static uint64_t user_rdmsr(uint64_t msr)
{
	return rdmsr((uint32_t)msr);
}

static unsigned pmis;
static void on_pmi(void)
{
	pmis++;
	arch_apic_eoi();
}

static unsigned nmis;
static void on_nmi(void)
{
	nmis++;
}

static void self_nmi(void *arg)
{
	(void)arg;
	arch_apic_self_nmi();
}

static void spin(void *arg)
{
	(void)arg;
	for (volatile int i = 0;; i++)
		;
}

#define GP    GLOBAL_PMC_BIT
#define INSNS (0xC0 | PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_EN)

int main(void)
{
	uint64_t v, rax, rdx;

	/* The simulator's copy of Table 20-1 is independent of the kernel's on
	 * purpose; the two must agree on every encoding. */
	for (unsigned i = 0; i < ARCH_EVENT_COUNT; i++) {
		uint8_t ev = 0, um = 0;

		UNIT_TRUE(sim_arch_event_encoding(i, &ev, &um) && ev == caps_arch_events[i].event &&
			      um == caps_arch_events[i].umask,
			  caps_arch_events[i].name);
	}

	sim_load_profiles("/nonexistent"); /* built-in profiles only */
	configure("synth-v5-metrics");	   /* v5, 6 GP x 48, 4 fixed, FW_WRITE */

	/* Vol. 3B 20.2.2: GP enable bits set at reset. */
	UNIT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_CTRL), 0x3F, "GLOBAL_CTRL reset value");

	/* Vol. 3B 20.2.6: IA32_PMCx takes EAX[31:0] sign-extended. */
	wrmsr(MSR_IA32_PMC(0), 0x80000000ULL);
	UNIT_EQ(rdmsr(MSR_IA32_PMC(0)), 0xFFFF80000000ULL, "legacy write sign-extends to 48 bits");
	wrmsr(MSR_IA32_PMC(0), 0x123456789ULL);
	UNIT_EQ(rdmsr(MSR_IA32_PMC(0)), 0x23456789ULL, "legacy write ignores EDX");
	UNIT_EQ(wrmsr_safe(MSR_IA32_A_PMC(0), BIT_ULL(48)), X86_VEC_GP, "A_PMC beyond width #GP");
	UNIT_EQ(wrmsr_safe(MSR_IA32_A_PMC(0), width_mask(48)), 0, "A_PMC full width ok");
	UNIT_EQ(rdmsr_safe(MSR_IA32_PMC(6), &v), X86_VEC_GP, "PMC6 absent with 6 counters");
	UNIT_EQ(rdmsr_safe(MSR_IA32_FIXED_CTR(4), &v), X86_VEC_GP, "FIXED_CTR4 absent");
	UNIT_EQ(wrmsr_safe(MSR_IA32_PERF_GLOBAL_STATUS, 0), X86_VEC_GP, "GLOBAL_STATUS read-only");
	UNIT_EQ(wrmsr_safe(MSR_IA32_PERFEVTSEL(0), BIT_ULL(32)), X86_VEC_GP, "EVTSEL reserved bit");

	/* RDPMC (SDM Vol. 2B "RDPMC"). */
	wrmsr(MSR_IA32_A_PMC(0), 0xFFFF80000001ULL);
	rax = rdx = ARCH_RDPMC_POISON;
	UNIT_EQ(rdpmc_safe(0, &rax, &rdx), 0, "RDPMC type 0 index 0");
	UNIT_EQ(rax, 0x80000001ULL, "RDPMC clears RAX[63:32]");
	UNIT_EQ(rdx, 0xFFFFULL, "RDPMC clears RDX[63:32], bits above width zero");
	UNIT_EQ(rdpmc_at(0xFFFFFFFF00000000ULL), 0xFFFF80000001ULL, "RCX[63:32] ignored");
	UNIT_EQ(rdpmc_at(5), 0, "type 0 index 5 < EAX[15:8]");
	UNIT_EQ(rdpmc_at(6), 0xDEAD0000ULL | X86_VEC_GP, "type 0 index 6 #GP");
	UNIT_EQ(rdpmc_at(0x100), 0xDEAD0000ULL | X86_VEC_GP, "ECX[15:8] must be 0");
	UNIT_EQ(rdpmc_at(0x40000003), 0, "type 4000H index 3");
	UNIT_EQ(rdpmc_at(0x40000004), 0xDEAD0000ULL | X86_VEC_GP, "type 4000H index 4 #GP");
	UNIT_EQ(rdpmc_at(0x80000000), 0xDEAD0000ULL | X86_VEC_GP, "fast read #GP on arch PMU");
	UNIT_EQ(rdpmc_at(0x20000000), 0, "type 2000H with PERF_METRICS");
	UNIT_EQ(rdpmc_at(0x00010000), 0xDEAD0000ULL | X86_VEC_GP, "type 1 #GP");
	UNIT_EQ(arch_call_at_cpl(3, user_rdpmc, 0, &v), 0, "CPL 3 call");
	UNIT_EQ(v, X86_VEC_GP, "RDPMC at CPL 3 with PCE = 0 #GP");
	arch_write_cr4(arch_read_cr4() | CR4_PCE);
	arch_call_at_cpl(3, user_rdpmc, 0, &v);
	UNIT_EQ(v, 0, "RDPMC at CPL 3 with PCE = 1");
	UNIT_EQ(arch_call_at_cpl(3, user_rdmsr, MSR_IA32_PMC0, &v), X86_VEC_GP,
		"RDMSR at CPL 3 #GP");

	/* The counting model (arch/sim/pmu_model.c): N iterations + overhead. */
	wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	wrmsr(MSR_IA32_PMC(0), 0);
	wrmsr(MSR_IA32_PERFEVTSEL(0), INSNS);
	arch_workload_gated(100, MSR_IA32_PERF_GLOBAL_CTRL, GP(0), 0);
	uint64_t c100 = rdmsr(MSR_IA32_PMC(0));
	wrmsr(MSR_IA32_PMC(0), 0);
	arch_workload_gated(300, MSR_IA32_PERF_GLOBAL_CTRL, GP(0), 0);
	UNIT_EQ(rdmsr(MSR_IA32_PMC(0)) - c100, 200 * WORKLOAD_INSNS_PER_ITER,
		"instructions differ by 10 per iteration");
	wrmsr(MSR_IA32_PERFEVTSEL(0), INSNS & ~PERFEVTSEL_EN);
	wrmsr(MSR_IA32_PMC(0), 0);
	arch_workload_gated(100, MSR_IA32_PERF_GLOBAL_CTRL, GP(0), 0);
	UNIT_EQ(rdmsr(MSR_IA32_PMC(0)), 0, "EN clear: no count");
	wrmsr(MSR_IA32_PERFEVTSEL(0), (INSNS & ~PERFEVTSEL_OS));
	arch_workload_gated(100, MSR_IA32_PERF_GLOBAL_CTRL, GP(0), 0);
	UNIT_EQ(rdmsr(MSR_IA32_PMC(0)), 0, "USR only: nothing at CPL 0");

	/* Overflow at the width: status bit, PMI through the LVT. */
	wrmsr(MSR_IA32_PERFEVTSEL(0), INSNS | PERFEVTSEL_INT);
	wrmsr(MSR_IA32_PMC(0), (uint64_t)-5);
	arch_set_pmi_handler(on_pmi);
	arch_apic_write_lvt_pmi(APIC_LVT_MASKED | PMI_VECTOR);
	arch_irq_enable();
	arch_workload_gated(1, MSR_IA32_PERF_GLOBAL_CTRL, GP(0), 0);
	UNIT_EQ(pmis, 0, "masked LVT: no PMI");
	UNIT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & GP(0), GP(0), "overflow sets status bit");
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GP(0));
	UNIT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), 0, "OVF_CTRL clears it");
	wrmsr(MSR_IA32_PMC(0), (uint64_t)-5);
	arch_apic_write_lvt_pmi(PMI_VECTOR);
	arch_workload_gated(1, MSR_IA32_PERF_GLOBAL_CTRL, GP(0), 0);
	UNIT_EQ(pmis, 1, "one PMI");
	UNIT_EQ(arch_apic_read_lvt_pmi() & APIC_LVT_MASKED, APIC_LVT_MASKED, "PMI masks the LVT");
	UNIT_EQ(rdmsr(MSR_IA32_PMC(0)), 12 - 5, "counter wrapped at 48 bits");
	arch_irq_disable();

	/* Delivery mode NMI (Vol. 3A 10.5.1, 6.8.1): taken with IF = 0, the
	 * vector ignored, the LVT masked; the ICR's NMI; no handler: counted
	 * and resumed from (arch/x86_64/trap.c), the PMU's while the LVT was in
	 * NMI mode since arch_pmu_sources_forget, else a platform event. */
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GP(0));
	wrmsr(MSR_IA32_PMC(0), (uint64_t)-5);
	arch_set_nmi_handler(on_nmi);
	arch_apic_write_lvt_pmi(PMI_VECTOR | (APIC_DM_NMI << 8));
	arch_workload_gated(1, MSR_IA32_PERF_GLOBAL_CTRL, GP(0), 0);
	UNIT_EQ(nmis, 1, "NMI mode: one NMI with IF = 0");
	UNIT_EQ(pmis, 1, "NMI mode: no interrupt at the vector");
	UNIT_EQ(arch_apic_read_lvt_pmi() & APIC_LVT_MASKED, APIC_LVT_MASKED, "NMI masks the LVT");
	arch_apic_self_nmi();
	UNIT_EQ(nmis, 2, "ICR self-NMI taken at once");
	arch_set_nmi_handler(NULL);
	struct arch_exception nex;
	struct arch_platform_events ev0, ev1, ev2;
	arch_platform_events(ARCH_ALL_CPUS, &ev0);
	UNIT_EQ(arch_run_guarded(self_nmi, NULL, 0, &nex), ARCH_GUARD_RETURNED,
		"NMI without a handler: resumed from");
	arch_platform_events(ARCH_ALL_CPUS, &ev1);
	UNIT_EQ(ev1.pmu - ev0.pmu, 1, "the LVT was in NMI mode: the PMU's NMI");
	UNIT_EQ(ev1.nmi - ev0.nmi, 0, "not a platform event");
	arch_apic_write_lvt_pmi(PMI_VECTOR | APIC_LVT_MASKED);
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GP(0));
	arch_pmu_sources_forget();
	arch_run_guarded(self_nmi, NULL, 0, &nex);
	arch_platform_events(ARCH_ALL_CPUS, &ev2);
	UNIT_EQ(ev2.nmi - ev1.nmi, 1, "after arch_pmu_sources_forget, no overflow: a platform NMI");
	UNIT_EQ(ev2.pmu - ev1.pmu, 0, "not the PMU's");

	/* STATUS_SET / INUSE (v4+). */
	wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GP(0));
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, GP(3));
	UNIT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_STATUS), GP(3), "STATUS_SET sets");
	UNIT_EQ(rdmsr(MSR_IA32_PERF_GLOBAL_INUSE) & 1, 1, "INUSE: EVTSEL0[7:0] != 0");

	/* The watchdog interrupts an endless C loop. */
	struct arch_exception ex;
	UNIT_EQ(arch_run_guarded(spin, NULL, 50, &ex), ARCH_GUARD_TIMEOUT, "watchdog");
	UNIT_EQ(ex.vector, ARCH_TIMEOUT, "watchdog vector");

	/* v1: no global MSRs; each EVTSEL's EN gates its counter. */
	configure("synth-v1");
	UNIT_EQ(rdmsr_safe(MSR_IA32_PERF_GLOBAL_CTRL, &v), X86_VEC_GP, "v1: no GLOBAL_CTRL");
	UNIT_EQ(wrmsr_safe(MSR_IA32_PERFEVTSEL(0), PERFEVTSEL_ANY), X86_VEC_GP,
		"v1: AnyThread reserved");
	/* No PMU: RDPMC #GP(0), PMU MSRs #GP(0). */
	configure("synth-no-pmu");
	UNIT_EQ(rdpmc_at(0), 0xDEAD0000ULL | X86_VEC_GP, "no PMU: RDPMC #GP");
	UNIT_EQ(rdmsr_safe(MSR_IA32_PMC0, &v), X86_VEC_GP, "no PMU: PMC0 #GP");
	/* Leaf 23H bitmap holes: the counters in holes do not exist. */
	configure("synth-leaf23-holes");
	UNIT_EQ(rdmsr_safe(MSR_IA32_PMC(1), &v), X86_VEC_GP, "leaf 23H hole: PMC1 absent");
	UNIT_EQ(rdmsr_safe(MSR_IA32_PMC(2), &v), 0, "leaf 23H: PMC2 present");
	/* v5 bitmask: FIXED_CTR5 exists by ECX[5] beyond EDX[4:0] = 3. */
	configure("synth-v5-fixed-hole");
	UNIT_EQ(rdmsr_safe(MSR_IA32_FIXED_CTR(5), &v), 0, "ECX[5]: FIXED_CTR5 exists");
	UNIT_EQ(rdmsr_safe(MSR_IA32_FIXED_CTR(3), &v), X86_VEC_GP, "FIXED_CTR3 hole");
	UNIT_EQ(rdpmc_at(0x40000005), 0, "RDPMC fixed 5 by bitmask");

	/* LBR entries (Vol. 3B 19.4.8.1): flags stripped, address sign-extended. */
	UNIT_EQ(lbr_from_address(3, 0xFFFFFFFF81002020ULL & ~LBR_FROM_MISPRED),
		0xFFFFFFFF81002020ULL, "LBR_FMT 3: FROM[62:0] sign-extended");
	UNIT_EQ(lbr_from_address(3, 0x8000000000401000ULL), 0x401000,
		"LBR_FMT 3: MISPRED (63) is not address");
	UNIT_EQ(lbr_from_address(4, 0xE000000000401000ULL), 0x401000,
		"LBR_FMT 4: FROM[63:61] are flags");
	UNIT_EQ(lbr_from_address(5, 0xFFFFFFFF81002020ULL), 0xFFFFFFFF81002020ULL,
		"LBR_FMT 5: FROM is the address (flags in MSR_LBR_INFO_x)");
	UNIT_EQ(lbr_to_address(6, 0x0002FFFF81002028ULL), 0xFFFFFFFF81002028ULL,
		"LBR_FMT 6: TO[63:48] is the cycle count");
	/* The Skylake stack (Vol. 3B: 32 entries, MSR_LBR_INFO_x from DC0H). */
	configure("synth-v5-metrics"); /* DisplayModel 7EH, LBR_FMT 5 */
	struct lbr_layout l;
	UNIT_EQ(lbr_legacy_layout(&g_sim.caps, &l), LBR_LAYOUT_OK, "06_7EH: LBR stack known");
	UNIT_TRUE(l.depth == 32 && l.from == 0x680 && l.to == 0x6C0 && l.info == 0xDC0,
		  "06_7EH: 32 entries at 680H / 6C0H / DC0H");
	/* Arch LBR (Vol. 3B 19.1): depths as CPUID.1CH:EAX lists; a write clears. */
	configure("synth-v5-topdown"); /* 1CH EAX 0FH: 8, 16, 24, 32 */
	UNIT_EQ(rdmsr(MSR_IA32_LBR_DEPTH), 32, "IA32_LBR_DEPTH resets to the largest depth");
	UNIT_EQ(wrmsr_safe(MSR_IA32_LBR_DEPTH, 24), 0, "depth 24 enumerated");
	UNIT_EQ(wrmsr_safe(MSR_IA32_LBR_DEPTH, 40), X86_VEC_GP, "depth 40 not enumerated");
	wrmsr(MSR_IA32_LBR_0_FROM_IP, 0x1234);
	wrmsr(MSR_IA32_LBR_DEPTH, 32);
	UNIT_EQ(rdmsr(MSR_IA32_LBR_0_FROM_IP), 0, "a depth write clears the entries");
	return unit_done();
}
