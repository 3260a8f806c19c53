package cli

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/golden"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestHelpGolden: every command's help, through Main, as
// testdata/TestHelpGolden_*.golden holds it (go test -update rewrites
// them). It goes to stdout, and exits 0.
func TestHelpGolden(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--help"}, {"serve", "--help"}, {"serve", "--help-all"}, {"sim", "--help"},
		{"compare", "--help"}, {"check", "--help"}, {"analyze", "--help"}, {"report", "--help"}, {"completion", "--help"},
		{"sweep", "serve_sla", "--help"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runMain(t, args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden.Check(t, []byte(out))
		})
	}
}

// TestHelpSpellings: -h, `gobench help CMD` and --help print the same help;
// --help-all works on every command, and lists what --help leaves out.
func TestHelpSpellings(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"serve", "sim", "compare", "check", "analyze"} {
		help, _, _ := runMain(t, cmd, "--help")
		for _, args := range [][]string{{cmd, "-h"}, {"help", cmd}, {cmd, "--num-prompts=3", "--help"}} {
			if cmd != "serve" && len(args) == 3 {
				continue
			}
			if got, errOut, code := runMain(t, args...); code != 0 || got != help {
				t.Errorf("gobench %s: exit %d, %s, help differs from --help", strings.Join(args, " "), code, errOut)
			}
		}
		all, _, code := runMain(t, cmd, "--help-all")
		if code != 0 || len(all) < len(help) {
			t.Errorf("gobench %s --help-all: exit %d, %d bytes (--help: %d)", cmd, code, len(all), len(help))
		}
	}
}

// TestServeHelpLeavesOutRefusedFlags: the default help of serve names no
// flag that is refused when used, says how many it leaves out, and reads
// the same on every call; --help-all lists them all.
func TestServeHelpLeavesOutRefusedFlags(t *testing.T) {
	t.Parallel()
	help, _, _ := runMain(t, "serve", "--help")
	again, _, _ := runMain(t, "serve", "--help")
	all, _, _ := runMain(t, "serve", "--help-all")
	if help != again {
		t.Error("two calls of gobench serve --help differ")
	}
	if strings.Contains(help, "not supported yet") {
		t.Error("gobench serve --help lists a flag that is not supported yet")
	}
	if !strings.Contains(strings.Join(strings.Fields(help), " "), `(default "bench-<8 random hex>-")`) {
		t.Error("the help does not show the --request-id-prefix default as a pattern")
	}
	refused := 0
	newServeCmd(&Deps{}, nil).Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			refused++
			if strings.Contains(help, "--"+f.Name+" ") || !strings.Contains(all, "--"+f.Name+" ") {
				t.Errorf("--%s: in --help %t, in --help-all %t", f.Name, strings.Contains(help, "--"+f.Name+" "), strings.Contains(all, "--"+f.Name+" "))
			}
		}
	})
	// No serve flag is refused now (the --plot-* flags were the last):
	// then the help names none.
	flat := strings.Join(strings.Fields(help), " ")
	if refused == 0 && strings.Contains(flat, "vLLM flags gobench does not support") {
		t.Errorf("no refused flag, yet the help counts some:\n%s", help[len(help)-300:])
	}
	if refused > 0 && !strings.Contains(flat, "Not listed: "+itoa(refused)+" vLLM flags") {
		t.Errorf("%d refused flags; the help does not count them:\n%s", refused, help[len(help)-300:])
	}
}

// TestRequestIDPrefixStaysRandom: the run's --request-id-prefix default is
// still a fresh random one per run, as vLLM's is.
func TestRequestIDPrefixStaysRandom(t *testing.T) {
	t.Parallel()
	a, _, _ := parse(t, "--model", "m")
	b, _, _ := parse(t, "--model", "m")
	re := regexp.MustCompile(`^bench-[0-9a-f]{8}-$`)
	if !re.MatchString(a.Run.RequestIDPrefix) || a.Run.RequestIDPrefix == b.Run.RequestIDPrefix {
		t.Errorf("prefixes %q and %q", a.Run.RequestIDPrefix, b.Run.RequestIDPrefix)
	}
}

