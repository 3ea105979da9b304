/* SPDX-License-Identifier: MIT */
/* x86_vector_name() (include/arch.h). */
#include "arch.h"

const char *x86_vector_name(int vector)
{
	static const char *const names[32] = {
	    "#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "#CSO", "#TS",
	    "#NP", "#SS", "#GP", "#PF", "#15", "#MF", "#AC", "#MC", "#XM", "#VE",  "#CP",
	    "#22", "#23", "#24", "#25", "#26", "#27", "#HV", "#VC", "#SX", "#31",
	};
	if (vector == ARCH_TIMEOUT)
		return "timeout";
	if (vector >= 0 && vector < 32)
		return names[vector];
	if (vector == PMI_VECTOR)
		return "PMI";
	if (vector == TIMER_VECTOR)
		return "timer";
	if (vector == SPURIOUS_VECTOR)
		return "spurious";
	return "#??";
}
