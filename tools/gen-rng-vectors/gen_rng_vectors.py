#!/usr/bin/env python3
"""Generate the golden random-number vectors used by gobench's Go tests.

Run from the repository root with the interpreter they were made with
(CPython 3.11 and NumPy 1.24.2 from Debian on Linux/glibc x86-64; NumPy's
legacy gamma stream depends on the platform libm, so regenerate only on
Linux/glibc):

    /usr/bin/python3 tools/gen-rng-vectors/gen_rng_vectors.py

It writes
    internal/numpyrand/testdata/numpy_vectors.json   (np.random legacy + default_rng)
    internal/pyrandom/testdata/cpython_vectors.json  (random.Random)
    internal/schedule/testdata/schedule_extra.jsonl  (longer arrival schedules)

The Go tests only read these files; CI never needs Python. Floats are
written with repr() (shortest round-trip form), so json decoding in Go gives
exactly the float64 NumPy produced. Integers are written as JSON integers
(Go decodes them into int64/uint64 without going through float64).
"""

import json
import math
import os
import platform
import random
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

LEGACY_SEEDS = [0, 1, 42, 2**32 - 1]
GAMMA_SHAPES = [0.1, 0.5, 1.0, 2.0, 10.0]
GAMMA_SCALES = [1.0, 0.37]
# [low, high) pairs: tiny, signed, 31/32-bit edges (0xFFFFFFFF is a special
# raw-draw path in NumPy), just above 32 bits, 64-bit spans, the widest int64
# span, and the degenerate single-value range that consumes no draws.
INT_RANGES = [
    [0, 10],
    [-3, 3],
    [0, 1],
    [1000, 1007],
    [0, 2**31],
    [-(2**31), 2**31 - 1],
    [0, 2**32],
    [5, 2**32 + 5],
    [0, 2**32 + 1],
    [-(2**40), 2**40],
    [0, 2**62 + 12345],
    [-(2**63), 2**63 - 1],
]
N = 200
N_INT = 100
GEN_SEEDS = [0, 42, 2**40, 2**63 + 5]
LONG_N = 100_000
CHECKPOINTS = [0, 1, 999, 9_999, 49_999, 99_999]


def floats(a):
    return [float(x) for x in a]


def ints(a):
    return [int(x) for x in a]


def legacy_vectors():
    out = []
    for seed in LEGACY_SEEDS:
        entry = {"seed": seed}
        rs = np.random.RandomState(seed)
        entry["uint32"] = ints(rs._bit_generator.random_raw(N))
        np.random.seed(seed)
        entry["random_sample"] = floats(np.random.random_sample(N))
        np.random.seed(seed)
        # Odd count, drawn one by one, so the cached second deviate of the
        # polar method is exercised at both ends.
        entry["standard_normal"] = [float(np.random.standard_normal()) for _ in range(N + 1)]
        np.random.seed(seed)
        entry["standard_exponential"] = floats(np.random.standard_exponential(N))
        gam = []
        for shape in GAMMA_SHAPES:
            for scale in GAMMA_SCALES:
                np.random.seed(seed)
                vals = [float(np.random.gamma(shape, scale)) for _ in range(N)]
                gam.append({"shape": shape, "scale": scale, "values": vals})
        entry["gamma"] = gam
        ri = []
        for low, high in INT_RANGES:
            np.random.seed(seed)
            scalar = [int(np.random.randint(low, high)) for _ in range(N_INT)]
            np.random.seed(seed)
            vector = ints(np.random.randint(low, high, size=N_INT))
            ri.append({"low": low, "high": high, "scalar": scalar, "vector": vector})
        entry["randint"] = ri
        out.append(entry)
    return out


def legacy_mixed():
    """Interleaved calls: the gauss cache must survive other draws, and
    np.random.seed must clear it."""
    ops = []
    np.random.seed(7)
    seq = ["normal", "sample", "normal", "gamma2", "normal", "gamma05", "randint",
           "normal", "exp", "normal", "gamma1", "normal", "normal", "randint64",
           "seed7", "normal", "sample", "normal"]
    for op in seq:
        if op == "normal":
            ops.append({"op": op, "value": float(np.random.standard_normal())})
        elif op == "sample":
            ops.append({"op": op, "value": float(np.random.random_sample())})
        elif op == "gamma2":
            ops.append({"op": op, "value": float(np.random.gamma(2.0, 0.5))})
        elif op == "gamma05":
            ops.append({"op": op, "value": float(np.random.gamma(0.5, 3.0))})
        elif op == "gamma1":
            ops.append({"op": op, "value": float(np.random.gamma(1.0, 2.0))})
        elif op == "exp":
            ops.append({"op": op, "value": float(np.random.standard_exponential())})
        elif op == "randint":
            ops.append({"op": op, "int": int(np.random.randint(0, 100))})
        elif op == "randint64":
            ops.append({"op": op, "int": int(np.random.randint(-(2**50), 2**50))})
        elif op == "seed7":
            np.random.seed(7)
            ops.append({"op": op})
    return ops


