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
	static EFI_GUID loaded_image = EFI_LOADED_IMAGE_PROTOCOL_GUID;
	static EFI_GUID simple_fs = EFI_SIMPLE_FILE_SYSTEM_PROTOCOL_GUID;
	EFI_BOOT_SERVICES *bs = efi_bs;

	if (EFI_ERROR(bs->HandleProtocol(image, &loaded_image, (void **)&li)) || !li ||
	    !li->DeviceHandle)
		return NULL;
	if (EFI_ERROR(bs->HandleProtocol(li->DeviceHandle, &simple_fs, (void **)&fs)) || !fs)
		return NULL;
	if (EFI_ERROR(fs->OpenVolume(fs, &root)))
		return NULL;
	return root;
}

/* The file's size from EFI_FILE_INFO (UEFI 2.x, 13.5 "EFI_FILE_PROTOCOL.GetInfo"). */
static bool file_size(EFI_FILE_HANDLE f, UINT64 *size)
{
	static EFI_GUID file_info = EFI_FILE_INFO_ID;
	UINTN n = 0;
	if (f->GetInfo(f, &file_info, &n, NULL) != EFI_BUFFER_TOO_SMALL)
		return false;
	EFI_FILE_INFO *info = efi_alloc(n);
	bool ok = info && !EFI_ERROR(f->GetInfo(f, &file_info, &n, info));
	if (ok)
		*size = info->FileSize;
	efi_free(info);
	return ok;
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
	UINT64 len = 0;
	if (!file_size(f, &len)) {
		f->Close(f);
		*err = "options file: cannot read its size";
		return NULL;
	}
	if (len > max_size) {
		f->Close(f);
		*err = "options file larger than 64 KiB; ignored";
		return NULL;
	}
	char *buf = efi_alloc(len + 1);
	if (!buf) {
		f->Close(f);
		*err = "options file: out of memory";
		return NULL;
	}
	UINTN got = len;
	s = f->Read(f, &got, buf);
	f->Close(f);
	if (EFI_ERROR(s) || got != len) {
		efi_free(buf);
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
