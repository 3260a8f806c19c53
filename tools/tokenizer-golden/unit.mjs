// unit.mjs writes the small hand-made tokenizer.json files of
// internal/tokenizer/testdata/unit. Each exercises one feature (merge
// formats, added-token flags, normalizers, post-processors, Split
// behaviours) or one refusal. gen.mjs then asks HF tokenizers for their
// golden ids. Usage: node unit.mjs
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dir = join(here, "..", "..", "internal", "tokenizer", "testdata", "unit");
mkdirSync(dir, { recursive: true });

// bytesToUnicode is GPT-2's byte-level alphabet.
function bytesToUnicode() {
  const bs = [];
  for (let b = 0x21; b <= 0x7e; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const map = new Map(bs.map((b) => [b, String.fromCodePoint(b)]));
  let n = 0;
  for (let b = 0; b < 256; b++) if (!map.has(b)) map.set(b, String.fromCodePoint(256 + n++));
  return map;
}
const b2u = bytesToUnicode();
const bl = (s) => Array.from(Buffer.from(s, "utf8"), (b) => b2u.get(b)).join("");

// vocabAndMerges makes the 256 byte tokens plus the given merges (written
// as raw text pairs). Merged tokens get ids in reverse merge order on
// purpose: ranks must come from the merge list, not from ids.
function vocabAndMerges(rawMerges) {
  const vocab = {};
  for (let b = 0; b < 256; b++) vocab[b2u.get(b)] = b;
  const merged = rawMerges.map(([a, b]) => bl(a + b));
  const fresh = [...new Set(merged)].filter((t) => !(t in vocab));
  fresh.reverse().forEach((t, i) => (vocab[t] = 256 + i));
  return { vocab, merges: rawMerges.map(([a, b]) => [bl(a), bl(b)]) };
}

const gpt4 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const byteLevel = (extra) => ({ type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false, ...extra });
const split = (pattern, behavior = "Isolated", invert = false) => ({ type: "Split", pattern, behavior, invert });
const added = (id, content, flags) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: false, ...flags });

const baseMerges = [
  ["h", "e"], ["l", "l"], ["he", "ll"], ["hell", "o"], [" ", "w"], ["o", "r"], [" w", "or"], [" wor", "l"], [" worl", "d"],
  ["a", "b"], ["ab", "c"], ["a", "bc"], // two merges make "abc"; the first one that applies wins
  ["b", "c"],
];

// model builds a BPE model from baseMerges. "ſ" is the two bytes C5 BF, so
// its merges are added in byte-level form: merging it with "o" shows whether
// the pre-tokenizer cut "'ſo" after the contraction "'ſ" (Oniguruma folds ſ
// to s in (?i:'s)).
function model(rawMerges, extra = {}) {
  const { vocab, merges } = vocabAndMerges(rawMerges);
  const s1 = b2u.get(0xc5), s2 = b2u.get(0xbf);
  vocab[s1 + s2] = Object.keys(vocab).length;
  vocab[s1 + s2 + "o"] = Object.keys(vocab).length;
  merges.push([s1, s2], [s1 + s2, "o"]);
  return { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges, ...extra };
}

function tokenizer(parts) {
  return { version: "1.0", truncation: null, padding: null, added_tokens: [], normalizer: null, pre_tokenizer: null, post_processor: null, decoder: byteLevel({ add_prefix_space: true, use_regex: true }), ...parts };
}

const write = (name, obj) => writeFileSync(join(dir, name), JSON.stringify(obj, null, 1) + "\n");

