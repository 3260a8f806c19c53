#!/usr/bin/env python3
"""Generate internal/dataset/testdata/randommm_golden.json,
custom_image_golden.json and sharegpt_mm_golden.json from copies of vLLM's
RandomMultiModalDataset, CustomImageDataset and ShareGPTDataset's media (vllm/benchmarks/datasets/datasets.py, read at
003cf0297, the nearest readable version of the pinned 11dfa3169) run with
NumPy and CPython's random.

Only the image and video encoders are stubbed: where vLLM hands the drawn
pixels to Pillow (JPEG) or OpenCV (MP4), this records the item's shape and
a SHA-256 of its pixels, which gobench draws from the same generator. The
text half and the tokenizer are the ones gen_dataset_vectors.py uses.
Run with Debian's python3-numpy:

    /usr/bin/python3 tools/gen-dataset-vectors/gen_randommm_vectors.py
"""
import hashlib
import json
import math
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from gen_dataset_vectors import (  # noqa: E402
    OUT,
    FakeTokenizer,
    gen_prompt_decode_to_target_len,
    get_sampling_params,
    oversample,
)


class AddedToken:
    def __init__(self, special):
        self.special = special


class MMFakeTokenizer(FakeTokenizer):
    """FakeTokenizer with the added_tokens_decoder random-mm reads: ids 0
    and 1 are the special added tokens."""

    def __init__(self):
        super().__init__()
        self.added_tokens_decoder = {0: AddedToken(True), 1: AddedToken(True)}


