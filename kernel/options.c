/* SPDX-License-Identifier: MIT */
#include "options.h"

#include "bits.h"
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
	o->trace = 1;
	o->compact = true;
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

/* A Linux kernel version as `uname -r` prints it: "6.18.44", "6.8.0-45-generic",
 * "5.15": major (1-255), minor (0-255), sublevel (0-65535, default 0), then
 * nothing or a suffix starting with '-', '+' or '~'. */
static bool parse_kernel_version(struct parser *ps, struct span key, struct span v, uint32_t *out)
{
	uint64_t part[3] = {0, 0, 0};
	static const uint64_t max[3] = {255, 255, 65535};
	const char *p = v.p, *end = v.p + v.n;
	unsigned n = 0;

	while (n < 3) {
		const char *q = p;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == p || !kparse_u64(p, (size_t)(q - p), &part[n]) || part[n] > max[n])
			break;
		n++;
		p = q;
		if (n == 3 || p == end || *p != '.')
			break;
		p++;
	}
	bool tail_ok = p == end || *p == '-' || *p == '+' || *p == '~';
	if (n < 2 || part[0] == 0 || !tail_ok) {
		fail(ps,
		     "'%.*s' wants a Linux kernel version such as 6.18.44 (uname -r), got '%.*s'",
		     (int)key.n, key.p, (int)v.n, v.p);
		return false;
	}
	*out = HOST_KERNEL(part[0], part[1], part[2]);
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

/* Every option: its key, the kind of value it takes, where in struct options
 * it goes, and for a number its range. "unknown option" lists them in this
 * order. */
enum option_kind {
	OPTION_NAMES,	       /* a list of suite or test names (struct name_list) */
	OPTION_FLAG,	       /* 0 or 1 (bool) */
	OPTION_UINT,	       /* a number from lo to hi (unsigned or uint32_t) */
	OPTION_CPUS,	       /* all, per-config or CPU numbers and ranges */
	OPTION_VPMU,	       /* off, emulated or mediated (enum vpmu_mode) */
	OPTION_KERNEL_VERSION, /* a Linux version a.b[.c][-suffix] (uint32_t HOST_KERNEL) */
};

/* The words of `vpmu`, indexed by enum vpmu_mode (VPMU_UNTOLD has none). */
static const char *const vpmu_words[] = {
    [VPMU_UNTOLD] = NULL,
    [VPMU_OFF] = "off",
    [VPMU_EMULATED] = "emulated",
    [VPMU_MEDIATED] = "mediated",
};
_Static_assert(ARRAY_SIZE(vpmu_words) == VPMU_MEDIATED + 1, "one word per vPMU mode");

const char *options_vpmu_text(enum vpmu_mode m, bool hypervisor)
{
	switch (m) {
	case VPMU_OFF:
		return "off (told by the host: its hypervisor gives this guest no PMU)";
	case VPMU_EMULATED:
		return "emulated (told by the host: KVM's perf-event vPMU)";
	case VPMU_MEDIATED:
		return "mediated (told by the host: KVM's mediated vPMU, enable_mediated_pmu)";
	case VPMU_UNTOLD:
		break;
	}
	return hypervisor ? "not told (no vpmu option: a guest cannot tell an emulated vPMU from a "
			    "mediated one by itself; tools/run.sh passes it)"
			  : "not told; CPUID.01H:ECX[31] = 0, no hypervisor announces itself";
}

static bool parse_vpmu(struct parser *ps, struct span key, struct span v, enum vpmu_mode *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(vpmu_words); i++) {
		if (vpmu_words[i] && span_is(v, vpmu_words[i])) {
			*out = (enum vpmu_mode)i;
			return true;
		}
	}
	fail(ps, "'%.*s' wants off, emulated or mediated, got '%.*s'", (int)key.n, key.p, (int)v.n,
	     v.p);
	return false;
}

static const struct option_desc {
	const char *key;
	enum option_kind kind;
	size_t offset;
	uint32_t lo, hi;
} option_table[] = {
    {"suites", OPTION_NAMES, offsetof(struct options, suites), 0, 0},
    {"tests", OPTION_NAMES, offsetof(struct options, tests), 0, 0},
    {"exclude", OPTION_NAMES, offsetof(struct options, exclude), 0, 0},
    {"selftest", OPTION_FLAG, offsetof(struct options, selftest), 0, 1},
    {"verbose", OPTION_UINT, offsetof(struct options, verbose), 0, 2},
    {"timeout_ms", OPTION_UINT, offsetof(struct options, timeout_ms), 100, 600000},
    {"save_report", OPTION_FLAG, offsetof(struct options, save_report), 0, 1},
    {"strict", OPTION_FLAG, offsetof(struct options, strict), 0, 1},
    {"known", OPTION_FLAG, offsetof(struct options, known), 0, 1},
    {"cpus", OPTION_CPUS, 0, 0, 0},
    {"smp_silent_cpu", OPTION_UINT, offsetof(struct options, smp_silent_cpu), 0, OPT_MAX_CPUS - 1},
    {"trace", OPTION_UINT, offsetof(struct options, trace), 0, 2},
    {"trace_from", OPTION_UINT, offsetof(struct options, trace_from), 0, 0xFFFFFFFFu},
    {"vpmu", OPTION_VPMU, offsetof(struct options, vpmu), 0, 0},
    {"host_kernel", OPTION_KERNEL_VERSION, offsetof(struct options, host_kernel), 0, 0},
    {"compact", OPTION_FLAG, offsetof(struct options, compact), 0, 1},
};

