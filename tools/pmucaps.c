/* SPDX-License-Identifier: MIT */
/*
 * pmucaps: decode a raw CPUID dump (`cpuid -r` format) with the kernel's own
 * capability decoder (kernel/caps.c) and print the record as JSON.
 *
 *   pmucaps --cpuid-dump FILE [--cpu N] [--perf-capabilities VALUE]
 *
 * The schema is documented in docs/pmucaps-schema.md. Bad input is one line
 * on stderr and exit status 2.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "kstring.h"
#include "cpuid_dump.h"

#define EXIT_USAGE 2

static const char *prog = "pmucaps";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s --cpuid-dump FILE [--cpu N] [--perf-capabilities VALUE]\n"
		"  Decode a `cpuid -r` dump (logical CPU N, default the first in the file)\n"
		"  and print the capability record as JSON (docs/pmucaps-schema.md).\n"
		"  VALUE is IA32_PERF_CAPABILITIES as read on that machine (used when\n"
		"  CPUID.01H:ECX.PDCM[15] = 1).\n",
		prog);
}

/* Numbers as everywhere else in pmutest (the options file, pmusim):
 * decimal or 0x hex, no sign, no octal, no overflow (kernel/kstring.c). */
static bool parse_u64(const char *s, uint64_t *out)
{
	return kparse_u64(s, strlen(s), out);
}

/* ---- A small pretty JSON writer ------------------------------------- */

struct json {
	FILE *f;
	unsigned depth;
	bool first;  /* no member written yet at this depth */
	bool absent; /* in a group whose source is absent: values are null */
};

