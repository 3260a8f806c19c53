// Package cli is gobench's command line: cobra commands that fill an options
// struct and call the package that does the work (run, sim) with their
// dependencies. vLLM's argument spellings are read through package
// argparse (normalizeFor); exit codes are read off the errors in one place
// (Main).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/buildinfo"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/run"
	"github.com/spf13/cobra"
)

// Deps are the process's surroundings, injected so tests can run commands
// in-process.
type Deps struct {
	Stdout, Stderr io.Writer
	// Getenv reads an environment variable.
	Getenv func(string) string
	// Now is the wall clock.
	Now func() time.Time
	// Signals delivers interrupts: the first stops sending, the second
	// cancels what is in flight. nil means none.
	Signals <-chan os.Signal
	// IsTerminal reports whether stderr is a terminal (progress bar).
	IsTerminal bool
	// Version is gobench's version.
	Version string
	// Transport overrides the HTTP transport (tests); nil uses
	// run.NewTransport.
	Transport func(maxConns int, insecure bool) http.RoundTripper
	// SimListen overrides how the simulator of serve --sim listens
	// (tests: an in-memory listener that Transport dials); nil listens on
	// a loopback TCP port.
	SimListen func(ctx context.Context, network, addr string) (net.Listener, error)
	// args is the command line as normalizeFor rewrote it, which Main
	// sets: serve saves it, redacted (commandLine).
	args []string
}

