package cli

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/tokenizer"
)

// helpExamples are the command lines of serve --help's examples, their
// continuation lines joined, without the leading "gobench".
func helpExamples(t *testing.T) [][]string {
	t.Helper()
	var cmds [][]string
	var cur string
	for _, line := range strings.Split(serveExample, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		cont := strings.HasSuffix(line, `\`)
		cur += " " + strings.TrimSuffix(line, `\`)
		if !cont {
			cmds = append(cmds, strings.Fields(cur)[1:])
			cur = ""
		}
	}
	if len(cmds) < 3 {
		t.Fatalf("found %d examples in serve --help", len(cmds))
	}
	return cmds
}

// TestServeHelpExamplesDryRun runs every example of serve --help as a dry
// run: each parses and builds its workload, the one printed with
// --dry-run as it stands. A tokenizer on disk is swapped for the built-in
// one, which the examples' machine may not have.
func TestServeHelpExamplesDryRun(t *testing.T) {
	t.Parallel()
	for _, args := range helpExamples(t) {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			args := append([]string{}, args...)
			want := 0
			for i := range args {
				switch args[i] {
				case "--tokenizer":
					args[i+1] = tokenizer.BuiltinName
				case "--num-prompts":
					want, _ = strconv.Atoi(args[i+1])
				}
			}
			if !strings.Contains(strings.Join(args, " "), "--dry-run") {
				args = append(args, "--dry-run")
			}
			stdout, stderr, code := runMain(t, args...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			if got := strings.Count(stdout, "\n"); got != want {
				t.Errorf("%d lines of workload, want %d", got, want)
			}
		})
	}
}

// TestDryRunPromptLenLeavesOutSpecials: --random-input-len counts the
// tokens the server sees, so a prompt's prompt_len is the input length
// less the tokenizer's special tokens, as vLLM's RandomDataset makes it.
func TestDryRunPromptLenLeavesOutSpecials(t *testing.T) {
	t.Parallel()
	specials := tokenizer.Builtin().NumSpecialTokensToAdd()
	for _, inputLen := range []int{32, 1024} {
		stdout, stderr, code := runMain(t, "serve", "--sim", "--num-prompts", "3", "--dry-run",
			"--random-input-len", strconv.Itoa(inputLen))
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var req struct {
				PromptLen int `json:"prompt_len"`
			}
			if err := json.Unmarshal([]byte(line), &req); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			if req.PromptLen != inputLen-specials {
				t.Errorf("--random-input-len %d: prompt_len %d, want %d", inputLen, req.PromptLen, inputLen-specials)
			}
		}
	}
}

var (
	announcedInputRE = regexp.MustCompile(`: ([\d,]+) input tokens`)
	blockInputRE     = regexp.MustCompile(`Total input tokens:\s+(\d+)`)
)

// TestStartLineCountsAsTheBlock: the line announcing the load gives the
// input tokens that vLLM's block then reports from the server's usage,
// special tokens included.
func TestStartLineCountsAsTheBlock(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runMain(t, simArgs...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	announced := announcedInputRE.FindStringSubmatch(strings.Join(strings.Fields(stderr), " ")) // wrapped at 100 columns
	block := blockInputRE.FindStringSubmatch(stdout)
	if announced == nil || block == nil {
		t.Fatalf("no input tokens in:\n%s\n%s", stderr, stdout)
	}
	if strings.ReplaceAll(announced[1], ",", "") != block[1] {
		t.Errorf("the start line says %s input tokens, the block %s", announced[1], block[1])
	}
}
