#!/usr/bin/python3
"""Writes the vLLM-format fixtures of package resultfile (and of the tests of
compare, analyze and cli that read them), the way `vllm bench serve` writes
its files: json.dump with Python's defaults (bare Infinity for
--burstiness inf), keys in main_async's and benchmark()'s order, and for
--append-result a "\\n" before every record appended to a non-empty file
(vLLM's baseline append).

vllm_detailed.json is --save-detailed output of vLLM versions that did not
save latencies or queue_times yet. Its requests are the seed's worked example
(internal/metrics/calculate_test.go seedOutputs: five successful requests)
plus one failed request; the aggregate values are the ones NumPy 1.24.2
computed for that example (TestCalculateSeedExample), with --goodput
ttft:500 tpot:50 and --metric-percentiles 99.

Run from this directory: python3 gen_vllm_fixtures.py
"""
import json
import os

ok = [  # ttft, itl, n tokens, start
    (0.2, 0.020, 101, 0.0),
    (0.12, 0.022, 201, 0.5),
    (0.15, 0.025, 51, 1.0),
    (0.3, 0.055, 101, 1.5),
    (0.65, 0.0, 1, 2.0),
]
detailed = {
    "date": "20260101-010203",
    "endpoint_type": "openai",
    "backend": "openai",
    "label": None,
    "model_id": "meta-llama/Llama-3.2-1B-Instruct",
    "tokenizer_id": "meta-llama/Llama-3.2-1B-Instruct",
    "num_prompts": 6,
    "request_rate": 4.0,
    "burstiness": float("inf"),
    "max_concurrency": None,
    "duration": 8.0,
    "completed": 5,
    "failed": 1,
    "total_input_tokens": 4600,
    "total_output_tokens": 455,
    "request_throughput": 0.625,
    "request_goodput": 0.375,
    "output_throughput": 455 / 8,
    "total_token_throughput": (4600 + 455) / 8,
    "input_lens": [1000, 1000, 1000, 1000, 600, 1000],
    "output_lens": [n for _, _, n, _ in ok] + [0],
    "ttfts": [t for t, _, _, _ in ok] + [0.0],
    "itls": [[i] * (n - 1) for _, i, n, _ in ok] + [[]],
    "start_times": [s for _, _, _, s in ok] + [2.5],
    "generated_texts": ["x" * n for _, _, n, _ in ok] + [""],
    "errors": ["", "", "", "", "", "Bad Request"],
    "max_output_tokens_per_s": 134.0,
    "max_concurrent_requests": 5,
    "rtfx": 0.0,
    "mean_ttft_ms": 284.0,
    "median_ttft_ms": 200.0,
    "std_ttft_ms": 192.93522228976235,
    "p99_ttft_ms": 636.0,
    "mean_tpot_ms": 30.5,
    "median_tpot_ms": 23.5,
    "std_tpot_ms": 14.256577429383253,
    "p99_tpot_ms": 54.099999999999994,
    "mean_itl_ms": 29.22222222222222,
    "median_itl_ms": 22.0,
    "std_itl_ms": 13.846602293043892,
    "p99_itl_ms": 55.0,
    "mean_e2el_ms": 2913.9999999999995,
    "median_e2el_ms": 2200.0,
    "std_e2el_ms": 1940.9234915369539,
    "p99_e2el_ms": 5748.8,
}
with open("vllm_detailed.json", "w") as f:
    json.dump(detailed, f)


def run(label, rate, ttft, tput):
    return {
        "date": "20260102-0%d0000" % rate, "endpoint_type": "openai", "backend": "openai", "label": label,
        "model_id": "Qwen/Qwen3-8B", "tokenizer_id": "Qwen/Qwen3-8B", "num_prompts": 500,
        "request_rate": float(rate), "burstiness": 1.0, "max_concurrency": 64,
        "duration": 500 / rate + 1.5, "completed": 500, "failed": 0,
        "total_input_tokens": 512000, "total_output_tokens": 64000,
        "request_throughput": 500 / (500 / rate + 1.5), "request_goodput": None,
        "output_throughput": tput, "total_token_throughput": tput * 9,
        "max_output_tokens_per_s": tput * 1.5, "max_concurrent_requests": 31, "rtfx": 0.0,
        "mean_ttft_ms": ttft, "median_ttft_ms": ttft * 0.9, "std_ttft_ms": ttft / 4, "p99_ttft_ms": ttft * 2.5,
        "mean_tpot_ms": 21.5, "median_tpot_ms": 21.0, "std_tpot_ms": 1.25, "p99_tpot_ms": 25.75,
        "mean_itl_ms": 21.5, "median_itl_ms": 20.75, "std_itl_ms": 3.5, "p99_itl_ms": 40.25,
    }


if os.path.exists("vllm_runs.jsonl"):
    os.remove("vllm_runs.jsonl")
for rec in [run("base", 8, 120.5, 1024.25), run("tuned", 8, 98.25, 1100.5), run("tuned", 9, 101.0, 1180.75)]:
    with open("vllm_runs.jsonl", "a+") as f:
        if f.tell() != 0:
            f.write("\n")
        json.dump(rec, f)
