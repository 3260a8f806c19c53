package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
)

// cacheServer is the simulator behind a recorder: the prompts of the
// completions in the order they came, and the cache resets asked for,
// answered 404 when the server is not to offer them.
type cacheServer struct {
	url     string
	resets  atomic.Int64
	mu      sync.Mutex
	prompts []string
}

func newCacheServer(t *testing.T, offerReset bool) *cacheServer {
	t.Helper()
	s, err := sim.NewServer(sim.Config{Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	cs := &cacheServer{}
	h := s.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/reset_prefix_cache":
			cs.resets.Add(1)
			if !offerReset {
				http.NotFound(w, r)
				return
			}
		case "/v1/completions":
			cs.record(r)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cs.url = srv.URL
	return cs
}

// record keeps the prompt of a completion request and gives the body back.
func (cs *cacheServer) record(r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	var req struct {
		Prompt string `json:"prompt"`
	}
	_ = json.Unmarshal(body, &req)
	cs.mu.Lock()
	cs.prompts = append(cs.prompts, req.Prompt)
	cs.mu.Unlock()
}

// runPrompts are the sorted prompts of run k (from 1) of n-prompt runs.
func (cs *cacheServer) runPrompts(k, n int) []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	p := slices.Clone(cs.prompts[(k-1)*n : k*n])
	slices.Sort(p)
	return p
}

// cacheArgs are a small set of two runs against url.
func cacheArgs(url, dir string) []string {
	return []string{"serve", "--base-url", url, "--tokenizer", tokenizer.BuiltinName, "--disable-tqdm",
		"--no-server-metrics", "--num-prompts", "6", "--request-rate", "inf", "--random-input-len", "8",
		"--random-output-len", "2", "--seed", "7", "--result-dir", dir, "--result-filename", "c.json"}
}

// TestRunSetPrefixCache: the runs of a set do not share a warm prefix
// cache unless asked. Where the server offers /reset_prefix_cache it is
// reset before each run and every run sends the same prompts; where it
// does not, run k draws its own prompts with dataset seed --seed+k-1;
// --warm-cache sends the same prompts without a reset;
// --reset-prefix-cache works with --num-runs and fails when the server
// cannot reset. One line says which, and every run records it.
func TestRunSetPrefixCache(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		offer      bool
		flags      []string
		code       int
		resets     int64
		same       bool   // the runs' prompts are the same
		mode, line string // gobench_workload.prefix_cache; stderr
	}{
		{"reset", true, nil, 0, 2, true, "reset", "Prefix cache: reset before each run (POST /reset_prefix_cache)"},
		{"fresh prompts", false, nil, 0, 1, false, "fresh_prompts", "so run k draws prompts of its own (dataset seed --seed+k-1)"},
		{"warm", true, []string{"--warm-cache"}, 0, 0, true, "warm", "Prefix cache: kept warm (--warm-cache)"},
		{"asked reset", true, []string{"--reset-prefix-cache"}, 0, 2, true, "reset", "Prefix cache: reset before each run"},
		{"asked reset refused", false, []string{"--reset-prefix-cache"}, 1, 1, false, "", "--reset-prefix-cache before run 1: reset the server's cache"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, dir := newCacheServer(t, tt.offer), t.TempDir()
			_, stderr, code := runMain(t, append(cacheArgs(cs.url, dir), append(tt.flags, "--num-runs", "2")...)...)
			if code != tt.code || !strings.Contains(stderr, tt.line) || cs.resets.Load() != tt.resets {
				t.Fatalf("exit %d, %d resets; want %d, %d and %q in\n%s", code, cs.resets.Load(), tt.code, tt.resets, tt.line, stderr)
			}
			if tt.code != 0 {
				return
			}
			if same := slices.Equal(cs.runPrompts(1, 6), cs.runPrompts(2, 6)); same != tt.same {
				t.Errorf("the runs' prompts are the same: %v, want %v", same, tt.same)
			}
			for k, seed := range []float64{7, map[bool]float64{true: 7, false: 8}[tt.same]} {
				w := readJSON(t, filepath.Join(dir, "c-run"+string(rune('1'+k))+".json"))["gobench_workload"].(map[string]any)
				if w["prefix_cache"] != tt.mode || w["seed"] != seed {
					t.Errorf("run %d: prefix_cache %v, seed %v; want %s and %v", k+1, w["prefix_cache"], w["seed"], tt.mode, seed)
				}
			}
		})
	}
}

