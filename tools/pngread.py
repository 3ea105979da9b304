# SPDX-License-Identifier: MIT
"""Read a PNG file into pixels with the standard library only (zlib): the
8-bit, non-interlaced greyscale, RGB and RGBA images a browser's screenshot
is. Enough to check a screenshot, not a general decoder."""

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples a pixel


class PngError(Exception):
    pass


class Image:
    def __init__(self, width, height, channels, rows):
        self.width, self.height, self.channels, self.rows = width, height, channels, rows

    def pixel(self, x, y):
        """(r, g, b) at x, y."""
        c = self.channels
        px = self.rows[y][x * c:(x + 1) * c]
        if c in (1, 2):
            return (px[0], px[0], px[0])
        return tuple(px[:3])


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read(path, max_bytes=64 << 20):
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise PngError(f"cannot read {path}: {e.strerror}")
    if len(data) > max_bytes or not data.startswith(SIGNATURE):
        raise PngError(f"{path}: not a PNG file")
    pos, idat, ihdr = len(SIGNATURE), [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if ihdr is None:
        raise PngError(f"{path}: no IHDR chunk")
    width, height, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in CHANNELS or interlace:
        raise PngError(f"{path}: depth {depth}, colour type {ctype}, interlace {interlace}: not read here")
    if width * height > 64 << 20:
        raise PngError(f"{path}: {width}x{height} is too large")
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        raise PngError(f"{path}: bad image data ({e})")
    bpp = CHANNELS[ctype]
    stride = width * bpp
    if len(raw) != height * (stride + 1):
        raise PngError(f"{path}: {len(raw)} bytes of pixels for {width}x{height}")
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                upleft = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + _paeth(left, prev[i], upleft)) & 0xFF
        elif ftype != 0:
            raise PngError(f"{path}: row {y} has filter {ftype}")
        rows.append(line)
        prev = line
    return Image(width, height, bpp, rows)
