#!/usr/bin/env python3
"""Writes the malformed .npy files of tests/bad_inputs/npy/ (committed; run again to
regenerate). Plain struct, no NumPy, so that every byte is the one meant.

Each file stands for a 3-element int32 tensor, as the case files that name it declare.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MAGIC = b"\x93NUMPY"
DATA = struct.pack("<3i", 1, 2, 3)


def header(text, major=1):
    """magic + version + length + header text, padded to 64 bytes and ending in newline."""
    prefix = 10 if major == 1 else 12
    body = text.encode("latin-1")
    pad = (64 - (prefix + len(body) + 1) % 64) % 64
    body += b" " * pad + b"\n"
    size = struct.pack("<H", len(body)) if major == 1 else struct.pack("<I", len(body))
    return MAGIC + bytes([major, 0]) + size + body


def dict_header(descr="<i4", fortran=False, shape="(3,)", major=1):
    return header("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape), major)


FILES = {
    # The valid file the others are variations of (a case reading it passes).
    "good.npy": dict_header() + DATA,
    "wrong_magic.npy": b"\x93NUMPX" + dict_header()[6:] + DATA,
    "not_npy_text.npy": b"{'this is': 'not a .npy file'}\n",
    "empty.npy": b"",
    "bad_header_garbage.npy": header("\x00\x01garbage, not a dict") + DATA,
    "bad_header_no_shape.npy": header("{'descr': '<i4', 'fortran_order': False, }") + DATA,
    "bad_header_negative_dim.npy": dict_header(shape="(-3,)") + DATA,
    "bad_header_absurd_dim.npy": dict_header(shape="(99999999999999999999999,)") + DATA,
    "bad_header_dim_overflow.npy": dict_header(shape="(4294967296, 4294967296, 4)") + DATA,
    "bad_header_length.npy": MAGIC + b"\x01\x00" + struct.pack("<H", 60000) + b"{'descr': '<i4'",
    "bad_version.npy": MAGIC + b"\x09\x00" + dict_header()[8:] + DATA,
    # A 60000-character descr: a header reader must not recurse once per character.
    "bad_header_long_descr.npy": dict_header(descr="<" + "i" * 60000) + DATA,
    "bad_header_long_shape.npy": dict_header(shape="(" + "3, " * 20000 + ")") + DATA,
    "wrong_dtype.npy": dict_header(descr="<f8") + struct.pack("<3d", 1, 2, 3),
    "big_endian.npy": dict_header(descr=">i4") + struct.pack(">3i", 1, 2, 3),
    "fortran_order.npy": dict_header(fortran=True) + DATA,
    "wrong_shape.npy": dict_header(shape="(4,)") + DATA + struct.pack("<i", 4),
    "truncated_data.npy": dict_header() + DATA[:7],
    "extra_data.npy": dict_header() + DATA + b"\x00" * 4,
    "truncated_header.npy": dict_header()[:30],
    "v3_truncated_length.npy": MAGIC + b"\x03\x00\x10",
}

if __name__ == "__main__":
    for name, data in FILES.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