// Main runs gobench with args (without the program name) and returns the
// exit status.
func Main(ctx context.Context, args []string, deps Deps) int {
	if deps.Getenv == nil {
		deps.Getenv = func(string) string { return "" }
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	// The interrupt relay, the progress bar and the run write to stderr
	// from different goroutines.
	for _, w := range []*io.Writer{&deps.Stdout, &deps.Stderr} {
		if *w == nil {
			*w = io.Discard
		}
		*w = &lockedWriter{w: *w}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	intr := newInterrupts()
	if deps.Signals != nil {
		go intr.relay(ctx, deps, cancel)
	}
	root := newRootCmd(&deps, intr)
	args = dropBenchWord(root, args)
	if isCompletionRequest(args) {
		registerCompletions(root)
	}
	normalized, err := normalizeNoting(root, args, deps.Stderr)
	if err == nil {
		deps.args = normalized
		root.SetArgs(normalized)
		err = root.ExecuteContext(ctx)
	}
	return exitCode(err, deps.Stderr, commandName(root, args))
}

// lockedWriter serialises the writes of several goroutines to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// interrupts are the steps in which signals stop a command: the first
// (stop) ends sending and lets requests in flight finish, the second
// cancels them (the context), the third (abort) skips what is left before
// saving. SIGTERM and SIGHUP, which a supervisor sends before it kills
// (docker stop waits 10 s), take the first step with a quick grace.
type interrupts struct {
	stop, abort chan struct{}
	quick       atomic.Bool
}

func newInterrupts() *interrupts {
	return &interrupts{stop: make(chan struct{}), abort: make(chan struct{})}
}

// relay turns the signals of deps into the steps, until ctx ends.
func (in *interrupts) relay(ctx context.Context, deps Deps, cancel context.CancelFunc) {
	next := func() (os.Signal, bool) {
		select {
		case s := <-deps.Signals:
			return s, true
		case <-ctx.Done():
			return nil, false
		}
	}
	sig, ok := next()
	if !ok {
		return
	}
	if sig == syscall.SIGTERM || sig == syscall.SIGHUP {
		in.quick.Store(true)
		fmt.Fprintf(deps.Stderr, "\n%s: no new requests are sent; requests in flight get at most %s, then what was measured is saved.\n",
			signalName(sig), run.QuickGrace)
	} else {
		fmt.Fprintln(deps.Stderr, "\nInterrupted: no new requests are sent; waiting for those in flight (Ctrl-C again to cancel them).")
	}
	close(in.stop)
	if _, ok := next(); !ok {
		return
	}
	fmt.Fprintln(deps.Stderr, "\nInterrupted again: cancelling the requests in flight (Ctrl-C once more to save at once).")
	cancel()
	if _, ok := next(); !ok {
		return
	}
	fmt.Fprintln(deps.Stderr, "\nInterrupted a third time: saving what was measured and exiting.")
	close(in.abort)
}

// signalName names a stopping signal for the message.
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// env fills the interrupt steps of a run's environment.
func (in *interrupts) env(e run.Env) run.Env {
	e.Stop, e.Abort, e.Quick = in.stop, in.abort, in.quick.Load
	return e
}

func newRootCmd(deps *Deps, intr *interrupts) *cobra.Command {
	root := &cobra.Command{
		Use:   "gobench",
		Short: "Benchmark LLM servers the way vllm bench serve does, with less client overhead",
		Long: `gobench is a Go port of "vllm bench serve": same flags, same workload for the
same seed, same metrics (TTFT, TPOT, ITL, E2EL, throughputs, goodput), same
result block and result JSON, measured with far less client overhead.`,
		Version:       deps.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		// A word that names no command is a usage error (exit status 2),
		// not cobra's legacy "unknown command" text.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return argErrorf("unknown command %q for %q%s", args[0], "gobench", suggestCommand(cmd, args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetOut(deps.Stdout)
	root.SetErr(deps.Stderr)
	root.SetVersionTemplate(buildinfo.Describe(deps.Version) + "\n")
	root.SetFlagErrorFunc(toArgError)
	root.AddCommand(newServeCmd(deps, func(ctx context.Context, o *ServeOptions) error {
		return runServe(ctx, deps, o, intr)
	}))
	root.AddCommand(newSimCmd(deps, func(ctx context.Context, o *SimOptions) error {
		return runSim(ctx, deps, o, intr.stop)
	}))
	root.AddCommand(newCompareCmd(deps, func(o *CompareOptions) error { return runCompare(deps, o) }))
	root.AddCommand(newCheckCmd(deps, func(o *CheckOptions) error { return runCheck(deps, o) }))
	root.AddCommand(newAnalyzeCmd(deps, func(o *AnalyzeOptions) error { return runAnalyze(deps, o) }))
	root.AddCommand(newMergeCmd(deps, func(o *MergeOptions) error { return runMerge(deps, o) }))
	root.AddCommand(newReportCmd(deps, func(o *ReportOptions) error { return runReport(deps, o) }))
	root.AddCommand(newDiagnoseCmd(deps, func(ctx context.Context, o *DiagnoseOptions) error { return runDiagnose(ctx, deps, o, intr.stop) }))
	root.AddCommand(newSweepCmd(deps, intr))
	root.AddCommand(newVersionCmd(deps))
	setUpHelp(root)
	return root
}

// normalizeFor applies argparse.Normalize to the arguments of the
// subcommand they name, and for serve puts the flags of a --config file in
// front of the command line's (argparse.WithConfig).
func normalizeFor(root *cobra.Command, args []string) ([]string, error) {
	return normalizeNoting(root, args, io.Discard)
}

// normalizeNoting is normalizeFor writing the config file's notes
// (argparse.WithConfigNotes) to stderr.
func normalizeNoting(root *cobra.Command, args []string, stderr io.Writer) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	sub, rest, err := root.Find(args)
	if err != nil || sub == root {
		return args, nil
	}
	lists := map[string]int{}
	isServe := sub.CommandPath() == "gobench serve"
	if isServe {
		lists = listFlags
	}
	if isSweepCmd(sub) {
		rest = expandSweepShort(rest)
	}
	if sub.CommandPath() == "gobench merge" {
		rest = argparse.ExpandShort(rest, map[string]string{"-o": "--output"})
	}
	norm, err := argparse.Normalize(rest, sub.Flags(), lists)
	if err == nil && isServe {
		norm, err = argparse.WithConfigNotes(norm, sub.Flags(), lists, freshServeFlags, stderr)
	}
	if err != nil {
		return nil, err
	}
	return append(strings.Fields(sub.CommandPath())[1:], norm...), nil
}

// dropBenchWord lets vLLM's spelling through: `vllm bench serve` and
// `vllm bench sweep serve` become `gobench bench serve ...`, which is
// `gobench serve ...`, with nothing printed about it.
func dropBenchWord(root *cobra.Command, args []string) []string {
	if len(args) < 2 || args[0] != "bench" {
		return args
	}
	if sub, _, err := root.Find(args[1:2]); err == nil && sub != root {
		return args[1:]
	}
	return args
}

func commandName(root *cobra.Command, args []string) string {
	if sub, _, err := root.Find(args); err == nil && sub != root {
		return sub.CommandPath()
	}
	return "gobench"
}

// toArgError rewords pflag's errors as argparse does (argparse.ParseError),
// suggesting the flag of cmd nearest to an unknown one.
func toArgError(cmd *cobra.Command, err error) error { return argparse.ParseError(cmd.Flags(), err) }

// suggestCommand is " (did you mean NAME?)" for the subcommand of cmd
// nearest to the unknown word typed, or "".
func suggestCommand(cmd *cobra.Command, typed string) string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	if near := argparse.Nearest(strings.ToLower(typed), names); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}

// exitCode prints err (if any) and returns the exit status it carries
// (exitcode.Of): every error says its own status where it arises.
func exitCode(err error, stderr io.Writer, name string) int {
	code := exitcode.Of(err)
	var ue *exitcode.UsageError
	switch {
	case err == nil:
	case errors.Is(err, run.ErrTooManyFailed):
		fmt.Fprintf(stderr, "%s: %s\n", name, err)
	case code == exitcode.AllFailed:
		fmt.Fprintf(stderr, "%s: every request failed (see the errors above)\n", name)
	case err == run.ErrInterrupted: //nolint:errorlint // the bare sentinel: the run said so
		// The run said so, and printed and saved what it measured.
	case code == exitcode.Interrupted:
		fmt.Fprintf(stderr, "%s: cancelled\n", name)
	case code == exitcode.ThresholdFailed:
		fmt.Fprintf(stderr, "%s: %s\n", name, err)
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: error: %s\nRun '%s --help' for usage.\n", name, err, name)
	default:
		fmt.Fprintf(stderr, "%s: error: %s\n", name, err)
	}
	return int(code)
}
