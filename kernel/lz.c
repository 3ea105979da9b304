/* SPDX-License-Identifier: MIT */
/*
 * The LZ77 compressor of kernel/lz.h: greedy parsing, candidates from a
 * hash of the next three bytes chained through the window (at most
 * LZ_CHAIN_MAX tried, the longest and then nearest kept).
 */
#include "lz.h"

static uint32_t hash3(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
	return (v * 2654435761u) >> (32 - LZ_HASH_BITS);
}

static void insert(struct lz_work *w, const uint8_t *in, size_t n, size_t pos)
{
	if (pos + LZ_MIN_MATCH > n)
		return;
	uint32_t h = hash3(in + pos);
	w->prev[pos % LZ_WINDOW] = w->head[h];
	w->head[h] = (uint32_t)pos + 1;
}

/* The longest match for in[pos..] in the window; its length (0 if none
 * reaches LZ_MIN_MATCH) and, through *offset, its distance. */
static size_t longest(const struct lz_work *w, const uint8_t *in, size_t n, size_t pos,
		      size_t *offset)
{
	size_t best = 0, limit = n - pos < LZ_MAX_MATCH ? n - pos : LZ_MAX_MATCH;
	if (limit < LZ_MIN_MATCH)
		return 0;
	uint32_t cand = w->head[hash3(in + pos)];
	for (unsigned tries = 0; cand && tries < LZ_CHAIN_MAX; tries++) {
		size_t c = cand - 1;
		/* Stale links (overwritten slots) point forward or out of reach. */
		if (c >= pos || pos - c >= LZ_WINDOW)
			break;
		size_t len = 0;
		while (len < limit && in[c + len] == in[pos + len])
			len++;
		if (len > best) {
			best = len;
			*offset = pos - c;
			if (len == limit)
				break;
		}
		uint32_t next = w->prev[c % LZ_WINDOW];
		if (next >= cand)
			break;
		cand = next;
	}
	return best >= LZ_MIN_MATCH ? best : 0;
}

size_t lz_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, struct lz_work *w)
{
	for (size_t i = 0; i < (1u << LZ_HASH_BITS); i++)
		w->head[i] = 0;
	size_t o = 0, pos = 0, lit = 0; /* lit: start of the pending literal run */
	while (pos <= n) {
		size_t offset = 0, len = pos < n ? longest(w, in, n, pos, &offset) : 0;
		/* Flush the pending literals before a match, at a full run, at the end. */
		if (pos > lit && (len || pos - lit == LZ_MAX_RUN || pos == n)) {
			size_t run = pos - lit;
			if (o + 1 + run > cap)
				return 0;
			out[o++] = (uint8_t)(run - 1);
			for (size_t i = 0; i < run; i++)
				out[o++] = in[lit + i];
			lit = pos;
		}
		if (pos == n)
			break;
		if (!len) {
			insert(w, in, n, pos++);
			continue;
		}
		if (o + 3 > cap)
			return 0;
		out[o++] = (uint8_t)(0x80 | (len - LZ_MIN_MATCH));
		out[o++] = (uint8_t)offset;
		out[o++] = (uint8_t)(offset >> 8);
		for (size_t end = pos + len; pos < end; pos++)
			insert(w, in, n, pos);
		lit = pos;
	}
	return o;
}

enum lz_status lz_decompress(const uint8_t *in, size_t n, uint8_t *out, size_t cap,
			     size_t *produced)
{
	size_t i = 0, o = 0;
	enum lz_status st = LZ_OK;
	while (i < n) {
		uint8_t c = in[i];
		if (c < 0x80) {
			size_t run = (size_t)c + 1;
			if (n - i - 1 < run) {
				st = LZ_TRUNCATED;
				break;
			}
			if (cap - o < run) {
				st = LZ_OVERFLOW;
				break;
			}
			for (size_t k = 0; k < run; k++)
				out[o + k] = in[i + 1 + k];
			o += run;
			i += 1 + run;
			continue;
		}
		if (n - i < 3) {
			st = LZ_TRUNCATED;
			break;
		}
		size_t len = (size_t)(c & 0x7f) + LZ_MIN_MATCH;
		size_t offset = (size_t)in[i + 1] | (size_t)in[i + 2] << 8;
		if (offset == 0 || offset > o) {
			st = LZ_BAD_OFFSET;
			break;
		}
		if (cap - o < len) {
			st = LZ_OVERFLOW;
			break;
		}
		for (size_t k = 0; k < len; k++) /* byte by byte: overlapping copies repeat */
			out[o + k] = out[o + k - offset];
		o += len;
		i += 3;
	}
	*produced = o;
	return st;
}

uint32_t lz_checksum(const uint8_t *data, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ data[i]) * 16777619u;
	return h;
}
