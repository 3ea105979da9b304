/* SPDX-License-Identifier: MIT */
/*
 * A text console on the GOP framebuffer: 8x16 cells (font.c, rows doubled),
 * light grey on black, wrapping and scrolling. The screen's characters are
 * kept in a grid so that a scroll redraws only the cells that change (the
 * framebuffer is mapped uncached; reading it back would be slow), and the
 * screen scrolls by half its height at a time.
 */
#include "x86.h"

#define CELL_W 8
#define CELL_H 16
#define FG     0x00C0C0C0u
#define BG     0x00000000u

static volatile uint32_t *fb;
static uint32_t stride, cols, rows, col, row;
static char *grid;

static void draw(uint32_t c, uint32_t r, char ch)
{
	unsigned g =
	    (unsigned char)ch >= 0x20 && (unsigned char)ch < 0x80 ? (unsigned)ch - 0x20 : 0;
	volatile uint32_t *p = fb + (uint64_t)r * CELL_H * stride + (uint64_t)c * CELL_W;

	grid[r * cols + c] = ch;
	for (int y = 0; y < CELL_H; y++, p += stride) {
		uint8_t bits = font8x8[g][y / 2];
		for (int x = 0; x < CELL_W; x++)
			p[x] = bits & (0x80 >> x) ? FG : BG;
	}
}

void fbcon_init(const struct boot_framebuffer *f)
{
	if (!f->base || f->width < CELL_W || f->height < CELL_H)
		return;
	fb = (volatile uint32_t *)f->base;
	stride = f->pixels_per_scanline;
	cols = f->width / CELL_W;
	rows = f->height / CELL_H;
	grid = pool_alloc((uint64_t)cols * rows, 16);
	for (uint64_t i = 0; i < (uint64_t)stride * f->height; i++)
		fb[i] = BG;
	for (uint64_t i = 0; i < (uint64_t)cols * rows; i++)
		grid[i] = ' ';
}

/*
 * At the bottom the text jumps up by half a screen, not one line: every
 * scroll redraws nearly every cell, and pixel writes to the framebuffer are
 * slow (uncached on hardware, a slow path under TCG), so this divides the
 * drawing per line by rows / 2.
 */
static void newline(void)
{
	col = 0;
	if (row + 1 < rows) {
		row++;
		return;
	}
	uint32_t jump = rows / 2 ? rows / 2 : 1;
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t c = 0; c < cols; c++) {
			char now = r + jump < rows ? grid[(r + jump) * cols + c] : ' ';
			if (grid[r * cols + c] != now)
				draw(c, r, now);
		}
	row = rows - jump;
}

void fbcon_write(const char *s, size_t n)
{
	if (!fb)
		return;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (ch == '\n') {
			newline();
			continue;
		}
		if (ch == '\r') {
			col = 0;
			continue;
		}
		if (ch == '\t') {
			do
				fbcon_write(" ", 1);
			while (col % 8);
			continue;
		}
		if ((unsigned char)ch < 0x20 || (unsigned char)ch >= 0x7F)
			ch = '?';
		if (col >= cols)
			newline();
		draw(col++, row, ch);
	}
}
