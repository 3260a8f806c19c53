package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/runner"
	"github.com/gobench/gobench/internal/runset"
	"github.com/spf13/pflag"
)

// Repeat is serve's --num-runs and --same-seed: the same configuration run
// several times, each run saved, then the statistics of every metric
// across the runs, printed and saved as a set file.
type Repeat struct {
	// Runs is --num-runs (1: a single run, as vLLM's).
	Runs int
	// SameSeed is --same-seed: every run has the first run's arrivals.
	SameSeed bool
	// Cache is how the runs (and a sweep's points) are kept from each
	// other's prefix cache: --reset-prefix-cache, --warm-cache, or the
	// default (prefixcache.go).
	Cache PrefixCache
}

// repeatFlags are serve's flags for Repeat.
type repeatFlags struct {
	runs           *argparse.Int
	sameSeed, warm bool
}

// register defines the flags. --num-runs is vLLM's Rust client's
// (rust/src/bench/src/cli.rs); --same-seed is gobench's.
func (r *repeatFlags) register(fs *pflag.FlagSet) {
	r.runs = argparse.NewInt("num-runs", 1)
	fs.Var(r.runs, "num-runs",
		"Run the same configuration this many times against the same server: every run saved as FILE-runK.json, then each metric's mean, std, min, max, "+
			"coefficient of variation and 95% t interval across the runs, printed and saved as FILE-set.json (gobench compare takes two such files). "+
			"Each run starts from a cold prefix cache (reset before it, or prompts of its own where the server cannot reset; --warm-cache keeps it); "+
			"run k's arrivals are drawn with seed --seed+k-1 (run 1's are vLLM's).")
	fs.BoolVar(&r.sameSeed, "same-seed", false, "With --num-runs: every run gets the first run's arrivals too (the same requests at the same offsets), as vLLM's Rust client repeats a run.")
	fs.BoolVar(&r.warm, "warm-cache", false, "With --num-runs or --sweep-*: send the same prompts in every run without resetting the server's prefix cache, "+
		"so runs after the first meet the cache the one before left (vLLM's Rust client's way).")
}

// options checks the flags against the run's options.
func (r *repeatFlags) options(o *run.Options) (Repeat, error) {
	rep := Repeat{Runs: r.runs.Value(), SameSeed: r.sameSeed}
	if r.warm {
		rep.Cache = CacheWarm
	}
	switch {
	case rep.Runs < 1:
		return rep, argErrorf("argument --num-runs: must be at least 1 (got %d)", rep.Runs)
	case rep.Runs == 1 && rep.SameSeed:
		return rep, argErrorf("--same-seed needs --num-runs 2 or more")
	case rep.Runs > 1 && o.DryRun:
		return rep, argErrorf("--num-runs needs a run: leave out --dry-run (whose plan is the first run's)")
	case rep.Runs > 1 && o.AppendResult:
		return rep, argErrorf("--num-runs saves each run in a file of its own: leave out --append-result")
	}
	return rep, nil
}

// RepeatedRun is the options of run k (from 1) of a set: the run's own
// options with the arrivals' seed of run k (runset.ScheduleSeed; the
// dataset's seed stays unless the run's cacheGuard moves it) and, when
// stem is known, saved as stem-runK.json. A sweep that repeats its points
// builds each run the same way.
func RepeatedRun(o run.Options, k int, rep Repeat, stem string) run.Options {
	if !rep.SameSeed && k > 1 {
		s := runset.ScheduleSeed(o.Seed, k, false)
		o.ScheduleSeed = &s
	}
	o.SaveResult = true
	if stem != "" {
		o.ResultDir, o.ResultFilename = "", stem+"-run"+strconv.Itoa(k)+".json"
	}
	return o
}

// setStem is the common start of a set's file names when --result-filename
// gives it (NAME.json: NAME-run1.json, ..., NAME-set.json); "" otherwise,
// when the first run's vLLM file name (with its date) gives it.
func setStem(o run.Options) string {
	if o.ResultFilename == "" {
		return ""
	}
	name := report.Filename(report.FileOptions{ResultDir: o.ResultDir, ResultFilename: o.ResultFilename})
	return strings.TrimSuffix(name, ".json")
}

