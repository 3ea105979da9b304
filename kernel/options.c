/* SPDX-License-Identifier: MIT */
#include "options.h"

#include "kstring.h"
#include "ktap.h"

void options_defaults(struct options *o)
{
	kmemset(o, 0, sizeof(*o));
	o->verbose = 1;
	o->timeout_ms = 10000;
	o->save_report = true;
	o->known = true;
	o->smp_silent_cpu = OPT_NO_CPU;
}

struct span {
	const char *p;
	size_t n;
};

static struct span trim(const char *p, size_t n)
{
	while (n && kisspace(*p))
		p++, n--;
	while (n && kisspace(p[n - 1]))
		n--;
	return (struct span){p, n};
}

static bool span_is(struct span s, const char *word)
{
	size_t n = kstrlen(word);
	return s.n == n && kstrncmp(s.p, word, n) == 0;
}

static bool valid_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

struct parser {
	const char *source;
	unsigned line;
	unsigned errors;
	options_error_fn err;
	void *ctx;
};

static void fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct parser *ps, const char *fmt, ...)
{
	char msg[256], full[320];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ksnprintf(full, sizeof(full), "%s:%u: %s", ps->source, ps->line, msg);
	ps->errors++;
	if (ps->err)
		ps->err(ps->ctx, full);
}

/* "a, b ,c" -> list; on any bad element the whole line is rejected. */
static bool parse_list(struct parser *ps, struct span key, struct span v, struct name_list *out)
{
	struct name_list l = {0};
	const char *p = v.p, *end = v.p + v.n;

	while (p <= end) {
		const char *comma = p;
		while (comma < end && *comma != ',')
			comma++;
		struct span item = trim(p, (size_t)(comma - p));
		if (item.n == 0) {
			fail(ps, "'%.*s' has an empty name in its list", (int)key.n, key.p);
			return false;
		}
		for (size_t i = 0; i < item.n; i++) {
			if (!valid_name_char(item.p[i])) {
				fail(ps, "'%.*s': '%.*s' is not a suite or test name", (int)key.n,
				     key.p, (int)item.n, item.p);
				return false;
			}
		}
		if (item.n >= OPT_NAME_LEN || l.count >= OPT_MAX_NAMES) {
			fail(ps, "'%.*s': too many or too long names (at most %d of %d chars)",
			     (int)key.n, key.p, OPT_MAX_NAMES, OPT_NAME_LEN - 1);
			return false;
		}
		kmemcpy(l.names[l.count], item.p, item.n);
		l.names[l.count][item.n] = '\0';
		l.count++;
		p = comma + 1;
	}
	*out = l;
	return true;
}

static bool parse_uint(struct parser *ps, struct span key, struct span v, uint64_t lo, uint64_t hi,
		       uint64_t *out)
{
	uint64_t x;
	if (!kparse_u64(v.p, v.n, &x) || x < lo || x > hi) {
		fail(ps, "'%.*s' wants a number from %llu to %llu, got '%.*s'", (int)key.n, key.p,
		     (unsigned long long)lo, (unsigned long long)hi, (int)v.n, v.p);
		return false;
	}
	*out = x;
	return true;
}

/* "all", "per-config", or CPU numbers and ranges: "0, 2-5". */
static bool parse_cpus(struct parser *ps, struct span key, struct span v, struct options *o)
{
	uint64_t set[OPT_MAX_CPUS / 64] = {0};
	const char *p = v.p, *end = v.p + v.n;

	if (span_is(v, "all") || span_is(v, "per-config")) {
		o->cpus_mode = span_is(v, "all") ? CPUS_ALL : CPUS_PER_CONFIG;
		return true;
	}
	while (p <= end) {
		const char *comma = p;
		while (comma < end && *comma != ',')
			comma++;
		struct span item = trim(p, (size_t)(comma - p));
		const char *dash = item.p;
		while (dash < item.p + item.n && *dash != '-')
			dash++;
		uint64_t lo, hi;
		bool ok = kparse_u64(item.p, (size_t)(dash - item.p), &lo);
		if (dash < item.p + item.n) {
			struct span h = trim(dash + 1, (size_t)(item.p + item.n - dash - 1));
			struct span l = trim(item.p, (size_t)(dash - item.p));
			ok = kparse_u64(l.p, l.n, &lo) && kparse_u64(h.p, h.n, &hi);
		} else {
			hi = lo;
		}
		if (!ok || lo > hi || hi >= OPT_MAX_CPUS) {
			fail(ps,
			     "'%.*s' wants all, per-config, or CPU numbers and ranges below %d "
			     "(0, 2-5), got '%.*s'",
			     (int)key.n, key.p, OPT_MAX_CPUS, (int)item.n, item.p);
			return false;
		}
		for (uint64_t c = lo; c <= hi; c++)
			set[c / 64] |= 1ULL << (c % 64);
		p = comma + 1;
	}
	o->cpus_mode = CPUS_LIST;
	kmemcpy(o->cpus_list, set, sizeof(set));
	return true;
}

