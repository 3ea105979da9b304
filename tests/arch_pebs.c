/* SPDX-License-Identifier: MIT */
/*
 * Architectural PEBS (ISE ch. 11 "Architectural PEBS"; IA32_PERF_CAPABILITIES.
 * PEBS_FMT = 0FH with CPUID.(23H,0):EAX[5:4]): no DS area; IA32_PEBS_BASE
 * (3F4H) names a buffer of 4 KiB << SIZE, IA32_PEBS_INDEX (3F5H) the write
 * offset WR, FULL, EN and the interrupt threshold THRESH; a counter's CFG_C
 * enables it (bit 63), names the groups (CPUID.(23H,4)) and the reload
 * value. The ISE text was not reachable: the layouts are Linux's
 * (d243d0bb64af and the commits after it, perf_event.h struct arch_pebs_*),
 * so every check here is an inferred diagnostic (RULE_INFERRED).
 *
 * Not checked: the LBR and counter-snapshot groups (their sizes depend on
 * headers whose middle fields were not read), split records (CONT: no text
 * says when a record is split), PDIST.
 */
#include "ktap.h"
#include "pmu.h"
#include "rules.h"
#include "test.h"

/* The buffer (SIZE 0: 4 KiB), then a guard page nothing may write.
 * IA32_PEBS_BASE takes a physical address: the kernel's page tables are an
 * identity map (arch/x86_64/paging.c), so the buffer's address is one. */
#define APEBS_BUF_BYTES 4096
static uint8_t apebs_buf[2 * APEBS_BUF_BYTES] __attribute__((aligned(4096)));

#define APEBS_K	     1000 /* instructions to the overflow: well inside the loop */
#define APEBS_RECORD (APEBS_HDR_BYTES + APEBS_BASIC_BYTES)
#define THRESH(b)    ((uint64_t)((b) / APEBS_UNIT) << 36)

static uint32_t cfg_c(struct counter c)
{
	return c.kind == COUNTER_GP ? MSR_IA32_PMC_GP_CFG_C(c.idx) : MSR_IA32_PMC_FX_CFG_C(c.idx);
}

/* An arch-PEBS counter (CPUID.(23H,5) EAX GP, ECX fixed) that counts
 * instructions retired: every GP one, fixed counter 0. */
static bool apebs_counter(struct counter c)
{
	const struct caps_leaf23 *l = &caps()->l23;
	enum arch_event ev;

	if (c.idx >= 32 || !(((c.kind == COUNTER_GP ? l->pebs_gp : l->pebs_fixed) >> c.idx) & 1))
		return false;
	return c.kind == COUNTER_GP ||
	       (pmu_fixed_event(c.idx, &ev) && ev == ARCH_EVENT_INSTRUCTIONS);
}

static unsigned apebs_counters(struct counter *c)
{
	unsigned n = 0;

	for_each_gp_counter(g)
		if (apebs_counter(g))
			c[n++] = g;
	for_each_fixed_counter(f)
		if (f.idx < PMU_FIXED_PROGRAMMABLE && apebs_counter(f))
			c[n++] = f;
	return n;
}

static bool available(struct t *t)
{
	uint64_t misc;

	if (rdmsr_safe(MSR_IA32_MISC_ENABLE, &misc) == 0 && (misc & MISC_ENABLE_PEBS_UNAVAILABLE)) {
		t_skip(t, "IA32_MISC_ENABLE.PEBS_UNAVAILABLE[12] = 1");
		return false;
	}
	return true;
}

struct apebs_run {
	struct counter c;
	uint64_t groups; /* CFG_C group bits */
	unsigned wr0;	 /* WR before the run, bytes */
	unsigned thresh; /* THRESH, bytes */
	uint64_t index;	 /* out: IA32_PEBS_INDEX after the run */
	uint64_t status; /* out: IA32_PERF_GLOBAL_STATUS */
	unsigned pmis;	 /* out */
};

