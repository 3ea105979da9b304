/* SPDX-License-Identifier: MIT */
/*
 * Keeping the report of a run on real hardware.
 *
 * The kernel's report is complete only after ExitBootServices, when the
 * file system protocols are gone. What remains is runtime services, so the
 * report is stored in non-volatile UEFI variables (our own vendor GUID),
 * in chunks; on the next boot the loader, with boot services again, writes
 * it to \pmutest\<machine>-<date>.ktap on the boot volume (the machine
 * named by the kernel, the date from the firmware clock when the report was
 * stored; "-2", "-3"... when that name is taken: an earlier report is never
 * replaced) and deletes the variables.
 *
 * NV variable storage is small and some firmware misbehaves when it is
 * full, so at most REPORT_CAP bytes of text are kept: the head and the tail
 * of a longer report (the tail holds the totals and the verdict), with a
 * line saying how much was left out.
 *
 * The text is stored LZ77-compressed (kernel/lz.h): a flash write of a
 * variable is slow (over a second for an uncompressed report under QEMU
 * TCG) and KTAP text shrinks to about a fifth. The metadata variable holds
 * the format, the text's length and its checksum; the next boot decodes
 * into exactly that many bytes and checks them, so a corrupt store, or one
 * written by an older pmutest, is reported and deleted, never written out
 * as garbage.
 */
#include "efi_boot.h"
#include "ktap.h"
#include "report_format.h"

/* {706d7574-6573-7421-9a3c-5265706f7274}: "pmut" "es" "t!" .. "Report" */
static EFI_GUID report_guid = {
    0x706d7574, 0x6573, 0x7421, {0x9a, 0x3c, 0x52, 0x65, 0x70, 0x6f, 0x72, 0x74}};

#define REPORT_ATTRS                                                                               \
	(EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)
#define TAIL_KEEP (12 * 1024)

static EFI_RUNTIME_SERVICES *rt;
/* Why the last efi_store_report() kept nothing ("" when it did), and where
 * the hand-over looks for it (its store_error). */
static char store_error[200];
static const char **store_error_out;
static CHAR16 meta_name[] = L"PmutestReport";

void efi_report_store_init(EFI_RUNTIME_SERVICES *r, const char **error_out)
{
	rt = r;
	store_error_out = error_out;
}

static void chunk_name(CHAR16 *out, unsigned i)
{
	/* "PmutestReportNNN" */
	unsigned n = 0;
	for (; meta_name[n]; n++)
		out[n] = meta_name[n];
	out[n++] = L'0' + (i / 100) % 10;
	out[n++] = L'0' + (i / 10) % 10;
	out[n++] = L'0' + i % 10;
	out[n] = 0;
}

/* ---- After ExitBootServices: runtime services only ---------------------- */

/* The stored text: head, an omission note, tail (or the whole report). */
struct report_view {
	const char *data;
	size_t len, head, tail_from;
	char note[96];
	size_t note_len;
};

static size_t view_len(const struct report_view *v)
{
	return v->head + v->note_len + (v->len - v->tail_from);
}

static char view_at(const struct report_view *v, size_t i)
{
	if (i < v->head)
		return v->data[i];
	i -= v->head;
	if (i < v->note_len)
		return v->note[i];
	return v->data[v->tail_from + i - v->note_len];
}

static size_t append_dec(char *s, size_t at, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		s[at++] = tmp[--n];
	return at;
}

static size_t append_str(char *s, size_t at, const char *t)
{
	while (*t)
		s[at++] = *t++;
	return at;
}

/* The firmware clock (a runtime service) as YYYYMMDD-HHMMSS; "" without. */
static void format_date(char *out)
{
	EFI_TIME tm;
	out[0] = 0;
	if (EFI_ERROR(rt->GetTime(&tm, NULL)) || tm.Year < 1998 || tm.Month < 1 || tm.Month > 12)
		return;
	unsigned v[6] = {tm.Year, tm.Month, tm.Day, tm.Hour, tm.Minute, tm.Second};
	unsigned width[6] = {4, 2, 2, 2, 2, 2};
	size_t n = 0;
	for (int i = 0; i < 6; i++) {
		if (i == 3)
			out[n++] = '-';
		for (unsigned d = width[i], x = v[i]; d-- > 0; x /= 10)
			out[n + d] = (char)('0' + x % 10);
		n += width[i];
	}
	out[n] = 0;
}

static void view_init(struct report_view *v, const char *data, size_t len)
{
	v->data = data;
	v->len = len;
	v->head = len;
	v->tail_from = len;
	v->note_len = 0;
	if (len <= REPORT_CAP)
		return;
	v->tail_from = len - TAIL_KEEP;
	v->note_len = append_str(v->note, 0, "\n# pmutest: ");
	v->note_len = append_dec(v->note, v->note_len, len - (REPORT_CAP - 256));
	v->note_len = append_str(v->note, v->note_len,
				 " bytes of the report omitted (UEFI variable store)\n");
	v->head = REPORT_CAP - 256 - TAIL_KEEP;
}

