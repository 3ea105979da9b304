/* SPDX-License-Identifier: MIT */
/*
 * The capability record as KTAP diagnostics, printed at the start of every
 * run so a report always says what the suite believed the CPU to be. Every
 * line starts "caps:" and names the CPUID field it shows.
 */
#include "caps.h"
#include "ktap.h"

#define YN(b) ((b) ? "yes" : "no")

/* Append to buf (holding len chars); stops quietly when full. */
static size_t append(char *buf, size_t size, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t append(char *buf, size_t size, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len + 1 >= size)
		return len;
	va_start(ap, fmt);
	n = kvsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	len += n > 0 ? (size_t)n : 0;
	return len < size ? len : size - 1;
}

static void report_identity(const struct caps *c)
{
	ktap_diag(&g_ktap,
		  "caps: vendor %s (%s), DisplayFamily %02XH DisplayModel %02XH stepping %u "
		  "(CPUID.01H:EAX = 0x%08x)",
		  c->vendor_string, caps_vendor_name(c->vendor), c->family, c->model, c->stepping,
		  c->signature);
	if (c->max_ext_valid)
		ktap_diag(&g_ktap, "caps: max basic leaf %02XH, max extended leaf %XH",
			  c->max_basic_leaf, c->max_ext_leaf);
	else
		ktap_diag(&g_ktap, "caps: max basic leaf %02XH, no extended leaves",
			  c->max_basic_leaf);
	ktap_diag(&g_ktap,
		  "caps: CPUID.01H: hypervisor %s, PDCM %s, x2APIC %s, APIC %s, MSR %s, TSC %s, "
		  "DS %s",
		  YN(c->hypervisor), YN(c->pdcm), YN(c->x2apic), YN(c->apic), YN(c->msr),
		  YN(c->tsc), YN(c->ds));
	if (c->hypervisor)
		ktap_diag(&g_ktap, "caps: hypervisor vendor \"%s\" (CPUID.40000000H)",
			  c->hypervisor_vendor);
	if (c->hybrid)
		ktap_diag(&g_ktap,
			  "caps: hybrid part, this CPU's core type %s (%02XH), native model "
			  "ID %06XH (CPUID.1AH)",
			  caps_core_type_name(c->core_type), (unsigned)c->core_type,
			  c->native_model_id);
}

static void report_arch_perfmon(const struct caps *c)
{
	const struct caps_arch_perfmon *pm = &c->pm;
	char avail[256], unavail[256], fixed[128];
	size_t na = 0, nu = 0, nf = 0;

	if (!pm->present) {
		if (c->max_basic_leaf < 0x0A)
			ktap_diag(&g_ktap,
				  "caps: no architectural PMU (leaf 0AH above the maximum "
				  "basic leaf %XH)",
				  c->max_basic_leaf);
		else
			ktap_diag(&g_ktap, "caps: no architectural PMU (CPUID.0AH:EAX[7:0] = 0)");
		return;
	}
	avail[0] = unavail[0] = fixed[0] = '\0';
	for (unsigned i = 0; i < ARCH_EVENT_COUNT; i++) {
		if (pm->event_available[i])
			na = append(avail, sizeof(avail), na, " %s", caps_arch_event_name(i));
		else
			nu = append(unavail, sizeof(unavail), nu, " %s", caps_arch_event_name(i));
	}
	for (unsigned i = 0; i < FIXED_MAX; i++)
		if (pm->fixed_supported & BIT_ULL(i))
			nf = append(fixed, sizeof(fixed), nf, "%s%u", nf ? "," : "", i);
	ktap_diag(&g_ktap,
		  "caps: architectural PMU version %u: %u GP counters x %u bits (mask %#llx)",
		  pm->version, pm->gp_counters, pm->gp_width, (unsigned long long)pm->gp_mask);
	ktap_diag(&g_ktap,
		  "caps: fixed counters {%s} x %u bits (CPUID.0AH:EDX[4:0] = %u, ECX = %#x), "
		  "AnyThread deprecated %s",
		  nf ? fixed : "none", pm->fixed_width, pm->fixed_counters_edx, pm->fixed_bitmask,
		  YN(pm->anythread_deprecated));
	ktap_diag(&g_ktap, "caps: events (EBX length %u, EBX = %#x) available:%s", pm->ebx_length,
		  pm->ebx, na ? avail : " none");
	ktap_diag(&g_ktap, "caps: events not available:%s", nu ? unavail : " none");
}

