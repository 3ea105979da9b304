/* SPDX-License-Identifier: MIT */
/*
 * The simulator has no display: its report is its stdout. The screen
 * interface (include/arch.h) answers "no screen" and does nothing, so the
 * kernel's views (kernel/screen.c) stay off.
 */
#include "sim.h"

bool arch_screen_size(unsigned *cols, unsigned *rows)
{
	*cols = 0;
	*rows = 0;
	return false;
}

void arch_screen_clear(void)
{
}

void arch_screen_text(unsigned col, unsigned row, enum screen_color color, const char *s)
{
	(void)col, (void)row, (void)color, (void)s;
}

void arch_screen_big(unsigned col, unsigned row, unsigned scale, enum screen_color color,
		     const char *s)
{
	(void)col, (void)row, (void)scale, (void)color, (void)s;
}

void arch_screen_publish(void)
{
}

enum arch_key arch_key_poll(void)
{
	return ARCH_KEY_NO_KEYBOARD;
}

/* The simulator never stays up after the verdict: nothing to wait for. */
void arch_idle_ms(unsigned ms)
{
	(void)ms;
}
