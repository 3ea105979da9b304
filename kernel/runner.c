/* SPDX-License-Identifier: MIT */
/*
 * The runner. Tests register themselves in the linker section
 * "pmutest_tests" (kernel/test.h); the runner groups them by suite in source
 * order (file, then line; the cpuid suite first, selftest last), runs each
 * under arch_run_guarded() so that an exception or a hang fails that test
 * only, resets the PMU between tests, and writes one nested KTAP block per
 * suite.
 *
 * Several CPUs: the whole selection runs on each selected CPU in turn, on
 * that CPU (arch_run_on_cpu) and with its own capability record (cpus.h).
 * Each suite is then one top-level KTAP test per CPU, named "suite@cpuN"
 * (one CPU: plain "suite", as before), so that Linux's KTAP parser reads an
 * ordinary two-level log and tools find the CPU in the suite's name. A CPU
 * that stops answering is reported on the test it was running (TIMEOUT); the
 * rest of its tests are not run and fail with the reason; the other CPUs go
 * on. With compact = 1 a CPU's test or suite that ended exactly as on the
 * first CPU of its PMU configuration is written as one line (compact.h).
 */
#include "runner.h"

#include "arch.h"
#include "compact.h"
#include "cpus.h"
#include "precondition.h"
#include "kstring.h"
#include "ktap.h"
#include "pmu.h"
#include "requires.h"
#include "runner_internal.h"
#include "screen.h"
#include "timing.h"
#include "trace.h"

#include "rules.h"

extern const struct test_desc __start_pmutest_tests[];
extern const struct test_desc __stop_pmutest_tests[];

#define MAX_SUITES 64
#define MAX_TESTS  1024

/*
 * The registered tests in source order (file, then line). The linker keeps
 * files in link order, but a compiler may emit one file's descriptors in any
 * order (GCC reverses them), so the runner sorts once.
 */
static const struct test_desc *sorted[MAX_TESTS];
static unsigned n_sorted;

static bool before(const struct test_desc *a, const struct test_desc *b)
{
	/* One file's descriptors share its __FILE__ literal: equal pointers
	 * need no string compare (the sort's cost under a slow hypervisor). */
	int c = a->file == b->file ? 0 : kstrcmp(a->file, b->file);
	return c < 0 || (c == 0 && a->line < b->line);
}

static void sort_tests(void)
{
	if (n_sorted)
		return;
	for (const struct test_desc *d = __start_pmutest_tests; d < __stop_pmutest_tests; d++) {
		if (n_sorted == MAX_TESTS) {
			ktap_diag(&g_ktap, "more than %d tests registered: the rest are ignored",
				  MAX_TESTS);
			break;
		}
		unsigned i = n_sorted++;
		while (i > 0 && before(d, sorted[i - 1])) {
			sorted[i] = sorted[i - 1];
			i--;
		}
		sorted[i] = d;
	}
}

#define for_each_test(d)                                                                           \
	for (unsigned i_ = (sort_tests(), 0); i_ < n_sorted && ((d) = sorted[i_], 1); i_++)

/* Suite names compared: most differ in the first byte, and one file's
 * tests share its literal. */
static bool same_suite(const char *a, const char *b)
{
	return a == b || (a[0] == b[0] && !kstrcmp(a, b));
}

static bool selected(const struct options *o, const struct test_desc *d)
{
	return options_selects(o, d->suite, d->name, d->flags & TEST_SELFTEST);
}

/* The suites that run before the others, in this order: the capability
 * report, then the counting preconditions (kernel/precondition.h) that the
 * later suites' checks point at. */
static const char *const first_suites[] = {"cpuid", "counters"};

/* Suites in the order of their first test (source order), except that
 * first_suites come first and the harness self-tests last. */
