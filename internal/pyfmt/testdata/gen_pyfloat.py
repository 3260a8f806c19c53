#!/usr/bin/python3
"""Generates pyfloat_repr.json, Python's repr() of float64 values, for
pyfmt_test.go. Run from this directory with CPython 3.11
(/usr/bin/python3 on the project machine):

    /usr/bin/python3 gen_pyfloat.py > pyfloat_repr.json

Each line holds the IEEE-754 bits in hex and repr(float).
"""
import json
import math
import random
import struct
import sys

rng = random.Random(20261130)


def bits(f):
    return struct.unpack("<Q", struct.pack("<d", f))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


vals = [0.0, -0.0, 0.1 + 0.2, 1e16, 1.5e16, 123456789012345680.0, 1e-5,
        1e-4, 5e-324, -5e-324, 1.7976931348623157e308, 2.2250738585072014e-308,
        100.0, -1.0, 0.5, 10.0, 1e15, 9999999999999998.0, 1e22, 1e23,
        0.0001, 0.00011, 0.00009999999999999999, 99.9, 33.3, 1 / 3, 2 / 3,
        636.0, 54.099999999999994, 0.625, 0.375]
# Neighbours of the notation boundaries.
for edge in [1e-5, 1e-4, 1e16, 1e15, 1.0, 0.1]:
    b = bits(edge)
    for d in range(-3, 4):
        vals.append(from_bits(b + d))
for _ in range(600):  # arbitrary bit patterns (finite)
    while True:
        f = from_bits(rng.getrandbits(64))
        if math.isfinite(f):
            vals.append(f)
            break
for _ in range(600):  # short decimals at every magnitude
    vals.append(round(rng.random(), rng.randint(1, 17)) * 10.0 ** rng.randint(-12, 22))
for _ in range(200):  # integral values
    vals.append(float(rng.randint(-10**18, 10**18)))
sys.stdout.write("[\n")
sys.stdout.write(",\n".join(json.dumps(["%016x" % bits(v), repr(v)]) for v in vals))
sys.stdout.write("\n]\n")
