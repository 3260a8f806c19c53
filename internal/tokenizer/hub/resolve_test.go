package hub

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gobench/gobench/internal/serverapi"
	"github.com/gobench/gobench/internal/tokenizer"
)

const (
	testRepo   = "acme/tiny-model"
	testCommit = "0123456789abcdef0123456789abcdef01234567"
	testToken  = "hf_secret_token_value"
)

// fakeHub is an httptest Hugging Face Hub: it serves the files of one
// repository at one commit (tokenizer.json through a redirect to a second
// host, as the Hub sends large files to its CDN) and records every request.
type fakeHub struct {
	hub, cdn *httptest.Server
	files    map[string][]byte
	private  bool // answer 401 without the token

	mu       sync.Mutex
	requests []string // "METHOD host path auth"
}

func newFakeHub(t *testing.T, files map[string][]byte) *fakeHub {
	t.Helper()
	f := &fakeHub{files: files}
	f.cdn = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.record(r, "cdn")
		name := strings.TrimPrefix(r.URL.Path, "/blob/")
		data, ok := f.files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	f.hub = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.record(r, "hub")
		prefix := "/" + testRepo + "/resolve/"
		if !strings.HasPrefix(r.URL.Path, prefix) {
			w.Header().Set("X-Error-Code", "RepositoryNotFound")
			http.Error(w, "Repository not found", http.StatusNotFound)
			return
		}
		if f.private && r.Header.Get("Authorization") != "Bearer "+testToken {
			http.Error(w, "Invalid credentials", http.StatusUnauthorized)
			return
		}
		rev, name, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, prefix), "/")
		if rev != "main" && rev != testCommit {
			http.Error(w, "Revision not found", http.StatusNotFound)
			return
		}
		data, ok := f.files[name]
		if !ok {
			w.Header().Set("X-Error-Code", "EntryNotFound")
			http.Error(w, "Entry not found", http.StatusNotFound)
			return
		}
		sum := sha256.Sum256(data)
		w.Header().Set("X-Repo-Commit", testCommit)
		if name == "tokenizer.json" { // an LFS file: served by the CDN
			w.Header().Set("X-Linked-Etag", `"`+hex.EncodeToString(sum[:])+`"`)
			http.Redirect(w, r, f.cdn.URL+"/blob/"+name+"?signature=abc", http.StatusFound)
			return
		}
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:20])+`"`)
		w.Write(data)
	}))
	t.Cleanup(func() { f.hub.Close(); f.cdn.Close() })
	return f
}

func (f *fakeHub) record(r *http.Request, host string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+host+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
}

func (f *fakeHub) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// tokenizerFiles are a small real tokenizer's files.
func tokenizerFiles(t *testing.T) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"tokenizer.json":        data,
		"tokenizer_config.json": []byte(`{"clean_up_tokenization_spaces": false, "bos_token": "<s>", "chat_template": "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}"}`),
	}
}

