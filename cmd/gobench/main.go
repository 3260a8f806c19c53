// Command gobench benchmarks OpenAI-compatible LLM servers the way
// "vllm bench serve" does. See the README and `gobench serve --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/gobench/gobench/internal/buildinfo"
	"github.com/gobench/gobench/internal/cli"
	"golang.org/x/term"
)

// version is set at build time with -ldflags "-X main.version=..." (make
// build); buildinfo falls back to what Go embeds when it is not.
var version = "dev"

func main() {
	servePprof(os.Getenv(pprofEnv), os.Stderr)
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	os.Exit(cli.Main(context.Background(), os.Args[1:], cli.Deps{
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Getenv:     os.Getenv,
		Signals:    sigs,
		IsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		Version:    buildinfo.Version(version),
	}))
}
