#!/usr/bin/env python3
"""Generate golden conversations for gobench's --multi-turn datasets
(internal/dataset/multiturn.go), with the stand-in tokenizer and vLLM's
random dataset copied in gen_dataset_vectors.py (vllm/benchmarks/datasets/
datasets.py at commit 11dfa3169), NumPy and CPython's random.

The pinned vLLM has no multi-turn dataset; gobench follows vLLM's Rust
client (rust/src/bench/src/datasets/multi_turn.rs) and builds every turn
with vLLM's own code:

- random: turn counts are np.random.default_rng(seed).integers(lo, hi + 1,
  size=n); first turns are vLLM's RandomDataset(seed) with n prompts
  (--random-input-len, --random-prefix-len); later turns, in conversation
  order, are vLLM's RandomDataset(seed + 1) with one prompt per later turn
  (--per-turn-input-len, no prefix).
- sharegpt: entries with at least four messages, random.seed(seed) and
  random.shuffle as vLLM's ShareGPT loader shuffles; each "human" message
  followed by an answer is a turn (answer tokens, at least 1, or a fixed
  output length), at most max_turns (0: all); conversations of fewer than
  two turns are dropped.

Run with Debian's python3-numpy:

    /usr/bin/python3 tools/gen-dataset-vectors/gen_multiturn_vectors.py

It rewrites internal/dataset/testdata/multiturn_*.json and the input file
next to them.
"""
import json
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from gen_dataset_vectors import OUT, FakeTokenizer, random_sample  # noqa: E402


def turn(s):
    return {"prompt": s["prompt"], "prompt_len": s["prompt_len"], "output_len": s["expected_output_len"]}


def synthetic(tok, seed, n, lo, hi, input_len, per_turn, prefix_len, output_len, prefix):
    counts = np.random.default_rng(seed).integers(lo, hi + 1, size=n)
    first = random_sample(tok, seed, n, prefix, prefix_len, 0.0, input_len, output_len)
    later = int(sum(int(c) - 1 for c in counts))
    rest = random_sample(tok, seed + 1, later, prefix, 0, 0.0, per_turn or input_len, output_len) if later else []
    convs = []
    for i in range(n):
        turns = [turn(first[i])]
        for _ in range(int(counts[i]) - 1):
            turns.append(turn(rest.pop(0)))
        convs.append({"id": f"{prefix}conv-{i}", "turns": turns})
    return convs


def sharegpt(tok, path, seed, n, max_turns, output_len, prefix):
    data = json.load(open(path))
    data = [e for e in data if isinstance(e, dict) and len(e.get("conversations", [])) >= 4]
    random.seed(seed)
    random.shuffle(data)
    convs = []
    for e in data:
        if len(convs) >= n:
            break
        msgs = e["conversations"]
        turns = []
        i = 0
        while i + 1 < len(msgs) and (max_turns <= 0 or len(turns) < max_turns):
            if msgs[i].get("from") != "human" or not msgs[i].get("value"):
                i += 1
                continue
            out = max(len(tok.encode(msgs[i + 1]["value"], False)), 1) if output_len is None else output_len
            turns.append({"prompt": msgs[i]["value"], "prompt_len": len(tok.encode(msgs[i]["value"], False)), "output_len": out})
            i += 2
        if len(turns) >= 2:
            convs.append({"id": f"{prefix}conv-{len(convs)}", "turns": turns})
    return convs


def main():
    tok = FakeTokenizer()
    cases = []
    for seed, n, lo, hi, il, pt, pl, ol in [(0, 5, 3, 3, 24, 0, 0, 8), (7, 8, 1, 5, 30, 12, 5, 6), (99, 6, 2, 4, 40, 20, 0, 16)]:
        cases.append({"seed": seed, "num_prompts": n, "min_turns": lo, "max_turns": hi, "input_len": il, "per_turn_input_len": pt,
                      "prefix_len": pl, "output_len": ol, "conversations": synthetic(tok, seed, n, lo, hi, il, pt, pl, ol, "mt-")})
    json.dump(cases, open(os.path.join(OUT, "multiturn_random_golden.json"), "w"), indent=1, ensure_ascii=False)

    words = ["the", "cat", "sat", "on", "mat", "abc", "bad", "cab", "中文", "é"]
    convs = []
    for i in range(30):
        msgs = []
        for k in range(1 + i % 7):
            role = "human" if (k + (i == 11)) % 2 == 0 else "gpt"
            text = " ".join(words[(i * 3 + k * 5 + j) % len(words)] for j in range(1 + (i + k) % 6))
            msgs.append({"from": role, "value": "" if (i == 17 and k == 2) else text})
        convs.append({"id": f"m{i}", "conversations": msgs})
    spath = os.path.join(OUT, "sharegpt_multiturn30.json")
    json.dump(convs, open(spath, "w"), indent=1, ensure_ascii=False)
    share = []
    for seed, n, mx, ol in [(0, 10, 0, None), (3, 50, 2, None), (5, 6, 0, 32)]:
        share.append({"seed": seed, "num_prompts": n, "max_turns": mx, "output_len": ol,
                      "conversations": sharegpt(tok, spath, seed, n, mx, ol, "s-")})
    json.dump(share, open(os.path.join(OUT, "multiturn_sharegpt_golden.json"), "w"), indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
