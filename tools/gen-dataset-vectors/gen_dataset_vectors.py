#!/usr/bin/env python3
"""Generate golden samples for internal/dataset from a line-by-line copy of
vLLM's dataset code (vllm/benchmarks/datasets/datasets.py and utils.py at
commit 11dfa3169) run with NumPy and CPython's random.

The tokenizer is a small greedy longest-match tokenizer defined identically
here and in internal/dataset/fake_test.go, so that decode -> encode changes
lengths and exercises vLLM's fix-up loop. Run with Debian's python3-numpy:

    /usr/bin/python3 tools/gen-dataset-vectors/gen_dataset_vectors.py

It rewrites internal/dataset/testdata/*.json and the input files next to them.
"""
import json
import math
import os
import random

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "internal", "dataset", "testdata")


class FakeTokenizer:
    """ids 0 and 1 are special (<s>, </s>); the rest are letters, pairs and words."""

    def __init__(self):
        pieces = ["<s>", "</s>"]
        letters = "abcdefghij"
        pieces += list(letters)
        pieces += [" "]
        pieces += [a + b for a in "abcde" for b in "abcde"]
        pieces += [" " + w for w in ["the", "cat", "sat", "on", "mat", "a", "b", "ab"]]
        pieces += ["abc", "cab", "bca"]
        self.pieces = pieces
        self.vocab_size = len(pieces)
        self.all_special_ids = [0, 1]
        self.by_len = sorted(range(len(pieces)), key=lambda i: (-len(pieces[i]), i))

    def num_special_tokens_to_add(self):
        return 1

    def decode(self, ids):
        return "".join(self.pieces[i] if 0 <= i < len(self.pieces) else "?" for i in ids)

    def encode(self, text, add_special_tokens=True):
        out = [0] if add_special_tokens else []
        i = 0
        while i < len(text):
            for tid in self.by_len:
                p = self.pieces[tid]
                if text.startswith(p, i):
                    out.append(tid)
                    i += len(p)
                    break
            else:
                i += 1  # unknown character: dropped
        return out

    def __call__(self, text):
        class R:
            pass
        r = R()
        r.input_ids = self.encode(text, True)
        return r


def gen_prompt_decode_to_target_len(tokenizer, token_sequence, target_token_len, max_retry=10, add_special_tokens=False, rng=None):
    remain_num_try = max_retry
    token_mismatch = 0
    while True:
        prompt = tokenizer.decode(token_sequence)
        token_sequence = tokenizer.encode(prompt, add_special_tokens=add_special_tokens)
        if remain_num_try <= 0:
            if len(token_sequence) != target_token_len:
                token_mismatch = len(token_sequence) - target_token_len
            break
        if len(token_sequence) == target_token_len:
            break
        elif len(token_sequence) < target_token_len:
            if rng is not None:
                extra_tokens = rng.integers(0, tokenizer.vocab_size, size=target_token_len - len(token_sequence)).tolist()
            else:
                extra_tokens = np.random.randint(0, tokenizer.vocab_size, size=target_token_len - len(token_sequence)).tolist()
            token_sequence.extend(extra_tokens)
        elif len(token_sequence) > target_token_len:
            token_sequence = token_sequence[:target_token_len]
        remain_num_try -= 1
    return prompt, token_sequence, token_mismatch


def resolve(rr):
    if isinstance(rr, dict):
        return float(rr["input"]), float(rr["output"])
    return float(rr), float(rr)


def get_sampling_params(rng, num_requests, range_ratio, input_len, output_len, tokenizer):
    in_rr, out_rr = resolve(range_ratio)
    num_special_tokens = int(tokenizer.num_special_tokens_to_add())
    real_input_len = max(0, int(input_len) - num_special_tokens)
    input_low = math.floor(real_input_len * (1 - in_rr))
    input_high = math.ceil(real_input_len * (1 + in_rr))
    output_low = max(math.floor(output_len * (1 - out_rr)), 1)
    output_high = max(math.ceil(output_len * (1 + out_rr)), 1)
    input_lens = rng.integers(input_low, input_high + 1, size=num_requests)
    output_lens = rng.integers(output_low, output_high + 1, size=num_requests)
    offsets = rng.integers(0, tokenizer.vocab_size, size=num_requests)
    return input_lens, output_lens, offsets


