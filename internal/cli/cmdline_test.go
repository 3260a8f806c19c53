package cli

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/spf13/pflag"
)

// The command-line property: whatever values the flags
// of serve, sim, compare, check and analyze are given, gobench never
// panics, exits 0 or 2 (1 only for a file it cannot read, which it names),
// and every exit-2 message names a flag or a file. The grammar is every
// registered flag of a command (so a new flag is covered without touching
// this file) with a value from hostileValues, or, under `go test -fuzz`,
// from the fuzzer. Nothing is sent and nothing listens: serve lines end in
// --dry-run (which sends nothing, --sim included), their transport refuses
// every request, the Hub is offline, and `gobench sim` lines are parsed
// and configured without starting the server.

// hostileValues are the values the flags are tried with.
var hostileValues = []string{
	"", " ", "\t", "-1", "-3", "0", "1", "2", "0.5", "-0.5", "1.5", "101%", "nan", "NaN", "-nan", "inf", "-inf", "+inf",
	"1e-300", "-1e-300", "1e300", "1e-9", "99999999999999999999", "9223372036854775807", "-9223372036854775808",
	"2147483648", "4294967296", "65536", "99999", "1_000", "0x10", "\x00", "a\nb", "a\rb", "a\x7fb", "\xff\xfe", "é",
	"ttft:nan", "ttft:inf", "ttft:-1", "ttft:1", "foo:1", "ttft", ":", "=v", "k=", "k=v", "Host=x", "content-length=5",
	"a b=c", "a=b\x01", "x-api-key=a\nb", "{", "{}", "[1]", `{"a": NaN}`, `{"input": 0.5, "output": 2}`, "ttft,foo",
	"ttft,tpot,itl,e2el", ",", "/", "v1/completions", "/v1/chat/completions", "http://", "http://x:99999", "ftp://x",
	"re:(", "(", "p99_ttft_ms<500", "p99_ttft_ms<nan", "mean_ttft_ms<=baseline*1.05", "fixed", "scheduler", "random",
	"custom", "sharegpt", "openai-chat", "-", "--", "-x", strings.Repeat("x", 1<<16),
}

// cmdlineEnv is what the generated command lines may name: the fixture
// files, with selectors, and a path that does not exist.
type cmdlineEnv struct {
	files   []string // result files and selectors, for compare, check, analyze
	dataset []string // dataset files, for serve --dataset-path
}

func newCmdlineEnv(t testing.TB) cmdlineEnv {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	fast, runs := abs(fixture("gobench_fast.json")), abs(fixture("vllm_runs.jsonl"))
	missing := filepath.Join(t.TempDir(), "missing.json")
	return cmdlineEnv{
		files: []string{fast, abs(fixture("vllm_detailed.json")), runs, runs + "#0", runs + "#-1", runs + "#base",
			runs + "#99", runs + "#", missing},
		dataset: []string{abs("../dataset/testdata/custom60.jsonl"), abs("../dataset/testdata/sharegpt40.json"), fast, missing},
	}
}

// cmdlineFlag is one flag of a command in the grammar.
type cmdlineFlag struct {
	name, kind string // kind: "bool", "list" or "value"
}

// commandFlags lists the flags of every command, as registered.
func commandFlags() map[string][]cmdlineFlag {
	deps := Deps{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	out := map[string][]cmdlineFlag{}
	for _, c := range newRootCmd(&deps, nil).Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "dry-run" || f.Name == "help" {
				return // serve's lines end in --dry-run: nothing may be sent
			}
			kind := "value"
			switch {
			case f.Value.Type() == "bool":
				kind = "bool"
			case isList(f):
				kind = "list"
			}
			out[c.Name()] = append(out[c.Name()], cmdlineFlag{f.Name, kind})
		})
	}
	return out
}

// isList reports whether f is an nargs list flag.
func isList(f *pflag.Flag) bool {
	_, ok := f.Value.(*argparse.List)
	return ok
}

// cmdlineGen builds command lines from choices: each call of pick returns
// a number in [0, n).
type cmdlineGen struct {
	env   cmdlineEnv
	flags map[string][]cmdlineFlag
	pick  func(n int) int
	// value, when set, is a value the fuzzer chose; it is used in place of
	// a listed one now and then.
	value *string
}

// commands are the command lines the property covers.
var cmdlineCommands = []string{"serve", "sim", "compare", "check", "analyze"}

// line returns one command line, its command first.
func (g *cmdlineGen) line() []string {
	cmd := cmdlineCommands[g.pick(len(cmdlineCommands))]
	args := []string{cmd}
	switch cmd {
	case "serve":
		args = append(args, "--tokenizer", "gobench-builtin", "--model", "m", "--num-prompts", "3",
			"--random-input-len", "8", "--random-output-len", "4")
	case "compare":
		args = append(args, g.file(), g.file())
	case "check", "analyze":
		args = append(args, g.file())
		if cmd == "check" && g.pick(2) == 0 {
			args = append(args, "--threshold", "p99_ttft_ms<500")
		}
	}
	for range 1 + g.pick(3) {
		args = append(args, g.flag(cmd)...)
	}
	if cmd == "serve" {
		args = append(args, "--dry-run") // last, so that nothing overrides it
	}
	return args
}

