/* SPDX-License-Identifier: MIT */
/*
 * The few firmware helpers the loader needs, in place of GNU-EFI's libefi.
 * libefi is not built with -ffunction-sections, so one Print() pulled in
 * its whole formatter, device-path printer and GUID tables (about 24 KiB,
 * a tenth of the image): room a Secure Boot signature and the checks of
 * item 22 need under the 256 KiB limit. Formatting is the kernel's own
 * (kernel/fmt.c), widened to UCS-2 for the firmware console.
 */
#include "efi_boot.h"

#include "ktap.h"

EFI_SYSTEM_TABLE *efi_st;
EFI_BOOT_SERVICES *efi_bs;
EFI_RUNTIME_SERVICES *efi_rt;

void *efi_alloc(UINTN n)
{
	void *p = NULL;
	/* EfiLoaderData: it survives ExitBootServices (the kernel reads it). */
	if (EFI_ERROR(efi_bs->AllocatePool(EfiLoaderData, n ? n : 1, &p)))
		return NULL;
	return p;
}

void efi_free(void *p)
{
	if (p)
		efi_bs->FreePool(p);
}

static const struct {
	EFI_STATUS s;
	const char *name;
} status_names[] = {
    {EFI_LOAD_ERROR, "Load Error"},
    {EFI_INVALID_PARAMETER, "Invalid Parameter"},
    {EFI_UNSUPPORTED, "Unsupported"},
    {EFI_BUFFER_TOO_SMALL, "Buffer Too Small"},
    {EFI_DEVICE_ERROR, "Device Error"},
    {EFI_WRITE_PROTECTED, "Write Protected"},
    {EFI_OUT_OF_RESOURCES, "Out of Resources"},
    {EFI_VOLUME_FULL, "Volume Full"},
    {EFI_NOT_FOUND, "Not Found"},
    {EFI_ACCESS_DENIED, "Access Denied"},
    {EFI_SECURITY_VIOLATION, "Security Violation"},
};

const char *efi_status_name(EFI_STATUS s, char *buf, size_t size)
{
	for (size_t i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (status_names[i].s == s)
			return status_names[i].name;
	ksnprintf(buf, size, "status %#llx", (unsigned long long)s);
	return buf;
}

void efi_print(const char *fmt, ...)
{
	char buf[256];
	CHAR16 wide[2 * sizeof(buf) + 1];
	va_list ap;
	va_start(ap, fmt);
	kvformat(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!efi_st || !efi_st->ConOut)
		return;
	/* "\n" becomes "\r\n": the firmware console is a terminal. */
	size_t n = 0;
	for (const char *p = buf; *p; p++) {
		if (*p == '\n')
			wide[n++] = L'\r';
		wide[n++] = (CHAR16)(unsigned char)*p;
	}
	wide[n] = 0;
	efi_st->ConOut->OutputString(efi_st->ConOut, wide);
}

char *efi_strdup(const char *s)
{
	size_t n = kstrlen(s);
	char *d = efi_alloc(n + 1);
	if (d)
		kmemcpy(d, s, n + 1);
	return d;
}

/* UCS-2 to ASCII: non-ASCII characters become '?'. */
char *efi_strdup_ascii(const CHAR16 *s)
{
	UINTN n = 0;
	while (s[n])
		n++;
	char *d = efi_alloc(n + 1);
	if (!d)
		return NULL;
	for (UINTN i = 0; i < n; i++)
		d[i] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
	d[n] = 0;
	return d;
}

bool efi_guid_eq(const EFI_GUID *a, const EFI_GUID *b)
{
	return kmemcmp(a, b, sizeof(*a)) == 0;
}

uint64_t efi_find_rsdp(EFI_SYSTEM_TABLE *st)
{
	static EFI_GUID acpi20 = ACPI_20_TABLE_GUID, acpi10 = ACPI_TABLE_GUID;
	uint64_t v1 = 0;

	for (UINTN i = 0; i < st->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &st->ConfigurationTable[i];
		if (efi_guid_eq(&t->VendorGuid, &acpi20))
			return (uint64_t)(uintptr_t)t->VendorTable;
		if (efi_guid_eq(&t->VendorGuid, &acpi10))
			v1 = (uint64_t)(uintptr_t)t->VendorTable;
	}
	return v1;
}

EFI_MEMORY_DESCRIPTOR *efi_memory_map(UINTN *size, UINTN *key, UINTN *dsize)
{
	UINT32 dver;
	EFI_MEMORY_DESCRIPTOR *map = NULL;
	*size = 0;
	EFI_STATUS s = efi_bs->GetMemoryMap(size, NULL, key, dsize, &dver);
	for (int tries = 0; s == EFI_BUFFER_TOO_SMALL && tries < 4; tries++) {
		efi_free(map);
		*size += 8 * *dsize; /* the allocation itself may add entries */
		map = efi_alloc(*size);
		if (!map)
			return NULL;
		s = efi_bs->GetMemoryMap(size, map, key, dsize, &dver);
	}
	if (EFI_ERROR(s)) {
		efi_free(map);
		return NULL;
	}
	return map;
}

/* The SecureBoot global variable (UEFI 2.x, 3.3 "Globally Defined
 * Variables"): 1 when the firmware enforces image signatures in this boot.
 * Absent on firmware without Secure Boot. */
enum boot_secure_boot efi_secure_boot_state(void)
{
	static EFI_GUID global = EFI_GLOBAL_VARIABLE;
	UINT8 v = 0;
	UINTN n = sizeof(v);
	UINT32 attrs;
	EFI_STATUS s = efi_rt->GetVariable(L"SecureBoot", &global, &attrs, &n, &v);
	if (s == EFI_NOT_FOUND)
		return BOOT_SECURE_BOOT_UNSUPPORTED;
	if (EFI_ERROR(s) || n != 1)
		return BOOT_SECURE_BOOT_UNKNOWN;
	return v == 1 ? BOOT_SECURE_BOOT_ON : BOOT_SECURE_BOOT_OFF;
}
