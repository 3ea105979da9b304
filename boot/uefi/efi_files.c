/* SPDX-License-Identifier: MIT */
/*
 * Files on the boot volume (the FAT file system the image was loaded from):
 * the options file in, a saved report out.
 */
#include "efi_boot.h"

EFI_FILE_HANDLE efi_boot_volume(EFI_HANDLE image)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_SIMPLE_FILE_SYSTEM_PROTOCOL *fs = NULL;
	EFI_FILE_HANDLE root = NULL;
	EFI_BOOT_SERVICES *bs = gBS;

	if (EFI_ERROR(bs->HandleProtocol(image, &gEfiLoadedImageProtocolGuid, (void **)&li)) ||
	    !li || !li->DeviceHandle)
		return NULL;
	if (EFI_ERROR(bs->HandleProtocol(li->DeviceHandle, &gEfiSimpleFileSystemProtocolGuid,
					 (void **)&fs)) ||
	    !fs)
		return NULL;
	if (EFI_ERROR(fs->OpenVolume(fs, &root)))
		return NULL;
	return root;
}

char *efi_read_file(EFI_FILE_HANDLE root, const CHAR16 *path, UINTN max_size, UINTN *size,
		    const char **err)
{
	EFI_FILE_HANDLE f = NULL;
	EFI_STATUS s;

	*err = NULL;
	*size = 0;
	s = root->Open(root, &f, (CHAR16 *)path, EFI_FILE_MODE_READ, 0);
	if (s == EFI_NOT_FOUND)
		return NULL;
	if (EFI_ERROR(s)) {
		*err = "options file present but cannot be opened";
		return NULL;
	}
	EFI_FILE_INFO *info = LibFileInfo(f);
	if (!info) {
		f->Close(f);
		*err = "options file: cannot read its size";
		return NULL;
	}
	UINT64 len = info->FileSize;
	FreePool(info);
	if (len > max_size) {
		f->Close(f);
		*err = "options file larger than 64 KiB; ignored";
		return NULL;
	}
	char *buf = AllocatePool(len + 1);
	if (!buf) {
		f->Close(f);
		*err = "options file: out of memory";
		return NULL;
	}
	UINTN got = len;
	s = f->Read(f, &got, buf);
	f->Close(f);
	if (EFI_ERROR(s) || got != len) {
		FreePool(buf);
		*err = "options file: read error";
		return NULL;
	}
	buf[got] = 0;
	*size = got;
	return buf;
}

EFI_STATUS efi_create_file(EFI_FILE_HANDLE root, const CHAR16 *dir, const CHAR16 *name,
			   const void *data, UINTN len)
{
	EFI_FILE_HANDLE d = NULL, f = NULL;
	EFI_STATUS s;

	s = root->Open(root, &d, (CHAR16 *)dir,
		       EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE,
		       EFI_FILE_DIRECTORY);
	if (EFI_ERROR(s))
		return s;
	/* Never replace an earlier report: a name in use is the caller's to
	 * change. */
	if (!EFI_ERROR(d->Open(d, &f, (CHAR16 *)name, EFI_FILE_MODE_READ, 0))) {
		f->Close(f);
		d->Close(d);
		return EFI_ACCESS_DENIED;
	}
	f = NULL;
	s = d->Open(d, &f, (CHAR16 *)name,
		    EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, 0);
	if (!EFI_ERROR(s)) {
		UINTN n = len;
		s = f->Write(f, &n, (void *)data);
		if (!EFI_ERROR(s) && n != len)
			s = EFI_DEVICE_ERROR;
		EFI_STATUS c = f->Close(f); /* flushes */
		if (!EFI_ERROR(s))
			s = c;
	}
	d->Close(d);
	return s;
}