// basic: Split + ByteLevel, NFC then Lowercase, every added-token flag, and a
// "<s> $A </s>" template.
const basicModel = model(baseMerges);
const nextID = Object.keys(basicModel.vocab).length;
const basic = tokenizer({
  added_tokens: [
    added(nextID, "<s>", { special: true }),
    added(nextID + 1, "</s>", { special: true }),
    added(nextID + 2, "<|x|>", { special: true }),
    added(nextID + 3, "<|x|>y", { special: true }),
    added(nextID + 4, "[L]", { lstrip: true, special: true }),
    added(nextID + 5, "[R]", { rstrip: true, special: true }),
    added(nextID + 6, "[LR]", { lstrip: true, rstrip: true }),
    added(nextID + 7, "word", { single_word: true, normalized: true }),
    added(nextID + 8, "ÉCOLE", { normalized: true }),
    added(nextID + 9, "hello", { normalized: false }),
  ],
  normalizer: { type: "Sequence", normalizers: [{ type: "NFC" }, { type: "Lowercase" }] },
  pre_tokenizer: { type: "Sequence", pretokenizers: [split({ Regex: gpt4 }), byteLevel()] },
  post_processor: {
    type: "TemplateProcessing",
    single: [{ SpecialToken: { id: "<s>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "</s>", type_id: 0 } }],
    pair: [{ Sequence: { id: "A", type_id: 0 } }, { Sequence: { id: "B", type_id: 1 } }],
    special_tokens: { "<s>": { id: "<s>", ids: [nextID], tokens: ["<s>"] }, "</s>": { id: "</s>", ids: [nextID + 1], tokens: ["</s>"] } },
  },
  model: basicModel,
});
write("basic.json", basic);

// legacy: the same tokenizer with merges as "a b" strings and a #version line.
const legacy = structuredClone(basic);
legacy.model.merges = ["#version: 0.2", ...basic.model.merges.map(([a, b]) => `${a} ${b}`)];
write("legacy_merges.json", legacy);

// gpt2: ByteLevel alone (GPT-2 regex, add_prefix_space), ignore_merges and
// RobertaProcessing.
const gpt2Model = model(baseMerges, { ignore_merges: true });
const g2 = Object.keys(gpt2Model.vocab).length;
gpt2Model.vocab[bl(" xyz")] = g2; // reachable only through ignore_merges
write("gpt2.json", tokenizer({
  added_tokens: [added(g2 + 1, "<cls>", { special: true }), added(g2 + 2, "<sep>", { special: true })],
  pre_tokenizer: byteLevel({ add_prefix_space: true, use_regex: true }),
  post_processor: { type: "RobertaProcessing", sep: ["<sep>", g2 + 2], cls: ["<cls>", g2 + 1], trim_offsets: true, add_prefix_space: true },
  model: gpt2Model,
}));

// regex_split: Split behaviours that need the general regex engine.
write("regex_split.json", tokenizer({
  pre_tokenizer: {
    type: "Sequence",
    pretokenizers: [split({ Regex: "[0-9]+" }, "MergedWithNext"), split({ String: "-" }, "Removed"), split({ Regex: "\\s+" }, "MergedWithPrevious"), split({ Regex: "[a-z]+" }, "Contiguous", true), byteLevel()],
  },
  model: model(baseMerges),
}));

// Text kinds. metaspace_split: SentencePiece-style BPE with a Metaspace
// pre-tokenizer that splits and always prepends, its Metaspace decoder,
// every <0xXX> byte token, merges whose ranks do not follow ids, added tokens.
const spVocab = { "<unk>": 0, "<s>": 1, "</s>": 2 };
for (let b = 0; b < 256; b++) spVocab[`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`] = 3 + b;
const spChars = ["▁", ..."abcdehlorwtsnuiy.,!'", ..."你好", "é"];
for (const c of spChars) spVocab[c] = Object.keys(spVocab).length;
const spMerges = [["▁", "h"], ["e", "l"], ["▁h", "el"], ["l", "o"], ["▁hel", "lo"], ["▁", "w"], ["o", "r"], ["▁w", "or"], ["l", "d"], ["▁wor", "ld"], ["▁", "a"], ["a", "b"], ["▁a", "b"], ["你", "好"], ["▁", "你好"]];
const spMerged = spMerges.map(([a, b]) => a + b);
[...new Set(spMerged)].filter((t) => !(t in spVocab)).reverse().forEach((t) => (spVocab[t] = Object.keys(spVocab).length));
const spModel = (extra) => ({ type: "BPE", dropout: null, unk_token: "<unk>", continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab: spVocab, merges: spMerges, ...extra });
const spN = Object.keys(spVocab).length;
write("metaspace_split.json", tokenizer({
  added_tokens: [added(0, "<unk>", { special: true }), added(1, "<s>", { special: true }), added(2, "</s>", { special: true }), added(spN, "<tool>", { special: false, normalized: false })],
  pre_tokenizer: { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true },
  post_processor: {
    type: "TemplateProcessing",
    single: [{ SpecialToken: { id: "<s>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "</s>", type_id: 0 } }],
    pair: [{ Sequence: { id: "A", type_id: 0 } }, { Sequence: { id: "B", type_id: 1 } }],
    special_tokens: { "<s>": { id: "<s>", ids: [1], tokens: ["<s>"] }, "</s>": { id: "</s>", ids: [2], tokens: ["</s>"] } },
  },
  decoder: { type: "Sequence", decoders: [{ type: "ByteFallback" }, { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true }] },
  model: spModel({ fuse_unk: false }),
}));

// metaspace_bpe: the Prepend/Replace normalizer variant with a vocabulary
// that has no byte tokens, so missing characters become (fused) unk.
write("metaspace_bpe.json", tokenizer({
  normalizer: { type: "Sequence", normalizers: [{ type: "Prepend", prepend: "▁" }, { type: "Replace", pattern: { String: " " }, content: "▁" }] },
  decoder: { type: "Sequence", decoders: [{ type: "Replace", pattern: { String: "▁" }, content: " " }, { type: "ByteFallback" }, { type: "Fuse" }, { type: "Strip", content: " ", start: 1, stop: 0 }] },
  model: { type: "BPE", dropout: null, unk_token: "<unk>", continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: true, byte_fallback: true, vocab: { "<unk>": 0, "▁": 1, a: 2, "▁a": 3 }, merges: ["▁ a"] },
}));

// wordpiece: WordPiece with Lowercase, the Whitespace pre-tokenizer, a
// small max_input_chars_per_word, BertProcessing and a decoder without
// cleanup.
const wpVocab = { "[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3 };
for (const w of ["hello", "world", "he", "##llo", "##l", "##o", "h", "w", "##or", "##ld", "a", "##b", "##c", "!", ".", "'", "s", "t", "don", "##'", "你", "好", "é", "e", "##́"]) if (!(w in wpVocab)) wpVocab[w] = Object.keys(wpVocab).length;
write("wordpiece.json", tokenizer({
  added_tokens: [0, 1, 2, 3].map((id) => added(id, Object.keys(wpVocab)[id], { special: true })),
  normalizer: { type: "Lowercase" },
  pre_tokenizer: { type: "Whitespace" },
  post_processor: { type: "BertProcessing", sep: ["[SEP]", 3], cls: ["[CLS]", 2] },
  decoder: { type: "WordPiece", prefix: "##", cleanup: false },
  model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 8, vocab: wpVocab },
}));

// bpe_suffix: CLIP-style BPE with an end-of-word suffix and the BPEDecoder,
// after WhitespaceSplit.
const sfVocab = { "<unk>": 0 };
for (const c of "abcdehlorw!.") { sfVocab[c] = Object.keys(sfVocab).length; sfVocab[c + "</w>"] = Object.keys(sfVocab).length; }
const sfMerges = [["h", "e"], ["l", "l"], ["he", "ll"], ["hell", "o</w>"], ["w", "o"], ["wo", "r"], ["wor", "l"], ["worl", "d</w>"], ["a", "b"]];
for (const [a, b] of sfMerges) if (!((a + b) in sfVocab)) sfVocab[a + b] = Object.keys(sfVocab).length;
write("bpe_suffix.json", tokenizer({
  pre_tokenizer: { type: "WhitespaceSplit" },
  decoder: { type: "BPEDecoder", suffix: "</w>" },
  model: { type: "BPE", dropout: null, unk_token: "<unk>", continuing_subword_prefix: null, end_of_word_suffix: "</w>", fuse_unk: false, byte_fallback: false, vocab: sfVocab, merges: sfMerges },
}));

// Kinds that must be refused.
write("unigram.json", tokenizer({ pre_tokenizer: { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true }, model: { type: "Unigram", unk_id: 0, vocab: [["<unk>", 0], ["▁a", -1.5]], byte_fallback: false } }));
console.log(`unit tokenizers -> ${dir}`);