class RandomMultiModalDataset:
    """vLLM's class, line by line, minus logging; generate_mm_item records
    instead of encoding."""

    def __init__(self, random_seed):
        self._rng = np.random.default_rng(random_seed)

    # RandomDataset.get_prefix and generate_token_sequence.
    def get_prefix(self, tokenizer, allowed_tokens, prefix_len):
        if prefix_len <= 0:
            return []
        prefix_tokens = allowed_tokens[self._rng.integers(0, len(allowed_tokens), size=prefix_len)].tolist()
        _, adjusted_tokens, _ = gen_prompt_decode_to_target_len(
            tokenizer=tokenizer, token_sequence=prefix_tokens, target_token_len=prefix_len,
            add_special_tokens=False, rng=self._rng)
        return adjusted_tokens

    def generate_token_sequence(self, *, tokenizer, prefix_token_ids, prefix_len, vocab_size, input_len, offset, index, allowed_tokens):
        inner_seq = allowed_tokens[(offset + index + np.arange(input_len)) % len(allowed_tokens)].tolist()
        token_sequence = prefix_token_ids + inner_seq
        total_input_len = prefix_len + int(input_len)
        prompt, adjusted_token_sequence, token_mismatch = gen_prompt_decode_to_target_len(
            tokenizer=tokenizer, token_sequence=token_sequence, target_token_len=total_input_len,
            add_special_tokens=False, rng=self._rng)
        total_input_len = len(adjusted_token_sequence)
        return prompt, total_input_len, token_mismatch

    def generate_synthetic_image(self, width, height):
        random_pixels = self._rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
        return {"height": height, "width": width, "frames": 1,
                "pixels_sha256": hashlib.sha256(random_pixels.tobytes()).hexdigest()}

    def generate_synthetic_video(self, width, height, num_frames):
        random_pixels = self._rng.integers(0, 256, (num_frames, height, width, 3), dtype=np.uint8)
        return {"height": height, "width": width, "frames": num_frames,
                "pixels_sha256": hashlib.sha256(random_pixels.tobytes()).hexdigest()}

    def map_config_to_modality(self, config):
        if config[-1] == 1:
            return "image"
        elif config[-1] > 1:
            return "video"
        else:
            raise ValueError(f"Invalid multimodal item configuration: {config}")

    def normalize_bucket_config(self, bucket_config):
        if any(v < 0 for v in bucket_config.values()):
            raise ValueError("Bucket config values must be non-negative.")
        bucket_config = {k: v for k, v in bucket_config.items() if v > 0}
        if not bucket_config:
            raise ValueError("Got invalid bucket config. Bucket config values must be non-zero.")
        total = sum(bucket_config.values())
        return {k: v / total for k, v in bucket_config.items()}

    def generate_mm_item(self, mm_item_config):
        if self.map_config_to_modality(mm_item_config) == "image":
            return self.generate_synthetic_image(int(mm_item_config[1]), int(mm_item_config[0]))
        elif self.map_config_to_modality(mm_item_config) == "video":
            return self.generate_synthetic_video(int(mm_item_config[1]), int(mm_item_config[0]), int(mm_item_config[2]))
        raise ValueError(f"Invalid multimodal item configuration: {mm_item_config}")

    def get_mm_item_sampling_params(self, base_items_per_request, num_mm_items_range_ratio, limit_mm_per_prompt, bucket_config):
        if not (0.0 <= num_mm_items_range_ratio <= 1.0):
            raise ValueError("num_mm_items_range_ratio must be in [0, 1].")
        for k, v in bucket_config.items():
            modality = self.map_config_to_modality(k)
            if modality not in limit_mm_per_prompt:
                raise ValueError(f"Modality {modality} is not in limit_mm_per_prompt: {limit_mm_per_prompt.keys()}")
        bucket_config = self.normalize_bucket_config(bucket_config)
        allowed_modalities = {self.map_config_to_modality(cfg) for cfg in bucket_config}
        limit_mm_per_prompt = {k: v for k, v in limit_mm_per_prompt.items() if k in allowed_modalities}
        if not limit_mm_per_prompt:
            raise ValueError("No valid limits for modalities present in bucket_config.")
        max_num_mm_items = min(sum(limit_mm_per_prompt.values()), math.ceil(base_items_per_request * (1 + num_mm_items_range_ratio)))
        min_num_mm_items = max(0, math.floor(base_items_per_request * (1 - num_mm_items_range_ratio)))
        if min_num_mm_items > max_num_mm_items:
            raise ValueError(f"Min num mm items is greater than max mm items: {min_num_mm_items} > {max_num_mm_items}")
        return min_num_mm_items, max_num_mm_items, limit_mm_per_prompt, bucket_config

    def get_mm_item_iterator(self, min_num_mm_items, max_num_mm_items, bucket_config, limit_mm_per_prompt):
        request_num_mm_items = int(self._rng.integers(min_num_mm_items, max_num_mm_items + 1))
        if request_num_mm_items == 0:
            return
        modality_counter = {self.map_config_to_modality(k): 0 for k in bucket_config}
        bucket_config_copy = bucket_config.copy()
        while sum(modality_counter.values()) < request_num_mm_items:
            mm_item_config = self._rng.choice(list(bucket_config_copy.keys()), p=list(bucket_config_copy.values()))
            modality = self.map_config_to_modality(mm_item_config)
            if modality_counter[modality] < limit_mm_per_prompt[modality]:
                modality_counter[modality] += 1
                yield (mm_item_config)
            else:
                for k, v in bucket_config_copy.items():
                    if self.map_config_to_modality(k) == modality:
                        bucket_config_copy[k] = 0
                if all(v == 0 for v in bucket_config_copy.values()):
                    break
                bucket_config_copy = self.normalize_bucket_config(bucket_config_copy)

    def sample(self, tokenizer, num_requests, request_id_prefix, prefix_len, range_ratio, input_len, output_len,
               limit_mm_per_prompt, base_items_per_request, num_mm_items_range_ratio, bucket_config):
        input_lens, output_lens, offsets = get_sampling_params(self._rng, num_requests, range_ratio, input_len, output_len, tokenizer)
        min_num_mm_items, max_num_mm_items, limit_mm_per_prompt, bucket_config = self.get_mm_item_sampling_params(
            base_items_per_request, num_mm_items_range_ratio, limit_mm_per_prompt, bucket_config)
        vocab_size = tokenizer.vocab_size
        prohibited_tokens = list(tok_id for tok_id, token in tokenizer.added_tokens_decoder.items() if token.special)
        all_tokens = np.arange(vocab_size)
        allowed_tokens = np.array(list(set(all_tokens) - set(prohibited_tokens)))
        prefix_token_ids = self.get_prefix(tokenizer, allowed_tokens, prefix_len)
        mm_requests = []
        for i in range(num_requests):
            prompt, total_input_len, token_mismatch = self.generate_token_sequence(
                tokenizer=tokenizer, prefix_token_ids=prefix_token_ids, prefix_len=prefix_len, vocab_size=vocab_size,
                input_len=int(input_lens[i]), offset=int(offsets[i]), index=i, allowed_tokens=allowed_tokens)
            mm_item_iterator = self.get_mm_item_iterator(min_num_mm_items, max_num_mm_items, bucket_config, limit_mm_per_prompt)
            mm_content = [self.generate_mm_item(c) for c in mm_item_iterator]
            mm_requests.append({"prompt": prompt, "prompt_len": total_input_len, "expected_output_len": int(output_lens[i]),
                                "request_id": request_id_prefix + str(i), "items": mm_content})
        return mm_requests


