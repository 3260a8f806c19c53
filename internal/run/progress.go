package run

import (
	"fmt"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress is vLLM's tqdm bar on stderr (schollz/progressbar, throttled so
// that request goroutines never wait on the terminal), or nothing when
// stderr is not a terminal or --disable-tqdm is given. A nil *progress is
// valid and does nothing.
type progress struct{ bar *progressbar.ProgressBar }

func newProgress(env Env, opts Options, total int, desc string) *progress {
	if !env.Progress || opts.DisableProgress {
		return nil
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(env.Stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionThrottle(65*time.Millisecond),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("req"),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(env.Stderr) }),
	)}
}

// add counts one finished request.
func (p *progress) add() {
	if p != nil {
		_ = p.bar.Add(1)
	}
}

// finish completes the bar (an interrupted run stops it where it is).
func (p *progress) finish() {
	if p != nil {
		_ = p.bar.Exit()
	}
}