static void parse_line(struct options *o, struct parser *ps, struct span ln)
{
	const char *eq = ln.p;
	while (eq < ln.p + ln.n && *eq != '=')
		eq++;
	if (eq == ln.p + ln.n) {
		fail(ps, "expected 'key = value', got '%.*s'", (int)ln.n, ln.p);
		return;
	}
	struct span key = trim(ln.p, (size_t)(eq - ln.p));
	struct span val = trim(eq + 1, (size_t)(ln.p + ln.n - eq - 1));
	uint64_t x;

	if (span_is(key, "suites")) {
		parse_list(ps, key, val, &o->suites);
	} else if (span_is(key, "tests")) {
		parse_list(ps, key, val, &o->tests);
	} else if (span_is(key, "exclude")) {
		parse_list(ps, key, val, &o->exclude);
	} else if (span_is(key, "selftest")) {
		if (parse_uint(ps, key, val, 0, 1, &x))
			o->selftest = x;
	} else if (span_is(key, "save_report")) {
		if (parse_uint(ps, key, val, 0, 1, &x))
			o->save_report = x;
	} else if (span_is(key, "strict")) {
		if (parse_uint(ps, key, val, 0, 1, &x))
			o->strict = x;
	} else if (span_is(key, "known")) {
		if (parse_uint(ps, key, val, 0, 1, &x))
			o->known = x;
	} else if (span_is(key, "verbose")) {
		if (parse_uint(ps, key, val, 0, 2, &x))
			o->verbose = (unsigned)x;
	} else if (span_is(key, "timeout_ms")) {
		if (parse_uint(ps, key, val, 100, 600000, &x))
			o->timeout_ms = (uint32_t)x;
	} else if (span_is(key, "cpus")) {
		parse_cpus(ps, key, val, o);
	} else if (span_is(key, "smp_silent_cpu")) {
		if (parse_uint(ps, key, val, 0, OPT_MAX_CPUS - 1, &x))
			o->smp_silent_cpu = (uint32_t)x;
	} else {
		fail(ps,
		     "unknown option '%.*s' (known: suites, tests, exclude, selftest, "
		     "verbose, timeout_ms, save_report, strict, known, cpus, smp_silent_cpu)",
		     (int)key.n, key.p);
	}
}

unsigned options_parse(struct options *o, const char *text, size_t len, const char *source,
		       options_error_fn err, void *ctx)
{
	struct parser ps = {source ? source : "options", 0, 0, err, ctx};
	const char *p = text, *end = text + (text ? len : 0);

	/* A UTF-8 byte order mark (what some editors write first) is not text. */
	if (len >= 3 && !kstrncmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	if (len > OPT_MAX_TEXT) {
		fail(&ps, "the options text is %zu bytes, more than %d: not an options file", len,
		     OPT_MAX_TEXT);
		return ps.errors;
	}
	while (p < end) {
		const char *nl = p;
		while (nl < end && *nl != '\n')
			nl++;
		ps.line++;
		/* A '#' starts a comment anywhere on the line. */
		const char *hash = p;
		while (hash < nl && *hash != '#')
			hash++;
		struct span ln = trim(p, (size_t)(hash - p));
		/* Keys and values are printable ASCII: anything else (a NUL byte, a
		 * control character, a terminal escape, UTF-8) is rejected, and never
		 * echoed into a message. Comments may hold any byte but NUL. */
		bool printable = true;
		for (size_t i = 0; i < ln.n; i++) {
			unsigned char c = (unsigned char)ln.p[i];
			if ((c < 0x20 && c != '\t') || c >= 0x7f)
				printable = false;
		}
		for (const char *c = hash; c < nl; c++)
			printable &= *c != '\0';
		if (!printable)
			fail(&ps, "line has a NUL byte, a control character or non-ASCII text "
				  "outside a comment (is this a text file?)");
		else if (ln.n)
			parse_line(o, &ps, ln);
		p = nl < end ? nl + 1 : nl;
	}
	return ps.errors;
}

static bool listed(const struct name_list *l, const char *suite, const char *name)
{
	char full[2 * OPT_NAME_LEN];
	ksnprintf(full, sizeof(full), "%s.%s", suite, name);
	for (unsigned i = 0; i < l->count; i++) {
		if (!kstrcmp(l->names[i], suite) || !kstrcmp(l->names[i], full))
			return true;
	}
	return false;
}

static bool suite_listed(const struct name_list *l, const char *suite)
{
	for (unsigned i = 0; i < l->count; i++) {
		if (!kstrcmp(l->names[i], suite))
			return true;
	}
	return false;
}

bool options_selects(const struct options *o, const char *suite, const char *name, bool is_selftest)
{
	if (listed(&o->exclude, suite, name))
		return false;
	if (is_selftest && !o->selftest && !suite_listed(&o->suites, suite))
		return false;
	if (o->suites.count == 0 && o->tests.count == 0)
		return true;
	return suite_listed(&o->suites, suite) || listed(&o->tests, suite, name);
}
