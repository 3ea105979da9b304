/* SPDX-License-Identifier: MIT */
/*
 * PEBS (SDM Vol. 3B 18.4.9 "BTS and DS Save Area"; 20.9 "PEBS Facility",
 * adaptive PEBS): the DS save area and the PEBS buffer are this kernel's own memory;
 * a counter preset to overflow after a known count writes exactly one
 * record there, checked field by field.
 *
 * Records are checked where PEBS_BASELINE (IA32_PERF_CAPABILITIES[14])
 * makes every counter and every event PEBS-capable (extended PEBS). Before
 * it, which events are PEBS-capable on which counter is model-specific, so
 * only the MSRs are checked there.
 */
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
#include "rules.h"
#include "test.h"

/* DS save area, 64-bit layout (18.4.9, the 64-bit DS save area figure). */
struct ds_area {
	uint64_t bts_base, bts_index, bts_abs_max, bts_threshold;
	uint64_t pebs_base, pebs_index, pebs_abs_max, pebs_threshold;
	/* GP counter n at n; fixed i at 8 + i up to PEBS format 4, at 32 + i
	 * from format 5 (32 GP + 16 fixed fields: Linux 2145e77fecfb). */
	uint64_t pebs_reset[32 + 16];
};

#define PEBS_BUF_BYTES 8192
static struct ds_area ds __attribute__((aligned(64)));
static uint8_t pebs_buf[PEBS_BUF_BYTES] __attribute__((aligned(4096)));

/* The reset field of a counter in the DS area, by PEBS format. */
static uint64_t *reset_field(bool fixed, unsigned idx)
{
	if (!fixed)
		return &ds.pebs_reset[idx];
	return &ds.pebs_reset[(caps()->perf_cap.pebs_format >= 5 ? 32 : 8) + idx];
}

/* The reset value the fixed-counter run loads: far above what the run
 * counts, so the counter's value afterwards says which field the CPU read
 * (every other field is 0). Below 2^40: every fixed width the suite
 * accepts holds it. */
#define PEBS_FIXED_RESET (1ULL << 36)

/* Group sizes of an adaptive record (20.9). */
#define BASIC_BYTES   0x20
#define MEMINFO_BYTES 0x20
#define GPR_BYTES     0x90
#define XMM_BYTES     0x100
#define LBR_BYTES     0x18

/* Instructions until the PEBS counter overflows: well inside the loop. */
#define PEBS_K 1000

static bool pebs_available(struct t *t)
{
	uint64_t misc;

	if (rdmsr_safe(MSR_IA32_MISC_ENABLE, &misc) == 0 && (misc & MISC_ENABLE_PEBS_UNAVAILABLE)) {
		t_skip(t, "IA32_MISC_ENABLE.PEBS_UNAVAILABLE[12] = 1");
		return false;
	}
	return true;
}

static unsigned record_bytes(uint64_t cfg)
{
	unsigned n = BASIC_BYTES;
	n += (cfg & PEBS_DATA_CFG_MEMINFO) ? MEMINFO_BYTES : 0;
	n += (cfg & PEBS_DATA_CFG_GPRS) ? GPR_BYTES : 0;
	n += (cfg & PEBS_DATA_CFG_XMMS) ? XMM_BYTES : 0;
	if (cfg & PEBS_DATA_CFG_LBRS)
		n += LBR_BYTES * (unsigned)(FIELD_GET_ULL(PEBS_DATA_CFG_LBR_ENTRIES, cfg) + 1);
	return n;
}

/* Fresh DS area: empty buffer, threshold after `threshold_bytes`, every
 * reset value 0 (a counter reloaded with 0 does not overflow again). */
static void ds_setup(unsigned threshold_bytes)
{
	for (unsigned i = 0; i < sizeof(pebs_buf); i++)
		pebs_buf[i] = 0;
	ds = (struct ds_area){0};
	ds.pebs_base = ds.pebs_index = (uint64_t)(uintptr_t)pebs_buf;
	ds.pebs_abs_max = ds.pebs_base + sizeof(pebs_buf);
	ds.pebs_threshold = ds.pebs_base + threshold_bytes;
	wrmsr(MSR_IA32_DS_AREA, (uint64_t)(uintptr_t)&ds);
}

