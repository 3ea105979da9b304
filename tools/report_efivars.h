/* SPDX-License-Identifier: MIT */
/* The stored report from an efivarfs directory (tools/report_efivars.c). */
#ifndef PMUTEST_REPORT_EFIVARS_H
#define PMUTEST_REPORT_EFIVARS_H

#include <stdio.h>

/* Writes the report stored in dir's variables to out: 0, or 1 with one
 * line on err and nothing on out (a store cut short gives its part, 0). */
int report_efivars(const char *dir, FILE *out, FILE *err);

#endif
