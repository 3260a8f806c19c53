package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/texttable"
	"github.com/spf13/pflag"
)

// serveSimConfig builds the simulator of `gobench serve --sim` from the
// --sim-* flags bound in sx: the run's --seed seeds its scheduler's draft
// acceptance, and it answers to model (the --served-model-name, else
// --model; empty keeps sim's default) and counts tokens with gobench's
// built-in tokenizer, as before.
func serveSimConfig(fs *pflag.FlagSet, sx *simFlags, seed int64, model string) (*sim.Config, error) {
	cfg, err := sx.config(fs)
	if err != nil {
		return nil, err
	}
	if model != "" {
		cfg.Model = model
	}
	if cfg.Scheduler != nil {
		cfg.Scheduler.Seed = seed
	}
	return &cfg, nil
}

// startEmbeddedSim starts that simulator on a free loopback port (and its
// record, cfg.RecordPath); stop shuts it down, warning on deps.Stderr when
// the record could not be written.
func startEmbeddedSim(ctx context.Context, deps *Deps, cfg *sim.Config) (url string, stop func(), err error) {
	if deps.SimListen != nil {
		cfg.Listen = deps.SimListen
	}
	r, err := sim.Start(ctx, *cfg)
	if err != nil {
		return "", nil, fmt.Errorf("start the simulator: %w", err)
	}
	started := fmt.Sprintf("Started gobench's simulated server at %s (%s).", r.URL(), describeSim(*cfg))
	for _, l := range texttable.Wrap(started, texttable.Width, "", "  ") {
		fmt.Fprintln(deps.Stderr, l)
	}
	stop = func() {
		var re *sim.RecordError
		if err := r.Close(); errors.As(err, &re) {
			fmt.Fprintf(deps.Stderr, "warning: the simulator's record %s is incomplete: %v\n", re.Path, re.Err)
		}
	}
	return r.URL(), stop, nil
}
