/* SPDX-License-Identifier: MIT */
/* Unit tests of the options parser (kernel/options.c), against the format
 * documented in kernel/options.h. */
#include <stdint.h>
#include <stdio.h>

#include "options.h"
#include "unit.h"

static char errors[4096];
static unsigned nerr;

static void on_error(void *ctx, const char *msg)
{
	(void)ctx;
	nerr++;
	strncat(errors, msg, sizeof(errors) - strlen(errors) - 2);
	strcat(errors, "\n");
}

static unsigned parse(struct options *o, const char *text)
{
	errors[0] = 0;
	nerr = 0;
	options_defaults(o);
	return options_parse(o, text, strlen(text), "pmutest.cfg", on_error, NULL);
}

/* The corpus shared with pmusim (testing/fixtures/options-corpus/expected.txt): the
 * same bytes give the same number of errors here as on the machine. */
static void corpus(void)
{
	const char *dir = "testing/fixtures/options-corpus";
	char path[512], line[256], name[200];
	unsigned want, files = 0;
	snprintf(path, sizeof(path), "%s/expected.txt", dir);
	FILE *idx = fopen(path, "r");
	UNIT_TRUE(idx != NULL, "options corpus index readable (run from the repository root)");
	if (!idx)
		return;
	while (fgets(line, sizeof(line), idx)) {
		if (line[0] == '#' || sscanf(line, "%199s %u", name, &want) != 2)
			continue;
		static char text[OPT_MAX_TEXT * 2];
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		FILE *f = fopen(path, "rb");
		size_t len = f ? fread(text, 1, sizeof(text), f) : 0;
		if (f)
			fclose(f);
		struct options o;
		options_defaults(&o);
		errors[0] = 0;
		unsigned got = options_parse(&o, text, len, path, on_error, NULL);
		char what[300];
		snprintf(what, sizeof(what), "corpus %s: %u errors", name, want);
		UNIT_EQ(got, want, what);
		files++;
	}
	fclose(idx);
	UNIT_TRUE(files >= 15, "the options corpus has its files");
}

