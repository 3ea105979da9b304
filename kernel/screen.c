/* SPDX-License-Identifier: MIT */
/*
 * The progress view and the summary screen (kernel/screen.h).
 *
 * The view keeps its own record of the run (per-suite counts, the failures
 * with expected, actual and rule) because the KTAP stream is gone by the
 * time the summary is drawn: it was written to the serial port and the
 * report buffer, and neither is read back.
 *
 * The summary is composed once as a document of lines (wrapped to the
 * screen's width) and cut into pages, a failure never split over two; the
 * first page has the verdict in large letters. Every page is drawn and
 * published once (the test reads them all), the first page last, so it is
 * the one on the screen; then kernel_halted() pages by key, or cycles.
 */
#include "screen.h"

#include "caps.h"
#include "kstring.h"
#include "msr.h"
#include "version.h"

/* One row per suite per CPU it ran on: 23 suites on 44 CPUs fit; a larger
 * run says how many rows it left out (never a silent cap). */
#define MAX_ROWS       1024
#define ROW_NAME_LEN   48
#define MAX_FAILURES   48 /* shown; the rest are counted */
#define FIELD_LEN      240
#define MAX_LINES      (MAX_ROWS + 640)
#define LINE_LEN       200
#define VERDICT_SCALE  4  /* cells a large character is wide and high */
#define CYCLE_SECONDS  10 /* a page's time on screen without a key */
#define KEY_POLL_MS    50 /* halted between key polls: a key still feels instant */
#define RECENT	       4  /* failing tests the progress view lists */
#define SUITE_COLUMN_W 24

/* The summary's columns. A test ending in a timeout or an exception is a
 * failure here, as in the KTAP totals. */
enum count_column { COUNT_PASS, COUNT_FAIL, COUNT_SKIP, COUNT_KNOWN, COUNT_COLUMNS };

struct suite_count {
	char name[ROW_NAME_LEN]; /* a copy: the runner reuses its label buffers */
	unsigned n[COUNT_COLUMNS];
};

struct failure {
	char test[96];
	char what[FIELD_LEN], expected[FIELD_LEN], actual[FIELD_LEN], rule[FIELD_LEN];
	bool known; /* of a test that ended as a known deviation */
};

static struct {
	bool on;
	unsigned cols, rows;
	unsigned cpu;
	unsigned suites_planned, tests_planned, tests_done;
	const char *test;
	struct suite_count suites[MAX_ROWS], total;
	struct suite_count *cur; /* the running suite's row; NULL when left out */
	char cur_name[ROW_NAME_LEN];
	unsigned n_suites, rows_left_out;
	bool cpu_ran[ARCH_MAX_CPUS];
	struct failure failures[MAX_FAILURES];
	unsigned n_failures, failures_total, test_first_failure;
	char recent[RECENT][96];
	unsigned n_recent;
} s;

/* ---- Drawing helpers ------------------------------------------------------ */

/* A whole row: the text, then blanks to the right edge (the cells of the
 * previous text go). */
static void row_text(unsigned row, unsigned col, enum screen_color c, const char *text)
{
	char buf[LINE_LEN + 1];
	size_t n = 0, width = s.cols - col < LINE_LEN ? s.cols - col : LINE_LEN;
	for (; text[n] && n < width; n++)
		buf[n] = text[n];
	for (; n < width; n++)
		buf[n] = ' ';
	buf[n] = 0;
	arch_screen_text(col, row, c, buf);
}

