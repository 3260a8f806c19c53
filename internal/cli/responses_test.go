package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
)

// TestServeResponses runs --backend openai-responses against the
// simulator's /v1/responses through cli.Main: every request succeeds, the
// output lengths are the terminal event's usage, the generated text is the
// output_text deltas, and each latency runs at least to the last token.
func TestServeResponses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := append(append([]string{}, simArgs...), "--backend", "openai-responses", "--no-server-metrics",
		"--temperature", "0", "--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json")
	stdout, stderr, code := runMain(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"Successful requests:                     6", "Total generated tokens:                  24"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := pyjson.DecodeObject(b)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := o.Get("endpoint_type"); v != "openai-responses" {
		t.Errorf("endpoint_type = %v", v)
	}
	texts, _ := o.Get("generated_texts")
	ttfts, _ := o.Get("ttfts")
	itls, _ := o.Get("itls")
	e2els, _ := o.Get("latencies")
	for i := range 6 {
		text := texts.([]any)[i].(string)
		if text == "" {
			t.Errorf("request %d: no generated text", i)
		}
		last := ttfts.([]any)[i].(float64)
		for _, v := range itls.([]any)[i].([]any) {
			last += v.(float64)
		}
		if e2el := e2els.([]any)[i].(float64); e2el < last*(1-1e-9) {
			t.Errorf("request %d: e2el %v ends before the last token %v", i, e2el, last)
		}
	}
}

// TestServeResponsesRefusals: --min-p is refused for openai-responses (the
// Responses API has no min_p), before anything is sent, naming the flag;
// an endpoint of another API is refused naming the one it must end with.
func TestServeResponsesRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"min-p", []string{"--min-p", "0.1"}, "argument --min-p: the OpenAI Responses API has no min_p parameter"},
		{"endpoint", []string{"--endpoint", "/v1/chat/completions"}, "must end with responses"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append(append(append([]string{}, simArgs...), "--backend", "openai-responses", "--no-server-metrics"), tc.args...)
			stdout, stderr, code := runMain(t, args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want 2 with %q\n%s\n%s", code, tc.want, stdout, stderr)
			}
		})
	}
}
