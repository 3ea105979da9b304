/* SPDX-License-Identifier: MIT */
/*
 * Architectural PEBS (ISE ch. 11 "Architectural PEBS"; IA32_PERF_CAPABILITIES.
 * PEBS_FMT = 0FH with CPUID.(23H,0):EAX[5:4]): no DS area; IA32_PEBS_BASE
 * (3F4H) names a buffer of 4 KiB << SIZE, IA32_PEBS_INDEX (3F5H) the write
 * offset WR, FULL, EN and the interrupt threshold THRESH; a counter's CFG_C
 * enables it (bit 63), names the groups (CPUID.(23H,4)) and the reload
 * value. The ISE text was not reachable: the layouts are Linux's
 * (d243d0bb64af and the commits after it, perf_event.h struct arch_pebs_*),
 * so every check here is sourced: its departure is a failure, citing Linux.
 *
 * Every record is read as Linux's parser reads it (d21954c8a0ff
 * intel_pmu_drain_arch_pebs(), arch_pebs_record_continued()): in
 * fragments, each with its own header and size, CONT[31] on all but the
 * last, the basic group in the first. The LBR group's size comes from its
 * header field (8, 16 or the depth of struct arch_pebs_lbr_header), the
 * counters group's from struct arch_pebs_cntr_header.
 *
 * Not checked: when a record is split (no text read says; the checks hold
 * for whatever split the CPU makes), the YMMH / opmask / ZMM groups, PDIST.
 */
#include "ktap.h"
#include "pmu.h"
#include "precondition.h"
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

/* An arch-PEBS counter (CPUID.(23H,5) EAX GP, ECX fixed) that counts
 * instructions retired: every GP one, fixed counter 0. */
