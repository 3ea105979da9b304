/* SPDX-License-Identifier: MIT */
/*
 * Reader of `cpuid -r` raw dumps (see cpuid_dump.h for the accepted format).
 * Strict on purpose: a line it does not understand is an error, never a
 * silently missing leaf that would then decode as "feature absent".
 */
#define _POSIX_C_SOURCE 200809L /* getline */

#include "cpuid_dump.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LINE 4096

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

static struct cpuid_dump_cpu *find_cpu(const struct cpuid_dump *d, unsigned number)
{
	for (size_t i = 0; i < d->count; i++)
		if (d->cpus[i].number == number)
			return &d->cpus[i];
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

static const struct cpuid_dump_entry *find_entry(const struct cpuid_dump_cpu *c, uint32_t leaf,
						 uint32_t subleaf)
{
	for (size_t i = 0; i < c->count; i++)
		if (c->entries[i].leaf == leaf && c->entries[i].subleaf == subleaf)
			return &c->entries[i];
	return NULL;
}

/* 0 added, 1 duplicate with the same values (ignored), -1 conflict/ENOMEM. */
static int add_entry(struct cpuid_dump_cpu *c, const struct cpuid_dump_entry *e)
{
	const struct cpuid_dump_entry *old = find_entry(c, e->leaf, e->subleaf);

	if (old)
		return memcmp(&old->r, &e->r, sizeof(e->r)) ? -1 : 1;
	if (c->count == c->cap) {
		void *n = grow(c->entries, &c->cap, sizeof(*c->entries));

		if (!n)
			return -1;
		c->entries = n;
	}
	c->entries[c->count++] = *e;
	return 0;
}

static void strip_eol(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

int cpuid_dump_load(struct cpuid_dump *d, const char *path, char *err, size_t errlen)
{
	char *line = NULL;
	size_t linecap = 0;
	ssize_t len;
	struct stat st;
	struct cpuid_dump_cpu *cur = NULL;
	unsigned next_number = 0, lineno = 0;
	size_t total = 0;
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
	while ((len = getline(&line, &linecap, f)) >= 0) {
		struct cpuid_dump_entry e;
		const char *s;
		unsigned number;
		bool has_number;
		int rc;

		lineno++;
		if (memchr(line, '\0', (size_t)len)) {
			set_err(err, errlen, "%s:%u: binary data, not a `cpuid -r` dump", path,
				lineno);
			goto fail;
		}
		if (len > MAX_LINE) {
			set_err(err, errlen, "%s:%u: line too long", path, lineno);
			goto fail;
		}
		strip_eol(line);
		s = skip_blanks(line);
		if (!*s)
			continue;
		if (parse_cpu_header(s, &number, &has_number)) {
			if (!has_number)
				number = next_number;
			if (find_cpu(d, number)) {
				set_err(err, errlen, "%s:%u: CPU %u appears twice", path, lineno,
					number);
				goto fail;
			}
			cur = add_cpu(d, number);
			if (!cur)
				goto nomem;
			next_number = number + 1;
			continue;
		}
		if (!parse_regs_line(s, &e)) {
			set_err(err, errlen,
				"%s:%u: not a `cpuid -r` line (want \"CPU N:\" or \"0xLEAF 0xSUB: "
				"eax=0x.. ebx=0x.. ecx=0x.. edx=0x..\"): \"%.60s\"",
				path, lineno, s);
			goto fail;
		}
		if (!cur) {
			cur = add_cpu(d, next_number);
			if (!cur)
				goto nomem;
			next_number++;
		}
		rc = add_entry(cur, &e);
		if (rc < 0 && find_entry(cur, e.leaf, e.subleaf)) {
			set_err(err, errlen,
				"%s:%u: leaf %#x sub-leaf %#x of CPU %u given twice with different "
				"values",
				path, lineno, e.leaf, e.subleaf, cur->number);
			goto fail;
		}
		if (rc < 0)
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
	free(line);
	fclose(f);
	return 0;
nomem:
	set_err(err, errlen, "%s: out of memory", path);
fail:
	free(line);
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
	memset(d, 0, sizeof(*d));
}
