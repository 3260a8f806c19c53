package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// endless is a reader that never ends: head, then body over and over. It
// counts the bytes it gave.
type endless struct {
	head, body string
	given      int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if e.given < int64(len(e.head)) {
			k := copy(p[n:], e.head[e.given:])
			n, e.given = n+k, e.given+int64(k)
			continue
		}
		k := copy(p[n:], e.body[(e.given-int64(len(e.head)))%int64(len(e.body)):])
		n, e.given = n+k, e.given+int64(k)
	}
	return n, nil
}

// TestEndlessInputIsBounded: the dataset readers stop an input that never
// ends (a device, a pipe) with an error naming the input and the line,
// having read and allocated no more than about their bound, whatever the
// input looks like: zeros, one value that never closes, whitespace.
// Not parallel: it measures the process's allocations.
func TestEndlessInputIsBounded(t *testing.T) {
	const limit = 1 << 20
	tests := []struct {
		name  string
		read  func(io.Reader) error
		head  string
		body  string
		want  string
		reads int64 // at most, from the input
	}{
		{"sharegpt zeros", shareGPTWith(limit), "", "\x00",
			`in:1:1: not a ShareGPT JSON file (a JSON list of conversations): it starts with '\x00', not '['`, 64 << 10},
		{"sharegpt string without end", shareGPTWith(limit), "[\n" + `{"conversations": [{"value": "`, "more and more ",
			"in:2: conversation 0 is larger than 1 MiB, which no conversation is", limit + 128<<10},
		{"sharegpt nesting without end", shareGPTWith(limit), "[{}, ", `{"a": [`,
			"in:1: conversation 1 is larger than 1 MiB, which no conversation is", limit + 128<<10},
		{"sharegpt whitespace", shareGPTWith(limit), "[", " \n",
			"more than 1 MiB of whitespace", limit + 128<<10},
		{"custom zeros", customWith(limit), "", "\x00",
			`in:1: not a JSON object: it starts with '\x00'`, 64 << 10},
		{"custom line without end", customWith(limit), "{\"prompt\": \"a\"}\n{\"prompt\": \"", "more and more ",
			"in:2: the line is longer than 1 MiB, which no prompt is", limit + 128<<10},
		{"custom blank line without end", customWith(limit), "", " ",
			"in:1: the line is longer than 1 MiB", limit + 128<<10},
	}
	for _, tt := range tests {
		in := &endless{head: tt.head, body: tt.body}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := tt.read(in)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
		if in.given > tt.reads {
			t.Errorf("%s: read %d bytes, want at most %d", tt.name, in.given, tt.reads)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 4*limit {
			t.Errorf("%s: allocated %d bytes, want at most %d", tt.name, got, 4*limit)
		}
	}
}

func shareGPTWith(limit int) func(io.Reader) error {
	return func(r io.Reader) error { _, err := decodeShareGPT(r, "in", limit, 2); return err }
}

func customWith(limit int) func(io.Reader) error {
	return func(r io.Reader) error { _, err := parseCustom(r, "in", limit); return err }
}

// TestDevZero: `--dataset-path /dev/zero` fails at once for both file
// datasets, naming the flag, the file and the line.
func TestDevZero(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	if _, err := readShareGPT("/dev/zero", 2); err == nil || !strings.HasPrefix(err.Error(), "--dataset-path /dev/zero:1:1: not a ShareGPT JSON file") {
		t.Errorf("sharegpt: %v", err)
	}
	if _, err := readCustom("/dev/zero"); err == nil || !strings.HasPrefix(err.Error(), `--dataset-path /dev/zero:1: not a JSON object: it starts with '\x00'`) {
		t.Errorf("custom: %v", err)
	}
}

// TestShareGPTErrorsLocated: the streaming reader names the line and column
// of what is wrong, and keeps what vLLM keeps.
func TestShareGPTErrorsLocated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // the error, or the kept entries' indices and prompts
	}{
		{"[\n {\"conversations\": [}\n]", "in:2:21: invalid character '}' looking for beginning of value"},
		{"  \n\n  {}", "in:3:3: not a ShareGPT JSON file (a JSON list of conversations): it starts with '{', not '['"},
		{"", "in: not a ShareGPT JSON file (a JSON list of conversations): the file is empty"},
		{"[1 2]", "in:1:4: invalid character '2' after a list element"},
		{"[1,\n ]", "in:2:2: invalid character ']' after a comma"},
		{"[1, 2", "in:1:6: the file ends inside the list (unexpected EOF)"},
		{`[{"conversations": [{"value": "a`, "in:1:33: the file ends inside the list (unexpected EOF)"},
		{"[3x]", "in:1:3: invalid character 'x' after top-level value"},
		{"[{\"conversations\": \"ab\"}]", "in: entry 0: json: cannot unmarshal string into Go struct field .conversations of type []struct { Value json.RawMessage \"json:\\\"value\\\"\" }"},
		{`["a\"]", 3, null, {"conversations": [{"value": "p"}]}, {"conversations": [{"value": "p"}, {"value": "c"}, {"value": "x"}], "image": ""}]`,
			`kept 4 "p" "c"`},
		{`[{"conversations": [{"value": "p"}, {"value": "c"}], "video": "v.mp4"}]`, `kept 0 "p" "c" media`},
		{"[]", ""},
	}
	for _, tt := range tests {
		entries, err := decodeShareGPT(strings.NewReader(tt.in), "in", 1<<10, 2)
		got := ""
		if err != nil {
			got = err.Error()
		}
		for _, e := range entries {
			got += "kept " + strings.Join([]string{strconv.Itoa(e.index), string(e.turns[0]), string(e.turns[1])}, " ")
			if e.media {
				got += " media"
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.in, diff)
		}
	}
	if _, err := decodeShareGPT(strings.NewReader("[1, 2"), "in", 10, 2); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated: %v", err)
	}
}

