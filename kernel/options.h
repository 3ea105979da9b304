/* SPDX-License-Identifier: MIT */
/*
 * Run options, from pmutest.cfg on the boot volume (or pmusim --config/--set).
 *
 *   # comment
 *   suites = rdpmc, privilege   run only these suites (default: all)
 *   tests = rdpmc.type_space    run only these tests, as suite.test
 *   exclude = pmi, width.legacy_sign_extend   skip suites or tests
 *   selftest = 1                also run the harness self-tests
 *   verbose = 0..2              0 failures only, 1 + measurements (default),
 *                               2 + every passing check
 *   timeout_ms = 10000          per-test watchdog (100..600000)
 *   save_report = 1             save the report on the boot medium (hardware)
 *   strict = 1                  checks resting on pmutest's own inference from
 *                               the manual (rules marked RULE_INFERRED) fail
 *                               like the others (default 0: a diagnostic)
 *   known = 0                   failures matching the known-deviations table
 *                               (kernel/known.c) are plain failures (default 1:
 *                               reported "# XFAIL" with their source)
 *   cpus = all                  the CPUs the suite runs on: all (default),
 *                               per-config (the first CPU of each distinct
 *                               PMU configuration), or a list: 0, 2-5
 *   smp_silent_cpu = 3          test hook: CPU 3 gets INIT but no Start-Up
 *                               IPI, so it never answers (default: none)
 *   trace = 0..2                the access trace (kernel/trace.h): 0 none,
 *                               1 under each failed check (default), 2 also
 *                               every test's first accesses (explain)
 *   trace_from = 512            trace = 2 prints accesses from this number
 *                               of the test on (default 0)
 *   vpmu = mediated             what the host says the guest's vPMU is: off,
 *                               emulated or mediated (tools/run.sh reads
 *                               the host's KVM parameters); the report header
 *                               names it (default: not told -- a guest cannot
 *                               tell KVM's emulated vPMU from its mediated one)
 *   host_kernel = 6.18.44       the version of the Linux kernel hosting the
 *                               guest (KVM), given by the host's scripts: a
 *                               KVM row of the known-deviations table with a
 *                               version range excuses a failure only on a
 *                               host known to be in its range (default: not
 *                               given, so such a row excuses nothing)
 *   compact = 0                 every line in full (default 1: a CPU's suite
 *                               or test that ended exactly as on the first
 *                               CPU of its PMU configuration is one line
 *                               "same as cpuN", and a SKIP reason equal to
 *                               the previous test's is "ditto";
 *                               kernel/compact.h)
 *
 * A malformed line is reported with its line number and ignored, so that
 * option keeps its default; the rest of the file still applies, and the run
 * ends with verdict ERROR (a run that is not the one asked for is no pass).
 * Keys and values are printable ASCII; a NUL byte or a control character
 * anywhere, or non-ASCII outside a comment, makes the line an error; a
 * leading UTF-8 byte order mark is skipped. The kernel and pmusim read the
 * same bytes the same way: this parser, given the text and its length.
 */
#ifndef PMUTEST_OPTIONS_H
#define PMUTEST_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OPT_MAX_NAMES 32
#define OPT_NAME_LEN  64
#define OPT_MAX_CPUS  1024 /* = ARCH_MAX_CPUS */
#define OPT_NO_CPU    0xFFFFFFFFu
#define OPT_MAX_TEXT  (64 * 1024) /* larger is not an options file */

struct name_list {
	unsigned count;
	char names[OPT_MAX_NAMES][OPT_NAME_LEN];
};

struct options {
	struct name_list suites, tests, exclude;
	bool selftest;
	unsigned verbose;
	uint32_t timeout_ms;
	bool save_report;
	bool strict; /* inferred rules are checks */
	bool known;  /* known deviations are expected failures */
	/* Which CPUs the suite runs on (kernel/cpus.c applies it). */
	enum cpus_mode { CPUS_ALL, CPUS_PER_CONFIG, CPUS_LIST } cpus_mode;
	uint64_t cpus_list[OPT_MAX_CPUS / 64]; /* CPUS_LIST: bit n = CPU n */
	uint32_t smp_silent_cpu;	       /* OPT_NO_CPU: none */
	uint32_t trace;			       /* kernel/trace.h: 0, 1 or 2 */
	uint32_t trace_from;		       /* trace = 2: the first access shown */
	/* The vPMU the host says the guest has. */
	enum vpmu_mode { VPMU_UNTOLD, VPMU_OFF, VPMU_EMULATED, VPMU_MEDIATED } vpmu;
	uint32_t host_kernel; /* HOST_KERNEL(a, b, c), 0: not given */
	bool compact;	      /* kernel/compact.h: say each thing once */
};

/* The report header's "vpmu:" text for a mode; hypervisor: CPUID.01H:ECX[31]. */
const char *options_vpmu_text(enum vpmu_mode m, bool hypervisor);

/* Linux kernel version a.b.c as one ordered number (host_kernel, and the
 * ranges of kernel/known.c). */
#define HOST_KERNEL(a, b, c) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | (uint32_t)(c))
#define HOST_KERNEL_UNKNOWN  0

void options_defaults(struct options *o);

/* Parses len bytes of text over the defaults already in *o. Each error is
 * passed to err() as one message naming source and line. Returns the number
 * of errors. */
typedef void (*options_error_fn)(void *ctx, const char *msg);
unsigned options_parse(struct options *o, const char *text, size_t len, const char *source,
		       options_error_fn err, void *ctx);

/*
 * The options of a kernel command line (boot/direct without a module):
 * every word "key=value" whose key is an option above, or is written
 * "pmutest.key" (then always taken, so that a misspelt key is an error
 * and not a silent default), becomes the line "key = value" of out (cap
 * bytes, NUL-terminated); the other words (a VMM's own console=ttyS0,
 * reboot=k...) are copied, space-separated, to ignored (icap bytes).
 * Returns the length of out; words that do not fit are dropped into
 * ignored as "...".
 */
size_t options_from_cmdline(const char *cmdline, char *out, size_t cap, char *ignored, size_t icap);

/* Selection: should this test run? (Self-tests need selftest=1 or their
 * suite named in `suites`.) */
bool options_selects(const struct options *o, const char *suite, const char *name,
		     bool is_selftest);

/* The selection as the report's "selection:" line, which the host tools
 * read to compare only what was run (tools/ktap-report.py compare):
 * "suites = rdpmc,privilege; tests = none; exclude = none; selftest = 0";
 * suites and tests both none select every test. */
void options_describe_selection(const struct options *o, char *buf, size_t size);

#endif
