/* SPDX-License-Identifier: MIT */
/*
 * Platform models: a real host's CPUID dump seen through a hypervisor, with
 * the deviations that hypervisor is known for switched on. They are what a
 * `make run KVM=1` guest sees, modelled from the hypervisor's source so that
 * its shipped expectations file (data/expectations/qemu-kvm-*.txt) is
 * tested by `make test` on a machine without KVM.
 *
 * KVM with QEMU `-cpu host,pmu=on` (the default migratable=on): the guest's
 * CPUID is what KVM_GET_SUPPORTED_CPUID reports (Linux arch/x86/kvm/cpuid.c,
 * kvm_set_cpu_caps() and __do_cpuid_func()), filtered by QEMU
 * (target/i386/cpu.c, x86_cpu_get_supported_feature_word()). Sources read:
 * torvalds/linux arch/x86/kvm/pmu.c at 004a0aa5, vmx/pmu_intel.c at 0033fa35,
 * the lapic.c / vmx.c / svm/pmu.c changes cited beside each quirk; and the
 * real KVM guest dump data/cpuid/kvm_qemu_host_kbl_r_i7_8650u.txt,
 * which shows the same leaf 0AH, leaf 1 and leaf 7 changes on a Kaby Lake R
 * host. What a platform changes in CPUID is below; what it does differently
 * at run time is its quirk list (quirk_table.h, each row citing its source).
 */
#include <string.h>

#include "sim.h"

/* CPUID bit positions (SDM Vol. 2A CPUID; APM Vol. 3 Appendix E). */
#define L1_ECX_DTES64	    BIT_ULL(2)
#define L1_ECX_DS_CPL	    BIT_ULL(4)
#define L1_ECX_PDCM	    BIT_ULL(15)
#define L1_ECX_HYPERVISOR   BIT_ULL(31)
#define L1_EDX_DS	    BIT_ULL(21)
#define L7_EBX_PQM	    BIT_ULL(12)
#define L7_EBX_PQE	    BIT_ULL(15)
#define L7_EDX_ARCH_LBR	    BIT_ULL(19)
#define L7_1_EAX_PMX	    BIT_ULL(8) /* ArchPerfmonExt: leaf 23H */
#define E1_ECX_PERFCTR_CORE BIT_ULL(23)
#define E1_ECX_PERFCTR_NB   BIT_ULL(24)
#define E1_ECX_PERFCTR_LLC  BIT_ULL(28)
#define E22_EAX_PERFMON_V2  BIT_ULL(0)

/* KVM's vPMU limits (arch/x86/include/asm/kvm_host.h and pmu.c,
 * kvm_init_pmu_capability()): version at most 2, 8 GP and 3 fixed counters
 * on Intel, 6 core counters on AMD. */
#define KVM_PMU_MAX_VERSION   2
#define KVM_INTEL_MAX_GP      8
#define KVM_INTEL_MAX_FIXED   3
#define KVM_AMD_MAX_CORE_CTRS 6

static unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

/* CPUID.40000000H: "KVMKVMKVM\0\0\0", leaves up to 40000001H. */
static void kvm_signature(struct cpuid_regs *r)
{
	r->eax = 0x40000001;
	r->ebx = 0x4B4D564B;
	r->ecx = 0x564B4D56;
	r->edx = 0x0000004D;
}

/* Leaves that both vendors' guests lose: RDT (KVM's kvm_set_cpu_caps() does
 * not list PQM / PQE, so leaves 0FH / 10H read 0: the real guest dump has
 * them cleared) and the hypervisor bit and leaf. True when the leaf is
 * final; leaves 1 and 7 go on to the vendor's changes. */
static bool kvm_common(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	switch (leaf) {
	case 0x1:
		r->ecx |= L1_ECX_HYPERVISOR;
		return false;
	case 0x7:
		if (subleaf == 0)
			r->ebx &= ~(uint32_t)(L7_EBX_PQM | L7_EBX_PQE);
		return false;
	case 0xF:
	case 0x10:
		*r = (struct cpuid_regs){0};
		return true;
	case 0x40000000:
		kvm_signature(r);
		return true;
	case 0x40000001:
		*r = (struct cpuid_regs){0};
		return true;
	}
	return false;
}

