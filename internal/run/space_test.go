package run

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/tokenizer"
)

// TestResultSize: the estimate grows with the requests, much more with
// --save-detailed (with their output lengths, a generous length when
// unknown), and with the scheduled span (the server view's timeline); it
// covers what gobench's own results measured (13 KB without
// --save-detailed, 3.4 MB for 1,000 requests of 128 tokens with it).
func TestResultSize(t *testing.T) {
	t.Parallel()
	plan := func(n, outLen int, detailed bool, span float64) *Plan {
		p := &Plan{Options: DefaultOptions()}
		p.Options.SaveDetailed = detailed
		for i := range n {
			p.jobs = append(p.jobs, job{req: &backend.Request{OutputLen: outLen}})
			p.Offsets = append(p.Offsets, span*float64(i)/float64(max(n-1, 1)))
		}
		return p
	}
	for _, tc := range []struct {
		name     string
		p        *Plan
		min, max uint64
	}{
		{"one request", plan(1, 128, false, 0), 13 << 10, 128 << 10},
		{"plain grows slowly", plan(1000, 128, false, 0), 64 << 10, 256 << 10},
		{"detailed", plan(1000, 128, true, 0), 3400 << 10, 16 << 20},
		{"detailed, lengths unknown", plan(1000, 0, true, 0), 64 << 20, 256 << 20},
		{"an hour's timeline", plan(10, 128, false, 3600), 64<<10 + 1800*64, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.p.resultSize(); got < tc.min || got > tc.max {
				t.Errorf("estimate %s, want between %s and %s", sizeText(got), sizeText(tc.min), sizeText(tc.max))
			}
		})
	}
}

// TestSpaceFor: the decision on a free space read by an injected
// function. Too little is a command-line error that names the flag, the
// directory, both sizes and what to do; a free space that cannot be read
// refuses nothing (the save's own error and its copy remain).
func TestSpaceFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		free uint64
		err  error
		want string // "" for no refusal
	}{
		{name: "room", free: 10 << 20},
		{name: "exactly", free: 1 << 20},
		{name: "unknown", err: errors.New("statfs: not supported")},
		{name: "full", free: 60 << 10,
			want: "argument --result-dir: the result cannot be saved: /mnt/r has 60 KiB free, and the result of 9 requests may take up to 1.0 MiB; free some space there or choose another --result-dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := spaceFor(1<<20, "the result of 9 requests", "/mnt/r", "--result-dir", func() (uint64, error) { return tc.free, tc.err })
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("err = %v\nwant %s", err, tc.want)
			case tc.want != "" && exitcode.Of(err) != exitcode.BadUsage:
				t.Errorf("exit status %d, want %d", exitcode.Of(err), exitcode.BadUsage)
			}
		})
	}
}

// TestSizeText: sizes as people read them.
func TestSizeText(t *testing.T) {
	t.Parallel()
	for n, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 60 << 10: "60 KiB",
		3<<20 + 200<<10: "3.2 MiB", 5 << 40: "5.0 TiB"} {
		if got := sizeText(n); got != want {
			t.Errorf("sizeText(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestFullDiskRefusedBeforeSending: on a file system with too little room
// for the result (a 256 KiB tmpfs), a run with --save-detailed is refused
// before its first request, naming the directory; a small result there is
// saved. Mounting needs root: without it only this test is skipped.
func TestFullDiskRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/completions") {
			posts.Add(1)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n"))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name     string
		prompts  int
		detailed bool
		refused  bool
	}{
		{name: "detailed", prompts: 200, detailed: true, refused: true},
		{name: "small", prompts: 4},
	} {
		posts.Store(0)
		o := baseOptions(srv.URL)
		o.Model, o.Tokenizer, o.NoServerMetrics = "m", tokenizer.BuiltinName, true
		o.NumPrompts, o.Dataset.NumPrompts, o.Dataset.RandomOutputLen = tc.prompts, tc.prompts, 128
		o.SaveResult, o.SaveDetailed, o.ResultDir, o.ResultFilename = true, tc.detailed, dir, tc.name+".json"
		var b buffers
		_, err := Serve(context.Background(), o, b.env())
		if !tc.refused {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			if _, serr := os.Stat(filepath.Join(dir, tc.name+".json")); serr != nil {
				t.Errorf("%s: %v", tc.name, serr)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), dir+" has ") || !strings.Contains(err.Error(), "--result-dir") {
			t.Errorf("%s: err = %v", tc.name, err)
		}
		if n := posts.Load(); n != 0 {
			t.Errorf("%s: %d requests sent before the refusal", tc.name, n)
		}
		if names, _ := os.ReadDir(dir); len(names) != 0 {
			t.Errorf("%s: the directory holds %v", tc.name, names)
		}
	}
}
