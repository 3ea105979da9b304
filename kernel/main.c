/* SPDX-License-Identifier: MIT */
/*
 * kernel_main: from a machine that arch/ has set up to a verdict.
 * Order: KTAP header, run description, options, capability record, the
 * suites, totals, report saved, exit status.
 */
#include "arch.h"
#include "boot_info.h"
#include "caps.h"
#include "cpus.h"
#include "fw_state.h"
#include "known.h"
#include "ktap.h"
#include "msr.h"
#include "options.h"
#include "pmu.h"
#include "report.h"
#include "runner.h"
#include "screen.h"
#include "timing.h"
#include "version.h"

struct caps g_caps;

/* Option errors are printed in full up to this many; the rest are counted
 * (a binary file as options must not flood the report, item 9). */
#define MAX_OPTION_ERROR_LINES 20

static void option_error(void *ctx, const char *msg)
{
	unsigned *printed = ctx;
	if (++*printed <= MAX_OPTION_ERROR_LINES)
		ktap_diag(&g_ktap, "option error: %s", msg);
}

/* Reads the options (quietly when err is NULL); returns the number of errors:
 * unreadable file, malformed lines, names that select nothing. */
static unsigned read_options(struct options *o, const struct boot_info *bi, unsigned *printed)
{
	const char *source = bi->config_source ? bi->config_source : "pmutest.cfg";
	options_error_fn err = printed ? option_error : NULL;
	unsigned errors = 0;

	options_defaults(o);
	if (bi->config_error) {
		errors++;
		if (err)
			err(printed, bi->config_error);
	}
	if (bi->config_text)
		errors += options_parse(o, bi->config_text, bi->config_len, source, err, printed);
	errors += runner_check_names(o, err, printed);
	return errors;
}

/* The options as given, one `# option:` line per setting (comments and blank
 * lines left out, at most 64 lines of 160 characters): what `pmusim
 * --replay` runs again. Bytes outside printable ASCII are shown as '?'. */
static void report_options(const struct boot_info *bi)
{
	const char *p = bi->config_text, *end = p ? p + bi->config_len : NULL;
	unsigned lines = 0;

	while (p && p < end && lines < 64) {
		const char *e = p;
		while (e < end && *e != '\n')
			e++;
		char line[161];
		size_t n = 0;
		for (const char *q = p; q < e && *q != '#' && n < sizeof(line) - 1; q++)
			line[n++] = (*q >= 0x20 && *q < 0x7F) ? *q : '?';
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '?'))
			n--;
		line[n] = 0;
		size_t lead = 0;
		while (line[lead] == ' ')
			lead++;
		if (line[lead]) {
			ktap_diag(&g_ktap, "option: %s", line + lead);
			lines++;
		}
		p = e + 1;
	}
}

/* The SecureBoot variable as the loader read it (NULL: not read). */
static const char *secure_boot_text(enum boot_secure_boot sb)
{
	switch (sb) {
	case BOOT_SECURE_BOOT_ON:
		return "on (the firmware enforced image signatures for this boot)";
	case BOOT_SECURE_BOOT_OFF:
		return "off";
	case BOOT_SECURE_BOOT_UNSUPPORTED:
		return "not supported by the firmware (no SecureBoot variable)";
	case BOOT_SECURE_BOOT_UNKNOWN:
		break;
	}
	return NULL;
}

static void describe_run(const struct boot_info *bi)
{
	ktap_diag(&g_ktap, "pmutest %s on %s: %s", PMUTEST_VERSION, arch_name(), arch_platform());
	if (bi->firmware_vendor)
		ktap_diag(&g_ktap, "firmware: %s", bi->firmware_vendor);
	if (bi->firmware == BOOT_PREVIOUS_KERNEL)
		ktap_diag(&g_ktap, "before pmutest: %s, which may have written the PMU's MSRs (%s)",
			  bi->previous_kernel ? bi->previous_kernel : "a kernel",
			  bi->firmware_why ? bi->firmware_why : "unknown");
	else
		ktap_diag(&g_ktap, "before pmutest: %s (%s)",
			  bi->firmware == BOOT_NO_FIRMWARE
			      ? "nothing ran that could write the PMU's MSRs"
			      : "a firmware may have written the PMU's MSRs",
			  bi->firmware_why ? bi->firmware_why : "unknown");
	if (secure_boot_text(bi->secure_boot))
		ktap_diag(&g_ktap, "secure boot: %s", secure_boot_text(bi->secure_boot));
	if (bi->boot_message)
		ktap_diag(&g_ktap, "boot: %s", bi->boot_message);
	if (bi->boot_notes)
		ktap_diag(&g_ktap, "boot: %s", bi->boot_notes);
	if (bi->usable_memory)
		ktap_diag(&g_ktap, "memory: %llu MiB usable in %u map entries",
			  (unsigned long long)(bi->usable_memory >> 20), bi->memory_map_count);
	ktap_diag(&g_ktap, "local APIC: %s mode", arch_apic_is_x2apic() ? "x2APIC" : "xAPIC");
	char mc[64];
	describe_microcode(mc, sizeof(mc));
	ktap_diag(&g_ktap, "microcode: %s", mc);
}