// file picks a result file for a positional argument ("--" would make the
// flags after it positional arguments too).
func (g *cmdlineGen) file() string {
	if v := g.val(); g.pick(8) == 0 && v != "--" {
		return v
	}
	return g.env.files[g.pick(len(g.env.files))]
}

// val picks a value: a hostile one, the fuzzer's, or a file.
func (g *cmdlineGen) val() string {
	switch n := g.pick(20); {
	case n == 0 && g.value != nil:
		return *g.value
	case n == 1:
		return g.env.files[g.pick(len(g.env.files))]
	case n == 2:
		return g.env.dataset[g.pick(len(g.env.dataset))]
	}
	return hostileValues[g.pick(len(hostileValues))]
}

// flag picks one flag of cmd and its value(s), as arguments.
func (g *cmdlineGen) flag(cmd string) []string {
	fs := g.flags[cmd]
	f := fs[g.pick(len(fs))]
	name := "--" + f.name
	if g.pick(6) == 0 { // vLLM's spelling: --num_prompts
		name = strings.ReplaceAll(name[2:], "-", "_")
		name = "--" + name
	}
	v := g.val()
	switch {
	case f.kind == "bool" && g.pick(2) == 0:
		return []string{name}
	case f.kind == "bool", g.value != nil && v == *g.value, strings.HasPrefix(v, "-") && g.pick(2) == 0:
		return []string{name + "=" + v} // the fuzzer's value never becomes a flag
	case f.kind == "list" && g.pick(2) == 0:
		return []string{name, v, hostileValues[g.pick(len(hostileValues))]}
	}
	return []string{name, v}
}

// deniedTransport fails every request: serve's lines must send nothing.
type deniedTransport struct{}

func (deniedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("test: %s %s: the command-line property sends nothing", r.Method, r.URL)
}

// cmdlineDeps are the surroundings of every generated command line:
// nothing reaches the network.
func cmdlineDeps(t testing.TB, stdout, stderr *bytes.Buffer) Deps {
	hf := t.TempDir()
	return Deps{
		Stdout: stdout, Stderr: stderr, Version: "test",
		Getenv: func(k string) string {
			switch k {
			case "HF_HUB_OFFLINE":
				return "1"
			case "HF_HOME":
				return hf
			}
			return ""
		},
		Transport: func(int, bool) http.RoundTripper { return deniedTransport{} },
	}
}

// flagNamed matches a flag in a message; helpPointer the line after a
// usage error.
var (
	flagNamed   = regexp.MustCompile(`--[a-z][a-z0-9_.-]*`)
	helpPointer = regexp.MustCompile(`Run 'gobench [a-z]+ --help' for usage\.`)
)

// runCommandLine runs one generated command line and checks the property;
// it returns a description of the violation, or "".
func runCommandLine(t testing.TB, env cmdlineEnv, args []string) string {
	var stdout, stderr bytes.Buffer
	deps := cmdlineDeps(t, &stdout, &stderr)
	code, panicked := -1, ""
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				panicked = fmt.Sprintf("%v\n%s", r, debug.Stack())
			}
		}()
		if args[0] == "sim" { // parse and configure, never listen
			code = simLine(&deps, args[1:])
			return
		}
		code = Main(context.Background(), args, deps)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		return "no exit within a minute"
	}
	msg := stderr.String()
	switch {
	case panicked != "":
		return "panic: " + panicked
	case code == 0 || code == 4:
		return "" // 4: a threshold failed on a fixture, as asked
	case code == 2:
		// The pointer to --help that follows a usage error names no flag.
		named := helpPointer.ReplaceAllString(msg, "")
		if flagNamed.MatchString(named) || namesFile(named, args) || namesArgument(named, args) {
			return ""
		}
		return "exit 2 naming no flag or file: " + msg
	case code == 1:
		// A tokenizer that cannot be found is a file that cannot be read.
		if namesFile(msg, args) || strings.Contains(msg, "no tokenizer found") && strings.Contains(msg, "--tokenizer") {
			return ""
		}
		return "exit 1 not about a file: " + msg
	}
	return fmt.Sprintf("exit %d: %s", code, msg)
}

