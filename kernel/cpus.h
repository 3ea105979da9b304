/* SPDX-License-Identifier: MIT */
/*
 * Every CPU's own capability record, the distinct PMU configurations among
 * them, and the CPUs a run covers (the `cpus` option).
 *
 * A record is read on its own CPU (CPUID and IA32_PERF_CAPABILITIES are per
 * logical processor: hybrid parts enumerate a different PMU on each core
 * type, CPUID.1AH, 0AH, 23H). Two CPUs share a configuration when their
 * records are identical; the report lists each configuration once, with the
 * CPUs that have it.
 */
#ifndef PMUTEST_CPUS_H
#define PMUTEST_CPUS_H

#include "caps.h"
#include "options.h"

#define CPUS_MAX_CONFIGS 16
#define CPUS_NO_CONFIG	 0xFFu

/* Read every online CPU's record (on that CPU). Prints nothing: call before
 * the KTAP header; cpus_report() says what happened. */
void cpus_read_records(void);

unsigned cpus_config_count(void);
/* The configuration of a CPU, CPUS_NO_CONFIG when it has no record (not
 * online, or more distinct configurations than CPUS_MAX_CONFIGS). */
unsigned cpus_config_of(unsigned cpu);
const struct caps *cpus_config(unsigned config);

/* The CPUs the options select, in order, online and with a record: returns
 * how many were put in list (room for ARCH_MAX_CPUS). */
unsigned cpus_selected(const struct options *o, unsigned *list);

/* The CPU list, their states and the distinct configurations, as KTAP
 * diagnostics (each configuration's record in full). */
void cpus_report(const struct options *o);

/* Enumerated CPUs the options selected (or could not exclude) that run no
 * test: not started, no record, beyond ARCH_MAX_CPUS. Each is named in buf
 * ("cpu 3 (did not answer the start-up IPIs)"); the count is returned. A run
 * that leaves one out is incomplete (kernel/main.c). */
unsigned cpus_untested(const struct options *o, char *buf, size_t size);

/* Make cpu's record the one caps() returns (g_caps). */
void cpus_use(unsigned cpu);

#endif