/* Space the variable store must keep: some firmware does not boot any more
 * with a full store (Linux's efivars keeps the same 5 KiB,
 * EFI_MIN_RESERVE in drivers/firmware/efi/vars.c). */
#define STORE_RESERVE (5 * 1024)
/* A variable's cost beyond its data: the header of an authenticated store
 * entry and a name of up to 17 UCS-2 characters. */
#define VAR_OVERHEAD 100

/* QueryVariableInfo (UEFI 2.x, 8.2; runtime services of revision 2.0 and
 * later) before any write: the report is stored only when the store keeps
 * STORE_RESERVE bytes free after it. */
static bool room_for(size_t packed_len)
{
	UINT64 max_store, remaining, max_var;
	uint64_t need = packed_len +
			((packed_len + CHUNK_SIZE - 1) / CHUNK_SIZE + 1) * VAR_OVERHEAD +
			sizeof(struct report_meta);

	if (rt->Hdr.Revision < (2u << 16) /* UEFI 2.0 */)
		return true; /* UEFI 1.x: no QueryVariableInfo, nothing to ask */
	if (EFI_ERROR(rt->QueryVariableInfo(REPORT_ATTRS, &max_store, &remaining, &max_var))) {
		ksnprintf(store_error, sizeof(store_error),
			  "the firmware does not say how much of its variable store is free "
			  "(QueryVariableInfo failed): not written, so as not to fill it");
		return false;
	}
	if (remaining < need + STORE_RESERVE) {
		ksnprintf(store_error, sizeof(store_error),
			  "the UEFI variable store has %llu bytes free; the report needs %llu and "
			  "%u must stay free for the firmware: not written",
			  (unsigned long long)remaining, (unsigned long long)need, STORE_RESERVE);
		return false;
	}
	return true;
}

bool efi_store_report(const char *name, const char *data, size_t len)
{
	static uint8_t text[REPORT_CAP];
	static uint8_t packed[LZ_BOUND(REPORT_CAP)];
	static struct lz_work work;
	static struct report_view v;
	struct report_meta meta;
	CHAR16 vname[24];

	if (!rt)
		return false;
	store_error[0] = 0;
	if (store_error_out)
		*store_error_out = store_error;
	view_init(&v, data, len);
	size_t text_len = view_len(&v);
	for (size_t i = 0; i < text_len; i++)
		text[i] = (uint8_t)view_at(&v, i);
	size_t total = lz_compress(text, text_len, packed, sizeof(packed), &work), done = 0;
	if (!room_for(total))
		return false;
	unsigned chunks = 0;
	bool ok = true;
	while (done < total && chunks < MAX_CHUNKS) {
		size_t n = total - done < CHUNK_SIZE ? total - done : CHUNK_SIZE;
		chunk_name(vname, chunks);
		if (EFI_ERROR(
			rt->SetVariable(vname, &report_guid, REPORT_ATTRS, n, packed + done))) {
			ksnprintf(store_error, sizeof(store_error),
				  "SetVariable failed after %u of the report's variables", chunks);
			ok = false;
			break;
		}
		done += n;
		chunks++;
	}
	kmemset(&meta, 0, sizeof(meta));
	meta.magic = REPORT_MAGIC;
	meta.format = REPORT_FORMAT_LZ1;
	meta.chunks = chunks;
	meta.stored = done;
	meta.original = len;
	meta.text_len = text_len;
	meta.text_sum = lz_checksum(text, text_len);
	meta.complete = ok && done == total;
	for (unsigned i = 0; name[i] && i < sizeof(meta.name) - 1; i++)
		meta.name[i] = name[i];
	format_date(meta.date);
	if (EFI_ERROR(rt->SetVariable(meta_name, &report_guid, REPORT_ATTRS, sizeof(meta), &meta)))
		return false;
	return meta.complete; /* a capped report says so in its text */
}

/* ---- Next boot, boot services available ---------------------------------- */

static void delete_chunks(void)
{
	CHAR16 vname[24];
	for (unsigned i = 0; i < MAX_CHUNKS; i++) {
		chunk_name(vname, i);
		if (EFI_ERROR(rt->SetVariable(vname, &report_guid, 0, 0, NULL)))
			break;
	}
}

/* Only [A-Za-z0-9._-] is copied, never a path; anything else becomes '_'. */
static UINTN append_safe(CHAR16 *out, UINTN n, const char *s, UINTN max)
{
	for (UINTN i = 0; i < max && s[i]; i++) {
		char c = s[i];
		bool okc = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '_' || c == '-' || (c == '.' && n > 0);
		out[n++] = okc ? (CHAR16)c : L'_';
	}
	return n;
}

