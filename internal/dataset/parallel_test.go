package dataset

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobench/gobench/datasets"
	"github.com/gobench/gobench/internal/tokenizer"
)

// qwen3 loads the Qwen3 tokenizer of the tokenizer package's test data,
// skipping (or failing under GOBENCH_REQUIRE_TESTDATA) when it is missing.
func qwen3(tb testing.TB) tokenizer.Tokenizer {
	tb.Helper()
	dir := filepath.Join("..", "tokenizer", "testdata", "hf", "qwen3")
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		if os.Getenv("GOBENCH_REQUIRE_TESTDATA") != "" {
			tb.Fatalf("GOBENCH_REQUIRE_TESTDATA is set but %s is missing", dir)
		}
		tb.Skipf("%s is missing; run make testdata", dir)
	}
	tok, err := tokenizer.Load(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// TestRandomParallelEqualsSerial generates the random dataset on one
// goroutine and on several, for several seeds, lengths, prefixes and
// range ratios, with tokenizers whose fix-ups pad (drawing from the
// generator) and truncate: the samples and the warnings are the same.
func TestRandomParallelEqualsSerial(t *testing.T) {
	t.Parallel()
	toks := map[string]func(testing.TB) tokenizer.Tokenizer{
		"fake":    func(testing.TB) tokenizer.Tokenizer { return newFake() },
		"builtin": func(testing.TB) tokenizer.Tokenizer { return tokenizer.Builtin() },
		"qwen3":   qwen3,
	}
	cases := []struct {
		seed           int64
		n, in, prefix  int
		rr             RangeRatio
		promptTokenIDs bool
	}{
		{seed: 0, n: 40, in: 16, rr: RangeRatio{0.5, 0}},
		{seed: 1, n: 64, in: 100, prefix: 10, rr: RangeRatio{0.3, 0.3}, promptTokenIDs: true},
		{seed: 7, n: 33, in: 12, rr: RangeRatio{0.9, 0}},
		{seed: 42, n: 17, in: 257, prefix: 5},
	}
	for name, load := range toks {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tok := load(t)
			for _, c := range cases {
				opts := Options{Name: "random", NumPrompts: c.n, Seed: c.seed, RequestIDPrefix: "r-",
					RandomInputLen: c.in, RandomOutputLen: 8, RandomPrefixLen: c.prefix,
					RandomRangeRatio: c.rr, RandomBatchSize: 1, PromptTokenIDs: c.promptTokenIDs}
				var serialWarn strings.Builder
				want, err := random(opts, tok, &serialWarn, 1)
				if err != nil {
					t.Fatalf("seed %d: %v", c.seed, err)
				}
				for _, workers := range []int{2, 3, 8} {
					var warn strings.Builder
					got, err := random(opts, tok, &warn, workers)
					if err != nil {
						t.Fatalf("seed %d workers %d: %v", c.seed, workers, err)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("seed %d in %d workers %d (-serial +parallel):\n%s", c.seed, c.in, workers, diff)
					}
					if warn.String() != serialWarn.String() {
						t.Errorf("seed %d workers %d: warnings %q, serial %q", c.seed, workers, warn.String(), serialWarn.String())
					}
				}
			}
		})
	}
}

// BenchmarkRandom measures the random dataset's generation in prompt
// tokens per second, on GOMAXPROCS goroutines (go test -bench Random
// -cpu 1,2): 1000 prompts of 1024 tokens.
func BenchmarkRandom(b *testing.B) {
	for _, name := range []string{"builtin", "qwen3"} {
		b.Run(name, func(b *testing.B) {
			tok := tokenizer.Builtin()
			if name == "qwen3" {
				tok = qwen3(b)
			}
			opts := Options{Name: "random", NumPrompts: 1000, RandomInputLen: 1024, RandomOutputLen: 128, RandomBatchSize: 1}
			tokens := 0
			start := time.Now()
			for b.Loop() {
				ss, err := random(opts, tok, io.Discard, runtime.GOMAXPROCS(0))
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range ss {
					tokens += s.PromptLen
				}
			}
			b.ReportMetric(float64(tokens)/time.Since(start).Seconds(), "tokens/s")
		})
	}
}

// BenchmarkShareGPT measures the sharegpt dataset's generation in prompt
// tokens per second, on GOMAXPROCS goroutines (go test -bench ShareGPT
// -cpu 1,2): 1000 conversations of sonnet.txt's lines (the layout
// tools/genbench writes), read from the file and tokenized each time.
func BenchmarkShareGPT(b *testing.B) {
	lines := strings.SplitAfter(datasets.Sonnet, "\n")
	r := rand.New(rand.NewPCG(15, 15))
	text := func(k int) string {
		var s strings.Builder
		for range k {
			s.WriteString(lines[r.IntN(len(lines))])
		}
		return s.String()
	}
	type turn struct {
		From  string `json:"from"`
		Value string `json:"value"`
	}
	var convs []map[string]any
	for i := range 2000 {
		convs = append(convs, map[string]any{"id": i, "conversations": []turn{{"human", text(4 + r.IntN(60))}, {"gpt", text(2 + r.IntN(30))}}})
	}
	data, err := json.Marshal(convs)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "sharegpt.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"builtin", "qwen3"} {
		b.Run(name, func(b *testing.B) {
			tok := tokenizer.Builtin()
			if name == "qwen3" {
				tok = qwen3(b)
			}
			tokenizer.WaitBuilt(tok)
			opts := Options{Name: "sharegpt", Path: path, NumPrompts: 1000}
			tokens := 0
			start := time.Now()
			for b.Loop() {
				ss, err := shareGPT(opts, tok, NewGlobals(0), io.Discard, runtime.GOMAXPROCS(0))
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range ss {
					tokens += s.PromptLen
				}
			}
			b.ReportMetric(float64(tokens)/time.Since(start).Seconds(), "tokens/s")
		})
	}
}