static bool apebs_counter(struct counter c)
{
	const struct caps_leaf23 *l = &caps()->l23;
	enum arch_event ev;

	if (!counter_in_bitmaps(c, l->pebs_gp, l->pebs_fixed))
		return false;
	return c.kind == COUNTER_GP ||
	       (pmu_fixed_event(c.idx, &ev) && ev == ARCH_EVENT_INSTRUCTIONS);
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

/* available() and at least one arch-PEBS counter (apebs_counter()), else
 * the test is skipped with the reason. */
static bool apebs_ready(struct t *t, struct counter *c)
{
	if (!available(t))
		return false;
	if (counters_collect(c, apebs_counter))
		return true;
	t_skip(t, "no arch-PEBS counter (CPUID.(23H,5)) counts instructions retired");
	return false;
}

struct apebs_run {
	struct counter c;
	uint64_t groups; /* CFG_C group bits */
	uint64_t also;	 /* more IA32_PERF_GLOBAL_CTRL bits to gate with the counter */
	unsigned wr0;	 /* WR before the run, bytes */
	unsigned thresh; /* THRESH, bytes */
	uint64_t index;	 /* out: IA32_PEBS_INDEX after the run */
	uint64_t status; /* out: IA32_PERF_GLOBAL_STATUS */
	unsigned pmis;	 /* out */
};

/* One counter preloaded to overflow after APEBS_K instructions, arch-PEBS on,
 * reload 0 (it does not overflow again). False when CFG_C refused, or when
 * the counter was shown to count nothing (no overflow, no record: the test
 * failed naming the finding, and the run is not made). */
static bool apebs_run(struct t *t, struct apebs_run *r)
{
	if (!t_counter_counts(t, r->c))
		return false;
	uint64_t cfg = counter_cfg_all_rings(r->c, ARCH_EVENT_INSTRUCTIONS) |
		       (r->c.kind == COUNTER_GP ? PERFEVTSEL_EN : 0);

	for (unsigned i = 0; i < sizeof(apebs_buf); i++)
		apebs_buf[i] = 0;
	wrmsr(MSR_IA32_PEBS_BASE, (uint64_t)(uintptr_t)apebs_buf); /* SIZE 0 */
	wrmsr(MSR_IA32_PEBS_INDEX,
	      APEBS_INDEX_EN | THRESH(r->thresh) | ((uint64_t)(r->wr0 / APEBS_UNIT) << 4));
	counter_program(r->c, cfg, 0);
	counter_preload(r->c, APEBS_K);
	bool ok = expect_no_fault(t, wrmsr_safe(counter_cfg_c_msr(r->c), APEBS_CFG_EN | r->groups),
				  r->groups ? RULE_APEBS_GROUPS : RULE_APEBS_MSRS,
				  "WRMSR " COUNTER_FMT "'s CFG_C <- %#llx", COUNTER_ARG(r->c),
				  (unsigned long long)(APEBS_CFG_EN | r->groups));
	if (ok) {
		pmu_pmi_install(true, 0, false);
		pmu_run_gated_irq(pmu_gate_global(counter_global_bit(r->c) | r->also), PMU_ITERS);
		r->pmis = g_pmi.count;
		pmu_pmi_uninstall();
	}
	wrmsr(counter_cfg_c_msr(r->c), 0);
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

/* The groups, one table: in the order a fragment holds them (Linux's
 * setup_arch_pebs_sample_data()), each with the header bits naming it (the
 * same bits in CFG_C, but for the basic group's) and its size where the
 * size is fixed (0: its own header says, group_bytes()). */
enum apebs_group { G_BASIC, G_AUX, G_GPR, G_XMM, G_LBR, G_CNTR, G_COUNT };
static const struct {
	const char *name;
	uint64_t bits;
	unsigned bytes;
} apebs_groups[] = {
    [G_BASIC] = {"basic", APEBS_HDR_BASIC, APEBS_BASIC_BYTES},
    [G_AUX] = {"AUX", APEBS_HDR_AUX, APEBS_AUX_BYTES},
    [G_GPR] = {"GPR", APEBS_HDR_GPR, APEBS_GPR_BYTES},
    [G_XMM] = {"XMM", APEBS_HDR_XMM, APEBS_XMM_BYTES},
    [G_LBR] = {"LBR", APEBS_HDR_LBR, 0},
    [G_CNTR] = {"counters", APEBS_HDR_CNTR, 0},
};
_Static_assert(ARRAY_SIZE(apebs_groups) == G_COUNT, "one row per group");
_Static_assert(APEBS_CFG_AUX == APEBS_HDR_AUX && APEBS_CFG_GPR == APEBS_HDR_GPR &&
		   APEBS_CFG_XMM == APEBS_HDR_XMM && APEBS_CFG_LBR == APEBS_HDR_LBR,
	       "CFG_C and the record header share the group bits");

/* A group's bytes as the parser computes them from the fragment's header
 * and the group's own header. */
static unsigned group_bytes(enum apebs_group g, uint64_t hdr, const uint64_t *at)
{
	unsigned lbr = (unsigned)FIELD_GET_ULL(APEBS_HDR_LBR, hdr);

	if (apebs_groups[g].bytes)
		return apebs_groups[g].bytes;
	switch (g) {
	case G_LBR:
		return APEBS_LBR_HDR_BYTES +
		       APEBS_LBR_ENTRY_BYTES * (lbr == APEBS_LBR_NUM_VAR
						    ? (unsigned)at[APEBS_LBR_HDR_DEPTH]
						    : lbr * APEBS_LBR_BASE_ENTRIES);
	case G_CNTR:
		return APEBS_CNTR_HDR_BYTES +
		       8 * (unsigned)(bits_set((uint32_t)at[0]) +
				      bits_set((uint32_t)(at[0] >> 32)) +
				      ((uint32_t)at[1] == PEBS_CNTR_METRICS ? 2 : 0));
	default:
		break;
	}
	return 0;
}

/* One record from `at` to at most `end`: its fragments, their bytes, the
 * groups the headers name and where each group is. */
struct apebs_rec {
	unsigned frags, bytes;
	uint64_t groups;
	const uint64_t *at[G_COUNT];
};

/* Walk the fragments of the record at `at`, checking the rules a split
 * record keeps (RULE_APEBS_SPLIT); false when the walk cannot go on. */
static bool apebs_walk(struct t *t, const struct apebs_run *r, unsigned at, unsigned end,
		       struct apebs_rec *rec)
{
	*rec = (struct apebs_rec){0};
	for (bool more = true; more; rec->frags++) {
		const uint64_t *h = (const uint64_t *)(apebs_buf + rec->bytes + at);
		unsigned size = (unsigned)FIELD_GET_ULL(APEBS_HDR_SIZE, h[0]),
			 parsed = APEBS_HDR_BYTES;

		if (!expect_true(t, size >= APEBS_HDR_BYTES && at + rec->bytes + size <= end,
				 "a size from the header to the end of the data written", "outside",
				 RULE_APEBS_SPLIT,
				 COUNTER_FMT ": fragment %u header %#llx at %#x, WR x 16 = %#x",
				 COUNTER_ARG(r->c), rec->frags, (unsigned long long)h[0],
				 at + rec->bytes, end))
			return false;
		expect_eq(t, !!(h[0] & APEBS_HDR_BASIC), rec->frags == 0, RULE_APEBS_SPLIT,
			  COUNTER_FMT ": fragment %u has the basic group (the first only)",
			  COUNTER_ARG(r->c), rec->frags);
		expect_eq(t, h[0] & rec->groups & APEBS_HDR_GROUPS, 0, RULE_APEBS_SPLIT,
			  COUNTER_FMT ": fragment %u repeats no group of an earlier one",
			  COUNTER_ARG(r->c), rec->frags);
		for (unsigned g = 0; g < G_COUNT; g++) {
			if (!(h[0] & apebs_groups[g].bits))
				continue;
			rec->at[g] = (const uint64_t *)((const uint8_t *)h + parsed);
			parsed += parsed < size ? group_bytes(g, h[0], rec->at[g]) : 0;
		}
		expect_eq(t, (parsed + APEBS_UNIT - 1) & ~(APEBS_UNIT - 1U), size, RULE_APEBS_SPLIT,
			  COUNTER_FMT
			  ": fragment %u header %#llx: 16 + its groups' bytes (to 16) = its size",
			  COUNTER_ARG(r->c), rec->frags, (unsigned long long)h[0]);
		rec->groups |= h[0] & APEBS_HDR_GROUPS;
		rec->bytes += size;
		/* CONT, or a header naming no group, says a fragment follows. */
		more = (h[0] & APEBS_HDR_CONT) || !(h[0] & GENMASK_ULL(63, 16));
		if (more &&
		    !expect_true(t, at + rec->bytes < end, "another fragment", "the end",
				 RULE_APEBS_SPLIT,
				 COUNTER_FMT ": fragment %u says one follows (header %#llx)",
				 COUNTER_ARG(r->c), rec->frags, (unsigned long long)h[0]))
			return false;
	}
	return true;
}

/* The record at offset `at`: its fragments, groups, basic group; `bytes` is
 * its size in one piece (one header). */
static bool expect_record(struct t *t, const struct apebs_run *r, unsigned at, unsigned bytes,
			  uint64_t hdr_groups, struct apebs_rec *rec)
{
	unsigned end = wr_bytes(r->index);
	uint64_t lo, hi, want = counter_global_bit(r->c);

	if (!apebs_walk(t, r, at, end, rec))
		return false;
	if (rec->frags > 1)
		t_diag(t, COUNTER_FMT ": record in %u fragments", COUNTER_ARG(r->c), rec->frags);
	/* Data after a header without CONT must start a record of its own. */
	if (at + rec->bytes < end) {
		uint64_t next = *(const uint64_t *)(apebs_buf + at + rec->bytes);

		expect_true(t, next & APEBS_HDR_BASIC, "a record's first fragment (BASIC[63])",
			    "a fragment of the one before", RULE_APEBS_SPLIT,
			    COUNTER_FMT ": header %#llx at %#x follows a fragment without CONT",
			    COUNTER_ARG(r->c), (unsigned long long)next, at + rec->bytes);
	}
	expect_eq(t, end - at, rec->bytes, RULE_APEBS_RECORD,
		  COUNTER_FMT ": WR x 16 advanced by one record (its fragments' sizes)",
		  COUNTER_ARG(r->c));
	expect_eq(t, rec->bytes - (rec->frags - 1) * APEBS_HDR_BYTES,
		  (bytes + APEBS_UNIT - 1) & ~(APEBS_UNIT - 1U), RULE_APEBS_RECORD,
		  COUNTER_FMT ": the record's size, one header counted", COUNTER_ARG(r->c));
	/* Whether the header echoes ALLOW (bit 35) is not known: not compared. */
	expect_eq(t, rec->groups & ~APEBS_CFG_CNTR_ALLOW,
		  APEBS_HDR_BASIC | (hdr_groups & ~APEBS_CFG_CNTR_ALLOW),
		  r->groups ? RULE_APEBS_GROUPS : RULE_APEBS_RECORD,
		  COUNTER_FMT ": the groups the headers name", COUNTER_ARG(r->c));
	if (!rec->at[G_BASIC])
		return false;
	arch_workload_gated_range(&lo, &hi);
	expect_eq(t, rec->at[G_BASIC][1], want, RULE_APEBS_RECORD,
		  COUNTER_FMT ": applicable counters", COUNTER_ARG(r->c));
	expect_true(t, rec->at[G_BASIC][0] >= lo && rec->at[G_BASIC][0] < hi,
		    "an IP inside arch_workload_gated()", "elsewhere", RULE_APEBS_RECORD,
		    COUNTER_FMT ": IP %#llx, workload [%#llx, %#llx)", COUNTER_ARG(r->c),
		    (unsigned long long)rec->at[G_BASIC][0], (unsigned long long)lo,
		    (unsigned long long)hi);
	return true;
}

TEST(arch_pebs, msrs_read_write, REQ_ARCH_PEBS)
{
	static const uint64_t rsvd[] = {BIT_ULL(0), BIT_ULL(27), BIT_ULL(33), BIT_ULL(59),
					BIT_ULL(63)};
	struct counter c[2 * PMU_COUNTER_MAX];
	unsigned n = counters_collect(c, apebs_counter);
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
		expect_no_fault(t, rdmsr_safe(counter_cfg_c_msr(c[k]), &v), RULE_APEBS_MSRS,
				"RDMSR " COUNTER_FMT "'s CFG_C (%#x)", COUNTER_ARG(c[k]),
				counter_cfg_c_msr(c[k]));
}

TEST(arch_pebs, one_record_per_overflow, REQ_ARCH_PEBS | REQ_APIC)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	unsigned n = counters_collect(c, apebs_counter);

	if (!available(t))
		return;
	if (!n)
		t_skip_return(t,
			      "no arch-PEBS counter (CPUID.(23H,5)) counts instructions retired");
	for (unsigned k = 0; k < n; k++) {
		struct apebs_run r = {.c = c[k], .thresh = APEBS_BUF_BYTES};

		struct apebs_rec rec;

		if (apebs_run(t, &r))
			expect_record(t, &r, 0, APEBS_RECORD, 0, &rec);
	}
}

TEST(arch_pebs, threshold_interrupt, REQ_ARCH_PEBS | REQ_APIC)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	struct apebs_run at = {.thresh = APEBS_RECORD}, below = {.thresh = 2 * APEBS_RECORD};

	if (!apebs_ready(t, c))
		return;
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

	if (!apebs_ready(t, c))
		return;
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

/* Each group of a fixed size a CFG_C bit names (AUX, GPR, XMM), alone. */
TEST(arch_pebs, groups_where_enumerated, REQ_ARCH_PEBS | REQ_APIC)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	uint64_t caps_bits = (uint64_t)caps()->l23.pebs_caps << 32;

	if (!apebs_ready(t, c))
		return;
	for (unsigned g = G_BASIC + 1; g < G_COUNT; g++) {
		uint64_t bit = apebs_groups[g].bits;
		struct apebs_run r = {.c = c[0], .groups = bit, .thresh = APEBS_BUF_BYTES};

		if (!apebs_groups[g].bytes)
			continue;
		if (!(caps_bits & bit)) {
			expect_vector(t, wrmsr_safe(counter_cfg_c_msr(c[0]), APEBS_CFG_EN | bit),
				      X86_VEC_GP, RULE_APEBS_GROUPS,
				      "WRMSR " COUNTER_FMT
				      "'s CFG_C with %s (not in CPUID.(23H,4))",
				      COUNTER_ARG(c[0]), apebs_groups[g].name);
			wrmsr_safe(counter_cfg_c_msr(c[0]), 0);
			continue;
		}
		struct apebs_rec rec;

		t_diag(t, "group %s", apebs_groups[g].name);
		if (apebs_run(t, &r))
			expect_record(t, &r, 0, APEBS_RECORD + apebs_groups[g].bytes, bit, &rec);
	}
}

