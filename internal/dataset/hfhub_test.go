package dataset

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	hubCommit = "0123456789abcdef0123456789abcdef01234567"
	hubToken  = "hf_test_token"
)

// fakeHub is a Hub on 127.0.0.1 serving one dataset, org/mt: the
// repository listing and HEAD answers from the Hub, the train split's
// content from a CDN on another origin (as large files are), which must
// not receive HF_TOKEN.
func fakeHub(t *testing.T, data []byte) (hubURL string, requests func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	record := func(who string, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, who+" "+r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
	}
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("cdn", r)
		_, _ = w.Write(data)
	}))
	t.Cleanup(cdn.Close)
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("hub", r)
		if r.Header.Get("Authorization") != "Bearer "+hubToken {
			w.Header().Set("X-Error-Code", "RepositoryNotFound")
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		switch r.URL.Path {
		case "/api/datasets/org/mt/revision/main":
			_, _ = io.WriteString(w, `{"id": "org/mt", "sha": "`+hubCommit+`", "siblings": [{"rfilename": ".gitattributes"},
				{"rfilename": "README.md"}, {"rfilename": "data/train-00000-of-00001.jsonl"}, {"rfilename": "data/test-00000-of-00001.jsonl"}]}`)
		case "/datasets/org/mt/resolve/" + hubCommit + "/data/train-00000-of-00001.jsonl":
			w.Header().Set("X-Repo-Commit", hubCommit)
			w.Header().Set("X-Linked-Etag", `"abc123"`)
			http.Redirect(w, r, cdn.URL+"/blob/abc123?signature=secret", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(hub.Close)
	return hub.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// TestHFFromHub: a dataset id as --dataset-path downloads the split's data
// files (only them) from HF_ENDPOINT into the Hub cache's layout, with
// HF_TOKEN sent to the Hub and not to the CDN; the samples equal those of
// the same file read locally (the golden's MT-Bench case); with
// HF_HUB_OFFLINE the cache serves the run without a request.
func TestHFFromHub(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "hf", "mtbench", "train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	url, requests := fakeHub(t, data)
	cache := t.TempDir()
	env := map[string]string{"HF_ENDPOINT": url, "HF_TOKEN": hubToken, "HF_HUB_CACHE": cache}
	var want []hfSample
	var cases []hfCase
	readJSON(t, filepath.Join("hf", "hf_golden.json"), &cases)
	var c hfCase
	for _, k := range cases {
		if k.Dir == "mtbench" {
			c, want = k, k.Samples
		}
	}
	opts := c.options("org/mt")
	opts.HFName = "philschmid/mt-bench"
	opts.Hub = &Hub{HTTP: http.DefaultClient, Getenv: func(k string) string { return env[k] }}
	got, err := Load(opts, chatFake{newFake()}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, toHFGolden(t, got)); diff != "" {
		t.Errorf("(-local +hub):\n%s", diff)
	}
	reqs := requests()
	for _, r := range reqs {
		if strings.HasPrefix(r, "cdn") && strings.Contains(r, hubToken) {
			t.Errorf("the CDN received the token: %s", r)
		}
		if strings.Contains(r, "test-00000") {
			t.Errorf("the test split was downloaded: %s", r)
		}
	}
	snap := filepath.Join(cache, "datasets--org--mt", "snapshots", hubCommit, "data", "train-00000-of-00001.jsonl")
	if b, err := os.ReadFile(snap); err != nil || string(b) != string(data) {
		t.Errorf("snapshot file: %v", err)
	}
	if ref, _ := os.ReadFile(filepath.Join(cache, "datasets--org--mt", "refs", "main")); string(ref) != hubCommit {
		t.Errorf("refs/main = %q", ref)
	}

	env["HF_HUB_OFFLINE"] = "1"
	env["HF_ENDPOINT"] = "http://127.0.0.1:1"
	again, err := Load(opts, chatFake{newFake()}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, toHFGolden(t, again)); diff != "" {
		t.Errorf("offline (-local +cache):\n%s", diff)
	}
	if n := len(requests()); n != len(reqs) {
		t.Errorf("offline run sent %d requests", n-len(reqs))
	}

	delete(env, "HF_HUB_OFFLINE")
	env["HF_ENDPOINT"], env["HF_TOKEN"], env["HF_HUB_CACHE"] = url, "wrong", t.TempDir()
	if _, err := Load(opts, chatFake{newFake()}, nil, io.Discard); err == nil || !strings.Contains(err.Error(), "set HF_TOKEN") {
		t.Errorf("wrong token: err = %v", err)
	}
}
