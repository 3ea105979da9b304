/* SPDX-License-Identifier: MIT */
/*
 * The registered simulator families (family.h), in dispatch order: MSR
 * accesses and RDPMC go to the first family that claims them, the engine
 * collects counters from each and lets each advance its accumulators.
 * A new family is one row here and its own file.
 */
#include "sim.h"

const struct sim_family *const sim_families[] = {
    &sim_family_arch, &sim_family_amd,	     &sim_family_uncore, &sim_family_netburst,
    &sim_family_rdt,  &sim_family_rdt_alloc, &sim_family_lbr,	 &sim_family_pebs,
    &sim_family_cpu,  &sim_family_p6,
};
const unsigned sim_family_count = ARRAY_SIZE(sim_families);