/* One counter preloaded to overflow after APEBS_K instructions, arch-PEBS on,
 * reload 0 (it does not overflow again). False when CFG_C refused. */
static bool apebs_run(struct t *t, struct apebs_run *r)
{
	uint64_t cfg = counter_cfg_all_rings(r->c, ARCH_EVENT_INSTRUCTIONS) |
		       (r->c.kind == COUNTER_GP ? PERFEVTSEL_EN : 0);

	for (unsigned i = 0; i < sizeof(apebs_buf); i++)
		apebs_buf[i] = 0;
	wrmsr(MSR_IA32_PEBS_BASE, (uint64_t)(uintptr_t)apebs_buf); /* SIZE 0 */
	wrmsr(MSR_IA32_PEBS_INDEX,
	      APEBS_INDEX_EN | THRESH(r->thresh) | ((uint64_t)(r->wr0 / APEBS_UNIT) << 4));
	counter_program(r->c, cfg, 0);
	counter_preload(r->c, APEBS_K);
	bool ok = expect_no_fault(t, wrmsr_safe(cfg_c(r->c), APEBS_CFG_EN | r->groups),
				  r->groups ? RULE_APEBS_GROUPS : RULE_APEBS_MSRS,
				  "WRMSR " COUNTER_FMT "'s CFG_C <- %#llx", COUNTER_ARG(r->c),
				  (unsigned long long)(APEBS_CFG_EN | r->groups));
	if (ok) {
		pmu_pmi_install(true, 0, false);
		pmu_run_gated_irq(pmu_gate_global(counter_global_bit(r->c)), PMU_ITERS);
		r->pmis = g_pmi.count;
		pmu_pmi_uninstall();
	}
	wrmsr(cfg_c(r->c), 0);
	counter_program(r->c, 0, 0);
	r->index = rdmsr(MSR_IA32_PEBS_INDEX);
	r->status = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_RESET, r->status);
	wrmsr(MSR_IA32_PEBS_INDEX, 0);
	wrmsr(MSR_IA32_PEBS_BASE, 0);
	return ok;
}

static unsigned wr_bytes(uint64_t index)
{
	return (unsigned)FIELD_GET_ULL(APEBS_INDEX_WR, index) * APEBS_UNIT;
}

/* The record at offset `at`: its header and basic group. */
static void expect_record(struct t *t, const struct apebs_run *r, unsigned at, unsigned bytes,
			  uint64_t hdr_groups)
{
	const uint64_t *rec = (const uint64_t *)(apebs_buf + at);
	uint64_t lo, hi, want = counter_global_bit(r->c);

	arch_workload_gated_range(&lo, &hi);
	expect_eq(t, wr_bytes(r->index) - at, bytes, RULE_APEBS_RECORD,
		  COUNTER_FMT ": WR x 16 advanced by one record of %#x bytes", COUNTER_ARG(r->c),
		  bytes);
	expect_eq(t, FIELD_GET_ULL(APEBS_HDR_SIZE, rec[0]), bytes, RULE_APEBS_RECORD,
		  COUNTER_FMT ": header size [15:0]", COUNTER_ARG(r->c));
	expect_eq(t, rec[0] & (APEBS_HDR_GROUPS | APEBS_HDR_CONT), APEBS_HDR_BASIC | hdr_groups,
		  r->groups ? RULE_APEBS_GROUPS : RULE_APEBS_RECORD,
		  COUNTER_FMT ": header groups and CONT (header %#llx)", COUNTER_ARG(r->c),
		  (unsigned long long)rec[0]);
	expect_eq(t, rec[3], want, RULE_APEBS_RECORD, COUNTER_FMT ": applicable counters",
		  COUNTER_ARG(r->c));
	expect_true(t, rec[2] >= lo && rec[2] < hi, "an IP inside arch_workload_gated()",
		    "elsewhere", RULE_APEBS_RECORD,
		    COUNTER_FMT ": IP %#llx, workload [%#llx, %#llx)", COUNTER_ARG(r->c),
		    (unsigned long long)rec[2], (unsigned long long)lo, (unsigned long long)hi);
}

