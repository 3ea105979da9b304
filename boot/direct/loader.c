/* SPDX-License-Identifier: MIT */
/*
 * The zero page's loader fields (loader.h). Sources:
 *  - type_of_loader and ext_loader_type: Linux Documentation/arch/x86/
 *    boot.rst, "Details of header fields" (the registered loader IDs).
 *  - struct efi_info at 1C0H: zero-page.rst; efi_loader_signature "EL64"
 *    for a 64-bit firmware (Linux arch/x86/include/asm/efi.h,
 *    EFI64_LOADER_SIGNATURE).
 *  - EFI_SYSTEM_TABLE and EFI_CONFIGURATION_TABLE: UEFI 2.10, 4.3 and 4.6;
 *    the ACPI GUIDs: 4.6.1.1 ("Industry Standard Configuration Tables").
 *  - cmdline_size: boot.rst, "Details of header fields" (the longest
 *    command line, without its NUL). How a loader cuts a longer one: iPXE
 *    src/arch/x86/image/bzimage.c, bzimage_set_cmdline(): up to commit
 *    6ccb6bcfc (2025) it copies cmdline_size bytes and no NUL, since then
 *    snprintf() into cmdline_size bytes (cmdline_size - 1 characters).
 */
#include "loader.h"
#include "le.h"

#include "kstring.h"
#include "ktap.h"

#define ULL(x)	  ((unsigned long long)(x))
#define FAIL(...) (ksnprintf(err, n, __VA_ARGS__), (const char *)err)

/* boot.rst's registered IDs, by ID (the high nibble, or 10H + the
 * extended type). */
static const char *const loader_names[] = {
    [0x0] = "LILO",
    [0x1] = "Loadlin",
    [0x2] = "bootsect-loader",
    [0x3] = "Syslinux",
    [0x4] = "Etherboot/gPXE/iPXE",
    [0x5] = "ELILO",
    [0x7] = "GRUB",
    [0x8] = "U-Boot",
    [0x9] = "Xen",
    [0xA] = "Gujin",
    [0xB] = "QEMU",
    [0xC] = "Arcturus Networks uCbootloader",
    [0xD] = "kexec-tools",
    [0x11] = "Minimal Linux Bootloader",
    [0x12] = "OVMF UEFI virtualization stack",
    [0x13] = "barebox",
};

#define LOADER_ID_KEXEC	   0xD
#define LOADER_ID_EXTENDED 0xE

#define EFI64_LOADER_SIGNATURE 0x34364c45u	     /* "EL64" */
#define EFI32_LOADER_SIGNATURE 0x32334c45u	     /* "EL32" */
#define EFI_SYSTEM_TABLE_SIG   0x5453595320494249ull /* "IBI SYST" */
#define EFI_ST_VENDOR	       24		     /* CHAR16 *FirmwareVendor */
#define EFI_ST_ENTRIES	       104		     /* UINTN NumberOfTableEntries */
#define EFI_ST_CONFIG	       112		     /* EFI_CONFIGURATION_TABLE * */
#define EFI_ST_SIZE	       120
#define EFI_CONFIG_ENTRY       24 /* EFI_GUID, VOID * */
/* A firmware lists a few dozen tables; more is not a table. */
#define EFI_CONFIG_MAX 1024

static const uint8_t acpi20_guid[16] = {0x71, 0xe8, 0x68, 0x88, 0xf1, 0xe4, 0xd3, 0x11,
					0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81};
static const uint8_t acpi10_guid[16] = {0x30, 0x2d, 0x9d, 0xeb, 0x88, 0x2d, 0xd3, 0x11,
					0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d};

static const char *name_of(uint8_t type, uint8_t ext)
{
	unsigned id = type >> 4;
	if (id == LOADER_ID_EXTENDED)
		id = 0x10 + ext;
	if (id < sizeof(loader_names) / sizeof(loader_names[0]) && loader_names[id])
		return loader_names[id];
	return "an unregistered loader";
}

/* FirmwareVendor, UTF-16 to ASCII ('?' beyond it), bounded. */
static void read_vendor(const struct bootdata_reader *r, uint64_t at, char *out, size_t size)
{
	size_t i = 0;
	for (; at && i + 1 < size; i++) {
		const uint8_t *c = r->map(r->ctx, at + 2 * i, 2);
		if (!c)
			break;
		uint16_t ch = (uint16_t)(c[0] | c[1] << 8);
		if (!ch)
			break;
		out[i] = ch >= 0x20 && ch < 0x7F ? (char)ch : '?';
	}
	out[i] = '\0';
}

