#!/usr/bin/env python3
"""Generate the LoRA assignments `vllm bench serve --lora-assignment random`
makes, for internal/dataset's TestGlobalRandomContinues and cli's end-to-end
test.

vLLM draws every request's LoRA with random.choice from CPython's global
random, after the dataset has used that same generator. This script makes,
on the global generator and in the same order, the calls vLLM makes
(vllm/benchmarks/serve.py@11dfa3169 main_async and benchmark;
vllm/benchmarks/datasets/datasets.py@11dfa3169 CustomDataset.load_data,
ShareGPTDataset.load_data, maybe_oversample_requests, RandomDataset):

  main_async      random.seed(seed)
  custom/sharegpt random.seed(seed); random.shuffle(entries) unless
                  --disable-shuffle
  oversampling    when fewer samples than --num-prompts and not
                  --no-oversample: random.seed(seed), then one
                  random.choice(samples) per missing sample
  random dataset  nothing (it draws from np.random.default_rng(seed))
  benchmark       random.choice(lora_modules) once per request

It needs no tokenizer: the ShareGPT file it writes has conversations whose
validity (vLLM's is_valid_sequence) does not depend on the tokenizer (a
prompt of 16+ known characters is 4+ tokens for any tokenizer that covers
them; an empty prompt is always too short). Run with any python3:

    python3 tools/gen-lora-vectors/gen_lora_vectors.py

It rewrites internal/dataset/testdata/sharegpt_lora.json and
lora_golden.json; custom cases read custom60.jsonl (tools/gen-dataset-vectors).
"""
import json
import os
import random

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "internal", "dataset", "testdata")
LORAS = ["lora-a", "lora-b", "lora-c"]
LORAS5 = ["l0", "l1", "l2", "l3", "l4"]


def oversample(samples, num_requests, seed, no_oversample):
    """maybe_oversample_requests: returns the samples, padded as vLLM pads them."""
    if no_oversample or len(samples) >= num_requests:
        return samples
    random.seed(seed)
    extra = [random.choice(samples) for _ in range(num_requests - len(samples))]
    return samples + extra


def custom(seed, n, disable_shuffle, no_oversample):
    with open(os.path.join(OUT, "custom60.jsonl"), encoding="utf-8") as f:
        data = [json.loads(line) for line in f if line.strip()]
    random.seed(seed)
    if not disable_shuffle:
        random.shuffle(data)
    if n <= 0:
        n = len(data)
    prompts = [row["prompt"] for row in data[:n]]
    return oversample(prompts, n, seed, no_oversample)


def sharegpt(seed, n, disable_shuffle, no_oversample):
    with open(os.path.join(OUT, "sharegpt_lora.json"), encoding="utf-8") as f:
        data = json.load(f)
    data = [e for e in data if "conversations" in e and len(e["conversations"]) >= 2]
    random.seed(seed)
    if not disable_shuffle:
        random.shuffle(data)
    prompts = []
    for e in data:
        if len(prompts) >= n:
            break
        p = e["conversations"][0]["value"]
        if p:  # an empty prompt fails is_valid_sequence whatever the tokenizer
            prompts.append(p)
    return oversample(prompts, n, seed, no_oversample)


def write_sharegpt():
    words = ["abc", "bad", "cab", "dice", "ace", "bed", "jab", "fig", "hid"]
    convs = []
    for i in range(30):
        prompt = f"{words[i % 9]} {words[(i * 4) % 9]} {words[(i * 7 + 1) % 9]} {'ab' * (3 + i % 5)}"
        answer = " ".join(words[(i + k) % 9] for k in range(4 + i % 3))
        turns = [{"from": "human", "value": prompt}, {"from": "gpt", "value": answer}]
        if i % 7 == 3:
            turns[0]["value"] = ""  # filtered by is_valid_sequence
        if i % 11 == 5:
            turns = turns[:1]  # filtered before the shuffle
        convs.append({"id": f"lora{i}", "conversations": turns})
    with open(os.path.join(OUT, "sharegpt_lora.json"), "w", encoding="utf-8") as f:
        json.dump(convs, f, indent=1)


def main():
    write_sharegpt()
    cases = []
    for name, seed, n, disable_shuffle, no_oversample, loras in [
        ("custom", 0, 10, False, False, LORAS),
        ("custom", 42, 30, False, False, LORAS),
        ("custom", 7, 80, False, False, LORAS),
        ("custom", 7, 80, False, True, LORAS),
        ("custom", 5, 12, True, False, LORAS),
        ("custom", 3, 0, False, False, LORAS5),
        ("custom", -9, 25, False, False, LORAS5),
        ("custom", 2**40, 20, False, False, LORAS),
        ("sharegpt", 0, 10, False, False, LORAS),
        ("sharegpt", 1, 40, False, False, LORAS),
        ("sharegpt", 1, 40, False, True, LORAS),
        ("sharegpt", 4, 10, True, False, LORAS5),
        ("sharegpt", 11, 19, False, False, LORAS),
        ("random", 0, 10, False, False, LORAS),
        ("random", 123, 16, False, False, LORAS5),
    ]:
        random.seed(seed)  # main_async
        if name == "custom":
            prompts = custom(seed, n, disable_shuffle, no_oversample)
        elif name == "sharegpt":
            prompts = sharegpt(seed, n, disable_shuffle, no_oversample)
        else:
            prompts = None  # RandomDataset leaves the global generator alone
        count = n if prompts is None else len(prompts)
        assignment = [random.choice(loras) for _ in range(count)]
        cases.append({"dataset": name, "seed": seed, "num_prompts": n, "disable_shuffle": disable_shuffle,
                      "no_oversample": no_oversample, "lora_modules": loras, "prompts": prompts,
                      "loras": assignment})
    with open(os.path.join(OUT, "lora_golden.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