TEST(arch_pebs, msrs_read_write, REQ_ARCH_PEBS)
{
	static const uint64_t rsvd[] = {BIT_ULL(0), BIT_ULL(27), BIT_ULL(33), BIT_ULL(59),
					BIT_ULL(63)};
	struct counter c[2 * PMU_COUNTER_MAX];
	unsigned n = apebs_counters(c);
	uint64_t base = (uint64_t)(uintptr_t)apebs_buf, idx = APEBS_INDEX_EN | THRESH(64) | 0x40;
	uint64_t v;

	if (!available(t))
		return;
	if (expect_no_fault(t, wrmsr_safe(MSR_IA32_PEBS_BASE, base), RULE_APEBS_MSRS,
			    "WRMSR IA32_PEBS_BASE <- %#llx", (unsigned long long)base))
		expect_eq(t, rdmsr(MSR_IA32_PEBS_BASE), base, RULE_APEBS_MSRS,
			  "IA32_PEBS_BASE read back");
	if (expect_no_fault(t, wrmsr_safe(MSR_IA32_PEBS_INDEX, idx), RULE_APEBS_MSRS,
			    "WRMSR IA32_PEBS_INDEX <- %#llx", (unsigned long long)idx))
		expect_eq(t, rdmsr(MSR_IA32_PEBS_INDEX), idx, RULE_APEBS_MSRS,
			  "IA32_PEBS_INDEX read back");
	wrmsr(MSR_IA32_PEBS_INDEX, 0);
	for (unsigned k = 0; k < ARRAY_SIZE(rsvd); k++)
		expect_vector(t, wrmsr_safe(MSR_IA32_PEBS_INDEX, rsvd[k]), X86_VEC_GP,
			      RULE_APEBS_MSRS, "WRMSR IA32_PEBS_INDEX <- %#llx (reserved)",
			      (unsigned long long)rsvd[k]);
	wrmsr(MSR_IA32_PEBS_BASE, 0);
	for (unsigned k = 0; k < n; k++)
		expect_no_fault(t, rdmsr_safe(cfg_c(c[k]), &v), RULE_APEBS_MSRS,
				"RDMSR " COUNTER_FMT "'s CFG_C (%#x)", COUNTER_ARG(c[k]),
				cfg_c(c[k]));
}

TEST(arch_pebs, one_record_per_overflow, REQ_ARCH_PEBS | REQ_APIC)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	unsigned n = apebs_counters(c);

	if (!available(t))
		return;
	if (!n)
		t_skip_return(t,
			      "no arch-PEBS counter (CPUID.(23H,5)) counts instructions retired");
	for (unsigned k = 0; k < n; k++) {
		struct apebs_run r = {.c = c[k], .thresh = APEBS_BUF_BYTES};

		if (apebs_run(t, &r))
			expect_record(t, &r, 0, APEBS_RECORD, 0);
	}
}

TEST(arch_pebs, threshold_interrupt, REQ_ARCH_PEBS | REQ_APIC)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	struct apebs_run at = {.thresh = APEBS_RECORD}, below = {.thresh = 2 * APEBS_RECORD};

	if (!available(t))
		return;
	if (!apebs_counters(c))
		t_skip_return(t,
			      "no arch-PEBS counter (CPUID.(23H,5)) counts instructions retired");
	at.c = below.c = c[0];
	if (apebs_run(t, &at)) {
		expect_eq(t, at.status & GLOBAL_STATUS_ARCH_PEBS, GLOBAL_STATUS_ARCH_PEBS,
			  RULE_APEBS_THRESH,
			  "GLOBAL_STATUS[54] once WR reached THRESH (status %#llx)",
			  (unsigned long long)at.status);
		expect_eq(t, at.pmis, 1, RULE_APEBS_THRESH, "PMIs once WR reached THRESH");
	}
	if (apebs_run(t, &below)) {
		expect_eq(t, below.status & GLOBAL_STATUS_ARCH_PEBS, 0, RULE_APEBS_THRESH,
			  "GLOBAL_STATUS[54] with WR below THRESH (status %#llx)",
			  (unsigned long long)below.status);
		expect_eq(t, below.pmis, 0, RULE_APEBS_THRESH, "PMIs with WR below THRESH");
	}
}

