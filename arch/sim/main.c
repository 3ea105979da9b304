/* SPDX-License-Identifier: MIT */
/*
 * pmusim: the suite on a simulated CPU.
 *
 *   pmusim [--profile NAME | --cpuid-dump FILE [--cpu N] | --replay REPORT] [--quirk NAME]...
 *          [--config FILE] [--set KEY=VALUE]... [--dumps-dir DIR]
 *          [--perf-capabilities [core=|atom=]VALUE]... [--hypervisor SIGNATURE]
 *   pmusim --list-profiles | --list-platforms | --list-quirks | --list-known |
 *          --mutation-plan | --help
 *
 * Exit status: 0 nothing failed, 1 a check failed, 2 bad usage, 3 the
 * environment broke (RUN_ERROR).
 */
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot_info.h"
#include "known.h"
#include "kstring.h"
#include "options.h"
#include "replay.h"
#include "runner.h"
#include "sim.h"

#define DEFAULT_PROFILE "synth-v5-metrics"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: pmusim [--profile NAME | --cpuid-dump FILE [--cpu N] | --replay REPORT]\n"
	    "              [--quirk NAME]...\n"
	    "              [--config FILE] [--set KEY=VALUE]... [--dumps-dir DIR]\n"
	    "              [--perf-capabilities [core=|atom=]VALUE]... [--hypervisor SIGNATURE]\n"
	    "              [--platform-event nmi|irq|mce|mce-fatal@SUITE.TEST]... [--smi-every N]\n"
	    "              [--watchdog-divisor N]\n"
	    "       pmusim --list-profiles | --list-platforms | --list-quirks | --list-known | "
	    "--mutation-plan | "
	    "--help\n"
	    "Runs the pmutest suite on a simulated CPU whose PMU is exactly what the\n"
	    "profile's CPUID enumerates; --quirk adds a named deviation from the SDM.\n"
	    "A dump of several CPUs (`cpuid -r`) is a machine of them all unless --cpu picks\n"
	    "one; --perf-capabilities core=/atom= gives a hybrid core type its own value;\n"
	    "--hypervisor runs the CPUID as a guest of that CPUID.40000000H signature.\n"
	    "--platform-event strikes that test's first run with a platform event;\n"
	    "--smi-every sends an SMI into every Nth counting window of each CPU.\n"
	    "--watchdog-divisor makes each test's watchdog fire after 1/N of its time\n"
	    "(at least 20 ms; for bulk runs of the hang self-tests).\n"
	    "--replay runs the machine, deviations and options a pmutest report carries;\n"
	    "--conforming drops the deviations; --known-rows prints which known-deviation\n"
	    "rows cover the machine and exits.\n"
	    "Default profile: " DEFAULT_PROFILE ". Exit: 0 pass, 1 fail, 2 usage, 3 error.\n");
}

