/* SPDX-License-Identifier: MIT */
/*
 * boot/direct/loader.c's command-line bound: a line shorter than the
 * image's cmdline_size by two or more is the user's; one of cmdline_size
 * characters (iPXE's cut before 2025: cmdline_size bytes, no NUL of its
 * own) or one fewer (its cut since: snprintf) may be the start of a longer
 * one, and is refused with a line naming the bound.
 */
#include "loader.h"
#include "unit.h"

#define CMDLINE_SIZE 4095 /* boot/linux/setup.asm's cmdline_size */

static const struct {
	size_t len;
	int refused;
	const char *name;
} cases[] = {
    {0, 0, "no command line"},
    {13, 0, "console=ttyS0"},
    {CMDLINE_SIZE - 2, 0, "cmdline_size - 2 characters: the user's"},
    {CMDLINE_SIZE - 1, 1, "cmdline_size - 1 characters: iPXE's snprintf cut"},
    {CMDLINE_SIZE, 1, "cmdline_size characters: iPXE's copy of cmdline_size bytes"},
};

int main(void)
{
	static char line[CMDLINE_SIZE + 1];
	char err[160], detail[240];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(line, 'y', cases[i].len);
		line[cases[i].len] = '\0';
		const char *got = loader_check_cmdline(line, CMDLINE_SIZE, err, sizeof(err));
		snprintf(detail, sizeof(detail), "wanted %s, got \"%s\"",
			 cases[i].refused ? "an error naming cmdline_size 4095" : "none",
			 got ? got : "(none)");
		unit_result(cases[i].refused ? got && strstr(got, "cmdline_size 4095") : !got,
			    cases[i].name, __FILE__, __LINE__, detail);
	}
	return unit_done();
}
