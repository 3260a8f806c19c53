#!/usr/bin/env python3
"""chat_golden.py writes internal/tokenizer/testdata/golden/chat.json: chat
templates rendered by Jinja2 exactly as transformers' apply_chat_template
renders them, which the Go tests compare with github.com/ardanlabs/jinja.

transformers (4.4x-4.5x, utils/chat_template_utils.py) compiles a template
with

    ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                  extensions=[AssistantTracker, loopcontrols])

replaces the tojson filter by json.dumps(x, ensure_ascii=False, indent=...,
separators=..., sort_keys=...), adds the globals raise_exception and
strftime_now, and renders with messages, tools=None, documents=None,
add_generation_prompt and the tokenizer's special_tokens_map (bos_token,
eos_token, ...). This script does the same; only Jinja2 is needed
(pip install jinja2, 3.1.x).

Usage, from the repository root, after go run ./tools/fetchtestdata:

    python3 tools/tokenizer-golden/chat_golden.py

Real templates (Qwen3, Llama-3) are read from the fetched
tokenizer_config.json files and recorded by SHA-256 only; the small
templates below that exercise single features are stored in full.
"""

import hashlib
import json
import os
import sys
from datetime import datetime

import jinja2
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PKG = os.path.join(ROOT, "internal", "tokenizer")


class AssistantTracker(Extension):
    """transformers' {% generation %} tag, a pass-through when rendering."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return datetime.now().strftime(fmt)


def render(source, messages, add_generation_prompt, special):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[AssistantTracker, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    tmpl = env.from_string(source)
    try:
        return {"output": tmpl.render(messages=messages, tools=None, documents=None,
                                      add_generation_prompt=add_generation_prompt, **special)}
    except jinja2.exceptions.TemplateError as e:
        return {"error": str(e)}


def special_tokens(cfg):
    out = {}
    for k in ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"):
        v = cfg.get(k)
        if isinstance(v, dict):
            v = v.get("content")
        if v is not None:
            out[k] = v
    extra = cfg.get("additional_special_tokens")
    if extra:
        out["additional_special_tokens"] = [e["content"] if isinstance(e, dict) else e for e in extra]
    return out


USER = [{"role": "user", "content": "Hello there!"}]
CONVERSATIONS = [
    ("user", USER, True),
    ("user, no generation prompt", USER, False),
    ("unicode and whitespace", [{"role": "user", "content": "  Grüße, 世界 👋\n\tline two\r\n  "}], True),
    ("system and turns", [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Tokens? <|im_end|> <|eot_id|>"},
    ], True),
    ("reasoning", [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "<think>\nadd\n</think>\n\n4"},
        {"role": "user", "content": "and 3+3?"},
    ], True),
    ("empty prompt", [{"role": "user", "content": ""}], True),
]

# Small templates, each exercising what real templates rely on.
INLINE = {
    "raise": "{% if messages[0].role != 'system' %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}ok",
    "tojson": "{% for m in messages %}{{ m | tojson }}\n{% endfor %}{{ {'k': 'ü', 'n': [1, 2.5, none, true]} | tojson }}",
    "namespace and loop": (
        "{%- set ns = namespace(n=0, last='') %}\n"
        "{%- for m in messages[::-1] %}\n"
        "    {%- set ns.n = ns.n + 1 %}\n"
        "    {%- if loop.first %}{% set ns.last = m.role %}{% endif %}\n"
        "{%- endfor %}\n"
        "{{ ns.n }} {{ ns.last }} {{ messages | length }}\n"
        "{% for m in messages %}{% if loop.index0 == 1 %}{% continue %}{% endif %}{{ loop.index }}:{{ m.content | trim }}{{ ',' if not loop.last }}{% endfor %}"
    ),
    "whitespace control": (
        "{% for m in messages %}\n"
        "  <{{ m.role }}>\n"
        "    {{ m.content }}\n"
        "  {%- if not loop.last %}\n"
        "  ---\n"
        "  {% endif %}\n"
        "{% endfor %}\n"
        "{% if add_generation_prompt %}<assistant>{% endif %}"
    ),
    # Whitespace rules next to {{ }} tags, comments, raw blocks, markers.
    "expression next to a block": "{% for m in messages %}{{ m.role }}\n{% endfor %}\n  {{ bos_token }}{% if true %}|{% endif %}\n",
    "comments and raw": "A  {# note #}\n  {#- trimmed -#}  B\n    {% raw %}{{ not a tag }}\n{% endraw %}\nC {%+ if true +%}\nD{% endif %}\r\nE\n\n",
    "markers": "x  \n  {{- messages[0].role -}}  \n y {%- if add_generation_prompt -%} \n yes {%- else %} no {% endif -%}\n  {% generation %}g{% endgeneration %}",
    "string methods": (
        "{% for m in messages %}{{ m.content.strip().split(' ')[0] }}|{{ m.content.startswith('Hi') }}|"
        "{{ m.content.replace('l', 'L') }}|{{ m.content.lstrip('H') }}|{{ m['role'] | upper }}|"
        "{{ 'yes' if '!' in m.content else 'no' }}|{{ m.content[1:3] }}|{{ m.reasoning is defined }}\n{% endfor %}"
        "{{ bos_token ~ '|' ~ (eos_token | default('none')) }}"
    ),
}


def main():
    cases = []
    for name, folder in (("qwen3", "qwen3"), ("llama3", "llama3")):
        path = os.path.join(PKG, "testdata", "hf", folder, "tokenizer_config.json")
        with open(path, encoding="utf-8") as f:
            cfg = json.load(f)
        source = cfg["chat_template"]
        special = special_tokens(cfg)
        for title, messages, agp in CONVERSATIONS:
            case = {"tokenizer": name, "template_sha256": hashlib.sha256(source.encode()).hexdigest(),
                    "name": title, "messages": messages, "add_generation_prompt": agp}
            case.update(render(source, messages, agp, special))
            cases.append(case)
    special = {"bos_token": "<s>", "eos_token": "</s>"}
    for name, source in INLINE.items():
        for title, messages, agp in CONVERSATIONS[:4]:
            case = {"template": source, "special": special, "name": name + ": " + title,
                    "messages": messages, "add_generation_prompt": agp}
            case.update(render(source, messages, agp, special))
            cases.append(case)
    out = {"oracle": "Jinja2 %s with transformers' chat template environment (tools/tokenizer-golden/chat_golden.py)" % jinja2.__version__,
           "cases": cases}
    dest = os.path.join(PKG, "testdata", "golden", "chat.json")
    with open(dest, "w", encoding="utf-8") as f:
        f.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print("%d cases -> %s" % (len(cases), dest), file=sys.stderr)


if __name__ == "__main__":
    main()