// TestHelpGroupsCoverEveryFlag: each flag of serve and sim is under one
// heading of the help (or hidden, for a refused one), and each heading
// names flags that exist.
func TestHelpGroupsCoverEveryFlag(t *testing.T) {
	t.Parallel()
	root := newRootCmd(&Deps{}, nil)
	for _, name := range []string{"serve", "sim"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]string{}
		for _, g := range helpGroupsFor(cmd) {
			for _, f := range g.flags {
				if cmd.Flags().Lookup(f) == nil {
					t.Errorf("%s: %q lists --%s, which %s does not have", name, g.title, f, name)
				}
				if prev, dup := seen[f]; dup {
					t.Errorf("%s: --%s is under %q and %q", name, f, prev, g.title)
				}
				seen[f] = g.title
			}
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if _, ok := seen[f.Name]; !ok && !f.Hidden && f.Name != helpFlag && f.Name != helpAllFlag {
				t.Errorf("%s: --%s is under no heading of the help (serveHelpGroups, simKnobGroups)", name, f.Name)
			}
		})
	}
}

// TestHiddenFlagsKeepTheirPrefixes: a refused flag, hidden from the help,
// is still one of the flags a vLLM prefix may name, as in vLLM.
func TestHiddenFlagsKeepTheirPrefixes(t *testing.T) {
	t.Parallel()
	// The last refused serve flags (--plot-*) now work: their prefixes
	// select them as vLLM's do, and an ambiguous one is still refused.
	if _, errOut, code := parse(t, "--plot-"); code != int(exitcode.BadUsage) || !strings.Contains(errOut, "ambiguous option: --plot- could match") {
		t.Errorf("--plot-: exit %d: %s", code, errOut)
	}
	for _, tt := range []struct {
		arg  string
		want ServeReport
	}{
		{"--plot-time", ServeReport{PlotTimeline: true, ITLThresholds: [2]float64{0.025, 0.05}}},
		{"--plot-d", ServeReport{PlotDatasetStats: true}},
	} {
		o, errOut, code := parse(t, tt.arg)
		if code != 0 || o.Report != tt.want {
			t.Errorf("%s: exit %d: %s %+v", tt.arg, code, errOut, o)
		}
	}
}

// TestUnknownFlagSuggestion: an unknown flag or command exits 2 and
// names the nearest one, on every command.
func TestUnknownFlagSuggestion(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ args, want string }{
		{"serve --num-promts 5", "unrecognized arguments: --num-promts (did you mean --num-prompts?)"},
		{"serve --num_promts=5", "(did you mean --num-prompts?)"},
		{"serve --reqest-rate 5", "(did you mean --request-rate?)"},
		{"serve --prompts 5", "(did you mean --num-prompts?)"},
		{"serve --plot-timline", "(did you mean --plot-timeline?)"},
		{"serve --xyz", "unrecognized arguments: --xyz\n"},
		{"sim --max-num-seqz 3", "(did you mean --max-num-seqs?)"},
		{"compare a.json b.json --formt json", "(did you mean --format?)"},
		{"check a.json --treshold x", "(did you mean --threshold?)"},
		{"analyze a.json --goodptu ttft:1", "(did you mean --goodput?)"},
		{"--verison", "(did you mean --version?)"},
		{"serv", `unknown command "serv" for "gobench" (did you mean serve?)`},
	} {
		_, errOut, code := runMain(t, strings.Fields(tt.args)...)
		if code != int(exitcode.BadUsage) || !strings.Contains(errOut, tt.want) {
			t.Errorf("gobench %s: exit %d: %q", tt.args, code, errOut)
		}
	}
}

