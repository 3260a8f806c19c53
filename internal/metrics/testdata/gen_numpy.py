#!/usr/bin/python3
"""Generates numpy_stats.json, the NumPy reference values for stats_test.go.

Run with Debian's python3-numpy 1.24.2 (/usr/bin/python3 on the project
machine), from this directory:

    /usr/bin/python3 gen_numpy.py > numpy_stats.json

The input vectors are not stored: both this script and stats_test.go derive
them from the same 64-bit LCG using only exactly-rounded IEEE operations
(integer scaling by 2**-53, one multiplication or addition by a literal),
so Go and Python build bit-identical inputs. Only NumPy's results are
stored, written with repr(), which round-trips exactly.
"""
import json
import sys

import numpy as np

MASK = (1 << 64) - 1
POW10 = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6]
KINDS = ["latency", "itl", "signed", "wide", "ints"]
SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 127, 128,
         129, 130, 135, 200, 255, 256, 257, 1000, 1001, 1024, 1025, 4097,
         8192, 8193, 10000, 16385, 20011, 100003]
PS = [0.0, 1.0, 12.5, 25.0, 33.3, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9,
      99.99, 100.0]


class LCG:
    def __init__(self, seed):
        self.x = seed & MASK

    def next(self):
        self.x = (self.x * 6364136223846793005 + 1442695040888963407) & MASK
        return self.x

    def unit(self):
        return float(self.next() >> 11) * 2.0**-53


def vector(kind, n, seed):
    g = LCG(seed)
    out = []
    for _ in range(n):
        if kind == "latency":  # skewed positive seconds, like TTFTs
            u = g.unit()
            out.append(0.01 + (u * u) * 2.0)
        elif kind == "itl":  # small gaps
            out.append(g.unit() * 0.05)
        elif kind == "signed":  # negative and positive values
            out.append((g.unit() - 0.5) * 3.0)
        elif kind == "wide":  # 12 decades: stresses the summation order
            u = g.unit()
            out.append(u * POW10[g.next() % len(POW10)])
        elif kind == "ints":  # many ties
            out.append(float(g.next() % 5))
    return out


cases = []
for ki, kind in enumerate(KINDS):
    for n in SIZES:
        seed = ki * 1000003 + n
        a = np.array(vector(kind, n, seed))
        cases.append({
            "kind": kind,
            "n": n,
            "seed": seed,
            "mean": float(np.mean(a)),
            "std": float(np.std(a)),
            "median": float(np.median(a)),
            "percentiles": [float(np.percentile(a, p)) for p in PS],
        })
# One case per line keeps diffs of the fixture readable.
sys.stdout.write('{"numpy": %s, "ps": %s, "cases": [\n' % (
    json.dumps(np.__version__), json.dumps(PS)))
sys.stdout.write(",\n".join(json.dumps(c) for c in cases))
sys.stdout.write("\n]}\n")
