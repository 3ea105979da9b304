/* SPDX-License-Identifier: MIT */
/*
 * The four functions GCC may emit calls to even in freestanding code
 * (struct copies, large initialisers, the pool's zeroing). The kernel's
 * word-at-a-time helpers (kstring.c) where there is one; plain loops
 * otherwise. mk/efi.mk builds with -fno-tree-loop-distribute-patterns so
 * that GCC cannot turn these loops back into calls to themselves.
 */
#include <stddef.h>
#include <stdint.h>

#include "kstring.h"

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memset(void *d, int c, size_t n)
{
	kmemset(d, c, n);
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	kmemcpy(d, s, n);
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	uint8_t *p = d;
	const uint8_t *q = s;
	if (p < q || p >= q + n)
		return memcpy(d, s, n);
	while (n--)
		p[n] = q[n];
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	return kmemcmp(a, b, n);
}
