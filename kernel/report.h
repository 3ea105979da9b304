/* SPDX-License-Identifier: MIT */
/* The run's report: the console output kept in memory, to be saved. */
#ifndef PMUTEST_REPORT_H
#define PMUTEST_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#define REPORT_MAX (256 * 1024)

const char *report_text(size_t *len, bool *truncated);

#endif
