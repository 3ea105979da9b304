/* SPDX-License-Identifier: MIT */
/* pmusim --replay REPORT (replay.c): the machine of a pmutest report. */
#ifndef PMUSIM_REPLAY_H
#define PMUSIM_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "sim.h"

struct replay {
	struct sim_profile profile; /* a sparse dump of every online CPU */
	char dump_path[64];	    /* that dump: unlink it once configured */
	char *config_text;	    /* the run's `# option:` lines */
	size_t config_len;
	unsigned n_configs;
	bool simulated;		/* a pmusim report: its quirks come back */
	char quirks_text[1024]; /* its ", quirks " list */
	const char *platform;	/* a KVM guest's: the platform model's quirks */
};

/* Reads the report at `path`; sets the quirks it needs in quirks[]. False
 * with a one-line reason in err when it cannot be replayed. */
bool sim_replay_load(const char *path, struct replay *r, bool *quirks, char *err, size_t errlen);

#endif
