package cli

import (
	"errors"
	"io"
	"os"

	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/runset"
)

// compareSets runs `gobench compare` on set files (serve --num-runs):
// done is false when no spec names a set, for the comparison of single
// results to go on. Sets compare only with sets.
func compareSets(deps *Deps, o *CompareOptions) (done bool, err error) {
	var sets []*runset.Set
	for _, spec := range o.Specs {
		s, err := openSet(spec, deps.Stderr)
		switch {
		case errors.Is(err, runset.ErrNotSet):
			s = nil
		case err != nil:
			return true, err
		}
		sets = append(sets, s)
	}
	n := 0
	for _, s := range sets {
		if s != nil {
			n++
		}
	}
	switch {
	case n == 0:
		return false, nil
	case n < len(sets):
		return true, argErrorf("a set of runs (a FILE-set.json of serve --num-runs) compares only with other sets: give set files only, or the runs' own files")
	case n < 2:
		return true, argErrorf("compare needs at least two sets of runs (the first is the baseline)")
	}
	c, err := compare.CompareSets(sets, o.Specs, o.Stats)
	if err != nil {
		return true, err
	}
	c.All = o.All
	tallies := make([]compare.Tally, len(sets)-1)
	for j := range tallies {
		tallies[j] = c.Tally(j + 1)
	}
	if err := (formats{text: c.WriteText, markdown: c.WriteMarkdown, object: c.Object}).write(deps.Stdout, o.Format); err != nil {
		return true, err
	}
	return true, failOnError(o.FailOn, c.Names, tallies, "the test across runs needs at least two completed runs in each set")
}

// openSet reads the set file spec names, or fails with runset.ErrNotSet
// when spec is a result (or a file of several runs, or a run selector).
func openSet(spec string, warn io.Writer) (*runset.Set, error) {
	path, sel := resultfile.SplitSpec(spec)
	if sel != "" {
		return nil, runset.ErrNotSet
	}
	if _, err := os.Stat(path); err != nil {
		return nil, runset.ErrNotSet // compareRuns names the missing file
	}
	return runset.Read(path, warn) // ErrNotSet: a result, or a file of several, which compareRuns reads
}
