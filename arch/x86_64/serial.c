/* SPDX-License-Identifier: MIT */
/*
 * 16550-compatible UARTs, 115200 baud, 8N1, FIFO on, no interrupts
 * (polled): COM1 (3F8H) carries the KTAP stream, COM2 (2F8H) the screen's
 * text when the summary is up (arch_screen_publish; `make test` reads it).
 *
 * Written at the UART's speed: a 16550A's transmit FIFO holds 16
 * bytes and LSR.THRE says it is empty (in FIFO mode THRE means "FIFO
 * empty"), so one LSR read per 16 bytes suffices and no byte is lost; a UART
 * without a working FIFO (8250/16450: IIR bits 7:6 not 11b after FCR.0 is
 * set) gets one byte per check. Under KVM that halves the exits per byte
 * (2 -> 1 1/16).
 *
 * The bytes go out with REP OUTSB, a run between newlines at a time. It
 * saves no exit: KVM completes `rep outsb` one byte per exit to the VMM
 * (its emulator batches only `rep insb`). It saves the guest's own work
 * per byte, which is what costs on this project's nested KVM host, where
 * each memory access of a guest instruction costs microseconds (measured
 * in the guest, 2048 bytes to port 80H: a loop of OUTs 17-22 ms, REP OUTSB
 * 14-17 ms, and a loop that also loads each byte costs a load more). On a
 * host with fast exits, KVM's emulator adds a little per byte to an exit
 * that dominates anyway; on real hardware the UART's baud rate does.
 */
#include "x86.h"

#include "kstring.h"

#define COM1	    0x3F8
#define COM2	    0x2F8
#define UART_THR    0 /* transmit holding (DLAB=0) */
#define UART_DLL    0 /* divisor low (DLAB=1) */
#define UART_IER    1
#define UART_DLM    1
#define UART_FCR    2 /* write */
#define UART_IIR    2 /* read */
#define UART_LCR    3
#define UART_MCR    4
#define UART_LSR    5
#define UART_SCR    7
#define LSR_THRE    0x20
#define IIR_FIFO    0xC0 /* bits 7:6 = 11b: FIFOs enabled (16550A and later) */
#define FIFO_16550A 16

struct uart {
	uint16_t base;
	bool present;
	uint8_t fifo; /* bytes per LSR.THRE: the transmit FIFO's depth, or 1 */
	/* Slots known free: the FIFO was empty at the last THRE and this many
	 * fewer bytes went in since, so a line written in several calls (its
	 * indent, text, newline) checks LSR once per FIFO load, not once per
	 * call (each check a VM exit under a hypervisor). */
	uint8_t room;
	bool drained; /* THRE seen set since uart_init: something empties it */
};

static struct uart com1 = {COM1, false, 1, 0, false}, com2 = {COM2, false, 1, 0, false};

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
	u->fifo = (inb(b + UART_IIR) & IIR_FIFO) == IIR_FIFO ? FIFO_16550A : 1;
	u->room = 0; /* the first write waits for THRE */
	u->present = true;
}

/* Waits until the transmitter is empty. One that has never emptied since
 * uart_init and stays full for 2 s is a dead UART; one that emptied before
 * has a reader, and is given 30 s: output to it stops, the run goes on.
 * Not Linux's 10 ms (wait_for_xmitr()): that bound holds for a UART that
 * shifts bits out at its baud rate (a FIFO load takes 1.4 ms at 115200),
 * but a UART that a consumer drains - a VMM's 16550 whose reader is slow or
 * descheduled, a BMC's virtual UART behind serial-over-LAN, a lab's
 * console relay - keeps THRE clear for as long as the reader lags, and
 * giving up there lost the rest of the report (measured: QEMU with a 4 KiB
 * pipe read 512 bytes per 20 ms stopped the log at 4410 bytes, without its
 * verdict; and `make test`'s LAVA board, its relay and dispatcher starved
 * on a loaded machine, lost a log mid-line with a 2 s bound for every
 * wait). A dead UART costs one 2 s wait, a reader gone for good one 30 s
 * wait. */
#define UART_GIVE_UP_MS	   2000
#define UART_READER_LAG_MS 30000
static bool wait_empty(struct uart *u, uint64_t hz)
{
	uint64_t give_up = hz / 1000 * (u->drained ? UART_READER_LAG_MS : UART_GIVE_UP_MS);
	uint64_t t0 = 0;

	while (!(inb(u->base + UART_LSR) & LSR_THRE)) {
		uint64_t now = arch_rdtsc();
		if (!t0)
			t0 = now;
		else if (now - t0 > give_up) {
			u->present = false;
			return false;
		}
		cpu_relax();
	}
	u->drained = true;
	return true;
}

/* The text in FIFO loads, "\n" as "\r\n": each run of bytes between
 * newlines goes out of the caller's buffer with REP OUTSB, up to the room
 * the FIFO has. */
static void uart_write(struct uart *u, const char *s, size_t n)
{
	uint64_t hz = arch_tsc_hz() ? arch_tsc_hz() : 4000000000ULL;
	const uint16_t thr = u->base + UART_THR;
	bool cr_sent = false; /* the '\r' of s[i] == '\n' is out */
	size_t i = 0;

	while (i < n && u->present) {
		if (!u->room) {
			if (!wait_empty(u, hz))
				return;
			u->room = u->fifo;
		}
		if (s[i] == '\n' && !cr_sent) {
			outb(thr, '\r');
			cr_sent = true;
			u->room--;
			continue;
		}
		/* s[i] (a '\n' whose '\r' is out, or any other byte), and
		 * what follows it up to the next '\n' and the FIFO's room */
		size_t max = n - i - 1 < (size_t)u->room - 1 ? n - i - 1 : (size_t)u->room - 1;
		size_t k = 1 + kspan_until(s + i + 1, max, '\n');
		outsb(thr, s + i, k);
		i += k;
		u->room -= (uint8_t)k;
		cr_sent = false;
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