static const char *read_efi(const struct bootdata_reader *r, const uint8_t *bp,
			    struct linux_loader *l, char *err, size_t n)
{
	uint32_t sig = (uint32_t)le_read(bp, BP_EFI_INFO, 4);
	if (sig == EFI32_LOADER_SIGNATURE)
		return FAIL("the loader booted from a 32-bit UEFI (efi_info says EL32): a 64-bit "
			    "kernel cannot use its tables");
	if (sig != EFI64_LOADER_SIGNATURE)
		return NULL; /* not from UEFI, or not said */
	l->efi_systab = le_read(bp, BP_EFI_INFO + 4, 4) | le_read(bp, BP_EFI_INFO + 24, 4) << 32;
	const uint8_t *st = r->map(r->ctx, l->efi_systab, EFI_ST_SIZE);
	if (!st || le_read(st, 0, 8) != EFI_SYSTEM_TABLE_SIG)
		return FAIL("efi_info's system table (at %#llx) is not an EFI system table "
			    "(signature IBI SYST) in memory the kernel can read",
			    ULL(l->efi_systab));
	read_vendor(r, le_read(st, EFI_ST_VENDOR, 8), l->efi_vendor, sizeof(l->efi_vendor));
	uint64_t count = le_read(st, EFI_ST_ENTRIES, 8), at = le_read(st, EFI_ST_CONFIG, 8);
	const uint8_t *t =
	    count <= EFI_CONFIG_MAX ? r->map(r->ctx, at, count * EFI_CONFIG_ENTRY) : NULL;
	if (count && !t)
		return FAIL("the EFI system table's configuration table (%llu entries at %#llx) "
			    "is not in memory the kernel can read",
			    ULL(count), ULL(at));
	uint64_t acpi10 = 0;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *e = t + i * EFI_CONFIG_ENTRY;
		if (!kmemcmp(e, acpi20_guid, 16))
			l->efi_rsdp = le_read(e, 16, 8);
		else if (!kmemcmp(e, acpi10_guid, 16))
			acpi10 = le_read(e, 16, 8);
	}
	if (!l->efi_rsdp)
		l->efi_rsdp = acpi10;
	return NULL;
}

const char *loader_read(const struct bootdata_reader *r, uint64_t info, struct linux_loader *l,
			char *err, size_t n)
{
	const uint8_t *bp = r->map(r->ctx, info, 4096);
	if (!bp)
		return FAIL("the zero page (at %#llx) is not below 4 GiB", ULL(info));
	/* Every loader of a Linux-format image copies its setup header into
	 * the zero page (boot.rst, "Loading the rest of the kernel"). */
	if (le_read(bp, BP_HEADER_MAGIC, 4) != BP_HEADER_MAGIC_VALUE)
		return FAIL("the zero page (at %#llx) has no setup header (no HdrS at 202H): "
			    "the loader did not copy it",
			    ULL(info));
	l->type = bp[BP_TYPE_OF_LOADER];
	l->name = name_of(l->type, bp[BP_EXT_LOADER_TYPE]);
	l->kexec = l->type >> 4 == LOADER_ID_KEXEC;
	return read_efi(r, bp, l, err, n);
}

const char *loader_check_cmdline(const char *cmdline, size_t cmdline_size, char *err, size_t n)
{
	size_t len = kstrlen(cmdline);
	if (len + 1 >= cmdline_size)
		return FAIL("the command line is %llu characters, the image's cmdline_size %llu: "
			    "a loader may have cut a longer one (iPXE does, unsaid)",
			    ULL(len), ULL(cmdline_size));
	return NULL;
}

void loader_linux_release(const char *cmdline, char *out, size_t size)
{
	static const char key[] = "from_linux=";
	const char *p = cmdline;

	out[0] = '\0';
	while (p && *p) {
		while (*p == ' ')
			p++;
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		if ((size_t)(p - w) > sizeof(key) - 1 && !kstrncmp(w, key, sizeof(key) - 1)) {
			size_t len = (size_t)(p - w) - (sizeof(key) - 1);
			if (len >= size)
				len = size - 1;
			kmemcpy(out, w + sizeof(key) - 1, len);
			out[len] = '\0';
		}
	}
}
