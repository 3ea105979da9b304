/* SPDX-License-Identifier: MIT */
/*
 * Declaring tests and stating checks.
 *
 * A test is declared once, in its own file, with TEST(); it lands in the
 * linker section "pmutest_tests" and the runner finds it there, so there is
 * no central list to edit. Suites are the first argument: tests of one suite
 * run together, in the order of their files and lines.
 *
 *     TEST(rdpmc, fixed_type_reads_supported, REQ_ARCH_PMU_V2)
 *     {
 *             ...
 *             expect_eq(t, got, want, SDM_RULE_X, "RDPMC ECX=%#llx", ecx);
 *     }
 *
 * Every expect_*() is one check: it counts, and on failure it prints what
 * was expected, what was seen and the SDM rule, as KTAP diagnostics. A value
 * a test prints is C hex (%#llx); a name the SDM writes in its own notation
 * stays so (CPUID.0AH:EBX[1], IA32_PMC0 (C1H), event 3CH).
 */
#ifndef PMUTEST_TEST_H
#define PMUTEST_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "caps.h"
#include "observed.h"
#include "requires.h"

struct t; /* the running test's context, owned by the runner */

enum test_flags {
	TEST_SELFTEST = 1u << 0, /* harness self-test: only with selftest=1 */
};

struct test_desc {
	const char *suite;
	const char *name;
	uint64_t requires; /* REQ_* bits, all must hold */
	uint32_t flags;
	uint32_t timeout_ms; /* 0: the runner's default */
	void (*fn)(struct t *t);
	const char *file;
	int line;
};

#define TEST_SECTION __attribute__((used, section("pmutest_tests"), aligned(8)))

#define TEST_FULL(suite_, name_, reqs_, flags_, timeout_)                                          \
	static void test_##suite_##__##name_(struct t *t);                                         \
	static const struct test_desc desc_##suite_##__##name_ TEST_SECTION = {                    \
	    #suite_,  #name_,  (reqs_), (flags_), (timeout_), test_##suite_##__##name_,            \
	    __FILE__, __LINE__};                                                                   \
	static void test_##suite_##__##name_(struct t *t)

#define TEST(suite_, name_, reqs_) TEST_FULL(suite_, name_, reqs_, 0, 0)

/* ---- Checks ------------------------------------------------------------ */

/* Two kinds of rule rest on no manual text. A *sourced* rule was read
 * through a vendor engineer's implementation (Linux) or a peer's test
 * because the text was out of reach: it names that source and needs no
 * prefix; its departure is a failure like any other. An *inferred* rule is
 * pmutest's own inference from a more general rule: it carries this
 * prefix, and its departure fails only with strict=1; otherwise the test is
 * "ok N name # INFERRED ..." and the verdict PASS-INFERRED, never a plain
 * pass. kernel/rules.h says, rule by rule, why each is which, and
 * docs/rules.md lists them ("Sourced rules", "Inferred rules"). */
#define RULE_INFERRED "inferred, not SDM text: "

/* actual == expected */
bool expect_eq(struct t *t, uint64_t actual, uint64_t expected, const char *rule, const char *what,
	       ...) __attribute__((format(printf, 5, 6)));
/* actual != unexpected */
bool expect_ne(struct t *t, uint64_t actual, uint64_t unexpected, const char *rule,
	       const char *what, ...) __attribute__((format(printf, 5, 6)));
/* lo <= actual <= hi */
bool expect_range(struct t *t, uint64_t actual, uint64_t lo, uint64_t hi, const char *rule,
		  const char *what, ...) __attribute__((format(printf, 6, 7)));
/* A probe's result: expected vector (0 = no exception). When expecting #GP
 * the error code must be 0 too: the SDM's faults here are all #GP(0). */
bool expect_vector(struct t *t, int actual, int expected, const char *rule, const char *what, ...)
    __attribute__((format(printf, 5, 6)));
/* A condition with free-text expected/actual descriptions. */
bool expect_true(struct t *t, bool ok, const char *expected, const char *actual, const char *rule,
		 const char *what, ...) __attribute__((format(printf, 6, 7)));

/* The subject of the next check only (kernel/observed.h): what it is about,
 * printed with its failure and matched against the known-deviation rows.
 * A failure without one is never a known deviation. */
void t_subject(struct t *t, enum subject_kind kind, uint64_t id, unsigned counter);
static inline void t_subject_msr(struct t *t, uint32_t msr)
{
	t_subject(t, SUBJECT_MSR, msr, 0);
}
static inline void t_subject_rdpmc(struct t *t, uint64_t ecx)
{
	t_subject(t, SUBJECT_RDPMC, ecx, 0);
}
/* Event `event` (the event select's code) programmed on counter `counter`. */
static inline void t_subject_event(struct t *t, unsigned event, unsigned counter)
{
	t_subject(t, SUBJECT_EVENT, event, counter);
}
/* The next check's observed outcome, where the check cannot tell it
 * (expect_true()): a class, or for a check that aggregates reserved bits the
 * mask of those it found accepted (OUTCOME_BITS). */
void t_outcome(struct t *t, enum outcome_class cls);
void t_outcome_bits(struct t *t, uint64_t accepted);

/* A check that sweeps many subjects (every RDPMC type...) names each one
 * that failed, with its outcome, before the check: the check's failure is a
 * known deviation only when a row excuses every offender (at most 16). */
void t_offender(struct t *t, enum subject_kind kind, uint64_t id, enum outcome_class cls);
/* The outcome class of a probe's vector (0: OUTCOME_NO_FAULT), with the
 * error code of the last fault. */
enum outcome_class t_vector_class(int vec);

/* A probe that must not fault (setup steps): counts as a check. */
#define expect_no_fault(t, vec, rule, ...) expect_vector(t, vec, 0, rule, __VA_ARGS__)

/* ---- Test outcome and diagnostics --------------------------------------- */

/* Marks the test SKIP (unless a check failed) with the reason, usually the
 * missing CPUID bit; the test goes on (e.g. to report what it saw). */
void t_skip(struct t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Skip and stop the test (KUnit's kunit_skip): from the test function only.
 * A precondition every run of the test needs belongs in its TEST()
 * requirements instead; this is for one that depends on what it finds. */
#define t_skip_return(t, ...)                                                                      \
	do {                                                                                       \
		t_skip(t, __VA_ARGS__);                                                            \
		return;                                                                            \
	} while (0)
/* A KTAP diagnostic line inside the test. */
void t_diag(struct t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A named measurement: printed as a diagnostic and kept for the report. */
void t_measure(struct t *t, const char *name, uint64_t value, const char *unit);
/* Number of checks evaluated so far in this test. A test that ends having
 * evaluated none is a SKIP (the runner's rule): it may say why with
 * t_skip(). */
unsigned long long t_checks(const struct t *t);

/* The capability record of the machine the suite runs on. */
static inline const struct caps *caps(void)
{
	return &g_caps;
}

#endif