// TestShareGPTErrorOrder: the conversations are found on one goroutine and
// decoded on others, a batch at a time, and still the first error in the
// file is the one reported: a conversation that does not decode, past the
// first batch, comes before the truncated end after it, and the entries
// before it do not matter; without it, the end's error is reported.
func TestShareGPTErrorOrder(t *testing.T) {
	t.Parallel()
	good := `{"conversations": [{"value": "p"}, {"value": "c"}]}, `
	for _, workers := range []int{1, 2, 5} {
		bad := "[" + strings.Repeat(good, elementBatchLen+43) + `{"conversations": "ab"}, ` + strings.Repeat(good, 3) + `{"conversations": [`
		_, err := decodeShareGPT(strings.NewReader(bad), "in", 1<<10, workers)
		if want := fmt.Sprintf("in: entry %d: json: cannot unmarshal string", elementBatchLen+43); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("workers %d: %v, want %q...", workers, err, want)
		}
		truncated := "[" + strings.Repeat(good, 2*elementBatchLen+1) + `{"conversations": [`
		_, err = decodeShareGPT(strings.NewReader(truncated), "in", 1<<10, workers)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("workers %d: %v, want the truncated end", workers, err)
		}
		entries, err := decodeShareGPT(strings.NewReader("["+strings.Repeat(good, 2*elementBatchLen+1)+"1]"), "in", 1<<10, workers)
		if err != nil || len(entries) != 2*elementBatchLen+1 || entries[2*elementBatchLen].index != 2*elementBatchLen {
			t.Errorf("workers %d: %d entries, %v", workers, len(entries), err)
		}
	}
}

// TestTurnDecodesAsUnmarshal: a turn's value is what json.Unmarshal
// makes of it, whether jsonscan decodes it (strings) or json.Unmarshal
// does (null; values that are not strings fail).
func TestTurnDecodesAsUnmarshal(t *testing.T) {
	for _, raw := range []string{
		`"hello, world"`, `""`, `"日本語 é"`,
		`"a\nb\t\"q\" \\ \/ \b\f\r"`,
		`"\u00e9\u4E2D\u0000"`,
		`"\ud83d\ude00"`, // a surrogate pair
		`"\ud83d x"`,     // a lone surrogate: U+FFFD
		"\"a\xffb\"",     // invalid UTF-8: U+FFFD
		`null`,
		`"\x41"`, `"\u12"`, "\"a\tb\"", `123`, `"a" x`, // not strings
	} {
		checkTurn(t, []byte(raw))
	}
}

// FuzzTurn: turn decodes any value as json.Unmarshal does.
func FuzzTurn(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\n"`, "\"\xe2\x82\"", `"\u00e9\ud800"`, `""`, `"\u0041\\"`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkTurn(t, raw) })
}

// checkTurn fails t unless turn reads raw as json.Unmarshal does.
func checkTurn(t *testing.T, raw []byte) {
	t.Helper()
	got, err := turn(shareGPTEntry{turns: [2]json.RawMessage{raw}}, 0, "f")
	var want string
	werr := json.Unmarshal(raw, &want)
	if (err != nil) != (werr != nil) || got != want {
		t.Fatalf("turn(%q) = %q, %v; json.Unmarshal gives %q, %v", raw, got, err, want, werr)
	}
}
