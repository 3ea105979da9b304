/* SPDX-License-Identifier: MIT */
/*
 * Quirks: named deviations from the SDM, the rows of quirk_table.h (what
 * each is, who deviates, where it was seen, where it is observable).
 */
#ifndef PMUTEST_SIM_QUIRKS_H
#define PMUTEST_SIM_QUIRKS_H

#include <stdbool.h>
#include <stdint.h>

/* Who deviates (quirk_table.h's kind column). */
enum quirk_kind {
	QUIRK_CPU,
	QUIRK_FIRMWARE,
	QUIRK_PLATFORM,
};

enum quirk {
#define QUIRK(id, kind, name, applies, where, desc) id,
#include "quirk_table.h"
#undef QUIRK
	QUIRK_COUNT
};

struct caps;
struct sim_profile;

struct quirk_desc {
	const char *name, *where, *desc;
	bool (*applies)(const struct caps *c, const struct sim_profile *p);
	enum quirk_kind kind;
};
extern const struct quirk_desc g_quirks[QUIRK_COUNT];

/* False when no quirk has that name. */
bool quirk_find(const char *name, enum quirk *q);
/* A firmware-state quirk: what firmware may write after reset. The suite
 * must report it (# firmware state) and fail nothing (testing/mutation.sh). */
bool quirk_is_firmware(enum quirk q);
/* Who deviates: the processor, the firmware or the platform. */
enum quirk_kind quirk_kind(enum quirk q);
/* Whether the deviation is observable on a machine with these caps. */
bool quirk_applicable(enum quirk q, const struct caps *c, const struct sim_profile *p);

#endif