static unsigned list_suites(const struct options *o, const char **suites)
{
	unsigned n = 0, placed = 0;

	const struct test_desc *d;
	for_each_test(d) {
		if (!selected(o, d))
			continue;
		bool seen = false;
		for (unsigned i = 0; i < n && !seen; i++)
			seen = same_suite(suites[i], d->suite);
		if (!seen && n < MAX_SUITES)
			suites[n++] = d->suite;
	}
	for (unsigned f = 0; f < ARRAY_SIZE(first_suites); f++) {
		for (unsigned i = placed; i < n; i++) {
			if (kstrcmp(suites[i], first_suites[f]))
				continue;
			const char *s = suites[i];
			for (unsigned j = i; j > placed; j--)
				suites[j] = suites[j - 1];
			suites[placed++] = s;
			break;
		}
	}
	for (unsigned i = 0; i + 1 < n; i++) {
		if (!kstrcmp(suites[i], "selftest")) {
			const char *s = suites[i];
			for (unsigned j = i; j + 1 < n; j++)
				suites[j] = suites[j + 1];
			suites[n - 1] = s;
			break;
		}
	}
	return n;
}

unsigned runner_count_suites(const struct options *o)
{
	const char *suites[MAX_SUITES];
	return list_suites(o, suites);
}

/* Appends "name" to a ", "-separated list in buf, once. */
static void add_name(char *buf, size_t size, const char *name)
{
	size_t n = kstrlen(buf);
	ksnprintf(buf + n, size - n, "%s%s", n ? ", " : "", name);
}

/* Is d the first registered test of its suite? */
static bool first_of_suite(const struct test_desc *d)
{
	const struct test_desc *e;
	for_each_test(e) {
		if (e == d)
			return true;
		if (!kstrcmp(e->suite, d->suite))
			return false;
	}
	return false;
}

static bool suite_exists(const char *name)
{
	const struct test_desc *d;
	for_each_test(d)
		if (!kstrcmp(d->suite, name))
			return true;
	return false;
}

/* Every `together` row that excused a failure of this test saw all its
 * checks on the test fail; a row that did not excuses nothing (said). */
static bool known_hits_complete(struct t *t)
{
	struct known_seen seen[T_MAX_KNOWN_HITS];
	bool ok = true;

	for (unsigned i = 0; i < t->n_known_hits; i++)
		seen[i] = t->known_hits[i].seen;
	for (unsigned i = 0; i < t->n_known_hits; i++) {
		const struct known_deviation *k = t->known_hits[i].row;
		bool dup = false;
		for (unsigned j = 0; j < i; j++)
			dup |= t->known_hits[j].row == k;
		if (dup ||
		    (!(k->together && t->known_hits_overflow) &&
		     known_together_met(k, t->desc->suite, t->desc->name, seen, t->n_known_hits)))
			continue;
		ktap_diag(t->w,
			  "known: %s not excused: its source describes all of its checks on this "
			  "test failing at once on the same subject, and only some did there "
			  "(another deviation)",
			  k->id);
		ok = false;
	}
	return ok;
}

/* One error for an unknown name: the suites that exist, or for an unknown
 * test of a known suite, that suite's tests. */
static void unknown_name(const char *list, const char *name, options_error_fn err, void *ctx)
{
	char known[640] = "", msg[800], suite[OPT_NAME_LEN];
	const struct test_desc *d;
	size_t sn = 0;

	while (name[sn] && name[sn] != '.')
		sn++;
	kstrlcpy(suite, name, sn + 1 < sizeof(suite) ? sn + 1 : sizeof(suite));
	bool in_suite = name[sn] == '.' && suite_exists(suite);
	for_each_test(d) {
		if (in_suite && !kstrcmp(d->suite, suite))
			add_name(known, sizeof(known), d->name);
		else if (!in_suite && first_of_suite(d))
			add_name(known, sizeof(known), d->suite);
	}
	ksnprintf(msg, sizeof(msg), "'%s': no %s named '%s' (%s: %s)", list,
		  in_suite ? "test" : "suite", name, in_suite ? suite : "suites", known);
	err(ctx, msg);
}

