package sweep

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/google/go-cmp/cmp"
)

// TestApplyMatchesVLLM: a combination becomes flags, and names its folder,
// as vLLM's ParameterSweepItem.apply_to_cmd and .name do. The expected
// lines of testdata/apply_to_cmd.jsonl are what
// vllm/benchmarks/sweep/param_sweep.py@11dfa3169 gives for the same
// parameters and base command line: flags replaced in place in any
// spelling, appended otherwise, booleans as --key/--no-key (--a.b=true
// for inner keys), objects as JSON, other values as Python's str.
func TestApplyMatchesVLLM(t *testing.T) {
	t.Parallel()
	base := []string{"gobench", "serve", "--num-prompts", "10", "--max_concurrency", "4", "--ignore-eos"}
	f, err := os.Open(filepath.Join("testdata", "apply_to_cmd.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line, err := pyjson.DecodeObject(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		params, _ := line.Get("params")
		comb := NewComb(params.(*pyjson.Object))
		var want []string
		cmd, _ := line.Get("cmd")
		for _, w := range cmd.([]any) {
			want = append(want, w.(string))
		}
		if diff := cmp.Diff(want, comb.Apply(base)); diff != "" {
			t.Errorf("line %d: command (-vLLM +gobench):\n%s", n, diff)
		}
		if name, _ := line.Get("name"); comb.Name() != name {
			t.Errorf("line %d: name %q, vLLM's %q", n, comb.Name(), name)
		}
	}
	if n < 6 {
		t.Fatalf("%d cases read", n)
	}
}

// TestReadParams: both file forms, and the mistakes vLLM refuses.
func TestReadParams(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, text string
		names      []string
		err        string
	}{
		{"list", `[{"max_num_seqs": 8}, {"max_num_seqs": 32, "max_model_len": 4096}]`,
			[]string{"max_num_seqs=8", "max_num_seqs=32-max_model_len=4096"}, ""},
		{"dict", `{"small": {"max_num_seqs": 8}, "big": {"max_num_seqs": 32}}`, []string{"small", "big"}, ""},
		{"empty object", `[{}]`, []string{""}, ""},
		{"duplicate names", `[{"_benchmark_name": "a"}, {"_benchmark_name": "a"}]`, nil, "duplicate _benchmark_name"},
		{"not a list", `3`, nil, "should be a list"},
		{"item not an object", `[1]`, nil, "item 0"},
		{"bad JSON", `[{]`, nil, "decode JSON"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".json")
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := ReadParams(path)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: error %v, want %q naming the file", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var names []string
		for _, c := range p {
			names = append(names, c.Name())
		}
		if diff := cmp.Diff(tt.names, names); diff != "" {
			t.Errorf("%s: names (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestSplitLikeShlex: commands split as Python's shlex.split (the expected
// words are Python 3's).
func TestSplitLikeShlex(t *testing.T) {
	t.Parallel()
	got, err := Split(`gobench serve --metadata 'a=b c' "x \"y\" \\z \n" a\ b c\"d`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"gobench", "serve", "--metadata", "a=b c", `x "y" \z \n`, "a b", `c"d`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-shlex +gobench):\n%s", diff)
	}
	for _, bad := range []string{`a 'b`, `a "b`, `a \`} {
		if _, err := Split(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestCombDir: vLLM's folder names (_get_comb_base_path).
func TestCombDir(t *testing.T) {
	t.Parallel()
	obj := func(s string) Comb {
		o, err := pyjson.DecodeObject([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return NewComb(o)
	}
	tests := []struct {
		serve, bench string
		extra        []string
		want         string
	}{
		{`{}`, `{}`, nil, "exp"},
		{`{"max_num_seqs": 8}`, `{}`, nil, "exp/SERVE--max_num_seqs=8"},
		{`{"max_num_seqs": 8}`, `{"request_rate": 2.5}`, nil, "exp/SERVE--max_num_seqs=8-BENCH--request_rate=2.5"},
		{`{}`, `{"_benchmark_name": "a/b..c"}`, nil, "exp/BENCH--a_b__c"},
		{`{}`, `{"max_concurrency": 1}`, []string{"WL-", "request_rate=1"}, "exp/BENCH--max_concurrency=1-WL--request_rate=1"},
	}
	for _, tt := range tests {
		if got := combDir("exp", obj(tt.serve), obj(tt.bench), tt.extra...); got != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.serve, tt.bench, got, tt.want)
		}
	}
}
