/* SPDX-License-Identifier: MIT */
/*
 * The checks. Each expect_*() counts one check and, when it fails, prints
 * what was expected, what was seen and the SDM rule that decides it.
 */
#include "arch.h"
#include "bits.h"
#include "kstring.h"
#include "ktap.h"
#include "trace.h"
#include "runner_internal.h"
#include "screen.h"
#include "test.h"

void t_count_check(struct t *t, const void *site)
{
	t->checks++;
	for (unsigned i = 0; i < t->n_sites; i++) {
		if (t->sites[i] == site)
			return;
	}
	if (t->n_sites < T_MAX_DISTINCT)
		t->sites[t->n_sites++] = site;
	else
		t->sites_overflow = true;
}

/* A rule that rests on pmutest's own inference, not on SDM text. */
static bool rule_is_inferred(const char *rule)
{
	size_t n = kstrlen(RULE_INFERRED);

	return rule && !kstrncmp(rule, RULE_INFERRED, n);
}

static enum outcome_class vector_class(int vec, uint32_t err)
{
	switch (vec) {
	case 0:
		return OUTCOME_NO_FAULT;
	case X86_VEC_GP:
		return err ? OUTCOME_GP_CODE : OUTCOME_GP;
	case X86_VEC_UD:
		return OUTCOME_UD;
	default:
		return OUTCOME_FAULT;
	}
}

enum outcome_class t_vector_class(int vec)
{
	return vector_class(vec, vec ? arch_fault_error_code() : 0);
}

void t_offender(struct t *t, enum subject_kind kind, uint64_t id, enum outcome_class cls)
{
	if (t->n_offenders < T_MAX_OFFENDERS)
		t->offenders[t->n_offenders] = (struct t_offender){{kind, id, 0}, {cls, 0}};
	if (t->n_offenders <= T_MAX_OFFENDERS)
		t->n_offenders++;
}

void t_subject(struct t *t, enum subject_kind kind, uint64_t id, unsigned counter)
{
	t->subject = (struct check_subject){kind, id, counter};
}

void t_outcome(struct t *t, enum outcome_class cls)
{
	t->outcome = (struct check_outcome){cls, 0};
}

void t_outcome_bits(struct t *t, uint64_t accepted)
{
	t->outcome = (struct check_outcome){OUTCOME_BITS, accepted};
}

/* The outcome of a value check that failed: its class against what was
 * expected (lo..hi). */
static enum outcome_class value_class(uint64_t actual, uint64_t lo, uint64_t hi)
{
	if (actual == 0)
		return OUTCOME_ZERO;
	return actual < lo ? OUTCOME_BELOW : actual > hi ? OUTCOME_ABOVE : OUTCOME_EQUAL;
}

/* The lines of a failure block after its "FAIL:" line (and of an inferred
 * rule's block), each "  NAME: TEXT". With compact = 1 (the writer's ditto)
 * a TEXT equal to the same field's previous line in this test is written
 * KTAP_DITTO: a test that fails one check on eight counters says its rule
 * once. Only where the word is shorter, the text one line and short enough
 * to be remembered (FIELD_TEXT_MAX): tools/pmureport/expand.py puts every line back
 * from the test's previous line of that name, which only this file writes. */
static const char *const field_label[] = {
    [FIELD_EXPECTED] = "expected: ", [FIELD_ACTUAL] = "actual:   ",  [FIELD_RULE] = "rule:     ",
    [FIELD_OBSERVED] = "observed: ", [FIELD_HOST] = "host:     ",    [FIELD_KNOWN] = "known:    ",
    [FIELD_INFERRED] = "inferred: ", [FIELD_MACHINE] = "machine:  ",
};
_Static_assert(ARRAY_SIZE(field_label) == FIELDS, "a label per enum block_field");
_Static_assert(FIELDS <= 8 * sizeof(((struct t *)0)->fields_said), "a bit per field");

#define FIELD_TEXT_MAX 384
/* Each field's text as last printed; valid for the running test where its
 * bit of t->fields_said is set (the runner clears struct t per test). */
static char field_text[FIELDS][FIELD_TEXT_MAX];