def legacy_long():
    out = []
    for shape, scale in [(0.5, 0.4), (1.0, 0.25), (2.0, 0.125), (0.1, 1.0), (10.0, 0.01)]:
        np.random.seed(0)
        vals = [np.random.gamma(shape, scale) for _ in range(LONG_N)]
        after = ints(np.random.mtrand._rand._bit_generator.random_raw(4))
        out.append({
            "seed": 0,
            "shape": shape,
            "scale": scale,
            "n": LONG_N,
            "checkpoints": {str(i): float(vals[i]) for i in CHECKPOINTS},
            "sum": math.fsum(vals),
            "next_uint32_after": after,
        })
    return out


def generator_vectors():
    out = []
    for seed in GEN_SEEDS:
        entry = {"seed": seed}
        entry["seed_state"] = ints(np.random.SeedSequence(seed).generate_state(4, np.uint64))
        rng = np.random.default_rng(seed)
        entry["random"] = floats(rng.random(N))
        rng = np.random.default_rng(seed)
        entry["random_scalar"] = [float(rng.random()) for _ in range(N)]
        ri = []
        for low, high in INT_RANGES:
            rng = np.random.default_rng(seed)
            scalar = [int(rng.integers(low, high)) for _ in range(N_INT)]
            rng = np.random.default_rng(seed)
            vector = ints(rng.integers(low, high, size=N_INT))
            ri.append({"low": low, "high": high, "scalar": scalar, "vector": vector})
        entry["integers"] = ri
        out.append(entry)
    return out


def generator_mixed():
    """Interleaved scalar/vector/random calls. PCG64 buffers the high half of a
    64-bit output for the next 32-bit draw; the buffer must survive random()
    and calls with other ranges, and an odd-length vector leaves it full."""
    rng = np.random.default_rng(1234)
    ops = []

    def ints_op(low, high, size=None):
        if size is None:
            ops.append({"op": "int", "low": low, "high": high, "ints": [int(rng.integers(low, high))]})
        else:
            ops.append({"op": "ints", "low": low, "high": high, "ints": ints(rng.integers(low, high, size=size))})

    ints_op(0, 100)
    ops.append({"op": "random", "value": float(rng.random())})
    ints_op(0, 100)
    ints_op(0, 2**40)
    ints_op(-5, 5, 3)
    ints_op(0, 1000)
    ops.append({"op": "random", "value": float(rng.random())})
    ints_op(0, 2**33, 2)
    ints_op(7, 8, 5)
    ints_op(0, 10, 1)
    ints_op(0, 10)
    ints_op(0, 2**32, 3)
    ints_op(0, 2**63 - 1)
    ints_op(0, 3, 7)
    return ops


def generator_long():
    out = []
    for low, high in [[0, 1000], [0, 2**32 + 1], [-(2**62), 2**62]]:
        rng = np.random.default_rng(42)
        vals = rng.integers(low, high, size=LONG_N)
        out.append({
            "seed": 42,
            "low": low,
            "high": high,
            "n": LONG_N,
            "checkpoints": {str(i): int(vals[i]) for i in CHECKPOINTS},
            "sum": int(sum(int(v) for v in vals)),
            "next_random_after": float(rng.random()),
        })
    return out


