/* SPDX-License-Identifier: MIT */
/*
 * The report store's compressor (kernel/lz.c): round trips on real KTAP
 * reports (testing/unit/data/) and on hostile input, and a decompressor that never
 * reads or writes outside its buffers on truncated or corrupt streams (the
 * buffers are surrounded by guard bytes that must stay untouched).
 */
#include "lz.h"
#include "unit.h"

#include <stdlib.h>

static struct lz_work work;

#define GUARD 64

/* Compresses and decompresses in[0, n); returns the stream's length. */
static size_t round_trip(const uint8_t *in, size_t n, const char *what)
{
	size_t cap = LZ_BOUND(n);
	uint8_t *z = malloc(cap + 1), *back = malloc(n + 2 * GUARD + 1);
	size_t zn = lz_compress(in, n, z, cap, &work);
	char name[160];
	snprintf(name, sizeof(name), "%s: stream within LZ_BOUND", what);
	UNIT_EQ(zn <= cap && (n == 0 || zn > 0), 1, name);
	memset(back, 0xa5, n + 2 * GUARD);
	size_t got = 0;
	enum lz_status st = lz_decompress(z, zn, back + GUARD, n, &got);
	snprintf(name, sizeof(name), "%s: decodes whole", what);
	UNIT_EQ(st, LZ_OK, name);
	snprintf(name, sizeof(name), "%s: round trip is exact", what);
	UNIT_EQ(got == n && memcmp(back + GUARD, in, n) == 0, 1, name);
	int guards = 1;
	for (size_t i = 0; i < GUARD; i++)
		guards &= back[i] == 0xa5 && back[GUARD + n + i] == 0xa5;
	snprintf(name, sizeof(name), "%s: nothing written outside the output", what);
	UNIT_EQ(guards, 1, name);
	/* Every truncation decodes a correct prefix and says so. */
	int prefixes_ok = 1;
	for (size_t cut = 0; cut < zn; cut += 1 + zn / 97) {
		size_t p = 0;
		enum lz_status s = lz_decompress(z, cut, back + GUARD, n, &p);
		prefixes_ok &=
		    (s == LZ_OK || s == LZ_TRUNCATED) && p <= n && memcmp(back + GUARD, in, p) == 0;
	}
	snprintf(name, sizeof(name), "%s: truncated streams give a correct prefix", what);
	UNIT_EQ(prefixes_ok, 1, name);
	/* A too-small output is an overflow, never a write past it. */
	if (n > 1) {
		memset(back, 0xa5, n + 2 * GUARD);
		size_t p = 0;
		enum lz_status s = lz_decompress(z, zn, back + GUARD, n - 1, &p);
		int g = 1;
		for (size_t i = n - 1; i < n - 1 + GUARD; i++)
			g &= back[GUARD + i] == 0xa5;
		snprintf(name, sizeof(name), "%s: one byte short of room is LZ_OVERFLOW", what);
		UNIT_EQ(s == LZ_OVERFLOW && p <= n - 1 && g, 1, name);
	}
	free(z);
	free(back);
	return zn;
}

static uint8_t *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *buf = malloc(1 << 20);
	*n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void real_report(const char *path, size_t max_ratio_pct)
{
	size_t n = 0;
	uint8_t *text = read_file(path, &n);
	UNIT_EQ(text != NULL && n > 1000, 1, path);
	if (!text)
		return;
	size_t zn = round_trip(text, n, path);
	printf("# %s: %zu -> %zu bytes (%zu%%)\n", path, n, zn, zn * 100 / n);
	char name[200];
	snprintf(name, sizeof(name), "%s: compressed to at most %zu%%", path, max_ratio_pct);
	UNIT_EQ(zn * 100 <= n * max_ratio_pct, 1, name);
	free(text);
}