static void field(struct t *t, enum block_field f, const char *text)
{
	unsigned bit = 1u << f;
	size_t n = kstrlen(text);
	bool repeat = t->w->ditto && (t->fields_said & bit) && n > kstrlen(KTAP_DITTO) &&
		      !kstrcmp(field_text[f], text);

	ktap_diag(t->w, "  %s%s", field_label[f], repeat ? KTAP_DITTO : text);
	if (repeat)
		return;
	t->fields_said &= ~bit;
	if (n < FIELD_TEXT_MAX && kspan_until(text, n, '\n') == n) { /* one line */
		kstrlcpy(field_text[f], text, sizeof(field_text[f]));
		t->fields_said |= bit;
	}
}

/* The known-deviation row that explains the failure, if any; prints why a
 * row that would have did not, where the host's version decided it. */
static const struct known_deviation *known_row(struct t *t, const char *rule,
					       const struct check_subject *subject,
					       const struct check_outcome *out, bool print)
{
	struct known_failure f = {t->desc->suite, t->desc->name, rule,
				  subject,	  out,		 t->host_kernel};
	struct known_verdict v = known_match(&g_caps, &f);
	char lo[24], hi[24], host[24];

	if (v.row || !v.host_row || !print)
		return v.row;
	known_format_kernel(lo, sizeof(lo), v.host_row->host_min);
	if (v.host_row->host_max)
		known_format_kernel(hi, sizeof(hi), v.host_row->host_max);
	else
		ksnprintf(hi, sizeof(hi), "now");
	char line[512];
	if (v.host_unknown) {
		ksnprintf(line, sizeof(line),
			  "not excused: %s covers host kernels %s to %s only, and the host's "
			  "version is unknown (give host_kernel = X.Y.Z in the options file, or "
			  "pmutest.host_kernel=X.Y.Z on the command line)",
			  v.host_row->id, lo, hi);
	} else {
		known_format_kernel(host, sizeof(host), t->host_kernel);
		ksnprintf(line, sizeof(line),
			  "not excused: %s covers host kernels %s to %s only; this host runs %s",
			  v.host_row->id, lo, hi, host);
	}
	field(t, FIELD_HOST, line);
	return NULL;
}

/* "rdpmc=0x10000 outcome=no-fault" for the check, or each of its
 * offenders ("; "-separated, the first 4 and how many more). */
static void format_observed(char *buf, size_t n, const struct t *t,
			    const struct check_subject *subject, const struct check_outcome *out)
{
	size_t at = 0;

	if (!t->n_offenders) {
		known_format_observed(buf, n, subject, out);
		return;
	}
	buf[0] = '\0';
	for (unsigned i = 0; i < t->n_offenders && i < 4 && at < n; i++) {
		if (i)
			at += ksnprintf(buf + at, n - at, "; ");
		if (at < n && i < T_MAX_OFFENDERS)
			known_format_observed(buf + at, n - at, &t->offenders[i].subject,
					      &t->offenders[i].outcome);
		at = kstrlen(buf);
	}
	if (t->n_offenders > 4 && at < n)
		ksnprintf(buf + at, n - at, "; %u more%s", t->n_offenders - 4,
			  t->n_offenders > T_MAX_OFFENDERS ? " (too many to excuse)" : "");
}

/* The row that excuses the failure: the check's, or one for each of its
 * offenders (then the first's); NULL if any is not excused. */
static const struct known_deviation *known_rows(struct t *t, const char *rule,
						const struct check_subject *subject,
						const struct check_outcome *out, bool print)
{
	const struct known_deviation *first = NULL;

	if (!t->n_offenders)
		return known_row(t, rule, subject, out, print);
	if (t->n_offenders > T_MAX_OFFENDERS)
		return NULL;
	for (unsigned i = 0; i < t->n_offenders; i++) {
		const struct known_deviation *k =
		    known_row(t, rule, &t->offenders[i].subject, &t->offenders[i].outcome, print);
		if (!k)
			return NULL;
		if (!first)
			first = k;
	}
	return first;
}

/* An inferred rule's deviation outside strict mode: not SDM text, so what
 * the machine did, as evidence, not a failure (the test's first
 * T_MAX_FAIL_DIAGS shown). */
static void report_inferred(struct t *t, const char *desc, const char *expected, const char *actual,
			    const char *rule)
{
	if (t->inferred_deviations > T_MAX_FAIL_DIAGS)
		return;
	ktap_diag(t->w, "inferred (not a failure; strict=1 checks it): %s", desc);
	field(t, FIELD_INFERRED, expected);
	field(t, FIELD_MACHINE, actual);
	field(t, FIELD_RULE, rule);
}