def process_image(image):
    """vLLM's process_image for a string, without --custom-ensure-client-side-data."""
    if isinstance(image, str):
        image_url = image if image.startswith(("http://", "https://", "file://", "data:image/")) else f"file://{image}"
        return {"type": "image_url", "image_url": {"url": image_url}}
    raise ValueError(f"Invalid image input {image}.")


def process_video(video):
    """vLLM's process_video for a string."""
    if isinstance(video, str):
        video_url = video if video.startswith(("http://", "https://", "file://")) else f"file://{video}"
        return {"type": "video_url", "video_url": {"url": video_url}}
    raise ValueError(f"Invalid video input {video}.")


def sharegpt_mm_sample(tok, path, seed, num_requests, prefix, output_len, enable_multimodal_chat):
    """ShareGPTDataset.load_data and sample with the image and video
    fields; media recorded as a list (gobench keeps one item as a list)."""
    data = json.load(open(path))
    data = [e for e in data if "conversations" in e and len(e["conversations"]) >= 2]
    random.seed(seed)
    random.shuffle(data)
    out = []
    ind = 0
    for entry in data:
        if len(out) >= num_requests:
            break
        prompt, completion = entry["conversations"][0]["value"], entry["conversations"][1]["value"]
        prompt_len = len(tok(prompt).input_ids)
        new_output_len = len(tok(completion).input_ids) if output_len is None else output_len
        skip = output_len is not None
        if prompt_len < 4 or (not skip and new_output_len < 4) or prompt_len > 1024 or prompt_len + new_output_len > 2048:
            continue
        if image_path := entry.get("image"):
            mm_content = process_image(image_path)
        elif video_path := entry.get("video"):
            mm_content = process_video(video_path)
        else:
            mm_content = None
        parts = None
        if enable_multimodal_chat:
            content = [{"text": prompt, "type": "text"}]
            if mm_content is not None:
                content.append(mm_content)
            parts = [{"role": "user", "content": content}]
            prompt = ""
        out.append({"prompt": prompt, "parts": parts, "prompt_len": prompt_len, "expected_output_len": new_output_len,
                    "request_id": prefix + str(ind), "media": [] if mm_content is None else [mm_content]})
        ind += 1
    oversample(out, num_requests, seed, prefix)
    return out


def process_content_part(part):
    t = part.get("type")
    if t == "text":
        return {"type": "text", "text": part["text"]}
    if t == "image":
        return dict(process_image(part["image"]))
    if t == "image_url":
        image_url = part.get("image_url")
        if isinstance(image_url, str):
            return dict(process_image(image_url))
        processed_part = dict(process_image(image_url["url"]))
        processed_image_url = dict(processed_part["image_url"])
        processed_image_url.update({k: v for k, v in image_url.items() if k != "url"})
        processed_part["image_url"] = processed_image_url
        return processed_part
    raise ValueError(t)


def custom_image_sample(tok, path, seed, num_requests, prefix, output_len, shuffle=True):
    """CustomImageDataset.load_data and sample; the single-image dict and
    the list of several are both recorded as a list, as gobench keeps
    them."""
    data = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                data.append(json.loads(line))
    random.seed(seed)
    if shuffle:
        random.shuffle(data)
    if num_requests <= 0:
        num_requests = len(data)
    out = []
    for i, item in enumerate(data):
        if len(out) >= num_requests:
            break
        if "content" in item:
            content = [process_content_part(p) for p in item["content"]]
            text = "".join(p["text"] for p in content if p.get("type") == "text")
            out.append({"prompt": "", "parts": content, "prompt_len": len(tok(text).input_ids),
                        "expected_output_len": output_len or 0, "request_id": prefix + str(i), "media": []})
            continue
        mm = [dict(process_image(im)) for im in item["image_files"]]
        out.append({"prompt": item["prompt"], "parts": None, "prompt_len": len(tok(item["prompt"]).input_ids),
                    "expected_output_len": output_len or 0, "request_id": prefix + str(i), "media": mm})
    oversample(out, num_requests, seed, prefix)
    return out