/* Is name "suite.test" of d? Compared in place: a formatted copy per test
 * was most of reading the options under a slow hypervisor. */
static bool is_full_name(const struct test_desc *d, const char *name)
{
	size_t n = kstrlen(d->suite);
	return !kstrncmp(d->suite, name, n) && name[n] == '.' && !kstrcmp(d->name, name + n + 1);
}

unsigned runner_check_names(const struct options *o, options_error_fn err, void *ctx)
{
	static const struct {
		const char *key;
		size_t offset;
		bool tests_too; /* suite.test allowed, not only suite names */
	} lists[] = {
	    {"suites", __builtin_offsetof(struct options, suites), false},
	    {"tests", __builtin_offsetof(struct options, tests), true},
	    {"exclude", __builtin_offsetof(struct options, exclude), true},
	};
	unsigned bad = 0;

	for (unsigned l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		const struct name_list *nl =
		    (const struct name_list *)((const char *)o + lists[l].offset);
		for (unsigned i = 0; i < nl->count; i++) {
			const char *name = nl->names[i];
			bool found = false;
			const struct test_desc *d;
			for_each_test(d)
				found |= !kstrcmp(d->suite, name) ||
					 (lists[l].tests_too && is_full_name(d, name));
			if (!found) {
				bad++;
				if (err)
					unknown_name(lists[l].key, name, err, ctx);
			}
		}
	}
	return bad;
}

/* What an emergency summary needs: the test under way and the totals of the
 * suites finished plus the one under way. */
static const struct test_desc *live_test;
static struct run_totals live_done, *live_suite;

static void totals_add(struct run_totals *to, const struct run_totals *from)
{
	for (unsigned r = 0; r < KTAP_RESULTS; r++)
		to->by_result[r] += from->by_result[r];
	to->inferred += from->inferred;
	to->checks += from->checks;
	to->distinct_checks += from->distinct_checks;
}

const char *runner_current_suite(void)
{
	return live_test ? live_test->suite : NULL;
}

const struct test_desc *runner_current_test(void)
{
	return live_test;
}

void kernel_emergency_summary(const char *why)
{
	compact_flush(); /* a suite held back for comparison goes out first */
	struct run_totals t = live_done;
	if (live_suite)
		totals_add(&t, live_suite);
	kprintf("# run ended early: %s\n", why);
	if (live_test)
		kprintf("# the test under way was %s.%s (%s:%d)\n", live_test->suite,
			live_test->name, live_test->file, live_test->line);
	kprintf("# Totals so far: pass:%u fail:%u skip:%u timeouts:%u exceptions:%u\n", t.pass,
		run_totals_failed(&t), t.skip, t.timeout, t.error);
}

static void run_fn(void *arg)
{
	struct t *t = arg;
	uint64_t t0 = timing_now();
	trace_begin(t->trace >= 2, t->trace_from);
	t->desc->fn(t);
	trace_end();
	timing_add(TIME_BODY, t0);
}

/* The CPU the suites run on now. */
static unsigned run_cpu;

/* Whatever the test did, the next one starts from a clean PMU (on the CPU
 * the test ran on: the PMU is per logical processor). */
static void reset_fn(void *arg)
{
	(void)arg;
	arch_set_pmi_handler(NULL);
	arch_set_nmi_handler(NULL);
	pmu_reset_all();
	arch_msr_keep();	   /* the clean state stays: the next test starts from it */
	arch_pmu_sources_forget(); /* the LVT's NMI mode and vectors were this test's */
}

