/* SPDX-License-Identifier: MIT */
/* Small helpers of the UEFI front end: strings in pool memory, the RSDP. */
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

uint64_t efi_find_rsdp(EFI_SYSTEM_TABLE *st)
{
	static EFI_GUID acpi20 = ACPI_20_TABLE_GUID, acpi10 = ACPI_TABLE_GUID;
	uint64_t v1 = 0;

	for (UINTN i = 0; i < st->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &st->ConfigurationTable[i];
		if (!CompareGuid(&t->VendorGuid, &acpi20))
			return (uint64_t)(uintptr_t)t->VendorTable;
		if (!CompareGuid(&t->VendorGuid, &acpi10))
			v1 = (uint64_t)(uintptr_t)t->VendorTable;
	}
	return v1;
}
