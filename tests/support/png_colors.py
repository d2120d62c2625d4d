#!/usr/bin/env python3
"""png_colors.py -- count the pixels of a PNG near given colours.

usage: png_colors.py [--tolerance N] FILE.png RRGGBB [RRGGBB...]

Prints one line per colour, "RRGGBB COUNT": the pixels whose every channel
is within N (default 32) of that colour (antialiased edges of a box still
count; a pure block of it is thousands). Alpha is ignored. Exit 2 when the
file is not a PNG this reads: 8-bit greyscale, RGB, palette, grey+alpha or
RGBA, not interlaced (what Chromium's Page.captureScreenshot writes).
Standard library only (zlib), so the C tests can call it with python3.
"""
import struct
import sys
import zlib


def fail(msg):
    sys.stderr.write("png_colors.py: %s\n" % msg)
    sys.exit(2)


def chunks(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG")
    pos = 8
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + n]
        pos += 12 + n


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def add_bytes(x, y, lo, hi):
    """x + y per byte, modulo 256 (no carries across bytes)."""
    a, b = int.from_bytes(x, "big"), int.from_bytes(y, "big")
    return (((a & lo) + (b & lo)) ^ ((a ^ b) & hi)).to_bytes(len(x), "big")


def planes(path):
    """Yields each row as three byte strings: its red, green, blue values."""
    with open(path, "rb") as f:
        data = f.read()
    ihdr, idat, plte = None, [], b""
    for kind, body in chunks(data):
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"PLTE":
            plte = body
    if not ihdr:
        fail("no IHDR")
    width, height, depth, ctype, _, _, interlace = ihdr
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        fail("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, ctype, interlace))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    lo, hi = int.from_bytes(b"\x7f" * stride, "big"), int.from_bytes(b"\x80" * stride, "big")
    pal = [bytes(plte[k::3]).ljust(256, b"\0") for k in range(3)] if ctype == 3 else None
    prev = bytes(stride)
    pos = 0
    for _ in range(height):
        ftype = raw[pos]
        line = raw[pos + 1:pos + 1 + stride]
        pos += 1 + stride
        if ftype == 2:  # up: most rows of a screenshot, done without a loop
            line = add_bytes(line, prev, lo, hi)
        elif ftype in (1, 3, 4):
            out = bytearray(line)
            for i in range(stride):
                a = out[i - channels] if i >= channels else 0
                b = prev[i]
                if ftype == 1:
                    out[i] = (out[i] + a) & 255
                elif ftype == 3:
                    out[i] = (out[i] + ((a + b) >> 1)) & 255
                else:
                    out[i] = (out[i] + paeth(a, b, prev[i - channels] if i >= channels else 0)) & 255
            line = bytes(out)
        elif ftype != 0:
            fail("bad filter type %d" % ftype)
        prev = line
        if ctype in (2, 6):
            yield line[0::channels], line[1::channels], line[2::channels]
        elif ctype == 3:
            yield line.translate(pal[0]), line.translate(pal[1]), line.translate(pal[2])
        else:
            grey = line[0::channels]
            yield grey, grey, grey


def near(value, tol):
    """A bytes.translate table: 1 for the byte values within tol of value."""
    return bytes(1 if abs(v - value) <= tol else 0 for v in range(256))


def main(argv):
    tol = 32
    if len(argv) > 2 and argv[1] == "--tolerance":
        tol = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) < 3:
        fail("usage: png_colors.py [--tolerance N] FILE.png RRGGBB...")
    want = []
    for hexc in argv[2:]:
        try:
            want.append((hexc, tuple(int(hexc[i:i + 2], 16) for i in (0, 2, 4))))
        except ValueError:
            fail("not a colour: %s" % hexc)
    counts = [0] * len(want)
    tables = [[near(v, tol) for v in c] for _, c in want]
    for rgb in planes(argv[1]):
        for k, t in enumerate(tables):
            hit = (int.from_bytes(rgb[0].translate(t[0]), "big") & int.from_bytes(rgb[1].translate(t[1]), "big")
                   & int.from_bytes(rgb[2].translate(t[2]), "big"))
            counts[k] += bin(hit).count("1")
    for (hexc, _), n in zip(want, counts):
        print("%s %d" % (hexc, n))


if __name__ == "__main__":
    main(sys.argv)
