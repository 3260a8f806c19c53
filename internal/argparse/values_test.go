package argparse

import (
	"testing"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/google/go-cmp/cmp"
)

// TestValuesPython: each value reports whether it was given and vLLM's
// vars(args) value, None (nil) for a zero default not given.
func TestValuesPython(t *testing.T) {
	t.Parallel()
	n, dst := NewInt("n", 0), 7
	bound := BindInt("b", &dst)
	var opt *int
	optional := BindOptionalInt("o", &opt)
	secs := time.Duration(0)
	whole := BindWholeSeconds("w", &secs)
	list, js := &List{}, NewJSON("j")
	if n.Python() != nil || n.Ptr() != nil || n.Given() || bound.Python() != 7 || list.Python() != nil || js.Python() != nil {
		t.Errorf("defaults: %v %v %v %v %v", n.Python(), n.Ptr(), bound.Python(), list.Python(), js.Python())
	}
	for _, set := range []struct {
		v interface{ Set(string) error }
		s string
	}{{n, "0"}, {bound, "3"}, {optional, "-2"}, {whole, "90"}, {list, EmptyList}, {js, `{"a": 1}`}, {js, `{"b": [2]}`}} {
		if err := set.v.Set(set.s); err != nil {
			t.Fatalf("Set(%q): %v", set.s, err)
		}
	}
	if got := n.Python(); got != 0 || !n.Given() || *n.Ptr() != 0 {
		t.Errorf("--n 0: %v", got)
	}
	if dst != 3 || opt == nil || *opt != -2 || secs != 90*time.Second || whole.Python() != 90 {
		t.Errorf("bound: %d %v %v %v", dst, opt, secs, whole.Python())
	}
	if got := list.Python(); !list.Given() || len(list.Value()) != 0 || !cmp.Equal(got, []string{}) {
		t.Errorf("empty list: %#v", got)
	}
	if js.String() != `{"a":1,"b":[2]}` || !js.Given() {
		t.Errorf("json: %s", js.String())
	}
}

func TestValueErrors(t *testing.T) {
	t.Parallel()
	var d time.Duration
	for _, tt := range []struct {
		v    interface{ Set(string) error }
		s    string
		want string
	}{
		{NewInt("n", 0), "1.5", "argument --n: invalid int value: '1.5'"},
		{NewFloat("f", 0), "x", "argument --f: invalid float value: 'x'"},
		{NewChoice("c", "a", "a", "b"), "z", "argument --c: invalid choice: 'z' (choose from 'a', 'b')"},
		{BindSeconds("s", &d), "inf", "argument --s: not a finite number of seconds within 292 years (got inf)"},
		{BindDuration("d", &d), "-1s", "argument --d: must be positive (got '-1s')"},
		{NewJSON("j"), "[1]", "argument --j: invalid loads value: '[1]' (a JSON object is required)"},
	} {
		err := tt.v.Set(tt.s)
		if err == nil || exitcode.Of(err) != exitcode.BadUsage || err.Error() != tt.want {
			t.Errorf("Set(%q): %v, want %q", tt.s, err, tt.want)
		}
	}
}
