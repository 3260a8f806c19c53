package run

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/google/go-cmp/cmp"
)

// TestProgressLine checks the CI line's figures, computed by hand: the
// rates count the successful requests and their tokens over the elapsed
// time, as the result's throughputs do.
func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		name, desc string
		s          progressSnapshot
		want       string
	}{{
		// (120-2)/8.4 = 14.05 req/s; 15000/8.4 = 1785.7 tok/s.
		name: "running",
		s:    progressSnapshot{Total: 1000, Done: 120, Failed: 2, Running: 64, Tokens: 15000, Elapsed: 8400 * time.Millisecond},
		want: "progress: 120/1000 done, 2 failed, 14.0 req/s, 1786 output tok/s, 64 running, 8.4 s",
	}, {
		name: "nothing back yet",
		s:    progressSnapshot{Total: 1000, Running: 1000, Elapsed: time.Second},
		want: "progress: 0/1000 done, 0 failed, 0.0 req/s, 0 output tok/s, 1000 running, 1.0 s",
	}, {
		// 10/4 = 2.5 req/s; 1000/4 = 250 tok/s.
		name: "warm-up",
		desc: "warmup",
		s:    progressSnapshot{Total: 10, Done: 10, Tokens: 1000, Elapsed: 4 * time.Second},
		want: "warmup progress: 10/10 done, 0 failed, 2.5 req/s, 250 output tok/s, 0 running, 4.0 s",
	}, {
		name: "all failed",
		s:    progressSnapshot{Total: 5, Done: 5, Failed: 5, Elapsed: 2 * time.Second},
		want: "progress: 5/5 done, 5 failed, 0.0 req/s, 0 output tok/s, 0 running, 2.0 s",
	}, {
		name: "no time yet",
		s:    progressSnapshot{Total: 5, Done: 1, Tokens: 10},
		want: "progress: 1/5 done, 0 failed, 0.0 req/s, 0 output tok/s, 0 running, 0.0 s",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := progressLine(tc.desc, tc.s); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestProgressBar checks the terminal frame: tqdm's layout with the
// failures and the token rate, the bar in eighths of a cell, the time
// left from the rate so far, and a bar that narrows and then goes when the
// line would not fit.
func TestProgressBar(t *testing.T) {
	done := progressSnapshot{Total: 4, Done: 4, Tokens: 400, Elapsed: 2 * time.Second}
	for _, tc := range []struct {
		name, desc string
		s          progressSnapshot
		columns    int
		want       string
	}{{
		// 12 % of 25 cells = 3 cells; 8 s for 120, so 58.7 s for 880 more.
		name:    "running",
		s:       progressSnapshot{Total: 1000, Done: 120, Failed: 2, Tokens: 15000, Elapsed: 8 * time.Second},
		columns: 120,
		want:    " 12%|███                      | 120/1000, 2 failed [00:08<00:58, 14.8 req/s, 1875 tok/s]",
	}, {
		// 50 % of 5 cells = 2.5 cells: two full and a half.
		name:    "half a cell",
		desc:    "warmup",
		s:       progressSnapshot{Total: 2, Done: 1, Tokens: 7, Elapsed: 3723 * time.Second},
		columns: 71,
		want:    "warmup:  50%|██▌  | 1/2, 0 failed [1:02:03<1:02:03, 0.0 req/s, 0 tok/s]",
	}, {
		name:    "nothing back yet",
		s:       progressSnapshot{Total: 3, Elapsed: 500 * time.Millisecond},
		columns: 79,
		want:    "  0%|                         | 0/3, 0 failed [00:00<?, 0.0 req/s, 0 tok/s]",
	}, {
		name:    "done",
		s:       done,
		columns: 81,
		want:    "100%|█████████████████████████| 4/4, 0 failed [00:02<00:00, 2.0 req/s, 200 tok/s]",
	}, {
		name:    "room for 4 cells",
		s:       done,
		columns: 60,
		want:    "100%|████| 4/4, 0 failed [00:02<00:00, 2.0 req/s, 200 tok/s]",
	}, {
		name:    "no room for a bar",
		s:       done,
		columns: 59,
		want:    "100% 4/4, 0 failed [00:02<00:00, 2.0 req/s, 200 tok/s]",
	}, {
		// A time-based run (--duration 40 s): the bar is the time, 20 % of
		// 25 cells = 5 cells, 32 s left; more requests than planned done.
		name:    "time-based",
		s:       progressSnapshot{Total: 10, Limit: 40 * time.Second, Done: 12, Tokens: 1200, Elapsed: 8 * time.Second},
		columns: 120,
		want:    " 20%|█████                    | 12 done, 0 failed [00:08<00:32, 1.5 req/s, 150 tok/s]",
	}, {
		name:    "time-based, past its time",
		s:       progressSnapshot{Total: 10, Limit: 4 * time.Second, Done: 12, Tokens: 1200, Elapsed: 8 * time.Second},
		columns: 120,
		want:    "100%|█████████████████████████| 12 done, 0 failed [00:08<00:00, 1.5 req/s, 150 tok/s]",
	}, {
		name:    "cut at the width",
		s:       done,
		columns: 20,
		want:    "100% 4/4, 0 failed [",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			l := newBarLayout(tc.columns)
			got := l.frame(tc.desc, tc.s)
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if n := utf8.RuneCountInString(got); n > tc.columns {
				t.Errorf("%d columns, more than %d", n, tc.columns)
			}
		})
	}
}

// TestProgressLines runs the CI lines on a fake clock: the first after a
// second, then at every multiple of the interval, and a last one at the
// end, with the counters as the request goroutines left them.
func TestProgressLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		opts := Options{ProgressInterval: 5 * time.Second}
		p := newProgress(Env{Stderr: &buf}, opts, 4, 0, "")
		ok := metrics.Output{Success: true, OutputTokens: 50}
		p.sent()
		p.sent()
		time.Sleep(2 * time.Second)
		p.finished(&ok)
		time.Sleep(4 * time.Second)
		p.sent()
		p.finished(&metrics.Output{Error: "HTTP 500"})
		time.Sleep(5 * time.Second)
		synctest.Wait()
		p.finish()
		want := []string{
			"progress: 0/4 done, 0 failed, 0.0 req/s, 0 output tok/s, 2 running, 1.0 s",
			"progress: 1/4 done, 0 failed, 0.2 req/s, 10 output tok/s, 1 running, 5.0 s",
			"progress: 2/4 done, 1 failed, 0.1 req/s, 5 output tok/s, 1 running, 10.0 s",
			"progress: 2/4 done, 1 failed, 0.1 req/s, 5 output tok/s, 1 running, 11.0 s",
		}
		if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")); diff != "" {
			t.Errorf("lines (-want +got):\n%s", diff)
		}
	})
}

