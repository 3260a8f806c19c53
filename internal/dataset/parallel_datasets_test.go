package dataset

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/tokenizer"
)

// parallelCase generates a dataset with one worker and with several, from
// the same seed, and compares the samples, the warnings and the state the
// global generators are left in (the LoRA assignment and the arrivals
// continue them).
func parallelCase(t *testing.T, seed int64, gen func(g *Globals, warn io.Writer, workers int) ([]Sample, error)) {
	t.Helper()
	var serialWarn strings.Builder
	g := NewGlobals(seed)
	want, err := gen(g, &serialWarn, 1)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	wantNext := [2]uint32{g.Random.Uint32(), g.NumPy.Uint32()}
	for _, workers := range []int{2, 3, 8} {
		var warn strings.Builder
		g := NewGlobals(seed)
		got, err := gen(g, &warn, workers)
		if err != nil {
			t.Fatalf("seed %d workers %d: %v", seed, workers, err)
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(sameJSON)); diff != "" {
			t.Errorf("seed %d workers %d (-serial +parallel):\n%s", seed, workers, diff)
		}
		if warn.String() != serialWarn.String() {
			t.Errorf("seed %d workers %d: warnings %q, serial %q", seed, workers, warn.String(), serialWarn.String())
		}
		if next := [2]uint32{g.Random.Uint32(), g.NumPy.Uint32()}; next != wantNext {
			t.Errorf("seed %d workers %d: generators left at %v, serial at %v", seed, workers, next, wantNext)
		}
	}
}

// sameJSON compares two media parts by their JSON.
func sameJSON(a, b *pyjson.Object) bool {
	ab, errA := a.MarshalJSON()
	bb, errB := b.MarshalJSON()
	return errA == nil && errB == nil && bytes.Equal(ab, bb)
}

// eachTokenizer runs test in parallel subtests with the fake tokenizer
// (whose fix-ups pad often), the built-in one and Qwen3's.
func eachTokenizer(t *testing.T, test func(t *testing.T, name string, tok tokenizer.Tokenizer)) {
	loads := map[string]func(testing.TB) tokenizer.Tokenizer{
		"fake":    func(testing.TB) tokenizer.Tokenizer { return chatFake{newFake()} },
		"builtin": func(testing.TB) tokenizer.Tokenizer { return tokenizer.Builtin() },
		"qwen3":   qwen3,
	}
	for name, load := range loads {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, name, load(t))
		})
	}
}

// TestShareGPTParallelEqualsSerial: sharegpt on several goroutines gives
// the serial samples, with and without --sharegpt-output-len, with fewer
// and more prompts than valid entries (oversampling).
func TestShareGPTParallelEqualsSerial(t *testing.T) {
	t.Parallel()
	outLen := 12
	eachTokenizer(t, func(t *testing.T, _ string, tok tokenizer.Tokenizer) {
		for _, c := range []struct {
			seed int64
			n    int
			out  *int
		}{{0, 5, nil}, {1, 30, nil}, {2, 100, &outLen}, {3, 1, &outLen}} {
			opts := Options{Name: "sharegpt", Path: filepath.Join("testdata", "sharegpt40.json"), NumPrompts: c.n,
				Seed: c.seed, RequestIDPrefix: "s-", SharegptOutputLen: c.out}
			parallelCase(t, c.seed, func(g *Globals, warn io.Writer, workers int) ([]Sample, error) {
				return shareGPT(opts, tok, g, warn, workers)
			})
		}
	})
}

// TestSonnetParallelEqualsSerial: sonnet on several goroutines gives the
// serial samples, also when many draws are too long and drawn again, and
// with more prompts than one window holds.
func TestSonnetParallelEqualsSerial(t *testing.T) {
	t.Parallel()
	eachTokenizer(t, func(t *testing.T, name string, tok tokenizer.Tokenizer) {
		if name == "builtin" {
			t.Skip("the built-in tokenizer has no chat template")
		}
		for _, c := range []struct {
			seed             int64
			n, input, prefix int
		}{{0, 10, 300, 100}, {1, 300, 200, 50}, {2, 20, 550, 200}} {
			opts := Options{Name: "sonnet", NumPrompts: c.n, Seed: c.seed, RequestIDPrefix: "s-",
				SonnetInputLen: c.input, SonnetOutputLen: 10, SonnetPrefixLen: c.prefix}
			parallelCase(t, c.seed, func(g *Globals, _ io.Writer, workers int) ([]Sample, error) {
				return sonnet(opts, tok, g, workers)
			})
		}
	})
}

