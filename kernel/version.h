/* SPDX-License-Identifier: MIT */
#ifndef PMUTEST_VERSION_H
#define PMUTEST_VERSION_H
#define PMUTEST_VERSION "0.1"
#endif
