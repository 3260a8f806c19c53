package sim

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStartClose starts the simulator on a free loopback port with a
// record file, sends it a request, and closes it: the server answered, it
// stopped, and the record holds the header and the request.
func TestStartClose(t *testing.T) {
	t.Parallel()
	rec := filepath.Join(t.TempDir(), "truth.jsonl")
	r, err := Start(context.Background(), Config{TTFT: time.Millisecond, ITL: time.Millisecond, RecordPath: rec})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.URL(), "http://127.0.0.1:") || r.URL() != "http://"+r.Addr().String() {
		t.Errorf("URL %s, address %s", r.URL(), r.Addr())
	}
	resp := post(context.Background(), t, newClient(), r.URL()+"/v1/completions",
		`{"prompt": "hello", "max_tokens": 3, "ignore_eos": true, "stream": true}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-r.Done():
	default:
		t.Error("Done is open after Close")
	}
	if err := r.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if _, err := net.Dial("tcp", r.Addr().String()); err == nil {
		t.Error("the simulator still accepts connections")
	}
	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 2 || !strings.Contains(lines[0], `"record":"gobench-sim"`) || !strings.Contains(lines[1], `"completion_tokens":3`) {
		t.Errorf("record:\n%s", strings.Join(lines, "\n"))
	}
}

// failingWriter refuses every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestStartErrors(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	missing := filepath.Join(t.TempDir(), "no-such-dir", "truth.jsonl")
	for _, tt := range []struct {
		name    string
		cfg     Config
		wantErr string
		record  bool // a *RecordError
	}{
		{"record file", Config{RecordPath: missing}, "sim: record " + missing + ": cannot write in directory ", true},
		{"port in use", Config{Addr: busy.Addr().String()}, "sim: listen on " + busy.Addr().String(), false},
		{"invalid configuration", Config{ITL: -1}, "sim: Config.ITL must not be negative", false},
	} {
		r, err := Start(context.Background(), tt.cfg)
		if err == nil {
			_ = r.Close()
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.wantErr) || errors.As(err, new(*RecordError)) != tt.record {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}

// TestCloseReportsRecord: a record that could not be written makes Close
// report a *RecordError.
func TestCloseReportsRecord(t *testing.T) {
	t.Parallel()
	r, err := Start(context.Background(), Config{Record: failingWriter{}})
	if err != nil {
		t.Fatal(err)
	}
	var re *RecordError
	if err := r.Close(); !errors.As(err, &re) || !strings.Contains(re.Err.Error(), "disk full") {
		t.Errorf("Close: %v", err)
	}
}

// TestRecordAppearsWhole: while the simulator runs, its
// record grows under a temporary name next to the record's; Close renames
// it, so the record's name never holds a half record (a simulator killed
// with SIGKILL leaves only the temporary file).
func TestRecordAppearsWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := filepath.Join(dir, "truth.jsonl")
	r, err := Start(context.Background(), Config{TTFT: time.Millisecond, ITL: time.Millisecond, RecordPath: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	resp := post(context.Background(), t, newClient(), r.URL()+"/v1/completions",
		`{"prompt": "hello", "max_tokens": 3, "ignore_eos": true, "stream": true}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if _, err := os.Stat(rec); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the record exists under its name while the simulator runs (%v)", err)
	}
	temps, _ := filepath.Glob(filepath.Join(dir, ".truth.jsonl.*.tmp"))
	if len(temps) != 1 {
		t.Fatalf("temporary files %v, want one", temps)
	}
	if b, err := os.ReadFile(temps[0]); err != nil || !strings.HasPrefix(string(b), `{"record":"gobench-sim"`) {
		t.Errorf("the temporary file holds %q (%v)", b, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(rec); err != nil || strings.Count(string(b), "\n") != 2 {
		t.Errorf("record after Close: %q (%v)", b, err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("the directory holds %v, want only the record", names)
	}
}

// TestRecordRemovedWhenIncomplete: a record whose writing failed is not
// left under its name, nor under a temporary one; close says why.
func TestRecordRemovedWhenIncomplete(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := filepath.Join(dir, "truth.jsonl")
	f, err := newRecordFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	full := errors.New("disk full")
	if err := f.close(rec, full); !errors.Is(err, full) {
		t.Errorf("close: %v, want the write error", err)
	}
	if _, err := f.Write([]byte("{}\n")); err == nil {
		t.Error("a write after close succeeded")
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("the directory holds %v, want nothing", names)
	}
}