static void row_printf(unsigned row, enum screen_color c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void row_printf(unsigned row, enum screen_color c, const char *fmt, ...)
{
	char buf[LINE_LEN + 1];
	va_list ap;
	va_start(ap, fmt);
	kvformat(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	row_text(row, 0, c, buf);
}

/* ---- The progress view ---------------------------------------------------- */

enum progress_row {
	ROW_TITLE,
	ROW_PLATFORM,
	ROW_SUITE = 3,
	ROW_TEST,
	ROW_COUNTS = 6,
	ROW_BAR,
	ROW_RECENT = 9, /* RECENT + 1 rows */
};

static void draw_counts(unsigned row, const struct suite_count *c)
{
	static const struct {
		const char *label;
		unsigned col;
		enum screen_color color;
	} cells[] = {
	    [COUNT_PASS] = {"pass", 0, SCREEN_GREEN},
	    [COUNT_FAIL] = {"fail", 14, SCREEN_RED},
	    [COUNT_SKIP] = {"skip", 28, SCREEN_YELLOW},
	    [COUNT_KNOWN] = {"known deviations", 42, SCREEN_CYAN},
	};
	_Static_assert(ARRAY_SIZE(cells) == COUNT_COLUMNS, "a cell per enum count_column");
	char b[40];
	for (unsigned i = 0; i < COUNT_COLUMNS; i++) {
		ksnprintf(b, sizeof(b), "%s %u    ", cells[i].label, c->n[i]);
		arch_screen_text(cells[i].col, row,
				 c->n[i] || i != COUNT_FAIL ? cells[i].color : SCREEN_GREY, b);
	}
}

static void draw_progress(void)
{
	if (!s.on)
		return;
	row_printf(ROW_SUITE, SCREEN_WHITE, "CPU %u   suite %u of %u: %s", s.cpu,
		   s.n_suites + s.rows_left_out, s.suites_planned,
		   s.cur_name[0] ? s.cur_name : "-");
	row_printf(ROW_TEST, SCREEN_GREY, "test: %s", s.test ? s.test : "-");
	draw_counts(ROW_COUNTS, &s.total);

	char bar[LINE_LEN + 1];
	unsigned width = s.cols > 60 ? 40 : s.cols / 3;
	unsigned done = s.tests_planned ? s.tests_done * width / s.tests_planned : 0;
	size_t n = 0;
	bar[n++] = '[';
	for (unsigned i = 0; i < width; i++)
		bar[n++] = i < done ? '#' : '.';
	ksnprintf(bar + n, sizeof(bar) - n, "]  %u of %u tests", s.tests_done, s.tests_planned);
	row_text(ROW_BAR, 0, SCREEN_WHITE, bar);
}

void screen_run_begin(unsigned suites, unsigned tests)
{
	s.suites_planned = suites;
	s.tests_planned = tests;
	if (!arch_screen_size(&s.cols, &s.rows) || s.cols < 40 || s.rows < ROW_RECENT + RECENT + 2)
		return;
	s.on = true;
	arch_screen_clear();
	row_printf(ROW_TITLE, SCREEN_WHITE, "pmutest %s   running the PMU conformance suites",
		   PMUTEST_VERSION);
	row_text(ROW_PLATFORM, 0, SCREEN_GREY, arch_platform());
	row_text(s.rows - 1, 0, SCREEN_GREY,
		 "The full KTAP report is on the serial port (COM1, 115200 8N1).");
	draw_progress();
}

void screen_set_cpu(unsigned cpu)
{
	s.cpu = cpu;
	if (cpu < ARCH_MAX_CPUS)
		s.cpu_ran[cpu] = true;
	draw_progress();
}

void screen_suite_begin(const char *suite, unsigned index)
{
	(void)index;
	kstrlcpy(s.cur_name, suite, sizeof(s.cur_name));
	s.cur = NULL;
	if (s.n_suites < MAX_ROWS) {
		s.cur = &s.suites[s.n_suites++];
		kmemset(s.cur, 0, sizeof(*s.cur));
		kstrlcpy(s.cur->name, suite, sizeof(s.cur->name));
	} else {
		s.rows_left_out++;
	}
	s.test = NULL;
	draw_progress();
}

void screen_test_begin(const char *test)
{
	s.test = test;
	s.test_first_failure = s.n_failures;
	draw_progress();
}

void screen_failure(const char *what, const char *expected, const char *actual, const char *rule)
{
	s.failures_total++;
	if (s.n_failures == MAX_FAILURES)
		return;
	struct failure *f = &s.failures[s.n_failures++];
	const char *suite = s.cur_name[0] ? s.cur_name : "?";
	ksnprintf(f->test, sizeof(f->test), "%s.%s", suite, s.test ? s.test : "?");
	kstrlcpy(f->what, what, sizeof(f->what));
	kstrlcpy(f->expected, expected, sizeof(f->expected));
	kstrlcpy(f->actual, actual, sizeof(f->actual));
	kstrlcpy(f->rule, rule ? rule : "(none given)", sizeof(f->rule));
	f->known = false;
}

static void note_recent(const char *test, bool known)
{
	if (!s.on)
		return;
	if (s.n_recent == RECENT) {
		for (unsigned i = 1; i < RECENT; i++)
			kstrlcpy(s.recent[i - 1], s.recent[i], sizeof(s.recent[0]));
		s.n_recent--;
	}
	const char *suite = s.cur_name[0] ? s.cur_name : "?";
	ksnprintf(s.recent[s.n_recent++], sizeof(s.recent[0]), "%s %s.%s",
		  known ? "known deviation" : "FAIL", suite, test ? test : "?");
	row_text(ROW_RECENT, 0, SCREEN_WHITE, "latest failures:");
	for (unsigned i = 0; i < s.n_recent; i++)
		row_text(ROW_RECENT + 1 + i, 2, known ? SCREEN_CYAN : SCREEN_RED, s.recent[i]);
}

void screen_test_end(enum ktap_result r)
{
	bool known = r == KTAP_XFAIL;
	enum count_column col = known				       ? COUNT_KNOWN
				: r == KTAP_PASS || r == KTAP_INFERRED ? COUNT_PASS
				: r == KTAP_SKIP		       ? COUNT_SKIP
						 : COUNT_FAIL; /* fail, timeout, error */
	s.total.n[col]++;
	if (s.cur)
		s.cur->n[col]++;
	for (unsigned i = s.test_first_failure; i < s.n_failures; i++)
		s.failures[i].known = known;
	if (r != KTAP_PASS && r != KTAP_SKIP && r != KTAP_INFERRED)
		note_recent(s.test, known);
	s.tests_done++;
	s.test = NULL;
	draw_progress();
}

/* ---- The summary document ------------------------------------------------- */

struct line {
	char text[LINE_LEN + 1];
	enum screen_color color;
	unsigned col;
	unsigned keep; /* lines from here that belong on one page */
};

static struct line doc[MAX_LINES];
static unsigned n_lines;
static unsigned page_start[MAX_LINES + 1], n_pages;
static enum run_status g_status;

static struct line *add(enum screen_color c, unsigned col, const char *text)
{
	if (n_lines == MAX_LINES)
		return NULL;
	struct line *l = &doc[n_lines++];
	kstrlcpy(l->text, text, sizeof(l->text));
	l->color = c;
	l->col = col;
	l->keep = 1;
	return l;
}

/* label + text wrapped to the screen, continuation lines under the text. */
static unsigned add_wrapped(enum screen_color c, const char *label, const char *text)
{
	size_t indent = kstrlen(label), width = s.cols > indent + 20 ? s.cols - indent : 20;
	if (width > LINE_LEN - indent)
		width = LINE_LEN - indent;
	unsigned added = 0;
	size_t len = kstrlen(text), at = 0;
	do {
		size_t n = len - at < width ? len - at : width;
		if (at + n < len) { /* break at the last blank, if there is one */
			size_t b = n;
			while (b > width / 2 && text[at + b] != ' ')
				b--;
			if (text[at + b] == ' ')
				n = b;
		}
		char buf[LINE_LEN + 1];
		kmemset(buf, ' ', indent);
		if (added == 0)
			kmemcpy(buf, label, indent);
		kmemcpy(buf + indent, text + at, n);
		buf[indent + n] = 0;
		add(c, 0, buf);
		added++;
		at += n;
		while (at < len && text[at] == ' ')
			at++;
	} while (at < len);
	return added;
}

static void addf(enum screen_color c, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void addf(enum screen_color c, unsigned col, const char *fmt, ...)
{
	char buf[LINE_LEN + 1];
	va_list ap;
	va_start(ap, fmt);
	kvformat(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	add(c, col, buf);
}

static const char *verdict_word(enum run_status st)
{
	return st == RUN_PASS ? "PASS" : st == RUN_FAIL ? "FAIL" : "ERROR";
}

static enum screen_color verdict_color(enum run_status st)
{
	return st == RUN_PASS ? SCREEN_GREEN : st == RUN_FAIL ? SCREEN_RED : SCREEN_YELLOW;
}

/* The microcode revision where the MSR reads (SDM: write 0, CPUID.01H, read
 * EDX; AMD: PATCH_LEVEL in EAX). */
void describe_microcode(char *buf, size_t size)
{
	uint64_t v = 0;
	int vec = 0;
	if (g_caps.vendor == VENDOR_INTEL) {
		struct cpuid_regs r;
		vec = wrmsr_safe(MSR_IA32_BIOS_SIGN_ID, 0);
		arch_cpuid(1, 0, &r);
	}
	if (vec == 0)
		vec = rdmsr_safe(MSR_IA32_BIOS_SIGN_ID, &v);
	if (vec) {
		ksnprintf(buf, size, "not readable (MSR 8BH raised %s)", x86_vector_name(vec));
		return;
	}
	uint32_t rev = g_caps.vendor == VENDOR_INTEL ? (uint32_t)(v >> 32) : (uint32_t)v;
	if (rev)
		ksnprintf(buf, size, "%#x", rev);
	else
		ksnprintf(buf, size, "not reported (MSR 8BH reads 0)");
}

static void add_machine(const struct screen_summary *sum)
{
	char mc[80];
	add(SCREEN_WHITE, 0, "The machine");
	addf(SCREEN_GREY, 0, "  vendor:      %s (%s), family %02XH, model %02XH, stepping %u",
	     g_caps.vendor_string, caps_vendor_name(g_caps.vendor), g_caps.family, g_caps.model,
	     g_caps.stepping);
	describe_microcode(mc, sizeof(mc));
	addf(SCREEN_GREY, 0, "  microcode:   %s", mc);
	addf(SCREEN_GREY, 0, "  hypervisor:  %s",
	     g_caps.hypervisor
		 ? (g_caps.hypervisor_vendor[0] ? g_caps.hypervisor_vendor : "present, unnamed")
		 : "none (bare metal)");
	add_wrapped(SCREEN_GREY, "  platform:    ", arch_platform());
	if (sum->firmware)
		add_wrapped(SCREEN_GREY, "  firmware:    ", sum->firmware);
	if (sum->secure_boot)
		add_wrapped(SCREEN_GREY, "  secure boot: ", sum->secure_boot);
}

static void add_suite_row(const char *name, const struct suite_count *c, enum screen_color col)
{
	addf(col, 0, "  %-*s %6u %6u %6u %6u", SUITE_COLUMN_W, name, c->n[COUNT_PASS],
	     c->n[COUNT_FAIL], c->n[COUNT_SKIP], c->n[COUNT_KNOWN]);
}

/* "0-3, 5": the CPUs for which want(cpu) holds; empty when none. */
static void cpu_list(char *buf, size_t size, bool (*want)(unsigned cpu))
{
	size_t at = 0;
	unsigned n = arch_cpu_count();
	buf[0] = 0;
	for (unsigned c = 0; c < n && at + 24 < size; c++) {
		if (!want(c))
			continue;
		unsigned e = c;
		while (e + 1 < n && want(e + 1))
			e++;
		at += (size_t)ksnprintf(buf + at, size - at, e > c ? "%s%u-%u" : "%s%u",
					at ? ", " : "", c, e);
		c = e;
	}
}

static bool cpu_ran(unsigned c)
{
	return c < ARCH_MAX_CPUS && s.cpu_ran[c] && arch_cpu_state(c) != CPU_LOST;
}
static bool cpu_left_out(unsigned c)
{
	return arch_cpu_state(c) == CPU_ONLINE && !(c < ARCH_MAX_CPUS && s.cpu_ran[c]);
}
static bool cpu_lost(unsigned c)
{
	return arch_cpu_state(c) == CPU_LOST;
}
static bool cpu_never_up(unsigned c)
{
	return arch_cpu_state(c) != CPU_ONLINE && arch_cpu_state(c) != CPU_LOST;
}

/* Which CPUs the rows are of, and which ran nothing: left out by the cpus
 * option, lost during the run, or never started (the log says why). */
static void add_cpus(void)
{
	char b[LINE_LEN];
	if (arch_cpu_count() < 2)
		return;
	cpu_list(b, sizeof(b), cpu_ran);
	add_wrapped(SCREEN_GREY, "  CPUs run:          ", b[0] ? b : "none");
	cpu_list(b, sizeof(b), cpu_left_out);
	if (b[0])
		add_wrapped(SCREEN_GREY, "  CPUs left out:     ",
			    b); /* the cpus option: one per PMU configuration */
	cpu_list(b, sizeof(b), cpu_lost);
	if (b[0])
		add_wrapped(SCREEN_RED, "  CPUs lost:         ", b);
	cpu_list(b, sizeof(b), cpu_never_up);
	if (b[0])
		add_wrapped(SCREEN_YELLOW, "  CPUs not started:  ", b);
}

static void add_suites(void)
{
	add(SCREEN_GREY, 0, "");
	addf(SCREEN_WHITE, 0, "  %-*s %6s %6s %6s %6s", SUITE_COLUMN_W, "suite", "pass", "fail",
	     "skip", "known");
	for (unsigned i = 0; i < s.n_suites; i++) {
		const struct suite_count *c = &s.suites[i];
		enum screen_color col = c->n[COUNT_FAIL]    ? SCREEN_RED
					: c->n[COUNT_KNOWN] ? SCREEN_CYAN
					: c->n[COUNT_PASS]  ? SCREEN_GREEN
							    : SCREEN_GREY;
		add_suite_row(c->name, c, col);
	}
	if (s.rows_left_out)
		addf(SCREEN_YELLOW, 0,
		     "  %u more rows not shown (the table holds %u); the total counts them, "
		     "the serial port has each",
		     s.rows_left_out, MAX_ROWS);
	add_suite_row("total", &s.total, SCREEN_WHITE);
	add_cpus();
}

static void add_report(const struct screen_summary *sum)
{
	char b[2 * LINE_LEN];
	add(SCREEN_GREY, 0, "");
	add(SCREEN_WHITE, 0, "The report");
	switch (sum->report) {
	case SCREEN_REPORT_KEPT:
		ksnprintf(b, sizeof(b),
			  "kept in UEFI variables (PmutestReport*). Boot this stick again and it "
			  "is written to \\pmutest\\%s-<date>.ktap; from Linux, read it with the "
			  "command in docs/booting.md (\"The report from the stick\").",
			  sum->report_name);
		break;
	case SCREEN_REPORT_FAILED:
		ksnprintf(b, sizeof(b),
			  "could not be kept in UEFI variables%s%s: take it from the serial port.",
			  sum->report_error ? ": " : "",
			  sum->report_error ? sum->report_error : "");
		break;
	default:
		ksnprintf(b, sizeof(b),
			  "not kept (save_report = 0): take it from the serial port.");
		break;
	}
	add_wrapped(SCREEN_GREY, "  ", b);
	add_wrapped(SCREEN_GREY, "  ",
		    "The full KTAP report is on the serial port (COM1, 115200 8N1).");
	if (sum->boot_message)
		add_wrapped(SCREEN_GREY, "  previous run: ", sum->boot_message);
}

static void add_failures(void)
{
	if (!s.failures_total)
		return;
	add(SCREEN_GREY, 0, "");
	addf(SCREEN_WHITE, 0, "Failed checks: %u in %u tests%s", s.failures_total,
	     s.total.n[COUNT_FAIL] + s.total.n[COUNT_KNOWN],
	     s.failures_total > s.n_failures ? " (the first ones shown; all are on the serial port)"
					     : "");
	for (unsigned i = 0; i < s.n_failures; i++) {
		const struct failure *f = &s.failures[i];
		unsigned first = n_lines;
		add(SCREEN_GREY, 0, "");
		char head[LINE_LEN];
		ksnprintf(head, sizeof(head), "%s %s: ", f->known ? "KNOWN" : "FAIL", f->test);
		add_wrapped(f->known ? SCREEN_CYAN : SCREEN_RED, head, f->what);
		add_wrapped(SCREEN_GREY, "    expected: ", f->expected);
		add_wrapped(SCREEN_GREY, "    actual:   ", f->actual);
		add_wrapped(SCREEN_GREY, "    rule:     ", f->rule);
		if (first < MAX_LINES)
			doc[first].keep = n_lines - first;
	}
}

/* Page breaks: body rows 1..rows-2; a block that does not fit the rest of
 * a page starts the next one (unless it is longer than a page). */
static void paginate(void)
{
	unsigned body = s.rows - 2, used = 0;
	n_pages = 0;
	page_start[n_pages++] = 0;
	for (unsigned i = 0; i < n_lines; i++) {
		unsigned keep = doc[i].keep;
		if (used > 0 && used + keep > body && keep <= body) {
			page_start[n_pages++] = i;
			used = 0;
		}
		if (used == body) {
			page_start[n_pages++] = i;
			used = 0;
		}
		used++;
	}
	page_start[n_pages] = n_lines;
}

static void draw_page(unsigned page, enum arch_key keyboard)
{
	arch_screen_clear();
	row_printf(0, SCREEN_WHITE, "pmutest %s   summary", PMUTEST_VERSION);
	unsigned row = 1;
	for (unsigned i = page_start[page]; i < page_start[page + 1]; i++, row++)
		arch_screen_text(doc[i].col, row, doc[i].color, doc[i].text);
	if (page == 0)
		arch_screen_big(0, 2, VERDICT_SCALE, verdict_color(g_status),
				verdict_word(g_status));
	char foot[LINE_LEN];
	ksnprintf(foot, sizeof(foot), "page %u of %u   %s   power off when done", page + 1, n_pages,
		  keyboard == ARCH_KEY_NO_KEYBOARD ? "next page every 10 s (no keyboard)"
						   : "any key: next page");
	row_text(s.rows - 1, 0, SCREEN_WHITE, foot);
}

void screen_summary(const struct screen_summary *sum)
{
	if (!s.on)
		return;
	g_status = sum->status;
	n_lines = 0;

	/* The verdict's area: VERDICT_SCALE rows of large letters, the counts
	 * beside them. */
	unsigned side = VERDICT_SCALE * 6 + 2;
	unsigned failed = s.total.n[COUNT_FAIL];
	add(SCREEN_GREY, 0, "");
	addf(verdict_color(sum->status), side, "%s: %u of %u tests failed%s",
	     verdict_word(sum->status), failed, s.tests_done,
	     failed ? "" : ", or only known deviations");
	addf(SCREEN_GREY, side, "pass %u, fail %u, skip %u, known deviations %u",
	     s.total.n[COUNT_PASS], failed, s.total.n[COUNT_SKIP], s.total.n[COUNT_KNOWN]);
	if (sum->why)
		add(SCREEN_YELLOW, side, sum->why);
	else
		add(SCREEN_GREY, side, "");
	add(SCREEN_GREY, 0, "");
	add(SCREEN_GREY, 0, "");
	add_machine(sum);
	add_suites();
	add_report(sum);
	add_failures();
	paginate();

	enum arch_key kb = arch_key_poll();
	for (unsigned p = n_pages; p-- > 0;) {
		draw_page(p, kb);
		arch_screen_publish();
	}
}

/* ---- After the verdict ---------------------------------------------------- */

void kernel_halted(enum run_status status)
{
	(void)status;
	if (!s.on || !n_pages)
		for (;;)
			arch_idle_ms(1000); /* nothing to page: the log stays */
	uint64_t hz = arch_tsc_hz() ? arch_tsc_hz() : 2000000000ull;
	unsigned page = 0;
	bool keyed = false;
	uint64_t shown = arch_rdtsc();
	for (;;) {
		enum arch_key k = arch_key_poll();
		bool next = k == ARCH_KEY_PRESSED;
		keyed |= next;
		if (!keyed && arch_rdtsc() - shown >= CYCLE_SECONDS * hz)
			next = true;
		if (next && n_pages > 1) {
			page = (page + 1) % n_pages;
			draw_page(page, k);
			shown = arch_rdtsc();
		}
		arch_idle_ms(KEY_POLL_MS);
	}
}
