/* SPDX-License-Identifier: MIT */
/*
 * What a front end of boot/ (boot/uefi after ExitBootServices, boot/direct
 * after a VMM's direct kernel boot) hands arch/x86_64, on top of the
 * kernel's struct boot_info. Plain data only: the arch never sees a
 * firmware header nor learns which front end ran. The one firmware service
 * it may still reach is a report store, through a function the front end
 * provides (NULL when it has none).
 */
#ifndef PMUTEST_X86_HANDOFF_H
#define PMUTEST_X86_HANDOFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot_info.h"

/* A physical range from the firmware memory map, as the page tables need
 * it. */
enum phys_kind {
	PHYS_RAM,  /* any cacheable memory (conventional, loader, runtime...) */
	PHYS_MMIO, /* memory-mapped I/O the firmware listed (mapped uncached) */
};

struct phys_range {
	uint64_t base, size;
	enum phys_kind kind;
};

#define HANDOFF_MAX_RANGES 512
/* Two sockets of today's largest parts (2 x 2 x 192 threads) fit; each CPU
 * costs ~300 bytes of tables here and its stacks from the pool only once
 * started. */
#define HANDOFF_MAX_CPUS 1024 /* = ARCH_MAX_CPUS */

#define HANDOFF_MAX_IOAPICS   8
#define HANDOFF_MAX_OVERRIDES 16

/* The application processors' start-up page: real-mode code, its parameters
 * and a copy of the top-level page table, all below 1 MiB (the SIPI vector
 * names a 4 KiB page below 1 MiB, SDM Vol. 3A 10.6.1 "Start-Up IPI"). */
#define TRAMPOLINE_PAGES 2

/* A register as the ACPI Generic Address Structure names it (ACPI 6.x
 * 5.2.3.2): system memory or system I/O, accessed with bits width. */
enum acpi_space {
	ACPI_SPACE_MEMORY = 0,
	ACPI_SPACE_IO = 1,
};
struct acpi_reg {
	uint64_t addr; /* 0: absent */
	uint8_t space; /* enum acpi_space */
	uint8_t bits;  /* 8, 16 or 32 */
};

/* Switching the machine off by ACPI S5 (soft off, ACPI 6.x 7.4.2, 16.1.7):
 * SLP_TYPx from the DSDT's \_S5 object with SLP_EN, written to PM1x_CNT, or
 * to the sleep control register on a hardware-reduced platform (4.8.3.7). */
struct acpi_poweroff {
	bool have_s5;	 /* \_S5 found: slp_typ_a/b are valid */
	bool hw_reduced; /* FADT flag HW_REDUCED_ACPI */
	/* The i8042 reset restarts the VM rather than ending it: Cloud
	 * Hypervisor (FADT OEM ID "CLOUDH"; devices/src/legacy/i8042.rs sends
	 * reset_evt, vmm/src/lib.rs reboots on it). */
	bool reset_reboots;
	uint8_t slp_typ_a, slp_typ_b;
	struct acpi_reg pm1a_cnt, pm1b_cnt, sleep_control;
};

struct x86_handoff {
	struct boot_info bi;
	/* Memory the arch may use for page tables and stacks (EfiLoaderData,
	 * page-aligned, identity-mapped). */
	uint64_t pool_base, pool_size;
	/* Highest physical address the memory map mentions (exclusive). */
	uint64_t phys_end;
	uint32_t range_count;
	struct phys_range ranges[HANDOFF_MAX_RANGES];
	/* Processors from the ACPI MADT: the APIC IDs of the enabled ones in
	 * MADT order (the boot CPU among them), each once (a CPU may be listed
	 * as local APIC and as local x2APIC); how many the MADT lists as
	 * disabled, as online capable (hot-pluggable, not present now), and
	 * how many enabled ones did not fit, with their APIC IDs (the first
	 * HANDOFF_MAX_CPUS of them). */
	uint32_t cpu_count, cpus_disabled, cpus_online_capable, cpus_beyond_max;
	uint32_t apic_ids[HANDOFF_MAX_CPUS];
	uint32_t beyond_ids[HANDOFF_MAX_CPUS];
	/* TRAMPOLINE_PAGES pages below 1 MiB reserved from the firmware's map
	 * before ExitBootServices; 0 when none could be had (no AP starts). */
	uint64_t trampoline_phys;
	/* Interrupt routing for the NMI watchdog (nmi_watchdog.c): the HPET
	 * (ACPI HPET table; 0: none), the I/O APICs and the ISA interrupt
	 * source overrides of the MADT (ACPI 6.x 5.2.12.3, 5.2.12.5; flags:
	 * MPS INTI polarity bits 1:0, trigger mode bits 3:2). */
	uint64_t hpet_phys;
	uint32_t ioapic_count, override_count;
	struct {
		uint64_t phys;
		uint32_t gsi_base;
	} ioapics[HANDOFF_MAX_IOAPICS];
	struct {
		uint32_t gsi;
		uint8_t irq;
		uint16_t flags;
	} overrides[HANDOFF_MAX_OVERRIDES];
	/* The ACPI PM timer (FADT PM_TMR_BLK; bits 24 or 32): the reference
	 * clock of the timer calibration (arch/x86_64/calibrate.c). */
	struct acpi_reg pm_timer;
	/* ACPI S5, for arch_exit() where no exit device ends the run. */
	struct acpi_poweroff poweroff;
	/* Keep the report on the boot medium (boot/uefi: NV variables); NULL
	 * when the front end has no such store. */
	bool (*store_report)(const char *name, const char *data, size_t len);
	const char *store_error; /* why store_report kept nothing; may be NULL */
};

/* The arch entry: builds the environment and calls kernel_main(&h->bi). */
__attribute__((noreturn)) void x86_start(struct x86_handoff *h);

#endif
