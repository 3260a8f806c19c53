#!/usr/bin/env python3
"""Generate golden samples for internal/dataset's burstgpt, spec_bench,
speed_bench and timed_trace loaders from a copy of vLLM's dataset code
(vllm/benchmarks/datasets/datasets.py at commit 11dfa3169: BurstGPTDataset,
SpecBench, SpeedBench, CustomDataset.sample, TimedTrace) run with NumPy and
CPython's random, with the stand-in tokenizers of gen_dataset_vectors.py.

pandas is not needed: BurstGPTDataset's DataFrame.sample(n, random_state=seed,
replace=...) is pandas' call of numpy.random.RandomState(seed).choice(rows,
size=n, replace=replace) (pandas/core/sample.py), which is called here
directly; read_csv and read_json(lines=True) are csv and json on these small,
regular files.

TimedTrace differs from the pinned copy in one documented place: a hash id's
chunk is random.Random(hash_id).choices(vocab, k=chunk_size) cut to the size
needed, instead of random.Random(hash(f"{h}:{size}") & 0xFFFFFFFF), which
depends on PYTHONHASHSEED (the later upstream requires prompts independent of
it and a cut chunk to be the start of the full one:
tests/benchmarks/test_timed_trace_dataset.py@c99c8c47). Run with Debian's
python3-numpy:

    /usr/bin/python3 tools/gen-dataset-vectors/gen_trace_vectors.py

It rewrites the *_golden.json files of these datasets in
internal/dataset/testdata and the input files next to them.
"""
import csv
import json
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from gen_dataset_vectors import OUT, ChatFakeTokenizer, FakeTokenizer, oversample  # noqa: E402

WORDS = ["the", "cat", "sat", "on", "mat", "a", "b", "ab", "abc", "cab", "bca", "dd", "ee", "j"]


