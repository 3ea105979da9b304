/* SPDX-License-Identifier: MIT */
/*
 * What a VMM handed over, read and judged before anything uses it: the PVH
 * start_info or the Linux zero page (direct.h), the command line, module 0
 * and the memory map. Machine-independent: every guest-physical read goes
 * through bootdata_reader.map, so direct_main.c runs it on the machine
 * (identity, below 4 GiB) and testing/unit/test_bootdata.c on a buffer with each
 * malformation injected.
 *
 * Every reader returns NULL when the data is sound, else one line naming
 * what is wrong (in err): the run then ends with verdict ERROR and that
 * line (direct_main.c fatal()), never a hang, a wrong cause or a PASS.
 */
#ifndef PMUTEST_BOOT_DIRECT_BOOTDATA_H
#define PMUTEST_BOOT_DIRECT_BOOTDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "direct.h"

struct bootdata_reader {
	/* phys .. phys + len readable: its address, else NULL. */
	const void *(*map)(void *ctx, uint64_t phys, uint64_t len);
	void *ctx;
};

/* What either layout says, before it is copied. */
struct boot_data {
	const char *protocol;
	uint64_t cmdline, rsdp, module, module_size;
	bool has_module;
	struct e820_entry *map; /* map_cap entries; map_count may exceed it */
	uint32_t map_cap, map_count;
};

const char *bootdata_pvh(const struct bootdata_reader *r, uint64_t info, struct boot_data *d,
			 char *err, size_t err_size);
const char *bootdata_linux64(const struct bootdata_reader *r, uint64_t info, struct boot_data *d,
			     char *err, size_t err_size);
/* The command line into out (out_size bytes with its NUL; none given: ""),
 * then module 0 against the memory map and max_module bytes. */
const char *bootdata_check(const struct bootdata_reader *r, const struct boot_data *d, char *out,
			   size_t out_size, uint64_t max_module, char *err, size_t err_size);

#endif