/* Streams no compressor writes: bad offsets, overflow, random garbage. */
static void hostile_streams(void)
{
	uint8_t out[300 + 2 * GUARD];
	size_t p;
	const uint8_t zero_offset[] = {0x00, 'a', 0x80, 0x00, 0x00};
	UNIT_EQ(lz_decompress(zero_offset, sizeof(zero_offset), out, 300, &p), LZ_BAD_OFFSET,
		"offset 0 is rejected");
	UNIT_EQ(p, 1, "offset 0: the literal before it was decoded");
	const uint8_t before_start[] = {0x01, 'a', 'b', 0x80, 0x03, 0x00};
	UNIT_EQ(lz_decompress(before_start, sizeof(before_start), out, 300, &p), LZ_BAD_OFFSET,
		"a match before the start of the output is rejected");
	const uint8_t first_match[] = {0xff, 0x01, 0x00};
	UNIT_EQ(lz_decompress(first_match, sizeof(first_match), out, 300, &p), LZ_BAD_OFFSET,
		"a match as the first token is rejected");
	const uint8_t short_run[] = {0x10, 'a', 'b'};
	UNIT_EQ(lz_decompress(short_run, sizeof(short_run), out, 300, &p), LZ_TRUNCATED,
		"a literal run longer than the stream is truncation");
	UNIT_EQ(p, 0, "truncated run: nothing decoded");
	const uint8_t half_match[] = {0x00, 'a', 0x85, 0x01};
	UNIT_EQ(lz_decompress(half_match, sizeof(half_match), out, 300, &p), LZ_TRUNCATED,
		"a match cut in its offset is truncation");
	const uint8_t big[] = {0x00, 'a', 0xff, 0x01, 0x00, 0xff, 0x01, 0x00, 0xff, 0x01, 0x00};
	memset(out, 0xa5, sizeof(out));
	UNIT_EQ(lz_decompress(big, sizeof(big), out + GUARD, 200, &p), LZ_OVERFLOW,
		"a stream decoding past the capacity is overflow");
	int g = 1;
	for (size_t i = GUARD + 200; i < sizeof(out); i++)
		g &= out[i] == 0xa5;
	UNIT_EQ(g && p <= 200, 1, "overflow: nothing written past the capacity");
	UNIT_EQ(lz_decompress(NULL, 0, out, 0, &p) == LZ_OK && p == 0, 1,
		"an empty stream is an empty output");

	/* Random streams into a small guarded buffer: never a write outside. */
	srand(14);
	uint8_t junk[512], small[64 + 2 * GUARD];
	int all_guarded = 1;
	for (int t = 0; t < 20000; t++) {
		size_t n = (size_t)rand() % sizeof(junk);
		for (size_t i = 0; i < n; i++)
			junk[i] = (uint8_t)rand();
		memset(small, 0xa5, sizeof(small));
		lz_decompress(junk, n, small + GUARD, 64, &p);
		for (size_t i = 0; i < GUARD; i++)
			all_guarded &= small[i] == 0xa5 && small[GUARD + 64 + i] == 0xa5;
		all_guarded &= p <= 64;
	}
	UNIT_EQ(all_guarded, 1, "20000 random streams: no write outside the output");
}

int main(int argc, char **argv)
{
	const char *data = argc > 1 ? argv[1] : "testing/unit/data";
	char path[400];
	snprintf(path, sizeof(path), "%s/report-qemu-tcg.ktap", data);
	real_report(path, 30);
	snprintf(path, sizeof(path), "%s/report-sim-kvm-amd-zen4.ktap", data);
	real_report(path, 30);

	UNIT_EQ(round_trip((const uint8_t *)"", 0, "empty input"), 0, "empty input: empty stream");
	round_trip((const uint8_t *)"x", 1, "one byte");
	round_trip((const uint8_t *)"abcabcabcabcabcab", 17, "short overlapping repeat");

	size_t big = 256 * 1024;
	uint8_t *buf = malloc(big);
	memset(buf, 'A', big);
	size_t zn = round_trip(buf, big, "256 KiB of one byte");
	UNIT_EQ(zn < big * 3 / 100, 1, "256 KiB of one byte: under 3% of its size");

	srand(1);
	for (size_t i = 0; i < big; i++)
		buf[i] = (uint8_t)rand();
	zn = round_trip(buf, big, "256 KiB of random bytes");
	UNIT_EQ(zn <= LZ_BOUND(big), 1, "random bytes: no worse than LZ_BOUND");
	UNIT_EQ(lz_compress(buf, big, buf, 0, &work), 0, "a stream that does not fit gives 0");
	free(buf);

	hostile_streams();
	return unit_done();
}