/* The CFG_C bits CPUID.(23H,4):EBX enumerates (Linux arch_pebs_cap.caps). */
static uint64_t apebs_caps_bits(void)
{
	return (uint64_t)caps()->l23.pebs_caps << 32;
}

/* A CFG_C value naming groups the enumeration leaves out: #GP(0). */
static void expect_refused(struct t *t, struct counter c, uint64_t bits, const char *what)
{
	expect_vector(t, wrmsr_safe(counter_cfg_c_msr(c), APEBS_CFG_EN | bits), X86_VEC_GP,
		      RULE_APEBS_GROUPS,
		      "WRMSR " COUNTER_FMT "'s CFG_C with %s (%#llx, not in CPUID.(23H,4))",
		      COUNTER_ARG(c), what, (unsigned long long)bits);
	wrmsr_safe(counter_cfg_c_msr(c), 0);
}

/* The LBR group's entries for CFG_C LBR field v: 8 x v, or with NUM_VAR
 * IA32_LBR_DEPTH's (Arch LBR); 0 when NUM_VAR has no Arch LBR to take a
 * depth from. */
static unsigned apebs_lbr_entries(unsigned v)
{
	const struct caps_arch_lbr *al = &caps()->arch_lbr;
	uint64_t d;

	if (v != APEBS_LBR_NUM_VAR)
		return v * APEBS_LBR_BASE_ENTRIES;
	if (!(al->present && al->max_depth) || rdmsr_safe(MSR_IA32_LBR_DEPTH, &d) != 0)
		return 0;
	return (unsigned)d;
}