def main():
    images = []
    for i in range(9):
        if i % 3 == 2:
            images.append({"content": [{"type": "text", "text": f"look {i} "}, {"type": "image", "image": f"img{i}.png"},
                                       {"type": "text", "text": "the cat"},
                                       {"type": "image_url", "image_url": {"url": f"https://h/{i}.jpg", "detail": "low"}}]})
        else:
            files = [f"/abs/p{i}.png"] + ([f"file:///x/{i}.jpg", "data:image/png;base64,AAAA"] if i % 2 else [])
            images.append({"prompt": "the cat sat " * (i + 1), "image_files": files})
    ipath = os.path.join(OUT, "custom_image9.jsonl")
    with open(ipath, "w") as f:
        for r in images:
            f.write(json.dumps(r) + "\n")
    cimg = []
    for seed, n, ol, shuf in [(0, 5, 32, True), (42, 12, 7, True), (3, 0, 9, False)]:
        cimg.append({"seed": seed, "num_prompts": n, "output_len": ol, "shuffle": shuf,
                     "samples": custom_image_sample(FakeTokenizer(), ipath, seed, n, "ci-", ol, shuf)})
    with open(os.path.join(OUT, "custom_image_golden.json"), "w") as f:
        json.dump(cimg, f, indent=1, ensure_ascii=False)

    convs = []
    for i in range(14):
        turns = [{"from": "human", "value": "the cat sat on " * (1 + i % 4)}, {"from": "gpt", "value": "a b ab " * (2 + i % 3)}]
        c = {"id": f"m{i}", "conversations": turns}
        if i % 4 == 1:
            c["image"] = f"pics/{i}.jpg" if i % 8 == 1 else f"https://h/{i}.png"
        elif i % 4 == 2:
            c["video"] = f"clips/{i}.mp4"
        elif i == 3:
            c["image"], c["video"] = "", "file:///v/3.mp4"
        convs.append(c)
    spath = os.path.join(OUT, "sharegpt_mm14.json")
    with open(spath, "w") as f:
        json.dump(convs, f, indent=1)
    smm = []
    for seed, n, ol, chat in [(0, 10, None, False), (5, 20, 6, True)]:
        smm.append({"seed": seed, "num_prompts": n, "output_len": ol, "enable_multimodal_chat": chat,
                    "samples": sharegpt_mm_sample(FakeTokenizer(), spath, seed, n, "s-", ol, chat)})
    with open(os.path.join(OUT, "sharegpt_mm_golden.json"), "w") as f:
        json.dump(smm, f, indent=1, ensure_ascii=False)

    tok = MMFakeTokenizer()
    cases = []
    # (seed, n, prefix_len, range_ratio, input_len, output_len, base, items ratio, limits (JSON), buckets (Python literal))
    for seed, n, pl, rr, il, ol, base, irr, limits, buckets in [
        (0, 8, 3, 0.0, 20, 5, 2, 0.0, '{"image": 5}', "{(32, 32, 1): 0.5, (52, 64, 1): 0.5}"),
        (42, 10, 0, 0.2, 16, 8, 3, 0.5, '{"image": 2, "video": 1}', "{(8, 8, 1): 0.3, (4, 6, 1): 0.3, (6, 4, 3): 0.4}"),
        (7, 4, 0, 0.0, 12, 4, 0, 0.0, '{"image": 255, "video": 1}', "{(256, 256, 1): 0.5, (720, 1280, 1): 0.5, (720, 1280, 16): 0.0}"),
        (123, 12, 5, 0.5, 30, 6, 2, 1.0, '{"image": 3, "video": 2}',
         "{(1, 1, 1): 0.25, (3, 3, 1): 0.25, (2, 3, 2): 0.5, (9, 9, 1): 0, (3, 3, 1): 0.5}"),
        (2**40, 6, 0, 0.0, 40, 3, 4, 0.25, '{"video": 1, "image": 4}', "{(5, 7, 1): 1, (3, 5, 4): 2}"),
    ]:
        ds = RandomMultiModalDataset(seed)
        bucket_dict = eval(buckets)  # the literal vLLM's ast.literal_eval reads
        samples = ds.sample(tok, n, "mm-", pl, rr, il, ol, json.loads(limits), base, irr, bucket_dict)
        next_draw = int(ds._rng.integers(0, 2**32))
        cases.append({"seed": seed, "num_prompts": n, "prefix_len": pl, "range_ratio": repr(rr), "input_len": il,
                      "output_len": ol, "base_items": base, "items_range_ratio": irr, "limits": limits,
                      "buckets": buckets, "samples": samples, "next_uint32": next_draw})
    with open(os.path.join(OUT, "randommm_golden.json"), "w") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
