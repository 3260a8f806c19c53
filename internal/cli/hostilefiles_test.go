//go:build linux

package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/tokenizer"
)

// endlessFIFO makes a named pipe called name and, once a reader opens it,
// writes head and then body over and over until the reader closes it: a
// file that never ends, as a path.
func endlessFIFO(t *testing.T, name, head, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		chunk := strings.Repeat(body, 1+(64<<10)/len(body))
		for _, err = io.WriteString(f, head); err == nil; _, err = io.WriteString(f, chunk) {
		}
	}()
	t.Cleanup(func() {
		// A writer still waiting for a reader gets one, which closes.
		if r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = r.Close()
		}
		<-done
	})
	return p
}

// TestHostileFilesFail: every file gobench reads, given a device or a pipe
// that never ends or a value larger than any real one, fails with an error
// naming the flag (or command) and the file instead of reading forever
// (`--dataset-path /dev/zero` grew to 24 GB): datasets, the tokenizer,
// result files of compare, check and analyze, and the simulator's --config.
func TestHostileFilesFail(t *testing.T) {
	t.Parallel()
	dry := []string{"serve", "--dry-run", "--model", "m", "--tokenizer", tokenizer.BuiltinName, "--num-prompts", "3"}
	tests := []struct {
		name string
		args []string
		code exitcode.Code
		want []string // parts of stderr
	}{
		{"sharegpt /dev/zero", append(dry, "--dataset-name", "sharegpt", "--dataset-path", "/dev/zero"), exitcode.Failure,
			[]string{"--dataset-path /dev/zero:1:1: not a ShareGPT JSON file (a JSON list of conversations): it starts with '\\x00', not '['"}},
		{"sharegpt without end", append(dry, "--dataset-name", "sharegpt", "--dataset-path",
			endlessFIFO(t, "endless.json", `[{"conversations": [{"value": "`, "tell me more ")), exitcode.Failure,
			[]string{"--dataset-path ", "endless.json:1: conversation 0 is larger than 64 MiB, which no conversation is"}},
		{"custom /dev/zero", append(dry, "--dataset-name", "custom", "--skip-chat-template", "--dataset-path",
			endlessFIFO(t, "zeros.jsonl", "", "\x00")), exitcode.Failure,
			[]string{"--dataset-path ", "zeros.jsonl:1: not a JSON object: it starts with '\\x00'"}},
		{"custom line without end", append(dry, "--dataset-name", "custom", "--skip-chat-template", "--dataset-path",
			endlessFIFO(t, "endless.jsonl", `{"prompt": "ok"}`+"\n"+`{"prompt": "`, "tell me more ")), exitcode.Failure,
			[]string{"--dataset-path ", "endless.jsonl:2: the line is longer than 64 MiB, which no prompt is"}},
		{"tokenizer /dev/zero", []string{"serve", "--dry-run", "--model", "m", "--tokenizer", "/dev/zero", "--num-prompts", "1"},
			exitcode.Failure, []string{"tokenizer: /dev/zero: it starts with '\\x00' where a JSON object should start"}},
		{"check /dev/zero", []string{"check", "/dev/zero", "--threshold", "p99_ttft_ms<500"}, exitcode.Failure,
			[]string{"read result file: /dev/zero: it starts with '\\x00' where a JSON object should start (not a gobench or vLLM result file)"}},
		{"compare /dev/zero", []string{"compare", "/dev/zero", fixture("gobench_fast.json")}, exitcode.Failure,
			[]string{"read result file: /dev/zero: it starts with '\\x00' where a JSON object should start (not a gobench or vLLM result file)"}},
		{"analyze /dev/zero", []string{"analyze", "/dev/zero"}, exitcode.Failure,
			[]string{"read result file: /dev/zero: it starts with '\\x00' where a JSON object should start (not a gobench or vLLM result file)"}},
		{"sim --config /dev/zero", []string{"sim", "--port", "0", "--config", "/dev/zero"}, exitcode.Failure,
			[]string{"--config: /dev/zero: larger than 1 MiB, the most gobench reads from such a file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, stderr, code := runMain(t, tt.args...)
			if code != int(tt.code) {
				t.Errorf("exit %d, want %d\n%s", code, int(tt.code), stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
		})
	}
}