/*
 * Intel host, KVM + QEMU -cpu host,pmu=on:
 *  - leaf 0AH (cpuid.c, case 0xa, from kvm_pmu_cap): version min(host, 2),
 *    GP counters min(host, 8), ECX = 0 (no fixed-counter bitmask), EDX fixed
 *    counters min(host, 3) of the host width, EDX[15] AnyThread deprecated
 *    set. The real guest dump: EAX 07300402H, ECX 0, EDX 8603H.
 *  - leaf 1: DS, DTES64, DS-CPL clear (no PEBS / BTS without
 *    migratable=no), as in the real guest dump; PDCM kept.
 *  - leaf (7,1): ArchPerfmonExt clear, so no leaf 23H.
 *  - no Architectural LBRs: CPUID.(7,0):EDX[19] clear and leaf 1CH all 0.
 *    Upstream KVM never merged Arch LBR virtualization: kvm_set_cpu_caps()
 *    leaves ARCH_LBR out of its CPUID_7_EDX list (the series that added it
 *    and a `case 0x1c` was not merged), and __do_cpuid_func() zeroes every
 *    leaf it has no case for, 1CH included (torvalds/linux cpuid.c at
 *    d7e0a795). The guest's legacy LBRs need an LBR format in
 *    PERF_CAPABILITIES, which this model's guest does not have (below).
 *  - IA32_PERF_CAPABILITIES: FW_WRITE only (QEMU's migratable CPU drops the
 *    LBR and PEBS formats): the profile's perf_capabilities.
 */
static void kvm_intel_guest_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	if (kvm_common(leaf, subleaf, r))
		return;
	switch (leaf) {
	case 0x1:
		r->ecx &= ~(uint32_t)(L1_ECX_DTES64 | L1_ECX_DS_CPL);
		r->edx &= ~(uint32_t)L1_EDX_DS;
		return;
	case 0x7:
		if (subleaf == 0)
			r->edx &= ~(uint32_t)L7_EDX_ARCH_LBR;
		if (subleaf == 1)
			r->eax &= ~(uint32_t)L7_1_EAX_PMX;
		return;
	case 0xA: {
		unsigned version = min_u(r->eax & 0xFF, KVM_PMU_MAX_VERSION);
		unsigned gp = min_u((r->eax >> 8) & 0xFF, KVM_INTEL_MAX_GP);
		unsigned fixed = min_u(r->edx & 0x1F, KVM_INTEL_MAX_FIXED);
		r->eax = (r->eax & 0xFFFF0000U) | (gp << 8) | version;
		r->ecx = 0;
		r->edx = (r->edx & 0x1FE0U) | BIT_ULL(15) | fixed;
		return;
	}
	case 0x1C:
	case 0x23:
		*r = (struct cpuid_regs){0};
		return;
	}
}

/*
 * Intel host, KVM + QEMU -cpu host,pmu=off: QEMU's cpu_x86_cpuid() reports
 * leaf 0AH as 0 and clears PDCM when the PMU is off (target/i386/cpu.c); KVM
 * then has no vPMU (pmu->version 0: every PMU MSR and RDPMC fail) except the
 * P6 MSRs its generic MSR code answers (quirk no-pmu-p6-msrs-raz-wi).
 */
static void kvm_intel_pmu_off_guest_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	kvm_intel_guest_cpuid(leaf, subleaf, r);
	if (leaf == 0x1)
		r->ecx &= ~(uint32_t)L1_ECX_PDCM;
	if (leaf == 0xA)
		*r = (struct cpuid_regs){0};
}

