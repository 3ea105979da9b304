/* SPDX-License-Identifier: MIT */
/*
 * Console output. Everything printed also goes into the report buffer, which
 * the kernel saves on the boot medium at the end of a run on real hardware.
 */
#include "arch.h"
#include "kstring.h"
#include "ktap.h"
#include "report.h"
#include "timing.h"

/*
 * The report keeps the head of the output while it fits. Past that (a run
 * with thousands of diagnostics), it keeps what a reader needs most: the
 * result lines of failed tests ("not ok", at any depth) and the last
 * REPORT_TAIL bytes, which end with the totals and the verdict. report_text()
 * joins them with a line saying how much was left out.
 */
#define REPORT_TAIL  (32 * 1024)
#define REPORT_FAILS (32 * 1024)
#define REPORT_HEAD  (REPORT_MAX - REPORT_TAIL - REPORT_FAILS - 512)

static char head[REPORT_HEAD], fails[REPORT_FAILS], tail[REPORT_TAIL];
static size_t head_len, fails_len, tail_total; /* tail: a ring, tail_total bytes seen */
static unsigned long long omitted;
static bool report_truncated;
static char line[160]; /* the current line's start, to spot "not ok" */
static size_t line_len;

static void keep_failure_line(void)
{
	const char *p = line;
	while (p < line + line_len && *p == ' ')
		p++;
	size_t n = line_len - (size_t)(p - line);
	if (n >= 7 && !kstrncmp(p, "not ok ", 7) && fails_len + line_len + 1 <= sizeof(fails)) {
		kmemcpy(fails + fails_len, line, line_len);
		fails_len += line_len;
		fails[fails_len++] = '\n';
	}
}

static void report_append(const char *s, size_t n)
{
	size_t room = sizeof(head) - head_len;
	size_t h = n < room ? n : room;

	kmemcpy(head + head_len, s, h);
	head_len += h;
	for (size_t i = h; i < n; i++) { /* past the head: tail ring, failures */
		char c = s[i];
		report_truncated = true;
		omitted++;
		tail[tail_total++ % sizeof(tail)] = c;
		if (c == '\n') {
			keep_failure_line();
			line_len = 0;
		} else if (line_len < sizeof(line)) {
			line[line_len++] = c;
		}
	}
}

static void console_sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	uint64_t t0 = timing_now();
	arch_console_write(s, n);
	timing_add(TIME_OUTPUT, t0);
	report_append(s, n);
}

struct ktap_writer g_ktap = {.sink = console_sink};

void kputs(const char *s)
{
	console_sink(NULL, s, kstrlen(s));
}

void kprintf(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	size_t n = kvformat(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_sink(NULL, buf, n);
}

const char *report_text(size_t *len, bool *truncated)
{
	static char out[REPORT_MAX];
	size_t n;

	*truncated = report_truncated;
	if (!report_truncated) {
		*len = head_len;
		return head;
	}
	kmemcpy(out, head, head_len);
	n = head_len;
	/* The tail ring, from its oldest whole line. */
	size_t kept = tail_total < sizeof(tail) ? tail_total : sizeof(tail);
	size_t start = tail_total - kept, skip = 0;
	while (skip < kept && tail[(start + skip) % sizeof(tail)] != '\n')
		skip++;
	unsigned long long left_out = omitted - (kept - skip);
	n += (size_t)ksnprintf(out + n, sizeof(out) - n,
			       "\n# report truncated: %llu bytes of the run left out here; the "
			       "result lines of the failed tests among them follow, then the "
			       "end of the run\n",
			       left_out);
	kmemcpy(out + n, fails, fails_len);
	n += fails_len;
	for (size_t i = skip; i < kept && n < sizeof(out); i++)
		out[n++] = tail[(start + i) % sizeof(tail)];
	*len = n;
	return out;
}
