/* SPDX-License-Identifier: MIT */
/*
 * boot/direct/bootdata.c on a fake guest: 1 MiB of "physical memory" in a
 * buffer (nothing beyond it is readable, as nothing beyond 4 GiB is on the
 * machine), a sound PVH start_info and zero page as Firecracker, Cloud
 * Hypervisor and crosvm write them, then one malformation per case. Each
 * bad case must give an error naming that cause, never NULL and never
 * another cause.
 */
#include "bootdata.h"
#include "unit.h"

#define PHYS	  (1u << 20)
#define INFO	  0x6000
#define MODLIST	  0x6040
#define MEMMAP	  0x7000
#define CMDLINE	  0x20000
#define MODULE	  0x30000
#define OUT_BYTES 4096

static uint8_t phys[PHYS];

static const void *map(void *ctx, uint64_t p, uint64_t len)
{
	(void)ctx;
	return p && p + len >= p && p + len <= PHYS ? phys + p : NULL;
}

static const struct bootdata_reader reader = {map, NULL};

static void put(uint64_t at, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		phys[at + i] = (uint8_t)(v >> (8 * i));
}

/* Firecracker's start_info (mod.rs:305-395) with a module (64 bytes) and
 * a command line; the memory map [0,9FC00H) RAM, [9FC00H,100000H)
 * reserved (cut to this fake's 1 MiB: RAM to the end is not needed). */
static void pvh_sound(void)
{
	memset(phys, 0, sizeof(phys));
	put(INFO, HVM_START_MAGIC, 4);
	put(INFO + 4, 1, 4);
	put(INFO + 12, 1, 4);
	put(INFO + 16, MODLIST, 8);
	put(INFO + 24, CMDLINE, 8);
	put(INFO + 40, MEMMAP, 8);
	put(INFO + 48, 2, 4);
	put(MEMMAP, 0, 8);
	put(MEMMAP + 8, 0x9FC00, 8);
	put(MEMMAP + 16, E820_RAM, 4);
	put(MEMMAP + 24, 0x9FC00, 8);
	put(MEMMAP + 32, 0x60400, 8);
	put(MEMMAP + 40, E820_RESERVED, 4);
	put(MODLIST, MODULE, 8);
	put(MODLIST + 8, 64, 8);
	memcpy(phys + CMDLINE, "console=ttyS0 suites=cpuid", 27);
}

/* crosvm's zero page (x86_64/src/lib.rs:575-625): HdrS, the command line,
 * two E820 entries. */
static void linux64_sound(void)
{
	memset(phys, 0, sizeof(phys));
	put(MEMMAP + BP_HEADER_MAGIC, BP_HEADER_MAGIC_VALUE, 4);
	put(MEMMAP + BP_CMD_LINE_PTR, CMDLINE, 4);
	phys[MEMMAP + BP_E820_ENTRIES] = 2;
	put(MEMMAP + BP_E820_TABLE, 0, 8);
	put(MEMMAP + BP_E820_TABLE + 8, 0xA0000, 8);
	put(MEMMAP + BP_E820_TABLE + 16, E820_RAM, 4);
	put(MEMMAP + BP_E820_TABLE + 20, 0xA0000, 8);
	put(MEMMAP + BP_E820_TABLE + 28, 0x60000, 8);
	put(MEMMAP + BP_E820_TABLE + 36, E820_RESERVED, 4);
	memcpy(phys + CMDLINE, "console=ttyS0", 14);
}

static struct e820_entry entries[8];
static char out[OUT_BYTES], err[160];

/* Read and check as direct_main.c does; the first error, or NULL. */
static const char *boot(int pvh, uint64_t info, struct boot_data *d)
{
	*d = (struct boot_data){.map = entries, .map_cap = 8};
	const char *e = pvh ? bootdata_pvh(&reader, info, d, err, sizeof(err))
			    : bootdata_linux64(&reader, info, d, err, sizeof(err));
	return e ? e : bootdata_check(&reader, d, out, sizeof(out), 4096, err, sizeof(err));
}

static void expect_error(const char *got, const char *cause, const char *name)
{
	char d[240];
	snprintf(d, sizeof(d), "wanted an error naming \"%s\", got \"%s\"", cause,
		 got ? got : "(none)");
	unit_result(got && strstr(got, cause), name, __FILE__, __LINE__, d);
}

