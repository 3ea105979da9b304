/* SPDX-License-Identifier: MIT */
/*
 * A small LZ77 byte compressor for the stored report (boot/uefi/report_store.c):
 * KTAP text repeats itself line after line, and every byte kept in UEFI
 * variables costs flash writes, so the report is stored compressed.
 *
 * The stream is a sequence of tokens; c is the token's first byte:
 *   c <  0x80  literal run: the next c + 1 bytes are copied as they are;
 *   c >= 0x80  match: (c & 0x7f) + LZ_MIN_MATCH bytes are copied from
 *              `offset` bytes back in the output, offset being the next
 *              two bytes, little-endian, 1 <= offset <= LZ_WINDOW - 1.
 * Nothing else: the stream carries no length or checksum, the caller keeps
 * those (the report store's metadata) and checks them.
 */
#ifndef PMUTEST_LZ_H
#define PMUTEST_LZ_H

#include <stddef.h>
#include <stdint.h>

#define LZ_MIN_MATCH 4 /* a match (3 bytes) always saves a byte: LZ_BOUND holds */
#define LZ_MAX_MATCH (0x7f + LZ_MIN_MATCH)
#define LZ_MAX_RUN   0x80
#define LZ_WINDOW    32768
#define LZ_HASH_BITS 12
#define LZ_CHAIN_MAX 32

/* The compressor's work area (about 144 KiB: callers keep it in .bss). */
struct lz_work {
	uint32_t head[1u << LZ_HASH_BITS]; /* position + 1 of a hash's latest, 0 = none */
	uint32_t prev[LZ_WINDOW];	   /* position + 1 of the previous same-hash */
};

/* The largest stream lz_compress can write for n input bytes. */
#define LZ_BOUND(n) ((n) + (n) / LZ_MAX_RUN + 1)

/* Compresses in[0, n) into out; returns the stream's length, or 0 when it
 * does not fit in cap (cap >= LZ_BOUND(n) always fits; n = 0 gives 0). */
size_t lz_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, struct lz_work *w);

enum lz_status {
	LZ_OK,	       /* the whole stream was decoded */
	LZ_TRUNCATED,  /* the stream ends inside a token */
	LZ_BAD_OFFSET, /* a match reaches before the start of the output */
	LZ_OVERFLOW,   /* the output would exceed its capacity */
};

/* Decodes in[0, n) into out[0, cap); never reads or writes outside them.
 * *produced is the output decoded so far, a correct prefix even on error. */
enum lz_status lz_decompress(const uint8_t *in, size_t n, uint8_t *out, size_t cap,
			     size_t *produced);

/* FNV-1a over data[0, n): the check a caller keeps next to a stream, so
 * that a corrupt stream that still decodes is caught. */
uint32_t lz_checksum(const uint8_t *data, size_t n);

#endif
