#!/usr/bin/env python3
"""Helpers of the checkpoint/restart CLI tests (tests/cli/checkpoint.sh); numpy + h5py.

  h5tool.py same A.h5 B.h5             every /fields dataset identical (bytes)
  h5tool.py close A.h5 B.h5 TOL        every component of every /fields dataset: max|a-b| / max|b| <= TOL
  h5tool.py history A.csv B.csv        rows of B equal (bitwise, all but wall-clock columns) the rows of A
                                       with the same step
  h5tool.py flip FILE DATASET          flip one bit in the raw bytes of DATASET (not through HDF5)
  h5tool.py setattr FILE NAME INT      overwrite an integer root attribute
  h5tool.py setfloat FILE NAME X       overwrite a float root attribute (X: a float, also nan, -1e300)
  h5tool.py flipattr FILE NAME         flip one bit of the float root attribute NAME in the raw bytes of
                                       the file (not through HDF5: its metadata checksum then fails)
"""
import struct
import sys

import h5py
import numpy as np


def fields(path):
    with h5py.File(path, "r") as f:
        return {k: f["fields"][k][...] for k in f["fields"]}


def main(argv):
    cmd = argv[1]
    if cmd in ("same", "close"):
        a, b = fields(argv[2]), fields(argv[3])
        assert a.keys() == b.keys(), (a.keys(), b.keys())
        worst = 0.0
        for k in sorted(a):
            x, y = a[k], b[k]
            assert x.shape == y.shape, (k, x.shape, y.shape)
            if cmd == "same":
                if x.tobytes() != y.tobytes():
                    print(f"FAIL: field {k} differs: max |a-b| = {np.max(np.abs(x - y)):.3e}")
                    return 1
                continue
            x2, y2 = x.reshape(len(x), -1), y.reshape(len(y), -1)
            for c in range(x2.shape[1]):
                d = np.max(np.abs(x2[:, c] - y2[:, c])) / max(np.max(np.abs(y2[:, c])), 1e-300)
                worst = max(worst, d)
                if d > float(argv[4]):
                    print(f"FAIL: field {k} component {c}: relative difference {d:.3e} > {argv[4]}")
                    return 1
        print(f"OK: {len(a)} fields {'identical' if cmd == 'same' else f'agree, worst relative difference {worst:.3e}'}")
        return 0
    if cmd == "history":
        a = np.genfromtxt(argv[2], delimiter=",", names=True)
        b = np.genfromtxt(argv[3], delimiter=",", names=True)
        cols = [c for c in a.dtype.names if c != "wall_time"]
        rows = {int(r["step"]): r for r in a}
        n = 0
        for r in np.atleast_1d(b):
            ra = rows[int(r["step"])]
            for c in cols:
                if ra[c].tobytes() != r[c].tobytes():
                    print(f"FAIL: history step {int(r['step'])} column {c}: {ra[c]!r} vs {r[c]!r}")
                    return 1
            n += 1
        print(f"OK: {n} history rows identical")
        return 0
    if cmd == "flip":
        with h5py.File(argv[2], "r") as f:
            d = f[argv[3]]
            offset, nbytes = d.id.get_offset(), d.id.get_storage_size()
        with open(argv[2], "r+b") as f:
            f.seek(offset + nbytes // 2)
            byte = f.read(1)[0]
            f.seek(offset + nbytes // 2)
            f.write(bytes([byte ^ 0x10]))
        print(f"flipped a bit of {argv[3]} at byte {offset + nbytes // 2}")
        return 0
    if cmd == "setattr":
        with h5py.File(argv[2], "r+") as f:
            f.attrs.modify(argv[3], np.int64(argv[4]))
        return 0
    if cmd == "setfloat":
        with h5py.File(argv[2], "r+") as f:
            f.attrs.modify(argv[3], np.float64(float(argv[4])))
        return 0
    if cmd == "flipattr":
        with h5py.File(argv[2], "r") as f:
            value = float(f.attrs[argv[3]])
        raw = open(argv[2], "rb").read()
        pattern = struct.pack("<d", value)
        at = raw.find(pattern)
        if at < 0 or raw.find(pattern, at + 1) >= 0:
            print(f"the bytes of {argv[3]} = {value!r} are not found exactly once in {argv[2]}")
            return 1
        with open(argv[2], "r+b") as f:
            f.seek(at)
            f.write(bytes([raw[at] ^ 0x01]))
        print(f"flipped a bit of attribute {argv[3]} at byte {at}")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