/* "<machine>-<date>[-N].ktap"; N from 2 on when the plain name is taken. */
static void file_name(CHAR16 *out, const struct report_meta *m, unsigned attempt)
{
	UINTN n = append_safe(out, 0, m->name[0] ? m->name : "report", sizeof(m->name));
	if (m->date[0]) {
		out[n++] = L'-';
		n = append_safe(out, n, m->date, sizeof(m->date));
	}
	if (attempt > 1) {
		char num[24];
		num[append_dec(num, 0, attempt)] = 0;
		out[n++] = L'-';
		n = append_safe(out, n, num, sizeof(num));
	}
	for (const char *e = ".ktap"; *e; e++)
		out[n++] = (CHAR16)*e;
	out[n] = 0;
}

#define MAX_NAME_ATTEMPTS 999

/* Deletes the stored report; returns why, for the boot message. */
static const char *discard(const char *why)
{
	delete_chunks();
	rt->SetVariable(meta_name, &report_guid, 0, 0, NULL);
	return why;
}

/* Reads the chunks and decodes them into a new pool buffer of *len bytes;
 * NULL with *why set when the store is corrupt (or memory ran out). A store
 * that was cut short (meta.complete = 0) gives the text it holds. */
static char *load_text(const struct report_meta *m, UINTN *len, const char **why)
{
	CHAR16 vname[24];
	UINT32 attrs;
	uint8_t *packed = efi_alloc(m->stored + 1);
	char *text = efi_alloc(m->text_len + 1);
	*why = "a saved report is in UEFI variables but memory ran out; kept";
	if (!packed || !text)
		goto fail;
	UINTN got = 0;
	for (unsigned i = 0; i < m->chunks; i++) {
		UINTN n = m->stored - got;
		chunk_name(vname, i);
		if (EFI_ERROR(rt->GetVariable(vname, &report_guid, &attrs, &n, packed + got)))
			break;
		got += n;
	}
	size_t produced = 0;
	enum lz_status st = lz_decompress(packed, got, (uint8_t *)text, m->text_len, &produced);
	efi_free(packed);
	packed = NULL;
	if (report_text_check(m, st, (const uint8_t *)text, produced) != REPORT_TEXT_CORRUPT) {
		*len = produced;
		return text;
	}
	*why = discard("a saved report was found in UEFI variables but its text is corrupt "
		       "(it does not decode to the stored length and checksum); deleted, "
		       "nothing written");
fail:
	if (packed)
		efi_free(packed);
	if (text)
		efi_free(text);
	return NULL;
}

const char *efi_report_flush(EFI_FILE_HANDLE root)
{
	struct report_meta meta;
	UINTN size = sizeof(meta);
	UINT32 attrs;

	if (!rt)
		return NULL;
	EFI_STATUS s = rt->GetVariable(meta_name, &report_guid, &attrs, &size, &meta);
	if (s == EFI_NOT_FOUND) {
		delete_chunks(); /* leftovers of a store that died midway */
		return NULL;
	}
	if (!EFI_ERROR(s) && meta.magic == REPORT_MAGIC &&
	    (size != sizeof(meta) || meta.format != REPORT_FORMAT_LZ1))
		return discard("a saved report in UEFI variables has an older or unknown format "
			       "(not this pmutest's); deleted, nothing written");
	if (EFI_ERROR(s) || size != sizeof(meta) || meta.magic != REPORT_MAGIC ||
	    meta.chunks > MAX_CHUNKS || meta.stored > (uint64_t)MAX_CHUNKS * CHUNK_SIZE ||
	    meta.text_len > REPORT_CAP)
		return discard("a saved report was found in UEFI variables but is malformed; "
			       "deleted");
	if (!root)
		return "a saved report is in UEFI variables but the boot volume cannot be "
		       "opened; kept";

	UINTN got = 0;
	const char *why;
	char *text = load_text(&meta, &got, &why);
	if (!text)
		return why;
	static CHAR16 fname[sizeof(meta.name) + sizeof(meta.date) + 16];
	unsigned attempt = 1;
	do {
		file_name(fname, &meta, attempt);
		s = efi_create_file(root, L"\\pmutest", fname, text, got);
	} while (s == EFI_ACCESS_DENIED && ++attempt <= MAX_NAME_ATTEMPTS);
	efi_free(text);
	char *name = efi_strdup_ascii(fname), msg[320], st[32];
	if (EFI_ERROR(s)) {
		ksnprintf(msg, sizeof(msg),
			  "the saved report of the previous run could not be written to "
			  "\\pmutest\\%s (%s); it stays in UEFI variables",
			  name ? name : "?", efi_status_name(s, st, sizeof(st)));
	} else {
		discard(NULL);
		ksnprintf(msg, sizeof(msg),
			  "the report of the previous run (%llu of %llu bytes%s) was written "
			  "to \\pmutest\\%s",
			  (unsigned long long)got, (unsigned long long)meta.original,
			  meta.complete ? "" : ", incomplete", name ? name : "?");
	}
	efi_free(name);
	return efi_strdup(msg);
}