// TestPrefixRepetitionParallelEqualsSerial: prefix_repetition on several
// goroutines gives the serial samples and leaves NumPy's global generator
// where the serial loop does, also when fix-ups pad (the fake tokenizer)
// and with more sequences than one window holds.
func TestPrefixRepetitionParallelEqualsSerial(t *testing.T) {
	t.Parallel()
	eachTokenizer(t, func(t *testing.T, _ string, tok tokenizer.Tokenizer) {
		for _, c := range []struct {
			seed                        int64
			n, prefix, suffix, prefixes int
			disableShuffle              bool
		}{{0, 20, 30, 10, 2, false}, {1, 600, 8, 5, 3, true}, {7, 9, 0, 17, 4, false}, {42, 40, 64, 0, 1, false}} {
			opts := prefixRepOptions(c.seed, c.n, c.prefix, c.suffix, c.prefixes, 7)
			opts.DisableShuffle = c.disableShuffle
			parallelCase(t, c.seed, func(g *Globals, warn io.Writer, workers int) ([]Sample, error) {
				return prefixRepetition(opts, tok, g, warn, workers)
			})
		}
	})
}

// TestHFParallelEqualsSerial: every case of the hf golden file, with its
// counts on several goroutines, gives the serial samples.
func TestHFParallelEqualsSerial(t *testing.T) {
	t.Parallel()
	var cases []hfCase
	readJSON(t, filepath.Join("hf", "hf_golden.json"), &cases)
	for _, c := range cases {
		opts := c.options(filepath.Join("testdata", "hf", c.Dir))
		if opts.Backend == "" {
			opts.Backend = "openai"
		}
		parallelCase(t, c.Seed, func(g *Globals, warn io.Writer, workers int) ([]Sample, error) {
			return hf(opts, chatFake{newFake()}, g, warn, workers)
		})
	}
}

// TestPromptCompletionReadsAsSerial: the batched prompt/completion classes
// read exactly the rows the serial loop reads: a row that fails to read
// right after the last sample needed fails the run (the serial loop reads
// one row past it), one further on does not, and a failing row's error
// comes after the rows before it are taken.
func TestPromptCompletionReadsAsSerial(t *testing.T) {
	t.Parallel()
	rowsUntil := func(good int) rowIter {
		n := 0
		return func() (hfRow, bool, error) {
			n++
			if n > good {
				return hfRow{}, false, fmt.Errorf("row %d: broken", n)
			}
			return hfRow{cols: map[string]any{}, where: fmt.Sprintf("row %d", n)}, true, nil
		}
	}
	read := func(hfRow) (pair, error) {
		return pair{prompt: "a b c d e", completion: "f g h i j", keep: true}, nil
	}
	for _, c := range []struct {
		good, numPrompts int
		wantErr          bool
	}{{5, 5, true}, {5, 4, false}, {5, 10, true}, {300, 299, false}, {300, 300, true}} {
		for _, workers := range []int{1, 3} {
			r := &hfRun{opts: Options{NumPrompts: c.numPrompts, RequestIDPrefix: "x-"}, tok: newFake(), workers: workers}
			got, err := promptCompletion(r, rowsUntil(c.good), 1024, 2048, read)
			if (err != nil) != c.wantErr {
				t.Errorf("%d good rows, %d prompts, %d workers: error %v, want one: %v", c.good, c.numPrompts, workers, err, c.wantErr)
			}
			if err == nil && len(got) != c.numPrompts {
				t.Errorf("%d good rows, %d prompts: %d samples", c.good, c.numPrompts, len(got))
			}
		}
	}
}
