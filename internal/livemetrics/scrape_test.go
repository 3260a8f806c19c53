package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/testserver"
	"github.com/gobench/gobench/internal/tokenizer"
)

// scrape reads the endpoint in format (its Accept header) into families.
func scrape(t *testing.T, url string, format expfmt.Format) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := scrapeOnce(url, format)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// scrapeOnce is scrape's work, for a goroutine of its own.
func scrapeOnce(url string, format expfmt.Format) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", string(format))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	dec := expfmt.NewDecoder(resp.Body, expfmt.ResponseFormat(resp.Header))
	fams := map[string]*dto.MetricFamily{}
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); errors.Is(err, io.EOF) {
			return fams, nil
		} else if err != nil {
			return nil, fmt.Errorf("decode the scrape of %s (%s): %w", url, resp.Header.Get("Content-Type"), err)
		}
		fams[mf.GetName()] = &mf
	}
}

// sum adds the values of a family's counters (or histogram counts).
func sum(fams map[string]*dto.MetricFamily, name string) float64 {
	var s float64
	for _, m := range fams[name].GetMetric() {
		switch {
		case m.Counter != nil:
			s += m.Counter.GetValue()
		case m.Histogram != nil:
			s += float64(m.Histogram.GetSampleCount())
		}
	}
	return s
}

// simRun is a simulator run of n requests, one in ten failing with 503.
func simRun(t *testing.T, url string, n int) run.Options {
	o := run.DefaultOptions()
	o.BaseURL, o.NumPrompts, o.Label = url, n, "live-test"
	o.Dataset.RandomInputLen, o.Dataset.RandomOutputLen = 32, 16
	o.Schedule.RequestRate, o.MaxConcurrency = 200, 8
	o.SaveResult, o.ResultDir = true, t.TempDir()
	return o
}

// TestScrapedDuringSimulatorRun scrapes the endpoint while a run against
// the simulator runs (OpenMetrics, parsed with expfmt), then once after:
// its counts equal the saved result's.
func TestScrapedDuringSimulatorRun(t *testing.T) {
	cfg := sim.Config{TTFT: 5 * time.Millisecond, ITL: 2 * time.Millisecond, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName}
	cfg.Faults.Set(sim.FaultHTTP503, sim.FaultRule{Pattern: regexp.MustCompile(`-[0-9]*5$`)})
	s, err := sim.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	e := New()
	ms, err := Listen("127.0.0.1:0", e)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	done := make(chan struct{})
	scrapes := make(chan error)
	go func() { // scrape during the run, at least once
		for {
			if _, err := scrapeOnce(ms.URL(), expfmt.NewFormat(expfmt.TypeOpenMetrics)); err != nil {
				scrapes <- err
				return
			}
			select {
			case <-done:
				scrapes <- nil
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	var out, errw testserver.LockedBuffer
	res, err := run.Serve(context.Background(), simRun(t, srv.URL, 60), run.Env{Stdout: &out, Stderr: &errw, Version: "test", Live: e})
	close(done)
	if err := <-scrapes; err != nil {
		t.Errorf("a scrape during the run: %v", err)
	}
	if err != nil {
		t.Fatalf("Serve: %v\n%s", err, errw.String())
	}
	checkFinalCounts(t, scrape(t, ms.URL(), expfmt.NewFormat(expfmt.TypeOpenMetrics)), res)
}
