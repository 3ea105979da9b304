/* SPDX-License-Identifier: MIT */
#include "kstring.h"

size_t kstrlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

int kstrcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int kstrncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	}
	return 0;
}

/*
 * The block functions go a 64-bit word at a time where the addresses allow:
 * under a hypervisor whose guest runs about a thousand times slower than
 * native (this project's KVM host, issue 31), a byte loop over a 4 KiB
 * table or a test's record was a visible part of every test's cost.
 */
typedef uint64_t __attribute__((may_alias)) kword;
#define KWORD sizeof(kword)

static bool word_aligned(const void *p)
{
	return !((uintptr_t)p & (KWORD - 1));
}

void kmemset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	kword w = 0x0101010101010101ULL * (unsigned char)c;

	for (; n && !word_aligned(p); n--)
		*p++ = (unsigned char)c;
	for (; n >= KWORD; n -= KWORD, p += KWORD)
		*(kword *)p = w;
	while (n--)
		*p++ = (unsigned char)c;
}

/* x86 loads and stores a word at any address (an unaligned access costs at
 * most a cycle or two; both machines this file builds for are x86-64), so a
 * copy between buffers of different alignment - a line into the console's
 * store, a format into a held suite - goes a word at a time too. */
typedef uint64_t __attribute__((may_alias, aligned(1))) kword_unaligned;

void kmemcpy(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;

	for (; n >= KWORD; n -= KWORD, p += KWORD, q += KWORD)
		*(kword_unaligned *)p = *(const kword_unaligned *)q;
	while (n--)
		*p++ = *q++;
}

void kstrlcpy(char *d, const char *s, size_t size)
{
	size_t i = 0;
	for (; i + 1 < size && s[i]; i++)
		d[i] = s[i];
	d[i] = '\0';
}

int kmemcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	size_t i = 0;

	/* Equal words skipped; the first that differs is compared bytewise. */
	if (word_aligned(x) && word_aligned(y))
		while (i + KWORD <= n && *(const kword *)(x + i) == *(const kword *)(y + i))
			i += KWORD;
	for (; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

bool kisspace(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

bool kparse_u64(const char *s, size_t n, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n -= 2;
	}
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}
