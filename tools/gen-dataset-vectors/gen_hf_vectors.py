#!/usr/bin/env python3
"""Generate golden samples for gobench's hf dataset (internal/dataset
hf*.go) from a line-by-line copy of the text classes of vLLM's
HuggingFaceDataset (vllm/benchmarks/datasets/datasets.py@003cf0297: sample()
of ConversationDataset, InstructCoderDataset, MTBenchDataset,
HumanEvalDataset, GSM8KDataset, AIMODataset, BlazeditDataset,
NextEditPredictionDataset, MLPerfDataset, maybe_oversample_requests) and of
the Hugging Face datasets library's shuffles (huggingface/datasets@b7cb10b0:
Dataset.shuffle -> generator.permutation; IterableDataset.shuffle ->
_shuffle_gen_kwargs on the shard list, then
BufferShuffledExamplesIterable.__iter__ with buffer_size=1000, reading the
shards one after the other as datasets 4 does), run with NumPy and
CPython's random on small JSON Lines files written here. The datasets
library itself (and pyarrow) is not needed: its load_dataset only feeds
the rows of the files, in file order, to the shuffles copied below.

The tokenizer is the stand-in of gen_dataset_vectors.py (and
internal/dataset/fake_test.go). Run with Debian's python3-numpy:

    /usr/bin/python3 tools/gen-dataset-vectors/gen_hf_vectors.py

It rewrites internal/dataset/testdata/hf/.
"""
import json
import os
import random
import sys
import wave
from copy import deepcopy

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from gen_dataset_vectors import ChatFakeTokenizer, oversample  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "internal", "dataset", "testdata", "hf")


# ---- the datasets library's shuffles ---------------------------------------

def read_rows(files):
    for path in files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def _iter_random_indices(rng, buffer_size, random_batch_size=1000):
    while True:
        yield from (int(i) for i in rng.integers(0, buffer_size, size=random_batch_size))


def buffer_shuffled(ex_iterable, buffer_size, generator):
    rng = deepcopy(generator)
    indices_iterator = _iter_random_indices(rng, buffer_size)
    mem_buffer = []
    for x in ex_iterable:
        if len(mem_buffer) == buffer_size:
            i = next(indices_iterator)
            yield mem_buffer[i]
            mem_buffer[i] = x
        else:
            mem_buffer.append(x)
    rng.shuffle(mem_buffer)
    yield from mem_buffer


def _shuffle_gen_kwargs(rng, gen_kwargs):
    list_sizes = {len(value) for value in gen_kwargs.values() if isinstance(value, list)}
    indices_per_size = {}
    for size in list_sizes:
        indices_per_size[size] = list(range(size))
        rng.shuffle(indices_per_size[size])
    shuffled_kwargs = dict(gen_kwargs)
    for key, value in shuffled_kwargs.items():
        if isinstance(value, list):
            shuffled_kwargs[key] = [value[i] for i in indices_per_size[len(value)]]
    return shuffled_kwargs


def load(files, seed, stream, disable_shuffle):
    """HuggingFaceDataset.load_data: load_dataset(...) then shuffle(seed)."""
    if disable_shuffle:
        return read_rows(files)
    if not stream:
        rows = list(read_rows(files))
        permutation = np.random.default_rng(seed).permutation(len(rows))
        return [rows[i] for i in permutation]
    generator = np.random.default_rng(seed)
    kwargs = _shuffle_gen_kwargs(deepcopy(generator), {"files": list(files)})
    return buffer_shuffled(read_rows(kwargs["files"]), 1000, generator)


class Data:
    """The few IterableDataset/Dataset methods the classes call."""

    def __init__(self, rows):
        self.rows = rows

    def __iter__(self):
        return iter(self.rows)

    def filter(self, fn):
        return Data(x for x in self.rows if fn(x))

    def take(self, n):
        def gen():
            for i, x in enumerate(self.rows):
                if i >= n:
                    return
                yield x
        return Data(gen())


# ---- vLLM ------------------------------------------------------------------

def is_valid_sequence(prompt_len, output_len, min_len=4, max_prompt_len=1024, max_total_len=2048,
                      skip_min_output_len_check=False):
    prompt_too_short = prompt_len < min_len
    output_too_short = (not skip_min_output_len_check) and (output_len < min_len)
    prompt_too_long = prompt_len > max_prompt_len
    combined_too_long = (prompt_len + output_len) > max_total_len
    return not (prompt_too_short or output_too_short or prompt_too_long or combined_too_long)


def S(prompt, prompt_len, expected_output_len, request_id):
    return {"prompt": prompt, "prompt_len": prompt_len, "expected_output_len": expected_output_len,
            "request_id": request_id}