static void report_exception(struct ktap_writer *w, const struct arch_exception *ex)
{
	if (ex->vector == ARCH_TIMEOUT)
		return;
	char err[32] = "", actual[96];
	if (ex->has_error_code)
		ksnprintf(err, sizeof(err), ", error code %#x", ex->error_code);
	ksnprintf(actual, sizeof(actual), "%s at RIP %#llx%s", x86_vector_name(ex->vector),
		  (unsigned long long)ex->rip, err);
	screen_failure("unexpected exception; the test was abandoned",
		       "no exception outside a probe", actual,
		       "the harness: the serial log has the details");
	ktap_diag(w, "unexpected exception %s (vector %d) at RIP %#llx, CPL %d%s",
		  x86_vector_name(ex->vector), ex->vector, (unsigned long long)ex->rip, ex->cpl,
		  err);
	if (ex->vector == X86_VEC_PF)
		ktap_diag(w, "  CR2 = %#llx (the address that faulted)",
			  (unsigned long long)ex->cr2);
	ktap_diag(w, "  the test was abandoned there; the environment was restored");
}

void platform_events_text(const struct arch_platform_events *e, char *buf, size_t size)
{
	ksnprintf(buf, size,
		  "%u stray NMI, %u unexpected interrupt (last vector %#x), %u machine check "
		  "(bank %u, MCi_STATUS %#llx)",
		  e->nmi, e->irq, e->last_vector, e->mce, e->mce_bank,
		  (unsigned long long)e->mce_status);
}

/* The evidence of the test's SMI re-measures: each window's first value
 * beside the re-measure that stands (a failed check is never retried; an
 * SMI inside the window can legally add SMM's counts, SDM Vol. 3B 18.4.1,
 * so the window is measured again, and the reader sees both). */
static void report_smi(struct ktap_writer *w, unsigned windows)
{
	struct pmu_smi_log log;

	pmu_smi_log_take(&log);
	if (!windows)
		return;
	ktap_diag(w,
		  "smi: %u counting window(s) of this test had an SMI inside them (MSR_SMI_COUNT "
		  "moved between the enabling and the disabling WRMSR) and were measured once "
		  "more",
		  windows);
	for (unsigned i = 0; i < log.n; i++) {
		const struct pmu_smi_window *s = &log.w[i];
		ktap_diag(w,
			  "smi: " COUNTER_FMT ": first window %llu (MSR_SMI_COUNT %llu -> %llu), "
			  "re-measure %llu stands (FREEZE_WHILE_SMM %s)",
			  COUNTER_ARG(s->c), (unsigned long long)s->first,
			  (unsigned long long)s->smi_before, (unsigned long long)s->smi_after,
			  (unsigned long long)s->again,
			  s->frozen ? "set: the two must agree" : "clear: SMM may count");
	}
	if (log.windows > log.n)
		ktap_diag(w, "smi: %u more re-measured window(s) not shown", log.windows - log.n);
}

/* The test's CPU's events since *since (then *since is now), in *d;
 * platform events reported. */
static void platform_events_since(struct ktap_writer *w, struct arch_platform_events *since,
				  struct arch_platform_events *d)
{
	struct arch_platform_events now;
	char text[192];

	arch_platform_events(run_cpu, &now);
	*d = now;
	d->nmi -= since->nmi;
	d->irq -= since->irq;
	d->mce -= since->mce;
	d->pmu -= since->pmu;
	*since = now;
	if (!d->nmi && !d->irq && !d->mce)
		return;
	platform_events_text(d, text, sizeof(text));
	ktap_diag(w, "platform events during the test: %s, on cpu %u", text, run_cpu);
}

/*
 * A retry is for an ending that a platform event on the test's CPU explains,
 * and the event is named (*why): an exception that is the machine check
 * itself; a timeout only where the event can have lost the wake-up the test
 * waited for: a stray NMI (while an NMI is handled further NMIs are blocked
 * and at most one is held pending, SDM Vol. 3A 6.7.1: the test's own NMI can
 * be the one dropped) or a machine check (the hardware reported an error
 * with the wake-up in flight). A stray maskable interrupt explains nothing:
 * the local APIC holds a request per vector (SDM Vol. 3A 11.8.4), so one at
 * another vector loses none, and one at the PMU's vector is the PMU's, not a
 * platform event (include/arch.h). Never for a failed check: a deviation
 * that strikes only sometimes must not pass on a second try.
 */