def random_sample(tok, seed, num_requests, prefix, prefix_len, range_ratio, input_len, output_len):
    rng = np.random.default_rng(seed)
    input_lens, output_lens, offsets = get_sampling_params(rng, num_requests, range_ratio, input_len, output_len, tok)
    vocab_size = tok.vocab_size
    all_tokens = np.arange(vocab_size)
    allowed_tokens = np.array(list(set(all_tokens) - set(tok.all_special_ids)))
    prefix_token_ids = []
    if prefix_len > 0:
        prefix_tokens = allowed_tokens[rng.integers(0, len(allowed_tokens), size=prefix_len)].tolist()
        _, prefix_token_ids, _ = gen_prompt_decode_to_target_len(tok, prefix_tokens, prefix_len, rng=rng)
    out = []
    for i in range(num_requests):
        inner = allowed_tokens[(int(offsets[i]) + i + np.arange(int(input_lens[i]))) % len(allowed_tokens)].tolist()
        seq = prefix_token_ids + inner
        prompt, adj, _ = gen_prompt_decode_to_target_len(tok, seq, prefix_len + int(input_lens[i]), rng=rng)
        out.append({"prompt": prompt, "prompt_len": len(adj), "expected_output_len": int(output_lens[i]), "request_id": prefix + str(i)})
    return out


def oversample(requests, num_requests, seed, prefix):
    if len(requests) < num_requests:
        random.seed(seed)
        needed = num_requests - len(requests)
        additional = []
        for i in range(needed):
            r = dict(random.choice(requests))
            r["request_id"] = prefix + str(len(requests) + i)
            additional.append(r)
        requests.extend(additional)


def custom_sample(tok, path, seed, num_requests, prefix, output_len, shuffle=True):
    data = [json.loads(l) for l in open(path) if l.strip()]
    random.seed(seed)
    if shuffle:
        random.shuffle(data)
    if num_requests <= 0:
        num_requests = len(data)
    out = []
    for i, item in enumerate(data):
        if len(out) >= num_requests:
            break
        new_output_len = int(item["output_tokens"]) if output_len == -1 else output_len
        out.append({"prompt": item["prompt"], "prompt_len": len(tok(item["prompt"]).input_ids), "expected_output_len": new_output_len, "request_id": prefix + str(i)})
    oversample(out, num_requests, seed, prefix)
    return out


def sharegpt_sample(tok, path, seed, num_requests, prefix, output_len, shuffle=True):
    data = json.load(open(path))
    data = [e for e in data if "conversations" in e and len(e["conversations"]) >= 2]
    random.seed(seed)
    if shuffle:
        random.shuffle(data)
    out = []
    ind = 0
    for e in data:
        if len(out) >= num_requests:
            break
        p, c = e["conversations"][0]["value"], e["conversations"][1]["value"]
        pl = len(tok(p).input_ids)
        ol = len(tok(c).input_ids) if output_len is None else output_len
        skip = output_len is not None
        if pl < 4 or (not skip and ol < 4) or pl > 1024 or pl + ol > 2048:
            continue
        out.append({"prompt": p, "prompt_len": pl, "expected_output_len": ol, "request_id": prefix + str(ind)})
        ind += 1
    oversample(out, num_requests, seed, prefix)
    return out


def prefix_repetition_sample(tok, seed, num_requests, prefix_len, suffix_len, num_prefixes, output_len, disable_shuffle=False):
    """PrefixRepetitionRandomDataset: __init__ reseeds the global random and
    np.random with the seed; tokens and fix-ups come from np.random.randint;
    requests carry no request id."""
    random.seed(seed)
    np.random.seed(seed)
    vocab_size = tok.vocab_size
    prompts_per_prefix = num_requests // num_prefixes
    if prompts_per_prefix == 0:
        raise ValueError(f"num_requests ({num_requests}) must be greater than or equal to num_prefixes ({num_prefixes})")

    def _generate_exact_length_tokens(target_length):
        tokens = np.random.randint(0, vocab_size, size=target_length).tolist()
        _, adjusted_tokens, token_mismatch = gen_prompt_decode_to_target_len(
            tokenizer=tok, token_sequence=tokens, target_token_len=target_length, add_special_tokens=False)
        return adjusted_tokens, token_mismatch

    requests = []
    token_mismatch_total = 0
    for _ in range(num_prefixes):
        prefix_tokens, prefix_mismatch = _generate_exact_length_tokens(prefix_len)
        token_mismatch_total += prefix_mismatch
        for _ in range(prompts_per_prefix):
            suffix_tokens, suffix_mismatch = _generate_exact_length_tokens(suffix_len)
            token_mismatch_total += suffix_mismatch
            combined_tokens = prefix_tokens + suffix_tokens
            requests.append({"prompt": tok.decode(combined_tokens), "prompt_len": len(combined_tokens),
                             "expected_output_len": output_len, "request_id": ""})
    if not disable_shuffle:
        random.shuffle(requests)
    # The state the global NumPy generator is left in: vLLM's arrival
    # gamma draws continue from it.
    next_uint32 = int(np.random.randint(0, 2**32, dtype=np.uint64))
    return requests, token_mismatch_total, next_uint32


