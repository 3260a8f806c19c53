package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/spf13/pflag"
)

// simConfig builds the simulator of `gobench serve --sim` from the --sim-*
// flags: --sim-ttft and --sim-itl for the fixed engine, the rest as
// `gobench sim` takes them.
func (f *serveFlags) simConfig(fs *pflag.FlagSet) (*sim.Config, error) {
	var latency []string
	for _, name := range []string{"sim-ttft", "sim-itl"} {
		if fl := fs.Lookup(name); fl != nil && fl.Changed {
			latency = append(latency, "--"+name)
		}
	}
	if !(f.simTTFT.v >= 0) || !(f.simITL.v >= 0) {
		return nil, argErrorf("--sim-ttft and --sim-itl must be non-negative seconds")
	}
	cfg, err := f.simx.build(fs, metrics.Duration(f.simTTFT.v), metrics.Duration(f.simITL.v), latency)
	if err != nil {
		return nil, err
	}
	cfg.Root = tokenizer.BuiltinName
	if cfg.Scheduler != nil {
		cfg.Scheduler.Seed = f.opts.Seed
	}
	return &cfg, nil
}

// startEmbeddedSim starts the simulator of `gobench serve --sim` in this
// process on a free loopback port, for the run. stop shuts it down and
// closes its record, reporting a record that could not be written.
func startEmbeddedSim(ctx context.Context, deps *Deps, opts *ServeOptions) (url string, stop func(), err error) {
	cfg := *opts.Sim
	cfg.Tokenizer = tokenizer.Builtin()
	var rec *os.File
	if opts.SimRecord != "" {
		if rec, err = os.Create(opts.SimRecord); err != nil {
			return "", nil, fmt.Errorf("--sim-record: %w", err)
		}
		cfg.Record = rec
	}
	closeRec := func() {
		if rec != nil {
			_ = rec.Close()
		}
	}
	srv, err := sim.NewServer(cfg)
	if err != nil {
		closeRec()
		return "", nil, fmt.Errorf("start the simulator: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		closeRec()
		return "", nil, fmt.Errorf("start the simulator: %w", err)
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(sctx, ln) }()
	url = "http://" + ln.Addr().String()
	fmt.Fprintf(deps.Stdout, "Started gobench's simulated server at %s (%s).\n", url, describeSim(cfg))
	stop = func() {
		cancel()
		select {
		case <-done:
		case <-time.After(sim.DefaultShutdownTimeout + time.Second):
		}
		if err := srv.RecordErr(); err != nil {
			fmt.Fprintf(deps.Stderr, "warning: the simulator's record %s is incomplete: %v\n", opts.SimRecord, err)
		}
		if rec != nil {
			if err := rec.Close(); err != nil {
				fmt.Fprintf(deps.Stderr, "warning: closing the simulator's record %s: %v\n", opts.SimRecord, err)
			}
		}
	}
	return url, stop, nil
}