// TestServeSweepPrefixCache: a sweep's points do not share a warm cache
// either: without the reset, point k draws its prompts with dataset seed
// --seed+k-1 and keeps --seed's arrivals.
func TestServeSweepPrefixCache(t *testing.T) {
	t.Parallel()
	cs, dir := newCacheServer(t, false), t.TempDir()
	_, stderr, code := runMain(t, append(cacheArgs(cs.url, dir), "--sweep-max-concurrency", "1,2")...)
	if code != 0 || !strings.Contains(stderr, "so point k draws prompts of its own") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if slices.Equal(cs.runPrompts(1, 6), cs.runPrompts(2, 6)) {
		t.Error("the two points sent the same prompts")
	}
	w := readJSON(t, filepath.Join(dir, "c-concurrency=2.json"))["gobench_workload"].(map[string]any)
	if w["prefix_cache"] != "fresh_prompts" || w["seed"] != 8.0 || w["schedule_seed"] != 7.0 {
		t.Errorf("point 2: prefix_cache %v, seed %v, schedule_seed %v; want fresh_prompts, 8 and 7", w["prefix_cache"], w["seed"], w["schedule_seed"])
	}
}

// TestPrefixCacheFlagErrors: the cache flags' mistakes name the flags.
func TestPrefixCacheFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--warm-cache"}, "--warm-cache needs --num-runs 2 or more"},
		{[]string{"--warm-cache", "--reset-prefix-cache", "--num-runs", "2"}, "--reset-prefix-cache and --warm-cache: give one of them"},
	} {
		_, errOut, code := runMain(t, append([]string{"serve", "--sim", "--tokenizer", "gobench-builtin"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, want 2 and %q\n%s", tt.args, code, tt.want, errOut)
		}
	}
}

// TestSweepServePrefixCache: `gobench sweep serve` against a server of
// the user's (no --serve-cmd, which vLLM's sweep resets after each run)
// keeps the runs apart too: reset before each where the server can, else
// run i of the sweep draws its prompts with dataset seed --seed+i-1;
// --after-bench-cmd leaves the cache to the user.
func TestSweepServePrefixCache(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		offer  bool
		extra  []string
		resets int64
		same   bool
		line   string
	}{
		{"reset", true, nil, 2, true, "Prefix cache: reset before each run"},
		{"fresh prompts", false, nil, 1, false, "so run k draws prompts of its own"},
		{"after-bench-cmd", true, []string{"--after-bench-cmd", "true"}, 0, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, dir := newCacheServer(t, tt.offer), t.TempDir()
			args := append(sweepArgs(t, cs.url, dir), tt.extra...)
			args[3] += " --seed 7 --num-prompts 6 --request-rate inf --tokenizer " + tokenizer.BuiltinName
			_, stderr, code := runMain(t, args...)
			if code != 0 || !strings.Contains(stderr, tt.line) || cs.resets.Load() != tt.resets {
				t.Fatalf("exit %d, %d resets; want 0, %d and %q in\n%s", code, cs.resets.Load(), tt.resets, tt.line, stderr)
			}
			if same := slices.Equal(cs.runPrompts(1, 6), cs.runPrompts(2, 6)); same != tt.same {
				t.Errorf("the two runs' prompts are the same: %v, want %v", same, tt.same)
			}
		})
	}
}

// TestRunSetColdCacheOnScheduler: against the simulator's engine, which
// caches prefixes as vLLM does, the second run of a set meets a warm
// cache only with --warm-cache (the warning, which names the flag to
// use, fires then and only then).
func TestRunSetColdCacheOnScheduler(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flags []string
		warm  bool
	}{{nil, false}, {[]string{"--warm-cache"}, true}} {
		args := append([]string{"serve", "--sim", "--sim-preset", "8b-1gpu", "--disable-tqdm", "--num-prompts", "20",
			"--request-rate", "20", "--random-input-len", "256", "--random-output-len", "4", "--num-runs", "2",
			"--result-dir", t.TempDir(), "--result-filename", "w.json"}, tt.flags...)
		_, stderr, code := runSimInBubble(t, args...)
		warned := strings.Count(stderr, "prefix cache hit rate during a random-dataset run")
		if code != 0 || (warned == 1) != tt.warm || (tt.warm && !strings.Contains(stderr, "Give --reset-prefix-cache")) {
			t.Errorf("%q: exit %d, %d warm-cache warnings; want 0 and one only with --warm-cache\n%s", tt.flags, code, warned, stderr)
		}
	}
}
