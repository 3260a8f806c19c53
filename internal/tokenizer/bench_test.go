package tokenizer

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// benchText is about 1 MB of English prose and Go source, the mix of text a
// benchmark prompt is made of.
func benchText(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	paths, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
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

func benchmarkEncode(b *testing.B, tok Tokenizer) {
	text := benchText(b)
	tokens := 0
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		tokens += len(tok.Encode(text, false))
	}
	b.ReportMetric(float64(tokens)/time.Since(start).Seconds(), "tokens/s")
}

// BenchmarkEncode measures single-goroutine byte-level BPE encoding speed,
// reported as tokens/s.
func BenchmarkEncode(b *testing.B) {
	b.Run("builtin", func(b *testing.B) { benchmarkEncode(b, Builtin()) })
	for _, name := range []string{"qwen3", "llama3"} {
		b.Run(name, func(b *testing.B) {
			tok, err := Load(hfDir(b, name))
			if err != nil {
				b.Fatal(err)
			}
			benchmarkEncode(b, tok)
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
