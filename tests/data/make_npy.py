#!/usr/bin/env python3
"""Writes the small .npy fixtures of tests/test_npy.cpp with NumPy itself.

Run from anywhere: python3 tests/data/make_npy.py (writes into tests/data/npy/).
"""

import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent / "npy"


def save(name, array):
    np.save(OUT / name, array, allow_pickle=False)
    return (OUT / name).read_bytes()


def main():
    OUT.mkdir(exist_ok=True)
    good = save("f32_2x3.npy", np.arange(6, dtype="<f4").reshape(2, 3))
    save("i8_4.npy", np.array([-3, 0, 2**40, -(2**62)], dtype="<i8"))
    save("f16_3.npy", np.array([1.0, -0.0, 2.0**-24], dtype="<f2"))
    save("bool_4.npy", np.array([True, False, False, True]))
    save("i8_scalar.npy", np.array(2, dtype="<i8"))
    save("f32_2x0.npy", np.zeros((2, 0), dtype="<f4"))
    save("fortran_2x2.npy", np.asfortranarray(np.arange(4, dtype="<f4").reshape(2, 2)))
    save("big_endian_f4.npy", np.arange(3, dtype=">f4"))
    (OUT / "truncated_data.npy").write_bytes(good[:-4])
    (OUT / "truncated_header.npy").write_bytes(good[:40])
    (OUT / "bad_magic.npy").write_bytes(b"\x93NUMPX" + good[6:])


if __name__ == "__main__":
    main()