__attribute__((noreturn, format(printf, 1, 2))) static void bad_usage(const char *fmt, ...)
{
	va_list ap;
	fputs("pmusim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(SIM_EXIT_USAGE);
}

/* The options file as bytes (the parser judges them, as on the machine),
 * at most OPT_MAX_TEXT + 1 of them so that the parser can refuse the size. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		bad_usage("cannot read config file %s: %s", path, strerror(errno));
	char *buf = malloc(OPT_MAX_TEXT + 2);
	if (!buf)
		exit(SIM_EXIT_ERROR);
	*len = fread(buf, 1, OPT_MAX_TEXT + 1, f);
	if (ferror(f))
		bad_usage("cannot read config file %s: %s", path, strerror(errno));
	fclose(f);
	buf[*len] = 0;
	return buf;
}

/* A number option of this command line, read like an options-file number. */
static uint64_t number_arg(const char *opt, const char *v, uint64_t max)
{
	uint64_t x;
	if (!kparse_u64(v, strlen(v), &x) || x > max)
		bad_usage("%s wants a number from 0 to %#llx (decimal or 0x hex), got '%s'", opt,
			  (unsigned long long)max, v);
	return x;
}

static void print_option_error(void *ctx, const char *msg)
{
	unsigned *n = ctx;
	if (++*n <= 20)
		fprintf(stderr, "pmusim: option error: %s\n", msg);
}

static const char *default_dumps_dir(void)
{
	static char dir[4096];
	char exe[4096];
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	/* build/host/pmusim -> <repo>/data/cpuid */
	if (n > 0) {
		exe[n] = 0;
		char raw[4096 + 32];
		snprintf(raw, sizeof(raw), "%s/../../data/cpuid", dirname(exe));
		/* Canonical, so messages name the directory a user can look at. */
		if (realpath(raw, dir) && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			return dir;
	}
	return "data/cpuid";
}

/* Profiles a quirk runs on in the mutation matrix: the first two of this
 * preference order (then any) on which the deviation is observable. */
static const char *const preferred[] = {
    "synth-v5-metrics",
    "intel_icelake_client_706e5",
    "intel_skylake_client_506e3",
    "intel_nehalem_bloomfield_106a4",
    "intel_core2_penryn_10676",
    "synth-v1",
    "synth-v5-fixed-hole",
    "synth-leaf23-holes",
    "synth-no-pmu",
    "intel_broadwell_ep_406f1",
    "intel_sapphirerapids_806f8",
    "amd_zen4_genoa_a10f11",
    "amd_zen2_rome_830f10",
    "amd_k10_thuban_100fa0",
    "intel_p4_prescott_f41",
};

/* A profile's kind of PMU, for the mutation plan: the architectural
 * version (0 for none, up to KIND_ARCH_MAX), or a model-specific PMU. A bit
 * number in a mask of kinds already picked. */
enum pmu_kind {
	KIND_NO_PMU = 0, /* versions 1..KIND_ARCH_MAX are their own number */
	KIND_ARCH_MAX = 8,
	KIND_AMD = 10,
	KIND_AMD_PERFMON_V2 = 11,
	KIND_AMD_PERFCTR_CORE = 12,
	KIND_NETBURST = 13,
	KIND_P6 = 14,
	KIND_NEHALEM_UNCORE = 15,
	KIND_LEAF23 = 16,
};

static enum pmu_kind pmu_kind(const struct caps *c)
{
	if (caps_amd_like(c))
		return c->amd.perfmon_v2     ? KIND_AMD_PERFMON_V2
		       : c->amd.perfctr_core ? KIND_AMD_PERFCTR_CORE
					     : KIND_AMD;
	if (c->netburst)
		return KIND_NETBURST;
	if (c->p6)
		return KIND_P6;
	if (c->nehalem_uncore)
		return KIND_NEHALEM_UNCORE;
	if (c->l23.counters_valid)
		return KIND_LEAF23;
	if (!c->pm.present)
		return KIND_NO_PMU;
	return c->pm.version > KIND_ARCH_MAX ? KIND_ARCH_MAX : (enum pmu_kind)c->pm.version;
}

/* A row's CPUs from its table: vendors, then DisplayFamily_DisplayModel
 * with the stepping range where it is not every stepping. */
static void print_known_cpus(const struct known_deviation *k)
{
	const char *sep = "";

	for (unsigned v = 0; v < VENDOR_COUNT; v++) {
		if ((k->vendors >> v) & 1) {
			printf("%s%s", sep, caps_vendor_name((enum cpu_vendor)v));
			sep = "/";
		}
	}
	if (k->vendors == KNOWN_ANY_VENDOR)
		printf("any vendor");
	if (!k->n_models)
		printf(", any family and model");
	for (unsigned i = 0; i < k->n_models; i++) {
		const struct known_model *m = &k->models[i];

		printf(i ? ", " : " ");
		if (m->any_model)
			printf("family %02XH (every model)", m->family);
		else
			printf("%02X_%02XH", m->family, m->model);
		if (m->stepping_min != 0 || m->stepping_max != 0xF)
			printf(" stepping %X-%X", m->stepping_min, m->stepping_max);
	}
}

/* The known-deviations table (kernel/known.c), row by row: the id, the CPUs
 * and platform it covers, each check (test: rule) it explains, its source. */
static void print_known(void)
{
	for (unsigned i = 0; i < known_count(); i++) {
		const struct known_deviation *k = known_at(i);

		printf("%s\n  cpus:     ", k->id);
		print_known_cpus(k);
		printf("\n  platform: %s", known_platform_name(k->platform));
		if (k->core_type != CORE_TYPE_NONE)
			printf(", core type %s only", caps_core_type_name(k->core_type));
		for (unsigned b = 1; b && b <= k->features_set; b <<= 1)
			if (k->features_set & b)
				printf(", %s = 1", known_feature_name(b));
		for (unsigned b = 1; b && b <= k->features_clear; b <<= 1)
			if (k->features_clear & b)
				printf(", %s = 0", known_feature_name(b));
		printf("\n  what:     %s\n", k->what);
		if (k->host_min || k->host_max) {
			char lo[24], hi[24] = "now";
			known_format_kernel(lo, sizeof(lo), k->host_min);
			if (k->host_max)
				known_format_kernel(hi, sizeof(hi), k->host_max);
			if (!k->host_min)
				printf("  hosts:    host kernels before %s\n", hi);
			else if (!k->host_max)
				printf("  hosts:    host kernels %s and later\n", lo);
			else
				printf("  hosts:    host kernels %s to before %s\n", lo, hi);
		} else if (k->vmm) {
			printf("  hosts:    any host kernel\n");
		}
		if (k->vmm)
			printf("  vmm:      %s\n", k->vmm);
		for (unsigned c = 0; c < k->n_checks; c++) {
			char on[160];
			known_format_check(on, sizeof(on), &k->checks[c]);
			printf("  check:    %s: %s\n", k->checks[c].test, k->checks[c].rule);
			printf("    on:     %s\n", on);
		}
		printf("  source:   %s\n", k->source);
	}
}

/* --known-rows: whether each known-deviation row covers this machine's boot
 * CPU (its CPUs, core type, CPUID bits and platform), for explain. */
static void print_known_rows(void)
{
	for (unsigned i = 0; i < known_count(); i++) {
		const struct known_deviation *k = known_at(i);
		bool applies = known_covers_cpu(k, &g_sim.caps);
		printf("%s\t%s\n", k->id, applies ? "applies" : "does-not-apply");
	}
}

/* The hypervisor platform models in the matrix: each platform
 * ("platform NAME"), and each quirk observable there that the platform does
 * not already have ("pquirk QUIRK PLATFORM"): testing/mutation.sh checks
 * that such a quirk, added to the hypervisor's own deviations, still fails
 * a test on some platform. Firmware-state quirks are left to the profiles. */
static void platform_plan(void)
{
	char err[256];

	for (unsigned i = 0; i < sim_profile_count(); i++) {
		const struct sim_profile *p = sim_profile_at(i);
		if (!sim_profile_is_platform(p) || p->parts)
			continue;
		if (sim_configure(p, NULL, err, sizeof(err)) != SIM_CONFIG_OK)
			bad_usage("%s", err);
		struct caps c = g_sim.caps;
		printf("platform\t%s\n", p->name);
		for (unsigned q = 0; q < QUIRK_COUNT; q++) {
			bool own = false;
			for (unsigned k = 0; k < p->n_quirks; k++)
				own |= p->quirks[k] == q;
			if (!own && !quirk_is_firmware(q) && quirk_applicable(q, &c, p))
				printf("pquirk\t%s\t%s\n", g_quirks[q].name, p->name);
		}
	}
}

static void mutation_plan(void)
{
	unsigned np = sim_profile_count();
	static struct caps caps_of[64];
	const struct sim_profile *order[64];
	unsigned no = 0;
	char err[256];

	for (unsigned i = 0; i < ARRAY_SIZE(preferred); i++)
		if (sim_find_profile(preferred[i]) && no < 64)
			order[no++] = sim_find_profile(preferred[i]);
	for (unsigned i = 0; i < np && no < 64; i++) {
		/* Platform models deviate by design: not conforming profiles. */
		bool skip = sim_profile_is_platform(sim_profile_at(i));
		for (unsigned j = 0; j < no; j++)
			skip |= order[j] == sim_profile_at(i);
		if (!skip)
			order[no++] = sim_profile_at(i);
	}
	for (unsigned i = 0; i < no; i++) {
		if (sim_configure(order[i], NULL, err, sizeof(err)) != SIM_CONFIG_OK)
			bad_usage("%s", err);
		caps_of[i] = g_sim.caps;
		printf("profile\t%s\n", order[i]->name);
	}
	for (unsigned q = 0; q < QUIRK_COUNT; q++) {
		unsigned picked = 0;
		uint32_t kinds = 0; /* PMU kinds already picked (pmu_kind()) */
		/* The first two profiles that show the deviation, then one of each
		 * further kind of PMU (so that tests of one version only, e.g. the
		 * legacy freeze of v2/v3, meet the quirks that concern them). */
		for (unsigned i = 0; i < no; i++) {
			uint32_t k = BIT_ULL(pmu_kind(&caps_of[i]));
			if (!quirk_applicable(q, &caps_of[i], order[i]) ||
			    (picked >= 2 && (kinds & k)))
				continue;
			/* A firmware-state quirk is checked the other way: a
			 * note, and nothing failed (testing/mutation.sh). */
			printf("%s\t%s\t%s\n", quirk_is_firmware(q) ? "firmware" : "quirk",
			       g_quirks[q].name, order[i]->name);
			picked++;
			kinds |= k;
		}
		if (!picked)
			printf("%s\t%s\t-\n", quirk_is_firmware(q) ? "firmware" : "quirk",
			       g_quirks[q].name);
	}
	platform_plan();
}

/* What the command line asks for: main() reads it, then acts on it. */
struct sim_args {
	const char *profile, *dump, *dumps_dir, *config, *cpu, *hypervisor, *replay;
	const char *perf_caps[3];
	unsigned n_perf_caps;
	bool list_profiles, list_quirks, list_known, list_platforms, plan;
	bool conforming, known_rows;
	bool quirks[QUIRK_COUNT];
	char *sets; /* the --set KEY=VALUE lines, each ending in a newline */
	size_t sets_len;
};

/* --set KEY=VALUE: one more line of options after the --config file's. */
static void add_set(struct sim_args *a, const char *v)
{
	if (!strchr(v, '='))
		bad_usage("--set wants KEY=VALUE, got '%s'", v);
	size_t n = strlen(v);
	a->sets = realloc(a->sets, a->sets_len + n + 2);
	if (!a->sets)
		exit(SIM_EXIT_ERROR);
	memcpy(a->sets + a->sets_len, v, n);
	a->sets[a->sets_len + n] = '\n';
	a->sets[a->sets_len + n + 1] = 0;
	a->sets_len += n + 1;
}

/* An option that takes a value and does more than store it; false when `a`
 * is no such option. */
static bool value_option(struct sim_args *args, const char *a, const char *v)
{
	if (!strcmp(a, "--perf-capabilities")) {
		if (args->n_perf_caps == ARRAY_SIZE(args->perf_caps))
			bad_usage("--perf-capabilities given more than %u times",
				  (unsigned)ARRAY_SIZE(args->perf_caps));
		args->perf_caps[args->n_perf_caps++] = v;
	} else if (!strcmp(a, "--platform-event")) {
		if (!sim_platform_event_option(v))
			bad_usage("--platform-event wants nmi|irq|mce|mce-fatal@SUITE.TEST "
				  "(at most 8), got '%s'",
				  v);
	} else if (!strcmp(a, "--smi-every")) {
		if (!sim_smi_option(v))
			bad_usage("--smi-every wants a number of counting windows "
				  "(1-1000000), got '%s'",
				  v);
	} else if (!strcmp(a, "--watchdog-divisor")) {
		char *end;
		unsigned long d = strtoul(v, &end, 10);
		if (*v < '0' || *v > '9' || *end || d < 1 || d > 100)
			bad_usage("--watchdog-divisor wants a number from 1 to 100, got '%s'", v);
		g_sim_watchdog_divisor = (unsigned)d;
	} else if (!strcmp(a, "--quirk")) {
		enum quirk q;
		if (!quirk_find(v, &q))
			bad_usage("unknown quirk '%s' (--list-quirks lists them)", v);
		args->quirks[q] = true;
	} else if (!strcmp(a, "--set")) {
		add_set(args, v);
	} else {
		return false;
	}
	return true;
}

/* The command line into `args`, in order; a bad option ends the run
 * (bad_usage), --help after printing the usage. */
static void parse_args(int argc, char **argv, struct sim_args *args)
{
	/* The options that only set a flag, and those that store one value. */
	const struct {
		const char *name;
		bool *to;
	} flag_opts[] = {
	    {"--list-profiles", &args->list_profiles}, {"--list-platforms", &args->list_platforms},
	    {"--list-quirks", &args->list_quirks},     {"--list-known", &args->list_known},
	    {"--mutation-plan", &args->plan},	       {"--conforming", &args->conforming},
	    {"--known-rows", &args->known_rows},
	};
	const struct {
		const char *name;
		const char **to;
	} value_opts[] = {
	    {"--profile", &args->profile},
	    {"--cpuid-dump", &args->dump},
	    {"--cpu", &args->cpu},
	    {"--dumps-dir", &args->dumps_dir},
	    {"--hypervisor", &args->hypervisor},
	    {"--config", &args->config},
	    {"--replay", &args->replay},
	};
	static const char *const takes_value[] = {
	    "--perf-capabilities", "--platform-event", "--smi-every",
	    "--watchdog-divisor",  "--quirk",	       "--set"};

	args->sets = calloc(1, 1);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool *flag_to = NULL;
		const char **value_to = NULL;
		bool other_value = false;
		for (unsigned k = 0; k < ARRAY_SIZE(flag_opts); k++)
			if (!strcmp(a, flag_opts[k].name))
				flag_to = flag_opts[k].to;
		for (unsigned k = 0; k < ARRAY_SIZE(value_opts); k++)
			if (!strcmp(a, value_opts[k].name))
				value_to = value_opts[k].to;
		for (unsigned k = 0; k < ARRAY_SIZE(takes_value); k++)
			other_value |= !strcmp(a, takes_value[k]);
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(SIM_EXIT_PASS);
		} else if (flag_to) {
			*flag_to = true;
			continue;
		} else if (!value_to && !other_value) {
			bad_usage("unknown option '%s' (see --help)", a);
		}
		if (!v)
			bad_usage("%s needs an argument (see --help)", a);
		i++;
		if (value_to)
			*value_to = v;
		else
			value_option(args, a, v);
	}
}

