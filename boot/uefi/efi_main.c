/* SPDX-License-Identifier: MIT */
/*
 * The UEFI front end: gather what the kernel needs while boot services
 * exist (options file, a report left by the previous run, ACPI, framebuffer,
 * memory map), leave boot services, hand over to the arch.
 */
#include "efi_boot.h"

#include "acpi.h"
#include "pool.h"
#include "arch.h"
#include "bits.h"
#include "efi_relocate.h"
#include "options.h"

/* Options file, relative to the boot volume's root. */
#define CONFIG_PATH	L"\\EFI\\BOOT\\pmutest.cfg"
#define CONFIG_SOURCE	"\\EFI\\BOOT\\pmutest.cfg"
#define CONFIG_MAX_SIZE OPT_MAX_TEXT

/* How long a loader error stays on the screen before control returns to the
 * firmware (a key ends the wait): long enough to read and photograph. */
#define FATAL_PAUSE_SECONDS 60

/* What stops the run before the kernel's console exists is said with the
 * firmware's console, and stays there: afterwards the firmware boots the
 * next option and the screen is gone. */
static void fatal(const char *what, EFI_STATUS s)
{
	char st[32];
	efi_print("pmutest: %s (%s)\n", what, efi_status_name(s, st, sizeof(st)));
	efi_print("Bail out! pmutest loader: %s\n", what);
	efi_print("pmutest: any key returns to the firmware (or wait %u s)\n", FATAL_PAUSE_SECONDS);
	EFI_INPUT_KEY key;
	for (unsigned i = 0; i < FATAL_PAUSE_SECONDS * 10; i++) {
		if (efi_st->ConIn && !EFI_ERROR(efi_st->ConIn->ReadKeyStroke(efi_st->ConIn, &key)))
			break;
		efi_bs->Stall(100 * 1000);
	}
}

/*
 * The GOP that shows the firmware console: the one on ConsoleOutHandle when
 * it has one (UEFI 2.x, 12.9: a GOP on the console's handle), else the
 * first in the handle database. With several GPUs or a console splitter the
 * first is not necessarily the screen the user looks at.
 */
static EFI_GRAPHICS_OUTPUT_PROTOCOL *console_gop(EFI_SYSTEM_TABLE *st)
{
	static EFI_GUID gop_guid = EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID;
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL;

	if (st->ConsoleOutHandle &&
	    !EFI_ERROR(efi_bs->HandleProtocol(st->ConsoleOutHandle, &gop_guid, (void **)&gop)) &&
	    gop)
		return gop;
	gop = NULL;
	if (EFI_ERROR(efi_bs->LocateProtocol(&gop_guid, NULL, (void **)&gop)))
		return NULL;
	return gop;
}

static void find_framebuffer(EFI_SYSTEM_TABLE *st, struct boot_framebuffer *fb)
{
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = console_gop(st);

	if (!gop || !gop->Mode || !gop->Mode->Info)
		return;
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info = gop->Mode->Info;
	/* Only direct 32-bit RGB/BGR framebuffers; BltOnly/bitmask are skipped. */
	if (info->PixelFormat != PixelRedGreenBlueReserved8BitPerColor &&
	    info->PixelFormat != PixelBlueGreenRedReserved8BitPerColor)
		return;
	fb->base = gop->Mode->FrameBufferBase;
	fb->width = info->HorizontalResolution;
	fb->height = info->VerticalResolution;
	fb->pixels_per_scanline = info->PixelsPerScanLine;
	fb->bgr = info->PixelFormat == PixelBlueGreenRedReserved8BitPerColor;
}

static uint64_t map_end(const EFI_MEMORY_DESCRIPTOR *d)
{
	return d->PhysicalStart + (d->NumberOfPages << EFI_PAGE_SHIFT);
}

#define FOR_EACH_DESC(d, map, size, dsize)                                                         \
	for (EFI_MEMORY_DESCRIPTOR *d = (map); (char *)d < (char *)(map) + (size);                 \
	     d = (EFI_MEMORY_DESCRIPTOR *)((char *)d + (dsize)))

