/* SPDX-License-Identifier: MIT */
/*
 * The quirks table (rows in quirks.h): names, where each deviation was seen,
 * and on which machines it is observable (the mutation matrix's choice of
 * profiles).
 */
#include <string.h>

#include "caps.h"
#include "lbr.h"
#include "sim.h"

const struct quirk_desc g_quirks[QUIRK_COUNT] = {
#define QUIRK(id, name, pred, where, desc) [id] = {name, where, desc},
    QUIRK_LIST
#undef QUIRK
};

int quirk_find(const char *name)
{
	for (unsigned i = 0; i < QUIRK_COUNT; i++)
		if (!strcmp(g_quirks[i].name, name))
			return (int)i;
	return -1;
}

bool quirk_applicable(enum quirk q, const struct caps *c, const struct sim_profile *p)
{
	switch (q) {
#define QUIRK(id, name, pred, where, desc)                                                         \
	case id:                                                                                   \
		return (pred);
		QUIRK_LIST
#undef QUIRK
	default:
		return false;
	}
}