class ChatFakeTokenizer(FakeTokenizer):
    """FakeTokenizer with the chat template chatFake has in
    internal/dataset/sonnet_test.go."""

    chat_template = "fake"

    def apply_chat_template(self, messages, add_generation_prompt=False, tokenize=False):
        out = "".join("<s>" + m["role"] + ": " + m["content"] + "</s>" for m in messages)
        return out + (" the cat:" if add_generation_prompt else "")


def sonnet_sample(tok, path, seed, num_requests, prefix, input_len, output_len, prefix_len, backend):
    """SonnetDataset and its get_samples branch: main_async's
    random.seed(args.seed) is the only seeding; the file is read in text
    mode (universal newlines)."""
    random.seed(seed)
    return_prompt_formatted = backend != "openai-chat"
    with open(path, encoding="utf-8") as f:
        data = f.readlines()
    tokenized_lines = [tok(line).input_ids for line in data]
    avg_len = sum(len(tokens) for tokens in tokenized_lines) / len(tokenized_lines)
    base_prompt = "Pick as many lines as you can from these poem lines:\n"
    base_msg = [{"role": "user", "content": base_prompt}]
    base_fmt = tok.apply_chat_template(base_msg, add_generation_prompt=True, tokenize=False)
    base_offset = len(tok(base_fmt).input_ids)
    if input_len <= base_offset:
        raise ValueError(f"'input_len' must be higher than the base prompt length ({base_offset}).")
    num_input_lines = round((input_len - base_offset) / avg_len)
    num_prefix_lines = max(round((prefix_len - base_offset) / avg_len), 0)
    prefix_lines = data[:num_prefix_lines]
    samples = []
    ind = 0
    while len(samples) < num_requests:
        extra_lines = random.choices(data, k=num_input_lines - num_prefix_lines)
        prompt = f"{base_prompt}{''.join(prefix_lines + extra_lines)}"
        msg = [{"role": "user", "content": prompt}]
        prompt_formatted = tok.apply_chat_template(msg, add_generation_prompt=True, tokenize=False)
        prompt_len = len(tok(prompt_formatted).input_ids)
        if prompt_len <= input_len:
            samples.append({"prompt": prompt_formatted if return_prompt_formatted else prompt,
                            "prompt_len": prompt_len, "expected_output_len": output_len,
                            "request_id": prefix + str(ind)})
            ind += 1
    return samples


