package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/gobench/gobench/internal/tokenizer/hub"
)

const tinyCommit = "89abcdef0123456789abcdef0123456789abcdef"

// tinyTokenizer is a small real tokenizer.json.
func tinyTokenizer(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "tokenizer", "testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// cacheWith lays out one model in a Hugging Face cache as huggingface_hub
// does (blobs, snapshots/<commit> links, refs/main).
func cacheWith(t *testing.T, repo string, data []byte) string {
	t.Helper()
	cache := t.TempDir()
	folder := filepath.Join(cache, "models--"+strings.ReplaceAll(repo, "/", "--"))
	sum := sha256.Sum256(data)
	for _, d := range []string{"blobs", "refs", filepath.Join("snapshots", tinyCommit)} {
		if err := os.MkdirAll(filepath.Join(folder, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(folder, "blobs", hex.EncodeToString(sum[:])), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "blobs", hex.EncodeToString(sum[:])), filepath.Join(folder, "snapshots", tinyCommit, "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "refs", "main"), []byte(tinyCommit), 0o644); err != nil {
		t.Fatal(err)
	}
	return cache
}

// TestServeFindsTheTokenizerAsUsersExpect runs `serve --model ID` without
// --tokenizer, as a new user would: the tokenizer comes from the HF cache
// (offline), and without it the error says what was tried and what to do.
func TestServeFindsTheTokenizerAsUsersExpect(t *testing.T) {
	t.Parallel()
	data := tinyTokenizer(t)
	cached := cacheWith(t, "acme/tiny", data)
	tests := []struct {
		name    string
		vars    map[string]string
		wantErr []string
		debug   []string
	}{
		{"in the HF cache, offline", map[string]string{"HF_HUB_CACHE": cached, "HF_HUB_OFFLINE": "1", "VLLM_LOGGING_LEVEL": "debug"}, nil,
			[]string{"acme/tiny found in the HF cache", "models--acme--tiny"}},
		{"HF_HOME points elsewhere", map[string]string{"HF_HOME": filepath.Dir(cached), "HF_HUB_OFFLINE": "1"}, []string{"HF_HOME"}, nil},
		{"not cached, offline", map[string]string{"HF_HUB_CACHE": t.TempDir(), "HF_HUB_OFFLINE": "1"},
			[]string{`no tokenizer found for "acme/tiny"`, "HF_HUB_OFFLINE", "--tokenizer", "huggingface-cli download acme/tiny"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := baseOptions("http://127.0.0.1:1")
			o.Model, o.DryRun, o.NumPrompts, o.Dataset.NumPrompts = "acme/tiny", true, 3, 3
			var b buffers
			env := b.env()
			env.Getenv = func(k string) string { return tc.vars[k] }
			_, err := Serve(context.Background(), o, env)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Serve: %v\n%s", err, b.err.String())
				}
				if n := strings.Count(b.out.String(), "\n"); n != 3 {
					t.Errorf("dry run printed %d lines, want 3:\n%s", n, b.out.String())
				}
			} else {
				for _, w := range tc.wantErr {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("error does not mention %q:\n%v", w, err)
					}
				}
			}
			for _, w := range tc.debug {
				if !strings.Contains(b.err.String(), w) {
					t.Errorf("the debug log does not mention %q:\n%s", w, b.err.String())
				}
			}
		})
	}
}

// fakeHub serves one model's tokenizer.json as the Hugging Face Hub does.
func fakeHub(t *testing.T, repo string, data []byte) *httptest.Server {
	t.Helper()
	sum := sha256.Sum256(data)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/"+repo+"/resolve/main/tokenizer.json" && r.URL.Path != "/"+repo+"/resolve/"+tinyCommit+"/tokenizer.json" {
			w.Header().Set("X-Error-Code", "EntryNotFound")
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Repo-Commit", tinyCommit)
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestServeDownloadsAMissingTokenizer(t *testing.T) {
	t.Parallel()
	data := tinyTokenizer(t)
	hubSrv := fakeHub(t, "acme/tiny", data)
	cache := t.TempDir()
	o := baseOptions("http://127.0.0.1:1")
	o.Model, o.DryRun, o.NumPrompts, o.Dataset.NumPrompts = "acme/tiny", true, 2, 2
	var b buffers
	env := b.env()
	vars := map[string]string{"HF_HUB_CACHE": cache, "HF_ENDPOINT": hubSrv.URL}
	env.Getenv = func(k string) string { return vars[k] }
	if _, err := Serve(context.Background(), o, env); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "models--acme--tiny", "snapshots", tinyCommit, "tokenizer.json")); err != nil {
		t.Errorf("the download is not in the cache: %v", err)
	}
}

// tokenizeServer is a fake vLLM whose /tokenize and /detokenize use the
// builtin tokenizer, and that streams one token per completion.
func tokenizeServer(t *testing.T) *httptest.Server {
	t.Helper()
	tok := tokenizer.Builtin()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tokenize":
			var req struct {
				Prompt  string `json:"prompt"`
				Special bool   `json:"add_special_tokens"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			ids := tok.Encode(req.Prompt, req.Special)
			json.NewEncoder(w).Encode(map[string]any{"count": len(ids), "max_model_len": 4096, "tokens": ids})
		case "/detokenize":
			var req struct {
				Tokens []int `json:"tokens"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			json.NewEncoder(w).Encode(map[string]any{"prompt": tok.Decode(req.Tokens)})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestServeTokenizerModeServer(t *testing.T) {
	t.Parallel()
	srv := tokenizeServer(t)
	path := filepath.Join(t.TempDir(), "p.jsonl")
	if err := os.WriteFile(path, []byte("{\"prompt\": \"Hello there, server tokenizer\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(o Options) (string, error) {
		var b buffers
		_, err := Serve(context.Background(), o, b.env())
		return b.out.String(), err
	}
	// The random dataset needs the vocabulary, which /tokenize does not give.
	o := baseOptions(srv.URL)
	o.Model, o.TokenizerMode = "m", hub.ModeServer
	if _, err := run(o); !errors.Is(err, hub.ErrNoVocabulary) {
		t.Errorf("random with --tokenizer-mode server: %v, want ErrNoVocabulary", err)
	}
	// The custom dataset counts with the server; it has no chat template.
	o.Dataset = dataset.Options{Name: "custom", Path: path, NumPrompts: 1, CustomOutputLen: 4}
	if _, err := run(o); !errors.Is(err, dataset.ErrChatTemplate) {
		t.Errorf("custom without --skip-chat-template: %v, want ErrChatTemplate", err)
	}
	o.Dataset.SkipChatTemplate = true
	o.DryRun = true
	if _, err := run(o); err == nil || !strings.Contains(err.Error(), "--tokenizer-mode server") {
		t.Errorf("a dry run cannot ask the server: %v", err)
	}
}