static bool explained_by_events(enum ktap_result r, const struct t *t,
				const struct arch_exception *ex,
				const struct arch_platform_events *d, char *why, size_t n)
{
	if (t->failures)
		return false;
	if (d->mce && ((r == KTAP_ERROR && ex->vector == X86_VEC_MC) || r == KTAP_TIMEOUT)) {
		ksnprintf(why, n, "%u machine check(s) (bank %u, MCi_STATUS %#llx)", d->mce,
			  d->mce_bank, (unsigned long long)d->mce_status);
		return true;
	}
	if (r == KTAP_TIMEOUT && d->nmi) {
		ksnprintf(why, n,
			  "%u stray NMI(s) (NMIs are blocked while one is handled, one held "
			  "pending: the NMI the test waited for can be lost)",
			  d->nmi);
		return true;
	}
	return false;
}

/* A test whose requirements this CPU lacks: SKIP, naming what is missing. */
static enum ktap_result skip_missing(struct ktap_writer *w, unsigned number,
				     const struct test_desc *d, const char *missing, uint64_t t0)
{
	char why[192];

	ksnprintf(why, sizeof(why), "missing %s", missing);
	ktap_result(w, number, d->name, KTAP_SKIP, why);
	screen_test_end(KTAP_SKIP);
	timing_count(TIME_SKIP);
	timing_add(TIME_SKIP, t0);
	return KTAP_SKIP;
}

/* A fresh test context for one run of d. */
static void t_start(struct t *t, const struct options *o, const struct test_desc *d,
		    struct ktap_writer *w)
{
	kmemset(t, 0, sizeof(*t));
	t->desc = d;
	t->w = w;
	t->verbose = o->verbose;
	t->strict = o->strict;
	t->known = o->known;
	t->trace = o->trace;
	t->trace_from = o->trace_from;
	t->host_kernel = o->host_kernel;
}

/* The test's body under the guard on run_cpu: how it ended, its exception
 * in ex, and in *state_restored what the guard put back (NULL: nothing);
 * then its trace log and the windows an SMI struck. t0: when the test's
 * accounting began. */
static enum arch_guard_result run_body(struct t *t, uint32_t timeout, struct arch_exception *ex,
				       const char **state_restored, uint64_t t0)
{
	struct ktap_writer *w = t->w;

	live_test = t->desc;
	unsigned smi_before = pmu_smi_windows();
	struct pmu_smi_log stale; /* windows outside any test's */
	pmu_smi_log_take(&stale);
	timing_count(TIME_BODY);
	timing_add(TIME_RESULT, t0);
	t0 = timing_now();
	enum arch_guard_result rc = arch_run_on_cpu(run_cpu, run_fn, t, timeout, ex);
	timing_add(TIME_GUARD, t0);
	/* What the guard put back, kept before the PMU reset's own guarded run
	 * writes the arch's buffer again. */
	static char restored[160];
	*state_restored = NULL;
	if (ex->state_restored) {
		kstrlcpy(restored, ex->state_restored, sizeof(restored));
		*state_restored = restored;
	}
	live_test = NULL;
	trace_end(); /* also when the test was abandoned */
	if (t->trace >= 2) {
		ktap_diag(w, "trace log: the test's accesses from number %u", t->trace_from);
		trace_print_log();
	}
	report_smi(w, pmu_smi_windows() - smi_before);
	return rc;
}

/* The PMU reset after the test, on its CPU unless that CPU is gone. */
static void reset_after(enum arch_guard_result rc, uint32_t timeout)
{
	uint64_t t0 = timing_now();

	if (rc != ARCH_RUN_CPU_LOST && rc != ARCH_RUN_CPU_OFFLINE) {
		struct arch_exception rex;
		if (arch_run_on_cpu(run_cpu, reset_fn, NULL, timeout, &rex) != ARCH_GUARD_RETURNED)
			ktap_diag(&g_ktap, "cpu %u: resetting the PMU after the test failed (%s)",
				  run_cpu, x86_vector_name(rex.vector));
	}
	timing_add(TIME_RESET, t0);
}