struct pebs_run {
	bool fixed;
	unsigned idx;	 /* GP counter or fixed counter */
	bool adaptive;	 /* Adaptive_Record */
	uint64_t cfg;	 /* MSR_PEBS_DATA_CFG */
	unsigned thresh; /* interrupt threshold, bytes after the base */
	uint64_t k;	 /* events to the overflow; 0: from 0, no overflow */
	uint64_t reset;	 /* the counter's DS reset field (others 0) */
	uint64_t also;	 /* GLOBAL_CTRL bits of counters the caller programmed */
	uint64_t after;	 /* out: the counter after the run */
	unsigned pmis;	 /* out */
	uint64_t status; /* out: IA32_PERF_GLOBAL_STATUS after the run */
	uint64_t bit;	 /* out: the counter's PEBS_ENABLE / status bit */
};

/* One counter, preset to overflow after r->k events, PEBS on. */
/* A record needs the counter to count to its overflow: asked before the
 * run (shown dead, the test fails on that finding). */
static bool pebs_counts(struct t *t, const struct pebs_run *r)
{
	return t_counter_counts(t, r->fixed ? FIXED_COUNTER(r->idx) : GP_COUNTER(r->idx));
}

static bool pebs_run(struct t *t, struct pebs_run *r)
{
	r->bit = r->fixed ? GLOBAL_FIXED_BIT(r->idx) : GLOBAL_PMC_BIT(r->idx);
	ds_setup(r->thresh);
	*reset_field(r->fixed, r->idx) = r->reset;
	wrmsr(MSR_PEBS_DATA_CFG, r->cfg);
	if (r->fixed) {
		uint64_t ctl = rdmsr(MSR_IA32_FIXED_CTR_CTRL) & ~(0xFULL << (4 * r->idx)) &
			       ~FIXED_CTRL_ADAPTIVE(r->idx);
		wrmsr(MSR_IA32_FIXED_CTR_CTRL,
		      ctl | FIXED_CTRL_FIELD(r->idx, FIXED_CTRL_OS | FIXED_CTRL_USR) |
			  (r->adaptive ? FIXED_CTRL_ADAPTIVE(r->idx) : 0));
		if (r->k)
			pmu_fixed_preload(r->idx, r->k);
	} else {
		pmu_gp_program(r->idx,
			       pmu_evtsel(ARCH_EVENT_INSTRUCTIONS,
					  PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_EN |
					      (r->adaptive ? PERFEVTSEL_ADAPTIVE : 0)),
			       0);
		if (r->k)
			pmu_gp_preload(r->idx, r->k);
	}
	if (!expect_no_fault(t, wrmsr_safe(MSR_IA32_PEBS_ENABLE, r->bit),
			     r->fixed ? RULE_PEBS_FIXED : RULE_PEBS_ENABLE_BITS,
			     "WRMSR IA32_PEBS_ENABLE <- %#llx", (unsigned long long)r->bit))
		return false;
	pmu_pmi_install(true, 0, false);
	pmu_run_gated_irq(pmu_gate_global(r->bit | r->also), PMU_ITERS);
	r->pmis = g_pmi.count;
	pmu_pmi_uninstall();
	wrmsr(MSR_IA32_PEBS_ENABLE, 0);
	r->after = rdmsr(r->fixed ? MSR_IA32_FIXED_CTR(r->idx) : MSR_IA32_PMC(r->idx));
	r->status = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_RESET, r->status);
	wrmsr(MSR_IA32_DS_AREA, 0);
	return true;
}

/* Exactly one record of `bytes` at the base: the index moved by its size. */
static bool expect_one_record(struct t *t, unsigned bytes, const char *what)
{
	return expect_eq(t, ds.pebs_index - ds.pebs_base, bytes, RULE_PEBS_RECORD,
			 "%s: PEBS index - base after one overflow (one record of %#x bytes)", what,
			 bytes);
}