// TestProgressTerminal runs the bar on a fake clock: frames redrawn in
// place every barRefresh while requests come back, else when the clock's
// second turns, and the last frame ended by a newline.
func TestProgressTerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		p := newProgress(Env{Stderr: &buf, Progress: true}, Options{}, 2, 0, "")
		p.sent()
		time.Sleep(250 * time.Millisecond)
		p.finished(&metrics.Output{Success: true, ITL: []float64{0.01, 0.01}})
		time.Sleep(900 * time.Millisecond)
		synctest.Wait()
		p.finish()
		// 100 ms: nothing back, so the next frame waits for 1 s. 1 s: one
		// back (3 tokens: two gaps), 1/1 = 1.0 req/s, 3 tok/s; so 1.1 s
		// follows: 0.9 req/s, 2.7 tok/s. The end, 1.15 s: 0.9 req/s, 2.6 tok/s.
		want := []string{
			"\r  0%|                         | 0/2, 0 failed [00:00<?, 0.0 req/s, 0 tok/s]\x1b[K",
			"\r 50%|████████████▌            | 1/2, 0 failed [00:01<00:01, 1.0 req/s, 3 tok/s]\x1b[K",
			"\r 50%|████████████▌            | 1/2, 0 failed [00:01<00:01, 0.9 req/s, 3 tok/s]\x1b[K",
			"\r 50%|████████████▌            | 1/2, 0 failed [00:01<00:01, 0.9 req/s, 3 tok/s]\x1b[K\n",
		}
		if diff := cmp.Diff(strings.Join(want, ""), buf.String()); diff != "" {
			t.Errorf("frames (-want +got):\n%s", diff)
		}
	})
}

