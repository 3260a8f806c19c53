package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// serverViewSection is the "Server view" section of text or markdown
// output: from its heading to its closing rule (text) or to the end.
func serverViewSection(t *testing.T, out, format string) string {
	t.Helper()
	start, end := strings.Index(out, "================== Server view"), -1
	if format == "markdown" {
		start = strings.Index(out, "\n### Server view\n")
		end = len(out)
	} else if start >= 0 {
		rule := "\n" + strings.Repeat("=", 50) + "\n"
		if i := strings.Index(out[start:], rule); i >= 0 {
			end = start + i + len(rule)
		}
	}
	if start < 0 || end < 0 {
		t.Fatalf("no server view section in:\n%s", out)
	}
	return out[start:end]
}

// TestAnalyzeRendersServerView runs `gobench serve` against simulator
// presets with --save-result --save-detailed, then `gobench analyze` on
// the file: the Server view section after the block is the one serve
// printed, byte for byte, in text and in markdown, and the JSON output
// keeps the file's server_view unchanged; analyze's thresholds read it.
func TestAnalyzeRendersServerView(t *testing.T) {
	t.Parallel()
	tests := []struct{ preset, format string }{
		{"seq-limit", "text"},
		{"healthy", "markdown"},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out, errOut, code := runMain(t, "serve", "--sim", "--sim-preset", tt.preset, "--dataset-name", "random",
				"--random-input-len", "64", "--random-output-len", "16", "--num-prompts", "60", "--request-rate", "60",
				"--metrics-interval", "0.1", "--format", tt.format, "--save-result", "--save-detailed",
				"--result-dir", dir, "--result-filename", "run.json", "--disable-tqdm")
			if code != 0 {
				t.Fatalf("serve exit %d\n%s\n%s", code, out, errOut)
			}
			served := serverViewSection(t, out, tt.format)
			if !strings.Contains(served, "Verdict: ") {
				t.Fatalf("no verdict in the served section:\n%s", served)
			}
			path := filepath.Join(dir, "run.json")
			out, errOut, code = runMain(t, "analyze", path, "--format", tt.format)
			if code != 0 {
				t.Fatalf("analyze exit %d\n%s\n%s", code, out, errOut)
			}
			if got := serverViewSection(t, out, tt.format); got != served {
				t.Errorf("analyze printed\n%s\nserve printed\n%s", got, served)
			}

			out, errOut, code = runMain(t, "analyze", path, "--format", "json")
			if code != 0 {
				t.Fatalf("analyze --format json exit %d: %s", code, errOut)
			}
			saved, err := resultfile.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := resultfile.Parse("analyze output", []byte(out), nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := saved.Raw(resultkey.ServerView)
			got, ok := runs[0].Raw(resultkey.ServerView)
			if !ok || !bytes.Equal(got, want) {
				t.Errorf("analyze --format json server_view:\n%s\nthe file's:\n%s", got, want)
			}

			// Thresholds of analyze read the server view too.
			verdict, _ := saved.String("server_view.verdict")
			out, errOut, code = runMain(t, "analyze", path, "--threshold", "server_view.verdict=="+verdict,
				"--threshold", "server_view.ratios.preemptions>=0")
			if code != 0 || !strings.Contains(out, "Thresholds: 2 passed, 0 failed.") {
				t.Errorf("analyze --threshold: exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
}

// TestCompareServerView: compare's "Server view" part, golden in every
// format, for a healthy run, a sequence-limited one (its verdict change
// highlighted) and an older result without server_view (n/a).
func TestCompareServerView(t *testing.T) {
	t.Parallel()
	files := []string{fixture("server_healthy.json"), fixture("server_seq_limit.json"), fixture("gobench_fast.json")}
	for _, format := range []string{"text", "markdown", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runMain(t, append([]string{"compare", "--format", format}, files...)...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden.Check(t, []byte(out))
		})
	}
	// Without server_view in any file the part is left out.
	out, _, code := runMain(t, "compare", fixture("gobench_fast.json"), fixture("gobench_slow.json"))
	if code != 0 || strings.Contains(out, "Server view") {
		t.Errorf("exit %d, a server view part without server_view:\n%s", code, out)
	}
	out, _, _ = runMain(t, "compare", "--all", fixture("server_healthy.json"), fixture("server_kv_thrashing.json"))
	if !strings.Contains(out, "  CHANGED, worse\n") || !regexp.MustCompile(`\nratios\.preemptions +lower +0 +[1-9]`).MatchString(out) {
		t.Errorf("healthy against thrashing:\n%s", out)
	}
}

// TestCheckServerView: thresholds on server figures of saved files: the
// verdict with == and !=, numbers at dotted paths (metric names with ':',
// client_vs_server rows by metric), relative to a baseline, and the
// mistakes, each exit 2 naming why.
func TestCheckServerView(t *testing.T) {
	t.Parallel()
	healthy, seqLimit, old := fixture("server_healthy.json"), fixture("server_seq_limit.json"), fixture("gobench_fast.json")
	tests := []struct {
		name   string
		args   []string
		code   exitcode.Code
		stdout string
		stderr string
	}{
		{"verdict", []string{healthy, "--threshold", "server_view.verdict==healthy", "--threshold", "server_view.verdict!=queue/seq-limit"},
			exitcode.OK, `PASS  server_view.verdict==healthy          "healthy" == "healthy"`, ""},
		{"verdict fails", []string{seqLimit, "--threshold", `server_view.verdict == "healthy"`}, exitcode.ThresholdFailed,
			`FAIL  server_view.verdict == "healthy"  "queue/seq-limit" != "healthy"`, "1 of 1 threshold(s) failed"},
		{"figures", []string{healthy, "--threshold", "server_view.ratios.preemptions<1",
			"--threshold", "server_view.quantiles.vllm:time_to_first_token_seconds.p99<0.5",
			"--threshold", "server_view.gauges.peak.kv_cache_usage_perc_max_engine<0.9",
			"--threshold", "server_view.client_vs_server.ttft.gap_mean<0.01", "--threshold", "completed==60"},
			exitcode.OK, "PASS  server_view.quantiles.vllm:time_to_first_token_seconds.p99<0.5  0.048 < 0.5", ""},
		{"relative", []string{seqLimit, "--baseline", healthy, "--threshold", "server_view.verdict==baseline",
			"--threshold", "server_view.quantiles.vllm:time_to_first_token_seconds.p99<=baseline*1.1"}, exitcode.ThresholdFailed,
			`FAIL  server_view.verdict==baseline                                             "queue/seq-limit" != "healthy" (baseline "healthy")` + "\n" +
				"FAIL  server_view.quantiles.vllm:time_to_first_token_seconds.p99<=baseline*1.1  2.45 > 0.0528 (baseline 0.048)", "2 of 2"},
		{"no server_view", []string{old, "--threshold", "server_view.verdict==healthy"}, exitcode.BadUsage,
			"FAIL  server_view.verdict==healthy  not in the result",
			`"server_view.verdict==healthy": ../resultfile/testdata/gobench_fast.json has no server_view: gobench serve saves it when the server publishes Prometheus /metrics`},
		{"baseline without server_view", []string{healthy, "--baseline", old, "--threshold", "server_view.ratios.preemptions<=baseline"},
			exitcode.BadUsage, "not in the baseline", "the baseline ../resultfile/testdata/gobench_fast.json has no server_view"},
		{"no such figure", []string{healthy, "--threshold", "server_view.ratios.preemption<1"}, exitcode.BadUsage, "",
			`has nothing at "server_view.ratios.preemption": server_view.ratios holds prefix_cache_hit_rate,`},
		{"no such row", []string{healthy, "--threshold", "server_view.client_vs_server.ttfb.gap_mean<1"}, exitcode.BadUsage, "",
			"server_view.client_vs_server holds ttft, itl, tpot, e2el, queue"},
		{"an object", []string{healthy, "--threshold", "server_view.gauges.peak<1"}, exitcode.BadUsage, "",
			`"server_view.gauges.peak" in ../resultfile/testdata/server_healthy.json holds no single value but: samples, num_requests_running,`},
		{"text compared as a number", []string{healthy, "--threshold", "server_view.verdict<1"}, exitcode.BadUsage, "",
			`holds text under "server_view.verdict" ("healthy"), which compares only with == or != and text, e.g. 'server_view.verdict==healthy'`},
		{"number compared with text", []string{healthy, "--threshold", "completed==sixty"}, exitcode.BadUsage, "",
			`holds a number under "completed"; compare it with a number`},
		{"bad syntax names the flag and the expression", []string{healthy, "--threshold", "server_view.verdict=!healthy"}, exitcode.BadUsage, "",
			`argument --threshold: bad threshold "server_view.verdict=!healthy": "=!" is not a comparison; use <, <=, >, >=, == or !=`},
		{"text with <", []string{healthy, "--threshold", `server_view.verdict<"healthy"`}, exitcode.BadUsage, "",
			`argument --threshold: bad threshold "server_view.verdict<\"healthy\"": text ("healthy") compares only with == or !=`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runMain(t, append([]string{"check"}, tt.args...)...)
			if code != int(tt.code) || !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
		})
	}
}

// TestServeServerViewThresholds: `gobench serve --threshold` on server
// figures: judged on the run's own server_view (and against a baseline
// file's), refused before anything is sent with --no-server-metrics, and
// an error naming why (exit 2) when the server has no /metrics.
func TestServeServerViewThresholds(t *testing.T) {
	t.Parallel()
	load := []string{"--dataset-name", "random", "--random-input-len", "64", "--random-output-len", "16",
		"--num-prompts", "40", "--request-rate", "40", "--disable-tqdm"}
	t.Run("judged", func(t *testing.T) {
		t.Parallel()
		args := append([]string{"serve", "--sim", "--sim-preset", "healthy", "--metrics-interval", "0.1", "--format", "json",
			"--threshold", "server_view.ratios.preemptions<=baseline", "--threshold-baseline", fixture("server_healthy.json"),
			"--threshold", "server_view.quantiles.vllm:e2e_request_latency_seconds.p99<60",
			"--threshold", "server_view.verdict!=queue/memory-thrashing"}, load...)
		out, errOut, code := runMain(t, args...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		runs, err := resultfile.Parse("stdout", []byte(out), nil)
		if err != nil {
			t.Fatal(err)
		}
		verdict, _ := runs[0].String("server_view.verdict")
		passed, _ := runs[0].Lookup("gobench_thresholds.passed")
		if verdict == "" || passed != true {
			t.Errorf("verdict %q, passed %v:\n%s", verdict, passed, out)
		}
	})
	t.Run("no server metrics", func(t *testing.T) {
		t.Parallel()
		srv, posts := simServer(t, time.Millisecond, time.Millisecond, 0)
		_, errOut, code := runMain(t, append([]string{"serve", "--base-url", srv.URL, "--no-server-metrics",
			"--threshold", "server_view.verdict==healthy"}, load...)...)
		if code != int(exitcode.BadUsage) || !strings.Contains(errOut, `"server_view.verdict==healthy": --no-server-metrics leaves server_view out of the result`) {
			t.Errorf("exit %d: %s", code, errOut)
		}
		if n := posts.Load(); n != 0 {
			t.Errorf("%d requests sent by a refused command line", n)
		}
	})
	t.Run("server without metrics", func(t *testing.T) {
		t.Parallel()
		srv, _ := simServer(t, time.Millisecond, time.Millisecond, 0)
		bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/metrics" {
				http.NotFound(w, r)
				return
			}
			srv.Config.Handler.ServeHTTP(w, r)
		}))
		t.Cleanup(bare.Close)
		out, errOut, code := runMain(t, append([]string{"serve", "--base-url", bare.URL, "--threshold", "server_view.verdict==healthy",
			"--threshold", "p99_ttft_ms<60000"}, load...)...)
		if code != int(exitcode.BadUsage) || !strings.Contains(out, "FAIL  server_view.verdict==healthy  not in the result") ||
			!strings.Contains(errOut, `"server_view.verdict==healthy": the run's result has no server_view: gobench serve saves it when the server publishes Prometheus /metrics`) {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})
}
