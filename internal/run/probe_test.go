package run

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// probeSpy wraps a handler and keeps the bodies of the probe requests
// (prompt "Hi"); with fail set it answers them 500.
type probeSpy struct {
	next http.Handler
	fail bool
	mu   sync.Mutex
	// probes are the probe requests' bodies and x-request-id headers.
	probes []map[string]any
	ids    []string
}

func (s *probeSpy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		var m map[string]any
		if json.Unmarshal(body, &m) == nil && m["prompt"] == "Hi" {
			s.mu.Lock()
			s.probes = append(s.probes, m)
			s.ids = append(s.ids, r.Header.Get("X-Request-Id"))
			s.mu.Unlock()
			if s.fail {
				http.Error(w, "no probes here", http.StatusInternalServerError)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	s.next.ServeHTTP(w, r)
}

// TestProbes: --probe-request-rate sends one-token "Hi" copies of the test
// request beside the run, which the run's own figures do not count; their
// account is printed after the throughputs (vLLM's "Probe Requests"
// section) and saved under vLLM's probe keys. A probe cannot be faster
// than the simulator's TTFT, its only token's due time.
func TestProbes(t *testing.T) {
	t.Parallel()
	const ttft = 20 * time.Millisecond
	srv := startSim(t, ttft, 2*time.Millisecond)
	spy := &probeSpy{next: srv.Config.Handler}
	srv.Config.Handler = spy
	o := baseOptions(srv.URL)
	o.Schedule.RequestRate, o.MaxConcurrency, o.ProbeRequestRate = 20, 4, 50
	o.SaveResult, o.ResultDir = true, t.TempDir()
	var b buffers
	res, err := Serve(context.Background(), o, b.env())
	if err != nil {
		t.Fatalf("Serve: %v\n%s", err, &b.err)
	}
	m := res.Metrics
	if m.Completed != 12 || m.Failed != 0 {
		t.Errorf("the run's figures count %d completed, %d failed; want the 12 requests alone", m.Completed, m.Failed)
	}
	p := m.Probe
	if p == nil || p.Completed < 1 || p.Failed != 0 {
		t.Fatalf("probe account %+v, want at least one successful probe", p)
	}
	if p.MedianE2ELMS < float64(ttft.Milliseconds()) || p.MaxE2ELMS < p.P99E2ELMS || p.P99E2ELMS < p.MedianE2ELMS {
		t.Errorf("probe latencies %+v: below the simulator's TTFT or out of order", p)
	}
	spy.mu.Lock()
	if len(spy.probes) < p.Completed {
		t.Errorf("the server saw %d probes, the account has %d", len(spy.probes), p.Completed)
	}
	for i, body := range spy.probes {
		if body["max_tokens"] != 1.0 || spy.ids[i] != "" {
			t.Errorf("probe %d: max_tokens %v, x-request-id %q; want 1 and none", i, body["max_tokens"], spy.ids[i])
		}
	}
	spy.mu.Unlock()
	out := b.out.String()
	total, probe, ttftHeader := strings.Index(out, "Total token throughput"), strings.Index(out, "-----------------Probe Requests-----------------"), strings.Index(out, "Time to First Token")
	if total < 0 || probe < total || ttftHeader < probe {
		t.Errorf("want the Probe Requests section between the throughputs and the TTFT section:\n%s", out)
	}
	saved := readResult(t, res.File)
	if saved["probe_completed"] != float64(p.Completed) || saved["probe_failed"] != 0.0 || saved["probe_p99_e2el_ms"] != p.P99E2ELMS {
		t.Errorf("saved probe keys %v %v %v, want %+v", saved["probe_completed"], saved["probe_failed"], saved["probe_p99_e2el_ms"], p)
	}
}

// TestProbesAllFailed: when no probe succeeds, vLLM prints no probe
// section and saves no probe key; the run itself is unaffected.
func TestProbesAllFailed(t *testing.T) {
	t.Parallel()
	srv := startSim(t, 5*time.Millisecond, time.Millisecond)
	spy := &probeSpy{next: srv.Config.Handler, fail: true}
	srv.Config.Handler = spy
	o := baseOptions(srv.URL)
	o.Schedule.RequestRate, o.ProbeRequestRate = 30, 100
	o.SaveResult, o.ResultDir = true, t.TempDir()
	var b buffers
	res, err := Serve(context.Background(), o, b.env())
	if err != nil {
		t.Fatalf("Serve: %v\n%s", err, &b.err)
	}
	spy.mu.Lock()
	sent := len(spy.probes)
	spy.mu.Unlock()
	if res.Metrics.Completed != 12 || res.Metrics.Probe != nil || sent == 0 {
		t.Errorf("completed %d, probe account %+v, %d probes sent; want 12, none, some", res.Metrics.Completed, res.Metrics.Probe, sent)
	}
	if strings.Contains(b.out.String(), "Probe Requests") {
		t.Errorf("a probe section without a successful probe:\n%s", &b.out)
	}
	if _, ok := readResult(t, res.File)["probe_completed"]; ok {
		t.Error("probe keys saved without a successful probe")
	}
}

// TestValidateProbes: a negative or NaN rate is refused, as are probes
// with the audio backend, which cannot send a text prompt.
func TestValidateProbes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rate    float64
		backend string
		want    string
	}{
		{0, "openai-audio", ""},
		{2, "openai-chat", ""},
		{math.Inf(1), "openai", ""},
		{-1, "openai", "must be a positive rate"},
		{math.NaN(), "openai", "must be a positive rate"},
		{1, "openai-audio", "probes are text requests"},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		o.ProbeRequestRate, o.Backend = tt.rate, tt.backend
		err := o.validateProbes()
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("rate %v, backend %s: error %v, want %q", tt.rate, tt.backend, err, tt.want)
		}
	}
}