/* The test's checks the platform makes after it: the PMU's own NMIs and
 * interrupts that no handler took (include/arch.h: a PMI the test's
 * overflows did not ask for, or one that came after the test removed its
 * handler, is the test's failure), and counters frozen in SMM (a window an
 * SMI struck equals its re-measure). The events since *since in *ev (then
 * *since is now). */
static void check_after(struct t *t, struct arch_platform_events *since,
			struct arch_platform_events *ev)
{
	platform_events_since(t->w, since, ev);
	if (ev->pmu)
		expect_eq(t, ev->pmu, 0, RULE_PMI_DELIVER,
			  "NMIs / interrupts from the PMU (LVT in NMI mode, GLOBAL_STATUS overflow "
			  "bits, the LVT's vector) on cpu %u that no handler took",
			  run_cpu);
	struct pmu_smi_frozen smi;
	pmu_smi_frozen_take(&smi);
	if (smi.differ)
		expect_eq(t, smi.first, smi.again, RULE_SMM_FROZEN,
			  COUNTER_FMT " in a counting window an SMI struck with "
				      "IA32_DEBUGCTL.FREEZE_WHILE_SMM set, against its re-measure "
				      "(%u of %u such windows differ)",
			  COUNTER_ARG(smi.c), smi.differ, smi.windows);
}

/* The verdict of one run from how it ended and what it checked, with its
 * diagnostics; *text is the result line's comment (NULL for none). */
static enum ktap_result verdict(struct t *t, enum arch_guard_result rc,
				const struct arch_exception *ex, const char *state_restored,
				uint32_t timeout, const char **text)
{
	struct ktap_writer *w = t->w;
	static char known_text[320], inferred_text[160];

	*text = NULL;
	if (state_restored)
		ktap_diag(w, "the test left machine state changed: %s (put back by the harness)",
			  state_restored);
	if (rc == ARCH_RUN_CPU_LOST) {
		ktap_diag(w,
			  "cpu %u did not come back within %u ms and a grace period: it was "
			  "stopped with INIT and runs nothing more",
			  run_cpu, timeout);
		return KTAP_TIMEOUT;
	}
	if (rc == ARCH_RUN_CPU_OFFLINE) {
		ktap_diag(w, "not run: cpu %u is %s", run_cpu,
			  arch_cpu_state_name(arch_cpu_state(run_cpu)));
		return KTAP_FAIL;
	}
	if (rc == ARCH_GUARD_TIMEOUT) {
		ktap_diag(w, "watchdog: no result after %u ms; the test was abandoned", timeout);
		screen_failure("watchdog: the test was abandoned", "a result within the timeout",
			       "no result", "the harness (timeout_ms)");
		return KTAP_TIMEOUT;
	}
	if (rc == ARCH_GUARD_EXCEPTION) {
		report_exception(w, ex);
		return KTAP_ERROR;
	}
	if (t->failures && t->failures == t->known_failures && !state_restored &&
	    known_hits_complete(t)) {
		/* Every failure is a documented deviation of this machine. */
		ksnprintf(known_text, sizeof(known_text), "known deviation %s: %s",
			  t->known_last->id, t->known_last->source);
		*text = known_text;
		return KTAP_XFAIL;
	}
	if (t->failures || state_restored)
		return KTAP_FAIL;
	if (t->skipped) {
		*text = t->skip_reason;
		return KTAP_SKIP;
	}
	if (t->checks == 0) {
		/* A test that checked nothing has shown nothing, neither a pass
		 * nor a failure: there was nothing on this CPU for it to check
		 * (e.g. no hole in a bitmap). */
		*text = "the test ran no check: nothing this CPU enumerates applies to it";
		return KTAP_SKIP;
	}
	if (t->inferred_deviations) {
		/* Only checks of inferred rules failed (strict=0 counts them
		 * apart): not a failure, not a plain pass either. */
		ksnprintf(inferred_text, sizeof(inferred_text),
			  "%u check(s) of an inferred rule did not hold (strict=1 fails them)",
			  t->inferred_deviations);
		*text = inferred_text;
		return KTAP_INFERRED;
	}
	return KTAP_PASS;
}