/* The LBR group with the field Linux writes (ARCH_PEBS_LBR & caps): its
 * header bits, 48 bytes of header and 24 per entry; with NUM_VAR the depth
 * is one CPUID.(1CH,0):EAX[7:0] enumerates. */
TEST(arch_pebs, lbr_group_where_enumerated, REQ_ARCH_PEBS | REQ_APIC)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	uint64_t field = apebs_caps_bits() & APEBS_CFG_LBR;
	unsigned v = (unsigned)FIELD_GET_ULL(APEBS_CFG_LBR, field);
	struct apebs_run r = {.groups = field, .thresh = APEBS_BUF_BYTES};
	struct apebs_rec rec;

	if (!apebs_ready(t, c))
		return;
	r.c = c[0];
	if (!field) {
		expect_refused(t, c[0], APEBS_CFG_LBR, "the LBR group");
		return;
	}
	const struct caps_arch_lbr *al = &caps()->arch_lbr;
	unsigned depth = apebs_lbr_entries(v);
	if (!depth)
		t_skip_return(t, "LBR group of NUM_VAR entries without Arch LBR (CPUID.1CH)");
	t_diag(t, "LBR field %u, %u entries expected", v, depth);
	if (!apebs_run(t, &r) ||
	    !expect_record(t, &r, 0,
			   APEBS_RECORD + APEBS_LBR_HDR_BYTES + depth * APEBS_LBR_ENTRY_BYTES,
			   field, &rec) ||
	    !rec.at[G_LBR] || v != APEBS_LBR_NUM_VAR)
		return;
	unsigned d = (unsigned)rec.at[G_LBR][APEBS_LBR_HDR_DEPTH];
	expect_true(
	    t, d && d % 8 == 0 && d <= ARCH_LBR_MAX_DEPTH && ((al->depth_mask >> (d / 8 - 1)) & 1),
	    "a depth CPUID.(1CH,0):EAX[7:0] enumerates", "another", RULE_APEBS_LBR,
	    "the LBR group header's depth %u (CPUID.1CH:EAX[7:0] = %#x)", d, al->depth_mask);
}