// complete runs `gobench __complete args...` through Main and returns the
// completions and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	out, errOut, code := runMain(t, append([]string{cobra.ShellCompNoDescRequestCmd}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", args, code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// TestCompletion: flag values complete through Main: the choices of the
// enumerated flags, comma lists, nothing for numbers, file names for
// paths; refused flags are not offered.
func TestCompletion(t *testing.T) {
	t.Parallel()
	noFiles := ":" + itoa(int(cobra.ShellCompDirectiveNoFileComp))
	for _, tt := range []struct {
		args      []string
		want      []string
		directive string
	}{
		{[]string{"serve", "--backend", ""}, []string{"vllm", "openai", "openai-chat", "openai-audio", "openai-embeddings", "openai-embeddings-chat",
			"openai-embeddings-clip", "openai-embeddings-vlm2vec", "infinity-embeddings", "infinity-embeddings-clip", "vllm-pooling",
			"vllm-rerank", "openai-responses"}, noFiles},
		{[]string{"serve", "--backend", "openai-"}, []string{"openai-chat", "openai-audio", "openai-embeddings", "openai-embeddings-chat",
			"openai-embeddings-clip", "openai-embeddings-vlm2vec", "openai-responses"}, noFiles},
		{[]string{"serve", "--dataset-name", ""}, []string{"sharegpt", "burstgpt", "sonnet", "random", "random-mm", "random-rerank", "hf", "custom",
			"custom_audio", "custom_image", "custom_mm", "prefix_repetition", "spec_bench", "speed_bench", "timed_trace"}, noFiles},
		{[]string{"serve", "--tokenizer-mode", "s"}, []string{"slow", "server"}, noFiles},
		{[]string{"serve", "--percentile-metrics", "ttft,e"}, []string{"ttft,e2el", "ttft,e2el_including_client_queue"},
			":" + itoa(int(cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))},
		{[]string{"serve", "--sim-preset", "s"}, []string{"seq-limit", "spec-decode"}, noFiles},
		{[]string{"sim", "--preset", "8"}, []string{"8b-1gpu"}, noFiles},
		{[]string{"sim", "--engine", ""}, []string{"fixed", "scheduler"}, noFiles},
		{[]string{"serve", "--format", ""}, []string{"text", "markdown", "json"}, noFiles},
		{[]string{"compare", "--format", ""}, []string{"text", "markdown", "json"}, noFiles},
		{[]string{"serve", "--num-prompts", ""}, nil, noFiles},
		{[]string{"serve", "--dataset-path", ""}, nil, ":0"},
		{[]string{"serve", "--result-dir", ""}, nil, ":" + itoa(int(cobra.ShellCompDirectiveFilterDirs))},
		{[]string{"serve", "--plot"}, []string{"--plot-timeline", "--plot-dataset-stats"}, noFiles},
		{[]string{"serve", "--num-p"}, []string{"--num-prompts"}, noFiles},
	} {
		got, directive := complete(t, tt.args...)
		if !slices.Equal(got, tt.want) || directive != tt.directive {
			t.Errorf("__complete %q: %q %s, want %q %s", tt.args, got, directive, tt.want, tt.directive)
		}
	}
}

// TestEveryChoiceFlagCompletes: every flag that knows its values (a choice
// flag) offers them to the shell, on every command.
func TestEveryChoiceFlagCompletes(t *testing.T) {
	t.Parallel()
	root := newRootCmd(&Deps{}, nil)
	n := 0
	for _, cmd := range root.Commands() {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			v, ok := f.Value.(interface{ Completions() []string })
			if !ok || len(v.Completions()) == 0 || f.Hidden {
				return
			}
			n++
			if got, _ := complete(t, cmd.Name(), "--"+f.Name, ""); !slices.Equal(got, v.Completions()) {
				t.Errorf("%s --%s completes %q, want %q", cmd.Name(), f.Name, got, v.Completions())
			}
		})
	}
	if n < 6 {
		t.Errorf("only %d choice flags", n)
	}
}

// TestCompletionScripts: `gobench completion SHELL` prints a script for
// every shell cobra knows.
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		var out bytes.Buffer
		if code := Main(context.Background(), []string{"completion", shell}, Deps{Stdout: &out}); code != 0 ||
			!strings.Contains(out.String(), "__complete") {
			t.Errorf("completion %s: exit %d, %d bytes", shell, code, out.Len())
		}
	}
}
