package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/sweep"
	"github.com/spf13/pflag"
)

// benchLine is a sweep's --bench-cmd parsed once, as `gobench serve`
// parses its command line; each run's parameters are then applied to a
// copy of its options (apply), never to the command line's text.
type benchLine struct {
	base *ServeOptions
	// words is the command line as serve normalizes it ("serve",
	// "--name=value", ...): each run records it with its parameters.
	words []string
	deps  *Deps
	// refused are the serve flags no run of a sweep can set, with why.
	refused map[string]string
}

// parseBenchLine parses the bench command (gobench serve ... or vllm
// bench serve ...) into serve's options. A sweep runs single runs: the
// bench command cannot ask for serve's sets of runs.
func parseBenchLine(ctx context.Context, deps *Deps, cmd []string) (*benchLine, error) {
	args, err := sweep.BenchArgs(cmd)
	if err != nil {
		return nil, exitcode.Usage(err)
	}
	so, words, err := parseServeArgs(ctx, deps, args)
	if err != nil {
		return nil, argErrorf("argument --bench-cmd: %v", err)
	}
	switch {
	case so.Repeat.Runs > 1:
		return nil, argErrorf("argument --bench-cmd: --num-runs: a sweep repeats each run with its own --num-runs")
	case so.Sweep != nil:
		return nil, argErrorf("argument --bench-cmd: --sweep-request-rate and --sweep-max-concurrency: give the loads in --bench-params")
	case so.Run.DryRun:
		return nil, argErrorf("argument --bench-cmd: --dry-run: a sweep's runs send their requests; gobench sweep --dry-run lists them")
	}
	return &benchLine{base: so, words: words, deps: deps, refused: refusedBenchFlags()}, nil
}

// refusedBenchFlags are the serve flags that are no setting of one run
// (serve's own modes, its gates and pictures, the simulator it starts),
// with why a sweep's parameters cannot set them.
func refusedBenchFlags() map[string]string {
	why := map[string]string{}
	add := func(reason string, register func(fs *pflag.FlagSet)) {
		fs := pflag.NewFlagSet("", pflag.ContinueOnError)
		register(fs)
		fs.VisitAll(func(fl *pflag.Flag) { why[fl.Name] = reason })
	}
	add("serve's thresholds and output format are the bench command's, the same for every run", func(fs *pflag.FlagSet) { new(gateFlags).register(fs) })
	add("a sweep repeats its runs with its own --num-runs", func(fs *pflag.FlagSet) { new(repeatFlags).register(fs) })
	add("the loads of a sweep are its parameters", func(fs *pflag.FlagSet) { new(serveSweepFlags).register(flagSet{fs}) })
	add("a sweep's run is one client's", func(fs *pflag.FlagSet) { new(shardFlags).register(fs) })
	add("serve's pictures are the bench command's, the same for every run", func(fs *pflag.FlagSet) { new(reportFlags).register(fs) })
	add("the live metrics are the sweep process's, not one run's", func(fs *pflag.FlagSet) { new(liveFlags).register(fs) })
	add("the simulator of --sim is the bench command's; vary a server with --serve-cmd 'gobench sim ...' and --serve-params",
		func(fs *pflag.FlagSet) {
			new(simFlags).register(fs, "sim-", false)
			fs.Bool("sim", false, "")
		})
	why["config"] = "a file of flags belongs on the bench command"
	why["dry-run"] = "a sweep's runs send their requests; gobench sweep --dry-run lists them"
	return why
}

// checkParams applies every combination to the bench command, so that a
// parameter serve does not know, or a value it refuses, fails the sweep
// before its first run.
func (b *benchLine) checkParams(ps sweep.Params) error {
	for _, c := range ps {
		if _, err := b.apply(c); err != nil {
			return argErrorf("argument --bench-params: %v", err)
		}
	}
	return nil
}