/*
 * AMD host, KVM + QEMU -cpu host,pmu=on:
 *  - CPUID.0AH = 0 (cpuid.c case 0xa: no X86_FEATURE_ARCH_PERFMON on AMD).
 *  - 80000001H:ECX PerfCtrExtCore kept; PerfCtrExtNB / PerfCtrExtLLC clear
 *    (KVM virtualizes only the core counters).
 *  - 80000022H (cpuid.c, case 0x80000022): PerfMonV2 only, EBX[3:0] core
 *    counters min(host, 6), no LBR stack, no northbridge / UMC counters.
 */
static void kvm_amd_guest_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	if (kvm_common(leaf, subleaf, r))
		return;
	switch (leaf) {
	case 0xA:
		*r = (struct cpuid_regs){0};
		return;
	case 0x80000001:
		r->ecx &= ~(uint32_t)(E1_ECX_PERFCTR_NB | E1_ECX_PERFCTR_LLC);
		return;
	case 0x80000022:
		r->eax &= E22_EAX_PERFMON_V2;
		r->ebx = min_u(r->ebx & 0xF, KVM_AMD_MAX_CORE_CTRS);
		r->ecx = r->edx = 0;
		return;
	}
}

/*
 * AMD host, KVM loaded with enable_pmu=N (this project's KVM host): KVM
 * reports no PMU at all. kvm_set_cpu_caps() (cpuid.c) clears
 * PERFCTR_CORE and PERFMON_V2 when !enable_pmu, and leaf 80000022H is
 * zeroed (case 0x80000022: "if (!enable_pmu || !kvm_cpu_cap_has(
 * X86_FEATURE_PERFMON_V2)) entry->eax = entry->ebx = 0"): only the four
 * legacy counters the APM gives every AMD64 processor remain, and KVM
 * answers those from its generic MSR code (quirk kvm-amd-no-vpmu).
 */
static void kvm_amd_pmu_off_guest_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	kvm_amd_guest_cpuid(leaf, subleaf, r);
	if (leaf == 0x80000001)
		r->ecx &= ~(uint32_t)E1_ECX_PERFCTR_CORE;
	if (leaf == 0x80000022)
		*r = (struct cpuid_regs){0};
}

/* What KVM does differently at run time, per vendor (quirk_table.h cites each). */
static const enum quirk kvm_intel_quirks[] = {
    Q_GLOBAL_CTRL_RESET_ZERO, Q_RDPMC_FAST_ON_ARCH,  Q_FIXED_NO_WIDTH_GP,
    Q_DEBUGCTL_FREEZE_GP,     Q_KVM_EMULATED_RETIRE, Q_KVM_VMWARE_PMCS,
};

static const enum quirk kvm_pmu_off_quirks[] = {
    Q_KVM_P6_MSRS_RAZ,
};

/* Not on AMD: the VMware backdoor's RDPMC (kvm-vmware-backdoor-pmcs) needs
 * the RDPMC exit, and on AMD the #GP of an invalid ECX comes before the SVM
 * intercept (kvm_pmu_check_rdpmc_early(), pmu.c): only with the module
 * parameter enable_vmware_backdoor = 1 (default 0), which intercepts #GP
 * and emulates RDPMC (check_rdpmc() in emulate.c), do 10000H-10002H answer
 * there; the AMD suite does not probe those indices either way. */
static const enum quirk kvm_amd_quirks[] = {
    Q_LVT_NO_MASK,
    Q_AMD_STATUS_SET_GP,
    Q_KVM_AMD_RESERVED_DROPPED,
};

static const enum quirk kvm_amd_pmu_off_quirks[] = {
    Q_LVT_NO_MASK,
    Q_KVM_AMD_NO_VPMU,
};

