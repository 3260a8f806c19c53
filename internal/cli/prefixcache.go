package cli

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/runner"
	"github.com/gobench/gobench/internal/runset"
	"github.com/gobench/gobench/internal/serverapi"
)

// PrefixCache is how the runs of a set (--num-runs) or a sweep's points
// are kept from the server's prefix cache of the runs before them: a run
// that finds its prompts cached measures the cache, not the server.
type PrefixCache int

const (
	// CacheAuto, the default: the cache is reset before each run where
	// the server offers POST /reset_prefix_cache; where it does not, each
	// run draws prompts of its own.
	CacheAuto PrefixCache = iota
	// CacheReset is --reset-prefix-cache: reset before each run, the run
	// refused when the server cannot.
	CacheReset
	// CacheWarm is --warm-cache: every run sends the same prompts on the
	// cache the one before left.
	CacheWarm
)

// cacheGuard applies a PrefixCache to the runs of one set or sweep, in
// order, and says once which way it went.
type cacheGuard struct {
	mode PrefixCache
	// what names a run in the line ("run", "point").
	what string
	// fresh is set once the server failed to reset: every later run draws
	// its own prompts.
	fresh bool
	told  bool
}

// prepare readies run k (from 1) before it is sent: the cache reset on
// the server target says the run talks to, or the run's options given a
// dataset seed of their own (--seed + k − 1, as runset.ScheduleSeed wraps
// it). keepArrivals keeps the arrivals of
// --seed when the dataset seed moves (--same-seed, a sweep's points).
func (g *cacheGuard) prepare(ctx context.Context, deps *Deps, target func(run.Options) run.Options, o *run.Options, k int, keepArrivals bool) error {
	if o.DryRun {
		return nil
	}
	if g.mode == CacheWarm {
		o.PrefixCache = resultkey.PrefixCacheWarm
		g.tell(deps, fmt.Sprintf("Prefix cache: kept warm (--warm-cache): every %s sends the same prompts on the cache the one before left.", g.what))
		return nil
	}
	if !g.fresh {
		err := resetPrefixCache(ctx, deps, target(*o))
		switch {
		case err == nil:
			o.PrefixCache = resultkey.PrefixCacheReset
			g.tell(deps, fmt.Sprintf("Prefix cache: reset before each %s (POST /reset_prefix_cache); --warm-cache keeps it.", g.what))
			return nil
		case g.mode == CacheReset || g.told:
			return fmt.Errorf("--reset-prefix-cache before %s %d: %w", g.what, k, err)
		}
		g.fresh = true
		g.tell(deps, fmt.Sprintf("Prefix cache: not reset (%v), so %s k draws prompts of its own (dataset seed --seed+k-1); --warm-cache sends the same prompts every %s.",
			err, g.what, g.what))
	}
	o.PrefixCache = resultkey.PrefixCacheFreshPrompts
	if k > 1 {
		base := o.Seed
		o.Seed = runset.ScheduleSeed(base, k, false)
		if keepArrivals && o.ScheduleSeed == nil {
			o.ScheduleSeed = &base
		}
	}
	return nil
}

// runnerTarget is the options rn runs o with: the server's URL of --sim.
func runnerTarget(rn *runner.Runner) func(run.Options) run.Options {
	return func(o run.Options) run.Options { return rn.Options(runner.Job{Options: o}) }
}

// tell prints line the first time only: one line per set or sweep.
func (g *cacheGuard) tell(deps *Deps, line string) {
	if !g.told {
		fmt.Fprintln(deps.Stderr, line)
		g.told = true
	}
}

// resetPrefixCache posts /reset_prefix_cache to the server of o, with
// the run's headers and key (a server with --api-key guards it too).
func resetPrefixCache(ctx context.Context, deps *Deps, o run.Options) error {
	clean, auth, err := splitCredentials(o.ServerURL())
	if err != nil {
		return err
	}
	headers := o.Headers
	if auth != nil {
		headers = append([]backend.Header{*auth}, headers...)
	}
	bc := &backend.Client{APIKey: o.APIKey}
	c := &serverapi.Client{HTTP: &http.Client{Transport: sideTransport(deps, o.Insecure)}, BaseURL: clean, Header: bc.Headers(headers, "")}
	return c.ResetPrefixCache(ctx)
}
