/* SPDX-License-Identifier: MIT */
/* Unit tests of the formatter (kernel/fmt.c) and the KTAP writer. Expected
 * strings come from the C standard's printf rules and from the KTAP v1 spec
 * (Documentation/dev-tools/ktap.rst), not from what the code printed. */
#include <stdarg.h>

#include "ktap.h"
#include "unit.h"

static char out[8192];
static size_t out_len;

static void sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	memcpy(out + out_len, s, n);
	out_len += n;
	out[out_len] = 0;
}

static void reset(void)
{
	out_len = 0;
	out[0] = 0;
}

/* Compare kernel formatting with the C library's for the same arguments. */
#define FMT_SAME(name, ...)                                                                        \
	do {                                                                                       \
		char k_[256], c_[256];                                                             \
		ksnprintf(k_, sizeof(k_), __VA_ARGS__);                                            \
		snprintf(c_, sizeof(c_), __VA_ARGS__);                                             \
		UNIT_STREQ(k_, c_, name);                                                          \
	} while (0)

static size_t vformat(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static size_t vformat(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t n = kvformat(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

static void test_format(void)
{
	FMT_SAME("decimal", "%d %i %u", -42, 7, 4000000000u);
	FMT_SAME("hex alt", "%#x %#llx %x %X", 255, 0x1234567890abcdefULL, 0, 0xABCu);
	FMT_SAME("alt zero", "%#x", 0);
	FMT_SAME("width and zero pad", "[%08x] [%8d] [%-6d] [%06d]", 0xbeef, -12, 5, -5);
	FMT_SAME("precision", "[%.3s] [%.5d] [%10.4x]", "abcdef", 42, 0x1f);
	FMT_SAME("star", "[%*d] [%-*s] [%.*s]", 5, 3, 4, "ab", 2, "xyz");
	FMT_SAME("long long extremes", "%lld %llu", (long long)INT64_MIN,
		 (unsigned long long)UINT64_MAX);
	FMT_SAME("size_t", "%zu %zx", (size_t)12345, (size_t)0xfff);
	FMT_SAME("char and percent", "%c%%%c", 'a', 'z');
	FMT_SAME("plus and space", "%+d % d", 3, 4);
	FMT_SAME("octal", "%o %#o", 8u, 8u);
	FMT_SAME("null string", "%s", (char *)0 == 0 ? "(null)" : "");

	char small[5];
	int n = ksnprintf(small, sizeof(small), "%s", "truncate me");
	UNIT_STREQ(small, "trun", "truncation keeps size-1 chars and the NUL");
	UNIT_EQ(n, 11, "return value is the untruncated length");
	UNIT_EQ(vformat(small, sizeof(small), "%s", "truncate me"), 4,
		"kvformat returns the length stored");
	UNIT_EQ(vformat(small, sizeof(small), "%d", 42), 2, "kvformat without truncation");
}

static void test_ktap(void)
{
	struct ktap_writer w = {.sink = sink};

	reset();
	ktap_header(&w, 2);
	ktap_begin_subtest(&w, "suite_a", 3);
	ktap_diag(&w, "first line\nsecond line");
	ktap_result(&w, 1, "passes", KTAP_PASS, NULL);
	ktap_result(&w, 2, "skips", KTAP_SKIP, "missing CPUID.0AH");
	ktap_result(&w, 3, "hangs", KTAP_TIMEOUT, NULL);
	ktap_end_subtest(&w);
	ktap_result(&w, 1, "suite_a", KTAP_FAIL, NULL);
	UNIT_STREQ(out,
		   "KTAP version 1\n"
		   "1..2\n"
		   "    KTAP version 1\n"
		   "    # Subtest: suite_a\n"
		   "    1..3\n"
		   "    # first line\n"
		   "    # second line\n"
		   "    ok 1 passes\n"
		   "    ok 2 skips # SKIP missing CPUID.0AH\n"
		   "    not ok 3 hangs # TIMEOUT\n"
		   "not ok 1 suite_a\n",
		   "nested block: header, plan, diagnostics, directives");

	reset();
	ktap_result(&w, 4, "bad#name", KTAP_PASS, NULL);
	UNIT_STREQ(out, "ok 4 bad_name\n", "a '#' in a test name would start a directive");

	reset();
	ktap_result(&w, 5, "errs", KTAP_ERROR, NULL);
	UNIT_STREQ(out, "not ok 5 errs\n", "an exception is a plain failure in KTAP");
}

/* compact = 1: a SKIP reason equal to the previous test's in the same
 * subtest is "ditto"; any other result in between, a new subtest or the top
 * level writes it out again. */
static void test_ditto(void)
{
	struct ktap_writer w = {.sink = sink, .ditto = true};

	reset();
	ktap_begin_subtest(&w, "s", 5);
	ktap_result(&w, 1, "a", KTAP_SKIP, "missing X");
	ktap_result(&w, 2, "b", KTAP_SKIP, "missing X");
	ktap_result(&w, 3, "c", KTAP_PASS, NULL);
	ktap_result(&w, 4, "d", KTAP_SKIP, "missing X");
	ktap_result(&w, 5, "e", KTAP_SKIP, "missing Y");
	ktap_end_subtest(&w);
	ktap_result(&w, 1, "s", KTAP_SKIP, "missing Y");
	ktap_begin_subtest(&w, "t", 1);
	ktap_result(&w, 1, "a", KTAP_SKIP, "missing Y");
	UNIT_STREQ(out,
		   "    KTAP version 1\n"
		   "    # Subtest: s\n"
		   "    1..5\n"
		   "    ok 1 a # SKIP missing X\n"
		   "    ok 2 b # SKIP ditto\n"
		   "    ok 3 c\n"
		   "    ok 4 d # SKIP missing X\n"
		   "    ok 5 e # SKIP missing Y\n"
		   "ok 1 s # SKIP missing Y\n"
		   "    KTAP version 1\n"
		   "    # Subtest: t\n"
		   "    1..1\n"
		   "    ok 1 a # SKIP missing Y\n",
		   "ditto: only the previous test's reason, only within a subtest");

	reset();
	w.ditto = false;
	ktap_begin_subtest(&w, "u", 2);
	ktap_result(&w, 1, "a", KTAP_SKIP, "missing X");
	ktap_result(&w, 2, "b", KTAP_SKIP, "missing X");
	UNIT_TRUE(strstr(out, "ditto") == NULL, "compact = 0: every reason written out");
}

int main(void)
{
	test_format();
	test_ktap();
	test_ditto();
	return unit_done();
}
