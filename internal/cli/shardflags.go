package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/run"
	"github.com/spf13/pflag"
)

// jobIndexEnv is the variable a Kubernetes Indexed Job sets to the pod's
// completion index: --shard-index when the flag is absent.
const jobIndexEnv = "JOB_COMPLETION_INDEX"

// shardFlagNames are the flags of one benchmark spread over several
// clients, under their own heading of serve's help.
var shardFlagNames = []string{"num-shards", "shard-index", "start-at"}

// shardFlags are serve's flags for run.Shard.
type shardFlags struct {
	count, index *argparse.Int
	startAt      string
}

// register defines the flags.
func (f *shardFlags) register(fs *pflag.FlagSet) {
	f.count, f.index = argparse.NewInt("num-shards", 1), argparse.NewInt("shard-index", 0)
	fs.Var(f.count, "num-shards",
		"Spread one benchmark over this many clients (shards): each plans the same dataset and schedule from --seed and sends request j "+
			"when j mod --num-shards is its --shard-index; gobench merge joins their --save-detailed results. --max-concurrency is per shard "+
			"(the global limit is --num-shards times it).")
	fs.Var(f.index, "shard-index", "This client's shard, from 0 (default: $"+jobIndexEnv+", which a Kubernetes Indexed Job sets, else 0).")
	fs.StringVar(&f.startAt, "start-at", "",
		"Wall-clock instant at which the schedule starts, the same for every shard: RFC 3339 (2026-12-01T06:00:00Z) or Unix seconds; "+
			"refused when past, or more than 24 h ahead. The ready check and warm-ups run before it.")
}

// options sets o.Shard from the flags (and $JOB_COMPLETION_INDEX), and
// warns on stderr when a shard's result could not be merged.
func (f *shardFlags) options(o *run.Options, deps *Deps) error {
	s := run.Shard{Count: f.count.Value(), Index: f.index.Value()}
	// Only a sharded run takes the Job's index: a Job that runs whole
	// benchmarks in its pods is not refused for it.
	if !f.index.Given() && s.Count > 1 {
		if env := strings.TrimSpace(deps.Getenv(jobIndexEnv)); env != "" {
			i, err := strconv.Atoi(env)
			if err != nil || i < 0 {
				return argErrorf("argument --shard-index: $%s is %q, not a shard index", jobIndexEnv, env)
			}
			s.Index = i
		}
	}
	if f.startAt != "" {
		at, err := parseStartAt(f.startAt)
		if err != nil {
			return err
		}
		s.StartAt = at
		if !o.DryRun {
			if err := s.CheckStartAt(deps.Now()); err != nil {
				return err
			}
		}
	}
	o.Shard = s
	if s.Sharded() && !o.SaveDetailed && !o.DryRun {
		fmt.Fprintf(deps.Stderr, "WARNING: shard %d of %d runs without --save-detailed: gobench merge needs each shard's per-request lists, so this shard's result cannot be merged.\n", s.Index, s.Count)
	}
	return nil
}

// maxStartAtUnix is the last Unix second --start-at takes (the year 2200):
// beyond, int64 conversions and durations from now overflow.
const maxStartAtUnix = 7258118400

// parseStartAt reads --start-at: RFC 3339 (with or without fractional
// seconds, any zone) or Unix seconds (a fraction allowed).
func parseStartAt(v string) (time.Time, error) {
	// The run reads the instant as a time.Duration from now, which spans
	// ±292 years: an instant beyond would saturate into nonsense.
	outOfRange := argErrorf("argument --start-at: %q is out of range (give an instant within a day from now)", v)
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		if t.Unix() <= 0 || t.Unix() > maxStartAtUnix {
			return time.Time{}, outOfRange
		}
		return t, nil
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && !math.IsInf(secs, 0) && !math.IsNaN(secs) && secs > 0 {
		if secs > maxStartAtUnix {
			return time.Time{}, outOfRange
		}
		whole, frac := math.Modf(secs)
		return time.Unix(int64(whole), int64(math.Round(frac*1e9))), nil
	}
	return time.Time{}, argErrorf("argument --start-at: %q is neither an RFC 3339 instant (2026-12-01T06:00:00Z) nor Unix seconds", v)
}

// checkWith refuses shard flags with the serve modes that run several
// benchmarks (each would need its own start instant).
func (f *shardFlags) checkWith(so *ServeOptions) error {
	s := so.Run.Shard
	if !s.Sharded() && s.StartAt.IsZero() {
		return nil
	}
	switch {
	case so.Repeat.Runs > 1:
		return argErrorf("argument --num-shards/--start-at: not with --num-runs (every run would need its own start instant)")
	case so.Sweep != nil:
		return argErrorf("argument --num-shards/--start-at: not with --sweep-request-rate or --sweep-max-concurrency (every point would need its own start instant)")
	}
	return nil
}
