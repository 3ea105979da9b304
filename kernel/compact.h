/* SPDX-License-Identifier: MIT */
/*
 * Say each thing once (compact = 1, the default): on a run of
 * several CPUs, the first selected CPU of each PMU configuration is the
 * reference and is reported in full; on every other CPU of that
 * configuration, a test whose whole report (its diagnostic lines, its
 * result, its directive and reason, byte for byte) equals the reference's
 * is one line:
 *
 *     ok 3 name # same as cpu0             a pass
 *     ok 4 name # SKIP same as cpu0        a skip (XFAIL, TIMEOUT alike)
 *     not ok 5 name # same as cpu0         a failure: still "not ok" here
 *
 * and a suite whose every test is so, none of them failed, is one top-level
 * line ("ok 28 rdpmc@cpu1 # same as cpu0"). Anything that differs (a value,
 * a seed, a CPU number in a diagnostic, a different skip reason) is printed
 * in full, test by test. The comparison is a 64-bit hash of each test's
 * text (FNV-1a's step, a word at a time: compact.c fnv()): nothing a reader
 * of the expanded form could miss.
 *
 * How: while a CPU with a reference runs a suite, the writer's sink is held
 * here: the suite's text is kept (COMPACT_BUF bytes; beyond that it goes out
 * as it is, in full) and written, compacted where equal, when the suite
 * ends. The reference CPU's text goes straight out; only its hashes are
 * kept. kernel_emergency_summary() writes out what is held (compact_flush).
 * The host tools expand the form again (tools/pmureport/expand.py expand_text()).
 *
 * Within a test the same writer flag (ktap_writer.ditto) has check.c write
 * a failure block's field equal to the test's previous one as "ditto" and
 * trace.c an access the test printed before as "trace: A..B shown above";
 * they are the same on every CPU that says the same, so this comparison
 * is unchanged by them.
 */
#ifndef PMUTEST_COMPACT_H
#define PMUTEST_COMPACT_H

#include "ktap.h"
#include "options.h"

/* The report header's line that says the log may be compact: the host
 * tools expand only a log that carries it. */
#define COMPACT_HEADER                                                                             \
	"compact: \"same as cpuN\": the suite or test ended exactly as on cpu N, the first "       \
	"CPU of its PMU configuration; SKIP \"ditto\": the previous test's reason; \"rule: "       \
	"ditto\" (any field of a failure): this test's previous line of that field; \"trace: "     \
	"A..B shown above\": accesses A to B as printed above in this test (compact = 0 prints "   \
	"every line)"

/* Before a CPU's suites: o->compact, the CPU and its PMU configuration
 * (CPUS_NO_CONFIG: never compared). The first CPU of a configuration
 * becomes its reference. */
void compact_cpu_begin(const struct options *o, unsigned cpu, unsigned config);

/* Around a suite: begin before its subtest header, end after its result
 * line, with what that line said (number, label, result). */
void compact_suite_begin(struct ktap_writer *w);
void compact_suite_end(struct ktap_writer *w, unsigned number, const char *label,
		       enum ktap_result r);

/* Around a test: begin before its first line, end after its result line;
 * id is the test's registration index (the same on every CPU), number and
 * name its result line's. The text compared is every byte the test wrote,
 * and a SKIP reason written "ditto" in full (the writer's last_skip). */
void compact_test_begin(void);
void compact_test_end(unsigned id, unsigned number, const char *name, enum ktap_result r);

/* Writes out whatever is held (a run that ends early). */
void compact_flush(void);

#endif