/* The listing modes: true when one was asked for (and printed). */
static bool print_lists(const struct sim_args *a)
{
	if (a->list_quirks) {
		for (unsigned q = 0; q < QUIRK_COUNT; q++)
			printf("%-34s %s [seen: %s]\n", g_quirks[q].name, g_quirks[q].desc,
			       g_quirks[q].where);
	} else if (a->list_known) {
		print_known();
	} else if (a->list_profiles) {
		for (unsigned i = 0; i < sim_profile_count(); i++)
			printf("%-40s %s\n", sim_profile_at(i)->name, sim_profile_at(i)->desc);
	} else if (a->list_platforms) { /* the hypervisor models and the releases each describes */
		for (unsigned i = 0; i < sim_platform_count; i++)
			printf("%-36s %s\n%-36s   describes: %s\n", sim_platforms[i].name,
			       sim_platforms[i].desc, "", sim_platforms[i].releases);
	} else if (a->plan) {
		mutation_plan();
	} else {
		return false;
	}
	return true;
}

/* The machine to run: a replayed report's (its quirks too), a CPUID dump,
 * or a named profile. */
static const struct sim_profile *choose_profile(struct sim_args *a, struct replay *rp)
{
	static struct sim_profile from_dump;
	const struct sim_profile *p;
	char err[512];

	if (a->dump && a->profile)
		bad_usage("--profile and --cpuid-dump exclude each other");
	if (a->cpu && !a->dump)
		bad_usage("--cpu applies to --cpuid-dump only");
	if (a->replay) {
		if (a->dump || a->profile || a->config)
			bad_usage("--replay excludes --profile, --cpuid-dump and --config");
		if (!sim_replay_load(a->replay, rp, a->quirks, err, sizeof(err)))
			bad_usage("%s", err);
		p = &rp->profile;
		if (a->conforming) /* the same enumeration, no deviation */
			memset(a->quirks, 0, sizeof(a->quirks));
	} else if (a->dump) {
		char *base = strdup(a->dump);
		from_dump.name = base ? basename(base) : a->dump;
		from_dump.desc = "CPUID dump";
		from_dump.dump_path = a->dump;
		p = &from_dump;
	} else {
		p = sim_find_profile(a->profile ? a->profile : DEFAULT_PROFILE);
		if (!p)
			bad_usage(
			    "unknown profile '%s' (--list-profiles lists them; dumps from %s)",
			    a->profile, g_sim_dumps_dir);
	}
	return p;
}