/* Runs after ExitBootServices: pure computation on the final map. */
static void describe_memory(struct x86_handoff *h, EFI_MEMORY_DESCRIPTOR *map, UINTN size,
			    UINTN dsize)
{
	h->phys_end = 4ULL << 30; /* at least the 32-bit MMIO hole (APIC...) */
	h->range_count = 0;
	h->bi.memory_map_count = (uint32_t)(size / dsize);
	h->bi.usable_memory = 0;
	FOR_EACH_DESC(d, map, size, dsize)
	{
		if (d->Type == EfiConventionalMemory)
			h->bi.usable_memory += d->NumberOfPages << EFI_PAGE_SHIFT;
		if (map_end(d) > h->phys_end)
			h->phys_end = map_end(d);
		bool mmio = d->Type == EfiMemoryMappedIO || d->Type == EfiMemoryMappedIOPortSpace ||
			    !(d->Attribute & EFI_MEMORY_WB);
		if (h->range_count < HANDOFF_MAX_RANGES) {
			struct phys_range *r = &h->ranges[h->range_count++];
			r->base = d->PhysicalStart;
			r->size = d->NumberOfPages << EFI_PAGE_SHIFT;
			r->kind = mmio ? PHYS_MMIO : PHYS_RAM;
		}
	}
	if (h->bi.fb.base) {
		uint64_t fb_end =
		    h->bi.fb.base + (uint64_t)h->bi.fb.pixels_per_scanline * h->bi.fb.height * 4;
		if (fb_end > h->phys_end)
			h->phys_end = fb_end;
	}
}

/* Size the arch's pool from a first look at the memory map. */
static EFI_STATUS allocate_pool_pages(EFI_SYSTEM_TABLE *st, struct x86_handoff *h)
{
	UINTN size = 0, key, dsize;
	EFI_MEMORY_DESCRIPTOR *map = efi_memory_map(&size, &key, &dsize);
	uint64_t end = 4ULL << 30, splits = 0, free_bytes = 0;

	if (!map)
		return EFI_OUT_OF_RESOURCES;
	FOR_EACH_DESC(d, map, size, dsize)
	{
		if (map_end(d) > end)
			end = map_end(d);
		/* An uncached range splits large pages at both of its ends: up
		 * to two tables per level below 1 GiB (arch/x86_64/paging.c). */
		if (d->Type == EfiMemoryMappedIO || d->Type == EfiMemoryMappedIOPortSpace ||
		    !(d->Attribute & EFI_MEMORY_WB))
			splits++;
		if (d->Type == EfiConventionalMemory)
			free_bytes += d->NumberOfPages << EFI_PAGE_SHIFT;
	}
	efi_free(map);
	if (h->bi.fb.base && h->bi.fb.base + (64ULL << 20) > end)
		end = h->bi.fb.base + (64ULL << 20);

	/* + the tables that uncached ranges split off (boot/pool.h counts
	 * per GiB only). */
	uint64_t bytes = boot_pool_bytes(end, h->cpu_count) + splits * 4 * 4096;
	EFI_PHYSICAL_ADDRESS base = 0;
	EFI_STATUS s = st->BootServices->AllocatePages(AllocateAnyPages, EfiLoaderData,
						       EFI_SIZE_TO_PAGES(bytes), &base);
	if (EFI_ERROR(s)) {
		efi_print("pmutest: the page tables and stacks need %llu KiB; the firmware has "
			  "%llu KiB free\n",
			  (unsigned long long)(bytes >> 10),
			  (unsigned long long)(free_bytes >> 10));
		return s;
	}
	h->pool_base = base;
	h->pool_size = EFI_SIZE_TO_PAGES(bytes) * EFI_PAGE_SIZE;
	return EFI_SUCCESS;
}

/*
 * The application processors' start-up page, taken from the firmware's map
 * now so that nothing else owns it after ExitBootServices: the highest free
 * pages below the EBDA (9FFFFH), never page 0 (the real-mode interrupt
 * table). EfiLoaderData is ours after ExitBootServices.
 */
static void reserve_trampoline(EFI_SYSTEM_TABLE *st, struct x86_handoff *h)
{
	EFI_PHYSICAL_ADDRESS a = 0x9FFFF;

	if (EFI_ERROR(st->BootServices->AllocatePages(AllocateMaxAddress, EfiLoaderData,
						      TRAMPOLINE_PAGES, &a)))
		return;
	if (a == 0) {
		/* Page 0 is no place for code: keep it taken, try once more. */
		EFI_PHYSICAL_ADDRESS b = 0x9FFFF;
		if (EFI_ERROR(st->BootServices->AllocatePages(AllocateMaxAddress, EfiLoaderData,
							      TRAMPOLINE_PAGES, &b)))
			return;
		a = b;
	}
	h->trampoline_phys = a;
}

