/* SPDX-License-Identifier: MIT */
/*
 * The direct-boot front end: a VMM loaded build/pmutest.elf and jumped to
 * one of its entries (entry.asm) with no firmware services behind it. In
 * order:
 *
 *  1. Copy the boot data (command line, module 0, memory map) into our own
 *     .bss before anything can reuse the low memory it lives in (the AP
 *     start-up page and the pool are chosen only afterwards).
 *  2. The memory map (E820, from start_info or the zero page) becomes the
 *     hand-over's ranges; zero-size entries (qboot writes some) are skipped.
 *  3. The RSDP: start_info / boot_params when given, else the legacy scan
 *     (EBDA, E0000H-FFFFFH: Firecracker's PVH path sets no rsdp_paddr);
 *     boot/acpi.c reads an RSDT (SeaBIOS: revision 0, no XSDT) as well as
 *     an XSDT. Without a MADT the boot CPU runs alone, and the report says
 *     so.
 *  4. The options: module 0 (-initrd pmutest.cfg, byte-exact), or without a
 *     module the command line's key=value words (options_from_cmdline).
 *  5. The AP start-up page (below 1 MiB) and the pool (above the kernel,
 *     below 4 GiB: entry.asm maps 4 GiB), then x86_start().
 *
 * What only UEFI gives (the NV-variable report store, the GOP screen) is
 * absent here, and the report says so: store_report stays NULL, fb.base 0.
 */
#include "direct.h"

#include "bootdata.h"
#include "loader.h"

#include "acpi.h"
#include "kstring.h"
#include "ktap.h"
#include "options.h"
#include "pool.h"
#include "x86.h"

#define HIDDEN __attribute__((visibility("hidden")))
extern char __kernel_end[] HIDDEN;	 /* boot/direct/linker.ld */
extern uint64_t direct_entry_tsc HIDDEN; /* entry.asm */
extern uint64_t direct_entry_cr0 HIDDEN; /* entry.asm: CR0 as the VMM left it */

#define SZ_1M		 0x100000ULL
#define SZ_2M		 0x200000ULL
#define SZ_4G		 0x100000000ULL
#define PAGE		 0x1000ULL
#define TRAMPOLINE_LIMIT 0x9F000ULL /* below the EBDA, as boot/uefi takes it */
#define CMDLINE_MAX	 4096

static struct x86_handoff g_h;
static struct e820_entry g_map[HANDOFF_MAX_RANGES];
static uint32_t g_map_count; /* entries the VMM gave (may exceed g_map's) */
static char g_cmdline[CMDLINE_MAX];
static char g_config[OPT_MAX_TEXT];
static char g_ignored[256];
static char g_notes[640];
static char g_firmware[160];
static char g_before[160];
static struct linux_loader g_loader; /* DIRECT_LINUX_IMAGE*: the loader's fields */

/* The RSDP the boot data named, once read: fatal() switches off with it. */
static uint64_t g_rsdp_hint;

/* Bad boot data, before x86_start(): a KTAP report of its own on COM1 (no
 * test, verdict ERROR, one line naming what was wrong), then the VM ended
 * the way each VMM ends it, as arch_exit does: QEMU's exit device, ACPI S5
 * from the tables (Cloud Hypervisor's sleep control register, crosvm's
 * PM1a_CNT; the RSDP given, else the legacy scan), then under a hypervisor
 * the i8042 reset (Firecracker's exit) unless it restarts the VM (Cloud
 * Hypervisor), then halt. */
