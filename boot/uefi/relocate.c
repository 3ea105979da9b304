/* SPDX-License-Identifier: MIT */
/*
 * Applying the image's own relocations, first thing in efi_main.
 *
 * The image is linked at address 0 and loaded wherever the firmware likes;
 * every pointer stored in its data must then be moved by the load address.
 * GNU-EFI's crt0 does that from ELF RELA entries (24 bytes each: 1,200
 * pointers cost 29 KiB of a 256 KiB budget). pmutest links with
 * -z pack-relative-relocs instead: ld writes the same relocations as RELR
 * (a bitmap of the words to move: a few hundred bytes), crt0 finds no RELA
 * entries, and this function applies the RELR table (the format of the
 * generic ABI's "RELR relative relocations" proposal, DT_RELR):
 *
 *   an even entry is an address: move that word, then continue after it;
 *   an odd entry is a bitmap of the 63 words that follow the last address:
 *   bit i + 1 set = move word i; the next bitmap covers the 63 after.
 *
 * It runs before anything reads a pointer from the data section, so it may
 * use only PC-relative references (hidden symbols) and no pointer table.
 */
#include <stdint.h>

#include "efi_relocate.h"

#define HIDDEN __attribute__((visibility("hidden")))
extern char ImageBase[] HIDDEN;
extern const uint64_t __relr_start[] HIDDEN, __relr_end[] HIDDEN;

void efi_apply_relr(void)
{
	uint64_t base = (uint64_t)(uintptr_t)ImageBase; /* linked at 0 */
	uint64_t *where = 0;

	for (const uint64_t *e = __relr_start; e < __relr_end; e++) {
		if (!(*e & 1)) {
			where = (uint64_t *)(uintptr_t)(base + *e);
			*where++ += base;
			continue;
		}
		uint64_t bits = *e >> 1;
		for (unsigned i = 0; bits; i++, bits >>= 1)
			if (bits & 1)
				where[i] += base;
		where += 63;
	}
}