static void report_leaf23(const struct caps *c)
{
	const struct caps_leaf23 *x = &c->l23;

	if (!x->present)
		return;
	if (x->counters_valid)
		ktap_diag(&g_ktap,
			  "caps: CPUID.23H: sub-leaves %#x, UMASK2 %s, EQ %s, GP bitmap "
			  "%#x, fixed bitmap %#x",
			  x->subleaf_valid, YN(x->umask2), YN(x->eq), x->gp_bitmap,
			  x->fixed_bitmap);
	else
		ktap_diag(&g_ktap,
			  "caps: CPUID.23H: sub-leaves %#x, UMASK2 %s, EQ %s, no counter "
			  "sub-leaf",
			  x->subleaf_valid, YN(x->umask2), YN(x->eq));
	ktap_diag(&g_ktap, "caps: CPUID.(23H,0):EBX[2] RDPMC_USR_DISABLE %s",
		  YN(x->rdpmc_user_disable));
	if (x->acr_valid)
		ktap_diag(&g_ktap,
			  "caps: CPUID.(23H,2) auto counter reload: reloadable GP %#x fixed %#x, "
			  "cause GP %#x fixed %#x",
			  x->acr_gp_reloadable, x->acr_fixed_reloadable, x->acr_gp_cause,
			  x->acr_fixed_cause);
	if (x->events_valid)
		ktap_diag(&g_ktap, "caps: CPUID.(23H,3) architectural events supported %#x",
			  x->events_bitmap);
	if (x->pebs_caps_valid || x->pebs_counters_valid)
		ktap_diag(&g_ktap,
			  "caps: CPUID.(23H,4/5) arch-PEBS %s: capabilities EBX %#x, PEBS GP %#x "
			  "fixed %#x, PDIST GP %#x fixed %#x",
			  x->arch_pebs ? "enumerated" : "incomplete (EAX[5:4] not both set)",
			  x->pebs_caps, x->pebs_gp, x->pebs_fixed, x->pdist_gp, x->pdist_fixed);
}

static void report_amd_pqos(const struct caps_amd_pqos *a)
{
	if (!a->present)
		return;
	ktap_diag(&g_ktap,
		  "caps: AMD PQoS (8000_0020H): EBX %#x: L3BE %s, L3SMBE %s, BMEC %s, ABMC %s, "
		  "SDCIAE %s; CPUID.8000_0008H:EBX.BE[6] %s",
		  a->ebx0, YN(a->l3be), YN(a->l3smbe), YN(a->bmec), YN(a->abmc), YN(a->sdciae),
		  YN(a->be));
	if (a->l3be_valid)
		ktap_diag(&g_ktap, "caps: AMD L3BE: BW_LEN %u, highest COS %u", a->bw_len,
			  a->bw_max_cos);
	if (a->l3smbe_valid)
		ktap_diag(&g_ktap, "caps: AMD L3SMBE: SMBW_LEN %u, highest COS %u", a->smbw_len,
			  a->smbw_max_cos);
	if (a->bmec_valid)
		ktap_diag(&g_ktap, "caps: AMD BMEC: %u event configurations, bandwidth types %#x",
			  a->evt_num, a->evt_types);
	if (a->abmc_valid)
		ktap_diag(&g_ktap, "caps: AMD ABMC: %u counters, COS binding %s", a->abmc_counters,
			  YN(a->abmc_cos_bind));
}

