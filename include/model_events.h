/* SPDX-License-Identifier: MIT */
/*
 * Model-specific events that need UMASK2 (IA32_PERFEVTSELx 47:40,
 * CPUID.(23H,0):EBX[0]): no architectural event (SDM Vol. 3B Table 20-1,
 * CPUID.(23H,3)) defines a UMASK2 value, so counting with it needs a
 * model's own event. The one table of them, read by the suite
 * (suites/counting.c) and the simulator (arch/sim/pmu_arch.c).
 *
 * Source: Intel's perfmon event files, the "UMaskExt" field being UMASK2
 * (github.com/intel/perfmon LNL/events/lunarlake_lioncove_core.json v1.26,
 * ARL/events/arrowlake_lioncove_core.json v1.20; mapfile.csv names them for
 * GenuineIntel-6-BD, -6-C5, -6-C6 with core type 0x40, the Lion Cove
 * P-cores). BR_INST_RETIRED (C4H) splits the taken conditional branches by
 * direction: COND_TAKEN_BWD is UMask 01H, COND_TAKEN_FWD UMASK2 01H,
 * COND_TAKEN both, COND_NTAKEN UMask 10H, COND both of COND_TAKEN's and
 * COND_NTAKEN's. (Panther Lake's Cougar Cove file encodes these without
 * UMASK2: it is not in the table.)
 */
#ifndef PMUTEST_MODEL_EVENTS_H
#define PMUTEST_MODEL_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "bits.h"

enum model_event {
	MEV_BR_COND,	       /* BR_INST_RETIRED.COND */
	MEV_BR_COND_TAKEN,     /* BR_INST_RETIRED.COND_TAKEN */
	MEV_BR_COND_TAKEN_FWD, /* BR_INST_RETIRED.COND_TAKEN_FWD */
	MEV_COUNT
};

static const struct {
	const char *name;
	uint8_t event, umask, umask2;
} lion_cove_events[] = {
    [MEV_BR_COND] = {"BR_INST_RETIRED.COND", 0xC4, 0x11, 0x01},
    [MEV_BR_COND_TAKEN] = {"BR_INST_RETIRED.COND_TAKEN", 0xC4, 0x01, 0x01},
    [MEV_BR_COND_TAKEN_FWD] = {"BR_INST_RETIRED.COND_TAKEN_FWD", 0xC4, 0x00, 0x01},
};
_Static_assert(ARRAY_SIZE(lion_cove_events) == MEV_COUNT, "one row per model event");

/* DisplayFamily 06H, DisplayModel BDH (Lunar Lake), C5H, C6H (Arrow Lake),
 * on the hybrid part's core type 40H (CPUID.1AH:EAX[31:24]). */
static inline bool lion_cove_core(unsigned family, unsigned model, unsigned core_type)
{
	return family == 6 && (model == 0xBD || model == 0xC5 || model == 0xC6) &&
	       core_type == 0x40;
}

#endif