/* A duration in TSC cycles, and in milliseconds when the TSC rate is known. */
static void report_duration(const char *name, uint64_t cycles)
{
	uint64_t hz = arch_tsc_hz();

	ktap_diag(&g_ktap, "measure: %s = %llu tsc_cycles", name, (unsigned long long)cycles);
	if (hz)
		ktap_diag(&g_ktap, "measure: %s_ms = %llu ms", name,
			  (unsigned long long)(cycles / (hz / 1000)));
}

/* The machine in a report's file name: vendor, family, model, stepping
 * (e.g. "Intel-fam06-model8c-step1"); the store adds the date. */
static void report_machine_name(char *buf, size_t size)
{
	ksnprintf(buf, size, "%s-fam%02x-model%02x-step%x", caps_vendor_name(g_caps.vendor),
		  g_caps.family, g_caps.model, g_caps.stepping);
}

/* The host's kernel (option host_kernel), which decides the KVM rows of the
 * known-deviations table that carry a version range (kernel/known.c). */
static void report_host_kernel(uint32_t v)
{
	char ver[24];

	if (v != HOST_KERNEL_UNKNOWN) {
		known_format_kernel(ver, sizeof(ver), v);
		ktap_diag(&g_ktap, "host kernel: %s (host_kernel)", ver);
	} else if (g_caps.hypervisor) {
		ktap_diag(&g_ktap,
			  "host kernel: not given: a known-deviation row with a host version range "
			  "excuses nothing (give host_kernel = X.Y.Z in the options file, or "
			  "pmutest.host_kernel=X.Y.Z on the command line)");
	}
}

