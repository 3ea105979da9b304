/* SPDX-License-Identifier: MIT */
/*
 * Reader of `cpuid -r` raw dumps (see cpuid_dump.h for the accepted format).
 * Strict on purpose: a line it does not understand is an error, never a
 * silently missing leaf that would then decode as "feature absent".
 */

#include "cpuid_dump.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LINE 4096

/* Leaves the `cpuid` tool may leave out although they are at or below the
 * maximum (see cpuid_dump.h). */
static const uint32_t may_be_absent[] = {0x4, 0xb, 0x1b, 0x1f, 0x8000001d, 0x80000020};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* s, at most n bytes of it, with anything but printable ASCII as '?': for
 * messages that quote the input. */
static const char *shown(const char *s, char *out, size_t n)
{
	size_t i = 0;
	for (; s[i] && i + 1 < n; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	out[i] = '\0';
	return out;
}

enum line_status { LINE_OK, LINE_EOF, LINE_TOO_LONG, LINE_NUL };

/* One line into buf (MAX_LINE + 1 bytes), without its newline; never reads
 * more than MAX_LINE + 1 bytes of it. */
static enum line_status read_line(FILE *f, char *buf)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0')
			return LINE_NUL;
		if (n == MAX_LINE)
			return LINE_TOO_LONG;
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return c == EOF && n == 0 ? LINE_EOF : LINE_OK;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* "0x" followed by 1..8 hex digits, value in 32 bits. */
static bool parse_hex32(const char **sp, uint32_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;
	unsigned n = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	s += 2;
	while (isxdigit((unsigned char)*s)) {
		if (++n > 8)
			return false;
		v = v * 16 + (uint64_t)(isdigit((unsigned char)*s)
					    ? *s - '0'
					    : tolower((unsigned char)*s) - 'a' + 10);
		s++;
	}
	if (!n)
		return false;
	*out = (uint32_t)v;
	*sp = s;
	return true;
}

static bool parse_reg(const char **sp, const char *name, uint32_t *out)
{
	const char *s = skip_blanks(*sp);
	size_t n = strlen(name);

	if (strncmp(s, name, n) || s[n] != '=')
		return false;
	s += n + 1;
	if (!parse_hex32(&s, out))
		return false;
	*sp = s;
	return true;
}

/* "0xLLLLLLLL[ 0xSS]: eax=0x.. ebx=0x.. ecx=0x.. edx=0x.." */
static bool parse_regs_line(const char *s, struct cpuid_dump_entry *e)
{
	s = skip_blanks(s);
	if (!parse_hex32(&s, &e->leaf))
		return false;
	e->subleaf = 0;
	if (*s == ' ' || *s == '\t') {
		s = skip_blanks(s);
		if (!parse_hex32(&s, &e->subleaf))
			return false;
	}
	if (*s++ != ':')
		return false;
	if (!parse_reg(&s, "eax", &e->r.eax) || !parse_reg(&s, "ebx", &e->r.ebx) ||
	    !parse_reg(&s, "ecx", &e->r.ecx) || !parse_reg(&s, "edx", &e->r.edx))
		return false;
	return *skip_blanks(s) == '\0';
}

/* "CPU N:" (number stored, true in *has_number) or "CPU:". */
static bool parse_cpu_header(const char *s, unsigned *number, bool *has_number)
{
	unsigned long v = 0;
	unsigned digits = 0;

	if (strncmp(s, "CPU", 3))
		return false;
	s += 3;
	if (*s == ' ') {
		s = skip_blanks(s);
		while (isdigit((unsigned char)*s)) {
			v = v * 10 + (unsigned long)(*s - '0');
			if (++digits > 6)
				return false;
			s++;
		}
		if (!digits)
			return false;
	}
	if (*s++ != ':' || *skip_blanks(s) != '\0')
		return false;
	*number = (unsigned)v;
	*has_number = digits > 0;
	return true;
}

static void *grow(void *p, size_t *cap, size_t elem)
{
	size_t ncap = *cap ? *cap * 2 : 16;
	void *q = realloc(p, ncap * elem);

	if (!q)
		return NULL;
	*cap = ncap;
	return q;
}

static const struct cpuid_dump *sort_dump; /* qsort has no context argument */

static int cmp_cpu_index(const void *a, const void *b)
{
	unsigned x = sort_dump->cpus[*(const size_t *)a].number;
	unsigned y = sort_dump->cpus[*(const size_t *)b].number;
	return x < y ? -1 : x > y;
}

static struct cpuid_dump_cpu *find_cpu(const struct cpuid_dump *d, unsigned number)
{
	size_t lo = 0, hi = d->by_number ? d->count : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct cpuid_dump_cpu *c = &d->cpus[d->by_number[mid]];
		if (c->number == number)
			return c;
		if (c->number < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct cpuid_dump_cpu *add_cpu(struct cpuid_dump *d, unsigned number)
{
	struct cpuid_dump_cpu *c;

	if (d->count == d->cap) {
		void *n = grow(d->cpus, &d->cap, sizeof(*d->cpus));

		if (!n)
			return NULL;
		d->cpus = n;
	}
	c = &d->cpus[d->count++];
	memset(c, 0, sizeof(*c));
	c->number = number;
	return c;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct cpuid_dump_entry *x = a, *y = b;
	if (x->leaf != y->leaf)
		return x->leaf < y->leaf ? -1 : 1;
	if (x->subleaf != y->subleaf)
		return x->subleaf < y->subleaf ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static const struct cpuid_dump_entry *find_entry(const struct cpuid_dump_cpu *c, uint32_t leaf,
						 uint32_t subleaf)
{
	size_t lo = 0, hi = c->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cpuid_dump_entry *e = &c->entries[mid];
		if (e->leaf == leaf && e->subleaf == subleaf)
			return e;
		if (e->leaf < leaf || (e->leaf == leaf && e->subleaf < subleaf))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool has_leaf(const struct cpuid_dump_cpu *c, uint32_t leaf)
{
	/* Any sub-leaf will do: the first entry at or after (leaf, 0). */
	size_t lo = 0, hi = c->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->entries[mid].leaf < leaf)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->count && c->entries[lo].leaf == leaf;
}

static int add_entry(struct cpuid_dump_cpu *c, const struct cpuid_dump_entry *e)
{
	if (c->count == c->cap) {
		void *n = grow(c->entries, &c->cap, sizeof(*c->entries));

		if (!n)
			return -1;
		c->entries = n;
	}
	c->entries[c->count++] = *e;
	return 0;
}

/* Sorts a CPU's entries; the same (leaf, sub-leaf) twice is dropped when the
 * values agree and an error (its line in *conflict) when they do not. */
static bool dedupe(struct cpuid_dump_cpu *c, const struct cpuid_dump_entry **conflict)
{
	size_t out = 0;

	qsort(c->entries, c->count, sizeof(*c->entries), cmp_entry);
	for (size_t i = 0; i < c->count; i++) {
		const struct cpuid_dump_entry *e = &c->entries[i];
		if (out && c->entries[out - 1].leaf == e->leaf &&
		    c->entries[out - 1].subleaf == e->subleaf) {
			if (memcmp(&c->entries[out - 1].r, &e->r, sizeof(e->r))) {
				*conflict = e;
				return false;
			}
			continue;
		}
		c->entries[out++] = *e;
	}
	c->count = out;
	return true;
}

static bool absent_allowed(uint32_t leaf)
{
	for (size_t i = 0; i < sizeof(may_be_absent) / sizeof(may_be_absent[0]); i++)
		if (may_be_absent[i] == leaf)
			return true;
	return false;
}

/* The first leaf from `first` to `max` that the CPU lacks (and may not), or
 * `first - 1` when none. The walk stops at the first gap: linear. */
static uint32_t first_missing(const struct cpuid_dump_cpu *c, uint32_t first, uint32_t max)
{
	for (uint32_t l = first; l <= max && l >= first; l++)
		if (!has_leaf(c, l) && !absent_allowed(l))
			return l;
	return first - 1;
}

/* Leaf 0 and every leaf up to the maxima present (see cpuid_dump.h). */
static bool complete(const struct cpuid_dump_cpu *c, const char *path, char *err, size_t errlen)
{
	const struct cpuid_dump_entry *l0 = find_entry(c, 0, 0);
	const struct cpuid_dump_entry *e0 = find_entry(c, 0x80000000, 0);
	uint32_t m;

	if (!l0) {
		set_err(err, errlen,
			"%s: CPU %u has no leaf 0 (vendor and maximum basic leaf): dump cut or "
			"not from `cpuid -r`",
			path, c->number);
		return false;
	}
	m = first_missing(c, 0, l0->r.eax);
	if (m != (uint32_t)-1) {
		set_err(err, errlen,
			"%s: CPU %u lacks leaf %#x, at or below its maximum basic leaf %#x "
			"(CPUID.0H:EAX): the dump is cut or incomplete",
			path, c->number, m, l0->r.eax);
		return false;
	}
	/* The extended range only when 80000000H reads as a maximum (its EAX
	 * in 80000000H..800000FFH; older parts return other data there). */
	if (e0 && e0->r.eax >= 0x80000000u && e0->r.eax <= 0x800000ffu) {
		m = first_missing(c, 0x80000000u, e0->r.eax);
		if (m != 0x7fffffffu) {
			set_err(err, errlen,
				"%s: CPU %u lacks leaf %#x, at or below its maximum extended leaf "
				"%#x (CPUID.80000000H:EAX): the dump is cut or incomplete",
				path, c->number, m, e0->r.eax);
			return false;
		}
	}
	return true;
}

static void strip_eol(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

int cpuid_dump_load(struct cpuid_dump *d, const char *path, char *err, size_t errlen)
{
	static char line[MAX_LINE + 1];
	char quote[64];
	struct stat st;
	struct cpuid_dump_cpu *cur = NULL;
	unsigned next_number = 0, lineno = 0;
	size_t total = 0;
	enum line_status ls;
	bool sparse = false;
	FILE *f;

	memset(d, 0, sizeof(*d));
	f = fopen(path, "r");
	if (!f) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		set_err(err, errlen, "%s: is a directory, not a `cpuid -r` dump", path);
		goto fail;
	}
	while ((ls = read_line(f, line)) != LINE_EOF) {
		struct cpuid_dump_entry e;
		const char *s;
		unsigned number;
		bool has_number;

		lineno++;
		if (ls == LINE_NUL) {
			set_err(err, errlen, "%s:%u: binary data, not a `cpuid -r` dump", path,
				lineno);
			goto fail;
		}
		if (ls == LINE_TOO_LONG) {
			set_err(err, errlen,
				"%s:%u: line longer than %d bytes: not a `cpuid -r` dump", path,
				lineno, MAX_LINE);
			goto fail;
		}
		strip_eol(line);
		s = skip_blanks(line);
		if (!*s)
			continue;
		if (!strncmp(s, CPUID_DUMP_SPARSE_MARK, strlen(CPUID_DUMP_SPARSE_MARK))) {
			sparse = true;
			continue;
		}
		if (parse_cpu_header(s, &number, &has_number)) {
			if (!has_number)
				number = next_number;
			cur = add_cpu(d, number);
			if (!cur)
				goto nomem;
			next_number = number + 1;
			continue;
		}
		if (!parse_regs_line(s, &e)) {
			set_err(err, errlen,
				"%s:%u: not a `cpuid -r` line (want \"CPU N:\" or \"0xLEAF 0xSUB: "
				"eax=0x.. ebx=0x.. ecx=0x.. edx=0x..\"): \"%s\"",
				path, lineno, shown(s, quote, 61));
			goto fail;
		}
		if (!cur) {
			cur = add_cpu(d, next_number);
			if (!cur)
				goto nomem;
			next_number++;
		}
		e.line = lineno;
		if (add_entry(cur, &e) < 0)
			goto nomem;
		total++;
	}
	if (ferror(f)) {
		set_err(err, errlen, "%s: read error", path);
		goto fail;
	}
	if (!total) {
		set_err(err, errlen, "%s: no CPUID register lines (not a `cpuid -r` dump)", path);
		goto fail;
	}
	/* CPU numbers: each once (sorted index, then neighbours compared). */
	d->by_number = malloc(d->count * sizeof(*d->by_number));
	if (!d->by_number)
		goto nomem;
	for (size_t i = 0; i < d->count; i++)
		d->by_number[i] = i;
	sort_dump = d;
	qsort(d->by_number, d->count, sizeof(*d->by_number), cmp_cpu_index);
	for (size_t i = 1; i < d->count; i++) {
		if (d->cpus[d->by_number[i]].number == d->cpus[d->by_number[i - 1]].number) {
			set_err(err, errlen, "%s: CPU %u appears twice", path,
				d->cpus[d->by_number[i]].number);
			goto fail;
		}
	}
	for (size_t i = 0; i < d->count; i++) {
		const struct cpuid_dump_entry *bad;
		struct cpuid_dump_cpu *c = &d->cpus[i];
		if (!dedupe(c, &bad)) {
			set_err(err, errlen,
				"%s:%u: leaf %#x sub-leaf %#x of CPU %u given twice with different "
				"values",
				path, bad->line, bad->leaf, bad->subleaf, c->number);
			goto fail;
		}
		if (!sparse && !complete(c, path, err, errlen))
			goto fail;
	}
	fclose(f);
	return 0;
nomem:
	set_err(err, errlen, "%s: out of memory", path);
fail:
	fclose(f);
	cpuid_dump_free(d);
	return -1;
}

unsigned cpuid_dump_cpu_count(const struct cpuid_dump *d)
{
	return (unsigned)d->count;
}

unsigned cpuid_dump_cpu_number(const struct cpuid_dump *d, unsigned index)
{
	return index < d->count ? d->cpus[index].number : 0;
}

bool cpuid_dump_has_cpu(const struct cpuid_dump *d, unsigned cpu)
{
	return find_cpu(d, cpu) != NULL;
}

bool cpuid_dump_lookup(const struct cpuid_dump *d, unsigned cpu, uint32_t leaf, uint32_t subleaf,
		       struct cpuid_regs *r)
{
	const struct cpuid_dump_cpu *c = find_cpu(d, cpu);
	const struct cpuid_dump_entry *e = c ? find_entry(c, leaf, subleaf) : NULL;

	if (!e) {
		memset(r, 0, sizeof(*r));
		return false;
	}
	*r = e->r;
	return true;
}

bool cpuid_dump_source_fn(void *ctx, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	const struct cpuid_dump_source *src = ctx;

	return cpuid_dump_lookup(src->dump, src->cpu, leaf, subleaf, r);
}

void cpuid_dump_free(struct cpuid_dump *d)
{
	for (size_t i = 0; i < d->count; i++)
		free(d->cpus[i].entries);
	free(d->cpus);
	free(d->by_number);
	memset(d, 0, sizeof(*d));
}
