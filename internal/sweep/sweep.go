package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
)

// sweeper carries one sweep: its options, surroundings and the runs
// gathered so far.
type sweeper struct {
	o   Options
	env *Env
	dir string
	// log gets the [BEGIN ...] lines: Stdout for a dry run (they are its
	// output), Stderr otherwise.
	log io.Writer
	all []Point
	// runs counts the benchmark runs met so far, resumed ones included
	// (Bench.Index).
	runs int
}

// Run carries out a sweep (vLLM's run_main of `sweep serve`, or of
// `sweep serve_workload` with o.Workload): every serve combination's
// server in turn, every bench combination against it, NumRuns runs each,
// each run's result in the experiment folder as soon as it ends. An
// interrupted or failed sweep keeps the runs it completed, and Resume
// continues it. The table of the runs goes to Stdout and to
// sweep_table.csv and .json.
func Run(ctx context.Context, o Options, env Env) error {
	if err := o.check(); err != nil {
		return exitcode.Usage(err)
	}
	if o.ExperimentName == "" {
		o.ExperimentName = env.now().Format("20060102_150405")
	}
	dir, err := experimentDir(o.OutputDir, o.ExperimentName, o.Resume)
	if err != nil {
		return exitcode.Usage(err)
	}
	s := &sweeper{o: o, env: &env, dir: dir, log: env.Stderr}
	if o.DryRun {
		s.log = env.Stdout
	}
	err = s.serveCombs(ctx)
	if o.DryRun {
		fmt.Fprintf(s.log, "Experiment will be saved at: %s\n", dir)
		return err
	}
	if err != nil {
		return fmt.Errorf("the sweep stopped early; the runs it completed are kept in %s, and --resume continues it: %w", dir, err)
	}
	if err := s.finish(); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "Experiment has been saved at: %s\n", dir)
	return nil
}

// serveCombs runs every serve combination (run_combs).
func (s *sweeper) serveCombs(ctx context.Context) error {
	for _, sc := range s.o.ServeParams {
		err := s.serveComb(ctx, sc)
		if err == nil {
			continue
		}
		if !s.o.ContinueOnError || ctx.Err() != nil {
			return err
		}
		name := sc.Name()
		if name == "" {
			name = "default"
		}
		failure := pyjson.NewObject()
		failure.Set("error_type", errorType(err))
		failure.Set("error", err.Error())
		failure.Set("serve_overrides", sc.o)
		path := filepath.Join(s.dir, sanitizeFilename("SERVE-"+name+"-failure.json"))
		if werr := writeJSON(path, failure, 2); werr != nil {
			return errors.Join(err, werr)
		}
		fmt.Fprintf(s.log, "[FAILED SERVER COMBINATION] %s: %v\nFailure details: %s\n", name, err, path)
	}
	return nil
}

// serveComb starts the server of one serve combination when a bench
// combination still lacks its summary (server_ctx) and runs them all.
func (s *sweeper) serveComb(ctx context.Context, sc Comb) error {
	sess, err := s.startSession(ctx, sc)
	if err != nil {
		return err
	}
	defer func() {
		if sess == nil || !sess.started {
			return
		}
		if sess.srv != nil {
			if err := sess.srv.stop(); err != nil {
				fmt.Fprintf(s.env.Stderr, "warning: %v\n", err)
			}
		}
		fmt.Fprintln(s.log, "[END SERVER]")
	}()
	for _, bc := range s.o.BenchParams {
		var data []Point
		var err error
		if s.o.Workload != nil {
			data, err = s.exploreWorkloads(ctx, sess, sc, bc)
		} else {
			data, err = s.runComb(ctx, sess, sc, bc, combDir(s.dir, sc, bc))
		}
		if err != nil {
			return err
		}
		s.all = append(s.all, data...)
	}
	return nil
}

// session is the server that the runs of a serve combination talk to:
// srv is the process of --serve-cmd (nil without one, or in a dry run).
type session struct {
	srv *server
	// started is set when the sweep printed [BEGIN SERVER] (a
	// --serve-cmd, run or listed by a dry run).
	started bool
}

// startSession returns nil when every bench combination of sc already has
// its summary (nothing to run: vLLM starts no server then), else a session,
// with the server started and ready when there is a --serve-cmd.
func (s *sweeper) startSession(ctx context.Context, sc Comb) (*session, error) {
	if !s.needsServer(sc) {
		return nil, nil
	}
	if len(s.o.ServeCmd) == 0 {
		return &session{}, nil
	}
	argv := sc.Apply(s.o.ServeCmd)
	fmt.Fprintf(s.log, "[BEGIN SERVER]\nServer overrides: %s\nServer command: %s\n", pyfmt.Repr(sc.o), pyfmt.Repr(anyList(argv)))
	if s.o.DryRun {
		return &session{started: true}, nil
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("experiment folder: %w", err)
	}
	srv, err := startServer(argv, serverLogPath(s.dir, sc), s.env)
	if err != nil {
		return nil, err
	}
	if err := srv.waitReady(ctx, s.o.ServerReadyTimeout); err != nil {
		if serr := srv.stop(); serr != nil {
			err = errors.Join(err, serr)
		}
		return nil, fmt.Errorf("server %q: %w", argv[0], err)
	}
	return &session{srv: srv, started: true}, nil
}

// needsServer reports whether a bench combination of sc lacks its summary
// (_comb_needs_server); a dry run always lists the server.
func (s *sweeper) needsServer(sc Comb) bool {
	if s.o.Workload != nil {
		return true // its folders depend on measured loads
	}
	for _, bc := range s.o.BenchParams {
		if !exists(summaryPath(combDir(s.dir, sc, bc))) {
			return true
		}
	}
	return false
}

// anyList is a list of words as the []any that pyfmt.Repr takes.
func anyList(words []string) []any {
	out := make([]any, len(words))
	for i, w := range words {
		out[i] = w
	}
	return out
}

// errorType names an error's kind in a failure file, where vLLM writes the
// Python exception's class.
func errorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "Interrupted"
	case exitcode.Of(err) != exitcode.Failure:
		return fmt.Sprintf("ExitStatus%d", exitcode.Of(err))
	}
	return "Error"
}

// writeJSON writes v as json.dump(v, f, indent=width) atomically; indent
// 2 is vLLM's failure files, which end with a newline.
func writeJSON(path string, v any, width int) error {
	data, err := indented(v, width)
	if width == 2 {
		data = append(data, '\n')
	}
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return writeFile(path, data)
}
