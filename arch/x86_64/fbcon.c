/* SPDX-License-Identifier: MIT */
/*
 * A text console on the GOP framebuffer: 8x16 cells (font.c, rows doubled).
 * The screen's characters and colours are kept in a grid: a cell is drawn
 * only when it changes (the framebuffer is mapped uncached; writing it is
 * slow on hardware and a slow path under TCG), and the grid is the text
 * `make test` reads back (arch_screen_publish).
 *
 * Two uses. Until the kernel takes the screen (arch_screen_clear) it is a
 * scrolling log, light grey on black, which jumps up by half a screen at
 * the bottom (every scroll redraws nearly every cell: this divides the
 * drawing per line by rows / 2). After that the kernel places text itself:
 * the progress view and the summary.
 */
#include "x86.h"

#define CELL_W	   8
#define CELL_H	   16
#define BG	   0x00000000u
#define ATTR_BIG   0x80 /* the cell is part of a large character */
#define ATTR_COLOR 0x7F

static const uint32_t palette[] = {
    [SCREEN_GREY] = 0x00C0C0C0u, [SCREEN_WHITE] = 0x00FFFFFFu,	[SCREEN_GREEN] = 0x0040E040u,
    [SCREEN_RED] = 0x00FF4040u,	 [SCREEN_YELLOW] = 0x00F0D040u, [SCREEN_CYAN] = 0x0060D0F0u,
};
_Static_assert(ARRAY_SIZE(palette) == SCREEN_COLOR_COUNT, "a colour per enum screen_color");

static volatile uint32_t *fb;
static uint32_t stride, cols, rows, col, row;
static bool bgr;
static char *grid;
static uint8_t *attr;
static bool log_mode = true;

/* The palette is 0x00RRGGBB, which is PixelBlueGreenRedReserved8BitPerColor
 * (blue in byte 0); PixelRedGreenBlue has red in byte 0. */
static uint32_t pixel(enum screen_color c)
{
	uint32_t v = palette[c];
	if (bgr)
		return v;
	return (v & 0xFF00u) | ((v >> 16) & 0xFFu) | ((v & 0xFFu) << 16);
}

static unsigned glyph(char ch)
{
	return (unsigned char)ch >= 0x20 && (unsigned char)ch < 0x80 ? (unsigned)ch - 0x20 : 0;
}

static void draw(uint32_t c, uint32_t r, char ch, uint8_t a)
{
	uint64_t i = (uint64_t)r * cols + c;
	if (grid[i] == ch && attr[i] == a)
		return;
	grid[i] = ch;
	attr[i] = a;
	uint32_t fg = pixel(a & ATTR_COLOR);
	volatile uint32_t *p = fb + (uint64_t)r * CELL_H * stride + (uint64_t)c * CELL_W;
	for (int y = 0; y < CELL_H; y++, p += stride) {
		uint8_t bits = font8x8[glyph(ch)][y / 2];
		for (int x = 0; x < CELL_W; x++)
			p[x] = bits & (0x80 >> x) ? fg : BG;
	}
}

void fbcon_init(const struct boot_framebuffer *f)
{
	if (!f->base || f->width < CELL_W || f->height < CELL_H)
		return;
	fb = (volatile uint32_t *)f->base;
	stride = f->pixels_per_scanline;
	bgr = f->bgr;
	cols = f->width / CELL_W;
	rows = f->height / CELL_H;
	grid = pool_alloc((uint64_t)cols * rows, 16);
	attr = pool_alloc((uint64_t)cols * rows, 16);
	for (uint64_t i = 0; i < (uint64_t)stride * f->height; i++)
		fb[i] = BG;
	for (uint64_t i = 0; i < (uint64_t)cols * rows; i++) {
		grid[i] = ' ';
		attr[i] = SCREEN_GREY;
	}
}

static void clear(void)
{
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t c = 0; c < cols; c++)
			draw(c, r, ' ', SCREEN_GREY);
	col = row = 0;
}

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
			uint64_t from = (uint64_t)(r + jump) * cols + c;
			if (r + jump < rows)
				draw(c, r, grid[from], attr[from]);
			else
				draw(c, r, ' ', SCREEN_GREY);
		}
	row = rows - jump;
}

void fbcon_write(const char *s, size_t n)
{
	if (!fb || !log_mode)
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
		draw(col++, row, ch, SCREEN_GREY);
	}
}

/* Back to the log (a bail-out after the kernel took the screen): a clean
 * screen, so the message is not lost among the view's text. */
void fbcon_log_mode(void)
{
	if (!fb || log_mode)
		return;
	log_mode = true;
	clear();
}

/* ---- The kernel's screen (include/arch.h) ------------------------------- */

bool arch_screen_size(unsigned *c, unsigned *r)
{
	*c = cols;
	*r = rows;
	return fb != NULL;
}

void arch_screen_clear(void)
{
	if (!fb)
		return;
	log_mode = false;
	clear();
}

void arch_screen_text(unsigned c, unsigned r, enum screen_color color, const char *s)
{
	if (!fb || r >= rows || color >= SCREEN_COLOR_COUNT)
		return;
	for (; *s && c < cols; s++, c++) {
		char ch = (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7F ? '?' : *s;
		draw(c, r, ch, (uint8_t)color);
	}
}

void arch_screen_big(unsigned c, unsigned r, unsigned scale, enum screen_color color, const char *s)
{
	if (!fb || !scale || color >= SCREEN_COLOR_COUNT)
		return;
	uint32_t fg = pixel(color);
	for (; *s && c + scale <= cols && r + scale <= rows; s++, c += scale) {
		/* The grid: the character in the area's top-left cell. */
		for (unsigned y = 0; y < scale; y++)
			for (unsigned x = 0; x < scale; x++) {
				uint64_t i = (uint64_t)(r + y) * cols + c + x;
				grid[i] = x == 0 && y == 0 ? *s : ' ';
				attr[i] = (uint8_t)(ATTR_BIG | color);
			}
		/* The pixels: each font pixel (8x8, rows doubled) as a block. */
		unsigned g = glyph(*s), pw = scale, ph = 2 * scale;
		volatile uint32_t *base = fb + (uint64_t)r * CELL_H * stride + (uint64_t)c * CELL_W;
		for (unsigned y = 0; y < 8 * ph; y++) {
			volatile uint32_t *p = base + (uint64_t)y * stride;
			uint8_t bits = font8x8[g][y / ph];
			for (unsigned x = 0; x < 8 * pw; x++)
				p[x] = bits & (0x80 >> (x / pw)) ? fg : BG;
		}
	}
}

/* The grid, one line a row without trailing blanks, to COM2, between two
 * marker lines (a reader takes the last screen it finds whole). */
void arch_screen_publish(void)
{
	if (!fb)
		return;
	static const char begin[] = "=== pmutest screen ===\n", end[] = "=== end of screen ===\n";
	serial2_write(begin, sizeof(begin) - 1);
	fbcon_dump(serial2_write);
	serial2_write(end, sizeof(end) - 1);
}

void fbcon_dump(void (*out)(const char *s, size_t n))
{
	if (!fb)
		return;
	for (uint32_t r = 0; r < rows; r++) {
		uint32_t n = cols;
		while (n && grid[(uint64_t)r * cols + n - 1] == ' ')
			n--;
		out(grid + (uint64_t)r * cols, n);
		out("\n", 1);
	}
}