static void j_indent(struct json *j)
{
	for (unsigned i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void j_key(struct json *j, const char *key)
{
	fputs(j->first ? "\n" : ",\n", j->f);
	j->first = false;
	j_indent(j);
	if (key)
		fprintf(j->f, "\"%s\": ", key);
}

static void j_open(struct json *j, const char *key, char bracket)
{
	if (key || j->depth)
		j_key(j, key);
	fputc(bracket, j->f);
	j->depth++;
	j->first = true;
}

static void j_close(struct json *j, char bracket)
{
	j->depth--;
	if (!j->first) {
		fputc('\n', j->f);
		j_indent(j);
	}
	fputc(bracket, j->f);
	j->first = false;
}

static void j_null(struct json *j, const char *key)
{
	j_key(j, key);
	fputs("null", j->f);
}

/* The key of a value, or the whole member as null in an absent group:
 * whether the value is to be written. */
static bool j_value(struct json *j, const char *key)
{
	if (j->absent) {
		j_null(j, key);
		return false;
	}
	j_key(j, key);
	return true;
}

/* Members that exist only when their source does (a leaf, a version): the
 * values written between j_group() and j_group_end() are null when
 * `present` is false, so each key is written once for both cases. */
static void j_group(struct json *j, bool present)
{
	j->absent = !present;
}

static void j_group_end(struct json *j)
{
	j->absent = false;
}

static void j_str(struct json *j, const char *key, const char *s)
{
	if (!j_value(j, key))
		return;
	fputc('"', j->f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(j->f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7F)
			fprintf(j->f, "\\u%04x", ch); /* CPUID strings are bytes */
		else
			fputc(ch, j->f);
	}
	fputc('"', j->f);
}

static void j_u64(struct json *j, const char *key, uint64_t v)
{
	if (j_value(j, key))
		fprintf(j->f, "%" PRIu64, v);
}

static void j_bool(struct json *j, const char *key, bool v)
{
	if (j_value(j, key))
		fputs(v ? "true" : "false", j->f);
}

/* An object under `key` when `present` (opened: the caller fills and closes
 * it), else null: whether it was opened. */
static bool j_object(struct json *j, const char *key, bool present)
{
	if (!present) {
		j_null(j, key);
		return false;
	}
	j_open(j, key, '{');
	return true;
}

static void j_hex(struct json *j, const char *key, uint64_t v, int digits)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%0*" PRIx64, digits, v);
	j_str(j, key, buf);
}

/* Indices of the set bits, as a one-line list. */
static void j_bit_list(struct json *j, const char *key, uint64_t mask)
{
	bool first = true;

	if (!j_value(j, key))
		return;
	fputc('[', j->f);
	for (unsigned i = 0; i < 64; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		fprintf(j->f, first ? "%u" : ", %u", i);
		first = false;
	}
	fputc(']', j->f);
}

/* ---- The record --------------------------------------------------------- */

static const char *vendor_class(enum cpu_vendor v)
{
	switch (v) {
	case VENDOR_INTEL:
		return "intel";
	case VENDOR_AMD:
		return "amd";
	case VENDOR_HYGON:
		return "hygon";
	default:
		return "unknown";
	}
}

static void emit_arch_perfmon(struct json *j, const struct caps *c)
{
	const struct caps_arch_perfmon *pm = &c->pm;

	if (!j_object(j, "arch_perfmon", pm->present))
		return;
	j_u64(j, "version", pm->version);
	j_u64(j, "gp_counters", pm->gp_counters);
	j_u64(j, "gp_width", pm->gp_width);
	j_bit_list(j, "gp_mask", pm->gp_mask);
	j_u64(j, "ebx_length", pm->ebx_length);
	j_hex(j, "ebx", pm->ebx, 8);
	j_open(j, "events", '{');
	for (unsigned i = 0; i < ARCH_EVENT_COUNT; i++)
		j_bool(j, caps_arch_event_name(i), pm->event_available[i]);
	j_close(j, '}');
	j_bit_list(j, "fixed_counters", pm->fixed_supported);
	j_group(j, pm->version > 1);
	j_u64(j, "fixed_counters_contiguous", pm->fixed_counters_edx);
	j_u64(j, "fixed_width", pm->fixed_width);
	j_group(j, pm->version >= 5);
	j_u64(j, "fixed_bitmask", pm->fixed_bitmask);
	j_group_end(j);
	j_bool(j, "anythread_deprecated", pm->anythread_deprecated);
	j_close(j, '}');
}

static void emit_leaf23(struct json *j, const struct caps *c)
{
	const struct caps_leaf23 *x = &c->l23;

	if (!j_object(j, "arch_perfmon_ext", x->present))
		return;
	j_hex(j, "valid_subleaves", x->subleaf_valid, 8);
	j_bool(j, "umask2", x->umask2);
	j_bool(j, "eq", x->eq);
	j_bool(j, "rdpmc_user_disable", x->rdpmc_user_disable);
	j_group(j, x->counters_valid);
	j_bit_list(j, "gp_bitmap", x->gp_bitmap);
	j_bit_list(j, "fixed_bitmap", x->fixed_bitmap);
	j_group(j, x->acr_valid);
	j_bit_list(j, "acr_gp_reloadable", x->acr_gp_reloadable);
	j_bit_list(j, "acr_fixed_reloadable", x->acr_fixed_reloadable);
	j_bit_list(j, "acr_gp_cause", x->acr_gp_cause);
	j_bit_list(j, "acr_fixed_cause", x->acr_fixed_cause);
	j_group(j, x->events_valid);
	j_hex(j, "events_bitmap", x->events_bitmap, 8);
	j_group(j, x->pebs_caps_valid);
	j_hex(j, "pebs_caps", x->pebs_caps, 8);
	j_group(j, x->pebs_counters_valid);
	j_bit_list(j, "pebs_gp", x->pebs_gp);
	j_bit_list(j, "pebs_fixed", x->pebs_fixed);
	j_bit_list(j, "pdist_gp", x->pdist_gp);
	j_bit_list(j, "pdist_fixed", x->pdist_fixed);
	j_group_end(j);
	j_bool(j, "arch_pebs", x->arch_pebs);
	j_close(j, '}');
}

static void emit_arch_lbr(struct json *j, const struct caps *c)
{
	const struct caps_arch_lbr *a = &c->arch_lbr;

	if (!j_object(j, "arch_lbr", a->present))
		return;
	j_hex(j, "depth_mask", a->depth_mask, 2);
	j_u64(j, "max_depth", a->max_depth);
	j_bool(j, "mispredict", a->mispredict);
	j_bool(j, "timed", a->timed);
	j_bool(j, "branch_type", a->branch_type);
	j_bit_list(j, "event_logging", a->event_logging);
	j_close(j, '}');
}

static void emit_rdt_monitoring(struct json *j, const struct caps *c)
{
	const struct caps_rdt *rdt = &c->rdt;

	if (!j_object(j, "rdt_monitoring", rdt->mon_present))
		return;
	j_u64(j, "max_rmid", rdt->max_rmid);
	if (j_object(j, "l3", rdt->l3.present)) {
		j_u64(j, "max_rmid", rdt->l3.max_rmid);
		j_u64(j, "upscale", rdt->l3.upscale);
		j_u64(j, "counter_width", rdt->l3.counter_width);
		j_bool(j, "overflow_bit", rdt->l3.overflow_bit);
		j_bool(j, "occupancy", rdt->l3.occupancy);
		j_bool(j, "total_bw", rdt->l3.total_bw);
		j_bool(j, "local_bw", rdt->l3.local_bw);
		j_close(j, '}');
	}
	j_close(j, '}');
}

static void emit_cat(struct json *j, const char *key, bool valid, unsigned cbm_len,
		     unsigned max_cos, bool cdp, uint32_t isolation, bool noncont)
{
	if (!j_object(j, key, valid))
		return;
	j_u64(j, "cbm_length", cbm_len);
	j_u64(j, "highest_cos", max_cos);
	j_bool(j, "cdp", cdp);
	j_hex(j, "isolation_bitmap", isolation, 8);
	j_bool(j, "non_contiguous", noncont);
	j_close(j, '}');
}

static void emit_amd_pqos(struct json *j, const struct caps_amd_pqos *a)
{
	if (!j_object(j, "amd_pqos", a->present))
		return;
	j_hex(j, "ebx", a->ebx0, 8);
	j_bool(j, "be", a->be);
	j_bool(j, "l3be", a->l3be);
	j_bool(j, "l3smbe", a->l3smbe);
	j_bool(j, "bmec", a->bmec);
	j_bool(j, "abmc", a->abmc);
	j_bool(j, "sdciae", a->sdciae);
	if (j_object(j, "l3be_params", a->l3be_valid)) {
		j_u64(j, "bw_len", a->bw_len);
		j_u64(j, "highest_cos", a->bw_max_cos);
		j_close(j, '}');
	}
	if (j_object(j, "l3smbe_params", a->l3smbe_valid)) {
		j_u64(j, "bw_len", a->smbw_len);
		j_u64(j, "highest_cos", a->smbw_max_cos);
		j_close(j, '}');
	}
	if (j_object(j, "bmec_params", a->bmec_valid)) {
		j_u64(j, "event_configs", a->evt_num);
		j_hex(j, "bandwidth_types", a->evt_types, 2);
		j_close(j, '}');
	}
	if (j_object(j, "abmc_params", a->abmc_valid)) {
		j_u64(j, "counters", a->abmc_counters);
		j_bool(j, "cos_binding", a->abmc_cos_bind);
		j_close(j, '}');
	}
	j_close(j, '}');
}

static void emit_rdt_allocation(struct json *j, const struct caps *c)
{
	const struct caps_rdt *rdt = &c->rdt;

	if (!j_object(j, "rdt_allocation", rdt->alloc_present))
		return;
	j_bool(j, "l3_cat", rdt->l3_cat);
	j_bool(j, "l2_cat", rdt->l2_cat);
	j_bool(j, "mba", rdt->mba);
	emit_cat(j, "l3", rdt->l3_params_valid, rdt->l3_cbm_len, rdt->l3_max_cos, rdt->l3_cdp,
		 rdt->l3_isolation, rdt->l3_noncont);
	j_bool(j, "l3_io_alloc", rdt->l3_io_alloc);
	emit_cat(j, "l2", rdt->l2_params_valid, rdt->l2_cbm_len, rdt->l2_max_cos, rdt->l2_cdp,
		 rdt->l2_isolation, rdt->l2_noncont);
	if (j_object(j, "mba_params", rdt->mba_params_valid)) {
		j_u64(j, "max_throttle", rdt->mba_max_delay);
		j_u64(j, "highest_cos", rdt->mba_max_cos);
		j_bool(j, "linear", rdt->mba_linear);
		j_bool(j, "per_thread", rdt->mba_per_thread);
		j_close(j, '}');
	}
	emit_amd_pqos(j, &rdt->amd);
	j_close(j, '}');
}

static void emit_perf_capabilities(struct json *j, const struct caps *c)
{
	const struct caps_perf_capabilities *p = &c->perf_cap;

	if (!j_object(j, "perf_capabilities", p->valid))
		return;
	j_hex(j, "raw", p->raw, 16);
	j_u64(j, "lbr_format", p->lbr_format);
	j_bool(j, "pebs_trap", p->pebs_trap);
	j_bool(j, "pebs_arch_reg", p->pebs_arch_reg);
	j_u64(j, "pebs_format", p->pebs_format);
	j_bool(j, "freeze_while_smm", p->freeze_while_smm);
	j_bool(j, "full_width_write", p->full_width_write);
	j_bool(j, "pebs_baseline", p->pebs_baseline);
	j_bool(j, "perf_metrics", p->perf_metrics);
	j_bool(j, "pebs_output_pt", p->pebs_output_pt);
	j_bool(j, "pebs_timing_info", p->pebs_timing_info);
	j_bool(j, "rdpmc_metrics_clear", p->rdpmc_metrics_clear);
	j_bool(j, "arch_pebs_format", p->arch_pebs_format);
	j_hex(j, "undefined_bits", p->undefined_bits, 16);
	j_bool(j, "arch_pebs", caps_arch_pebs(c));
	j_close(j, '}');
}

static void emit_amd(struct json *j, const struct caps *c)
{
	const struct caps_amd *a = &c->amd;

	if (!j_object(j, "amd", caps_amd_like(c)))
		return;
	j_group(j, a->ext1_present);
	j_bool(j, "perfctr_core", a->perfctr_core);
	j_bool(j, "perfctr_nb", a->perfctr_nb);
	j_bool(j, "perfctr_llc", a->perfctr_llc);
	j_group(j, a->ext22_present);
	j_bool(j, "perfmon_v2", a->perfmon_v2);
	j_bool(j, "lbr_stack_v2", a->lbr_stack_v2);
	j_bool(j, "lbr_pmc_freeze", a->lbr_pmc_freeze);
	j_u64(j, "num_core_pmc", a->num_core_pmc_v2);
	j_u64(j, "lbr_v2_stack_size", a->lbr_v2_stack_size);
	j_u64(j, "num_df_pmc", a->num_df_pmc_v2);
	j_u64(j, "num_umc_pmc", a->num_umc_pmc_v2);
	j_group_end(j);
	j_u64(j, "core_counters", a->core_counters);
	j_close(j, '}');
}

static void emit(FILE *f, const struct caps *c, unsigned cpu)
{
	struct json j = {.f = f, .depth = 0, .first = true};
	bool leaf1 = c->max_basic_leaf >= 1;

	j_open(&j, NULL, '{');
	j_u64(&j, "cpu", cpu);
	j_str(&j, "vendor", c->vendor_string);
	j_str(&j, "vendor_class", vendor_class(c->vendor));
	j_group(&j, leaf1);
	j_u64(&j, "family", c->family);
	j_u64(&j, "model", c->model);
	j_u64(&j, "stepping", c->stepping);
	j_hex(&j, "signature", c->signature, 8);
	j_group_end(&j);
	j_u64(&j, "max_basic_leaf", c->max_basic_leaf);
	j_group(&j, c->max_ext_valid);
	j_u64(&j, "max_ext_leaf", c->max_ext_leaf);
	j_group(&j, leaf1);
	j_bool(&j, "hypervisor", c->hypervisor);
	j_bool(&j, "pdcm", c->pdcm);
	j_bool(&j, "x2apic", c->x2apic);
	j_bool(&j, "apic", c->apic);
	j_bool(&j, "msr", c->msr);
	j_bool(&j, "tsc", c->tsc);
	j_bool(&j, "ds", c->ds);
	j_group(&j, c->hypervisor);
	j_str(&j, "hypervisor_vendor", c->hypervisor_vendor);
	j_group(&j, c->max_basic_leaf >= 7);
	j_bool(&j, "hybrid", c->hybrid);
	j_group(&j, c->hybrid && c->max_basic_leaf >= 0x1A);
	j_str(&j, "core_type", caps_core_type_name(c->core_type));
	j_hex(&j, "native_model_id", c->native_model_id, 6);
	j_group_end(&j);
	emit_arch_perfmon(&j, c);
	emit_leaf23(&j, c);
	emit_arch_lbr(&j, c);
	emit_rdt_monitoring(&j, c);
	emit_rdt_allocation(&j, c);
	emit_perf_capabilities(&j, c);
	emit_amd(&j, c);
	j_bool(&j, "nehalem_uncore", c->nehalem_uncore);
	j_bool(&j, "netburst", c->netburst);
	j_close(&j, '}');
	fputc('\n', f);
}

int main(int argc, char **argv)
{
	const char *dump_path = NULL;
	bool have_cpu = false, have_perf_cap = false;
	uint64_t cpu_arg = 0, perf_cap = 0;
	struct cpuid_dump dump;
	struct cpuid_dump_source src;
	struct cpuid_regs r;
	struct caps c;
	char err[512];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--cpuid-dump") || !strcmp(a, "--cpu") ||
		    !strcmp(a, "--perf-capabilities")) {
			const char *v = i + 1 < argc ? argv[++i] : NULL;

			if (!v)
				die("%s needs a value (see --help)", a);
			if (!strcmp(a, "--cpuid-dump")) {
				dump_path = v;
			} else if (!strcmp(a, "--cpu")) {
				if (!parse_u64(v, &cpu_arg) || cpu_arg > 0xFFFFFFFFULL)
					die("--cpu: '%s' is not a CPU number", v);
				have_cpu = true;
			} else {
				if (!parse_u64(v, &perf_cap))
					die("--perf-capabilities: '%s' is not a number", v);
				have_perf_cap = true;
			}
			continue;
		}
		die("unknown argument '%s' (see --help)", a);
	}
	if (!dump_path)
		die("no dump given: --cpuid-dump FILE is required (see --help)");
	if (cpuid_dump_load(&dump, dump_path, err, sizeof(err)))
		die("%s", err);

	src.dump = &dump;
	src.cpu = have_cpu ? (unsigned)cpu_arg : cpuid_dump_cpu_number(&dump, 0);
	if (!cpuid_dump_has_cpu(&dump, src.cpu))
		die("%s: no CPU %u in the dump (it has %u CPU(s), the first is CPU %u)", dump_path,
		    src.cpu, cpuid_dump_cpu_count(&dump), cpuid_dump_cpu_number(&dump, 0));
	/* Leaf 0 gives the vendor and the maximum basic leaf: without it every
	 * other value would be decoded against a maximum of 0. */
	if (!cpuid_dump_lookup(&dump, src.cpu, 0, 0, &r))
		die("%s: CPU %u has no leaf 0 (vendor and maximum basic leaf)", dump_path, src.cpu);

	caps_decode(&c, cpuid_dump_source_fn, &src);
	if (have_perf_cap) {
		if (!c.pdcm)
			die("--perf-capabilities given, but CPUID.01H:ECX.PDCM[15] = 0 in %s: "
			    "IA32_PERF_CAPABILITIES does not exist there",
			    dump_path);
		caps_decode_perf_capabilities(&c, perf_cap);
	}
	emit(stdout, &c, src.cpu);
	cpuid_dump_free(&dump);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: write error on stdout\n", prog);
		return EXIT_USAGE;
	}
	return 0;
}