/* The basic group of the record at the base. */
static void expect_basic(struct t *t, const struct pebs_run *r, unsigned bytes, const char *what)
{
	const uint64_t *rec = (const uint64_t *)pebs_buf;
	uint64_t lo, hi, cfg = r->adaptive ? r->cfg : 0;
	/* Timed PEBS: the format field shrinks to [31:0], [47:32] is the
	 * retire latency (any value). */
	bool timed = caps()->perf_cap.pebs_timing_info;
	uint64_t fmt = timed ? GENMASK_ULL(31, 0) : GENMASK_ULL(47, 0);

	arch_workload_gated_range(&lo, &hi);
	expect_eq(t, rec[0] & fmt, cfg & fmt, timed ? RULE_PEBS_TIMED : RULE_PEBS_BASIC,
		  timed ? "%s: record format [31:0] (the groups; timed PEBS)"
			: "%s: record format [47:0] (the groups)",
		  what);
	expect_eq(t, rec[0] >> 48, bytes, r->adaptive ? RULE_PEBS_ADAPTIVE : RULE_PEBS_ADAPTIVE_OFF,
		  "%s: record size [63:48]", what);
	expect_eq(t, rec[2], r->bit, RULE_PEBS_BASIC, "%s: applicable counters", what);
	expect_true(t, rec[1] >= lo && rec[1] < hi, "an IP inside arch_workload_gated()",
		    "elsewhere", RULE_PEBS_BASIC, "%s: IP %#llx, workload at [%#llx, %#llx)", what,
		    (unsigned long long)rec[1], (unsigned long long)lo, (unsigned long long)hi);
}

TEST(pebs, msrs_read_write, REQ_INTEL | REQ_PEBS | REQ_ARCH_PMU_V2)
{
	uint64_t v;
	int c = pmu_gp_nth(0);

	if (!pebs_available(t))
		return;
	uint64_t a = (uint64_t)(uintptr_t)&ds;
	if (expect_no_fault(t, wrmsr_safe(MSR_IA32_DS_AREA, a), RULE_PEBS_MSRS,
			    "WRMSR IA32_DS_AREA <- the kernel's DS area"))
		expect_eq(t, rdmsr(MSR_IA32_DS_AREA), a, RULE_PEBS_MSRS, "IA32_DS_AREA read back");
	wrmsr(MSR_IA32_DS_AREA, 0);
	if (c >= 0 && c < 4 &&
	    expect_no_fault(t, wrmsr_safe(MSR_IA32_PEBS_ENABLE, GLOBAL_PMC_BIT(c)), RULE_PEBS_MSRS,
			    "WRMSR IA32_PEBS_ENABLE <- PMC%d", c))
		expect_eq(t, rdmsr(MSR_IA32_PEBS_ENABLE), GLOBAL_PMC_BIT(c), RULE_PEBS_MSRS,
			  "IA32_PEBS_ENABLE read back");
	wrmsr(MSR_IA32_PEBS_ENABLE, 0);
	if (!caps()->perf_cap.pebs_baseline)
		return;
	uint64_t cfg = PEBS_DATA_CFG_GPRS | PEBS_DATA_CFG_LBRS | (7ULL << 24);
	if (expect_no_fault(t, wrmsr_safe(MSR_PEBS_DATA_CFG, cfg), RULE_PEBS_MSRS,
			    "WRMSR MSR_PEBS_DATA_CFG <- %#llx", (unsigned long long)cfg))
		expect_eq(t, rdmsr(MSR_PEBS_DATA_CFG), cfg, RULE_PEBS_MSRS,
			  "MSR_PEBS_DATA_CFG read back");
	wrmsr(MSR_PEBS_DATA_CFG, 0);
	/* past every GP counter that exists, leaf 23H's included */
	unsigned n = pmu_gp_end();
	if (n < 32)
		expect_vector(t, wrmsr_safe(MSR_IA32_PEBS_ENABLE, BIT_ULL(n)), X86_VEC_GP,
			      RULE_PEBS_ENABLE_BITS,
			      "WRMSR IA32_PEBS_ENABLE <- bit %u (no IA32_PMC%u: the GP counters "
			      "end at %u)",
			      n, n, n);
	(void)rdmsr_safe(MSR_IA32_PEBS_ENABLE, &v);
	wrmsr(MSR_IA32_PEBS_ENABLE, 0);
}