// env is a fake environment.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestResolveDownloadsIntoTheCacheThenFindsItOffline(t *testing.T) {
	t.Parallel()
	hub := newFakeHub(t, tokenizerFiles(t))
	hub.private = true
	cache := t.TempDir()
	var debug bytes.Buffer
	vars := map[string]string{"HF_HUB_CACHE": cache, "HF_ENDPOINT": hub.hub.URL, "HF_TOKEN": testToken}
	tok, err := Resolve(context.Background(), testRepo, ResolveOptions{Getenv: env(vars), HTTP: hub.hub.Client(), Debug: &debug})
	if err != nil {
		t.Fatalf("Resolve: %v\n%s", err, debug.String())
	}
	if tok.Name() != testRepo {
		t.Errorf("Name() = %q, want the model id", tok.Name())
	}
	if got := tok.Encode("hello", false); len(got) == 0 {
		t.Error("the downloaded tokenizer encodes nothing")
	}
	// The layout huggingface_hub writes.
	folder := filepath.Join(cache, "models--acme--tiny-model")
	ref, err := os.ReadFile(filepath.Join(folder, "refs", "main"))
	if err != nil || string(ref) != testCommit {
		t.Errorf("refs/main = %q, %v; want the commit", ref, err)
	}
	sum := sha256.Sum256(tokenizerFiles(t)["tokenizer.json"])
	link := filepath.Join(folder, "snapshots", testCommit, "tokenizer.json")
	if target, err := os.Readlink(link); err != nil || target != filepath.Join("..", "..", "blobs", hex.EncodeToString(sum[:])) {
		t.Errorf("snapshot link %s -> %q, %v; want ../../blobs/<sha256>", link, target, err)
	}
	if _, err := os.Stat(filepath.Join(folder, ".no_exist", testCommit, "special_tokens_map.json")); err != nil {
		t.Errorf("the missing special_tokens_map.json is not recorded in .no_exist: %v", err)
	}
	// The token goes to the Hub only, and never into the log.
	for _, r := range hub.log() {
		if strings.HasPrefix(r, "GET cdn") && strings.Contains(r, testToken) {
			t.Errorf("the CDN received the token: %s", r)
		}
		if strings.Contains(r, " hub ") && !strings.HasSuffix(r, "Bearer "+testToken) {
			t.Errorf("a Hub request lacks the token: %s", r)
		}
	}
	if strings.Contains(debug.String(), testToken) {
		t.Errorf("the debug log shows HF_TOKEN:\n%s", debug.String())
	}
	if ct, ok := tok.(tokenizer.ChatTemplater); !ok {
		t.Error("the downloaded tokenizer has no chat template")
	} else if got, err := ct.ApplyChatTemplate([]tokenizer.Message{{Role: "user", Content: "hi"}}, true, nil); err != nil || got != "[user]hi[assistant]" {
		t.Errorf("ApplyChatTemplate = %q, %v", got, err)
	}

	// Offline, with the Hub gone: found in the cache, nothing sent.
	before := len(hub.log())
	vars["HF_HUB_OFFLINE"] = "1"
	debug.Reset()
	if _, err := Resolve(context.Background(), testRepo, ResolveOptions{Getenv: env(vars), HTTP: hub.hub.Client(), Debug: &debug}); err != nil {
		t.Fatalf("offline Resolve: %v", err)
	}
	if n := len(hub.log()); n != before {
		t.Errorf("offline Resolve sent %d requests", n-before)
	}
	if !strings.Contains(debug.String(), "found in the HF cache") {
		t.Errorf("the debug log does not say the cache was used:\n%s", debug.String())
	}
}

func TestResolveCacheLocations(t *testing.T) {
	t.Parallel()
	files := tokenizerFiles(t)
	tests := []struct {
		name string
		vars func(root string) map[string]string
		dir  func(root string) string
	}{
		{"HF_HUB_CACHE", func(r string) map[string]string { return map[string]string{"HF_HUB_CACHE": r + "/c"} }, func(r string) string { return r + "/c" }},
		{"HF_HOME", func(r string) map[string]string { return map[string]string{"HF_HOME": r + "/h"} }, func(r string) string { return r + "/h/hub" }},
		{"XDG_CACHE_HOME", func(r string) map[string]string { return map[string]string{"XDG_CACHE_HOME": r + "/x"} }, func(r string) string { return r + "/x/huggingface/hub" }},
		{"HOME", func(r string) map[string]string { return map[string]string{"HOME": r} }, func(r string) string { return r + "/.cache/huggingface/hub" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeSnapshot(t, tc.dir(root), testRepo, files)
			vars := tc.vars(root)
			vars["HF_HUB_OFFLINE"] = "1"
			tok, err := Resolve(context.Background(), testRepo, ResolveOptions{Getenv: env(vars)})
			if err != nil {
				t.Fatal(err)
			}
			if tok.Name() != testRepo {
				t.Errorf("Name() = %q", tok.Name())
			}
		})
	}
}

