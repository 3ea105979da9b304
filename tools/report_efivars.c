/* SPDX-License-Identifier: MIT */
/*
 * pmutest-efivars: the report a pmutest run kept in UEFI variables, read
 * from Linux's efivarfs instead of booting the stick a second time.
 *
 *     build/host/pmutest-efivars [DIR] > report.ktap
 *
 * DIR is /sys/firmware/efi/efivars unless given. Each efivarfs file is 4
 * bytes of attributes then the variable's data. The text is decoded with
 * the loader's own decompressor (kernel/lz.c) and checked against the
 * stored length and checksum (boot/uefi/report_format.h); anything else is one
 * line on stderr, exit 1, and nothing on stdout.
 */
#include "report_efivars.h"
#include "report_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads DIR/<name>-<guid>'s data (after the attributes) into a new buffer. */
static uint8_t *read_var(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s-%s", dir, name, REPORT_GUID_TEXT);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = CHUNK_SIZE * 2 + 4, n;
	uint8_t *buf = malloc(cap);
	n = buf ? fread(buf, 1, cap, f) : 0;
	fclose(f);
	if (!buf || n < 4 || n == cap) {
		free(buf);
		return NULL;
	}
	memmove(buf, buf + 4, n - 4);
	*len = n - 4;
	return buf;
}

int report_efivars(const char *dir, FILE *out, FILE *err)
{
	size_t len = 0;
	struct report_meta m;
	uint8_t *raw = read_var(dir, REPORT_VAR_NAME, &len);
	if (!raw) {
		fprintf(err, "pmutest-efivars: no stored report in %s (%s-%s)\n", dir,
			REPORT_VAR_NAME, REPORT_GUID_TEXT);
		return 1;
	}
	int ok = len == sizeof(m);
	if (ok)
		memcpy(&m, raw, sizeof(m));
	free(raw);
	if (!ok || m.magic != REPORT_MAGIC || m.format != REPORT_FORMAT_LZ1 ||
	    m.chunks > MAX_CHUNKS || m.stored > (uint64_t)MAX_CHUNKS * CHUNK_SIZE ||
	    m.text_len > REPORT_CAP) {
		fprintf(err, "pmutest-efivars: the stored report's metadata is malformed or of "
			     "another pmutest version\n");
		return 1;
	}
	uint8_t *packed = malloc(m.stored + 1), *text = malloc(m.text_len + 1);
	size_t got = 0;
	for (unsigned i = 0; packed && i < m.chunks; i++) {
		char name[32];
		snprintf(name, sizeof(name), "%s%03u", REPORT_VAR_NAME, i);
		uint8_t *chunk = read_var(dir, name, &len);
		if (!chunk || len > m.stored - got) {
			free(chunk);
			break;
		}
		memcpy(packed + got, chunk, len);
		got += len;
		free(chunk);
	}
	size_t produced = 0;
	enum lz_status st =
	    packed && text ? lz_decompress(packed, got, text, m.text_len, &produced) : LZ_OVERFLOW;
	enum report_text verdict = report_text_check(&m, st, text, produced);
	int rc = 0;
	if (verdict != REPORT_TEXT_CORRUPT) {
		fwrite(text, 1, produced, out);
		if (verdict == REPORT_TEXT_PART)
			fprintf(err, "pmutest-efivars: the run could not store its whole report; "
				     "this is the part it stored\n");
	} else {
		fprintf(err, "pmutest-efivars: the stored report is corrupt (it does not decode "
			     "to the stored length and checksum)\n");
		rc = 1;
	}
	free(packed);
	free(text);
	return rc;
}

#ifndef REPORT_EFIVARS_NO_MAIN
int main(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: pmutest-efivars [EFIVARFS-DIR] > report.ktap\n");
		return 2;
	}
	return report_efivars(argc == 2 ? argv[1] : "/sys/firmware/efi/efivars", stdout, stderr);
}
#endif