static void report_rdt(const struct caps *c)
{
	const struct caps_rdt *r = &c->rdt;

	if (!r->mon_present)
		ktap_diag(&g_ktap, "caps: RDT monitoring: none (CPUID.(07H,0):EBX.PQM[12] = %u)",
			  r->pqm);
	else if (!r->l3.present)
		ktap_diag(&g_ktap, "caps: RDT monitoring: max RMID %u, no L3 monitoring",
			  r->max_rmid);
	else
		ktap_diag(&g_ktap,
			  "caps: RDT monitoring: max RMID %u; L3: max RMID %u, upscale %u bytes, "
			  "counter width %u bits, occupancy %s, total BW %s, local BW %s",
			  r->max_rmid, r->l3.max_rmid, r->l3.upscale, r->l3.counter_width,
			  YN(r->l3.occupancy), YN(r->l3.total_bw), YN(r->l3.local_bw));
	if (!r->alloc_present) {
		ktap_diag(&g_ktap, "caps: RDT allocation: none (CPUID.(07H,0):EBX.PQE[15] = %u)",
			  r->pqe);
		return;
	}
	ktap_diag(&g_ktap, "caps: RDT allocation: L3 CAT %s, L2 CAT %s, MBA %s", YN(r->l3_cat),
		  YN(r->l2_cat), YN(r->mba));
	if (r->l3_params_valid)
		ktap_diag(&g_ktap,
			  "caps: L3 CAT: CBM %u bits, shareable %#x, highest COS %u, CDP %s, "
			  "non-contiguous CBM %s, non-CPU agents %s",
			  r->l3_cbm_len, r->l3_isolation, r->l3_max_cos, YN(r->l3_cdp),
			  YN(r->l3_noncont), YN(r->l3_io_alloc));
	else if (r->l3_cat)
		ktap_diag(&g_ktap,
			  "caps: L3 CAT: CPUID.(10H,1) reads all zeros: parameters unknown");
	if (r->l2_params_valid)
		ktap_diag(&g_ktap,
			  "caps: L2 CAT: CBM %u bits, shareable %#x, highest COS %u, CDP %s, "
			  "non-contiguous CBM %s",
			  r->l2_cbm_len, r->l2_isolation, r->l2_max_cos, YN(r->l2_cdp),
			  YN(r->l2_noncont));
	else if (r->l2_cat)
		ktap_diag(&g_ktap,
			  "caps: L2 CAT: CPUID.(10H,2) reads all zeros: parameters unknown");
	if (r->mba_params_valid)
		ktap_diag(&g_ktap,
			  "caps: MBA: max throttling %u, highest COS %u, linear %s, per-thread %s",
			  r->mba_max_delay, r->mba_max_cos, YN(r->mba_linear),
			  YN(r->mba_per_thread));
	else if (r->mba)
		ktap_diag(&g_ktap, "caps: MBA: CPUID.(10H,3) reads all zeros: parameters unknown");
	report_amd_pqos(&r->amd);
}

static void report_perf_capabilities(const struct caps *c)
{
	const struct caps_perf_capabilities *p = &c->perf_cap;

	if (!p->valid) {
		ktap_diag(&g_ktap, "caps: IA32_PERF_CAPABILITIES not read (%s)",
			  c->pdcm ? "RDMSR faulted" : "CPUID.01H:ECX.PDCM[15] = 0");
		return;
	}
	ktap_diag(&g_ktap,
		  "caps: IA32_PERF_CAPABILITIES = %#llx: LBR format %u, PEBS trap %s, PEBS arch "
		  "regs %s, PEBS format %u, freeze while SMM %s, full-width write %s, PEBS "
		  "baseline %s, perf metrics %s",
		  (unsigned long long)p->raw, p->lbr_format, YN(p->pebs_trap), YN(p->pebs_arch_reg),
		  p->pebs_format, YN(p->freeze_while_smm), YN(p->full_width_write),
		  YN(p->pebs_baseline), YN(p->perf_metrics));
	ktap_diag(&g_ktap,
		  "caps: IA32_PERF_CAPABILITIES: PEBS via PT %s, timed PEBS %s, RDPMC metrics "
		  "clear %s, PEBS format %s, undefined bits %#llx",
		  YN(p->pebs_output_pt), YN(p->pebs_timing_info), YN(p->rdpmc_metrics_clear),
		  p->arch_pebs_format ? "0FH (architectural PEBS)" : "DS-area",
		  (unsigned long long)p->undefined_bits);
}