/* The counters group: the sampling counter names the kinds (GP 36, fixed
 * 37, metrics 38), the counters with ALLOW[35] are snapshot (as Linux
 * programs a group: every member ALLOW); a second GP counter and FIXED_CTR0
 * count instructions beside it. */
TEST(arch_pebs, counters_group_where_enumerated, REQ_ARCH_PEBS | REQ_APIC)
{
	static const struct {
		const char *what;
		uint64_t bit;
	} bits[] = {
	    {"ALLOW", APEBS_CFG_CNTR_ALLOW},
	    {"the GP counters snapshot", APEBS_CFG_CNTR_GP},
	    {"the fixed counters snapshot", APEBS_CFG_CNTR_FIXED},
	    {"the metrics snapshot", APEBS_CFG_CNTR_METRICS},
	};
	struct counter c[2 * PMU_COUNTER_MAX], b = {.kind = COUNTER_GP}, f0 = FIXED_COUNTER(0);
	uint64_t cb = apebs_caps_bits(), kinds = cb & APEBS_CFG_CNTR_KINDS;
	unsigned n = counters_collect(c, apebs_counter), nb = 0;
	struct apebs_rec rec;

	if (!available(t))
		return;
	if (!n)
		t_skip_return(t,
			      "no arch-PEBS counter (CPUID.(23H,5)) counts instructions retired");
	for (unsigned k = 0; k < ARRAY_SIZE(bits); k++)
		if (!(cb & bits[k].bit))
			expect_refused(t, c[0], bits[k].bit, bits[k].what);
	if (!(cb & APEBS_CFG_CNTR_ALLOW) || !kinds || c[0].kind != COUNTER_GP)
		return;
	for (unsigned k = 1; k < n && !nb; k++)
		if (c[k].kind == COUNTER_GP)
			b = c[k], nb = 1;
	bool fx = (kinds & APEBS_CFG_CNTR_FIXED) && apebs_counter(f0);
	bool metrics = (kinds & APEBS_CFG_CNTR_METRICS) && caps()->perf_cap.perf_metrics;
	if (!nb)
		t_skip_return(t, "one arch-PEBS GP counter: the snapshot needs a second one");
	uint64_t gp = (kinds & APEBS_CFG_CNTR_GP) ? BIT_ULL(c[0].idx) | BIT_ULL(b.idx) : 0;
	unsigned bytes =
	    APEBS_CNTR_HDR_BYTES + 8 * (unsigned)(bits_set(gp) + fx + (metrics ? 2 : 0));
	struct apebs_run r = {.c = c[0],
			      .groups = APEBS_CFG_CNTR_ALLOW | kinds,
			      .also = counter_global_bit(b) | (fx ? counter_global_bit(f0) : 0),
			      .thresh = APEBS_BUF_BYTES};

	if (!t_counter_counts(t, c[0]))
		return; /* the sampling counter: no overflow, no record */
	/* A snapshot is judged on a counter shown to count. */
	bool b_counts = t_counter_counts(t, b);
	bool fx_counts = !fx || t_counter_counts(t, f0);
	counter_program(b, counter_cfg_all_rings(b, ARCH_EVENT_INSTRUCTIONS) | PERFEVTSEL_EN, 0);
	wrmsr(counter_cfg_c_msr(b), APEBS_CFG_CNTR_ALLOW);
	if (fx) {
		counter_program(f0, counter_cfg_all_rings(f0, ARCH_EVENT_INSTRUCTIONS), 0);
		wrmsr(counter_cfg_c_msr(f0), APEBS_CFG_CNTR_ALLOW);
	}
	bool ran = apebs_run(t, &r);
	uint64_t vb = counter_read(b), vf = fx ? counter_read(f0) : 0;
	wrmsr(counter_cfg_c_msr(b), 0);
	counter_program(b, 0, 0);
	if (fx) {
		wrmsr(counter_cfg_c_msr(f0), 0);
		counter_program(f0, 0, 0);
	}
	if (!ran || !expect_record(t, &r, 0, APEBS_RECORD + bytes, kinds, &rec) || !rec.at[G_CNTR])
		return;
	const uint64_t *g = rec.at[G_CNTR], *v = g + APEBS_CNTR_HDR_BYTES / 8;
	expect_eq(t, g[0], gp | (fx ? 1ULL << 32 : 0), RULE_APEBS_CNTR,
		  "the group's header: GP mask (" COUNTER_FMT " and " COUNTER_FMT
		  " have ALLOW), fixed mask",
		  COUNTER_ARG(c[0]), COUNTER_ARG(b));
	expect_eq(t, (uint32_t)g[1], metrics ? PEBS_CNTR_METRICS : 0, RULE_APEBS_CNTR,
		  "the group's header: metrics");
	if (gp) {
		v += c[0].idx < b.idx; /* the sampling counter's snapshot first when lower */
		if (b_counts)
			expect_range(t, *v, 1, vb, RULE_APEBS_CNTR,
				     COUNTER_FMT "'s snapshot (after the run: %llu)",
				     COUNTER_ARG(b), (unsigned long long)vb);
		v = g + APEBS_CNTR_HDR_BYTES / 8 + 2;
	}
	if (fx && fx_counts)
		expect_range(t, *v, 1, vf, RULE_APEBS_CNTR,
			     "FIXED_CTR0's snapshot (after the run: %llu)", (unsigned long long)vf);
}