def tmpl(tokenizer, prompt, skip_chat_template):
    if skip_chat_template:
        return prompt
    return tokenizer.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True,
                                         tokenize=False)


def instruct_coder(data, tokenizer, num_requests, prefix, output_len, skip_chat_template=False, **kw):
    output_len = output_len if output_len is not None else 200
    out = []
    for i, item in enumerate(data.take(num_requests)):
        prompt = (f"{item['input']}\n\n{item['instruction']} Just output "
                  "the code, do not include any explanation.")
        prompt = tmpl(tokenizer, prompt, skip_chat_template)
        out.append(S(prompt, len(tokenizer(prompt).input_ids), output_len, prefix + str(i)))
    return out


def single_turn(get, default):
    def sample(data, tokenizer, num_requests, prefix, output_len, skip_chat_template=False, **kw):
        output_len = output_len if output_len is not None else default
        out = []
        for i, item in enumerate(data):
            if len(out) >= num_requests:
                break
            prompt = tmpl(tokenizer, get(item), skip_chat_template)
            out.append(S(prompt, len(tokenizer(prompt).input_ids), output_len, prefix + str(i)))
        return out
    return sample


def aimo(data, tokenizer, num_requests, prefix, output_len, **kw):
    out = []
    ind = 0
    dynamic_output = output_len is None
    for item in data:
        if len(out) >= num_requests:
            break
        prompt, completion = item["problem"], item["solution"]
        prompt_len = len(tokenizer(prompt).input_ids)
        completion_len = len(tokenizer(completion).input_ids)
        output_len = completion_len if dynamic_output else output_len
        assert isinstance(output_len, int) and output_len > 0
        if dynamic_output and not is_valid_sequence(prompt_len, completion_len, max_prompt_len=2048,
                                                    max_total_len=32000):
            continue
        out.append(S(prompt, prompt_len, output_len, prefix + str(ind)))
        ind += 1
    return out


def blazedit(data, tokenizer, num_requests, prefix, output_len, skip_chat_template=False, min_distance=0.0,
             max_distance=1.0, **kw):
    output_len = output_len if output_len is not None else 4000
    out = []
    for i, item in enumerate(data):
        if len(out) >= num_requests:
            break
        code = item["code"]
        change_request = item["change_request"]
        norm_distance = item["norm_distance"]
        if norm_distance < min_distance or norm_distance > max_distance:
            continue
        prompt = f"""Given a code file, please apply the change requests and generate the new file.

Original file:
```python
{code}
```

Change request:
{change_request}

Please generate the new code file in the "New file" section below."""  # noqa: E501
        prompt = tmpl(tokenizer, prompt, skip_chat_template)
        out.append(S(prompt, len(tokenizer(prompt).input_ids), output_len, prefix + str(i)))
    return out


zeta_prompt = """### Instruction:
You are a code completion assistant and your task is to analyze user edits and then rewrite an excerpt that the user provides, suggesting the appropriate edits within the excerpt, taking into account the cursor location.

### User Edits:

{}

### User Excerpt:

{}

### Response:

"""  # noqa: E501


def _format_zeta_prompt(sample, original_start_marker="<|editable_region_start|>"):
    events = sample["events"]
    input = sample["input"]
    output = sample["output"]
    prompt = zeta_prompt.format(events, input)
    output_start_index = output.find(original_start_marker)
    output_focused_region = output[output_start_index:]
    return {"prompt": prompt, "expected_output": output_focused_region}


def next_edit(data, tokenizer, num_requests, prefix, *args, **kw):
    samples = []
    for i, sample in enumerate(data):
        sample = _format_zeta_prompt(sample)
        samples.append(S(sample["prompt"], len(tokenizer(sample["prompt"]).input_ids),
                         len(tokenizer(sample["expected_output"]).input_ids), prefix + str(i)))
        if len(samples) >= num_requests:
            break
    return samples


def mlperf(data, tokenizer, num_requests, prefix, output_len, **kw):
    out = []
    ind = 0
    for item in data:
        if len(out) >= num_requests:
            break
        messages = [{"role": "system", "content": item["system_prompt"]},
                    {"role": "user", "content": item["question"]}]
        prompt_formatted = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        prompt_len = len(tokenizer(prompt_formatted).input_ids)
        ref_out_len = len(tokenizer.encode(item["output"], add_special_tokens=False))
        expected_output_len = ref_out_len if output_len is None else output_len
        if not is_valid_sequence(prompt_len, expected_output_len):
            continue
        out.append(S(prompt_formatted, prompt_len, expected_output_len, prefix + str(ind)))
        ind += 1
    return out


