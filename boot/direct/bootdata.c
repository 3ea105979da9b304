/* SPDX-License-Identifier: MIT */
/*
 * The boot data's readers and judges (bootdata.h). What each rejects, and
 * why it cannot be read past: a memory map or module list the kernel
 * cannot reach (beyond 4 GiB, where entry.asm maps nothing), a zero page
 * that claims more E820 entries than its table has (128), a command line
 * with no NUL within the kernel's buffer (taken cut, its last words would
 * be lost or half-read), module 0 outside the RAM the memory map lists or
 * larger than an options file. Too few entries, no module and no command
 * line are not errors: a VMM may give none.
 */
#include "bootdata.h"
#include "le.h"

#include "ktap.h"

#define HVM_MEMMAP_STRIDE 24 /* hvm_memmap_table_entry: addr, size, type, reserved */

/* One line into err (n bytes), returned. */
#define ULL(x)	  ((unsigned long long)(x))
#define FAIL(...) (ksnprintf(err, n, __VA_ARGS__), (const char *)err)

static void add(struct boot_data *d, uint64_t addr, uint64_t size, uint32_t type)
{
	if (d->map_count < d->map_cap)
		d->map[d->map_count] = (struct e820_entry){addr, size, type};
	d->map_count++;
}

const char *bootdata_pvh(const struct bootdata_reader *r, uint64_t info, struct boot_data *d,
			 char *err, size_t n)
{
	const struct hvm_start_info *si = r->map(r->ctx, info, sizeof(*si));
	if (!si || si->magic != HVM_START_MAGIC)
		return FAIL("EBX (%#llx) does not point at a PVH start_info (magic 336EC578H)",
			    ULL(info));
	d->protocol = si->version >= 1 ? "PVH start_info v1" : "PVH start_info v0";
	d->cmdline = si->cmdline_paddr;
	d->rsdp = si->rsdp_paddr;
	if (si->nr_modules) {
		const struct hvm_modlist_entry *m = r->map(r->ctx, si->modlist_paddr, sizeof(*m));
		if (!m)
			return FAIL("start_info's module list (%llu entries at %#llx) is not in "
				    "memory the kernel can read",
				    ULL(si->nr_modules), ULL(si->modlist_paddr));
		d->has_module = true;
		d->module = m->paddr;
		d->module_size = m->size;
	}
	if (si->version < 1 || !si->memmap_entries)
		return NULL;
	const uint8_t *map =
	    r->map(r->ctx, si->memmap_paddr, (uint64_t)si->memmap_entries * HVM_MEMMAP_STRIDE);
	if (!map)
		return FAIL("start_info's memory map (%llu entries at %#llx) is not in memory the "
			    "kernel can read",
			    ULL(si->memmap_entries), ULL(si->memmap_paddr));
	for (uint32_t i = 0; i < si->memmap_entries; i++) {
		const uint8_t *e = map + (uint64_t)i * HVM_MEMMAP_STRIDE;
		add(d, le_read(e, 0, 8), le_read(e, 8, 8), (uint32_t)le_read(e, 16, 4));
	}
	return NULL;
}

const char *bootdata_linux64(const struct bootdata_reader *r, uint64_t info, struct boot_data *d,
			     char *err, size_t n)
{
	const uint8_t *bp = r->map(r->ctx, info, 4096);
	if (!bp)
		return FAIL("RSI (%#llx) does not point at a boot_params page below 4 GiB",
			    ULL(info));
	d->protocol = le_read(bp, BP_HEADER_MAGIC, 4) == BP_HEADER_MAGIC_VALUE
			  ? "Linux 64-bit boot protocol"
			  : "Linux 64-bit boot protocol (no HdrS header)";
	d->cmdline = le_read(bp, BP_CMD_LINE_PTR, 4) | le_read(bp, BP_EXT_CMD_LINE_PTR, 4) << 32;
	d->rsdp = le_read(bp, BP_ACPI_RSDP_ADDR, 8);
	d->module = le_read(bp, BP_RAMDISK_IMAGE, 4) | le_read(bp, BP_EXT_RAMDISK_IMAGE, 4) << 32;
	d->module_size = le_read(bp, BP_RAMDISK_SIZE, 4) | le_read(bp, BP_EXT_RAMDISK_SIZE, 4)
							       << 32;
	d->has_module = d->module != 0;
	uint32_t count = bp[BP_E820_ENTRIES];
	if (count > BP_E820_MAX)
		return FAIL("boot_params says %llu E820 entries; its table (at 2D0H) has %llu",
			    ULL(count), ULL(BP_E820_MAX));
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *e = bp + BP_E820_TABLE + i * BP_E820_ENTRY_SIZE;
		add(d, le_read(e, 0, 8), le_read(e, 8, 8), (uint32_t)le_read(e, 16, 4));
	}
	return NULL;
}

/* Whether [addr, addr + size) lies inside one RAM entry of the map. */
static bool in_ram(const struct boot_data *d, uint64_t addr, uint64_t size)
{
	uint32_t count = d->map_count < d->map_cap ? d->map_count : d->map_cap;
	for (uint32_t i = 0; i < count; i++) {
		const struct e820_entry *e = &d->map[i];
		if (e->type == E820_RAM && addr >= e->addr && addr + size >= addr &&
		    addr + size <= e->addr + e->size)
			return true;
	}
	return false;
}

const char *bootdata_check(const struct bootdata_reader *r, const struct boot_data *d, char *out,
			   size_t out_size, uint64_t max_module, char *err, size_t n)
{
	size_t len = 0;

	out[0] = '\0';
	if (d->cmdline) {
		const char *cl = r->map(r->ctx, d->cmdline, 1);
		if (!cl)
			return FAIL(
			    "the command line (at %#llx) is not in memory the kernel can read",
			    ULL(d->cmdline));
		for (; len < out_size; len++) {
			const char *c = r->map(r->ctx, d->cmdline + len, 1);
			if (!c)
				return FAIL("the command line (at %#llx) runs past readable memory "
					    "without its NUL",
					    ULL(d->cmdline));
			out[len] = *c;
			if (!*c)
				break;
		}
		if (len == out_size) {
			out[0] = '\0';
			return FAIL("the command line (at %#llx) is longer than %llu bytes (no NUL "
				    "within them)",
				    ULL(d->cmdline), ULL(out_size - 1));
		}
	}
	if (!d->has_module)
		return NULL;
	if (d->module_size > max_module)
		return FAIL("module 0 is %llu bytes, more than an options file's %llu",
			    ULL(d->module_size), ULL(max_module));
	if (!in_ram(d, d->module, d->module_size) ||
	    !r->map(r->ctx, d->module, d->module_size ? d->module_size : 1))
		return FAIL("module 0 (%llu bytes at %#llx) is not in the RAM the memory "
			    "map lists",
			    ULL(d->module_size), ULL(d->module));
	return NULL;
}
