package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/google/go-cmp/cmp"
)

// argsOf is the argument namespace serve parsed args into, without the
// request id prefix, which changes on every run.
func argsOf(t *testing.T, args ...string) string {
	t.Helper()
	o, stderr, code := parse(t, args...)
	if code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, stderr)
	}
	o.Run.Args.Delete("request_id_prefix")
	return compact(t, o.Run.Args)
}

// TestServeConfig: a config file gives the same
// arguments as the command line it stands for, with vLLM's key, boolean,
// list and mapping handling, and the command line wins over it.
func TestServeConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml string
		extra      []string // after --config
		want       []string // the command line it stands for
	}{
		{"scalars, both spellings", "num_prompts: 7\nrequest-rate: 2.5\nseed: 0x10\nlabel: 'x y'\nrandom_range_ratio: .5\n",
			nil, []string{"--num-prompts", "7", "--request-rate", "2.5", "--seed", "16", "--label", "x y", "--random-range-ratio", "0.5"}},
		{"booleans", "save_result: true\nsave-detailed: yes\nignore_eos: false\nserver_metrics: false\n",
			nil, []string{"--save-result", "--save-detailed"}},
		{"lists", "goodput: [ttft:500, tpot:50]\nheader:\n  - a=1\n  - b=2\nmetadata: []\n",
			nil, []string{"--goodput", "ttft:500", "tpot:50", "--header", "a=1", "b=2"}},
		{"mapping", "extra_body:\n  top_k: 5\n  stop: [a, 1]\n  nested: {x: null, y: 1.0}\n",
			nil, []string{"--extra-body", `{"top_k": 5, "stop": ["a", 1], "nested": {"x": null, "y": 1.0}}`}},
		{"prefix and inf", "num_prom: 3\nrequest_rate: .inf\n", nil, []string{"--num-prompts", "3", "--request-rate", "inf"}},
		{"the command line wins", "num_prompts: 7\ngoodput: [ttft:500]\nseed: 3\n",
			[]string{"--num_prompts", "2", "--goodput", "e2el:9"}, []string{"--seed", "3", "--num-prompts", "2", "--goodput", "e2el:9"}},
		{"empty mapping", "{}\n", nil, nil},
		{"twice, the last wins", "goodput: [ttft:1]\nnum_prompts: 3\ngoodput: [tpot:2]\nnum-prompts: 4\n",
			nil, []string{"--goodput", "tpot:2", "--num-prompts", "4"}},
		{"merge keys", "extra_body: &b {seed: 1, num_prompts: 3}\n<<: [*b, {seed: 5, label: x}]\nnum_prompts: 4\n",
			nil, []string{"--extra-body", `{"seed": 1, "num_prompts": 3}`, "--seed", "1", "--label", "x", "--num-prompts", "4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeResult(t, "run.yaml", tt.yaml)
			got := argsOf(t, append([]string{"--config", path}, tt.extra...)...)
			if want := argsOf(t, tt.want...); got != want {
				t.Errorf("args differ (-want +got):\n%s", cmp.Diff(want, got))
			}
		})
	}
}

// TestServeConfigRun: a run from a config file and an
// overriding flag records the effective command line, the file's flags
// then the command line's, with the secrets redacted.
func TestServeConfigRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeResult(t, "run.yml", `# a serve config, as vllm bench serve --config takes it
sim: true
sim_ttft: 0.002
sim-itl: 0.001
num_prompts: 9
request_rate: 100
dataset_name: random
random_input_len: 12
random_output_len: 3
seed: 9
goodput: [ttft:500, e2el:1000]
header: ["Authorization=Bearer sk-secret-123", X-Tenant=acme]
extra_body: {top_k: 5}
save_result: true
disable_tqdm: true
`)
	out, errOut, code := runMain(t, "serve", "--config", path, "--num-prompts", "4", "--result-dir", dir, "--result-filename", "r.json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	saved, err := resultfile.Open(filepath.Join(dir, "r.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := saved.Number("num_prompts"); n != 4 {
		t.Errorf("num_prompts %v, want the command line's 4", n)
	}
	w, _ := saved.Object(resultkey.GobenchWorkload)
	b, err := pyjson.AppendPython(nil, w)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("sk-secret")) {
		t.Errorf("the workload holds the secret: %s", b)
	}
	golden.Check(t, append(bytes.ReplaceAll(b, []byte(dir), []byte("$DIR")), '\n'))
}

