/* SPDX-License-Identifier: MIT */
/*
 * kernel/kstring.c against libc, byte for byte and sign for sign: the block
 * and string functions run as x86 string instructions, so every
 * length 0-40 at every alignment 0-7 of both buffers, and strings that
 * differ at every position, are compared with what libc says.
 */
#include <stdlib.h>

#include "kstring.h"
#include "unit.h"

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static unsigned bad;
static void check(int ok, const char *what, size_t n, size_t a, size_t b)
{
	if (!ok && bad++ < 5)
		printf("# %s differs from libc: n=%zu align %zu/%zu\n", what, n, a, b);
}

int main(void)
{
	unsigned char src[64], d1[64], d2[64];

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 37 + 11);
	for (size_t n = 0; n <= 40; n++) {
		for (size_t a = 0; a < 8; a++) {
			for (size_t b = 0; b < 8; b++) {
				memset(d1, 0xEE, sizeof(d1));
				memset(d2, 0xEE, sizeof(d2));
				kmemcpy(d1 + a, src + b, n);
				memcpy(d2 + a, src + b, n);
				check(!memcmp(d1, d2, sizeof(d1)), "kmemcpy", n, a, b);
				kmemset(d1 + a, (int)(n + b), n);
				memset(d2 + a, (int)(n + b), n);
				check(!memcmp(d1, d2, sizeof(d1)), "kmemset", n, a, b);
				/* equal, then one byte changed at each position */
				memcpy(d1 + a, src + b, n);
				memcpy(d2 + b, src + b, n);
				check(kmemcmp(d1 + a, d2 + b, n) == 0, "kmemcmp equal", n, a, b);
				for (size_t k = 0; k < n; k++) {
					d1[a + k] ^= 0x80;
					check(sign(kmemcmp(d1 + a, d2 + b, n)) ==
						  sign(memcmp(d1 + a, d2 + b, n)),
					      "kmemcmp", n, a, k);
					d1[a + k] ^= 0x80;
				}
			}
		}
	}
	UNIT_EQ(bad, 0,
		"kmemcpy, kmemset, kmemcmp equal libc's for lengths 0-40 at every alignment");

	bad = 0;
	char s1[48], s2[48];
	for (size_t n = 0; n <= 40; n++) {
		for (size_t k = 0; k < n; k++)
			s1[k] = (char)('a' + (k * 7) % 26);
		s1[n] = '\0';
		memcpy(s2, s1, n + 1);
		check(kstrlen(s1) == n, "kstrlen", n, 0, 0);
		check(kstrcmp(s1, s2) == 0, "kstrcmp equal", n, 0, 0);
		for (size_t k = 0; k < n; k++) {
			s2[k] = (char)(s2[k] + 1);
			check(sign(kstrcmp(s1, s2)) == sign(strcmp(s1, s2)), "kstrcmp", n, k, 0);
			check(sign(kstrcmp(s2, s1)) == sign(strcmp(s2, s1)), "kstrcmp swapped", n,
			      k, 0);
			check(sign(kstrncmp(s1, s2, k + 1)) == sign(strncmp(s1, s2, k + 1)),
			      "kstrncmp", n, k, 0);
			s2[k] = s1[k];
			/* a prefix: the shorter string sorts first */
			char c = s2[k];
			s2[k] = '\0';
			check(sign(kstrcmp(s1, s2)) == sign(strcmp(s1, s2)), "kstrcmp prefix", n, k,
			      0);
			check(sign(kstrcmp(s2, s1)) == sign(strcmp(s2, s1)),
			      "kstrcmp prefix swapped", n, k, 0);
			s2[k] = c;
			/* kspan_until: the first 'X' at k */
			char save = s1[k];
			s1[k] = 'X';
			check(kspan_until(s1, n, 'X') == k, "kspan_until", n, k, 0);
			check(kspan_until(s1, k, 'X') == k, "kspan_until short", n, k, 0);
			s1[k] = save;
		}
		check(kspan_until(s1, n, 'X') == n, "kspan_until none", n, 0, 0);
		check(kspan_until(s1, n + 1, '\0') == n, "kspan_until NUL", n, 0, 0);
		/* kstrlcpy truncates to size - 1 and terminates */
		for (size_t size = 1; size <= n + 2; size++) {
			char out[48];
			memset(out, '#', sizeof(out));
			kstrlcpy(out, s1, size);
			size_t want = n < size - 1 ? n : size - 1;
			check(!memcmp(out, s1, want) && out[want] == '\0' && out[want + 1] == '#',
			      "kstrlcpy", n, size, 0);
		}
	}
	char untouched = 'u';
	kstrlcpy(&untouched, "abc", 0);
	check(untouched == 'u', "kstrlcpy size 0", 0, 0, 0);
	UNIT_EQ(bad, 0,
		"kstrlen, kstrcmp, kstrncmp, kspan_until, kstrlcpy equal libc's for strings 0-40 "
		"long, differing at every position");
	return unit_done();
}