TEST(arch_pebs, full_buffer_not_overrun, REQ_ARCH_PEBS | REQ_APIC)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	/* Room for half a record before the buffer's end. */
	struct apebs_run r = {.wr0 = APEBS_BUF_BYTES - APEBS_RECORD / 2, .thresh = APEBS_BUF_BYTES};
	unsigned stray = 0;

	if (!available(t))
		return;
	if (!apebs_counters(c))
		t_skip_return(t,
			      "no arch-PEBS counter (CPUID.(23H,5)) counts instructions retired");
	r.c = c[0];
	if (!apebs_run(t, &r))
		return;
	for (unsigned i = APEBS_BUF_BYTES; i < sizeof(apebs_buf); i++)
		stray += apebs_buf[i] != 0;
	expect_eq(t, stray, 0, RULE_APEBS_FULL, "bytes written past the 4 KiB buffer (SIZE 0)");
	expect_eq(t, r.index & APEBS_INDEX_FULL, APEBS_INDEX_FULL, RULE_APEBS_FULL,
		  "IA32_PEBS_INDEX.FULL with no room for a record (index %#llx)",
		  (unsigned long long)r.index);
}

/* The groups whose sizes are known, with their CFG_C and header bits. */
static const struct {
	const char *name;
	uint64_t bit; /* the same bit in CFG_C and in the header */
	unsigned bytes;
} groups[] = {
    {"AUX", APEBS_CFG_AUX, APEBS_AUX_BYTES},
    {"GPR", APEBS_CFG_GPR, APEBS_GPR_BYTES},
    {"XMM", APEBS_CFG_XMM, APEBS_XMM_BYTES},
};
_Static_assert(APEBS_CFG_AUX == APEBS_HDR_AUX && APEBS_CFG_GPR == APEBS_HDR_GPR &&
		   APEBS_CFG_XMM == APEBS_HDR_XMM,
	       "CFG_C and the record header share the group bits");

TEST(arch_pebs, groups_where_enumerated, REQ_ARCH_PEBS | REQ_APIC)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	uint64_t caps_bits = (uint64_t)caps()->l23.pebs_caps << 32;

	if (!available(t))
		return;
	if (!apebs_counters(c))
		t_skip_return(t,
			      "no arch-PEBS counter (CPUID.(23H,5)) counts instructions retired");
	for (unsigned g = 0; g < ARRAY_SIZE(groups); g++) {
		struct apebs_run r = {
		    .c = c[0], .groups = groups[g].bit, .thresh = APEBS_BUF_BYTES};

		if (!(caps_bits & groups[g].bit)) {
			expect_vector(t, wrmsr_safe(cfg_c(c[0]), APEBS_CFG_EN | groups[g].bit),
				      X86_VEC_GP, RULE_APEBS_GROUPS,
				      "WRMSR " COUNTER_FMT
				      "'s CFG_C with %s (not in CPUID.(23H,4))",
				      COUNTER_ARG(c[0]), groups[g].name);
			wrmsr_safe(cfg_c(c[0]), 0);
			continue;
		}
		t_diag(t, "group %s", groups[g].name);
		if (apebs_run(t, &r))
			expect_record(t, &r, 0, APEBS_RECORD + groups[g].bytes, groups[g].bit);
	}
}