static void report_arch_lbr(const struct caps *c)
{
	const struct caps_arch_lbr *a = &c->arch_lbr;

	if (!a->enumerated)
		return;
	ktap_diag(&g_ktap,
		  "caps: Arch LBR: CPUID.1CH %s: depths %#x (max %u), CPL filter %s, branch "
		  "filter %s, call stack %s, mispredict %s, timed %s, branch type %s",
		  a->present ? "present" : "absent", a->depth_mask, a->max_depth, YN(a->cpl_filter),
		  YN(a->branch_filter), YN(a->call_stack), YN(a->mispredict), YN(a->timed),
		  YN(a->branch_type));
	if (a->present)
		ktap_diag(&g_ktap,
			  "caps: Arch LBR: CPUID.1CH:ECX[19:16] branch-counter event logging "
			  "%#x",
			  a->event_logging);
}

/* Fields decoded for the report that no test drives yet: said, so that a
 * reader does not take their presence in the header for coverage. */
static void report_decoded_only(const struct caps *c)
{
	const struct caps_leaf23 *x = &c->l23;
	char list[160];
	size_t n = 0;

	/* ACR (acr.*), the arch-PEBS groups and counters (arch_pebs.*) and the
	 * RDPMC metrics clear mode (metrics.rdpmc_clear_mode) have tests. */
	list[0] = '\0';
	if (x->events_valid)
		n = append(list, sizeof(list), n, " CPUID.(23H,3) events;");
	if (x->pebs_counters_valid && (x->pdist_gp || x->pdist_fixed))
		n = append(list, sizeof(list), n, " CPUID.(23H,5) PDIST counters;");
	if (n)
		ktap_diag(&g_ktap, "caps: decoded, no test uses yet:%s", list);
}

static void report_amd(const struct caps *c)
{
	const struct caps_amd *a = &c->amd;

	if (!caps_amd_like(c))
		return;
	ktap_diag(&g_ktap,
		  "caps: AMD: PerfCtrExtCore %s, PerfCtrExtNB %s, PerfCtrExtLLC %s, PerfMonV2 %s "
		  "(CPUID.80000022H %s: core PMCs %u, LBR stack %u, DF PMCs %u), core counters %u",
		  YN(a->perfctr_core), YN(a->perfctr_nb), YN(a->perfctr_llc), YN(a->perfmon_v2),
		  a->ext22_present ? "present" : "absent", a->num_core_pmc_v2, a->lbr_v2_stack_size,
		  a->num_df_pmc_v2, a->core_counters);
}

void caps_report(const struct caps *c)
{
	report_identity(c);
	report_arch_perfmon(c);
	report_leaf23(c);
	report_rdt(c);
	report_perf_capabilities(c);
	report_arch_lbr(c);
	report_decoded_only(c);
	report_amd(c);
	if (c->nehalem_uncore || c->netburst || c->p6)
		ktap_diag(&g_ktap, "caps: model-specific PMU: %s",
			  c->nehalem_uncore ? "Nehalem/Westmere uncore"
			  : c->netburst	    ? "NetBurst ESCR/CCCR"
					    : "P6 family PerfCtr0/1 (40 bits)");
	if (c->rdt.l3.unknown)
		ktap_diag(&g_ktap,
			  "caps: RDT L3 monitoring enumerated by CPUID.(0FH,0):EDX[1], but "
			  "CPUID.(0FH,1) is missing: its parameters are unknown, not checked");
	if (c->missing[0])
		ktap_diag(&g_ktap,
			  "caps: CPUID sub-leaves missing from the source (unknown, not "
			  "zero): %s",
			  c->missing);
}