// runRepeated runs the set: each run as a single serve run (printed,
// judged by the thresholds, saved), then the set's table on stdout and its
// file. An interrupt ends the set after the run it stopped, whose file is
// kept; a run that could not be carried out at all (no result) ends it
// too; the set file is written over the runs made either way. The outcome
// is the interrupt, else that failure, else the first run's error (every
// request failed, a failed threshold).
func runRepeated(ctx context.Context, deps *Deps, rep Repeat, o run.Options, rn *runner.Runner, sg *serveGate) error {
	set := &runset.Set{NumRuns: rep.Runs, Seed: o.Seed, SameSeed: rep.SameSeed, Confidence: runset.DefaultConfidence, EndReason: runset.Completed}
	stem := setStem(o)
	guard := &cacheGuard{mode: rep.Cache, what: "run"}
	var outcome error
	for k := 1; k <= rep.Runs; k++ {
		ro := RepeatedRun(o, k, rep, stem)
		seed := runset.ScheduleSeed(o.Seed, k, rep.SameSeed)
		fmt.Fprintf(deps.Stderr, "Run %d of %d (arrivals seed %d)\n", k, rep.Runs, seed)
		if err := guard.prepare(ctx, deps, runnerTarget(rn), &ro, k, rep.SameSeed); err != nil {
			set.EndReason, outcome = runset.Failed, err
			break
		}
		res, err := rn.Run(ctx, runner.Job{Options: ro})
		if res != nil && res.File != "" {
			if stem == "" {
				stem = strings.TrimSuffix(res.File, ".json")
				if err := renameFirst(res, stem); err != nil {
					return err
				}
			}
			fmt.Fprintf(deps.Stderr, "Saved run %d to %s\n", k, res.File)
			if r, rerr := resultfile.FromObject(res.File, res.Object); rerr == nil {
				set.Runs = append(set.Runs, runset.Run{Number: k, File: res.File, ScheduleSeed: seed, EndReason: res.EndReason, Result: r})
			}
		}
		err = sg.finish(deps, res, err)
		if errors.Is(err, run.ErrInterrupted) || rn.Stopped() {
			set.EndReason, outcome = runset.Interrupted, err
			break
		}
		if err != nil && res == nil { // the run could not be carried out
			set.EndReason, outcome = runset.Failed, err
			break
		}
		if outcome == nil {
			outcome = err
		}
	}
	if serr := finishSet(deps, set, stem, sg.Format); serr != nil && outcome == nil {
		outcome = serr
	}
	if set.EndReason == runset.Interrupted && outcome == nil {
		outcome = run.ErrInterrupted
	}
	return outcome
}

// renameFirst moves the first run's file, saved under vLLM's name, to
// stem-run1.json, the name of the set's other runs (and its PyTorch
// records, SAVE_TO_PYTORCH_BENCHMARK_FORMAT, beside it).
func renameFirst(res *run.Result, stem string) error {
	to := stem + "-run1.json"
	if err := os.Rename(res.File, to); err != nil {
		return fmt.Errorf("name the first run's file: %w", err)
	}
	if from := report.PyTorchPath(res.File); fileExists(from) {
		if err := os.Rename(from, report.PyTorchPath(to)); err != nil {
			return fmt.Errorf("name the first run's PyTorch records: %w", err)
		}
	}
	res.File = to
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// finishSet summarises the set, prints its table (or, with --format json,
// its object on one line) and saves it as stem-set.json.
func finishSet(deps *Deps, set *runset.Set, stem, format string) error {
	if len(set.Runs) == 0 || stem == "" {
		fmt.Fprintln(deps.Stderr, "No run was saved: no set of runs to write.")
		return nil
	}
	set.Summarize()
	path := stem + "-set.json"
	if format != "json" { // JSON Lines: a result per run, then the set
		fmt.Fprintln(deps.Stdout)
	}
	f := formats{text: set.WriteText, markdown: set.WriteMarkdown,
		object: func() *pyjson.Object { return set.Object(filepath.Dir(path)) }}
	if err := f.write(deps.Stdout, format); err != nil {
		return err
	}
	if err := set.Save(path); err != nil {
		return err
	}
	fmt.Fprintf(deps.Stderr, "Saved the set of %d runs to %s\n", len(set.Runs), path)
	return nil
}
