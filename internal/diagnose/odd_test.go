package diagnose

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
)

// oddPages are pages a server may legally expose that once made the
// figures NaN (and gobench serve panic writing them): each is a window's
// start and end as a live server would give them (testdata/odd/README.md).
func oddPages(t *testing.T) []oddPage { return readOddPages(t, "testdata/odd") }

// oddPage is one window of testdata/odd.
type oddPage struct {
	name       string
	start, end []byte
}

// readOddPages reads the windows of dir: NAME.start.prom and NAME.end.prom.
func readOddPages(t *testing.T, dir string) []oddPage {
	t.Helper()
	starts, err := filepath.Glob(filepath.Join(dir, "*.start.prom"))
	if err != nil || len(starts) == 0 {
		t.Fatalf("no windows in %s: %v", dir, err)
	}
	var out []oddPage
	for _, f := range starts {
		p := oddPage{name: strings.TrimSuffix(filepath.Base(f), ".start.prom")}
		if p.start, err = os.ReadFile(f); err == nil {
			p.end, err = os.ReadFile(strings.TrimSuffix(f, ".start.prom") + ".end.prom")
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// scaleSeed is the seed sample as its server's k-th scrape would show it:
// every counter and bucket k times the sample's, the gauges as they are.
func scaleSeed(seed []byte, k float64) []byte {
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(seed)), "\n") {
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil || strings.Contains(line, "num_requests_") || strings.Contains(line, "kv_cache_usage") {
			out.WriteString(line + "\n")
			continue
		}
		fmt.Fprintf(&out, "%s %v\n", line[:i], v*k)
	}
	return []byte(out.String())
}

// TestOddPages diagnoses each odd page as gobench diagnose does (one
// scrape, and the window between two) in every format: no NaN or
// infinity reaches the JSON (unknown numbers are null), and the text
// shows them as n/a.
func TestOddPages(t *testing.T) {
	t.Parallel()
	for _, p := range oddPages(t) {
		for _, in := range []Input{{Sources: []string{"s"}, End: [][]byte{p.end}},
			{Sources: []string{"s"}, Start: [][]byte{p.start}, End: [][]byte{p.end}, Seconds: 10}} {
			r, err := FromScrapes(in, DefaultOptions())
			if err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			if bad := pyjson.NonFinitePaths(r.Object(), "report"); len(bad) > 0 {
				t.Errorf("%s: not finite: %v", p.name, bad)
			}
			for _, format := range []string{"text", "markdown", "json"} {
				var b strings.Builder
				if err := r.Render(&b, format); err != nil {
					t.Fatalf("%s %s: %v", p.name, format, err)
				}
				// The notes may say a sample was NaN; no figure may be.
				figures, _, _ := strings.Cut(b.String(), "Notes")
				figures, _, _ = strings.Cut(figures, `"notes"`)
				if strings.Contains(figures, "NaN") || strings.Contains(figures, `"nan"`) || strings.Contains(figures, `"inf"`) {
					t.Errorf("%s %s shows a NaN:\n%s", p.name, format, b.String())
				}
				if format == "json" && !json.Valid([]byte(b.String())) {
					t.Errorf("%s: invalid JSON", p.name)
				}
			}
		}
	}
}

// TestDuplicateBoundsDiagnosis: the seed sample with its le="0.5" bucket
// written again as le="0.50" (a larger count), in two scrapes whose counts
// grow as on a live server, is not a restart and keeps the seed's TTFT
// p99 of 3.75 (servermetrics' TestBucketAnomalies works it out by hand,
// as Prometheus' histogram_quantile does), with a note; adding the two
// buckets would give 0.496 and the restart's totals.
func TestDuplicateBoundsDiagnosis(t *testing.T) {
	t.Parallel()
	seed, err := os.ReadFile("testdata/seed-sample.prom")
	if err != nil {
		t.Fatal(err)
	}
	dup := append(seed, "vllm:time_to_first_token_seconds_bucket{le=\"0.50\"} 2500\n"...)
	r, err := FromScrapes(Input{Sources: []string{"s"}, Start: [][]byte{scaleSeed(dup, 1)}, End: [][]byte{scaleSeed(dup, 2)}, Seconds: 60},
		DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(r.Notes, "\n")
	if strings.Contains(notes, "restarted") || !strings.Contains(notes, "bucket le=0.5 appears twice") {
		t.Errorf("notes:\n%s", notes)
	}
	if p := r.rowOf("ttft").P[p99].Value; math.Abs(p-3.75) > 1e-12 {
		t.Errorf("TTFT p99 %v, want 3.75", p)
	}
}
