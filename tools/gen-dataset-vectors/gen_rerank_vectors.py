#!/usr/bin/env python3
"""Generate golden samples for internal/dataset's random-rerank dataset, the
random dataset's batched prompts (--random-batch-size) and its token ids
(--prompt-token-ids), from a line-by-line copy of vLLM's code
(vllm/benchmarks/datasets/datasets.py at commit 11dfa3169:
RandomDataset.sample with batchsize, RandomDatasetForReranking.sample) run
with NumPy.

The tokenizer and the shared helpers (gen_prompt_decode_to_target_len,
get_sampling_params) are gen_dataset_vectors.py's, the stand-in that
internal/dataset/fake_test.go mirrors. Run with Debian's python3-numpy:

    /usr/bin/python3 tools/gen-dataset-vectors/gen_rerank_vectors.py

It rewrites internal/dataset/testdata/rerank_golden.json and
random_batch_golden.json.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_dataset_vectors import (  # noqa: E402
    OUT,
    FakeTokenizer,
    gen_prompt_decode_to_target_len,
    get_sampling_params,
)


def generate_token_sequence(rng, tokenizer, prefix_token_ids, prefix_len, vocab_size, input_len, offset, index,
                            allowed_tokens):
    # RandomDataset.generate_token_sequence
    inner_seq = allowed_tokens[(offset + index + np.arange(input_len)) % len(allowed_tokens)].tolist()
    token_sequence = prefix_token_ids + inner_seq
    total_input_len = prefix_len + int(input_len)
    prompt, adjusted_token_sequence, token_mismatch = gen_prompt_decode_to_target_len(
        tokenizer=tokenizer, token_sequence=token_sequence, target_token_len=total_input_len,
        add_special_tokens=False, rng=rng)
    total_input_len = len(adjusted_token_sequence)
    return prompt, total_input_len, token_mismatch, adjusted_token_sequence


def random_sample(tok, seed, num_requests, prefix, prefix_len, range_ratio, input_len, output_len, batchsize):
    # RandomDataset.sample, with the token ids of each prompt kept beside it.
    rng = np.random.default_rng(seed)
    input_lens, output_lens, offsets = get_sampling_params(rng, num_requests, range_ratio, input_len, output_len, tok)
    vocab_size = tok.vocab_size
    all_tokens = np.arange(vocab_size)
    allowed_tokens = np.array(list(set(all_tokens) - set(tok.all_special_ids)))
    prefix_token_ids = []
    if prefix_len > 0:
        prefix_tokens = allowed_tokens[rng.integers(0, len(allowed_tokens), size=prefix_len)].tolist()
        _, prefix_token_ids, _ = gen_prompt_decode_to_target_len(tok, prefix_tokens, prefix_len, rng=rng)
    requests = []
    for i in range(num_requests):
        prompt, total_input_len, _, ids = generate_token_sequence(
            rng, tok, prefix_token_ids, prefix_len, vocab_size, int(input_lens[i]), int(offsets[i]), i, allowed_tokens)
        requests.append({"prompt": prompt, "prompt_len": total_input_len, "expected_output_len": int(output_lens[i]),
                         "request_id": prefix + str(i), "token_ids": ids})
    if batchsize > 1:
        batch_requests = []
        for i in range(0, num_requests, batchsize):
            batch = requests[i: i + batchsize]
            batch_requests.append({"prompt": [req["prompt"] for req in batch],
                                   "prompt_len": sum(req["prompt_len"] for req in batch),
                                   "expected_output_len": 0,
                                   "request_id": prefix + str(i // batchsize)})
        requests = batch_requests
    return requests


def rerank_sample(tok, seed, num_requests, prefix, range_ratio, input_len, batchsize, is_reranker):
    # RandomDatasetForReranking.sample
    rng = np.random.default_rng(seed)
    n_sep_tokens = int(is_reranker)
    query_len_param = (input_len // 2) - n_sep_tokens if is_reranker else input_len
    query_lens, _, query_offsets = get_sampling_params(rng, 1, range_ratio, query_len_param, 0, tok)
    query_len = int(query_lens[0])
    if not is_reranker:
        assert num_requests > 1 and batchsize > 1
        num_requests -= 1
        batchsize -= 1
        doc_len_param = input_len
    else:
        doc_len_param = input_len - query_len - n_sep_tokens
    doc_lens, _, doc_offsets = get_sampling_params(rng, num_requests, range_ratio, doc_len_param, 0, tok)
    vocab_size = tok.vocab_size
    all_tokens = np.arange(vocab_size)
    allowed_tokens = np.array(list(set(all_tokens) - set(tok.all_special_ids)))
    query_prompt, query_input_len, token_mismatch_total, _ = generate_token_sequence(
        rng, tok, [], 0, vocab_size, query_len, int(query_offsets[0]), 0, allowed_tokens)
    requests = []
    for i in range(num_requests):
        prompt, total_input_len, token_mismatch, _ = generate_token_sequence(
            rng, tok, [], 0, vocab_size, int(doc_lens[i]), int(doc_offsets[i]), i + 1, allowed_tokens)
        token_mismatch_total += token_mismatch
        requests.append((prompt, total_input_len))
    batch_requests = []
    for i in range(0, num_requests, batchsize):
        batch = requests[i: i + batchsize]
        query_contrib = (query_input_len + n_sep_tokens) * len(batch) if is_reranker else query_input_len
        batch_requests.append({"prompt": [query_prompt] + [req[0] for req in batch],
                               "prompt_len": query_contrib + sum(req[1] for req in batch),
                               "expected_output_len": 0,
                               "request_id": prefix + str(i // batchsize)})
    return batch_requests, token_mismatch_total


def main():
    tok = FakeTokenizer()
    rerank = []
    for seed, n, rr, il, bs, reranker in [
        (0, 5, 0.0, 24, 1, True),
        (42, 9, 0.3, 40, 4, True),
        (7, 7, {"input": 0.5, "output": 0.0}, 30, 3, False),
        (123, 6, 0.0, 3, 2, True),
        (2**40, 10, 0.2, 300, 10, False),
        (9, 12, 0.9, 16, 5, True),
    ]:
        samples, mismatch = rerank_sample(tok, seed, n, "r-", rr, il, bs, reranker)
        rerank.append({"seed": seed, "num_prompts": n, "range_ratio": json.dumps(rr) if isinstance(rr, dict) else repr(rr),
                       "input_len": il, "batch_size": bs, "reranker": reranker, "token_mismatch_total": mismatch,
                       "samples": samples})
    json.dump(rerank, open(os.path.join(OUT, "rerank_golden.json"), "w"), indent=1, ensure_ascii=False)

    batches = []
    for seed, n, prefix_len, rr, il, ol, bs in [
        (0, 8, 0, 0.0, 24, 16, 1),
        (0, 8, 0, 0.0, 24, 16, 3),
        (123, 16, 7, 0.3, 50, 20, 4),
        (42, 5, 2, {"input": 0.5, "output": 0.0}, 40, 9, 8),
    ]:
        batches.append({"seed": seed, "num_prompts": n, "prefix_len": prefix_len,
                        "range_ratio": json.dumps(rr) if isinstance(rr, dict) else repr(rr),
                        "input_len": il, "output_len": ol, "batch_size": bs,
                        "samples": random_sample(tok, seed, n, "b-", prefix_len, rr, il, ol, bs)})
    json.dump(batches, open(os.path.join(OUT, "random_batch_golden.json"), "w"), indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