/* ---- Hypervisors as they are in 2026 ----
 *
 * KVM's mediated vPMU (Linux 7.0: the kvm-x86-pmu-6.20 tag, pulled into
 * "KVM changes for Linux 7.0", Feb. 2026; kvm_intel / kvm_amd parameter
 * enable_mediated_pmu, default off, and an in-kernel local APIC). The guest
 * owns the PMU while it runs; what it still meets of KVM:
 *  - CPUID: unchanged from the emulated vPMU. The guest version stays at
 *    most 2 (kvm_init_pmu_capability(), pmu.c), at most 3 fixed counters
 *    (KVM_MAX_NR_FIXED_COUNTERS), no PEBS and no LBR format
 *    (vmx_get_perf_capabilities(), vmx.c: "Disable PEBS and LBRs if
 *    mediated PMU support is enabled").
 *  - counter MSRs (IA32_PMCx / IA32_A_PMCx, IA32_FIXED_CTRx; AMD PerfCtrx)
 *    are not intercepted (2904df6692f4 "Disable interception of select PMU
 *    MSRs for mediated vPMUs"): writes above the width meet the hardware's
 *    #GP, not intel_pmu_set_msr()'s truncation (no fixed-write-no-width-gp).
 *  - IA32_PERF_GLOBAL_CTRL / _STATUS / _OVF_CTRL (AMD PerfCntrGlobal*) are
 *    passed through only when the guest's GP and fixed counts equal the
 *    host's (kvm_need_perf_global_ctrl_intercept(), pmu.c).
 *  - event selectors and IA32_FIXED_CTR_CTRL stay intercepted, "so that KVM
 *    can enforce userspace-defined event filters".
 *  - RDPMC exits unless the counts and the widths equal the host's and
 *    enable_vmware_backdoor = 0 (kvm_need_rdpmc_intercept(), pmu.c, checking
 *    kvm_host_pmu, the host's own counts, not KVM's capped ones).
 *  - instructions KVM emulates are still added to matching counters
 *    (283a5aa57b22 "Handle emulated instruction for mediated vPMU", on top of
 *    kvm_pmu_trigger_event()).
 *  - GLOBAL_CTRL: KVM's own reset value is the GP-counter mask
 *    (intel_pmu_refresh(), GUEST_IA32_PERF_GLOBAL_CTRL, d3ba32d1ff2a), but
 *    QEMU's kvm_put_msrs() still writes its 0 at KVM_PUT_RESET_STATE, which
 *    intel_pmu_set_msr() loads into the VMCS too: global-ctrl-reset-zero
 *    stays.
 *
 * Sapphire Rapids host: 4 fixed counters, the guest 3, so
 * kvm_need_rdpmc_intercept() is true: RDPMC still exits, and is decoded by
 * Linux 7.0's intel_rdpmc_ecx_to_pmc() (the 2024 type rework: ECX[31] no
 * longer a fast read, so no rdpmc-fast-on-arch); the VMware pseudo-PMCs
 * still answer (kvm_pmu_rdpmc(), the exit comes first). GLOBAL_* stay
 * intercepted for the same count mismatch. So on this host no RDPMC check
 * sees the CPU's own RDPMC; on a host with at most 3 fixed and 8 GP
 * counters (Ice Lake server and older) they all would.
 */
static const enum quirk kvm_intel_mediated_quirks[] = {
    Q_GLOBAL_CTRL_RESET_ZERO,
    Q_DEBUGCTL_FREEZE_GP,
    Q_KVM_EMULATED_RETIRE,
    Q_KVM_VMWARE_PMCS,
};

/* Zen 4 host: 6 core counters, PerfMonV2, the guest the same 6: RDPMC does
 * not exit (the CPU's own RDPMC answers every rdpmc / amd check), PerfCtrx
 * and PerfCntrGlobalCtl / Status / StatusClr / StatusSet are the hardware's
 * (so amd-global-status-set-gp is gone). PerfEvtSel stays intercepted:
 * amd_pmu_set_msr() still drops pmu->reserved_bits, HostOnly / GuestOnly
 * included, and the hardware runs GuestOnly=1, HostOnly=0 (a2f4ba534cc5). The
 * local APIC is KVM's: lvt-mask-not-set-on-pmi as on the emulated vPMU. */
static const enum quirk kvm_amd_mediated_quirks[] = {
    Q_LVT_NO_MASK,
    Q_KVM_AMD_MEDIATED_SEL_DROPPED,
};

