package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
)

// TestTokenizerModes: auto, hf and server are run; vLLM's other modes are
// refused with exit 2; a model id that is neither local nor cached, offline,
// fails with exit 1 and the message that says what to do.
func TestTokenizerModes(t *testing.T) {
	t.Parallel()
	s, err := sim.NewServer(sim.Config{TTFT: time.Millisecond, ITL: time.Millisecond, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close) // after the parallel subtests
	prompts := filepath.Join(t.TempDir(), "p.jsonl")
	if err := os.WriteFile(prompts, []byte("{\"prompt\": \"Hello there\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	offline := func(k string) string {
		return map[string]string{"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": filepath.Join(os.TempDir(), "gobench-no-such-cache")}[k]
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"hf", []string{"--tokenizer-mode", "hf", "--tokenizer", tokenizer.BuiltinName, "--dry-run", "--model", "m", "--num-prompts", "3"}, int(exitcode.OK), ""},
		{"mistral refused", []string{"--tokenizer-mode", "mistral", "--dry-run", "--model", "m"}, int(exitcode.BadUsage), "--tokenizer-mode mistral"},
		{"not found offline", []string{"--model", "acme/absent", "--dry-run"}, int(exitcode.Failure), "huggingface-cli download acme/absent"},
		{"server", []string{"--base-url", srv.URL, "--tokenizer-mode", "server", "--dataset-name", "custom", "--dataset-path", prompts,
			"--skip-chat-template", "--custom-output-len", "2", "--num-prompts", "1"}, int(exitcode.OK), "Successful requests:                     1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := Main(context.Background(), append([]string{"serve"}, tc.args...), Deps{Stdout: &out, Stderr: &errOut, Getenv: offline})
			if code != tc.code || !strings.Contains(out.String()+errOut.String(), tc.want) {
				t.Errorf("exit %d, want %d with %q\n%s\n%s", code, tc.code, tc.want, &out, &errOut)
			}
		})
	}
}
