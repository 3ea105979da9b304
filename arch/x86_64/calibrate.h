/* SPDX-License-Identifier: MIT */
/*
 * Which clock the TSC and local APIC timer rates come from, and how they
 * are measured (calibrate.c). Machine-independent: every port, counter and
 * CPUID read is behind a function pointer, so apic.c runs it on the machine
 * and testing/unit/test_calibrate.c on the host with injected behaviour (a PIT that
 * is never ready, ready at once, or stalled by an SMI-sized gap).
 */
#ifndef PMUTEST_X86_CALIBRATE_H
#define PMUTEST_X86_CALIBRATE_H

#include <stdbool.h>
#include <stdint.h>

#define PIT_HZ 1193182ULL
/* ACPI PM timer: 3.579545 MHz (ACPI 6.x 4.8.3.3). */
#define PM_TIMER_HZ 3579545ULL

struct clock_ops {
	void *ctx;
	uint64_t (*tsc)(void *ctx);
	/* PIT channel 2, mode 0, counting `latch` periods, gate on. */
	void (*pit_start)(void *ctx, uint16_t latch);
	/* Channel 2's OUT (port 61H bit 5): high at terminal count. */
	bool (*pit_out)(void *ctx);
	/* A free-running reference counter of ref_hz, ref_bits wide, counting
	 * up (the ACPI PM timer; where there is none, PIT channel 0 read by
	 * latch commands: no port 61H needed, so it serves where channel 2's
	 * OUT cannot be read, e.g. QEMU microvm); ref_read NULL when there is
	 * neither. ref_name names it in the report. */
	uint32_t (*ref_read)(void *ctx);
	uint64_t ref_hz;
	unsigned ref_bits;
	const char *ref_name;
	/* The local APIC timer: started masked, one-shot, divide by 16, from
	 * FFFFFFFFH; apic_count reads its current count. */
	void (*apic_start)(void *ctx);
	uint32_t (*apic_count)(void *ctx);
	/* CPUID leaf (sub-leaf 0) into r[0..3] = EAX, EBX, ECX, EDX. */
	void (*cpuid)(void *ctx, uint32_t leaf, uint32_t r[4]);
	/* The TSC rate a hypervisor's paravirtual clock gives (KVM's kvmclock:
	 * the pvclock scale), 0 without one; NULL where there is none to ask. */
	uint64_t (*pv_tsc_hz)(void *ctx);
};

/* How a PIT run went (Linux's pit_calibrate_tsc() rejects the same). */
enum pit_verdict {
	PIT_OK,
	PIT_NEVER_READY,   /* OUT2 never rose within the bound: no PIT */
	PIT_READY_AT_ONCE, /* fewer reads than the window needs: not a counting PIT */
	PIT_STALL,	   /* a gap between reads > 10x the shortest, > 2% of the window: an SMI */
	PIT_NOT_RUN,	   /* an exact source (CLOCK_HV_LEAF, _CRYSTAL, _PVCLOCK): PIT not used */
	PIT_VERDICT_COUNT,
};

enum clock_source {
	CLOCK_PIT_CHECKED, /* PIT channel 2, within 2% of the reference */
	CLOCK_PIT,	   /* PIT channel 2, no reference timer to check it */
	CLOCK_REFERENCE,   /* the reference timer: channel 2 unusable or disagreeing */
	CLOCK_CPUID,	   /* CPUID.15H (and 16H for the crystal): no usable timer */
	CLOCK_ASSUMED,	   /* nothing: 100 MHz APIC timer assumed, TSC rate unknown */
	CLOCK_HV_LEAF,	   /* CPUID.40000010H: the hypervisor's own rates, exact */
	CLOCK_CRYSTAL,	   /* CPUID.15H with ECX (bare metal): the crystal, exact */
	CLOCK_PVCLOCK,	   /* the paravirtual clock's TSC rate, exact; the APIC timer against it */
	CLOCK_SOURCE_COUNT,
};

struct clock_result {
	uint64_t tsc_hz;  /* 0: unknown */
	uint64_t apic_hz; /* APIC timer ticks per second at divide-by-1 */
	enum clock_source source;
	enum pit_verdict pit;
	bool ref_ok; /* the reference timer counted */
};

void clock_calibrate(const struct clock_ops *o, struct clock_result *r);
const char *clock_source_name(enum clock_source s);
const char *pit_verdict_name(enum pit_verdict v);

#endif
