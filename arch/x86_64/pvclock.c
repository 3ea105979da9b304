/* SPDX-License-Identifier: MIT */
/*
 * The TSC rate a hypervisor's paravirtual clock gives (calibrate.c, step
 * 0c): KVM's kvmclock. The guest names a 32-byte pvclock_vcpu_time_info in
 * MSR_KVM_SYSTEM_TIME_NEW (4B564D01H, enumerated by CPUID.40000001H:EAX[3]
 * under the "KVMKVMKVM" signature); KVM fills it before the vCPU runs again
 * (kvm_guest_time_update()), and its tsc_to_system_mul / tsc_shift scale
 * TSC ticks to nanoseconds, so the TSC rate is 10^9 x 2^32 / mul, shifted
 * the other way (Linux pvclock_tsc_khz(), in kHz). Linux
 * Documentation/virt/kvm/x86/msr.rst describes the MSR and the structure.
 * The MSR is written 0 again at once: KVM stops writing guest memory.
 */
#include "x86.h"

#define KVM_SIG_EBX		 0x4b4d564bu /* "KVMK" */
#define KVM_SIG_ECX		 0x564b4d56u /* "VMKV" */
#define KVM_SIG_EDX		 0x0000004du /* "M\0\0\0" */
#define KVM_CPUID_FEATURES	 0x40000001u
#define KVM_FEATURE_CLOCKSOURCE2 BIT_ULL(3)
#define MSR_KVM_SYSTEM_TIME_NEW	 0x4b564d01u
#define PVCLOCK_READS		 100000 /* an odd (in update) or zero version this often: none */

struct pvclock_vcpu_time_info {
	uint32_t version;
	uint32_t pad0;
	uint64_t tsc_timestamp;
	uint64_t system_time;
	uint32_t tsc_to_system_mul;
	int8_t tsc_shift;
	uint8_t flags;
	uint8_t pad[2];
};
_Static_assert(sizeof(struct pvclock_vcpu_time_info) == 32, "the ABI's 32 bytes");

static volatile struct pvclock_vcpu_time_info g_pvti __attribute__((aligned(32)));

uint64_t x86_pvclock_tsc_hz(void)
{
	struct cpuid_regs r;
	uint32_t version, mul = 0;
	int8_t shift = 0;
	unsigned reads = 0;

	arch_cpuid(1, 0, &r);
	if (!(r.ecx & BIT_ULL(31)))
		return 0;
	arch_cpuid(0x40000000, 0, &r);
	if (r.ebx != KVM_SIG_EBX || r.ecx != KVM_SIG_ECX || r.edx != KVM_SIG_EDX ||
	    r.eax < KVM_CPUID_FEATURES)
		return 0;
	arch_cpuid(KVM_CPUID_FEATURES, 0, &r);
	if (!(r.eax & KVM_FEATURE_CLOCKSOURCE2))
		return 0;
	/* Identity-mapped (paging.c): the address is the physical one. */
	if (wrmsr_safe(MSR_KVM_SYSTEM_TIME_NEW, (uint64_t)(uintptr_t)&g_pvti | 1))
		return 0;
	do {
		version = g_pvti.version;
		__asm__ volatile("" ::: "memory");
		mul = g_pvti.tsc_to_system_mul;
		shift = g_pvti.tsc_shift;
		__asm__ volatile("" ::: "memory");
	} while ((!version || (version & 1) || version != g_pvti.version) &&
		 ++reads < PVCLOCK_READS);
	(void)wrmsr_safe(MSR_KVM_SYSTEM_TIME_NEW, 0);
	if (reads >= PVCLOCK_READS || !mul)
		return 0;
	uint64_t hz = (1000000000ULL << 32) / mul;
	return shift < 0 ? hz << -shift : hz >> shift;
}