/* Every GP counter (extended PEBS: any counter) writes its record. */
TEST(pebs, one_record_and_ovfbuf_at_threshold,
     REQ_INTEL | REQ_PEBS_BASELINE | REQ_APIC | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	if (!pebs_available(t))
		return;
	for_each_gp_counter(c) {
		struct pebs_run r = {.idx = c.idx, .thresh = BASIC_BYTES, .k = PEBS_K};
		char what[32];

		if (!pebs_counts(t, &r))
			continue;
		ksnprintf(what, sizeof(what), COUNTER_FMT " basic record", COUNTER_ARG(c));
		if (!pebs_run(t, &r) || !expect_one_record(t, BASIC_BYTES, what))
			return;
		expect_basic(t, &r, BASIC_BYTES, what);
		expect_eq(t, r.status & GLOBAL_STATUS_OVF_BUFFER, GLOBAL_STATUS_OVF_BUFFER,
			  RULE_PEBS_OVFBUF, "%s: GLOBAL_STATUS.OvfBuf, index reached the threshold",
			  what);
		expect_eq(t, r.pmis, 1, RULE_PEBS_OVFBUF, "%s: PMIs, index reached the threshold",
			  what);
	}
}

TEST(pebs, no_record_without_overflow,
     REQ_INTEL | REQ_PEBS_BASELINE | REQ_APIC | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	struct pebs_run r = {.idx = (unsigned)pmu_gp_nth(0), .thresh = BASIC_BYTES, .k = 0};

	if (!pebs_available(t) || !pebs_counts(t, &r) || !pebs_run(t, &r))
		return;
	expect_eq(t, ds.pebs_index, ds.pebs_base, RULE_PEBS_RECORD,
		  "PEBS index after a run that does not overflow the counter (from 0)");
	expect_eq(t, r.status & GLOBAL_STATUS_OVF_BUFFER, 0, RULE_PEBS_OVFBUF,
		  "GLOBAL_STATUS.OvfBuf without a record");
}

/* Two GP counters, overflowing after PEBS_K and 2 * PEBS_K instructions:
 * two records, in that order, each naming its own counter. */