/*
 * Firecracker (its CPUID normalization, applied after any CPU template:
 * docs/cpu_templates/cpuid-normalization.md and
 * src/vmm/src/cpu_config/x86_64/cpuid/{normalize,intel/normalize,
 * amd/normalize}.rs, firecracker-microvm/firecracker as read):
 *  - every vendor: PDCM (CPUID.01H:ECX[15]) cleared, HYPERVISOR set;
 *  - Intel: update_performance_monitoring_entry() zeroes leaf 0AH, so
 *    KVM's vPMU has version 0 (no PMU: every PMU MSR and RDPMC #GP, except
 *    the P6 MSRs x86.c answers, as with QEMU pmu=off);
 *  - AMD: the largest extended leaf becomes 8000001FH, so leaf 80000022H
 *    (PerfMonV2) is out of range: KVM's vPMU is version 1 (amd_pmu_refresh()
 *    without X86_FEATURE_PERFMON_V2), PerfCtrExtCore as KVM reports it.
 */
static void firecracker_intel_guest_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	kvm_intel_pmu_off_guest_cpuid(leaf, subleaf, r);
}

static void firecracker_amd_guest_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	kvm_amd_guest_cpuid(leaf, subleaf, r);
	if (leaf == 0x1)
		r->ecx &= ~(uint32_t)L1_ECX_PDCM;
	if (leaf == 0x80000000)
		r->eax = 0x8000001F;
	if (leaf > 0x8000001F && leaf < 0x80010000)
		*r = (struct cpuid_regs){0};
}

/* KVM's run-time behaviour behind Firecracker on AMD: the emulated vPMU's,
 * less PerfMonV2 (no PerfCntrGlobal* MSRs at all). */
static const enum quirk firecracker_amd_quirks[] = {
    Q_LVT_NO_MASK,
    Q_KVM_AMD_RESERVED_DROPPED,
};

/*
 * Xen HVM / PVH guests on an Intel host, by the `vpmu=` command-line option
 * (parse_vpmu_params(), xen/arch/x86/cpu/vpmu.c; default off):
 *  - off: guest_cpuid() case 0xa (xen/arch/x86/cpuid.c) returns EMPTY_LEAF
 *    when !vpmu_available(); vpmu_do_msr() (vpmu.c) then takes its "nop"
 *    path for every PMU MSR: reads 0, writes ignored, no #GP
 *    (pmu-msrs-raz-wi).
 *  - on (XENPMU_MODE_SELF): the host's leaf 0AH, version at most 3 ("Report
 *    at most v3 since that's all we currently emulate", guest_cpuid() and
 *    core2_vpmu_do_cpuid(), vpmu_intel.c); core2_vpmu_do_wrmsr() checks the
 *    reserved bits itself; PEBS_ENABLE non-zero is refused (PEBS reported
 *    unavailable in IA32_MISC_ENABLE).
 *  - ipc / arch: on, plus core2_vpmu_do_wrmsr()'s PMC filters
 *    (XENPMU_FEATURE_IPC_ONLY / _ARCH_ONLY): quirks xen-vpmu-ipc-events-only,
 *    xen-vpmu-arch-events-only.
 *  - bts: on, plus IA32_DS_AREA and DEBUGCTL.BTS for BTS
 *    (XENPMU_FEATURE_INTEL_BTS; core2_vpmu_do_cpuid() sets CPUID.01H:EDX.DS
 *    then): no suite of pmutest uses BTS, so the model is vpmu=on's.
 * Not modelled: IA32_PERF_CAPABILITIES (read as 0 here: pmutest's LBR / PEBS
 * suites skip, which is also what vpmu=on's PEBS refusal gives), RDT (the
 * model clears PQM / PQE: Xen offers no QoS monitoring to HVM guests'
 * CPUID), AMD hosts (vpmu_amd.c).
 */
static void xen_common(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	switch (leaf) {
	case 0x1:
		r->ecx |= L1_ECX_HYPERVISOR;
		return;
	case 0x7:
		if (subleaf == 0)
			r->ebx &= ~(uint32_t)(L7_EBX_PQM | L7_EBX_PQE);
		return;
	case 0xF:
	case 0x10:
		*r = (struct cpuid_regs){0};
		return;
	case 0x40000000: /* "XenVMMXenVMM", leaves up to 40000005H */
		*r = (struct cpuid_regs){0x40000005, 0x566E6558, 0x65584D4D, 0x4D4D566E};
		return;
	}
	if (leaf > 0x40000000 && leaf <= 0x40000005)
		*r = (struct cpuid_regs){0};
}