// TestProgressBarNarrows checks that the bar narrows for longer numbers
// and does not widen again for shorter ones, so that frames do not jitter.
func TestProgressBarNarrows(t *testing.T) {
	l := newBarLayout(79)
	for _, step := range []struct {
		s    progressSnapshot
		want string
	}{{
		s:    progressSnapshot{Total: 2, Done: 1, Tokens: 3, Elapsed: 300 * time.Millisecond},
		want: " 50%|████████████            | 1/2, 0 failed [00:00<00:00, 3.3 req/s, 10 tok/s]",
	}, {
		s:    progressSnapshot{Total: 2, Done: 1, Tokens: 3, Elapsed: 350 * time.Millisecond},
		want: " 50%|████████████            | 1/2, 0 failed [00:00<00:00, 2.9 req/s, 9 tok/s]",
	}} {
		if got := l.frame("", step.s); got != step.want {
			t.Errorf("got  %q\nwant %q", got, step.want)
		}
	}
}

// TestProgressOff checks when nothing is shown: --disable-tqdm, no
// interval off a terminal, and a run shorter than the first line.
func TestProgressOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  Env
		opts Options
	}{
		{"disable-tqdm on a terminal", Env{Progress: true}, Options{DisableProgress: true}},
		{"disable-tqdm off a terminal", Env{}, Options{DisableProgress: true, ProgressInterval: time.Second}},
		{"interval 0 off a terminal", Env{}, Options{}},
	} {
		if p := newProgress(tc.env, tc.opts, 10, 0, ""); p != nil {
			p.finish()
			t.Errorf("%s: progress shown", tc.name)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		p := newProgress(Env{Stderr: &buf}, Options{ProgressInterval: 5 * time.Second}, 1, 0, "")
		p.sent()
		time.Sleep(999 * time.Millisecond)
		p.finished(&metrics.Output{Success: true})
		p.finish()
		if buf.Len() != 0 {
			t.Errorf("a run shorter than a second printed %q", &buf)
		}
	})
	var none *progress // what a run without progress holds
	none.sent()
	none.finished(&metrics.Output{})
	none.finish()
}

// TestProgressCountsWithoutAllocating checks that a request's counting
// allocates nothing: it runs once per request on the request's goroutine.
func TestProgressCountsWithoutAllocating(t *testing.T) {
	p := &progress{}
	out := metrics.Output{Success: true, OutputTokens: 3}
	if n := testing.AllocsPerRun(100, func() {
		p.sent()
		p.finished(&out)
	}); n != 0 {
		t.Errorf("%v allocations per request", n)
	}
	if s := p.snapshot(); s.Done != 101 || s.Tokens != 303 || s.Running != 0 {
		t.Errorf("done %d, tokens %d, running %d", s.Done, s.Tokens, s.Running)
	}
}

// BenchmarkProgressCount is what a request pays for the progress: one
// sent and one finished, from as many goroutines as there are cores.
func BenchmarkProgressCount(b *testing.B) {
	p := &progress{}
	b.RunParallel(func(pb *testing.PB) {
		out := metrics.Output{Success: true, OutputTokens: 100}
		for pb.Next() {
			p.sent()
			p.finished(&out)
		}
	})
}

// BenchmarkProgressDraw is what the drawing goroutine pays per frame or
// line (it draws 10 frames, or one line per interval, a second).
func BenchmarkProgressDraw(b *testing.B) {
	s := progressSnapshot{Total: 1000, Done: 120, Failed: 2, Running: 64, Tokens: 15000, Elapsed: 8400 * time.Millisecond}
	b.Run("bar", func(b *testing.B) {
		l := newBarLayout(barColumns)
		for b.Loop() {
			_ = l.frame("", s)
		}
	})
	b.Run("line", func(b *testing.B) {
		for b.Loop() {
			_ = progressLine("", s)
		}
	})
}