TEST(pebs, two_counters_two_records,
     REQ_INTEL | REQ_PEBS_BASELINE | REQ_APIC | REQ_INSTRUCTIONS_EVENT)
{
	int a = pmu_gp_nth(0), b = pmu_gp_nth(1);
	const uint64_t *rec = (const uint64_t *)pebs_buf;

	if (!pebs_available(t))
		return;
	if (b < 0)
		t_skip_return(t, "needs two GP counters");
	/* Both named when both were shown not to count. */
	if (!t_counter_counts(t, GP_COUNTER((unsigned)a)) |
	    !t_counter_counts(t, GP_COUNTER((unsigned)b)))
		return;
	uint64_t bits = GLOBAL_PMC_BIT(a) | GLOBAL_PMC_BIT(b);
	ds_setup(2 * BASIC_BYTES);
	wrmsr(MSR_PEBS_DATA_CFG, 0);
	for (int i = 0; i < 2; i++) {
		unsigned c = (unsigned)(i ? b : a);
		pmu_gp_program(c,
			       pmu_evtsel(ARCH_EVENT_INSTRUCTIONS,
					  PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_EN),
			       0);
		pmu_gp_preload(c, (i + 1) * PEBS_K);
	}
	if (!expect_no_fault(t, wrmsr_safe(MSR_IA32_PEBS_ENABLE, bits), RULE_PEBS_ENABLE_BITS,
			     "WRMSR IA32_PEBS_ENABLE <- %#llx", (unsigned long long)bits))
		return;
	pmu_pmi_install(true, 0, false);
	pmu_run_gated_irq(pmu_gate_global(bits), PMU_ITERS);
	unsigned pmis = g_pmi.count;
	pmu_pmi_uninstall();
	wrmsr(MSR_IA32_PEBS_ENABLE, 0);
	uint64_t status = rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
	wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_RESET, status);
	wrmsr(MSR_IA32_DS_AREA, 0);
	if (!expect_eq(t, ds.pebs_index - ds.pebs_base, 2 * BASIC_BYTES, RULE_PEBS_RECORD,
		       "PEBS index - base after IA32_PMC%d and IA32_PMC%d overflowed once each", a,
		       b))
		return;
	expect_eq(t, rec[2], GLOBAL_PMC_BIT(a), RULE_PEBS_BASIC,
		  "first record: applicable counters (IA32_PMC%d overflowed first)", a);
	expect_eq(t, rec[BASIC_BYTES / 8 + 2], GLOBAL_PMC_BIT(b), RULE_PEBS_BASIC,
		  "second record: applicable counters (IA32_PMC%d)", b);
	expect_eq(t, status & GLOBAL_STATUS_OVF_BUFFER, GLOBAL_STATUS_OVF_BUFFER, RULE_PEBS_OVFBUF,
		  "GLOBAL_STATUS.OvfBuf, threshold at the second record");
	expect_eq(t, pmis, 1, RULE_PEBS_OVFBUF, "PMIs, threshold at the second record");
}

TEST(pebs, no_ovfbuf_below_threshold,
     REQ_INTEL | REQ_PEBS_BASELINE | REQ_APIC | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	struct pebs_run r = {
	    .idx = (unsigned)pmu_gp_nth(0), .thresh = 2 * BASIC_BYTES, .k = PEBS_K};

	if (!pebs_available(t) || !pebs_counts(t, &r) || !pebs_run(t, &r))
		return;
	if (!expect_one_record(t, BASIC_BYTES, "threshold two records away"))
		return;
	expect_eq(t, r.status & GLOBAL_STATUS_OVF_BUFFER, 0, RULE_PEBS_OVFBUF,
		  "IA32_PERF_GLOBAL_STATUS.OvfBuf, one record below the threshold");
	expect_eq(t, r.pmis, 0, RULE_PEBS_OVFBUF, "PMIs, one record below the threshold");
}

/* MSR_PEBS_DATA_CFG values: each group alone, then all of them. */
static const struct {
	uint64_t cfg;
	const char *what;
} groups[] = {
    {PEBS_DATA_CFG_MEMINFO, "memory info"},
    {PEBS_DATA_CFG_GPRS, "GPRs"},
    {PEBS_DATA_CFG_XMMS, "XMM"},
    {PEBS_DATA_CFG_LBRS | (7ULL << 24), "8 LBR entries"},
    {PEBS_DATA_CFG_MEMINFO | PEBS_DATA_CFG_GPRS | PEBS_DATA_CFG_XMMS | PEBS_DATA_CFG_LBRS |
	 (31ULL << 24),
     "every group, 32 LBR entries"},
};

TEST(pebs, adaptive_record_groups,
     REQ_INTEL | REQ_PEBS_BASELINE | REQ_APIC | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	if (!pebs_available(t) || !t_counter_counts(t, GP_COUNTER((unsigned)pmu_gp_nth(0))))
		return;
	for (unsigned i = 0; i < ARRAY_SIZE(groups); i++) {
		struct pebs_run r = {.idx = (unsigned)pmu_gp_nth(0),
				     .adaptive = true,
				     .cfg = groups[i].cfg,
				     .k = PEBS_K};
		unsigned bytes = record_bytes(groups[i].cfg);

		r.thresh = bytes;
		if (!pebs_available(t) || !pebs_run(t, &r))
			return;
		if (expect_one_record(t, bytes, groups[i].what))
			expect_basic(t, &r, bytes, groups[i].what);
	}
}