int main(void)
{
	struct boot_data d;

	pvh_sound();
	UNIT_EQ(boot(1, INFO, &d) == NULL, 1, "PVH: Firecracker's start_info is sound");
	UNIT_EQ(d.map_count, 2, "PVH: two memory map entries");
	UNIT_EQ(d.module, MODULE, "PVH: module 0's address");
	UNIT_EQ(strcmp(out, "console=ttyS0 suites=cpuid"), 0, "PVH: the command line copied");

	pvh_sound();
	put(INFO, 0x12345678, 4);
	expect_error(boot(1, INFO, &d), "does not point at a PVH start_info", "PVH: wrong magic");
	pvh_sound();
	expect_error(boot(1, 0x200000000ull, &d), "does not point at a PVH start_info",
		     "PVH: EBX beyond reachable memory");
	pvh_sound();
	put(INFO + 40, 0x200000000ull, 8);
	expect_error(boot(1, INFO, &d), "memory map (2 entries at 0x200000000)",
		     "PVH: memory map beyond reachable memory");
	pvh_sound();
	put(INFO + 48, 0xFFFFFFFFu, 4);
	expect_error(boot(1, INFO, &d), "memory map (4294967295 entries",
		     "PVH: memmap_entries 2^32-1 (runs past memory)");
	pvh_sound();
	put(INFO + 16, 0x300000000ull, 8);
	expect_error(boot(1, INFO, &d), "module list (1 entries at 0x300000000)",
		     "PVH: module list beyond reachable memory");
	pvh_sound();
	put(MODLIST, 0xA0000, 8); /* reserved, not RAM */
	expect_error(boot(1, INFO, &d), "module 0 (64 bytes at 0xa0000) is not in the RAM",
		     "PVH: module 0 in reserved memory");
	pvh_sound();
	put(MODLIST, 0x9FC00 - 32, 8); /* straddles the end of RAM */
	expect_error(boot(1, INFO, &d), "is not in the RAM", "PVH: module 0 across RAM's end");
	pvh_sound();
	put(MODLIST + 8, 0xFFFFFFFFFFFFFFF0ull, 8);
	expect_error(boot(1, INFO, &d), "more than an options file's 4096",
		     "PVH: module 0 of 2^64-16 bytes");
	pvh_sound();
	put(MODLIST + 8, 5000, 8);
	expect_error(boot(1, INFO, &d), "module 0 is 5000 bytes", "PVH: module 0 too large");

	/* Command lines: 4095 characters fit, 4096 do not; one with no NUL
	 * before readable memory ends; one the kernel cannot reach. */
	pvh_sound();
	memset(phys + CMDLINE, 'a', OUT_BYTES - 1);
	phys[CMDLINE + OUT_BYTES - 1] = 0;
	UNIT_EQ(boot(1, INFO, &d) == NULL, 1, "command line of 4095 bytes: taken");
	UNIT_EQ(strlen(out), OUT_BYTES - 1, "all 4095 copied");
	pvh_sound();
	memset(phys + CMDLINE, 'a', OUT_BYTES);
	expect_error(boot(1, INFO, &d), "is longer than 4095 bytes", "command line of 4096 bytes");
	UNIT_EQ(out[0], 0, "nothing of it kept");
	pvh_sound();
	put(INFO + 24, PHYS - 100, 8);
	memset(phys + PHYS - 100, 'a', 100);
	expect_error(boot(1, INFO, &d), "runs past readable memory without its NUL",
		     "command line at the end of memory");
	pvh_sound();
	put(INFO + 24, 0x400000000ull, 8);
	expect_error(boot(1, INFO, &d), "command line (at 0x400000000) is not in memory",
		     "command line beyond reachable memory");
	pvh_sound();
	put(INFO + 24, 0, 8);
	put(INFO + 12, 0, 4);
	UNIT_EQ(boot(1, INFO, &d) == NULL, 1, "no command line, no module: sound");
	UNIT_EQ(strcmp(out, ""), 0, "an empty command line");

	/* Version 0: no memory map (direct_main says "no memory map with RAM"). */
	pvh_sound();
	put(INFO + 4, 0, 4);
	put(INFO + 12, 0, 4); /* with a module, it would not be in listed RAM */
	UNIT_EQ(boot(1, INFO, &d) == NULL && d.map_count == 0, 1,
		"start_info v0: no map, no error");

	linux64_sound();
	UNIT_EQ(boot(0, MEMMAP, &d) == NULL, 1, "Linux64: crosvm's zero page is sound");
	UNIT_EQ(d.map_count, 2, "Linux64: two E820 entries");
	UNIT_EQ(strcmp(out, "console=ttyS0"), 0, "Linux64: the command line copied");
	linux64_sound();
	expect_error(boot(0, 0x100000000ull, &d), "RSI (0x100000000) does not point",
		     "Linux64: RSI beyond reachable memory");
	linux64_sound();
	phys[MEMMAP + BP_E820_ENTRIES] = 200;
	expect_error(boot(0, MEMMAP, &d), "says 200 E820 entries; its table (at 2D0H) has 128",
		     "Linux64: e820_entries 200");
	linux64_sound();
	put(MEMMAP + BP_RAMDISK_IMAGE, 0xF0000, 4);
	put(MEMMAP + BP_RAMDISK_SIZE, 64, 4);
	expect_error(boot(0, MEMMAP, &d), "module 0 (64 bytes at 0xf0000) is not in the RAM",
		     "Linux64: ramdisk in reserved memory");
	return unit_done();
}