int main(void)
{
	corpus();
	struct options o;

	UNIT_EQ(parse(&o, ""), 0, "empty file");
	UNIT_EQ(o.verbose, 1, "default verbose");
	UNIT_EQ(o.timeout_ms, 10000, "default timeout");
	UNIT_TRUE(options_selects(&o, "rdpmc", "x", false), "default selects every suite");
	UNIT_TRUE(!options_selects(&o, "selftest", "x", true),
		  "self-tests are not in the default run");

	UNIT_EQ(parse(&o, "# comment\n\n  suites = rdpmc , privilege # trailing\r\nverbose=2\n"), 0,
		"lists, comments, CRLF");
	UNIT_EQ(o.suites.count, 2, "two suites");
	UNIT_STREQ(o.suites.names[1], "privilege", "second suite name trimmed");
	UNIT_EQ(o.verbose, 2, "verbose set");
	UNIT_TRUE(options_selects(&o, "privilege", "cpl3", false), "listed suite selected");
	UNIT_TRUE(!options_selects(&o, "pmi", "x", false), "unlisted suite not selected");

	UNIT_EQ(parse(&o, "tests = rdpmc.fast_bit\nexclude = rdpmc.fast_bit\n"), 0,
		"tests and exclude");
	UNIT_TRUE(!options_selects(&o, "rdpmc", "fast_bit", false), "exclude wins over tests");
	UNIT_EQ(parse(&o, "tests = rdpmc.fast_bit\n"), 0, "tests only");
	UNIT_TRUE(options_selects(&o, "rdpmc", "fast_bit", false), "named test selected");
	UNIT_TRUE(!options_selects(&o, "rdpmc", "type_space", false),
		  "other test of the suite not selected");

	UNIT_EQ(parse(&o, "suites = selftest\n"), 0, "self-test suite by name");
	UNIT_TRUE(options_selects(&o, "selftest", "page_fault", true),
		  "named self-test suite runs");

	UNIT_EQ(parse(&o, "verbose = 7\ntimeout_ms = 2000\n"), 1,
		"out-of-range value is one error");
	UNIT_EQ(o.verbose, 1, "bad value keeps the default");
	UNIT_EQ(o.timeout_ms, 2000, "the next line still applies");
	UNIT_TRUE(strstr(errors, "pmutest.cfg:1:") != NULL, "error names file and line");

	UNIT_EQ(parse(&o, "frobnicate = 1\n"), 1, "unknown key");
	UNIT_TRUE(strstr(errors, "unknown option 'frobnicate'") != NULL, "unknown key is named");
	UNIT_EQ(parse(&o, "just some words\n"), 1, "line without '='");
	UNIT_TRUE(strstr(errors, "pmutest.cfg:1: expected 'key = value'") != NULL,
		  "missing '=' explained");
	UNIT_EQ(parse(&o, "suites = a,,b\n"), 1, "empty list element");
	UNIT_EQ(o.suites.count, 0, "rejected list leaves the default");
	UNIT_EQ(parse(&o, "suites = rd$pmc\n"), 1, "bad character in a name");
	UNIT_EQ(parse(&o, "timeout_ms = 99999999999999999999999\n"), 1, "overflowing number");
	UNIT_EQ(parse(&o, "timeout_ms = 0x1000\n"), 0, "hex number");
	UNIT_EQ(o.timeout_ms, 0x1000, "hex value");
	UNIT_EQ(parse(&o, "selftest = \x01\n"), 1, "control characters rejected");
	UNIT_EQ(parse(&o, "a\nb\nc = 1\n"), 3, "every bad line counted, parsing never stops");
	UNIT_EQ(options_parse(&o, "verbose = 2\0\nverbose=1", 22, "x", on_error, NULL), 1,
		"a NUL byte is an error, not the end of the text");
	UNIT_EQ(o.verbose, 1, "the text after a NUL byte is still read");
	UNIT_EQ(parse(&o, "\xef\xbb\xbfverbose = 2\n"), 0, "a leading UTF-8 BOM is skipped");
	UNIT_EQ(o.verbose, 2, "the first key after a BOM is read");
	UNIT_EQ(parse(&o, "suites = \x1b[2Jrdpmc\n"), 1, "a terminal escape is an error");
	UNIT_TRUE(strchr(errors, '\x1b') == NULL, "and is never echoed");

	/* Robustness: 2000 random texts (printable, control bytes, '=', ',' and
	 * '#' in heavy doses) never crash, never loop, and leave valid options. */
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	unsigned sane = 0;
	for (int round = 0; round < 2000; round++) {
		static const char alphabet[] = "ab_.=,# \t\n\r0x19-\x01\xff";
		char text[256];
		size_t n = (size_t)(round % 255);
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			text[i] = alphabet[x % (sizeof(alphabet) - 1)];
		}
		text[n] = 0;
		parse(&o, text);
		sane += o.verbose <= 2 && o.timeout_ms >= 100 && o.timeout_ms <= 600000 &&
			o.suites.count <= OPT_MAX_NAMES;
	}
	UNIT_EQ(sane, 2000, "random texts leave every option within its range");

	/* cpus = all | per-config | numbers and ranges; smp_silent_cpu. */
	UNIT_EQ(o.cpus_mode, CPUS_ALL, "default: every CPU");
	UNIT_EQ(parse(&o, "cpus = per-config\n"), 0, "cpus = per-config");
	UNIT_EQ(o.cpus_mode, CPUS_PER_CONFIG, "one CPU per PMU configuration");
	UNIT_EQ(parse(&o, "cpus = 0, 2-4 ,255\n"), 0, "cpus = list and ranges");
	UNIT_EQ(o.cpus_mode, CPUS_LIST, "a list");
	UNIT_EQ(o.cpus_list[0], 0x1D, "CPUs 0, 2, 3, 4");
	UNIT_EQ(o.cpus_list[3], 1ULL << 63, "CPU 255");
	UNIT_EQ(parse(&o, "cpus = 4-2\n"), 1, "a backwards range is an error");
	UNIT_EQ(o.cpus_mode, CPUS_ALL, "and keeps the default");
	UNIT_EQ(parse(&o, "cpus = 1024\n"), 1, "a CPU beyond the limit is an error");
	UNIT_EQ(parse(&o, "cpus = 1,,2\n"), 1, "an empty element is an error");
	UNIT_EQ(parse(&o, "cpus = some\n"), 1, "a word other than all / per-config is an error");
	UNIT_EQ(o.smp_silent_cpu, OPT_NO_CPU, "default: every CPU is started");
	UNIT_EQ(parse(&o, "smp_silent_cpu = 3\n"), 0, "smp_silent_cpu");
	UNIT_EQ(o.smp_silent_cpu, 3, "CPU 3 gets no SIPI");

	/* vpmu = off | emulated | mediated: the host says, the guest reports. */
	UNIT_EQ(o.vpmu, VPMU_UNTOLD, "default: not told");
	UNIT_EQ(parse(&o, "vpmu = mediated\n"), 0, "vpmu = mediated");
	UNIT_EQ(o.vpmu, VPMU_MEDIATED, "mediated");
	UNIT_EQ(parse(&o, "vpmu = off\n"), 0, "vpmu = off");
	UNIT_EQ(o.vpmu, VPMU_OFF, "off");
	UNIT_EQ(parse(&o, "vpmu = passthrough\n"), 1,
		"a word other than off / emulated / mediated");
	UNIT_EQ(o.vpmu, VPMU_UNTOLD, "and keeps the default");
	UNIT_EQ(parse(&o, "vpmu = \n"), 1, "an empty value is an error");
	UNIT_EQ(strncmp(options_vpmu_text(VPMU_UNTOLD, true), "not told", 8), 0,
		"a guest that was not told says so");
	/* compact: the compact form by default; 0 prints every line. */
	UNIT_TRUE(o.compact, "default: compact = 1");
	UNIT_EQ(parse(&o, "compact = 0\n"), 0, "compact = 0");
	UNIT_TRUE(!o.compact, "compact = 0 is the full form");
	UNIT_EQ(parse(&o, "compact = 2\n"), 1, "compact is 0 or 1");
	/* host_kernel: a Linux version as uname -r prints it. */
	UNIT_EQ(o.host_kernel, HOST_KERNEL_UNKNOWN, "default: the host's kernel is unknown");
	UNIT_EQ(parse(&o, "host_kernel = 6.18.44\n"), 0, "host_kernel = 6.18.44");
	UNIT_EQ(o.host_kernel, HOST_KERNEL(6, 18, 44), "6.18.44");
	UNIT_EQ(parse(&o, "host_kernel = 6.8.0-45-generic\n"), 0, "a -suffix is ignored");
	UNIT_EQ(o.host_kernel, HOST_KERNEL(6, 8, 0), "6.8.0-45-generic is 6.8.0");
	UNIT_EQ(parse(&o, "host_kernel = 5.15\n"), 0, "major.minor");
	UNIT_EQ(o.host_kernel, HOST_KERNEL(5, 15, 0), "5.15 is 5.15.0");
	UNIT_TRUE(HOST_KERNEL(4, 9, 337) < HOST_KERNEL(4, 10, 0),
		  "sublevels above 255 order right");
	UNIT_EQ(parse(&o, "host_kernel = 6\n"), 1, "a major alone is an error");
	UNIT_EQ(parse(&o, "host_kernel = v6.8\n"), 1, "a leading letter is an error");
	UNIT_EQ(parse(&o, "host_kernel = 6.8x\n"), 1, "a stray tail is an error");
	UNIT_EQ(parse(&o, "host_kernel = 0.1\n"), 1, "major 0 is an error");
	UNIT_EQ(o.host_kernel, HOST_KERNEL_UNKNOWN, "and keeps the default");

	/* The kernel command line of a direct boot (options_from_cmdline). */
	char text[256], ignored[64];
	size_t n =
	    options_from_cmdline("console=ttyS0 suites=rdpmc,pmi  reboot=k pmutest.verbose=2 "
				 "quiet pmutest.frob=1 verbose",
				 text, sizeof(text), ignored, sizeof(ignored));
	UNIT_EQ(n, strlen(text), "the length of the text is returned");
	UNIT_STREQ(text, "suites = rdpmc,pmi\nverbose = 2\nfrob = 1\n",
		   "known keys and every pmutest.key become lines");
	UNIT_STREQ(ignored, "console=ttyS0 reboot=k quiet verbose",
		   "the VMM's words and bare words are ignored, and named");
	UNIT_EQ(parse(&o, text), 1, "a misspelt pmutest.key is an error, not a silent default");
	UNIT_EQ(o.suites.count, 2, "the known keys apply");
	UNIT_EQ(options_from_cmdline("", text, sizeof(text), ignored, sizeof(ignored)), 0,
		"an empty command line gives no text");
	UNIT_STREQ(ignored, "", "and nothing ignored");
	UNIT_EQ(options_from_cmdline(NULL, text, sizeof(text), ignored, sizeof(ignored)), 0,
		"no command line at all");
	char tiny[8];
	options_from_cmdline("a=1 b=2 c=3 d=4 e=5 f=6", text, sizeof(text), tiny, sizeof(tiny));
	UNIT_TRUE(strlen(tiny) < sizeof(tiny),
		  "ignored words that do not fit are cut, never overflow");

	char big[64 * 70] = "suites = ";
	for (int i = 0; i < 40; i++)
		strcat(big, i ? ",s" : "s");
	UNIT_EQ(parse(&o, big), 1, "more names than fit is an error, not an overflow");
	return unit_done();
}
