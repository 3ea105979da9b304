/* SPDX-License-Identifier: MIT */
/*
 * Reader of raw CPUID dumps in the format of the Debian `cpuid` tool
 * (`cpuid -r`, and `cpuid -r -1`): a host library in its own right (lib/),
 * depending on nothing but the C library and include/arch.h's struct
 * cpuid_regs. Used by pmucaps and by the simulator (`pmusim --cpuid-dump`,
 * which simulates every CPU of a whole machine's dump), pinned by
 * testing/unit/test_caps.c.
 *
 * Accepted input, line by line (CR LF or LF, leading/trailing blanks ignored):
 *   CPU N:          starts logical CPU N (as `cpuid -r` prints it)
 *   CPU:            starts the next CPU (as `cpuid -r -1` prints it)
 *   0xLLLLLLLL 0xSS: eax=0x... ebx=0x... ecx=0x... edx=0x...
 *   0xLLLLLLLL: eax=0x... ...     (older tool versions: sub-leaf 0)
 *   empty lines
 *   # pmutest report    (CPUID_DUMP_SPARSE_MARK, anywhere) the dump holds
 *                       only the leaves a pmutest report carries (that is,
 *                       the leaves pmutest read): a leaf it lacks is
 *                       unknown, so the completeness rule below is off
 * Register lines before any "CPU" header belong to CPU 0. Anything else is an
 * error, reported with file and line; so is a CPU number given twice or one
 * leaf/sub-leaf given twice with different values, and so is a dump whose
 * CPU lacks leaf 0 or a leaf at or below its maximum basic (CPUID.0H:EAX) or
 * extended (CPUID.80000000H:EAX) leaf: a dump cut short must not decode as
 * "feature absent". The `cpuid` tool prints nothing for the leaves it walks
 * sub-leaf by sub-leaf when sub-leaf 0 is already invalid (04H, 0BH, 1BH,
 * 1FH, 8000001DH, 80000020H, seen on real AMD, Hygon, VIA, Intel dumps):
 * those alone may be absent.
 * Reading is linear (entries are sorted once, lookups are binary searches)
 * and bounded (a line longer than 4096 bytes or holding a NUL byte is an
 * error at once), and messages show control characters as '?'.
 */
#ifndef PMUTEST_CPUID_DUMP_H
#define PMUTEST_CPUID_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h" /* struct cpuid_regs */

#define CPUID_DUMP_SPARSE_MARK "# pmutest report"

struct cpuid_dump_entry {
	uint32_t leaf, subleaf;
	struct cpuid_regs r;
	unsigned line; /* where the file gave it, for messages */
};

struct cpuid_dump_cpu {
	unsigned number; /* logical CPU number: "CPU N:", or its position */
	struct cpuid_dump_entry *entries;
	size_t count, cap;
};

struct cpuid_dump {
	struct cpuid_dump_cpu *cpus; /* in file order */
	size_t count, cap;
	size_t *by_number; /* indexes into cpus, sorted by CPU number */
};

/* Parse `path` into *d (which need not be initialised). Returns 0, or -1
 * with a one-line message in err (no trailing newline) and *d empty. A file
 * without any register line is an error. */
int cpuid_dump_load(struct cpuid_dump *d, const char *path, char *err, size_t errlen);

/* Number of logical CPUs in the dump. */
unsigned cpuid_dump_cpu_count(const struct cpuid_dump *d);

/* Logical CPU number of the index-th CPU of the file (index < count). */
unsigned cpuid_dump_cpu_number(const struct cpuid_dump *d, unsigned index);

/* True when the dump has logical CPU `cpu`. */
bool cpuid_dump_has_cpu(const struct cpuid_dump *d, unsigned cpu);

/* Registers of (leaf, subleaf) on logical CPU `cpu`: true and *r filled when
 * the dump has them, false and *r all zero otherwise. */
bool cpuid_dump_lookup(const struct cpuid_dump *d, unsigned cpu, uint32_t leaf, uint32_t subleaf,
		       struct cpuid_regs *r);

/* A caps_cpuid_fn-compatible source bound to one CPU of a dump:
 *     struct cpuid_dump_source src = {&dump, cpu};
 *     caps_decode(&caps, cpuid_dump_source_fn, &src);              */
struct cpuid_dump_source {
	const struct cpuid_dump *dump;
	unsigned cpu;
};
bool cpuid_dump_source_fn(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);

void cpuid_dump_free(struct cpuid_dump *d);

#endif
