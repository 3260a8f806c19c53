package argparse

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseConfigFileScalars: scalars resolve as PyYAML's safe_load does
// and come out as Python's str() writes them.
func TestParseConfigFileScalars(t *testing.T) {
	t.Parallel()
	text := "a: 010\nb: 0b11\nc: 1_000\nd: 1e5\ne: 1.5e+3\nf: -.INF\ng: .NaN\nh: ~\ni: 'yes'\nj: '010'\nk: 1.\nl: !!str 5\n" +
		"m: [on, off, null, 2.50]\nn: {1: x, true: y, 1.5: z, ~: w}\no: 0o7\np: +12\n"
	entries, err := parseConfigFile([]byte(text), func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, strings.Join(e.args, " "))
	}
	want := []string{"--a 8", "--b 3", "--c 1000", "--d 1e5", "--e 1500.0", "--f -inf", "--g nan", "--h None", "--i yes", "--j 010",
		"--k 1.0", "--l 5", "--m True False None 2.5", `--n {"1": "x", "true": "y", "1.5": "z", "null": "w"}`, "--o 0o7", "--p 12"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzParseConfigFile: any bytes give entries whose arguments start with
// a flag, or an error; never a panic.
func FuzzParseConfigFile(f *testing.F) {
	for _, s := range []string{"num_prompts: 5\n", "goodput: [a, b]\nextra_body: {a: {b: [1, 2.5, null]}}\n",
		"a: &x [1, 2]\nb: *x\n", "- 1\n", "", "save_result: false\n", "? [a]\n: b\n", "a: !!binary aGk=\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := parseConfigFile(b, func(name string) bool { return name == "no-stream" })
		if err != nil {
			return
		}
		for _, e := range entries {
			if len(e.args) > 0 && !strings.HasPrefix(e.args[0], "--") {
				t.Errorf("entry %q: %q", e.key, e.args)
			}
		}
	})
}
