package cli

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/gobench/gobench/internal/atomicfile"
	"github.com/gobench/gobench/internal/merge"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/spf13/cobra"
)

// MergeOptions is what `gobench merge` runs.
type MergeOptions struct {
	// Shards name the shards' detailed results (PATH, PATH#INDEX or
	// PATH#LABEL).
	Shards []string
	// Output is -o: the merged result's file ("" for none).
	Output string
	// Format is text or json (the merged result on stdout).
	Format string
	// CorrectSkew is --correct-skew (merge.Options.CorrectSkew).
	CorrectSkew bool
}

const mergeLong = `Merge the results of the shards of one benchmark spread over several
clients (gobench serve --num-shards N --shard-index I --start-at T
--save-detailed, one client each) into the result one client would have
written: every request on one timeline through the shards' wall-clock
anchors, in the global request order, and every metric computed again
from the merged per-request data (duration from the first shard's start
to the last shard's end; peak concurrency from the merged intervals;
goodput; percentiles). --max-concurrency was per shard: the merged result's
is N times it.

The shards must belong together: the same seed, workload, settings, shard
count and --start-at, each index once, none missing. The clock skew between
the shards is printed and saved under gobench_merge: the spread of their
start anchors against --start-at, each read on its own machine's clock, and
a bound of each shard's timeline against shard 0's from the server's Date
headers: every change of the Date value is one instant of the server's,
which each shard placed between its last request answered with the older
value and its first answer with the newer one. With --correct-skew each
bounded shard's timeline is moved by the middle of its bound; without it
the anchors are taken as read.

The merged file is an ordinary detailed result: gobench analyze, compare and
check take it.`

const mergeExample = `  gobench merge shard-0.json shard-1.json shard-2.json -o merged.json
  kubectl logs -l job-name=gobench --prefix=false | grep '^{' > shards.jsonl
  gobench merge 'shards.jsonl#0' 'shards.jsonl#1' 'shards.jsonl#2' -o merged.json`

func newMergeCmd(_ *Deps, runF func(*MergeOptions) error) *cobra.Command {
	o := &MergeOptions{}
	format := formatFlag("text", "json")
	cmd := &cobra.Command{
		Use:     "merge SHARD... [-o merged.json]",
		Short:   "Merge the shards of a benchmark spread over several clients into one result",
		Long:    mergeLong,
		Example: mergeExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return argErrorf("merge takes the shards' result files, got none")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			o.Shards, o.Format = args, format.Value()
			return runF(o)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVarP(&o.Output, "output", "o", "", "Write the merged result to this file (replaced whole).")
	fs.Var(format, "format", "Output: text (the merged block and the clock skew) or json (the merged result on stdout).")
	fs.BoolVar(&o.CorrectSkew, "correct-skew", false, "Move each shard's timeline by the middle of its clock-offset bound against shard 0 (from the server's Date headers), where it has one.")
	return cmd
}

// runMerge merges the shards, prints the merged run and saves it.
func runMerge(deps *Deps, o *MergeOptions) error {
	var runs []*resultfile.Run
	for _, spec := range o.Shards {
		r, err := openRun(spec, deps.Stderr)
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	var pending *atomicfile.Pending
	if o.Output != "" {
		var err error
		if pending, err = atomicfile.Prepare(filepath.Dir(o.Output), filepath.Base(o.Output)); err != nil {
			return argErrorf("argument -o: the merged result cannot be saved: %v", err)
		}
		defer pending.Abort()
	}
	res, err := merge.Merge(runs, merge.Options{CorrectSkew: o.CorrectSkew})
	if err != nil {
		return err
	}
	rec := res.Recomputed
	out := formats{
		text: func(w io.Writer) error {
			if err := res.Skew.Write(w); err != nil {
				return err
			}
			return report.Block(deps.Stderr, &rec.Metrics, func() error {
				if err := report.Text(w, &rec.Metrics, nil); err != nil {
					return err
				}
				return report.Gobench(w, &rec.Metrics, rec.Steady, rec.Client)
			})
		},
		object: func() *pyjson.Object { return res.Object },
	}
	if o.Format == "text" {
		fmt.Fprintf(deps.Stdout, "Merged %d shards.\n", len(runs))
	}
	if err := out.write(deps.Stdout, o.Format); err != nil {
		return err
	}
	if pending == nil {
		return nil
	}
	if err := report.Save(pending, o.Output, res.Object, false); err != nil {
		return fmt.Errorf("save merged result: %w", err)
	}
	fmt.Fprintf(deps.Stderr, "Saved the merged result to %s\n", o.Output)
	return nil
}