def process_image(image, ensure_client_side_data=False):
    """process_image's str branch (the rows here carry URLs and paths;
    images stored as bytes go through Pillow, which is not copied)."""
    if isinstance(image, str):
        image_url = (
            image
            if image.startswith(("http://", "https://", "file://", "data:image/"))
            else f"file://{image}"
        )
        return {"type": "image_url", "image_url": {"url": image_url}}
    raise ValueError(f"Invalid image input {image}.")


def conversation(data, tokenizer, num_requests, prefix, output_len, **kw):
    """ConversationDataset and MultiModalConversationDataset (the same
    code)."""
    filtered_data = data.filter(lambda x: len(x["conversations"]) >= 2)
    sampled_requests = []
    ind = 0
    dynamic_output = output_len is None
    for item in filtered_data:
        if len(sampled_requests) >= num_requests:
            break
        conv = item["conversations"]
        prompt, completion = conv[0]["value"], conv[1]["value"]
        prompt_len = len(tokenizer(prompt).input_ids)
        completion_len = len(tokenizer(completion).input_ids)
        output_len = completion_len if dynamic_output else output_len
        assert isinstance(output_len, int) and output_len > 0
        if dynamic_output and not is_valid_sequence(prompt_len, completion_len):
            continue
        mm_content = process_image(item["image"]) if "image" in item else None
        r = S(prompt, prompt_len, output_len, prefix + str(ind))
        r["multi_modal_data"] = mm_content
        sampled_requests.append(r)
        ind += 1
    return sampled_requests


VISION_ARENA = {
    "lmarena-ai/VisionArena-Chat": lambda x: x["conversation"][0][0]["content"],
    "lmarena-ai/vision-arena-bench-v0.1": lambda x: x["turns"][0][0]["content"],
}


def vision_arena(hf_name):
    def sample(data, tokenizer, num_requests, prefix, output_len, **kw):
        parser_fn = VISION_ARENA.get(hf_name)
        output_len = output_len if output_len is not None else 128
        out = []
        for i, item in enumerate(data):
            if len(out) >= num_requests:
                break
            prompt = parser_fn(item)
            mm_content = process_image(item["images"][0])
            prompt_len = len(tokenizer.encode(prompt))
            r = S(prompt, prompt_len, output_len, prefix + str(i))
            r["multi_modal_data"] = mm_content
            out.append(r)
        return out
    return sample


def mmstar(data, tokenizer, num_requests, prefix, output_len, **kw):
    output_len = output_len if output_len is not None else 128
    out = []
    for ind, item in enumerate(data):
        if len(out) >= num_requests:
            break
        full_q = item.get("question", "")
        question_text = full_q.split("Options:", 1)[0].strip()
        mm_content = process_image(item["image"])
        prompt_len = len(tokenizer(question_text).input_ids)
        r = S(question_text, prompt_len, output_len, prefix + str(ind))
        r["multi_modal_data"] = mm_content
        out.append(r)
    return out


def wav_info_duration(path):
    """soundfile.info(path).duration for a WAV file, with the standard
    library's wave module."""
    with wave.open(path, "rb") as w:
        return w.getnframes() / w.getframerate()


def asr(data, tokenizer, num_requests, prefix, output_len, asr_min_audio_len_sec=None,
        asr_max_audio_len_sec=None, **kw):
    output_len = output_len if output_len is not None else 1024
    name_or_path = getattr(tokenizer, "name_or_path", "")
    if "openai" in name_or_path:
        prompt = "<|startoftranscript|><|en|><|transcribe|><|notimestamps|>"
    else:
        prompt = ""
    prompt_len = len(tokenizer(prompt).input_ids)
    sampled_requests = []
    ind = 0
    asr_min = float(asr_min_audio_len_sec or 0.0)
    asr_max = float(asr_max_audio_len_sec or float("inf"))
    for item in data:
        if len(sampled_requests) >= num_requests:
            break
        audio = item["audio"]
        if isinstance(audio, dict) and audio.get("path"):
            duration_s = wav_info_duration(audio["path"])
        else:
            raise ValueError("ASR samples must provide decoded audio arrays, embedded audio bytes, or a local audio path.")
        if duration_s < asr_min or duration_s > asr_max:
            continue
        r = S(prompt, prompt_len, output_len, prefix + str(ind))
        r["audio_duration"] = duration_s
        sampled_requests.append(r)
        ind += 1
    return sampled_requests


