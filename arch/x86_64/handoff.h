/* SPDX-License-Identifier: MIT */
/*
 * What boot/ (the UEFI loader) hands arch/x86_64 after ExitBootServices, on
 * top of the kernel's struct boot_info. Plain data only: the arch never sees
 * a firmware header. The one firmware service it can still reach is the
 * report store, through a function boot/ provides (runtime services).
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
#define HANDOFF_MAX_CPUS   256 /* = ARCH_MAX_CPUS */

/* The application processors' start-up page: real-mode code, its parameters
 * and a copy of the top-level page table, all below 1 MiB (the SIPI vector
 * names a 4 KiB page below 1 MiB, SDM Vol. 3A 10.6.1 "Start-Up IPI"). */
#define TRAMPOLINE_PAGES 2

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
	 * MADT order (the boot CPU among them), how many the MADT lists as not
	 * enabled, and how many did not fit. */
	uint32_t cpu_count, cpus_disabled, cpus_beyond_max;
	uint32_t apic_ids[HANDOFF_MAX_CPUS];
	/* TRAMPOLINE_PAGES pages below 1 MiB reserved from the firmware's map
	 * before ExitBootServices; 0 when none could be had (no AP starts). */
	uint64_t trampoline_phys;
};

/* The arch entry: builds the environment and calls kernel_main(&h->bi). */
__attribute__((noreturn)) void x86_start(struct x86_handoff *h);

/* boot/report_store.c: store a report in non-volatile UEFI variables
 * through runtime services (callable after ExitBootServices). */
bool efi_store_report(const char *name, const char *data, size_t len);

#endif