// writeSnapshot lays files out in the cache as huggingface_hub does.
func writeSnapshot(t *testing.T, cache, repo string, files map[string][]byte) {
	t.Helper()
	folder := repoFolder(cache, repo)
	snap := filepath.Join(folder, "snapshots", testCommit)
	for name, data := range files {
		sum := sha256.Sum256(data)
		blob := filepath.Join(folder, "blobs", hex.EncodeToString(sum[:]))
		if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(blob, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(snap, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..", "..", "blobs", hex.EncodeToString(sum[:])), filepath.Join(snap, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(folder, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "refs", "main"), []byte(testCommit), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveFailures(t *testing.T) {
	t.Parallel()
	hub := newFakeHub(t, tokenizerFiles(t))
	tests := []struct {
		name  string
		model string
		vars  map[string]string
		want  []string
	}{
		{"offline and not cached", testRepo, map[string]string{"HF_HUB_OFFLINE": "1"},
			[]string{`no tokenizer found for "acme/tiny-model"`, "a local file or folder", "Hugging Face cache", "HF_HUB_OFFLINE is set", "unset HF_HUB_OFFLINE", "huggingface-cli download acme/tiny-model", "--tokenizer-mode server", "--skip-tokenizer-init", "no server"}},
		{"unknown repository", "acme/other", map[string]string{"HF_ENDPOINT": hub.hub.URL},
			[]string{"a download from " + hub.hub.URL, "does not exist, or is private or gated"}},
		{"not a path nor an id", "./missing/tokenizer.json", nil, []string{"no such file or folder", "not a Hugging Face model id"}},
		{"bad endpoint", testRepo, map[string]string{"HF_ENDPOINT": "not a url"}, []string{"HF_ENDPOINT", "is not a URL"}},
		{"bad mode", testRepo, nil, []string{"--tokenizer-mode mistral"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			vars := map[string]string{"HF_HUB_CACHE": t.TempDir()}
			for k, v := range tc.vars {
				vars[k] = v
			}
			opts := ResolveOptions{Getenv: env(vars), HTTP: hub.hub.Client()}
			if tc.name == "bad mode" {
				opts.Mode = "mistral"
			}
			_, err := Resolve(context.Background(), tc.model, opts)
			if err == nil {
				t.Fatal("Resolve succeeded, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestResolveLocalAndBuiltin(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "testdata", "unit", "basic.json")
	tok, err := Resolve(context.Background(), file, ResolveOptions{})
	if err != nil || tok.Name() != file {
		t.Fatalf("Resolve(%s) = %v, %v", file, tok, err)
	}
	tok, err = Resolve(context.Background(), tokenizer.BuiltinName, ResolveOptions{Mode: ModeHF})
	if err != nil || tok != tokenizer.Builtin() {
		t.Fatalf("Resolve(builtin) = %v, %v", tok, err)
	}
}

// fakeVLLM answers /tokenize and /detokenize with the builtin tokenizer,
// as a vLLM server would with its own.
func fakeVLLM(t *testing.T, info bool) (*httptest.Server, *[]http.Header) {
	t.Helper()
	tok := tokenizer.Builtin()
	var mu sync.Mutex
	var headers []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		headers = append(headers, r.Header.Clone())
		mu.Unlock()
		switch r.URL.Path {
		case "/tokenize":
			var req struct {
				Model       string `json:"model"`
				Prompt      string `json:"prompt"`
				AddSpecial  bool   `json:"add_special_tokens"`
				MaxModelLen int
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "m" {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			ids := tok.Encode(req.Prompt, req.AddSpecial)
			json.NewEncoder(w).Encode(map[string]any{"tokens": ids, "count": len(ids), "max_model_len": 4096})
		case "/detokenize":
			var req struct {
				Tokens []int `json:"tokens"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"prompt": tok.Decode(req.Tokens)})
		case "/tokenizer_info":
			if !info {
				http.NotFound(w, r)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"tokenizer_class": "X", "vocab_size": tok.VocabSize(),
				"added_tokens_decoder": map[string]any{"8192": map[string]any{"content": "<|endoftext|>", "special": true}}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &headers
}

func TestServerTokenizer(t *testing.T) {
	t.Parallel()
	for _, info := range []bool{false, true} {
		srv, headers := fakeVLLM(t, info)
		var debug bytes.Buffer
		vars := map[string]string{"HF_HUB_CACHE": t.TempDir(), "HF_HUB_OFFLINE": "1"}
		opts := ResolveOptions{Getenv: env(vars), HTTP: srv.Client(), Debug: &debug, Model: "m",
			Server: &serverapi.Client{HTTP: srv.Client(), BaseURL: srv.URL, Header: http.Header{"X-Test": {"yes"}}}}
		tok, err := Resolve(context.Background(), "acme/not-cached", opts) // auto: falls back to the server
		if err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		want := tokenizer.Builtin()
		text := "Hello, world! 你好"
		if got := tok.Encode(text, false); !slices.Equal(got, want.Encode(text, false)) {
			t.Errorf("Encode = %v, want %v", got, want.Encode(text, false))
		}
		if got := tok.Decode(want.Encode(text, true)); got != want.Decode(want.Encode(text, true)) {
			t.Errorf("Decode = %q", got)
		}
		if got := tok.NumSpecialTokensToAdd(); got != want.NumSpecialTokensToAdd() {
			t.Errorf("NumSpecialTokensToAdd = %d, want %d", got, want.NumSpecialTokensToAdd())
		}
		if err := tokenizer.Err(tok); err != nil {
			t.Errorf("Err = %v", err)
		}
		if info {
			if tok.VocabSize() != want.VocabSize() || !slices.Equal(tok.AllSpecialIDs(), []int{8192}) {
				t.Errorf("VocabSize %d, AllSpecialIDs %v from /tokenizer_info", tok.VocabSize(), tok.AllSpecialIDs())
			}
		} else if tok.VocabSize() != 0 || tokenizer.Err(tok) != nil {
			t.Errorf("without /tokenizer_info: VocabSize %d, Err %v; want 0 and no error", tok.VocabSize(), tokenizer.Err(tok))
		}
		for _, h := range *headers {
			if h.Get("X-Test") != "yes" {
				t.Errorf("a request lacks the --header: %v", h)
			}
		}
		if !strings.Contains(debug.String(), "/tokenize") {
			t.Errorf("the debug log does not mention the server:\n%s", debug.String())
		}
	}
}

func TestServerTokenizerFailures(t *testing.T) {
	t.Parallel()
	srv, _ := fakeVLLM(t, false)
	// --tokenizer-mode server against a server without /tokenize.
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	_, err := Resolve(context.Background(), "x", ResolveOptions{Mode: ModeServer, Server: &serverapi.Client{HTTP: plain.Client(), BaseURL: plain.URL}})
	if err == nil || !strings.Contains(err.Error(), "--tokenizer-mode server") || !strings.Contains(err.Error(), "/tokenize: HTTP 404") {
		t.Errorf("mode server without /tokenize: %v", err)
	}
	// llama.cpp's /tokenize (it reads "content", answers {"tokens": []} to
	// vLLM's "prompt") would count every prompt as empty: refused.
	llama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"tokens":[]}`)
	}))
	defer llama.Close()
	_, err = Resolve(context.Background(), "x", ResolveOptions{Mode: ModeServer, Server: &serverapi.Client{HTTP: llama.Client(), BaseURL: llama.URL}})
	if err == nil || !strings.Contains(err.Error(), "does not answer as vLLM's does (0 tokens for \"Hello, world\", count absent)") {
		t.Errorf("mode server against llama.cpp's /tokenize: %v", err)
	}
	// A call failing after the start is remembered.
	tok, err := Resolve(context.Background(), "x", ResolveOptions{Mode: ModeServer, Server: &serverapi.Client{HTTP: srv.Client(), BaseURL: srv.URL}, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if got := tok.Encode("a", false); got != nil {
		t.Errorf("Encode on a closed server = %v", got)
	}
	if tokenizer.Err(tok) == nil {
		t.Error("Err is nil after a failed call")
	}
}

// TestServerFallbackNeedsVocabulary: when the caller draws from the
// vocabulary (the random dataset), the automatic fallback to a server that
// does not give its vocabulary size is skipped in favour of the full "what
// was tried" error; a server that gives it is still used.
func TestServerFallbackNeedsVocabulary(t *testing.T) {
	t.Parallel()
	for _, info := range []bool{false, true} {
		srv, _ := fakeVLLM(t, info)
		vars := map[string]string{"HF_HUB_CACHE": t.TempDir(), "HF_HUB_OFFLINE": "1"}
		opts := ResolveOptions{Getenv: env(vars), HTTP: srv.Client(), Model: "m", NeedVocabulary: true,
			Server: &serverapi.Client{HTTP: srv.Client(), BaseURL: srv.URL}}
		tok, err := Resolve(context.Background(), "acme/not-cached", opts)
		if info {
			if err != nil || tok.VocabSize() == 0 {
				t.Errorf("with /tokenizer_info: %v, %v", tok, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "does not give the vocabulary size") ||
			strings.Contains(err.Error(), "--tokenizer-mode server") {
			t.Errorf("without /tokenizer_info: err = %v", err)
		}
	}
}
