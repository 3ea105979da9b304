/* SPDX-License-Identifier: MIT */
/*
 * KTAP version 1 writer (Linux Documentation/dev-tools/ktap.rst): nested
 * subtests are indented by four spaces a level and introduced by
 * "# Subtest: name", results are "ok N name [# SKIP reason]", and anything
 * else a test says is a "# " diagnostic line.
 */
#include "ktap.h"

#include "kstring.h"

/*
 * Writes one line: the indent of the current depth, `prefix`, the n bytes
 * of `text`, and the newline, in one call of the sink. Each sink call costs
 * the compact form's hold and the console's bookkeeping, and under a nested
 * hypervisor every instruction counts: a line used to be four to
 * six calls. A line longer than the buffer is written in pieces, unchanged.
 */
static void emit_line(struct ktap_writer *w, const char *prefix, const char *text, size_t n)
{
	char out[1200];
	size_t len = 0, plen = kstrlen(prefix);

	for (unsigned i = 0; i < w->depth && len + 4 <= sizeof(out); i++, len += 4)
		kmemcpy(out + len, "    ", 4);
	if (len + plen + n + 1 > sizeof(out)) { /* not in practice: flush, then the rest */
		w->sink(w->ctx, out, len);
		w->sink(w->ctx, prefix, plen);
		w->sink(w->ctx, text, n);
		w->sink(w->ctx, "\n", 1);
		return;
	}
	kmemcpy(out + len, prefix, plen);
	len += plen;
	kmemcpy(out + len, text, n);
	len += n;
	out[len++] = '\n';
	w->sink(w->ctx, out, len);
}

static void line(struct ktap_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(struct ktap_writer *w, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	size_t n = kvformat(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	emit_line(w, "", buf, n);
}

void ktap_header(struct ktap_writer *w, unsigned planned)
{
	line(w, "KTAP version 1");
	line(w, "1..%u", planned);
}

void ktap_begin_subtest(struct ktap_writer *w, const char *name, unsigned planned)
{
	w->depth++;
	w->last_skip[0] = '\0';
	line(w, "KTAP version 1");
	line(w, "# Subtest: %s", name);
	line(w, "1..%u", planned);
}

void ktap_end_subtest(struct ktap_writer *w)
{
	if (w->depth)
		w->depth--;
	w->last_skip[0] = '\0';
}

/* The reason to write for a SKIP: KTAP_DITTO where it repeats the previous
 * test's in this subtest (never at the top level, never an empty or
 * overlong reason); remembers it for the next. */
static const char *skip_text(struct ktap_writer *w, const char *text)
{
	if (!text || !w->depth) {
		w->last_skip[0] = '\0';
		return text ? text : "";
	}
	size_t n = kstrlen(text);
	bool fits = n > 0 && n < sizeof(w->last_skip);
	if (w->ditto && fits && !kstrcmp(text, w->last_skip))
		return KTAP_DITTO;
	if (fits)
		kstrlcpy(w->last_skip, text, sizeof(w->last_skip));
	else
		w->last_skip[0] = '\0';
	return text;
}

/* Test names must not contain '#' (it starts a directive). */
static void sanitize(char *dst, size_t size, const char *src)
{
	kstrlcpy(dst, src, size);
	for (char *p = dst; *p; p++) {
		if (*p == '#' || *p == '\n' || *p == '\r')
			*p = '_';
	}
}

bool ktap_failed(enum ktap_result r)
{
	return r == KTAP_FAIL || r == KTAP_TIMEOUT || r == KTAP_ERROR;
}

const char *ktap_status(enum ktap_result r)
{
	return ktap_failed(r) ? "not ok" : "ok";
}

const char *ktap_directive(enum ktap_result r)
{
	static const char *const word[KTAP_RESULTS] = {
	    [KTAP_SKIP] = "SKIP",
	    [KTAP_TIMEOUT] = "TIMEOUT",
	    [KTAP_XFAIL] = "XFAIL",
	    [KTAP_INFERRED] = "INFERRED",
	};
	return (unsigned)r < KTAP_RESULTS ? word[r] : NULL;
}

void ktap_result(struct ktap_writer *w, unsigned number, const char *name, enum ktap_result r,
		 const char *text)
{
	const char *d = ktap_directive(r);
	char n[128];

	sanitize(n, sizeof(n), name);
	if (r != KTAP_SKIP)
		w->last_skip[0] = '\0';
	else
		text = skip_text(w, text);
	if (!d) /* PASS, FAIL, ERROR: no text */
		line(w, "%s %u %s", ktap_status(r), number, n);
	else /* a TIMEOUT's text is optional; SKIP, XFAIL, INFERRED always a space */
		line(w, "%s %u %s # %s%s%s", ktap_status(r), number, n, d,
		     text || r != KTAP_TIMEOUT ? " " : "", text ? text : "");
}

void ktap_vdiag(struct ktap_writer *w, const char *fmt, va_list ap)
{
	char buf[1024];
	size_t n = kvformat(buf, sizeof(buf), fmt, ap);

	/* One "# " line per line of text, so a parser never sees a bare line. */
	const char *p = buf, *end = buf + n;
	while (p <= end) {
		const char *nl = p + kspan_until(p, (size_t)(end - p), '\n');
		emit_line(w, "# ", p, (size_t)(nl - p));
		if (nl >= end)
			break;
		p = nl + 1;
	}
}

void ktap_diag(struct ktap_writer *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ktap_vdiag(w, fmt, ap);
	va_end(ap);
}