void kernel_main(const struct boot_info *bi)
{
	static struct options opts;
	static unsigned cpus[ARCH_MAX_CPUS];
	struct run_totals tot;
	uint64_t main_start = timing_now();

	/* Read quietly once: the CPUs to start and the selection decide the
	 * plan line; errors are printed below. */
	read_options(&opts, bi, NULL);

	/* Every CPU, then every CPU's record: test selection needs the records,
	 * and the plan line needs the selection. Neither prints anything. */
	arch_cpus_start(opts.smp_silent_cpu);
	cpus_read_records();
	fw_state_read(bi); /* the boot CPU's counters before any test wrote them */
	unsigned n_cpus = cpus_selected(&opts, cpus);

	ktap_header(&g_ktap, runner_count_suites(&opts) * n_cpus);
	describe_run(bi);
	ktap_diag(&g_ktap, "vpmu: %s", options_vpmu_text(opts.vpmu, g_caps.hypervisor));
	static struct options again;
	unsigned printed = 0;
	unsigned option_errors = read_options(&again, bi, &printed);
	if (printed > MAX_OPTION_ERROR_LINES)
		ktap_diag(&g_ktap, "option error: %u more not shown",
			  printed - MAX_OPTION_ERROR_LINES);
	if (option_errors)
		ktap_diag(&g_ktap,
			  "option error: %u in all; malformed lines were ignored, and the run "
			  "ends with verdict ERROR: it is not the run the options asked for",
			  option_errors);
	char selection[3 * OPT_MAX_NAMES * OPT_NAME_LEN / 4];
	options_describe_selection(&opts, selection, sizeof(selection));
	ktap_diag(&g_ktap, "selection: %s", selection);
	report_options(bi);
	report_host_kernel(opts.host_kernel);
	cpus_report(&opts);
	fw_state_report();
	/* A CPUID no processor can have (caps_absurd), on any CPU: no test could
	 * say anything true about it. Refuse the run, naming the field. */
	char absurd[160];
	for (unsigned k = 0; k < cpus_config_count(); k++) {
		if (caps_absurd(cpus_config(k), absurd, sizeof(absurd))) {
			kprintf("Bail out! CPUID refused: %s\n", absurd);
			arch_exit(RUN_ERROR);
		}
	}

	uint64_t t0 = arch_rdtsc();
	runner_run(&opts, cpus, n_cpus, &tot);
	uint64_t t1 = arch_rdtsc();

	unsigned failed = run_totals_failed(&tot);
	ktap_diag(&g_ktap, "Totals: pass:%u fail:%u skip:%u xfail:%u inferred:%u total:%u",
		  tot.pass, failed, tot.skip, tot.xfail, tot.inferred_tests,
		  tot.pass + failed + tot.skip + tot.xfail + tot.inferred_tests);
	/* New deviations fail the run; known ones (kernel/known.c) are named
	 * and counted apart; inferred rules are diagnostics unless strict=1. */
	ktap_diag(
	    &g_ktap, "deviations: %u new, %u known (XFAIL%s); inferred rules not followed: %u%s",
	    failed, tot.xfail, opts.known ? "" : ", known=0: none taken as known", tot.inferred,
	    opts.strict ? " (strict=1: counted as failures)" : " (diagnostics)");
	ktap_diag(&g_ktap, "checks: %llu distinct, %llu evaluated; timeouts:%u exceptions:%u",
		  tot.distinct_checks, tot.checks, tot.timeout, tot.error);
	struct arch_platform_events ev;
	char evtext[192];
	arch_platform_events(ARCH_ALL_CPUS, &ev);
	platform_events_text(&ev, evtext, sizeof(evtext));
	/* An SMI re-measure is an excuse like a retry: counted where the
	 * platform's events are. */
	ktap_diag(&g_ktap, "platform events: %s, %u SMI re-measure(s)", evtext, pmu_smi_windows());
	report_duration("run.suite_time", t1 - t0);
	if (bi->tsc_at_entry)
		report_duration("run.boot_to_verdict", t1 - bi->tsc_at_entry);
	timing_report(bi->tsc_at_entry, main_start, t0);
	/* ERROR: the options were wrong or no test was executed (every test
	 * skipped or none selected); neither is evidence of conformance. */
	enum run_status status = failed ? RUN_FAIL : RUN_PASS;
	unsigned executed = run_totals_executed(&tot);
	if (option_errors || executed == 0)
		status = RUN_ERROR;
	if (executed == 0)
		ktap_diag(&g_ktap, "error: no test was executed (%u skipped)", tot.skip);
	/* INCOMPLETE: an enumerated CPU the options did not exclude ran no
	 * test; what ran says nothing about it, pass or fail. Its exit status
	 * is ERROR's: not a pass. */
	char untested[256];
	unsigned n_untested = cpus_untested(&opts, untested, sizeof(untested));
	bool incomplete = n_untested && status != RUN_ERROR;
	if (n_untested)
		ktap_diag(&g_ktap, "incomplete: %u enumerated CPU(s) not tested: %s", n_untested,
			  untested);
	if (incomplete)
		status = RUN_ERROR;
	/* PASS-INFERRED: a pass but for checks of inferred rules (pmutest's own
	 * inference, README "Sourced and inferred rules"): the exit status is
	 * a pass's, the word is not. */
	bool inferred = status == RUN_PASS && tot.inferred_tests;
	if (inferred)
		ktap_diag(&g_ktap,
			  "inferred: %u test(s) passed but for %u check(s) of an inferred rule "
			  "(# INFERRED; strict=1 fails them)",
			  tot.inferred_tests, tot.inferred);
	ktap_diag(&g_ktap, "verdict: %s",
		  incomplete	       ? "INCOMPLETE"
		  : inferred	       ? "PASS-INFERRED"
		  : status == RUN_PASS ? "PASS"
		  : status == RUN_FAIL ? "FAIL"
				       : "ERROR");

	struct screen_summary sum = {
	    .status = status,
	    .firmware = bi->firmware_vendor,
	    .secure_boot = secure_boot_text(bi->secure_boot),
	    .boot_message = bi->boot_message,
	    .report = SCREEN_REPORT_NOT_KEPT,
	};
	char machine[48];
	report_machine_name(machine, sizeof(machine));
	sum.report_name = machine;
	if (option_errors)
		sum.why = "the options file has errors (the serial log names them)";
	else if (executed == 0)
		sum.why = "no test was executed";
	else if (incomplete)
		sum.why = "incomplete: an enumerated CPU was not tested (the serial log names it)";
	else if (inferred)
		sum.why =
		    "PASS-INFERRED: a check of an inferred rule did not hold (# INFERRED in the "
		    "serial log)";
	if (opts.save_report) {
		size_t len;
		bool truncated;
		const char *text = report_text(&len, &truncated);
		sum.report = SCREEN_REPORT_FAILED;
		if (arch_save_report(machine, text, len)) {
			ktap_diag(&g_ktap, "report saved%s", truncated ? " (truncated)" : "");
			sum.report = SCREEN_REPORT_KEPT;
		} else if (arch_save_report_error()) {
			ktap_diag(&g_ktap, "report not saved: %s", arch_save_report_error());
			sum.report_error = arch_save_report_error();
		}
	}
	screen_summary(&sum);
	arch_exit(status);
}