/* OPTION_UINT stores through a uint32_t: the fields it names are that wide. */
_Static_assert(sizeof(((struct options *)0)->verbose) == sizeof(uint32_t) &&
		   sizeof(((struct options *)0)->timeout_ms) == sizeof(uint32_t) &&
		   sizeof(((struct options *)0)->smp_silent_cpu) == sizeof(uint32_t) &&
		   sizeof(((struct options *)0)->trace) == sizeof(uint32_t) &&
		   sizeof(((struct options *)0)->trace_from) == sizeof(uint32_t),
	       "OPTION_UINT fields are 32-bit");

static void fail_unknown(struct parser *ps, struct span key)
{
	char known[192];
	size_t n = 0;

	known[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(option_table); i++) {
		ksnprintf(known + n, sizeof(known) - n, "%s%s", i ? ", " : "", option_table[i].key);
		n += kstrlen(known + n);
	}
	fail(ps, "unknown option '%.*s' (known: %s)", (int)key.n, key.p, known);
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
	const struct option_desc *d = NULL;
	uint64_t x;

	for (size_t i = 0; i < ARRAY_SIZE(option_table) && !d; i++)
		if (span_is(key, option_table[i].key))
			d = &option_table[i];
	if (!d) {
		fail_unknown(ps, key);
		return;
	}
	void *field = (char *)o + d->offset;
	switch (d->kind) {
	case OPTION_NAMES:
		parse_list(ps, key, val, field);
		break;
	case OPTION_FLAG:
		if (parse_uint(ps, key, val, d->lo, d->hi, &x))
			*(bool *)field = x;
		break;
	case OPTION_UINT:
		if (parse_uint(ps, key, val, d->lo, d->hi, &x))
			*(uint32_t *)field = (uint32_t)x;
		break;
	case OPTION_CPUS:
		parse_cpus(ps, key, val, o);
		break;
	case OPTION_VPMU:
		parse_vpmu(ps, key, val, field);
		break;
	case OPTION_KERNEL_VERSION:
		parse_kernel_version(ps, key, val, field);
		break;
	}
}

static bool is_option_key(const char *k, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(option_table); i++)
		if (span_is((struct span){k, n}, option_table[i].key))
			return true;
	return false;
}

/* Append n bytes of s and a separator to buf (len in *at); false when they
 * do not fit. */
static bool append_word(char *buf, size_t cap, size_t *at, const char *s, size_t n, char sep)
{
	if (*at + n + 2 > cap)
		return false;
	kmemcpy(buf + *at, s, n);
	*at += n;
	buf[(*at)++] = sep;
	buf[*at] = '\0';
	return true;
}

size_t options_from_cmdline(const char *cmdline, char *out, size_t cap, char *ignored, size_t icap)
{
	static const char prefix[] = "pmutest.";
	size_t o = 0, ig = 0;
	const char *p = cmdline;

	if (cap)
		out[0] = '\0';
	if (icap)
		ignored[0] = '\0';
	while (p && *p) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *w = p, *eq = NULL;
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '=' && !eq)
				eq = p;
			p++;
		}
		size_t n = (size_t)(p - w);
		if (!n)
			break;
		const char *k = w;
		bool prefixed = n > sizeof(prefix) - 1 && !kstrncmp(w, prefix, sizeof(prefix) - 1);
		if (prefixed)
			k += sizeof(prefix) - 1;
		bool take = eq && (prefixed || is_option_key(k, (size_t)(eq - k)));
		bool fits =
		    take ? append_word(out, cap, &o, k, (size_t)(eq - k), ' ') &&
			       append_word(out, cap, &o, "=", 1, ' ') &&
			       append_word(out, cap, &o, eq + 1, (size_t)(w + n - eq - 1), '\n')
			 : append_word(ignored, icap, &ig, w, n, ' ');
		if (!fits && ig + 5 <= icap) {
			kmemcpy(ignored + ig, "...", 4);
			ig += 3;
		}
	}
	if (ig && ignored[ig - 1] == ' ')
		ignored[--ig] = '\0';
	return o;
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

/* Is `entry` "suite" or "suite.name"? Compared in place: the selection is
 * asked about every registered test on every CPU, and formatting
 * "suite.name" for each was most of a skipped test's cost under a nested
 * hypervisor that pays per instruction. */
static bool names_test(const char *entry, const char *suite, const char *name)
{
	size_t n = kstrlen(suite);
	if (kstrncmp(entry, suite, n))
		return false;
	return entry[n] == '\0' || (entry[n] == '.' && !kstrcmp(entry + n + 1, name));
}

static bool listed(const struct name_list *l, const char *suite, const char *name)
{
	for (unsigned i = 0; i < l->count; i++) {
		if (names_test(l->names[i], suite, name))
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

/* Appends to buf (size bytes, *len used), truncating, never past the end. */
__attribute__((format(printf, 4, 5))) static void append(char *buf, size_t size, size_t *len,
							 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*len += kvformat(buf + *len, size - *len, fmt, ap);
	va_end(ap);
}

/* "a,b" or "none". */
static void append_names(char *buf, size_t size, size_t *len, const struct name_list *l)
{
	if (l->count == 0)
		append(buf, size, len, "none");
	for (unsigned i = 0; i < l->count; i++)
		append(buf, size, len, "%s%s", i ? "," : "", l->names[i]);
}

void options_describe_selection(const struct options *o, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	append(buf, size, &len, "suites = ");
	append_names(buf, size, &len, &o->suites);
	append(buf, size, &len, "; tests = ");
	append_names(buf, size, &len, &o->tests);
	append(buf, size, &len, "; exclude = ");
	append_names(buf, size, &len, &o->exclude);
	append(buf, size, &len, "; selftest = %d", o->selftest);
}