/* The machine options (--hypervisor, --cpu, --perf-capabilities), then the
 * machine built from the profile and the quirks; a CPUID no processor can
 * have is refused before the run, one line naming the field (the kernel
 * bails out with the same line). */
static void configure_machine(const struct sim_args *a, const struct sim_profile *p,
			      const struct replay *rp)
{
	char err[512];

	if (a->hypervisor) {
		if (!*a->hypervisor || strlen(a->hypervisor) > 12)
			bad_usage("--hypervisor wants a CPUID.40000000H signature of 1 to 12 "
				  "characters, got '%s'",
				  a->hypervisor);
		g_sim_hypervisor = a->hypervisor;
	}
	if (a->cpu)
		g_sim_cpu_select = (unsigned)number_arg("--cpu", a->cpu, SIM_FIRST_CPU - 1);
	for (unsigned i = 0; i < a->n_perf_caps; i++) {
		/* [core=|atom=]VALUE: every CPU, or one hybrid core type's. */
		const char *v = a->perf_caps[i];
		enum core_type t = CORE_TYPE_NONE;
		if (!strncmp(v, "core=", 5))
			t = CORE_TYPE_CORE;
		else if (!strncmp(v, "atom=", 5))
			t = CORE_TYPE_ATOM;
		sim_set_perf_capabilities(
		    t,
		    number_arg("--perf-capabilities", t == CORE_TYPE_NONE ? v : v + 5, UINT64_MAX));
	}
	enum sim_config_result configured = sim_configure(p, a->quirks, err, sizeof(err));
	if (a->replay)
		unlink(rp->dump_path); /* read: the CPUs hold their leaves */
	if (configured != SIM_CONFIG_OK)
		bad_usage("%s", err);
	if (caps_absurd(&g_sim.caps, err, sizeof(err)))
		bad_usage("%s: refused: %s", p->name, err);
}