// TestServeConfigErrors: every error in a config
// file is a usage error (exit 2) naming the file, the key's line and the
// flag.
func TestServeConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badValue := file("value.yaml", "# run\nnum_prompts: 5\n\nrequest_rate: 1\nseed: 1\nlabel: a\nnum_prompts: x\n")
	unknown := file("unknown.yaml", "num_promts: 5\n")
	list := file("list.yaml", "- num_prompts: 5\n")
	empty := file("empty.yaml", "# nothing\n")
	twoDocs := file("docs.yaml", "seed: 1\n---\nseed: 2\n")
	syntax := file("syntax.yaml", "seed: [1\n")
	syntax2 := file("syntax2.yaml", "seed: 1\n---\n[\n")
	nested := file("nested.yaml", "header: [[a=1]]\n")
	boolOnValue := file("bool.yaml", "num_prompts: true\n")
	self := file("self.yaml", "config: other.yaml\n")
	merge := file("merge.yaml", "seed: 1\n<<: 5\n")
	laughs := "a: &a {save_result: false, seed: 1}\n"
	for i := 'b'; i <= 'k'; i++ {
		laughs += fmt.Sprintf("%c: &%c {<<: [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]}\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	bomb := file("bomb.yaml", "extra_body: &x {a: [*x]}\n")
	mergeBomb := file("mergebomb.yaml", "extra_body: &x {<<: *x}\n<<: *x\n")
	laughsFile := file("laughs.yaml", strings.ReplaceAll(laughs, "k: &k", "extra_body: &k")+"<<: *k\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad value", []string{"--config", badValue},
			"--config " + badValue + ":7: num_prompts: argument --num-prompts: invalid int value: 'x'"},
		{"unknown key", []string{"--config", unknown},
			"--config " + unknown + ":1: num_promts: unknown flag --num-promts (did you mean --num-prompts?)"},
		{"not a mapping", []string{"--config", list}, "--config " + list + ":1: expected flag: value lines, got a list"},
		{"empty", []string{"--config", empty}, "--config " + empty + ": expected flag: value lines, got an empty file"},
		{"two documents", []string{"--config", twoDocs}, "--config " + twoDocs + ":2: a config file holds one YAML document"},
		{"syntax", []string{"--config", syntax}, "--config " + syntax + ": yaml: line 1: did not find expected ',' or ']'"},
		{"syntax in a second document", []string{"--config", syntax2}, "--config " + syntax2 + ": yaml: line "},
		{"nested list", []string{"--config", nested}, "--config " + nested + ":1: header: a list item must be a plain value, got a list (line 1)"},
		{"true on a value flag", []string{"--config", boolOnValue},
			"--config " + boolOnValue + ":1: num_prompts: argument --num-prompts: expected one argument"},
		{"config in config", []string{"--config", self}, "--config " + self + ":1: config: a config file cannot name another"},
		{"merge key", []string{"--config", merge}, "--config " + merge + ":2: <<: expected a mapping to merge, got \"5\""},
		{"self-reference", []string{"--config", bomb}, "--config " + bomb + ":1: extra_body: the value at line 1 holds itself"},
		{"self-merge", []string{"--config", mergeBomb}, "--config " + mergeBomb + ":1: the value at line 1 holds itself"},
		{"billion laughs", []string{"--config", laughsFile}, "--config " + laughsFile + ":6: expands to more than 1 MiB of arguments"},
		{"unreadable", []string{"--config", filepath.Join(dir, "missing.yaml")},
			"argument --config: open " + filepath.Join(dir, "missing.yaml") + ": no such file or directory"},
		{"a folder", []string{"--config", filepath.Join(dir, "d.yaml")}, "argument --config: read " + filepath.Join(dir, "d.yaml")},
		{"not YAML", []string{"--config", "run.json"}, "argument --config: run.json: the config file must be a .yaml or .yml file"},
		{"twice", []string{"--config", unknown, "--config=" + list},
			"argument --config: more than one config file (" + unknown + " and " + list + ")"},
		{"no value", []string{"--config"}, "argument --config: expected one argument"},
	}
	if err := os.Mkdir(filepath.Join(dir, "d.yaml"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		_, stderr, code := runMain(t, append([]string{"serve"}, tt.args...)...)
		if code != int(exitcode.BadUsage) || !strings.HasPrefix(stderr, "gobench serve: error: "+tt.want) {
			t.Errorf("%s: exit %d:\n%s\nwant: %s", tt.name, code, stderr, tt.want)
		}
	}
}
