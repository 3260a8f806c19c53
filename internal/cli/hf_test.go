package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	pngenc "image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gobench/gobench/internal/golden"
	"github.com/parquet-go/parquet-go"
)

// hfData is a local copy of one of the hf dataset's test sets (JSON Lines
// in the Hub's layout, written by tools/gen-dataset-vectors/gen_hf_vectors.py).
func hfData(name string) string { return filepath.Join("..", "dataset", "testdata", "hf", name) }

// TestHFAgainstSim runs the hf dataset end to end against the simulator:
// InstructCoder from a local directory picked by --hf-name, chat-formatted
// through the tokenizer's template, on a completions and a chat backend;
// and ShareGPT conversations (ConversationDataset) with --hf-split.
func TestHFAgainstSim(t *testing.T) {
	t.Parallel()
	dir := chatTokenizerDir(t)
	for _, tc := range []struct {
		backend string
		args    []string
	}{
		{"openai", []string{"--dataset-path", hfData("instructcoder"), "--hf-name", "likaixin/InstructCoder"}},
		{"openai-chat", []string{"--dataset-path", hfData("instructcoder"), "--hf-name", "likaixin/InstructCoder", "--no-stream"}},
		{"openai-chat", []string{"--dataset-path", hfData("sharegpt"), "--hf-name", "Aeala/ShareGPT_Vicuna_unfiltered", "--hf-split", "train"}},
	} {
		t.Run(tc.backend+" "+tc.args[3], func(t *testing.T) {
			t.Parallel()
			args := append([]string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--disable-tqdm",
				"--format", "json", "--backend", tc.backend, "--tokenizer", dir, "--dataset-name", "hf", "--num-prompts", "5",
				"--hf-output-len", "6", "--ignore-eos"}, tc.args...)
			stdout, stderr, code := runMain(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
			}
			if got["completed"] != 5.0 || got["failed"] != 0.0 || got["total_output_tokens"] != 30.0 {
				t.Errorf("completed %v, failed %v, output tokens %v; want 5, 0, 30", got["completed"], got["failed"], got["total_output_tokens"])
			}
		})
	}
}

// TestHFDryRun: --dry-run shows the hf requests (MT-Bench's first turns,
// shuffled by the datasets library's streaming shuffle, --output-len
// reaching --hf-output-len as in vLLM, ids by row, oversampled past the
// file's 30 rows); vLLM's refusals are usage errors.
func TestHFDryRun(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runMain(t, "serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin",
		"--dataset-name", "hf", "--dataset-path", hfData("mtbench"), "--hf-name", "philschmid/mt-bench", "--skip-chat-template",
		"--num-prompts", "32", "--output-len", "7", "--request-id-prefix", "mt-", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := dryRunRequests(t, stdout)
	if len(reqs) != 32 {
		t.Fatalf("%d requests, want 32:\n%s", len(reqs), stdout)
	}
	for i, r := range reqs {
		if r.OutputLen != 7 || r.RequestID != "mt-"+itoa(i) {
			t.Errorf("request %+v: want 7 output tokens, id mt-%d", r, i)
		}
	}
	golden.Check(t, []byte(stdout))

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset-path", "some/dataset"}, "Unsupported dataset path: some/dataset."},
		{[]string{"--dataset-path", hfData("mtbench"), "--hf-name", "Lin-Chen/MMStar"}, "Multi-modal content is only supported on 'openai-chat' and 'openai-audio' backends."},
		{[]string{"--dataset-path", hfData("mtbench"), "--hf-name", "philschmid/mt-bench", "--hf-split", "test"}, `Unknown split "test"`},
		{[]string{"--dataset-path", hfData("sharegpt"), "--hf-name", "Aeala/ShareGPT_Vicuna_unfiltered"}, "ConversationDataset needs --hf-split"},
		{[]string{"--dataset-path", "no/such/id", "--hf-name", "philschmid/mt-bench"}, "not a local file or directory, nor a Hub dataset id"},
	} {
		args := append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--dataset-name", "hf"}, tc.args...)
		_, stderr, code := runMain(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q in\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// TestHFFromHubAgainstSim: --dataset-path a Hub dataset id downloads its
// data files from HF_ENDPOINT (a Hub on 127.0.0.1) into HF_HUB_CACHE, with
// HF_TOKEN, and the run completes against the simulator; a second run with
// HF_HUB_OFFLINE=1 reads the cache and sends nothing to the Hub.
func TestHFFromHubAgainstSim(t *testing.T) {
	t.Parallel()
	const commit = "89abcdef0123456789abcdef0123456789abcdef"
	data, err := os.ReadFile(filepath.Join(hfData("instructcoder"), "train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("Authorization") != "Bearer hf_x" {
			http.Error(w, "token", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/api/datasets/likaixin/InstructCoder/revision/main":
			_, _ = io.WriteString(w, `{"sha": "`+commit+`", "siblings": [{"rfilename": "train.jsonl"}]}`)
		case "/datasets/likaixin/InstructCoder/resolve/" + commit + "/train.jsonl":
			w.Header().Set("X-Repo-Commit", commit)
			w.Header().Set("ETag", `"e1"`)
			_, _ = w.Write(data)
		default:
			http.NotFound(w, r)
		}
	}))
	defer hub.Close()
	env := map[string]string{"HF_ENDPOINT": hub.URL, "HF_TOKEN": "hf_x", "HF_HUB_CACHE": t.TempDir()}
	run := func() (string, string, int) {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), []string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001",
			"--disable-tqdm", "--format", "json", "--backend", "openai-chat", "--tokenizer", chatTokenizerDir(t),
			"--dataset-name", "hf", "--dataset-path", "likaixin/InstructCoder", "--num-prompts", "4", "--hf-output-len", "3",
			"--ignore-eos"}, Deps{Stdout: &out, Stderr: &errOut, Version: "test", Getenv: func(k string) string { return env[k] }})
		return out.String(), errOut.String(), code
	}
	for _, offline := range []bool{false, true} {
		if offline {
			env["HF_HUB_OFFLINE"] = "1"
		}
		before := hits.Load()
		stdout, stderr, code := run()
		if code != 0 {
			t.Fatalf("offline=%v: exit %d\n%s\n%s", offline, code, stdout, stderr)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
		}
		if got["completed"] != 4.0 || got["total_output_tokens"] != 12.0 {
			t.Errorf("offline=%v: completed %v, output tokens %v; want 4, 12", offline, got["completed"], got["total_output_tokens"])
		}
		if n := hits.Load() - before; (n == 0) != offline {
			t.Errorf("offline=%v: %d requests to the Hub", offline, n)
		}
	}
}

