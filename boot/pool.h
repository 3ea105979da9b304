/* SPDX-License-Identifier: MIT */
/*
 * How much memory a front end hands the arch as its pool (struct
 * x86_handoff pool_base/pool_size): page tables, stacks, the console's text
 * grid, the scratch buffer, and each application processor's stacks. One
 * rule for boot/uefi and boot/direct.
 */
#ifndef PMUTEST_BOOT_POOL_H
#define PMUTEST_BOOT_POOL_H

#include <stdint.h>

#include "arch.h"

/* Room for page tables (one 4 KiB directory per GiB of physical address
 * space, plus splits), stacks and the console's text grid; and each
 * application processor's stacks (arch/x86_64/smp.c). */
#define POOL_FIXED_BYTES   ((2u << 20) + ARCH_SCRATCH_BYTES) /* + arch_scratch_buffer() */
#define POOL_PER_CPU_BYTES (160u << 10)

/* phys_end: the highest physical address to be mapped (exclusive). */
static inline uint64_t boot_pool_bytes(uint64_t phys_end, uint32_t cpus)
{
	return POOL_FIXED_BYTES + ((phys_end + (1ULL << 30) - 1) >> 30) * 4096 +
	       (uint64_t)cpus * POOL_PER_CPU_BYTES;
}

#endif
