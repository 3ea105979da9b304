/* SPDX-License-Identifier: MIT */
/*
 * 16550-compatible UARTs, 115200 baud, 8N1, FIFO on, no interrupts
 * (polled): COM1 (3F8H) carries the KTAP stream, COM2 (2F8H) the screen's
 * text when the summary is up (arch_screen_publish; `make test` reads it).
 */
#include "x86.h"

#define COM1	 0x3F8
#define COM2	 0x2F8
#define UART_THR 0 /* transmit holding (DLAB=0) */
#define UART_DLL 0 /* divisor low (DLAB=1) */
#define UART_IER 1
#define UART_DLM 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCR 7
#define LSR_THRE 0x20

struct uart {
	uint16_t base;
	bool present;
};

static struct uart com1 = {COM1, false}, com2 = {COM2, false};

static void uart_init(struct uart *u)
{
	uint16_t b = u->base;
	/* No UART answers scratch-register writes with the value written back
	 * when none is there (reads float to FFH). */
	outb(b + UART_SCR, 0x5A);
	if (inb(b + UART_SCR) != 0x5A)
		return;
	outb(b + UART_IER, 0x00);
	outb(b + UART_LCR, 0x80); /* DLAB */
	outb(b + UART_DLL, 1);	  /* 115200 = 1.8432 MHz / 16 / 1 */
	outb(b + UART_DLM, 0);
	outb(b + UART_LCR, 0x03); /* 8N1 */
	outb(b + UART_FCR, 0xC7); /* FIFO on, cleared, 14-byte trigger */
	outb(b + UART_MCR, 0x03); /* DTR, RTS; OUT2 off: no IRQ */
	u->present = true;
}

/* A transmitter that stays full for 10 ms (Linux wait_for_xmitr()'s bound;
 * a character takes 87 us at 115200) is a dead UART: output to it stops,
 * the run goes on. */
static void put(struct uart *u, char c)
{
	uint64_t hz = arch_tsc_hz() ? arch_tsc_hz() : 4000000000ULL, t0 = arch_rdtsc();

	while (!(inb(u->base + UART_LSR) & LSR_THRE)) {
		if (arch_rdtsc() - t0 > hz / 100) {
			u->present = false;
			return;
		}
		cpu_relax();
	}
	outb(u->base + UART_THR, (uint8_t)c);
}

static void uart_write(struct uart *u, const char *s, size_t n)
{
	for (size_t i = 0; i < n && u->present; i++) {
		if (s[i] == '\n')
			put(u, '\r');
		put(u, s[i]);
	}
}

void serial_init(void)
{
	uart_init(&com1);
	uart_init(&com2);
}

void serial_write(const char *s, size_t n)
{
	uart_write(&com1, s, n);
}

void serial2_write(const char *s, size_t n)
{
	uart_write(&com2, s, n);
}
