package tokenizer

import (
	gobuild "go/build"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchText is about 1 MB of English prose and Go source, the mix of text a
// benchmark prompt is made of.
func benchText(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	paths, _ := filepath.Glob(filepath.Join(gobuild.Default.GOROOT, "src", "net", "http", "*.go"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err == nil {
			b.Write(data)
		}
		if b.Len() > 1<<20 {
			break
		}
	}
	if b.Len() == 0 {
		tb.Skip("no Go source found to encode")
	}
	return b.String()
}

// randomText is what vLLM's random dataset encodes: the decoding of random
// base-vocabulary ids. Its words are mostly unique, so the BPE cache helps
// little.
func randomText(tok Tokenizer, n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	ids := make([]int, n)
	for i := range ids {
		ids[i] = r.IntN(tok.VocabSize())
	}
	return tok.Decode(ids)
}

func benchmarkEncode(b *testing.B, tok Tokenizer, text string) {
	tokens := 0
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		tokens += len(tok.Encode(text, false))
	}
	b.ReportMetric(float64(tokens)/time.Since(start).Seconds(), "tokens/s")
}

// benchmarkEncodePieces encodes text in pieces of about size bytes (cut at
// line ends), one Encode call each, as prompts are encoded.
func benchmarkEncodePieces(b *testing.B, tok Tokenizer, text string, size int) {
	var pieces []string
	for len(text) > 0 {
		n := min(size, len(text))
		if i := strings.LastIndexByte(text[:n], '\n'); i > 0 && n < len(text) {
			n = i + 1
		}
		pieces = append(pieces, text[:n])
		text = text[n:]
	}
	tokens, total := 0, 0
	for _, p := range pieces {
		total += len(p)
	}
	b.SetBytes(int64(total))
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		for _, p := range pieces {
			tokens += len(tok.Encode(p, false))
		}
	}
	b.ReportMetric(float64(tokens)/time.Since(start).Seconds(), "tokens/s")
}

// BenchmarkEncode measures single-goroutine encoding speed, reported as
// tokens/s: byte-level BPE (builtin, qwen3, llama3), SentencePiece-style
// BPE (mistral, mistral-metaspace) and WordPiece (bert).
func BenchmarkEncode(b *testing.B) {
	for _, name := range []string{"builtin", "qwen3", "llama3", "mistral", "mistral-metaspace", "bert"} {
		b.Run(name, func(b *testing.B) {
			tok := namedTokenizer(b, name)
			b.Run("source", func(b *testing.B) { benchmarkEncode(b, tok, benchText(b)) })
			// Prompt-sized pieces: SentencePiece-style tokenizers without a
			// pre-tokenizer merge a whole text as one word, so the size of
			// the text matters there.
			b.Run("prompts", func(b *testing.B) { benchmarkEncodePieces(b, tok, benchText(b), 4096) })
			b.Run("random", func(b *testing.B) { benchmarkEncode(b, tok, randomText(tok, 200_000)) })
		})
	}
}

// BenchmarkLoad measures loading a real tokenizer.json (11 MB for Qwen3).
func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"qwen3", "llama3"} {
		b.Run(name, func(b *testing.B) {
			dir := hfDir(b, name)
			for b.Loop() {
				if _, err := Load(dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRandomDataset measures what vLLM's random dataset asks of a
// tokenizer, in prompt tokens/s: each prompt is a window of consecutive
// ids at a random offset (random) or uniformly random ids
// (prefix_repetition), decoded, encoded again, cut or padded to its
// length and taken round once more, as gen_prompt_decode_to_target_len
// does. Every iteration draws new prompts, so the word cache is as warm
// as in a run of the same size rather than holding the previous
// iteration's words. Run it with -cpu 1: the figure per CPU-second then
// leaves out the other core's garbage collection.
func BenchmarkRandomDataset(b *testing.B) {
	tok, err := Load(hfDir(b, "qwen3"))
	if err != nil {
		b.Fatal(err)
	}
	for _, windows := range []bool{true, false} {
		name := "random"
		if !windows {
			name = "uniform"
		}
		b.Run(name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(3, 4))
			const promptLen = 1024
			tokens := 0
			start, cpu0 := time.Now(), cpuTime()
			for b.Loop() {
				for range 16 {
					seq := make([]int, promptLen)
					off := r.IntN(tok.VocabSize())
					for i := range seq {
						if windows {
							seq[i] = (off + i) % tok.VocabSize()
						} else {
							seq[i] = r.IntN(tok.VocabSize())
						}
					}
					for range 3 {
						_, seq = RoundTrip(tok, seq)
						if len(seq) == promptLen {
							break
						}
						for len(seq) < promptLen {
							seq = append(seq, r.IntN(tok.VocabSize()))
						}
						seq = seq[:promptLen]
					}
					tokens += len(seq)
				}
			}
			b.ReportMetric(float64(tokens)/time.Since(start).Seconds(), "tokens/s")
			// Per CPU-second, as genbench reports: steadier than the wall
			// figure on a machine shared with other work.
			b.ReportMetric(float64(tokens)/(cpuTime()-cpu0).Seconds(), "tokens/cpu-s")
		})
	}
}
