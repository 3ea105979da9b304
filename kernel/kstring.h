/* SPDX-License-Identifier: MIT */
/*
 * String helpers for the kernel (no libc on the machine). Prefixed so the
 * simulator build, which links libc, sees no clash.
 */
#ifndef PMUTEST_KSTRING_H
#define PMUTEST_KSTRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

size_t kstrlen(const char *s);
/* The index of the first c in s[0, n), or n. */
size_t kspan_until(const char *s, size_t n, char c);
int kstrcmp(const char *a, const char *b);
int kstrncmp(const char *a, const char *b, size_t n);
void kmemset(void *d, int c, size_t n);
void kmemcpy(void *d, const void *s, size_t n);
int kmemcmp(const void *a, const void *b, size_t n);
/* Copies at most size-1 chars and always terminates (size > 0). */
void kstrlcpy(char *d, const char *s, size_t size);
bool kisspace(char c);
/* Parses an unsigned decimal or 0x-hex number spanning [s, s+n); false on
 * anything else or overflow. */
bool kparse_u64(const char *s, size_t n, uint64_t *out);

#endif
