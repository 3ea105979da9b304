/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the counting preconditions (kernel/precondition.c): a
 * finding of counters.hold_and_count, established once, and the one failed
 * check a later test gets for needing that counter. The expected behaviour is
 * kernel/precondition.h's contract:
 *   - a counter shown to count (or not established) lets the test run;
 *   - one shown not to is a failure of the dependent test, named once per
 *     test and counter, never a skip;
 *   - that failure is a known deviation (the test's XFAIL) only where a
 *     known row excused the finding itself, and only for the need (holding
 *     or counting) the row excused.
 *
 * precondition.c is linked with the real KTAP writer; the checks it makes
 * (kernel/check.c's expect_*()) are stood in for here: a failed check is
 * counted, and a failed check of the rule `row_rule` names is excused by a
 * known row exactly as check.c's count_known() records one (known_failures,
 * known_last). The runner's verdict (runner.c) is XFAIL when every failure
 * of a test is known, which is what the tests below assert on the counts.
 */
#include <stdarg.h>

#include "precondition.h"
#include "runner_internal.h"
#include "unit.h"

static char out[16384];
static size_t out_len;
static unsigned cpu_now;

static void sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	if (out_len + n >= sizeof(out))
		n = sizeof(out) - out_len - 1;
	memcpy(out + out_len, s, n);
	out_len += n;
	out[out_len] = 0;
}

static struct ktap_writer writer = {.sink = sink};

/* The row the stand-in checks report as excusing a failure of the rule
 * row_rule (NULL: no row matches). */
static const struct known_deviation fake_row = {
    .id = "unit-row",
    .what = "a row of this test",
    .source = "testing/unit/test_precondition.c",
};
static const char *row_rule;

unsigned arch_cpu_current(void)
{
	return cpu_now;
}

/* kernel/pmu.c's counter names (it needs the machine; the names are the
 * SDM's MSR names, Vol. 4 Table 2-2). */
const char *counter_prefix(struct counter c)
{
	return c.kind == COUNTER_GP ? "IA32_PMC" : "IA32_FIXED_CTR";
}

void t_count_check(struct t *t, const void *site)
{
	(void)site;
	t->checks++;
}

/* check.c's outcome of one check: counted, a failure known when the row
 * matches its rule. */
static bool judged(struct t *t, bool ok, const char *rule)
{
	t->checks++;
	if (ok)
		return true;
	t->failures++;
	if (row_rule && rule && !strcmp(rule, row_rule)) {
		t->known_failures++;
		t->known_last = &fake_row;
	}
	return false;
}

bool expect_eq(struct t *t, uint64_t actual, uint64_t expected, const char *rule, const char *what,
	       ...)
{
	(void)what;
	return judged(t, actual == expected, rule);
}

bool expect_ne(struct t *t, uint64_t actual, uint64_t unexpected, const char *rule,
	       const char *what, ...)
{
	(void)what;
	return judged(t, actual != unexpected, rule);
}

bool expect_vector(struct t *t, int vec, int want, const char *rule, const char *what, ...)
{
	(void)what;
	return judged(t, vec == want, rule);
}

static struct t new_test(void)
{
	out_len = 0;
	out[0] = 0;
	return (struct t){.w = &writer};
}

/* What counters.hold_and_count saw on one counter. */
static struct precondition_evidence seen(bool holds, bool counts)
{
	return (struct precondition_evidence){
	    .name = "PerfCtr1 (C001_0005H)",
	    .msr = 0xc0010005,
	    .wrote = 0x12345,
	    .read = holds ? 0x12345 : 0,
	    .window = true,
	    .event = "PMCx0C0 retired instructions",
	    .cfg = 0x300c0,
	    .iters = 1000,
	    .count = counts ? 5000 : 0,
	};
}

#define HOLD_RULE  "hold rule"
#define COUNT_RULE "count rule"

/* counters.hold_and_count on one counter, a row excusing the failures of
 * the rule `excused` (NULL: none); returns that test's known failures. */
static unsigned establish(enum precondition_kind k, unsigned idx, bool holds, bool counts,
			  const char *excused)
{
	struct t t = new_test();
	struct precondition_evidence e = seen(holds, counts);

	row_rule = excused;
	precondition_establish(&t, k, idx, &e, HOLD_RULE, COUNT_RULE);
	row_rule = NULL;
	return t.known_failures;
}

