/* SPDX-License-Identifier: MIT */
/*
 * The stored report's layout in UEFI variables, shared by the loader that
 * writes and reads it (boot/uefi/report_store.c) and the Linux reader of
 * efivarfs (tools/report_efivars.c). Plain C types only: no UEFI headers.
 *
 * Variables (vendor GUID REPORT_GUID_TEXT): "PmutestReport" holds a
 * struct report_meta; "PmutestReport000", "001"... hold, in order, the
 * chunks of an lz_compress stream (kernel/lz.h) of the report's text.
 */
#ifndef PMUTEST_REPORT_FORMAT_H
#define PMUTEST_REPORT_FORMAT_H

#include <stdint.h>

#include "lz.h"

/* {706d7574-6573-7421-9a3c-5265706f7274}: "pmut" "es" "t!" .. "Report" */
#define REPORT_GUID_TEXT  "706d7574-6573-7421-9a3c-5265706f7274"
#define REPORT_VAR_NAME	  "PmutestReport"
#define CHUNK_SIZE	  4000 /* below every firmware's per-variable limit seen */
#define REPORT_CAP	  (64 * 1024)
#define MAX_CHUNKS	  ((REPORT_CAP + CHUNK_SIZE - 1) / CHUNK_SIZE + 1)
#define REPORT_MAGIC	  0x50524d50u /* "PMRP" */
#define REPORT_FORMAT_LZ1 1u	      /* the chunks hold an lz_compress stream */

struct report_meta {
	uint32_t magic;
	uint32_t chunks;
	uint64_t stored;   /* bytes in the chunks (the compressed stream) */
	uint64_t original; /* bytes of the report the kernel produced */
	uint32_t complete; /* every chunk was written */
	char name[52];	   /* the machine, from the kernel */
	char date[16];	   /* YYYYMMDD-HHMMSS when stored, "" if no clock */
	uint32_t format;   /* REPORT_FORMAT_LZ1; older pmutests had no field */
	uint32_t text_sum; /* lz_checksum of the stored text */
	uint64_t text_len; /* bytes of the stored text (decompressed) */
};

enum report_text {
	REPORT_TEXT_WHOLE,   /* decoded to the stored length and checksum */
	REPORT_TEXT_PART,    /* the run could not store it all: a correct prefix */
	REPORT_TEXT_CORRUPT, /* anything else: never written out */
};

/* What lz_decompress made of a store's chunks (st, text[0, produced)). */
static inline enum report_text report_text_check(const struct report_meta *m, enum lz_status st,
						 const uint8_t *text, size_t produced)
{
	if (st == LZ_OK && produced == m->text_len && lz_checksum(text, produced) == m->text_sum)
		return REPORT_TEXT_WHOLE;
	if (!m->complete && (st == LZ_OK || st == LZ_TRUNCATED))
		return REPORT_TEXT_PART;
	return REPORT_TEXT_CORRUPT;
}

#endif
