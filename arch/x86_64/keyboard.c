/* SPDX-License-Identifier: MIT */
/*
 * The keyboard, polled: the 8042 controller's output buffer (status port
 * 64H bit 0 full, bit 5 set when the byte is from the mouse; data port 60H).
 * A scan code below 80H is a key press (set 1, what the controller hands
 * over with translation on; a break code has bit 7 set, and a set-2 F0H
 * prefix is above it too). After ExitBootServices only a PS/2 keyboard, or
 * a USB one the firmware still emulates as one, answers here; a machine
 * without the controller reads FFH from the status port.
 */
#include "x86.h"

#define I8042_DATA	  0x60
#define I8042_STATUS	  0x64
#define STATUS_OUT_FULL	  0x01
#define STATUS_FROM_MOUSE 0x20

enum arch_key arch_key_poll(void)
{
	uint8_t st = inb(I8042_STATUS);
	if (st == 0xFF)
		return ARCH_KEY_NO_KEYBOARD;
	bool pressed = false;
	/* Drain what is there (bounded), noting any key press. */
	for (int i = 0; i < 16 && (st & STATUS_OUT_FULL); i++, st = inb(I8042_STATUS)) {
		uint8_t code = inb(I8042_DATA);
		if (!(st & STATUS_FROM_MOUSE) && code < 0x80)
			pressed = true;
	}
	return pressed ? ARCH_KEY_PRESSED : ARCH_KEY_NONE;
}
