/* SPDX-License-Identifier: MIT */
/*
 * The access trace: the evidence under a failed check.
 *
 * Both machines feed it from their include/arch.h probes (rdmsr_safe,
 * wrmsr_safe, rdpmc_safe, rdmsr, wrmsr), at CPL 0 only (the probes run at
 * CPL 1-3 too, where kernel data is out of reach: the real machine could
 * not record there, so the simulator does not either). It records only
 * while a test runs (trace_begin/trace_end around the test function), in a
 * ring of the last TRACE_RING accesses, each numbered from the test's
 * start. A failed check prints the ring (check.c), for the first
 * TRACE_FAILS_SHOWN failed checks of a test, as KTAP diagnostics:
 *
 *     # trace: SEQ OP ADDRESS VALUE OUTCOME
 *
 * SEQ the access's number in the test (0 = its first), OP rdmsr, wrmsr or
 * rdpmc, ADDRESS the MSR (RDPMC: ECX), VALUE the value read or written
 * (RDPMC: EDX:EAX's low halves), OUTCOME `ok` or the vector (`#GP`).
 * `trace = 2` (an option, for ktap-report.py explain) also prints, when a
 * test ends, TRACE_LOG_MAX of its accesses the same way, from number
 * `trace_from` (default 0) on.
 *
 * An access is printed once a test (compact = 1, the default): where a
 * ring or the log would print again accesses the test printed before, each
 * run of them is one line
 *
 *     # trace: A..B shown above        (one access: "# trace: A shown above")
 *
 * and tools/pmureport/expand.py puts those lines back (compact = 0 prints all).
 */
#ifndef PMUTEST_TRACE_H
#define PMUTEST_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#define TRACE_RING	  8   /* accesses printed under a failed check */
#define TRACE_FAILS_SHOWN 3   /* failed checks of one test with a trace */
#define TRACE_LOG_MAX	  512 /* trace = 2: a test's first accesses */

enum trace_op { TRACE_RDMSR, TRACE_WRMSR, TRACE_RDPMC };

/* From the probes, at CPL 0: one access and its outcome (0 = no fault). */
void trace_access(enum trace_op op, uint32_t addr, uint64_t value, int vector);

/* Around a test's function (runner.c); `full`: keep TRACE_LOG_MAX accesses
 * from number `from` on for trace_print_log(). */
void trace_begin(bool full, uint32_t from);
void trace_end(void);

/* The ring, oldest first (check.c, under a failed check). */
void trace_print_ring(void);
/* trace = 2: those accesses (runner.c, after the test). */
void trace_print_log(void);

#endif