/* The options the kernel reads: the --config file's or the replayed
 * report's, then the --set lines; NULL for none. */
static char *options_text(const struct sim_args *a, const struct replay *rp, size_t *len)
{
	size_t tl = 0;
	char *text = a->config ? read_file(a->config, &tl) : NULL;

	if (a->replay) {
		text = rp->config_text;
		tl = rp->config_len;
	}
	if (a->sets_len) {
		char *all = malloc(tl + a->sets_len + 2);
		if (!all)
			exit(SIM_EXIT_ERROR);
		if (text)
			memcpy(all, text, tl);
		if (tl && text[tl - 1] != '\n')
			all[tl++] = '\n';
		memcpy(all + tl, a->sets, a->sets_len + 1);
		tl += a->sets_len;
		text = all;
	}
	*len = tl;
	return text;
}

/* What the kernel is handed: the options and where they came from, and
 * whether a firmware ran before it (a profile's, or a firmware-state
 * quirk's). */
static void fill_boot_info(const struct sim_args *a, const struct replay *rp,
			   const struct sim_profile *p, struct boot_info *bi)
{
	bi->config_text = options_text(a, rp, &bi->config_len);
	bi->config_source = a->config	? a->config
			    : a->replay ? a->replay
					: (a->sets_len ? "--set" : NULL);
	bi->firmware_vendor = "pmusim (no firmware)";
	bi->firmware = BOOT_NO_FIRMWARE;
	bi->firmware_why = "the simulator: nothing runs before pmutest";
	if (p && p->firmware) {
		bi->firmware = BOOT_FIRMWARE_MAY_HAVE_RUN;
		bi->firmware_why = p->firmware;
	}
	/* A firmware-state quirk models a firmware that ran. */
	for (unsigned q = 0; q < QUIRK_COUNT; q++) {
		if (a->quirks[q] && quirk_is_firmware((enum quirk)q)) {
			bi->firmware = BOOT_FIRMWARE_MAY_HAVE_RUN;
			bi->firmware_why = "pmusim: a firmware-state quirk models a firmware";
		}
	}
}