static size_t occurrences(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_working_and_unknown_counters_run(void)
{
	precondition_reset();
	establish(PRE_AMD, 0, true, true, NULL);
	struct t t = new_test();
	UNIT_TRUE(t_amd_counter_counts(&t, 0), "a counter shown to count runs its windows");
	UNIT_TRUE(t_amd_counter_holds(&t, 0), "a counter shown to hold runs its writes");
	UNIT_TRUE(t_amd_counter_counts(&t, 2), "a counter not established judges for itself");
	UNIT_EQ(t.failures, 0, "no failure for a working or unestablished counter");
	UNIT_EQ(out_len, 0, "nothing printed for them");
	cpu_now = PRECONDITION_MAX_CPUS;
	UNIT_TRUE(t_amd_counter_counts(&t, 1), "a CPU beyond the kept findings judges for itself");
	cpu_now = 0;
}

static void test_dead_counter_fails_once_per_counter(void)
{
	precondition_reset();
	establish(PRE_AMD, 1, false, false, NULL);
	struct t t = new_test();
	UNIT_TRUE(!t_amd_counter_counts(&t, 1),
		  "a counter shown to count nothing stops the window");
	UNIT_TRUE(!t_amd_counter_counts(&t, 1), "... each time it is asked");
	UNIT_EQ(t.failures, 2, "each need is a failed check of the test");
	UNIT_EQ(t.known_failures, 0, "not excused without a row");
	UNIT_EQ(occurrences(out, "FAIL: PerfCtr1 needed counting; counters.hold_and_count found it "
				 "counts nothing"),
		1, "the finding is named once per test and counter");
	UNIT_EQ(occurrences(out, "known:"), 0, "no row named");
	UNIT_TRUE(!t.skipped, "never a skip");

	struct t next = new_test();
	UNIT_TRUE(!t_amd_counter_holds(&next, 1), "a counter that holds nothing stops the writes");
	UNIT_EQ(occurrences(out, "FAIL: PerfCtr1 needed holding a value; counters.hold_and_count "
				 "found it holds no written value"),
		1, "the next test names it again, for its own need");
}

static void test_holds_but_never_counts(void)
{
	precondition_reset();
	establish(PRE_GP, 1, true, false, NULL);
	struct t t = new_test();
	UNIT_TRUE(t_counter_counts(&t, GP_COUNTER(0)), "another counter is not affected");
	UNIT_TRUE(t_counter_holds(&t, GP_COUNTER(1)), "holding a value is still tried");
	UNIT_TRUE(!t_counter_counts(&t, GP_COUNTER(1)), "counting is not");
	UNIT_EQ(t.failures, 1, "one failure: the counting need");
	UNIT_TRUE(strstr(out, "FAIL: IA32_PMC1 needed counting") != NULL,
		  "an Intel counter is named by its MSR name");
}

static void test_excused_hold_is_known_for_holding_only(void)
{
	precondition_reset();
	UNIT_EQ(establish(PRE_AMD, 3, false, false, HOLD_RULE), 1,
		"the row excuses the establishing test's read-back, not its window");
	struct t t = new_test();
	UNIT_TRUE(!t_amd_counter_holds(&t, 3), "the excused finding still stops the writes");
	UNIT_EQ(t.failures, 1, "a failure of the dependent test");
	UNIT_EQ(t.known_failures, 1, "... known: the row excused the finding itself");
	UNIT_TRUE(t.known_last == &fake_row, "the row is the finding's");
	UNIT_TRUE(strstr(out, "  known:    unit-row (a row of this test): "
			      "testing/unit/test_precondition.c") != NULL,
		  "the row is named under the finding, as check.c names one");
	UNIT_EQ(t.failures == t.known_failures, 1, "every failure known: the runner's XFAIL");

	UNIT_TRUE(!t_amd_counter_counts(&t, 3), "counting nothing stops the windows");
	UNIT_EQ(t.failures, 2, "a second failure");
	UNIT_EQ(t.known_failures, 1, "not excused: the row excused holding, not counting");
}

static void test_excused_count_is_known_for_counting_only(void)
{
	precondition_reset();
	UNIT_EQ(establish(PRE_AMD, 0, true, false, COUNT_RULE), 1,
		"the row excuses the establishing test's window");
	establish(PRE_AMD, 2, true, false, NULL);
	struct t t = new_test();
	UNIT_TRUE(t_amd_counter_holds(&t, 0), "it holds: the writes run");
	UNIT_TRUE(!t_amd_counter_counts(&t, 0), "counting nothing stops the windows");
	UNIT_EQ(t.known_failures, 1, "known: the row excused counting nothing");
	UNIT_EQ(t.failures == t.known_failures, 1, "every failure known: the runner's XFAIL");

	UNIT_TRUE(!t_amd_counter_counts(&t, 2), "a dead counter the row did not excuse stops too");
	UNIT_EQ(t.failures, 2, "two failures");
	UNIT_EQ(t.known_failures, 1, "one known: the test is a plain failure, no XFAIL");
}

/* counters.hold_and_count on CPU cpu (the runner runs it there). */
static void establish_on(unsigned cpu, enum precondition_kind k, unsigned idx, bool holds,
			 bool counts, const char *excused)
{
	cpu_now = cpu;
	establish(k, idx, holds, counts, excused);
	cpu_now = 0;
}

static void test_another_cpus_finding(void)
{
	precondition_reset();
	establish_on(0, PRE_GP, 0, true, true, NULL);
	establish_on(1, PRE_GP, 0, false, false, NULL);
	establish_on(2, PRE_GP, 0, true, false, NULL);
	struct t t = new_test();
	UNIT_TRUE(t_counter_counts(&t, GP_COUNTER(0)), "this CPU's counter counts");
	UNIT_TRUE(t_cpu_counter_counts(&t, 0, GP_COUNTER(0)), "... asked by its number too");
	UNIT_TRUE(t_cpu_counter_counts(&t, 3, GP_COUNTER(0)),
		  "a CPU that has not run the establishing test judges for itself");
	UNIT_TRUE(t_cpu_counter_counts(&t, PRECONDITION_MAX_CPUS, GP_COUNTER(0)),
		  "a CPU beyond the kept findings judges for itself");
	UNIT_EQ(t.failures, 0, "no failure for them");
	UNIT_EQ(out_len, 0, "nothing printed for them");

	UNIT_TRUE(!t_cpu_counter_counts(&t, 1, GP_COUNTER(0)),
		  "another CPU's dead counter stops the step on it");
	UNIT_TRUE(!t_cpu_counter_counts(&t, 1, GP_COUNTER(0)), "... each time it is asked");
	UNIT_TRUE(t_cpu_counter_holds(&t, 2, GP_COUNTER(0)),
		  "a CPU whose counter holds runs the writes there");
	UNIT_TRUE(!t_cpu_counter_counts(&t, 2, GP_COUNTER(0)), "... but not the windows");
	UNIT_EQ(t.failures, 3, "each need is a failed check of this test");
	UNIT_EQ(occurrences(out, "FAIL: IA32_PMC0 of cpu 1 needed counting; "
				 "counters.hold_and_count found it counts nothing"),
		1, "the finding names the CPU, once per test, CPU and counter");
	UNIT_EQ(occurrences(out, "FAIL: IA32_PMC0 of cpu 2 needed counting"), 1,
		"the same counter of another CPU is named for itself");
	UNIT_TRUE(!t.skipped, "never a skip");

	cpu_now = 1;
	struct t on1 = new_test();
	UNIT_TRUE(!t_counter_counts(&on1, GP_COUNTER(0)), "on CPU 1 its own finding answers");
	UNIT_TRUE(strstr(out, "FAIL: IA32_PMC0 needed counting") != NULL,
		  "the CPU running the test is not named");
	UNIT_TRUE(t_cpu_counter_counts(&on1, 0, GP_COUNTER(0)), "CPU 0's counter counts");
	cpu_now = 0;
}

static void test_another_cpus_excused_finding(void)
{
	precondition_reset();
	establish_on(1, PRE_FIXED, 2, true, false, COUNT_RULE);
	establish_on(2, PRE_FIXED, 2, true, false, NULL);
	struct t t = new_test();
	UNIT_TRUE(!t_cpu_counter_counts(&t, 1, FIXED_COUNTER(2)),
		  "a fixed counter of another CPU that counts nothing stops the windows");
	UNIT_EQ(t.known_failures, 1, "known: the row excused that CPU's finding");
	UNIT_TRUE(strstr(out, "FAIL: IA32_FIXED_CTR2 of cpu 1 needed counting") != NULL,
		  "a fixed counter of another CPU is named with its CPU");
	UNIT_TRUE(!t_cpu_counter_counts(&t, 2, FIXED_COUNTER(2)),
		  "another CPU's finding the row did not excuse stops too");
	UNIT_EQ(t.failures, 2, "two failures");
	UNIT_EQ(t.known_failures, 1, "one known: a row excuses the CPU it was met on only");
}

static void test_many_cpus_named_again_never_hidden(void)
{
	precondition_reset();
	for (unsigned c = 1; c <= T_MAX_SAID_CPUS + 1; c++)
		establish_on(c, PRE_GP, 1, false, false, NULL);
	struct t t = new_test();
	for (unsigned c = 1; c <= T_MAX_SAID_CPUS + 1; c++)
		UNIT_TRUE(!t_cpu_counter_counts(&t, c, GP_COUNTER(1)), "each dead counter stops");
	UNIT_TRUE(!t_cpu_counter_counts(&t, T_MAX_SAID_CPUS + 1, GP_COUNTER(1)),
		  "past the CPUs remembered ...");
	UNIT_EQ(occurrences(out, "FAIL: IA32_PMC1 of cpu"), T_MAX_SAID_CPUS + 2,
		"... a finding is named again rather than not at all");
	UNIT_EQ(t.failures, T_MAX_SAID_CPUS + 2, "every need a failure");
}

int main(void)
{
	test_working_and_unknown_counters_run();
	test_dead_counter_fails_once_per_counter();
	test_holds_but_never_counts();
	test_excused_hold_is_known_for_holding_only();
	test_excused_count_is_known_for_counting_only();
	test_another_cpus_finding();
	test_another_cpus_excused_finding();
	test_many_cpus_named_again_never_hidden();
	return unit_done();
}