/* Runs one test and writes its result line; returns its verdict. A test that
 * ended in an exception or a timeout a platform event explains is run once
 * more (explained_by_events), and the second run's verdict stands. */
static enum ktap_result run_one(const struct options *o, const struct test_desc *d, unsigned number,
				struct run_totals *suite)
{
	struct ktap_writer *w = &g_ktap;
	uint64_t t0 = timing_now();
	const char *missing = requires_missing(&g_caps, d->requires);

	screen_test_begin(d->name);
	if (missing)
		return skip_missing(w, number, d, missing, t0);

	struct arch_platform_events events, ev;
	static struct t t; /* static: big, and the guarded call may unwind */
	uint32_t timeout = d->timeout_ms ? d->timeout_ms : o->timeout_ms;
	enum ktap_result r;
	const char *text;

	arch_platform_events(run_cpu, &events);
	for (bool retried = false;; retried = true) {
		struct arch_exception ex;
		const char *state_restored;

		t_start(&t, o, d, w);
		enum arch_guard_result rc = run_body(&t, timeout, &ex, &state_restored, t0);
		reset_after(rc, timeout);
		t0 = timing_now();
		check_after(&t, &events, &ev);
		suite->checks += t.checks;
		suite->distinct_checks += t.n_sites;
		suite->inferred += t.inferred_deviations;
		if (t.failures > T_MAX_FAIL_DIAGS)
			ktap_diag(w, "%u failed checks in all", t.failures);
		r = verdict(&t, rc, &ex, state_restored, timeout, &text);
		if (o->verbose >= 1 && t.checks && r != KTAP_SKIP)
			ktap_diag(w, "%llu checks (%u distinct)", t.checks, t.n_sites);
		char why[192];
		if (retried || !explained_by_events(r, &t, &ex, &ev, why, sizeof(why))) {
			if (retried)
				ktap_diag(w, "the retry's verdict stands");
			break;
		}
		ktap_diag(w,
			  "%s explained by the platform events on cpu %u: %s; the test is retried "
			  "once",
			  r == KTAP_ERROR ? "the exception is" : "the timeout is", run_cpu, why);
	}
	ktap_result(w, number, d->name, r, text);
	screen_test_end(r);
	timing_add(TIME_RESULT, t0);
	return r;
}

/* The selected tests of one suite, in source order. */
struct suite_plan {
	const struct test_desc *const *tests;
	unsigned count;
};

static void run_suite(const struct options *o, const struct suite_plan *sp, const char *label,
		      unsigned number, struct run_totals *tot)
{
	struct ktap_writer *w = &g_ktap;
	unsigned planned = sp->count;
	struct run_totals st = {0};

	compact_suite_begin(w);
	ktap_begin_subtest(w, label, planned);
	screen_suite_begin(label, number);
	live_suite = &st;
	uint64_t t0 = arch_rdtsc();
	for (unsigned n = 0; n < sp->count; n++) {
		const struct test_desc *d = sp->tests[n];
		compact_test_begin();
		enum ktap_result r = run_one(o, d, n + 1, &st);
		st.by_result[r]++;
		compact_test_end((unsigned)(d - __start_pmutest_tests), n + 1, d->name, r);
	}
	uint64_t cycles = arch_rdtsc() - t0;
	ktap_diag(w, "%s: pass:%u fail:%u skip:%u total:%u", label, st.pass, run_totals_failed(&st),
		  st.skip, planned);
	if (st.xfail)
		ktap_diag(w, "%s: %u known deviation(s) (# XFAIL): not counted as failures", label,
			  st.xfail);
	if (st.inferred_tests)
		ktap_diag(w, "%s: %u test(s) passed but for an inferred rule (# INFERRED)", label,
			  st.inferred_tests);
	ktap_diag(w, "%s: %llu distinct checks, %llu evaluated, %llu TSC cycles", label,
		  st.distinct_checks, st.checks, (unsigned long long)cycles);
	ktap_end_subtest(w);

	enum ktap_result r = KTAP_PASS;
	const char *text = NULL;
	char inferred_text[64];
	if (run_totals_failed(&st)) {
		r = KTAP_FAIL;
	} else if (st.pass + st.xfail + st.inferred_tests == 0) {
		r = KTAP_SKIP;
		text = "no test of this suite applies";
	} else if (st.inferred_tests) {
		r = KTAP_INFERRED;
		ksnprintf(inferred_text, sizeof(inferred_text), "%u test(s) with an inferred rule",
			  st.inferred_tests);
		text = inferred_text;
	}
	ktap_result(w, number, label, r, text);
	compact_suite_end(w, number, label, r);

	live_suite = NULL;
	totals_add(tot, &st);
	live_done = *tot;
}