TEST(pebs, adaptive_bit_clear_basic_record,
     REQ_INTEL | REQ_PEBS_BASELINE | REQ_APIC | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	struct pebs_run r = {.idx = (unsigned)pmu_gp_nth(0),
			     .adaptive = false,
			     .cfg = groups[ARRAY_SIZE(groups) - 1].cfg,
			     .k = PEBS_K};

	r.thresh = BASIC_BYTES;
	if (!pebs_available(t) || !pebs_counts(t, &r) || !pebs_run(t, &r))
		return;
	if (expect_one_record(t, BASIC_BYTES, "every group configured, Adaptive_Record clear"))
		expect_basic(t, &r, BASIC_BYTES, "every group configured, Adaptive_Record clear");
}

TEST(pebs, fixed_counter_record, REQ_INTEL | REQ_PEBS_BASELINE | REQ_APIC | REQ_FIXED0)
{
	struct pebs_run r = {.fixed = true,
			     .idx = FIXED_INSTRUCTIONS,
			     .adaptive = true,
			     .cfg = PEBS_DATA_CFG_GPRS,
			     .k = PEBS_K};

	r.thresh = record_bytes(r.cfg);
	r.reset = PEBS_FIXED_RESET;
	if (!pebs_available(t) || !pebs_counts(t, &r) || !pebs_run(t, &r))
		return;
	if (expect_one_record(t, r.thresh, "IA32_FIXED_CTR0"))
		expect_basic(t, &r, r.thresh, "IA32_FIXED_CTR0");
	/* Reloaded from its own reset field (fixed 0 at 8 or 32 by format),
	 * then counting on: at least the reset value, and not far above. */
	uint64_t v = r.after;
	expect_true(t, v >= PEBS_FIXED_RESET && v < 2 * PEBS_FIXED_RESET,
		    "the reset value of its DS field, plus what it counted since", "another value",
		    RULE_PEBS_RESET_LAYOUT,
		    "IA32_FIXED_CTR0 after its record: %#llx (reset field %u of PEBS format %u "
		    "holds %#llx)",
		    (unsigned long long)v, (caps()->perf_cap.pebs_format >= 5 ? 32u : 8u),
		    caps()->perf_cap.pebs_format, (unsigned long long)PEBS_FIXED_RESET);
}

/* PEBS format 6 counters snapshotting (Linux e02e9b0374c3): PMC a overflows
 * and writes the record; PMC b and FIXED_CTR0 (where it exists) count the
 * same instructions from 0 and are named in MSR_PEBS_DATA_CFG[47:32] /
 * [55:48], so the group holds their values at the record: above 0, at most
 * what they read after the run. With PERF_METRICS (IA32_PERF_CAPABILITIES
 * [15]) and TOPDOWN.SLOTS (FIXED_CTR3) counting, DATA_CFG[5] adds the
 * metrics: the header's metrics field 3 (Linux INTEL_CNTR_METRICS) and two
 * quadwords after the counters, SLOTS then PERF_METRICS
 * (__setup_pebs_counter_group()); SLOTS' snapshot as the others'. */