/* The largest record of the groups whose sizes the suite knows (AUX, GPR,
 * XMM, LBR where enumerated): whether and where the CPU splits it is its
 * own; its parts must chain as the parser reads them. */
TEST(arch_pebs, split_record_parts, REQ_ARCH_PEBS | REQ_APIC)
{
	struct counter c[2 * PMU_COUNTER_MAX];
	uint64_t cb = apebs_caps_bits();
	struct apebs_run r = {.thresh = APEBS_BUF_BYTES};
	unsigned bytes = APEBS_RECORD;
	struct apebs_rec rec;

	if (!apebs_ready(t, c))
		return;
	r.c = c[0];
	for (unsigned g = G_BASIC + 1; g < G_COUNT; g++)
		if (apebs_groups[g].bytes && (cb & apebs_groups[g].bits)) {
			r.groups |= apebs_groups[g].bits;
			bytes += apebs_groups[g].bytes;
		}
	unsigned entries = apebs_lbr_entries((unsigned)FIELD_GET_ULL(APEBS_CFG_LBR, cb));
	if (entries) {
		r.groups |= cb & APEBS_CFG_LBR;
		bytes += APEBS_LBR_HDR_BYTES + entries * APEBS_LBR_ENTRY_BYTES;
	}
	t_diag(t, "groups %#llx: %#x bytes in one piece", (unsigned long long)r.groups, bytes);
	if (apebs_run(t, &r) && expect_record(t, &r, 0, bytes, r.groups, &rec))
		t_diag(t, "%u fragment(s)", rec.frags);
}
