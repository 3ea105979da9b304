#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Add a variable to an OVMF variable store image, offline.

usage: tools/ovmf-vars.py add-mok VARS CERT.der
       tools/ovmf-vars.py fill VARS FREE_BYTES
       tools/ovmf-vars.py list VARS

add-mok appends shim's MokList (NV+BS, shim's GUID) holding one X.509
certificate: the state a user's one-time MokManager enrolment leaves
(docs/booting.md "Secure Boot"), so that `make test` boots the shim layout without a
person at the keyboard. The store is EDK II's authenticated variable store
(MdeModulePkg/Include/Guid/VariableFormat.h): after the firmware volume
header, a VARIABLE_STORE_HEADER, then 4-byte aligned variables, each an
AUTHENTICATED_VARIABLE_HEADER (StartId 55AAH, State 3FH = added), its
UCS-2 name and its data; the free space is FFH bytes. fill adds variables (PmutestFillNNN, 4000
bytes or less each) until FREE_BYTES of the store are left: a store too
full for a report, as a firmware's may be. Exit status 0 done,
1 the store has no room or is not one, 2 usage.
"""
import struct
import sys
import uuid

AUTH_STORE = uuid.UUID("aaf32c78-947b-439a-a180-2e144ec37792")
SHIM_LOCK = uuid.UUID("605dab50-e046-4300-abb6-3dd810dd8b23")
CERT_X509 = uuid.UUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072")
START_ID, VAR_ADDED = 0x55AA, 0x3F
NV, BS = 0x1, 0x2
# StartId, State, Reserved, Attributes, MonotonicCount, TimeStamp (EFI_TIME,
# 16 bytes), PubKeyIndex, NameSize, DataSize, VendorGuid.
HEADER = struct.Struct("<HBBIQ16sIII16s")


def store_of(img):
    """Offset and size of the variable store inside the firmware volume."""
    if img[40:44] != b"_FVH":
        raise ValueError("no firmware volume header")
    fv_header_len = struct.unpack_from("<H", img, 48)[0]
    guid = uuid.UUID(bytes_le=bytes(img[fv_header_len:fv_header_len + 16]))
    if guid != AUTH_STORE:
        raise ValueError(f"not an authenticated variable store ({guid})")
    size = struct.unpack_from("<I", img, fv_header_len + 16)[0]
    return fv_header_len, size


def variables(img):
    base, size = store_of(img)
    off = base + 28
    while off + HEADER.size <= base + size:
        start, state, _, attrs, _, _, _, nsize, dsize, guid = HEADER.unpack_from(img, off)
        if start != START_ID:
            return
        name = bytes(img[off + HEADER.size:off + HEADER.size + nsize]).decode("utf-16-le")
        yield off, state, attrs, name.rstrip("\0"), uuid.UUID(bytes_le=guid), dsize
        off += HEADER.size + nsize + dsize
        off = (off + 3) & ~3


def end_of_vars(img):
    base, size = store_of(img)
    off = base + 28
    while off + HEADER.size <= base + size:
        start, _, _, _, _, _, _, nsize, dsize, _ = HEADER.unpack_from(img, off)
        if start != START_ID:
            return off, base + size
        off = (off + HEADER.size + nsize + dsize + 3) & ~3
    return off, base + size


def add_variable(img, name, guid, attrs, data):
    off, end = end_of_vars(img)
    raw_name = (name + "\0").encode("utf-16-le")
    need = HEADER.size + len(raw_name) + len(data)
    if off + need > end or any(b != 0xFF for b in img[off:off + need]):
        raise ValueError("no room in the variable store")
    img[off:off + HEADER.size] = HEADER.pack(START_ID, VAR_ADDED, 0, attrs, 0, bytes(16), 0,
                                             len(raw_name), len(data), guid.bytes_le)
    img[off + HEADER.size:off + need] = raw_name + data


FILL_GUID = uuid.UUID("706d7574-6573-7421-9a3c-46696c6c6572")


def fill(img, free):
    n = 0
    while True:
        off, end = end_of_vars(img)
        left = end - off - free
        name = f"PmutestFill{n:03d}"
        cost = HEADER.size + 2 * (len(name) + 1)
        if left < cost + 1:
            return n
        size = min(4000, left - cost)
        add_variable(img, name, FILL_GUID, NV | BS | 0x4, bytes([0x5A]) * size)
        img_end = end_of_vars(img)[0]
        assert img_end > off
        n += 1


def mok_list(der):
    """EFI_SIGNATURE_LIST of one EFI_CERT_X509 entry (UEFI 2.x, 32.4.1), owned
    by shim's GUID as MokManager enrols it."""
    entry = SHIM_LOCK.bytes_le + der
    return CERT_X509.bytes_le + struct.pack("<III", 28 + len(entry), 0, len(entry)) + entry


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "add-mok":
        img = bytearray(open(sys.argv[2], "rb").read())
        der = open(sys.argv[3], "rb").read()
        if der[:1] != b"\x30":
            print("ovmf-vars: the certificate must be DER", file=sys.stderr)
            sys.exit(2)
        try:
            if any(n == "MokList" and g == SHIM_LOCK and s == VAR_ADDED
                   for _, s, _, n, g, _ in variables(img)):
                raise ValueError("MokList is already there")
            add_variable(img, "MokList", SHIM_LOCK, NV | BS, mok_list(der))
        except ValueError as e:
            print(f"ovmf-vars: {sys.argv[2]}: {e}", file=sys.stderr)
            sys.exit(1)
        open(sys.argv[2], "wb").write(img)
        print(f"ovmf-vars: MokList with one certificate ({len(der)} bytes) added to {sys.argv[2]}")
    elif len(sys.argv) == 4 and sys.argv[1] == "fill":
        img = bytearray(open(sys.argv[2], "rb").read())
        try:
            n = fill(img, int(sys.argv[3]))
        except ValueError as e:
            print(f"ovmf-vars: {sys.argv[2]}: {e}", file=sys.stderr)
            sys.exit(1)
        open(sys.argv[2], "wb").write(img)
        off, end = end_of_vars(img)
        print(f"ovmf-vars: {n} filler variables added; {end - off} bytes of the store left")
    elif len(sys.argv) == 3 and sys.argv[1] == "list":
        img = open(sys.argv[2], "rb").read()
        for off, state, attrs, name, guid, dsize in variables(img):
            print(f"{off:#08x} state {state:#04x} attrs {attrs:#x} {guid} {name} ({dsize} bytes)")
    else:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