static void xen_vpmu_off_guest_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	xen_common(leaf, subleaf, r);
	if (leaf == 0xA)
		*r = (struct cpuid_regs){0};
}

static void xen_vpmu_on_guest_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	xen_common(leaf, subleaf, r);
	if (leaf == 0xA && (r->eax & 0xFF) > 3)
		r->eax = (r->eax & ~0xFFU) | 3;
}

static const enum quirk xen_vpmu_off_quirks[] = {Q_NO_PMU_MSRS_RAZ};
static const enum quirk xen_vpmu_ipc_quirks[] = {Q_XEN_IPC_ONLY};
static const enum quirk xen_vpmu_arch_quirks[] = {Q_XEN_ARCH_ONLY};

#define KVM_MEDIATED_RELEASES                                                                      \
	"KVM mediated vPMU, Linux 7.0 and later (kvm-x86-pmu-6.20; kvm_intel/kvm_amd "             \
	"enable_mediated_pmu=1); QEMU -cpu host"
#define FIRECRACKER_RELEASES "Firecracker CPUID normalization as read (2024-26), on any KVM"
#define XEN_RELEASES	     "Xen 4.x vpmu= modes as read (vpmu.c, vpmu_intel.c, cpuid.c)"
#define HYPERVISORS_2026                                                                           \
	PLATFORM("kvm-intel-sapphirerapids-mediated",                                              \
		 "QEMU/KVM guest, mediated vPMU, on a Sapphire Rapids host",                       \
		 KVM_MEDIATED_RELEASES, "intel_sapphirerapids_806f8.txt", kvm_intel_guest_cpuid,   \
		 PERF_CAP_FW_WRITE, kvm_intel_mediated_quirks),                                    \
	    PLATFORM("kvm-amd-zen4-mediated",                                                      \
		     "QEMU/KVM guest, mediated vPMU, on a Zen 4 (Genoa) host",                     \
		     KVM_MEDIATED_RELEASES, "amd_zen4_genoa_a10f11.txt", kvm_amd_guest_cpuid, 0,   \
		     kvm_amd_mediated_quirks),                                                     \
	    PLATFORM("firecracker-intel-sapphirerapids",                                           \
		     "Firecracker microVM on a Sapphire Rapids host", FIRECRACKER_RELEASES,        \
		     "intel_sapphirerapids_806f8.txt", firecracker_intel_guest_cpuid, 0,           \
		     kvm_pmu_off_quirks),                                                          \
	    PLATFORM("firecracker-amd-zen4", "Firecracker microVM on a Zen 4 (Genoa) host",        \
		     FIRECRACKER_RELEASES, "amd_zen4_genoa_a10f11.txt",                            \
		     firecracker_amd_guest_cpuid, 0, firecracker_amd_quirks),                      \
	    PLATFORM("xen-intel-sapphirerapids-vpmu-off",                                          \
		     "Xen HVM/PVH guest, vpmu=off (the default), on a Sapphire Rapids host",       \
		     XEN_RELEASES, "intel_sapphirerapids_806f8.txt", xen_vpmu_off_guest_cpuid, 0,  \
		     xen_vpmu_off_quirks),                                                         \
	    PLATFORM_NO_QUIRKS(                                                                    \
		"xen-intel-sapphirerapids-vpmu-on",                                                \
		"Xen HVM/PVH guest, vpmu=on (and vpmu=bts), on a Sapphire Rapids host",            \
		XEN_RELEASES, "intel_sapphirerapids_806f8.txt", xen_vpmu_on_guest_cpuid, 0),       \
	    PLATFORM("xen-intel-sapphirerapids-vpmu-ipc",                                          \
		     "Xen HVM/PVH guest, vpmu=ipc, on a Sapphire Rapids host", XEN_RELEASES,       \
		     "intel_sapphirerapids_806f8.txt", xen_vpmu_on_guest_cpuid, 0,                 \
		     xen_vpmu_ipc_quirks),                                                         \
	    PLATFORM("xen-intel-sapphirerapids-vpmu-arch",                                         \
		     "Xen HVM/PVH guest, vpmu=arch, on a Sapphire Rapids host", XEN_RELEASES,      \
		     "intel_sapphirerapids_806f8.txt", xen_vpmu_on_guest_cpuid, 0,                 \
		     xen_vpmu_arch_quirks),