def text(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


# --- input files -------------------------------------------------------------

def write_inputs():
    rng = random.Random(2024)
    burst = os.path.join(OUT, "burstgpt60.csv")
    with open(burst, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["Timestamp", "Model", "Request tokens", "Response tokens", "Total tokens", "Log Type"])
        for i in range(60):
            model = "GPT-4" if rng.random() < 0.6 else "ChatGPT"
            req = rng.randint(1, 40)
            resp = 0 if rng.random() < 0.15 else rng.randint(1, 30)
            w.writerow([i * 3 + rng.randint(0, 2), model, req, resp, req + resp, "Conversation log"])
    spec = os.path.join(OUT, "specbench30.jsonl")
    cats = ["writing", "math", "coding"]
    with open(spec, "w") as f:
        for i in range(30):
            row = {"question_id": 81 + i, "category": cats[i % 3], "turns": [text(rng, rng.randint(3, 12)), text(rng, 4)]}
            f.write(json.dumps(row) + "\n")
    os.makedirs(os.path.join(OUT, "speedbench"), exist_ok=True)
    for subset, n in (("qualitative", 24), ("throughput_1k", 8)):
        with open(os.path.join(OUT, "speedbench", subset + ".jsonl"), "w") as f:
            for i in range(n):
                row = {"question_id": i, "category": cats[i % 3],
                       "messages": [{"role": "user", "content": text(rng, rng.randint(2, 10))}]}
                f.write(json.dumps(row) + "\n")
    trace = os.path.join(OUT, "trace20.jsonl")
    with open(trace, "w") as f:
        for i in range(20):
            shared = [1, 2] if i % 2 == 0 else [1, 3]
            hashes = shared + [100 + i, 200 + i]
            row = {"timestamp": 250 * i + rng.randint(0, 99), "input_length": rng.randint(5, 16),
                   "output_length": rng.randint(1, 9), "hash_ids": hashes}
            f.write(json.dumps(row) + "\n")
    return burst, spec, trace


# --- vLLM's classes ----------------------------------------------------------

def burstgpt_sample(tok, path, seed, num_requests, prefix):
    """BurstGPTDataset.load_data, _sample_loaded_data and sample."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    model, resp = header.index("Model"), header.index("Response tokens")
    data = [[int(c) if c.lstrip("-").isdigit() else c for c in r] for r in body]
    data = [r for r in data if r[model] == "GPT-4"]
    data = [r for r in data if r[resp] > 0]
    rs = np.random.RandomState(seed)
    locs = rs.choice(len(data), size=num_requests, replace=num_requests > len(data))
    data = [data[i] for i in locs]
    samples = []
    for i in range(num_requests):
        input_len = int(data[i][2])
        output_len = int(data[i][3])
        vocab_size = tok.vocab_size
        token_ids = [(i + j) % vocab_size for j in range(input_len)]
        prompt = tok.decode(token_ids)
        samples.append({"prompt": prompt, "prompt_len": input_len, "expected_output_len": output_len,
                        "request_id": prefix + str(i)})
    return samples


def custom_dataset_sample(tok, data, random_seed, num_requests, prefix, output_len, skip_chat_template):
    """CustomDataset.sample at 11dfa3169 over loaded data."""
    if num_requests <= 0:
        num_requests = len(data)
    sampled = []
    for i, item in enumerate(data):
        if len(sampled) >= num_requests:
            break
        prompt = item["prompt"]
        new_output_len = output_len
        if not skip_chat_template:
            prompt = tok.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True,
                                             tokenize=False)
        prompt_len = len(tok(prompt).input_ids)
        sampled.append({"prompt": prompt, "prompt_len": prompt_len, "expected_output_len": new_output_len,
                        "request_id": prefix + str(i)})
    oversample(sampled, num_requests, random_seed, prefix)
    return sampled


def spec_bench_load(path, category, random_seed, disable_shuffle):
    """SpecBench.load_data; get_samples passes no random_seed (0)."""
    data = []
    for line in open(path):
        if not line.strip():
            continue
        row = json.loads(line)
        if (not category) or (category == row.get("category")):
            data.append({"prompt": row["turns"][0]})
    random.seed(random_seed)
    if not disable_shuffle:
        random.shuffle(data)
    return data


def speed_bench_load(directory, subset, category, random_seed, disable_shuffle):
    """SpeedBench.load_data."""
    data = []
    for line in open(os.path.join(directory, subset + ".jsonl")):
        if not line.strip():
            continue
        row = json.loads(line)
        if (not category) or (category == row.get("category")):
            data.append({"prompt": row["messages"][0]["content"]})
    random.seed(random_seed)
    if not disable_shuffle:
        random.shuffle(data)
    return data


class TimedTrace:
    """TimedTrace with the chunk seeding described in the module doc."""

    def __init__(self, dataset_path, chunk_size, sec_multiplier):
        random.seed(0)
        np.random.seed(0)
        self.chunk_size = chunk_size
        self.sec_multiplier = sec_multiplier
        self._expanded = {}
        with open(dataset_path) as f:
            self.data = f.readlines()

    def _chunk(self, h, tokenizer):
        if not hasattr(self, "vocab_values_sorted"):
            vocab = {i: i for i in range(tokenizer.vocab_size)}  # get_vocab(): piece -> id
            vocab = {k: v for k, v in vocab.items() if v not in tokenizer.all_special_ids}
            self.vocab_values_sorted = sorted(vocab.values())
        if h not in self._expanded:
            self._expanded[h] = random.Random(h).choices(self.vocab_values_sorted, k=self.chunk_size)
        return self._expanded[h]

    def _expand_prompt(self, chunked_hashes, target_input_size, tokenizer):
        raw = []
        for h in chunked_hashes:
            expanded_size = self.chunk_size if target_input_size >= self.chunk_size else target_input_size
            raw.extend(self._chunk(h, tokenizer)[:expanded_size])
            target_input_size -= expanded_size
            if target_input_size <= 0:
                break
        return raw

    def sample(self, tokenizer, num_requests, request_id_prefix=""):
        samples = []
        for ind, entry in enumerate(self.data):
            if len(samples) >= num_requests:
                break
            entry = json.loads(entry.strip())
            ids = self._expand_prompt(entry.get("hash_ids", []), entry["input_length"], tokenizer)
            samples.append({"prompt_token_ids": ids, "prompt": tokenizer.decode(ids), "prompt_len": len(ids),
                            "expected_output_len": entry["output_length"], "request_id": request_id_prefix + str(ind),
                            "timestamp": float(entry["timestamp"]) * self.sec_multiplier})
        return samples


def main():
    tok, chat = FakeTokenizer(), ChatFakeTokenizer()
    burst, spec, trace = write_inputs()

    cases = []
    for seed in (0, 7, 42):
        for n in (5, 30, 100):
            cases.append({"seed": seed, "num_prompts": n, "samples": burstgpt_sample(tok, burst, seed, n, "b-")})
    json.dump(cases, open(os.path.join(OUT, "burstgpt_golden.json"), "w"), indent=1, ensure_ascii=False)

    cases = []
    for category, n, out_len, skip, shuffle in (("", 10, 256, True, True), ("math", 25, 32, True, True),
                                                 ("", 0, 8, False, True), ("coding", 4, 16, False, False)):
        data = spec_bench_load(spec, category, 0, not shuffle)
        use = chat if not skip else tok
        cases.append({"category": category, "num_prompts": n, "output_len": out_len, "skip_chat_template": skip,
                      "shuffle": shuffle,
                      "samples": custom_dataset_sample(use, data, 0, n, "sb-", out_len, skip)})
    json.dump(cases, open(os.path.join(OUT, "specbench_golden.json"), "w"), indent=1, ensure_ascii=False)

    cases = []
    for subset, category, n in (("qualitative", "", 10), ("qualitative", "writing", 12), ("throughput_1k", "", 20)):
        data = speed_bench_load(os.path.join(OUT, "speedbench"), subset, category, 0, False)
        cases.append({"subset": subset, "category": category, "num_prompts": n,
                      "samples": custom_dataset_sample(tok, data, 0, n, "sp-", 4096, True)})
    json.dump(cases, open(os.path.join(OUT, "speedbench_golden.json"), "w"), indent=1, ensure_ascii=False)

    cases = []
    for chunk, mult, n in ((4, 1.0, 20), (16, 0.001, 7), (3, 0.5, 100)):
        ds = TimedTrace(trace, chunk, mult)
        cases.append({"chunk_size": chunk, "sec_multiplier": mult, "num_prompts": n,
                      "samples": ds.sample(tok, n, "t-")})
    json.dump(cases, open(os.path.join(OUT, "timedtrace_golden.json"), "w"), indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