TEST(pebs, counter_snapshot_group,
     REQ_INTEL | REQ_PEBS_BASELINE | REQ_APIC | REQ_GP_COUNTER | REQ_INSTRUCTIONS_EVENT)
{
	int a = pmu_gp_nth(0), b = pmu_gp_nth(1);
	bool fx = caps()->pm.fixed_supported & 1;
	bool m = caps()->perf_cap.perf_metrics && ((caps()->pm.fixed_supported >> 3) & 1);
	const uint64_t *rec = (const uint64_t *)pebs_buf;

	if (caps()->perf_cap.pebs_format < 6)
		t_skip_return(t, "PEBS format %u: counters snapshotting is format 6's",
			      caps()->perf_cap.pebs_format);
	if (a < 0 || b < 0)
		t_skip_return(t, "one GP counter: the snapshot needs a second one");
	uint64_t cfg = PEBS_DATA_CFG_CNTR | FIELD_PREP_ULL(PEBS_DATA_CFG_CNTR_GP, BIT_ULL(b)) |
		       FIELD_PREP_ULL(PEBS_DATA_CFG_CNTR_FIXED, fx ? 1 : 0) |
		       (m ? PEBS_DATA_CFG_METRICS : 0);
	unsigned bytes = BASIC_BYTES + 0x10 + 8 * (fx ? 2 : 1) + (m ? 16 : 0);
	struct pebs_run r = {.idx = (unsigned)a,
			     .adaptive = true,
			     .cfg = cfg,
			     .k = PEBS_K,
			     .thresh = bytes,
			     .also = GLOBAL_PMC_BIT(b) | (fx ? GLOBAL_FIXED_BIT(0) : 0) |
				     (m ? GLOBAL_FIXED_BIT(3) : 0)};

	if (!pebs_available(t) || !pebs_counts(t, &r))
		return;
	/* A snapshot is judged on a counter shown to count. */
	bool b_counts = t_counter_counts(t, GP_COUNTER((unsigned)b));
	bool fx_counts = !fx || t_counter_counts(t, FIXED_COUNTER(0));
	bool m_counts = !m || t_counter_counts(t, FIXED_COUNTER(3));
	pmu_gp_program(
	    (unsigned)b,
	    pmu_evtsel(ARCH_EVENT_INSTRUCTIONS, PERFEVTSEL_OS | PERFEVTSEL_USR | PERFEVTSEL_EN), 0);
	if (fx)
		pmu_fixed_program(0, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
	if (m)
		pmu_fixed_program(3, FIXED_CTRL_OS | FIXED_CTRL_USR, 0);
	bool ran = pebs_run(t, &r);
	uint64_t vb = pmu_gp_read((unsigned)b), vf = fx ? pmu_fixed_read(0) : 0;
	uint64_t vs = m ? pmu_fixed_read(3) : 0;
	pmu_gp_program((unsigned)b, 0, 0);
	if (fx)
		pmu_fixed_program(0, 0, 0);
	if (m)
		pmu_fixed_program(3, 0, 0);
	wrmsr(MSR_PEBS_DATA_CFG, 0);
	if (!ran || !expect_one_record(t, bytes, "counters group"))
		return;
	expect_eq(t, rec[0] & PEBS_DATA_CFG_CNTR, PEBS_DATA_CFG_CNTR, RULE_PEBS_CNTR,
		  "record format bit 4 (the counters group)");
	expect_eq(t, rec[0] >> 48, bytes, RULE_PEBS_CNTR, "record size [63:48]");
	expect_eq(t, rec[4], BIT_ULL(b) | (fx ? 1ULL << 32 : 0), RULE_PEBS_CNTR,
		  "the group's header: GP mask, fixed mask");
	if (b_counts)
		expect_range(t, rec[6], 1, vb, RULE_PEBS_CNTR,
			     "PMC%d's snapshot (PMC%d after: %llu)", b, b, (unsigned long long)vb);
	if (fx && fx_counts)
		expect_range(t, rec[7], 1, vf, RULE_PEBS_CNTR,
			     "FIXED_CTR0's snapshot (after: %llu)", (unsigned long long)vf);
	if (!m)
		return;
	expect_eq(t, (uint32_t)rec[5], PEBS_CNTR_METRICS, RULE_PEBS_CNTR,
		  "the group's header: metrics (DATA_CFG[5])");
	if (m_counts)
		expect_range(t, rec[fx ? 8 : 7], 1, vs, RULE_PEBS_CNTR,
			     "TOPDOWN.SLOTS' snapshot (FIXED_CTR3 after: %llu)",
			     (unsigned long long)vs);
}