// apply is the bench command's options with the parameters of c set,
// each as serve sets its flag of that name (vLLM's parameter names:
// num_prompts or num-prompts): the value parsed by the flag, then
// converted as serve converts it, the result checked as serve checks its
// options. The run records the command line with the parameters in it.
func (b *benchLine) apply(c sweep.Comb) (*ServeOptions, error) {
	p := newBenchPoint(b.base)
	words := slices.Clone(b.words)
	for _, key := range c.Keys() {
		if key == sweep.NameKey {
			continue
		}
		v, _ := c.Get(key)
		fl, err := b.flag(p.fs, key)
		if err != nil {
			return nil, err
		}
		texts := flagTexts(fl, v)
		if err := p.set(fl, texts); err != nil {
			return nil, fmt.Errorf("bench parameter %q: %w", key, err)
		}
		words = withFlagWords(words, fl, texts)
	}
	so, err := p.options()
	if err != nil {
		return nil, fmt.Errorf("bench parameters %s: %w", c.Text(", "), err)
	}
	so.Run.CommandLine = commandLine(words, b.deps.Getenv)
	if !slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, "--request-id-prefix=") }) {
		// vLLM draws the default prefix for every run it starts.
		so.Run.RequestIDPrefix = run.NewRequestIDPrefix()
		so.Run.Args = so.Run.Args.Clone()
		so.Run.Args.Set("request_id_prefix", so.Run.RequestIDPrefix)
	}
	return so, nil
}

// flag is the serve flag a parameter names, or an error naming the
// parameter: no such flag, or one a run cannot set.
func (b *benchLine) flag(fs *pflag.FlagSet, key string) (*pflag.Flag, error) {
	name := strings.ReplaceAll(key, "_", "-")
	if strings.Contains(name, ".") {
		return nil, argErrorf("bench parameter %q: a dotted key is not supported; give the whole JSON object (%s)",
			key, strings.ReplaceAll(name[:strings.Index(name, ".")], "-", "_"))
	}
	fl := fs.Lookup(name)
	if fl == nil {
		return nil, argErrorf("bench parameter %q: gobench serve has no flag --%s%s", key, name, argparse.SuggestFlag(fs, name))
	}
	if why, ok := b.refused[name]; ok {
		return nil, argErrorf("bench parameter %q: --%s cannot vary between runs: %s", key, name, why)
	}
	if what := pendingFeature(name); what != "" {
		return nil, fmt.Errorf("bench parameter %q: --%s: %s %w", key, name, what, exitcode.ErrNotSupported)
	}
	return fl, nil
}

// flagTexts are the command-line values a parameter's value gives its
// flag, as vLLM writes a parameter on a command line: a boolean true or
// false, a list its items (for a flag that takes several), an object its
// JSON, anything else Python's str of it.
func flagTexts(fl *pflag.Flag, v any) []string {
	switch x := v.(type) {
	case bool:
		return []string{fmt.Sprint(x)}
	case *pyjson.Object:
		if b, err := pyjson.AppendPython(nil, x); err == nil {
			return []string{string(b)}
		}
	case []any:
		if _, ok := fl.Value.(*argparse.List); ok {
			texts := make([]string, len(x))
			for i, it := range x {
				texts[i] = pyfmt.Str(it)
			}
			return texts
		}
	}
	return []string{pyfmt.Str(v)}
}

// withFlagWords is the normalized command line words with fl's values
// replaced by texts: in the place of its first value, else at the end.
func withFlagWords(words []string, fl *pflag.Flag, texts []string) []string {
	name := "--" + fl.Name
	var add []string
	for _, t := range texts {
		switch {
		case fl.Value.Type() == "bool" && t == "true":
			add = append(add, name)
		default:
			add = append(add, name+"="+t)
		}
	}
	at := -1
	out := make([]string, 0, len(words)+len(add))
	for _, w := range words {
		if w == name || strings.HasPrefix(w, name+"=") {
			if at < 0 {
				at = len(out)
			}
			continue
		}
		out = append(out, w)
	}
	if at < 0 {
		return append(out, add...)
	}
	return slices.Insert(out, at, add...)
}