def main():
    tok = FakeTokenizer()
    cases = []
    for seed, n, prefix_len, rr, il, ol in [
        (0, 8, 0, 0.0, 24, 16),
        (123, 16, 7, 0.3, 50, 20),
        (999, 16, 7, 0.3, 50, 20),
        (42, 12, 0, {"input": 0.5, "output": 0.0}, 40, 9),
        (7, 5, 3, 0.9, 6, 1),
        (2**40, 10, 0, 0.1, 300, 128),
    ]:
        cases.append({"seed": seed, "num_prompts": n, "prefix_len": prefix_len,
                      "range_ratio": json.dumps(rr) if isinstance(rr, dict) else repr(rr),
                      "input_len": il, "output_len": ol,
                      "samples": random_sample(tok, seed, n, "bench-x-", prefix_len, rr, il, ol)})
    json.dump(cases, open(os.path.join(OUT, "random_golden.json"), "w"), indent=1, ensure_ascii=False)

    # Custom JSONL: 60 rows, some with output_tokens.
    words = ["the", "cat", "sat", "on", "mat", "abc", "bad", "cab", "中文", "é"]
    rows = []
    for i in range(60):
        w = " ".join(words[(i * 7 + k) % len(words)] for k in range(3 + i % 5))
        rows.append({"prompt": f"row {i}: {w}", "output_tokens": 5 + i % 11})
    cpath = os.path.join(OUT, "custom60.jsonl")
    with open(cpath, "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    custom = []
    for seed, n, ol, shuf in [(0, 30, 32, True), (42, 30, 32, True), (7, 30, -1, True), (3, 80, 10, True), (5, 10, 4, False), (9, 0, 8, True)]:
        custom.append({"seed": seed, "num_prompts": n, "output_len": ol, "shuffle": shuf,
                       "samples": custom_sample(tok, cpath, seed, n, "p-", ol, shuf)})
    json.dump(custom, open(os.path.join(OUT, "custom_golden.json"), "w"), indent=1, ensure_ascii=False)

    # ShareGPT: 40 conversations, some too short, one with a single turn.
    convs = []
    for i in range(40):
        p = " ".join(words[(i * 3 + k) % len(words)] for k in range(1 + i % 9))
        c = " ".join(words[(i * 5 + k) % len(words)] for k in range(i % 6))
        turns = [{"from": "human", "value": p}, {"from": "gpt", "value": c}]
        if i == 13:
            turns = turns[:1]
        convs.append({"id": f"c{i}", "conversations": turns})
    spath = os.path.join(OUT, "sharegpt40.json")
    json.dump(convs, open(spath, "w"), indent=1, ensure_ascii=False)
    share = []
    for seed, n, ol in [(0, 10, None), (1, 50, None), (2, 20, 64)]:
        share.append({"seed": seed, "num_prompts": n, "output_len": ol,
                      "samples": sharegpt_sample(tok, spath, seed, n, "s-", ol)})
    json.dump(share, open(os.path.join(OUT, "sharegpt_golden.json"), "w"), indent=1, ensure_ascii=False)

    # Prefix repetition: fix-ups from the legacy global generator, totals
    # below --num-prompts, a zero prefix, no shuffle.
    prep = []
    for seed, n, pl, sl, npfx, ol, noshuf in [
        (0, 10, 6, 5, 2, 16, False),
        (42, 23, 12, 9, 4, 7, False),
        (7, 6, 0, 8, 3, 1, False),
        (123, 9, 20, 0, 3, 5, True),
        (2**31 + 5, 40, 30, 30, 5, 128, False),
    ]:
        samples, mismatch, nxt = prefix_repetition_sample(tok, seed, n, pl, sl, npfx, ol, noshuf)
        prep.append({"seed": seed, "num_prompts": n, "prefix_len": pl, "suffix_len": sl, "num_prefixes": npfx,
                     "output_len": ol, "disable_shuffle": noshuf, "token_mismatch_total": mismatch,
                     "next_uint32": nxt, "samples": samples})
    json.dump(prep, open(os.path.join(OUT, "prefix_repetition_golden.json"), "w"), indent=1, ensure_ascii=False)

    # Sonnet: vLLM's sonnet.txt as embedded in datasets/, and a small poem
    # with CRLF and CR line ends and no final newline; chat-formatted
    # prompts, raw ones for openai-chat, a prefix longer than the input,
    # redraws of prompts too long.
    chat = ChatFakeTokenizer()
    poem = os.path.join(OUT, "poem_crlf.txt")
    with open(poem, "w", newline="") as f:
        f.write("the cat sat\r\non a mat\rabc cab bca\r\na b ab\r\n\r\nbad dab cede\nthe end")
    sonnet_path = os.path.join(os.path.dirname(__file__), "..", "..", "datasets", "sonnet.txt")
    sonnet = []
    for path, seed, n, il, ol, pl, backend in [
        ("", 0, 6, 120, 9, 40, "openai"),
        ("", 42, 5, 200, 150, 150, "openai-chat"),
        ("", 2**33, 4, 60, 3, 0, "vllm"),
        ("poem_crlf.txt", 3, 8, 40, 5, 14, "openai"),
        ("poem_crlf.txt", 5, 6, 70, 7, 80, "openai-chat"),
    ]:
        sonnet.append({"path": path, "seed": seed, "num_prompts": n, "input_len": il, "output_len": ol,
                       "prefix_len": pl, "backend": backend,
                       "samples": sonnet_sample(chat, os.path.join(OUT, path) if path else sonnet_path,
                                                seed, n, "s-", il, ol, pl, backend)})
    json.dump(sonnet, open(os.path.join(OUT, "sonnet_golden.json"), "w"), indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