static void read_config(EFI_FILE_HANDLE root, struct boot_info *bi)
{
	const char *err = NULL;
	UINTN size;

	bi->config_source = CONFIG_SOURCE;
	if (!root)
		return;
	bi->config_text = efi_read_file(root, CONFIG_PATH, CONFIG_MAX_SIZE, &size, &err);
	bi->config_len = bi->config_text ? size : 0;
	if (!bi->config_text && err) {
		/* Present but unreadable: the kernel reports the message and ends
		 * the run with verdict ERROR. */
		bi->config_text = efi_strdup("");
		bi->config_error = err;
	}
}

/*
 * ExitBootServices needs the key of the current memory map; any allocation
 * between GetMemoryMap and the call changes it (EFI_INVALID_PARAMETER), so
 * the buffer is allocated first, with room to spare, and the retry only
 * calls GetMemoryMap (UEFI 2.x, 7.4 "ExitBootServices").
 */
static EFI_STATUS exit_boot_services(EFI_HANDLE image, EFI_SYSTEM_TABLE *st, struct x86_handoff *h)
{
	EFI_BOOT_SERVICES *bs = st->BootServices;
	UINTN size = 0, key, dsize;
	UINT32 dver;
	EFI_STATUS s;

	s = bs->GetMemoryMap(&size, NULL, &key, &dsize, &dver);
	if (s != EFI_BUFFER_TOO_SMALL)
		return s;
	UINTN cap = size + 16 * dsize;
	EFI_MEMORY_DESCRIPTOR *map = efi_alloc(cap);
	if (!map)
		return EFI_OUT_OF_RESOURCES;
	for (int tries = 0; tries < 8; tries++) {
		size = cap;
		s = bs->GetMemoryMap(&size, map, &key, &dsize, &dver);
		if (EFI_ERROR(s))
			return s;
		s = bs->ExitBootServices(image, key);
		if (s == EFI_SUCCESS) {
			describe_memory(h, map, size, dsize);
			return EFI_SUCCESS;
		}
		if (s != EFI_INVALID_PARAMETER)
			return s;
	}
	return s;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	efi_apply_relr(); /* before anything reads a pointer from the data */
	uint64_t tsc = arch_rdtsc();
	EFI_STATUS s;

	efi_st = st;
	efi_bs = st->BootServices;
	efi_rt = st->RuntimeServices;
	/* The firmware's 5-minute watchdog would reset a long run. */
	st->BootServices->SetWatchdogTimer(0, 0, 0, NULL);

	/* What would stop the arch before its console exists is refused here,
	 * where the firmware's console can still say so. 5-level paging: the
	 * arch builds 4-level tables, and CR4.LA57 cannot change while paging
	 * is on (SDM Vol. 3A 4.1.1: only outside IA-32e mode). */
	if (arch_read_cr4() & BIT_ULL(12)) {
		fatal("the firmware runs 5-level paging (CR4.LA57 = 1); pmutest builds 4-level "
		      "page tables: switch 5-level paging off in the firmware setup",
		      EFI_UNSUPPORTED);
		return EFI_UNSUPPORTED;
	}
	struct x86_handoff *h = efi_alloc(sizeof(*h));
	if (!h) {
		fatal("out of memory for the hand-over", EFI_OUT_OF_RESOURCES);
		return EFI_OUT_OF_RESOURCES;
	}
	kmemset(h, 0, sizeof(*h));
	h->bi.tsc_at_entry = tsc;
	h->bi.secure_boot = efi_secure_boot_state();
	h->bi.firmware = BOOT_FIRMWARE_MAY_HAVE_RUN;
	h->bi.firmware_why = "booted by UEFI firmware";
	efi_report_store_init(st->RuntimeServices, &h->store_error);

	EFI_FILE_HANDLE root = efi_boot_volume(image);
	const char *flushed = efi_report_flush(root);
	read_config(root, &h->bi);
	if (flushed)
		h->bi.boot_message = flushed; /* wins: it describes a saved report */
	if (root)
		root->Close(root);

	struct acpi_reader acpi = {acpi_map_identity, NULL};
	bool has_madt;
	(void)acpi_read(&acpi, efi_find_rsdp(st), h, &has_madt);
	h->store_report = efi_store_report;
	reserve_trampoline(st, h);
	find_framebuffer(st, &h->bi.fb);
	if (st->FirmwareVendor)
		h->bi.firmware_vendor = efi_strdup_ascii(st->FirmwareVendor);

	s = allocate_pool_pages(st, h);
	if (EFI_ERROR(s)) {
		fatal("cannot allocate page-table memory", s);
		return s;
	}
	efi_print("pmutest: leaving boot services\n");
	s = exit_boot_services(image, st, h);
	if (EFI_ERROR(s)) {
		fatal("ExitBootServices failed", s);
		return s;
	}
	/* No boot service from here on. */
	x86_start(h);
}
