/* SPDX-License-Identifier: MIT */
/* Small helpers of the loader: strings in pool memory. */
#include "efi_boot.h"

char *efi_strdup(const char *s)
{
	UINTN n = 0;
	while (s[n])
		n++;
	char *d = AllocatePool(n + 1);
	if (d)
		CopyMem(d, (void *)s, n + 1);
	return d;
}

/* UCS-2 to ASCII: non-ASCII characters become '?'. */
char *efi_strdup_ascii(const CHAR16 *s)
{
	UINTN n = StrLen(s);
	char *d = AllocatePool(n + 1);
	if (!d)
		return NULL;
	for (UINTN i = 0; i < n; i++)
		d[i] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
	d[n] = 0;
	return d;
}
