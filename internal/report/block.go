package report

import (
	"io"

	"github.com/gobench/gobench/internal/metrics"
)

// Block prints what follows a run, in vLLM's order: the warnings on warn,
// the failed requests' errors on out (Failures), then the result block,
// which draw prints (Text for vLLM's block, or another rendering the
// caller chose). `gobench serve` and `gobench analyze` both print a run
// this way.
func Block(out, warn io.Writer, r *metrics.Result, draw func() error) error {
	if err := Warnings(warn, r); err != nil {
		return err
	}
	if err := Failures(out, r); err != nil {
		return err
	}
	return draw()
}
