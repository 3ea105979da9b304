/* SPDX-License-Identifier: MIT */
/* The image's RELR relocations (boot/uefi/relocate.c): call first in efi_main. */
#ifndef PMUTEST_EFI_RELOCATE_H
#define PMUTEST_EFI_RELOCATE_H

void efi_apply_relr(void);

#endif