// TestHFMultimodal: MMStar from a local Parquet copy with a PNG stored in
// the data runs against the simulator on openai-chat (the image goes into
// the sample's chat content parts); a completions backend is vLLM's
// refusal; ASR clips (WAV) show in --dry-run on openai-chat.
func TestHFMultimodal(t *testing.T) {
	t.Parallel()
	var png bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, 4, 4))
	if err := pngenc.Encode(&png, img); err != nil {
		t.Fatal(err)
	}
	type picture struct {
		Bytes []byte `parquet:"bytes"`
	}
	type row struct {
		Question string  `parquet:"question"`
		Image    picture `parquet:"image"`
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "val.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[row](f)
	if _, err := w.Write([]row{{"What is shown? Options: A", picture{png.Bytes()}}, {"How many? Options: B", picture{png.Bytes()}}}); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(w.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	args := []string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--disable-tqdm", "--format", "json",
		"--tokenizer", "gobench-builtin", "--dataset-name", "hf", "--dataset-path", dir, "--hf-name", "Lin-Chen/MMStar",
		"--num-prompts", "3"}
	stdout, stderr, code := runMain(t, append(args, "--backend", "openai-chat")...)
	if code != 0 || !strings.Contains(stdout, `"completed": 3`) {
		t.Errorf("openai-chat: exit %d\n%s\n%s", code, stdout, stderr)
	}
	_, stderr, code = runMain(t, append(args, "--backend", "openai")...)
	if code != 2 || !strings.Contains(stderr, "Multi-modal content is only supported on 'openai-chat' and 'openai-audio' backends.") {
		t.Errorf("openai: exit %d\n%s", code, stderr)
	}

	// The clips' paths are relative to the working directory, as in vLLM:
	// the dataset's tests run in internal/dataset.
	abs, err := filepath.Abs(filepath.Join("..", "dataset"))
	if err != nil {
		t.Fatal(err)
	}
	jsonl, err := os.ReadFile(filepath.Join(hfData("asr"), "train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	asrDir := t.TempDir()
	jsonl = bytes.ReplaceAll(jsonl, []byte(`"testdata/`), []byte(`"`+filepath.ToSlash(abs)+`/testdata/`))
	if err := os.WriteFile(filepath.Join(asrDir, "train.jsonl"), jsonl, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runMain(t, "serve", "--dry-run", "--model", "m", "--backend", "openai-chat", "--tokenizer", "gobench-builtin",
		"--dataset-name", "hf", "--dataset-path", asrDir, "--hf-name", "openslr/librispeech_asr", "--num-prompts", "4",
		"--asr-min-audio-len-sec", "1", "--hf-output-len", "5")
	if code != 0 {
		t.Fatalf("asr: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if reqs := dryRunRequests(t, stdout); len(reqs) != 4 || reqs[0].OutputLen != 5 {
		t.Errorf("asr requests %+v", reqs)
	}
	if !strings.Contains(stderr, "samples discarded from dataset due to their length") {
		t.Errorf("asr: no discard warning in\n%s", stderr)
	}
}
