/* SPDX-License-Identifier: MIT */
/*
 * The direct-boot front end (boot/direct): what a VMM hands a kernel it
 * boots without firmware, in the two layouts it may use, and the one form
 * direct_main() turns either into before it builds the hand-over.
 *
 * Layouts, from their definitions (facts only):
 *  - hvm_start_info: Xen's public/arch-x86/hvm/start_info.h (the PVH ABI;
 *    version 1 adds the memory map). QEMU (pc, q35, microvm), Firecracker
 *    and Cloud Hypervisor fill it.
 *  - boot_params (the "zero page"): Linux Documentation/arch/x86/
 *    zero-page.rst and boot.rst. crosvm and Firecracker's non-PVH path.
 */
#ifndef PMUTEST_BOOT_DIRECT_H
#define PMUTEST_BOOT_DIRECT_H

#include <stdint.h>

/* Which entry ran (boot/direct/entry.asm passes it). */
enum direct_protocol {
	DIRECT_PVH = 1,	    /* pvh_start32: EBX = hvm_start_info */
	DIRECT_LINUX64 = 2, /* linux64_start: RSI = boot_params */
	/* build/pmutest.bin (boot/linux/entry.asm), boot_params built by a
	 * boot loader (loader.h): startup_32 (ESI), startup_64 (RSI) */
	DIRECT_LINUX_IMAGE32 = 3,
	DIRECT_LINUX_IMAGE64 = 4,
};

#define HVM_START_MAGIC 0x336ec578u

struct __attribute__((packed)) hvm_start_info {
	uint32_t magic;
	uint32_t version; /* 0, or 1 with the memory map */
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr; /* struct hvm_modlist_entry[nr_modules] */
	uint64_t cmdline_paddr; /* NUL-terminated, 0 when none */
	uint64_t rsdp_paddr;	/* 0 when not given (Firecracker) */
	uint64_t memmap_paddr;	/* version >= 1 */
	uint32_t memmap_entries;
	uint32_t reserved;
};

struct __attribute__((packed)) hvm_modlist_entry {
	uint64_t paddr, size, cmdline_paddr, reserved;
};

/* The E820 types (ACPI 6.x Table 15-312, "Address Range Types"). */
enum e820_type {
	E820_RAM = 1,
	E820_RESERVED = 2,
	E820_ACPI = 3,
	E820_NVS = 4,
	E820_UNUSABLE = 5,
	E820_PMEM = 7,
};

/* hvm_memmap_table_entry and the zero page's e820 entries differ only in
 * padding: both are read into this. */
struct e820_entry {
	uint64_t addr, size;
	uint32_t type;
};

/* The zero page fields used, by byte offset (zero-page.rst). */
#define BP_ACPI_RSDP_ADDR     0x070 /* u64, boot protocol 2.14+ */
#define BP_EXT_RAMDISK_IMAGE  0x0C0 /* u32: bits 63:32 of ramdisk_image */
#define BP_EXT_RAMDISK_SIZE   0x0C4
#define BP_EXT_CMD_LINE_PTR   0x0C8
#define BP_EFI_INFO	      0x1C0 /* struct efi_info, 32 bytes */
#define BP_E820_ENTRIES	      0x1E8 /* u8 */
#define BP_HEADER_MAGIC	      0x202 /* "HdrS" */
#define BP_VERSION	      0x206 /* u16: the kernel's boot protocol */
#define BP_TYPE_OF_LOADER     0x210 /* u8: loader ID << 4 | version */
#define BP_RAMDISK_IMAGE      0x218 /* u32 */
#define BP_RAMDISK_SIZE	      0x21C /* u32 */
#define BP_EXT_LOADER_TYPE    0x227 /* u8: ID - 10H when type_of_loader is E?H */
#define BP_CMD_LINE_PTR	      0x228 /* u32 */
#define BP_E820_TABLE	      0x2D0 /* 128 entries of 20 bytes */
#define BP_E820_MAX	      128
#define BP_E820_ENTRY_SIZE    20
#define BP_HEADER_MAGIC_VALUE 0x53726448u /* "HdrS" */

__attribute__((noreturn)) void direct_main(uint64_t info, enum direct_protocol protocol);

#endif
