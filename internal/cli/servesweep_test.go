package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/google/go-cmp/cmp"
)

// TestServeSweepShortForm: `serve --sweep-max-concurrency` runs one full
// run per value (num_prompts = value × --sweep-num-prompts-factor), each
// saved as its own result file, resets the prefix cache before each
// point, and ends with the table of the points on stdout and as CSV and
// JSON beside the results; --sweep-request-rate with --result-filename
// names each point's file after its load.
func TestServeSweepShortForm(t *testing.T) {
	t.Parallel()
	s, err := sim.NewServer(sim.Config{Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	var resets atomic.Int64
	h := s.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/reset_prefix_cache" && r.Method == http.MethodPost {
			resets.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	common := []string{"serve", "--base-url", srv.URL, "--random-input-len", "16", "--random-output-len", "4", "--result-dir", dir}
	out, errOut, code := runMain(t, append(common, "--sweep-max-concurrency", "1,4", "--sweep-num-prompts-factor", "2", "--reset-prefix-cache")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if resets.Load() != 2 {
		t.Errorf("%d prefix-cache resets, want one before each of the 2 points", resets.Load())
	}
	got := map[float64]float64{} // max_concurrency -> num_prompts
	var tables []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "sweep-") {
			tables = append(tables, filepath.Ext(e.Name()))
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		got[m["max_concurrency"].(float64)] = m["num_prompts"].(float64)
	}
	if diff := cmp.Diff(map[float64]float64{1: 2, 4: 8}, got); diff != "" {
		t.Errorf("result files (max_concurrency -> num_prompts) (-want +got):\n%s", diff)
	}
	slices.Sort(tables)
	if diff := cmp.Diff([]string{".csv", ".json"}, tables); diff != "" {
		t.Errorf("table files: %s", diff)
	}
	if !strings.Contains(out, "Sweep summary:") || !strings.Contains(out, "concurrency=1 ") || !strings.Contains(out, "concurrency=4 ") {
		t.Errorf("stdout:\n%s", out)
	}

	rates := t.TempDir()
	common[len(common)-1] = rates
	if _, errOut, code := runMain(t, append(common, "--num-prompts", "3", "--sweep-request-rate", "10,inf", "--result-filename", "r.json")...); code != 0 {
		t.Fatalf("rate sweep: exit %d\n%s", code, errOut)
	}
	for _, name := range []string{"r-rate=10.0.json", "r-rate=inf.json"} {
		if _, err := os.Stat(filepath.Join(rates, name)); err != nil {
			t.Error(err)
		}
	}
}

// TestServeSweepFlagErrors: the short form's mistakes are usage errors
// naming the flag, before anything is sent.
func TestServeSweepFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--sweep-request-rate", "1,2", "--sweep-max-concurrency", "4"}, "give one of them"},
		{[]string{"--sweep-request-rate", "1", "--sweep-num-prompts-factor", "2"}, "--sweep-num-prompts-factor needs --sweep-max-concurrency"},
		{[]string{"--sweep-request-rate", "1,x"}, `argument --sweep-request-rate: invalid request rate "x"`},
		{[]string{"--sweep-request-rate", "0"}, `invalid request rate "0"`},
		{[]string{"--sweep-max-concurrency", "8,0"}, `argument --sweep-max-concurrency: invalid concurrency "0"`},
		{[]string{"--sweep-max-concurrency", "8", "--sweep-num-prompts-factor", "0"}, "must be at least 1"},
	} {
		_, errOut, code := runMain(t, append([]string{"serve", "--sim"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, want 2 and %q\n%s", tt.args, code, tt.want, errOut)
		}
	}
}

// TestServeSweepFolder: without --result-dir a sweep puts its results and
// its table in one folder, sweep-DATE/, named in the last line, and
// leaves nothing else in the working directory. (Not parallel: it
// changes the working directory.)
func TestServeSweepFolder(t *testing.T) {
	cs, dir := newCacheServer(t, true), t.TempDir()
	t.Chdir(dir)
	_, stderr, code := runMain(t, "serve", "--base-url", cs.url, "--tokenizer", tokenizer.BuiltinName, "--disable-tqdm",
		"--no-server-metrics", "--num-prompts", "4", "--random-input-len", "8", "--random-output-len", "2",
		"--sweep-max-concurrency", "1,4")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	top, _ := os.ReadDir(".")
	if len(top) != 1 || !top[0].IsDir() || !strings.HasPrefix(top[0].Name(), "sweep-") {
		t.Fatalf("working directory holds %v, want one sweep-DATE folder", top)
	}
	folder := top[0].Name()
	inside, _ := os.ReadDir(folder)
	var results, tables int
	for _, e := range inside {
		switch {
		case strings.HasPrefix(e.Name(), "sweep-"):
			tables++
		case strings.HasSuffix(e.Name(), ".json"):
			results++
		}
	}
	if results != 2 || tables != 2 {
		t.Errorf("%s holds %d results and %d table files, want 2 and 2", folder, results, tables)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "are in "+folder+string(filepath.Separator)) {
		t.Errorf("the last line does not name the folder %s: %q", folder, last)
	}
}
