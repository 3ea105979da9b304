/* SPDX-License-Identifier: MIT */
/*
 * COM1, a 16550-compatible UART at I/O port 3F8H: 115200 baud, 8N1, FIFO
 * on, no interrupts (polled). The KTAP stream's main path.
 */
#include "x86.h"

#define COM1	 0x3F8
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

static bool present;

void serial_init(void)
{
	/* No UART answers scratch-register writes with the value written back
	 * when none is there (reads float to FFH). */
	outb(COM1 + UART_SCR, 0x5A);
	if (inb(COM1 + UART_SCR) != 0x5A)
		return;
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x80); /* DLAB */
	outb(COM1 + UART_DLL, 1);    /* 115200 = 1.8432 MHz / 16 / 1 */
	outb(COM1 + UART_DLM, 0);
	outb(COM1 + UART_LCR, 0x03); /* 8N1 */
	outb(COM1 + UART_FCR, 0xC7); /* FIFO on, cleared, 14-byte trigger */
	outb(COM1 + UART_MCR, 0x03); /* DTR, RTS; OUT2 off: no IRQ */
	present = true;
}

static void put(char c)
{
	/* Bounded: a wedged UART must not hang the run. */
	for (int i = 0; i < 1000000 && !(inb(COM1 + UART_LSR) & LSR_THRE); i++)
		cpu_relax();
	outb(COM1 + UART_THR, (uint8_t)c);
}

void serial_write(const char *s, size_t n)
{
	if (!present)
		return;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			put('\r');
		put(s[i]);
	}
}
