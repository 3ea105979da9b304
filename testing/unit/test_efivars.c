/* SPDX-License-Identifier: MIT */
/*
 * pmutest-efivars (tools/report_efivars.c) on an efivarfs-like directory
 * laid out as boot/uefi/report_store.c stores a report: a real report comes
 * back byte for byte; corrupt, old-format, missing and cut-short stores
 * are told apart and never give garbage.
 */
#include "lz.h"
#include "report_efivars.h"
#include "report_format.h"
#include "unit.h"

#include <stdlib.h>
#include <unistd.h>

static struct lz_work work;
static uint8_t text[REPORT_CAP], packed[LZ_BOUND(REPORT_CAP)];
static char dir[] = "/tmp/pmutest-efivars-XXXXXX";

static void write_var(const char *name, const void *data, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s-%s", dir, name, REPORT_GUID_TEXT);
	FILE *f = fopen(path, "wb");
	fwrite("\x07\0\0\0", 1, 4, f); /* NV | BS | RT */
	fwrite(data, 1, len, f);
	fclose(f);
}

/* Stores text[0, n) as the loader does; returns the chunk count. */
static unsigned store(size_t n, struct report_meta *m)
{
	size_t total = lz_compress(text, n, packed, sizeof(packed), &work), done = 0;
	unsigned chunks = 0;
	for (; done < total; chunks++) {
		size_t k = total - done < CHUNK_SIZE ? total - done : CHUNK_SIZE;
		char name[32];
		snprintf(name, sizeof(name), "%s%03u", REPORT_VAR_NAME, chunks);
		write_var(name, packed + done, k);
		done += k;
	}
	memset(m, 0, sizeof(*m));
	m->magic = REPORT_MAGIC;
	m->format = REPORT_FORMAT_LZ1;
	m->chunks = chunks;
	m->stored = done;
	m->original = n;
	m->text_len = n;
	m->text_sum = lz_checksum(text, n);
	m->complete = 1;
	write_var(REPORT_VAR_NAME, m, sizeof(*m));
	return chunks;
}

/* Runs the reader; returns its exit code, *out_len what it printed. */
static int run(size_t *out_len, uint8_t *out, size_t cap)
{
	FILE *o = tmpfile(), *e = tmpfile();
	int rc = report_efivars(dir, o, e);
	rewind(o);
	*out_len = fread(out, 1, cap, o);
	fclose(o);
	fclose(e);
	return rc;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "testing/unit/data/report-qemu-tcg.ktap";
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(text, 1, sizeof(text), f) : 0;
	if (f)
		fclose(f);
	UNIT_TRUE(n > 1000, "a real report to store");
	UNIT_TRUE(mkdtemp(dir) != NULL, "a scratch efivarfs directory");
	static uint8_t out[REPORT_CAP * 2];
	size_t got;
	struct report_meta m;

	UNIT_EQ(run(&got, out, sizeof(out)), 1, "no stored report: exit 1");
	UNIT_EQ(got, 0, "no stored report: nothing printed");

	unsigned chunks = store(n, &m);
	UNIT_TRUE(chunks >= 1, "the report is stored in chunks");
	UNIT_EQ(run(&got, out, sizeof(out)), 0, "a stored report: exit 0");
	UNIT_TRUE(got == n && memcmp(out, text, n) == 0,
		  "a stored report comes back byte for byte");

	/* One flipped byte in the last chunk: the checksum or the decoder sees it. */
	char name[32];
	snprintf(name, sizeof(name), "%s%03u", REPORT_VAR_NAME, chunks - 1);
	size_t last = m.stored - (size_t)(chunks - 1) * CHUNK_SIZE;
	packed[m.stored - 1 - last / 2] ^= 0x01;
	write_var(name, packed + (size_t)(chunks - 1) * CHUNK_SIZE, last);
	UNIT_EQ(run(&got, out, sizeof(out)), 1, "a corrupt chunk: exit 1");
	UNIT_EQ(got, 0, "a corrupt chunk: nothing printed");

	/* A store cut short by the firmware: its prefix, said to be partial. */
	store(n, &m);
	if (chunks > 1) {
		m.complete = 0;
		m.chunks = chunks - 1;
		m.stored = (size_t)(chunks - 1) * CHUNK_SIZE;
		write_var(REPORT_VAR_NAME, &m, sizeof(m));
		UNIT_EQ(run(&got, out, sizeof(out)), 0, "a store cut short: exit 0");
		UNIT_TRUE(got > 0 && got < n && memcmp(out, text, got) == 0,
			  "a store cut short: a correct prefix of the report");
	}

	/* An older pmutest's metadata (no format, length or checksum). */
	store(n, &m);
	write_var(REPORT_VAR_NAME, &m, 96);
	UNIT_EQ(run(&got, out, sizeof(out)), 1, "an older format: exit 1");
	UNIT_EQ(got, 0, "an older format: nothing printed");
	m.format = 2;
	write_var(REPORT_VAR_NAME, &m, sizeof(m));
	UNIT_EQ(run(&got, out, sizeof(out)), 1, "an unknown format version: exit 1");

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	UNIT_EQ(system(cmd), 0, "scratch directory removed");
	return unit_done();
}
