/* SPDX-License-Identifier: MIT */
/*
 * The image's SBAT metadata (shim's "Secure Boot Advanced Targeting",
 * https://github.com/rhboot/shim/blob/main/SBAT.md): CSV lines of
 * component, generation, vendor, package, version, URL. The first line is
 * the format's own; a component's generation is raised when a signed
 * pmutest must be revoked. Shim 15.4 and later refuse a second stage
 * without a .sbat section even when its signature verifies.
 */
#include "version.h"

#define SBAT_CSV                                                                                   \
	"sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\n"            \
	"pmutest,1,pmutest,pmutest," PMUTEST_VERSION ",https://github.com/pmutest/pmutest\n"

/* Exactly the text, no terminating NUL: the section is the CSV file. */
__attribute__((section(".sbat"), used)) static const char sbat[sizeof(SBAT_CSV) - 1] = SBAT_CSV;
