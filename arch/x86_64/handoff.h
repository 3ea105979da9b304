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

struct x86_handoff {
	struct boot_info bi;
	/* Memory the arch may use for page tables and stacks (EfiLoaderData,
	 * page-aligned, identity-mapped). */
	uint64_t pool_base, pool_size;
	/* Highest physical address the memory map mentions (exclusive). */
	uint64_t phys_end;
	uint32_t range_count;
	struct phys_range ranges[HANDOFF_MAX_RANGES];
};

/* The arch entry: builds the environment and calls kernel_main(&h->bi). */
__attribute__((noreturn)) void x86_start(struct x86_handoff *h);

/* boot/report_store.c: store a report in non-volatile UEFI variables
 * through runtime services (callable after ExitBootServices). */
bool efi_store_report(const char *name, const char *data, size_t len);

#endif
