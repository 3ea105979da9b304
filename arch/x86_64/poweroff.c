/* SPDX-License-Identifier: MIT */
/*
 * Switching the machine off at the end of a run where no exit device did
 * (arch_exit() in start.c decides the order):
 *
 *  - ACPI S5, soft off (ACPI 6.x 7.4.2 \_Sx, 4.8.3.2 PM1 control, 4.8.3.7
 *    sleep control): SLP_TYPx from \_S5 with SLP_EN, into PM1a_CNT (and
 *    PM1b_CNT) on a full ACPI platform (QEMU pc/q35: PIIX4 / ICH9 PM), or
 *    into the sleep control register on a hardware-reduced one (Cloud
 *    Hypervisor, QEMU microvm's GED). boot/acpi.c read the registers.
 *  - The i8042's pulse of the reset line (command FEH to port 64H): a
 *    reboot on a PC, and Firecracker's only guest-initiated exit.
 */
#include "x86.h"

#define PM1_SLP_TYP_SHIFT 10
#define PM1_SLP_TYP_MASK  (7u << 10)
#define PM1_SLP_EN	  (1u << 13)
#define SLEEP_TYP_SHIFT	  2
#define SLEEP_EN	  (1u << 5)
#define I8042_COMMAND	  0x64
#define I8042_STATUS	  0x64
#define I8042_IN_FULL	  0x02
#define I8042_PULSE_RESET 0xFE
#define SETTLE_POLLS	  1000000

static uint32_t reg_read(const struct acpi_reg *r)
{
	if (r->space == ACPI_SPACE_IO)
		return r->bits == 8 ? inb((uint16_t)r->addr) : inw((uint16_t)r->addr);
	volatile const void *p = (volatile const void *)(uintptr_t)r->addr;
	return r->bits == 8 ? *(volatile const uint8_t *)p : *(volatile const uint16_t *)p;
}

static void reg_write(const struct acpi_reg *r, uint32_t v)
{
	if (r->space == ACPI_SPACE_IO) {
		if (r->bits == 8)
			outb((uint16_t)r->addr, (uint8_t)v);
		else
			outw((uint16_t)r->addr, (uint16_t)v);
		return;
	}
	volatile void *p = (volatile void *)(uintptr_t)r->addr;
	if (r->bits == 8)
		*(volatile uint8_t *)p = (uint8_t)v;
	else
		*(volatile uint16_t *)p = (uint16_t)v;
}

/* PM1x_CNT keeps its other bits (SCI_EN...): read, replace SLP_TYP, set
 * SLP_EN. */
static void pm1_sleep(const struct acpi_reg *r, uint8_t typ)
{
	if (!r->addr)
		return;
	uint32_t v = reg_read(r) & ~(PM1_SLP_TYP_MASK | PM1_SLP_EN);
	reg_write(r, v | (uint32_t)typ << PM1_SLP_TYP_SHIFT | PM1_SLP_EN);
}

static void settle(void)
{
	for (int i = 0; i < SETTLE_POLLS; i++)
		cpu_relax();
}

void x86_acpi_power_off(const struct acpi_poweroff *p)
{
	if (!p->have_s5)
		return;
	if (p->sleep_control.addr) {
		struct acpi_reg r = p->sleep_control;
		r.bits = 8; /* an 8-bit register (4.8.3.7) */
		reg_write(&r, (uint32_t)p->slp_typ_a << SLEEP_TYP_SHIFT | SLEEP_EN);
		settle();
	}
	if (!p->hw_reduced) {
		pm1_sleep(&p->pm1a_cnt, p->slp_typ_a);
		pm1_sleep(&p->pm1b_cnt, p->slp_typ_b);
		settle();
	}
}

void x86_i8042_reset(void)
{
	for (int i = 0; i < SETTLE_POLLS && (inb(I8042_STATUS) & I8042_IN_FULL); i++)
		cpu_relax();
	outb(I8042_COMMAND, I8042_PULSE_RESET);
	settle();
}
