package argparse

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

// testFlags is a small flag set of each kind, on its own (cli's tests run
// Normalize on serve's real flags).
func testFlags() (*pflag.FlagSet, map[string]int) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(NewInt("num-prompts", 1000), "num-prompts", "")
	fs.Var(NewInt("num-warmups", 0), "num-warmups", "")
	fs.Var(NewFloat("request-rate", 0), "request-rate", "")
	fs.Var(NewJSON("extra-body"), "extra-body", "")
	fs.Var(&List{}, "header", "")
	fs.Var(&List{}, "goodput", "")
	fs.Bool("save-result", false, "")
	fs.StringP("output", "o", "", "")
	return fs, map[string]int{"header": 2, "goodput": 1}
}

func TestNormalizeOwnFlags(t *testing.T) {
	t.Parallel()
	fs, lists := testFlags()
	tests := []struct {
		in, want []string
	}{
		{[]string{"--num_prompts", "5", "--request-rate", "-1.5"}, []string{"--num-prompts=5", "--request-rate=-1.5"}},
		{[]string{"--num-p", "5", "--save-result", "-o", "x"}, []string{"--num-prompts=5", "--save-result", "--output=x"}},
		{[]string{"--header", "--goodput", "a", "b"}, []string{"--header=" + EmptyList, "--goodput=a", "--goodput=b"}},
		{[]string{"--extra-body.a.b", "1", "--", "--x"}, []string{`--extra-body={"a":{"b":1}}`, "--", "--x"}},
		{[]string{"--unknown", "v"}, []string{"--unknown", "v"}},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.in, fs, lists)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.in, diff)
		}
	}
	for in, want := range map[string]string{
		"--num":                "ambiguous option: --num could match --num-prompts, --num-warmups",
		"--goodput":            "argument --goodput: expected at least one argument",
		"--num-prompts":        "argument --num-prompts: expected one argument",
		"-x":                   "unrecognized arguments: -x",
		"--num-prompts.a 1":    "argument --num-prompts: does not take dotted keys (--num-prompts.a)",
		"--extra-body.a 1e400": "argument --extra-body.a: ",
	} {
		_, err := Normalize(strings.Split(in, " "), fs, lists)
		if err == nil || exitcode.Of(err) != exitcode.BadUsage || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want a usage error %q", in, err, want)
		}
	}
}

func TestExpandShort(t *testing.T) {
	t.Parallel()
	got := ExpandShort([]string{"-o", "d", "-ex", "-o=y", "--other", "-"}, map[string]string{"-o": "--output-dir", "-e": "--experiment-name"})
	want := []string{"--output-dir", "d", "--experiment-name=x", "--output-dir=y", "--other", "-"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseError(t *testing.T) {
	t.Parallel()
	fs, _ := testFlags()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--num-promts=1"}, "unrecognized arguments: --num-promts (did you mean --num-prompts?)"},
		{[]string{"-z"}, "unrecognized arguments: -z"},
		{[]string{"--num-prompts=x"}, "argument --num-prompts: invalid int value: 'x'"},
	} {
		err := ParseError(fs, fs.Parse(tt.args))
		var ue *exitcode.UsageError
		if !errors.As(err, &ue) || err.Error() != tt.want {
			t.Errorf("%q: %v, want usage error %q", tt.args, err, tt.want)
		}
	}
}