CLASSES = {
    "lmms-lab/LLaVA-OneVision-Data": conversation,
    "lmarena-ai/VisionArena-Chat": vision_arena("lmarena-ai/VisionArena-Chat"),
    "lmarena-ai/vision-arena-bench-v0.1": vision_arena("lmarena-ai/vision-arena-bench-v0.1"),
    "Lin-Chen/MMStar": mmstar,
    "openslr/librispeech_asr": asr,
    "Aeala/ShareGPT_Vicuna_unfiltered": conversation,
    "likaixin/InstructCoder": instruct_coder,
    "philschmid/mt-bench": single_turn(lambda x: x["turns"][0], 256),
    "openai/openai_humaneval": single_turn(lambda x: x["prompt"], 256),
    "openai/gsm8k": single_turn(lambda x: x["question"], 256),
    "AI-MO/aimo-validation-aime": aimo,
    "vdaita/edit_5k_char": blazedit,
    "zed-industries/zeta": next_edit,
    "mgoin/mlperf-inference-llama3.1-data": mlperf,
}


# ---- inputs ----------------------------------------------------------------

WORDS = ["the", "cat", "sat", "on", "mat", "abc", "bad", "cab", "中文", "é", "a", "b"]


def text(i, n):
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n))


def write_jsonl(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def inputs():
    """Writes the data files; returns {name: (hf_name, files)} with paths
    relative to OUT."""
    sets = {}
    # ShareGPT-like, 2100 rows in three shards: the buffer fills, replaces
    # and is shuffled at the end; some rows have one turn, some are short.
    convs = []
    for i in range(2100):
        turns = [{"from": "human", "value": f"q{i} " + text(i, 1 + i % 9)},
                 {"from": "gpt", "value": text(i + 1, i % 7)}]
        if i % 17 == 5:
            turns = turns[:1]
        convs.append({"id": f"c{i}", "conversations": turns})
    files = []
    for k, (a, b) in enumerate([(0, 800), (800, 1500), (1500, 2100)]):
        rel = f"sharegpt/data/train-{k:05d}-of-00003.jsonl"
        write_jsonl(os.path.join(OUT, rel), convs[a:b])
        files.append(rel)
    sets["sharegpt"] = ("Aeala/ShareGPT_Vicuna_unfiltered", files)

    def one(name, hf_name, rows, split="train"):
        # Named for the split vLLM's get_samples gives the class (GSM8K's
        # subset "main" is a directory).
        rel = f"{name}/{split}.jsonl"
        write_jsonl(os.path.join(OUT, rel), rows)
        sets[name] = (hf_name, [rel])

    one("instructcoder", "likaixin/InstructCoder",
        [{"input": f"def f{i}(): " + text(i, 2 + i % 4), "instruction": "fix " + text(i + 3, 1 + i % 3)} for i in range(40)])
    one("mtbench", "philschmid/mt-bench", [{"turns": [f"turn {i} " + text(i, 1 + i % 5), "second"]} for i in range(30)])
    one("humaneval", "openai/openai_humaneval", [{"prompt": f"def g{i}(): " + text(i, 3)} for i in range(20)], "test")
    one("gsm8k", "openai/gsm8k", [{"question": f"how many {i} " + text(i, 2 + i % 6)} for i in range(25)], "main/test")
    one("aimo", "AI-MO/aimo-validation-aime",
        [{"problem": f"p{i} " + text(i, i % 6), "solution": text(i + 2, i % 8)} for i in range(50)])
    one("blazedit", "vdaita/edit_5k_char",
        [{"code": f"x = {i}\n" + text(i, 3), "change_request": "rename " + text(i, 1),
          "norm_distance": round((i * 37 % 100) / 100.0, 2)} for i in range(60)])
    one("zeta", "zed-industries/zeta",
        [{"events": f"edit {i} " + text(i, 2), "input": "<|editable_region_start|>" + text(i, 3),
          "output": (text(i + 1, 2) + "<|editable_region_start|>" + text(i, 4)) if i % 4 else "no marker é"}
         for i in range(30)])
    one("mlperf", "mgoin/mlperf-inference-llama3.1-data",
        [{"system_prompt": "be brief", "question": f"q{i} " + text(i, i % 7), "output": text(i + 5, i % 9)}
         for i in range(40)])
    # Multimodal: images as URLs and paths (process_image's str branch).
    one("llava", "lmms-lab/LLaVA-OneVision-Data",
        [{"conversations": [{"from": "human", "value": f"look {i} " + text(i, 1 + i % 5)},
                            {"from": "gpt", "value": text(i + 2, i % 6)}],
          "image": f"https://img.example/{i}.png" if i % 2 else f"imgs/{i}.jpg"} for i in range(30)])
    one("visionarena", "lmarena-ai/VisionArena-Chat",
        [{"conversation": [[{"role": "user", "content": f"what is {i} " + text(i, 2)}]],
          "images": [f"data:image/png;base64,AAA{i}"]} for i in range(20)])
    one("visionbench", "lmarena-ai/vision-arena-bench-v0.1",
        [{"turns": [[{"role": "user", "content": f"bench {i} " + text(i, 3)}]],
          "images": [f"http://x/{i}.jpg", "second"]} for i in range(10)])
    one("mmstar", "Lin-Chen/MMStar",
        [{"question": f"  q{i} " + text(i, 2) + " \nOptions: A: a, B: b" + (" Options: C" if i % 3 == 0 else ""),
          "image": f"file:///data/{i}.png"} for i in range(15)], "val")
    # ASR: WAV clips of 2 kHz, 16-bit, mono or stereo, 0.1 to 2.0 s.
    clips = os.path.join(OUT, "asr", "clips")
    os.makedirs(clips, exist_ok=True)
    rows = []
    for i in range(12):
        path = os.path.join(clips, f"c{i}.wav")
        channels = 1 + i % 2
        frames = 200 + 325 * i
        with wave.open(path, "wb") as w:
            w.setnchannels(channels)
            w.setsampwidth(2)
            w.setframerate(2000)
            w.writeframes(bytes((k * 7 + i) % 256 for k in range(frames * channels * 2)))
        rows.append({"audio": {"path": f"testdata/hf/asr/clips/c{i}.wav", "bytes": None}, "text": text(i, 3)})
    one("asr", "openslr/librispeech_asr", rows)
    return sets


def main():
    random.seed(0)
    tok = ChatFakeTokenizer()
    sets = inputs()
    cases = []
    # ASRDataset reads its local audio paths relative to the working
    # directory: Go's tests run in internal/dataset.
    os.chdir(os.path.join(OUT, "..", ".."))
    for name, seed, n, stream, noshuf, output_len, skip, extra in [
        ("sharegpt", 0, 30, True, False, None, False, {}),
        ("sharegpt", 7, 2200, True, False, None, False, {}),
        ("sharegpt", 3, 40, False, False, 10, False, {}),
        ("sharegpt", 5, 20, True, True, None, False, {}),
        ("instructcoder", 0, 10, True, False, None, False, {}),
        ("instructcoder", 9, 50, False, False, 33, True, {}),
        ("mtbench", 1, 12, True, False, None, False, {}),
        ("humaneval", 2, 25, True, False, None, True, {}),
        ("gsm8k", 4, 8, False, False, None, False, {}),
        ("aimo", 6, 60, True, False, None, False, {}),
        ("aimo", 6, 5, True, False, 12, False, {}),
        ("blazedit", 8, 15, True, False, None, False, {"min_distance": 0.2, "max_distance": 0.7}),
        ("blazedit", 8, 70, False, False, 99, True, {}),
        ("zeta", 10, 12, True, False, None, False, {}),
        ("mlperf", 11, 30, True, False, None, False, {}),
        ("mlperf", 12, 10, True, True, 7, False, {}),
        ("llava", 13, 12, True, False, None, False, {}),
        ("visionarena", 14, 8, True, False, None, False, {}),
        ("visionbench", 15, 12, False, False, 9, False, {}),
        ("mmstar", 16, 20, True, False, None, False, {}),
        ("asr", 17, 6, True, False, None, False, {"asr_min_audio_len_sec": 0.5, "asr_max_audio_len_sec": 2.0}),
        ("asr", 18, 20, False, False, 50, False, {}),
    ]:
        hf_name, files = sets[name]
        data = Data(load([os.path.join(OUT, f) for f in files], seed, stream, noshuf))
        samples = CLASSES[hf_name](data, tok, n, "hf-", output_len, skip_chat_template=skip, **extra)
        oversample(samples, n, seed, "hf-")  # maybe_oversample_requests
        for r in samples:
            if r.get("multi_modal_data", 0) is None:  # text rows: keep the file small
                del r["multi_modal_data"]
        # ConversationDataset has no default split: vLLM needs --hf-split.
        cases.append({"dir": name, "split": "train" if name in ("sharegpt", "llava") else "", "hf_name": hf_name, "seed": seed, "num_prompts": n, "no_stream": not stream,
                      "disable_shuffle": noshuf, "output_len": output_len, "skip_chat_template": skip,
                      "min_distance": extra.get("min_distance", 0.0), "max_distance": extra.get("max_distance", 1.0),
                      "asr_min": extra.get("asr_min_audio_len_sec", 0.0), "asr_max": extra.get("asr_max_audio_len_sec"),
                      "samples": samples})
    with open(os.path.join(OUT, "hf_golden.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
