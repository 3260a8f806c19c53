#!/usr/bin/env bash
# gobench beside vLLM's own client on one real server, in one run: the same
# command line through both, alternating, REPEAT times each, then a table of
# what each run counted and measured. docs/servers.md says how to get the
# pieces (a vLLM source tree, Debian's Python packages, the reference
# client that imports vLLM's benchmark code unmodified).
#
#   side_by_side.sh OUTDIR -- <vllm bench serve flags>
#
# Env: GOBENCH (the binary, default bin/gobench), VLLM_SRC (a vLLM tree
# with vllm/benchmarks), VLLM_REF (vllm_ref_client.py, default
# ../shared/bench/vllm_ref_client.py), VLLM_PYTHON (default /usr/bin/python3),
# TOKENIZER (gobench's --tokenizer), REPEAT (default 5).
set -euo pipefail
out="${1:?usage: side_by_side.sh OUTDIR -- FLAGS...}"; shift
[ "${1:-}" = "--" ] && shift
: "${VLLM_SRC:?a vLLM source tree}" "${TOKENIZER:?the tokenizer folder for gobench}"
gobench="${GOBENCH:-bin/gobench}"
ref="${VLLM_REF:-../shared/bench/vllm_ref_client.py}"
py="${VLLM_PYTHON:-/usr/bin/python3}"
mkdir -p "$out"
for i in $(seq "${REPEAT:-5}"); do
  "$py" "$ref" --vllm-src "$VLLM_SRC" -- "$@" --disable-tqdm --save-result --save-detailed \
    --result-dir "$out" --result-filename "vllm-$i.json" >"$out/vllm-$i.log" 2>&1 || true
  "$gobench" serve "$@" --tokenizer "$TOKENIZER" --disable-tqdm --save-result --save-detailed \
    --result-dir "$out" --result-filename "gobench-$i.json" >"$out/gobench-$i.log" 2>&1 || true
done
python3 - "$out" <<'PY'
import glob, json, statistics, sys
def med(xs): return statistics.median(xs) * 1000 if xs else float("nan")
rows = {"vllm": [], "gobench": []}
for client in rows:
    for f in sorted(glob.glob(f"{sys.argv[1]}/{client}-*.json")):
        d = json.load(open(f))
        itls = [x for l in d.get("itls", []) for x in l]
        ttfts = [t for t, e in zip(d.get("ttfts", []), d.get("errors", [])) if not e]
        rows[client].append((d["completed"], d["failed"], d["total_input_tokens"], d["total_output_tokens"],
                             med(ttfts), med(itls), d.get("resent_requests", "-")))
print(f"{'client':8} {'ok':>4} {'failed':>6} {'in tok':>7} {'out tok':>7} {'TTFT p50 ms':>11} {'ITL p50 ms':>10} {'resent':>6}")
for client, rs in rows.items():
    for r in rs:
        print(f"{client:8} {r[0]:4d} {r[1]:6d} {r[2]:7d} {r[3]:7d} {r[4]:11.2f} {r[5]:10.2f} {r[6]!s:>6}")
PY