/* Bad options are bad usage here (SIM_EXIT_USAGE), judged by the kernel's own
 * parser and name check: the kernel would report the same errors and end
 * its run with verdict ERROR. */
static void check_options(const struct boot_info *bi)
{
	static struct options o;
	unsigned shown = 0, n;

	if (!bi->config_text)
		return;
	options_defaults(&o);
	n = options_parse(&o, bi->config_text, bi->config_len, bi->config_source,
			  print_option_error, &shown);
	n += runner_check_names(&o, print_option_error, &shown);
	if (n)
		bad_usage("%u error%s in the options%s: nothing was run", n, n > 1 ? "s" : "",
			  shown > 20 ? " (the first 20 shown)" : "");
}

int main(int argc, char **argv)
{
	static struct sim_args args;
	static struct replay rp;
	static struct boot_info bi;

	parse_args(argc, argv, &args);
	sim_load_profiles(args.dumps_dir ? args.dumps_dir : default_dumps_dir());
	if (print_lists(&args))
		return SIM_EXIT_PASS;
	const struct sim_profile *p = choose_profile(&args, &rp);
	configure_machine(&args, p, &rp);
	if (args.known_rows) {
		print_known_rows();
		return SIM_EXIT_PASS;
	}
	fill_boot_info(&args, &rp, p, &bi);
	check_options(&bi);
	kernel_main(&bi);
}