/* A shown failure's fields: what was expected, what the machine did, the
 * rule, and what the check was about and saw. */
static void print_failure(struct t *t, const char *desc, const char *expected, const char *actual,
			  const char *rule, const struct check_subject *subject,
			  const struct check_outcome *out)
{
	char obs[256];

	format_observed(obs, sizeof(obs), t, subject, out);
	ktap_diag(t->w, "FAIL: %s", desc);
	field(t, FIELD_EXPECTED, expected);
	field(t, FIELD_ACTUAL, actual);
	field(t, FIELD_RULE, rule ? rule : "(none given)");
	field(t, FIELD_OBSERVED, obs);
}

/* A failure row k excuses: counted as known, the row kept for the verdict
 * (known_hits_complete()). */
static void count_known(struct t *t, const struct known_deviation *k, const char *rule,
			const struct check_subject *subject)
{
	t->known_failures++;
	t->known_last = k;
	/* Each subject excused (the check's, or each offender's): a `together`
	 * row is met per subject (known_together_met). */
	unsigned n = t->n_offenders ? t->n_offenders : 1;
	for (unsigned i = 0; i < n; i++) {
		const struct check_subject *s = t->n_offenders ? &t->offenders[i].subject : subject;
		if (t->n_known_hits < T_MAX_KNOWN_HITS)
			t->known_hits[t->n_known_hits++] =
			    (struct known_hit){k, {rule, s->kind, s->id}};
		else
			t->known_hits_overflow = true;
	}
}

/* After a shown failure's fields: the row that excuses it (k, or NULL),
 * the accesses that led to it, the screen's line. */
static void print_failure_end(struct t *t, const struct known_deviation *k, const char *desc,
			      const char *expected, const char *actual, const char *rule)
{
	if (k) {
		char line[1024]; /* ktap_vdiag()'s */
		ksnprintf(line, sizeof(line), "%s (%s): %s%s%s", k->id, k->what, k->source,
			  k->vmm ? "; VMM: " : "", k->vmm ? k->vmm : "");
		field(t, FIELD_KNOWN, line);
	}
	if (t->trace && t->failures <= TRACE_FAILS_SHOWN)
		trace_print_ring(); /* the accesses that led to it */
	screen_failure(desc, expected, actual, rule);
	if (t->failures == T_MAX_FAIL_DIAGS)
		ktap_diag(t->w, "(further failures of this test are counted, not shown)");
}

static void report(struct t *t, bool ok, const char *expected, const char *actual, const char *rule,
		   struct check_outcome out, const char *what, va_list ap)
{
	char desc[320];
	struct check_subject subject = t->subject;

	/* A subject, a given outcome and offenders are the next check's only. */
	if (t->outcome.cls != OUTCOME_NONE)
		out = t->outcome;
	t->outcome = (struct check_outcome){OUTCOME_NONE, 0};
	t->subject = (struct check_subject){SUBJECT_NONE, 0, 0};
	if (ok || (rule_is_inferred(rule) && !t->strict))
		t->n_offenders = 0;

	kvsnprintf(desc, sizeof(desc), what, ap);
	if (ok) {
		if (t->verbose >= 2)
			ktap_diag(t->w, "ok: %s: %s", desc, actual);
		return;
	}
	if (rule_is_inferred(rule)) {
		t->inferred_deviations++;
		if (!t->strict) {
			report_inferred(t, desc, expected, actual, rule);
			return;
		}
	}
	t->failures++;
	bool print = t->failures <= T_MAX_FAIL_DIAGS;
	if (print)
		print_failure(t, desc, expected, actual, rule, &subject, &out);
	const struct known_deviation *k =
	    t->known ? known_rows(t, rule, &subject, &out, print) : NULL;
	if (k)
		count_known(t, k, rule, &subject);
	t->n_offenders = 0;
	if (print)
		print_failure_end(t, k, desc, expected, actual, rule);
}

static void fmt_u64(char *buf, size_t n, uint64_t v)
{
	if (v < 10)
		ksnprintf(buf, n, "%llu", (unsigned long long)v);
	else
		ksnprintf(buf, n, "%#llx (%llu)", (unsigned long long)v, (unsigned long long)v);
}