__attribute__((noreturn)) static void fatal(const char *msg)
{
	struct acpi_reader acpi = {acpi_map_identity, NULL};
	struct cpuid_regs r;
	bool has_madt;

	serial_init();
	x86_puts("\nKTAP version 1\n1..0\n# error: bad boot data: ");
	x86_puts(msg);
	x86_puts("\n# verdict: ERROR\nBail out! pmutest direct boot: ");
	x86_puts(msg);
	x86_puts("\n");
	arch_cpuid(1, 0, &r);
	bool hypervisor = r.ecx & (1u << 31);
	if (hypervisor)
		outl(DEBUG_EXIT_PORT, DEBUG_EXIT_BASE + RUN_ERROR);
	/* The RSDP given, else (none, or it is what was wrong) the scan. */
	kmemset(&g_h.poweroff, 0, sizeof(g_h.poweroff));
	enum acpi_result ar = ACPI_NO_RSDP;
	if (g_rsdp_hint)
		ar = acpi_read(&acpi, g_rsdp_hint, &g_h, &has_madt);
	if (ar != ACPI_FOUND_XSDT && ar != ACPI_FOUND_RSDT) {
		uint64_t found = acpi_scan_rsdp(&acpi);
		if (found)
			acpi_read(&acpi, found, &g_h, &has_madt);
	}
	x86_acpi_power_off(&g_h.poweroff);
	if (hypervisor && !g_h.poweroff.reset_reboots)
		x86_i8042_reset();
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* Boot data is read only below 4 GiB, the part entry.asm mapped. */
static const void *low(void *ctx, uint64_t phys, uint64_t len)
{
	(void)ctx;
	return phys && phys + len >= phys && phys + len <= SZ_4G ? (const void *)(uintptr_t)phys
								 : NULL;
}

static const struct bootdata_reader g_reader = {low, NULL};
static char g_error[160];

static void copy_options(const struct boot_data *d, struct boot_info *bi)
{
	const char *bad = bootdata_check(&g_reader, d, g_cmdline, sizeof(g_cmdline), OPT_MAX_TEXT,
					 g_error, sizeof(g_error));
	if (bad)
		fatal(bad);
	if (d->has_module) {
		bi->config_source = "module 0 (initrd)";
		kmemcpy(g_config, low(NULL, d->module, d->module_size), (size_t)d->module_size);
		bi->config_text = g_config;
		bi->config_len = (size_t)d->module_size;
		return;
	}
	bi->config_source = "the kernel command line";
	bi->config_len = options_from_cmdline(g_cmdline, g_config, sizeof(g_config), g_ignored,
					      sizeof(g_ignored));
	bi->config_text = bi->config_len ? g_config : NULL;
}

static bool is_ram(uint32_t type)
{
	return type == E820_RAM || type == E820_ACPI || type == E820_NVS;
}

static void describe_memory(struct x86_handoff *h)
{
	uint32_t n = g_map_count < HANDOFF_MAX_RANGES ? g_map_count : HANDOFF_MAX_RANGES;

	h->phys_end = SZ_4G; /* at least the 32-bit MMIO hole (APIC...) */
	h->bi.memory_map_count = g_map_count;
	for (uint32_t i = 0; i < n; i++) {
		const struct e820_entry *e = &g_map[i];
		if (!e->size)
			continue;
		if (e->type == E820_RAM)
			h->bi.usable_memory += e->size;
		/* Reserved ranges above 4 GiB are nothing pmutest touches, and
		 * may be far away: QEMU reserves FD_0000_0000H-FF_FFFF_FFFFH on
		 * AMD hosts (the HyperTransport window), which mapped would cost
		 * page tables for 1 TiB. */
		if (!is_ram(e->type) && e->addr >= SZ_4G)
			continue;
		if (e->addr + e->size > h->phys_end)
			h->phys_end = e->addr + e->size;
		h->ranges[h->range_count++] =
		    (struct phys_range){e->addr, e->size, is_ram(e->type) ? PHYS_RAM : PHYS_MMIO};
	}
	if (!h->bi.usable_memory)
		fatal("the VMM gave no memory map with RAM in it");
}

/* The highest TRAMPOLINE_PAGES of RAM below TRAMPOLINE_LIMIT, never page 0
 * (the real-mode interrupt table); 0 when there is none (no AP starts). */
static uint64_t find_trampoline(void)
{
	uint64_t best = 0, need = TRAMPOLINE_PAGES * PAGE;
	for (uint32_t i = 0; i < g_map_count && i < HANDOFF_MAX_RANGES; i++) {
		const struct e820_entry *e = &g_map[i];
		uint64_t lo = (e->addr + PAGE - 1) & ~(PAGE - 1);
		uint64_t hi =
		    e->addr + e->size < TRAMPOLINE_LIMIT ? e->addr + e->size : TRAMPOLINE_LIMIT;
		hi &= ~(PAGE - 1);
		if (lo < PAGE)
			lo = PAGE;
		if (e->type == E820_RAM && hi >= lo + need && hi - need > best)
			best = hi - need;
	}
	return best;
}

/* The pool: the first RAM above the kernel image (2 MiB aligned) that
 * holds it, below 4 GiB. */
static void find_pool(struct x86_handoff *h)
{
	uint64_t bytes = (boot_pool_bytes(h->phys_end, h->cpu_count) + PAGE - 1) & ~(PAGE - 1);
	uint64_t kend = (uint64_t)(uintptr_t)__kernel_end;
	for (uint32_t i = 0; i < g_map_count && i < HANDOFF_MAX_RANGES; i++) {
		const struct e820_entry *e = &g_map[i];
		uint64_t lo = e->addr > kend ? e->addr : kend;
		lo = (lo + SZ_2M - 1) & ~(SZ_2M - 1);
		if (e->type == E820_RAM && lo + bytes <= e->addr + e->size && lo + bytes <= SZ_4G) {
			h->pool_base = lo;
			h->pool_size = bytes;
			return;
		}
	}
	fatal("no RAM below 4 GiB above the kernel for page tables and stacks");
}

/*
 * Did a BIOS run before the VMM jumped to us? QEMU's -kernel goes through
 * SeaBIOS (its PVH / linuxboot option ROM on pc and q35) or qboot (microvm):
 * a firmware image sits at the reset vector, F000:FFF0 (physical FFFF0H).
 * A VMM that boots the kernel itself (minivmm, Firecracker, Cloud
 * Hypervisor) loads nothing there: RAM it never wrote reads zero. Anything
 * but sixteen zero bytes is taken as a firmware that may have run.
 */
static void find_bios(struct boot_info *bi)
{
	const uint8_t *reset = low(NULL, 0xFFFF0, 16);
	bool zero = reset != NULL;

	for (unsigned i = 0; zero && i < 16; i++)
		zero = reset[i] == 0;
	bi->firmware = zero ? BOOT_NO_FIRMWARE : BOOT_FIRMWARE_MAY_HAVE_RUN;
	bi->firmware_why = zero ? "direct boot with no BIOS at the reset vector (FFFF0H reads zero)"
				: "direct boot through a BIOS (code at the reset vector FFFF0H: "
				  "SeaBIOS, qboot)";
}

static bool is_linux_image(enum direct_protocol protocol)
{
	return protocol == DIRECT_LINUX_IMAGE32 || protocol == DIRECT_LINUX_IMAGE64;
}

/*
 * build/pmutest.bin: a boot loader ran, and before it a firmware (BIOS or
 * UEFI), or a running Linux (kexec), whose PMU state pmutest finds: either
 * may have written the PMU's MSRs, and neither is the CPU. kexec names the
 * Linux release pmutest-kexec passed (from_linux=, `uname -r`).
 */
static void describe_loader(struct boot_info *bi, enum direct_protocol protocol)
{
	const char *entry = protocol == DIRECT_LINUX_IMAGE32 ? "32-bit entry" : "64-bit entry";
	char release[64];

	if (g_loader.kexec) {
		loader_linux_release(g_cmdline, release, sizeof(release));
		ksnprintf(g_firmware, sizeof(g_firmware), "none: Linux%s%s (kexec; %s, %s)",
			  release[0] ? " " : "", release, g_loader.name, entry);
		ksnprintf(g_before, sizeof(g_before), "Linux%s%s (kexec)", release[0] ? " " : "",
			  release[0] ? release : " (release not given: no from_linux= word)");
		bi->firmware = BOOT_PREVIOUS_KERNEL;
		bi->previous_kernel = g_before;
		bi->firmware_why = "the running kernel handed the machine over by kexec "
				   "(boot_params type_of_loader DxH); its counters, local APIC and "
				   "other CPUs are what it left";
		return;
	}
	ksnprintf(g_firmware, sizeof(g_firmware), "%s%s%s (Linux boot protocol: %s, %s)",
		  g_loader.efi_vendor[0] ? g_loader.efi_vendor : "",
		  g_loader.efi_vendor[0] ? ", then " : "", g_loader.name,
		  g_loader.efi_systab ? "from UEFI" : "from a BIOS", entry);
	ksnprintf(g_before, sizeof(g_before),
		  "a %s and the boot loader %s (boot_params type_of_loader %02XH)",
		  g_loader.efi_systab ? "UEFI firmware" : "BIOS", g_loader.name, g_loader.type);
	bi->firmware = BOOT_FIRMWARE_MAY_HAVE_RUN;
	bi->firmware_why = g_before;
}

__attribute__((noreturn)) void direct_main(uint64_t info, enum direct_protocol protocol)
{
	struct x86_handoff *h = &g_h;
	struct boot_data d = {0};
	struct acpi_reader acpi = {acpi_map_identity, NULL};
	bool has_madt;

	h->bi.tsc_at_entry = direct_entry_tsc;
	d.map = g_map;
	d.map_cap = HANDOFF_MAX_RANGES;
	const char *bad = protocol == DIRECT_PVH
			      ? bootdata_pvh(&g_reader, info, &d, g_error, sizeof(g_error))
			      : bootdata_linux64(&g_reader, info, &d, g_error, sizeof(g_error));
	g_rsdp_hint = d.rsdp;
	g_map_count = d.map_count;
	if (bad)
		fatal(bad);
	if (is_linux_image(protocol)) {
		bad = loader_read(&g_reader, info, &g_loader, g_error, sizeof(g_error));
		if (bad)
			fatal(bad);
		d.protocol = g_loader.name;
	}
	copy_options(&d, &h->bi);
	if (is_linux_image(protocol)) {
		bad = loader_check_cmdline(g_cmdline, CMDLINE_MAX - 1, g_error, sizeof(g_error));
		if (bad)
			fatal(bad);
	}
	describe_memory(h);

	const char *rsdp_from = "given";
	uint64_t rsdp = d.rsdp;
	if (!rsdp && g_loader.efi_rsdp) {
		rsdp = g_loader.efi_rsdp;
		rsdp_from = "from the EFI system table";
		g_rsdp_hint = rsdp;
	}
	if (!rsdp) {
		rsdp = acpi_scan_rsdp(&acpi);
		rsdp_from = "found by the EBDA/E0000H scan";
	}
	enum acpi_result ar = acpi_read(&acpi, rsdp, h, &has_madt);
	/* Tables that are there but broken are bad boot data: a run on them
	 * would report a machine it never saw (one CPU, no S5). */
	if (ar == ACPI_BAD_RSDP || ar == ACPI_BAD_SDT) {
		ksnprintf(g_error, sizeof(g_error), "ACPI: %s (RSDP %s at %#llx)",
			  acpi_result_name(ar), rsdp_from, (unsigned long long)rsdp);
		fatal(g_error);
	}

	/* No MADT: the MP table's processors (Firecracker before 1.8, a VMM
	 * run with ACPI off). */
	bool from_mp = !has_madt && acpi_read_mptable(&acpi, h);

	h->trampoline_phys = find_trampoline();
	find_pool(h);

	if (is_linux_image(protocol)) {
		describe_loader(&h->bi, protocol);
	} else {
		ksnprintf(g_firmware, sizeof(g_firmware), "none (direct kernel boot: %s)",
			  d.protocol);
		find_bios(&h->bi);
	}
	h->bi.firmware_vendor = g_firmware;
	uint64_t cr0;
	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	ksnprintf(g_notes, sizeof(g_notes),
		  "%s (RSDP %s); CR0 at entry %#llx, now %#llx%s%s%s%s; absent on %s: the report "
		  "store (UEFI variables) and the screen (GOP)",
		  acpi_result_name(ar), rsdp ? rsdp_from : "not given, none found by the scan",
		  (unsigned long long)direct_entry_cr0, (unsigned long long)cr0,
		  has_madt  ? ""
		  : from_mp ? "; no MADT: the CPUs of the MP table"
			    : "; no MADT: the boot CPU alone (no MP table either), its local "
			      "APIC at IA32_APIC_BASE",
		  g_map_count > HANDOFF_MAX_RANGES ? "; memory map entries beyond 512 ignored" : "",
		  g_ignored[0] ? "; command line words not for pmutest: " : "", g_ignored,
		  is_linux_image(protocol) ? "this boot (Linux-format image)" : "direct boot");
	h->bi.boot_notes = g_notes;
	x86_start(h);
}
