/* SPDX-License-Identifier: MIT */
/*
 * What the loader hands the kernel. On the machine a front end of boot/
 * fills it (boot/uefi before ExitBootServices, boot/direct from what the VMM
 * gave); on the simulator arch/sim fills it from the command line.
 * Everything in it is plain data: nothing here calls firmware.
 */
#ifndef PMUTEST_BOOT_INFO_H
#define PMUTEST_BOOT_INFO_H

#include <stddef.h>
#include <stdint.h>

struct boot_framebuffer {
	uint64_t base; /* 0 when there is no GOP framebuffer */
	uint32_t width, height, pixels_per_scanline;
	uint32_t bgr; /* 1 for PixelBlueGreenRedReserved8BitPerColor */
};

/* Whether the firmware enforced image signatures for this boot (UEFI
 * SecureBoot variable, read before ExitBootServices). */
enum boot_secure_boot {
	BOOT_SECURE_BOOT_UNKNOWN,     /* not read (simulator, direct boot) */
	BOOT_SECURE_BOOT_UNSUPPORTED, /* firmware without Secure Boot */
	BOOT_SECURE_BOOT_OFF,
	BOOT_SECURE_BOOT_ON,
};

struct boot_info {
	/* Options text (pmutest.cfg): config_len bytes (a NUL byte in them is an
	 * error of the file, not its end), NULL when absent. The kernel parses it
	 * (kernel/options.c) and reports malformed lines. */
	const char *config_text;
	size_t config_len;
	/* Set when the options file exists but could not be read: an error of
	 * the run (verdict ERROR), not a reason to run with the defaults. */
	const char *config_error;
	const char *config_source; /* where it came from, for messages */

	/* A report saved by a previous run that boot/ wrote to the medium, or
	 * a message about it (NULL when none). */
	const char *boot_message;
	/* What the front end has to say about the hand-over itself (how the
	 * ACPI tables were found, what it ignored, what this kind of boot
	 * lacks), NULL when nothing. */
	const char *boot_notes;

	uint64_t lapic_phys;	   /* from the ACPI MADT; 0 when unknown */
	uint64_t usable_memory;	   /* bytes of EfiConventionalMemory */
	uint32_t memory_map_count; /* descriptors in the firmware map */
	struct boot_framebuffer fb;
	const char *firmware_vendor; /* UTF-8/ASCII copy, may be NULL */
	uint64_t tsc_at_entry;	     /* TSC on entry to the loader */
	enum boot_secure_boot secure_boot;
	/* Whether code ran between reset and pmutest that could have written
	 * the PMU's MSRs: only with BOOT_NO_FIRMWARE are the values pmutest
	 * reads at hand-over the CPU's reset values (cpuid.global_ctrl_reset_
	 * value); firmware_why says how the front end knows. A kernel that
	 * handed the machine over (kexec from Linux) is like a firmware: what
	 * it left is its state, not the CPU's; previous_kernel names it
	 * ("Linux 6.1.0-26-amd64 (kexec)"). */
	enum boot_firmware {
		BOOT_FIRMWARE_MAY_HAVE_RUN,
		BOOT_NO_FIRMWARE,
		BOOT_PREVIOUS_KERNEL,
	} firmware;
	const char *firmware_why;
	const char *previous_kernel; /* BOOT_PREVIOUS_KERNEL only */
};

/* The kernel's entry point, called by the arch once the environment is up. */
__attribute__((noreturn)) void kernel_main(const struct boot_info *bi);

#endif