// simLine runs `gobench sim args...` as Main does, up to the
// configuration: the server is not started.
func simLine(deps *Deps, args []string) int {
	root := newRootCmd(deps, nil)
	for _, c := range root.Commands() {
		if c.Name() == "sim" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(newSimCmd(deps, func(context.Context, *SimOptions) error { return nil }))
	norm, err := normalizeFor(root, append([]string{"sim"}, args...))
	if err == nil {
		root.SetArgs(norm)
		err = root.ExecuteContext(context.Background())
	}
	return exitCode(err, deps.Stderr, "gobench sim")
}

// fileFlags are the flags whose value is a path.
var fileFlags = []string{"baseline", "threshold-baseline", "dataset-path", "config", "sim-config", "tokenizer", "record",
	"sim-record", "summary-file", "result-dir", "result-filename"}

// namesArgument reports whether msg is argparse's refusal of an argument
// among args: "unrecognized arguments: ARG".
func namesArgument(msg string, args []string) bool {
	_, rest, ok := strings.Cut(msg, "unrecognized arguments: ")
	return ok && slices.ContainsFunc(args, func(a string) bool { return a != "" && strings.HasPrefix(rest, a) })
}

// namesFile reports whether msg names one of the files among args (a
// positional argument of compare, check and analyze, or the value of a
// path flag): quoted (Go's or Python's way), before a colon (Go's "open
// PATH: ...", gobench's "PATH: ..." and "PATH:LINE: ...") or, for a path
// with a slash, anywhere.
func namesFile(msg string, args []string) bool {
	var paths []string
	for i, a := range args[1:] {
		name, v, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case !strings.HasPrefix(a, "--") && args[0] != "serve" && args[0] != "sim":
			paths = append(paths, a)
		case ok && slices.Contains(fileFlags, strings.ReplaceAll(name, "_", "-")):
			paths = append(paths, v)
		case !ok && slices.Contains(fileFlags, strings.ReplaceAll(name, "_", "-")) && i+2 < len(args):
			paths = append(paths, args[i+2])
		}
	}
	for _, p := range paths {
		path, _ := resultfile.SplitSpec(p)
		if strings.Contains(msg, pyfmt.StrRepr(p)) {
			return true
		}
		for _, name := range []string{p, path} {
			if name != "" && (strings.Contains(msg, strconv.Quote(name)) || strings.Contains(msg, name+":") || strings.Contains(msg, pyfmt.StrRepr(name)) ||
				strings.Contains(name, "/") && strings.Contains(msg, name)) {
				return true
			}
		}
	}
	return false
}

// TestCommandLineProperty runs a few thousand seeded command lines through
// the grammar. -short runs a few hundred.
func TestCommandLineProperty(t *testing.T) {
	env := newCmdlineEnv(t)
	t.Chdir(t.TempDir()) // anything written to a relative path lands here
	n := 3000
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(9, 14))
	g := &cmdlineGen{env: env, flags: commandFlags(), pick: rng.IntN}
	var failures []string
	for range n {
		args := g.line()
		if bad := runCommandLine(t, env, args); bad != "" {
			failures = append(failures, fmt.Sprintf("gobench %s\n  %s", quoteArgs(args), firstLines(bad, 12)))
		}
	}
	slices.Sort(failures)
	failures = slices.Compact(failures)
	for i, f := range failures {
		if i == 40 {
			t.Errorf("... and %d more", len(failures)-40)
			break
		}
		t.Error(f)
	}
}

// FuzzCommandLine is the property under the fuzzer: the input chooses the
// command, the flags and the values, and is itself one of the values.
func FuzzCommandLine(f *testing.F) {
	for _, seed := range []struct {
		choices []byte
		value   string
	}{
		{[]byte{0, 5, 1}, "-1"}, {[]byte{1, 9, 2}, "inf"}, {[]byte{2, 3, 0}, "nan"}, {[]byte{3, 1}, "=v"},
		{[]byte{4, 2, 7}, "ttft:nan"}, {[]byte{0, 40, 3}, "a\nb"}, {[]byte{0, 17, 0, 0}, "1e-300"},
	} {
		f.Add(seed.choices, seed.value)
	}
	env := newCmdlineEnv(f)
	flags := commandFlags()
	f.Fuzz(func(t *testing.T, choices []byte, value string) {
		if n, err := pyfmt.ParseInt(value); err == nil && n > 1000 && n <= dataset.MaxSamples {
			// A valid count or length this large is a long run, not a
			// wrong one: --num-prompts 100000000 builds 1e8 prompts.
			t.Skip()
		}
		i := 0
		pick := func(n int) int {
			if i >= len(choices) {
				return 0
			}
			i++
			return int(choices[i-1]) % n
		}
		g := &cmdlineGen{env: env, flags: flags, pick: pick, value: &value}
		args := g.line()
		if bad := runCommandLine(t, env, args); bad != "" {
			t.Fatalf("gobench %s\n  %s", quoteArgs(args), bad)
		}
	})
}

// quoteArgs prints a command line for a shell.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if len(a) > 80 {
			a = a[:20] + fmt.Sprintf("...(%d bytes)", len(a))
		}
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n\r'\"\\$`*?#&;|<>(){}[]!\x00\x7f") {
			q[i] = strconv.Quote(a)
		}
	}
	return strings.Join(q, " ")
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n  ")
}