bool expect_eq(struct t *t, uint64_t actual, uint64_t expected, const char *rule, const char *what,
	       ...)
{
	char e[64], a[64];
	va_list ap;
	bool ok = actual == expected;

	t_count_check(t, what);
	fmt_u64(e, sizeof(e), expected);
	fmt_u64(a, sizeof(a), actual);
	va_start(ap, what);
	report(t, ok, e, a, rule,
	       (struct check_outcome){value_class(actual, expected, expected), 0}, what, ap);
	va_end(ap);
	return ok;
}

bool expect_ne(struct t *t, uint64_t actual, uint64_t unexpected, const char *rule,
	       const char *what, ...)
{
	char e[80], a[64];
	va_list ap;
	bool ok = actual != unexpected;

	t_count_check(t, what);
	char u[64];
	fmt_u64(u, sizeof(u), unexpected);
	ksnprintf(e, sizeof(e), "anything but %s", u);
	fmt_u64(a, sizeof(a), actual);
	va_start(ap, what);
	report(t, ok, e, a, rule, (struct check_outcome){OUTCOME_EQUAL, 0}, what, ap);
	va_end(ap);
	return ok;
}

bool expect_range(struct t *t, uint64_t actual, uint64_t lo, uint64_t hi, const char *rule,
		  const char *what, ...)
{
	char e[96], a[64], l[40], h[40];
	va_list ap;
	bool ok = actual >= lo && actual <= hi;

	t_count_check(t, what);
	fmt_u64(l, sizeof(l), lo);
	fmt_u64(h, sizeof(h), hi);
	ksnprintf(e, sizeof(e), "%s .. %s", l, h);
	fmt_u64(a, sizeof(a), actual);
	va_start(ap, what);
	report(t, ok, e, a, rule, (struct check_outcome){value_class(actual, lo, hi), 0}, what, ap);
	va_end(ap);
	return ok;
}

static void fmt_vector(char *buf, size_t n, int vec, uint32_t err, bool show_err)
{
	if (vec == 0)
		ksnprintf(buf, n, "no exception");
	else if (show_err)
		ksnprintf(buf, n, "%s(%#x)", x86_vector_name(vec), err);
	else
		ksnprintf(buf, n, "%s", x86_vector_name(vec));
}

bool expect_vector(struct t *t, int actual, int expected, const char *rule, const char *what, ...)
{
	char e[48], a[48];
	va_list ap;
	uint32_t err = actual ? arch_fault_error_code() : 0;
	/* Every #GP this suite expects is #GP(0): the error code is part of it. */
	bool ok = actual == expected && (expected != X86_VEC_GP || err == 0);

	t_count_check(t, what);
	if (expected == X86_VEC_GP)
		ksnprintf(e, sizeof(e), "#GP(0)");
	else
		fmt_vector(e, sizeof(e), expected, 0, false);
	fmt_vector(a, sizeof(a), actual, err, x86_vector_has_error_code(actual));
	va_start(ap, what);
	report(t, ok, e, a, rule, (struct check_outcome){vector_class(actual, err), 0}, what, ap);
	va_end(ap);
	return ok;
}

bool expect_true(struct t *t, bool ok, const char *expected, const char *actual, const char *rule,
		 const char *what, ...)
{
	va_list ap;

	t_count_check(t, what);
	va_start(ap, what);
	report(t, ok, expected, actual, rule, (struct check_outcome){OUTCOME_NONE, 0}, what, ap);
	va_end(ap);
	return ok;
}

void t_skip(struct t *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(t->skip_reason, sizeof(t->skip_reason), fmt, ap);
	va_end(ap);
	t->skipped = true;
}

void t_diag(struct t *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vdiag(t->w, fmt, ap);
	va_end(ap);
}

void t_measure(struct t *t, const char *name, uint64_t value, const char *unit)
{
	/* One machine-readable form, parsed by tools/ktap-report.py. */
	if (t->verbose >= 1)
		ktap_diag(t->w, "measure: %s.%s.%s = %llu %s", t->desc->suite, t->desc->name, name,
			  (unsigned long long)value, unit);
}

unsigned long long t_checks(const struct t *t)
{
	return t->checks;
}
