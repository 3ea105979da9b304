/* SPDX-License-Identifier: MIT */
/*
 * Console output. Everything printed also goes into the report buffer, which
 * the kernel saves on the boot medium at the end of a run on real hardware.
 */
#include "arch.h"
#include "kstring.h"
#include "ktap.h"
#include "report.h"

static char report_buf[REPORT_MAX];
static size_t report_len;
static bool report_truncated;

static void console_sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	arch_console_write(s, n);
	size_t room = sizeof(report_buf) - report_len;
	if (n > room) {
		n = room;
		report_truncated = true;
	}
	kmemcpy(report_buf + report_len, s, n);
	report_len += n;
}

struct ktap_writer g_ktap = {console_sink, NULL, 0};

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
	*len = report_len;
	*truncated = report_truncated;
	return report_buf;
}