def cpython_vectors():
    seeds = [0, 1, 42, 2**40, 2**63 - 1, -12345, -(2**63)]
    out = []
    for seed in seeds:
        e = {"seed": seed}
        r = random.Random(seed)
        e["random"] = [r.random() for _ in range(50)]
        gb = []
        for k in [0, 1, 7, 31, 32, 33, 53, 64]:
            r = random.Random(seed)
            gb.append({"k": k, "values": [r.getrandbits(k) for _ in range(20)]})
        e["getrandbits"] = gb
        rb = []
        for n in [1, 2, 3, 10, 1000, 2**31 + 1, 2**40 + 3]:
            r = random.Random(seed)
            rb.append({"n": n, "values": [r._randbelow(n) for _ in range(30)]})
        e["randbelow"] = rb
        sh = []
        for n in [0, 1, 2, 5, 10, 100, 1000]:
            r = random.Random(seed)
            xs = list(range(n))
            r.shuffle(xs)
            sh.append({"n": n, "perm": xs, "next_random_after": r.random()})
        e["shuffle"] = sh
        ch = []
        for n in [1, 3, 17, 1000]:
            r = random.Random(seed)
            seq = list(range(n))
            ch.append({"n": n, "indices": [r.choice(seq) for _ in range(50)]})
        e["choice"] = ch
        out.append(e)
    # The sequence vLLM's dataset loaders run: random.seed(seed);
    # random.shuffle(entries); then oversampling with random.choice.
    random.seed(0)
    xs = list(range(37))
    random.shuffle(xs)
    picks = [random.choice(xs) for _ in range(25)]
    vllm = {"seed": 0, "n": 37, "perm": xs, "choices": picks}
    return {"seeds": out, "vllm_dataset_sequence": vllm}


def schedule_extra():
    """Longer schedules than internal/schedule/testdata/schedule.jsonl, computed
    with the precomputation in vLLM's get_request (serve.py:303-343) written
    out line by line below."""
    cases = [
        (0, 1000, 8.0, 1.0, None, None, None),
        (1, 500, 3.5, 0.25, None, None, None),
        (2, 500, 20.0, 4.0, None, None, None),
        (3, 300, 2.0, 30.0, None, None, None),
        (4, 400, float("inf"), 1.0, "linear", 1, 25),
        (5, 400, float("inf"), 0.5, "exponential", 2, 40),
        (6, 200, float("inf"), 2.0, "linear", 3, 3),
        (7, 1, 5.0, 1.0, None, None, None),
        (8, 1, float("inf"), 1.0, "linear", 4, 9),
        (9, 50, float("inf"), float("inf"), "exponential", 1, 16),
        (10, 40, 7.0, float("inf"), None, None, None),
    ]
    lines = []
    for seed, n, rate, burst, strat, start, end in cases:
        np.random.seed(seed)
        rates, delays = [], []
        for i in range(n):
            if strat is not None:
                progress = i / max(n - 1, 1)
                if strat == "linear":
                    r = start + (end - start) * progress
                else:
                    r = start * ((end / start) ** progress)
            else:
                r = rate
            rates.append(r)
            if r == float("inf"):
                delays.append(0)
            elif burst == float("inf"):
                delays.append(1.0 / r)
            else:
                theta = 1.0 / (r * burst)
                delays.append(np.random.gamma(shape=burst, scale=theta))
        for i in range(1, len(delays)):
            delays[i] += delays[i - 1]
        if strat is None and delays[-1] != 0:
            target = n / rate
            f = target / delays[-1]
            delays = [d * f for d in delays]
        lines.append({
            "seed": seed,
            "num_prompts": n,
            "request_rate": str(rate),
            "burstiness": str(burst),
            "ramp_up_strategy": strat,
            "ramp_up_start_rps": start,
            "ramp_up_end_rps": end,
            "offsets_s": [float(d) for d in delays],
            "rates": [float(r) for r in rates],
        })
    return lines


def write_json(rel, obj):
    path = os.path.join(ROOT, rel)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", rel, os.path.getsize(path), "bytes")


def main():
    meta = {
        "generator": "tools/gen-rng-vectors/gen_rng_vectors.py",
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "platform": platform.platform(),
    }
    write_json("internal/numpyrand/testdata/numpy_vectors.json", {
        "meta": meta,
        "legacy": legacy_vectors(),
        "legacy_mixed": legacy_mixed(),
        "legacy_long": legacy_long(),
        "generator": generator_vectors(),
        "generator_mixed": generator_mixed(),
        "generator_long": generator_long(),
    })
    write_json("internal/pyrandom/testdata/cpython_vectors.json", {"meta": meta, **cpython_vectors()})
    path = os.path.join(ROOT, "internal/schedule/testdata/schedule_extra.jsonl")
    with open(path, "w") as f:
        for line in schedule_extra():
            f.write(json.dumps(line) + "\n")
    print("wrote internal/schedule/testdata/schedule_extra.jsonl", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