void runner_run(const struct options *o, const unsigned *cpus, unsigned n_cpus,
		struct run_totals *tot)
{
	const char *suites[MAX_SUITES];
	unsigned n = list_suites(o, suites), number = 0;
	/* The screen keeps the names it is given: one buffer per suite (on
	 * several CPUs a suite's row names the CPU that ran it last). */
	static char labels[MAX_SUITES][OPT_NAME_LEN + 16];

	/* The selection grouped by suite once, not again for each suite of each
	 * CPU: under a slow hypervisor every instruction of the harness counts
	 * */
	static const struct test_desc *plan[MAX_TESTS];
	static struct suite_plan plans[MAX_SUITES];
	unsigned tests = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct test_desc *d;
		plans[i].tests = plan + tests;
		for_each_test(d)
			if (same_suite(d->suite, suites[i]) && selected(o, d))
				plan[tests++] = d;
		plans[i].count = (unsigned)(plan + tests - plans[i].tests);
	}

	kmemset(tot, 0, sizeof(*tot));
	precondition_reset(); /* this run's findings only */
	screen_run_begin(n * n_cpus, tests * n_cpus);
	g_ktap.ditto = o->compact;
	if (o->compact)
		ktap_diag(&g_ktap, COMPACT_HEADER);
	for (unsigned c = 0; c < n_cpus; c++) {
		struct run_totals before = *tot;

		run_cpu = cpus[c];
		cpus_use(run_cpu);
		compact_cpu_begin(o, run_cpu, cpus_config_of(run_cpu));
		screen_set_cpu(run_cpu);
		/* The suites start from a PMU pmutest set, not from what the
		 * firmware left (kernel/fw_state.c reported that already). */
		struct arch_exception rex;
		if (arch_run_on_cpu(run_cpu, reset_fn, NULL, o->timeout_ms, &rex) !=
		    ARCH_GUARD_RETURNED)
			ktap_diag(&g_ktap, "cpu %u: the PMU reset before the suites failed (%s)",
				  run_cpu, x86_vector_name(rex.vector));
		for (unsigned i = 0; i < n; i++) {
			char *label = labels[i];
			if (n_cpus > 1)
				ksnprintf(label, sizeof(labels[i]), "%s@cpu%u", suites[i], run_cpu);
			else
				kstrlcpy(label, suites[i], sizeof(labels[i]));
			run_suite(o, &plans[i], label, ++number, tot);
		}
		if (n_cpus > 1)
			ktap_diag(&g_ktap, "cpu %u: pass:%u fail:%u skip:%u", run_cpu,
				  tot->pass - before.pass,
				  run_totals_failed(tot) - run_totals_failed(&before),
				  tot->skip - before.skip);
	}
	run_cpu = arch_cpu_boot();
	cpus_use(run_cpu);
}