/* One platform: its name and description, the releases it describes, the
 * host dump, what the guest's CPUID changes, IA32_PERF_CAPABILITIES, and its
 * quirk list (the list's length goes with it). */
#define PLATFORM(n, d, rel, dump, cpuid, pc, q)                                                    \
	{                                                                                          \
		.name = n, .desc = d, .releases = rel, .host_dump = dump, .guest_cpuid = cpuid,    \
		.perf_capabilities = pc, .quirks = q, .n_quirks = ARRAY_SIZE(q)                    \
	}
/* A platform without run-time deviations (Xen vpmu=on and bts: none known
 * from the source read). */
#define PLATFORM_NO_QUIRKS(n, d, rel, dump, cpuid, pc)                                             \
	{                                                                                          \
		.name = n, .desc = d, .releases = rel, .host_dump = dump, .guest_cpuid = cpuid,    \
		.perf_capabilities = pc                                                            \
	}
/* The emulated vPMU as read: RDPMC decoding before the 2024 rework. */
#define KVM_EMULATED_RELEASES                                                                      \
	"KVM emulated vPMU as read at torvalds/linux 004a0aa5 / 0033fa35 (before the 2024 "        \
	"RDPMC type rework); QEMU -cpu host"
const struct sim_platform sim_platforms[] = {
    PLATFORM("kvm-intel-sapphirerapids",
	     "QEMU/KVM guest (-cpu host,pmu=on) on a Sapphire Rapids host", KVM_EMULATED_RELEASES,
	     "intel_sapphirerapids_806f8.txt", kvm_intel_guest_cpuid, PERF_CAP_FW_WRITE,
	     kvm_intel_quirks),
    PLATFORM("kvm-intel-sapphirerapids-pmu-off",
	     "QEMU/KVM guest (-cpu host,pmu=off) on a Sapphire Rapids host",
	     "any KVM; QEMU with pmu=off (target/i386/cpu.c)", "intel_sapphirerapids_806f8.txt",
	     kvm_intel_pmu_off_guest_cpuid, 0, kvm_pmu_off_quirks),
    PLATFORM("kvm-amd-zen4", "QEMU/KVM guest (-cpu host,pmu=on) on a Zen 4 (Genoa) host",
	     KVM_EMULATED_RELEASES ", KVM 6.3+ (PerfMonV2)", "amd_zen4_genoa_a10f11.txt",
	     kvm_amd_guest_cpuid, 0, kvm_amd_quirks),
    PLATFORM("kvm-amd-zen4-pmu-off",
	     "QEMU/KVM guest (-cpu host) on a Zen 4 (Genoa) host with kvm.enable_pmu=N",
	     "any KVM with kvm.enable_pmu=N", "amd_zen4_genoa_a10f11.txt",
	     kvm_amd_pmu_off_guest_cpuid, 0, kvm_amd_pmu_off_quirks),
    HYPERVISORS_2026};
const unsigned sim_platform_count = ARRAY_SIZE(sim_platforms);

const char *sim_platform_firmware(const struct sim_platform *pl)
{
	/* Every QEMU/KVM model is named kvm-*; the others are Firecracker's
	 * and Xen's (HYPERVISORS_2026). */
	return strncmp(pl->name, "kvm-", 4) == 0
		   ? "QEMU's firmware (SeaBIOS, OVMF or qboot) runs before pmutest"
		   : NULL;
}
