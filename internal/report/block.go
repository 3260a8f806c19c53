package report

import (
	"io"

	"github.com/gobench/gobench/internal/metrics"
)

// Block prints what follows a run, in vLLM's order: the warnings and the
// failed requests' errors (Failures) on warn, then the result, which draw
// prints (Text for vLLM's block, or another rendering the caller chose).
// vLLM prints the errors on its standard output; gobench keeps that for
// the result alone, so that `> result.txt` and `| jq` get nothing else.
// `gobench serve` and `gobench analyze` both print a run this way.
func Block(warn io.Writer, r *metrics.Result, draw func() error) error {
	if err := Warnings(warn, r); err != nil {
		return err
	}
	if err := Failures(warn, r); err != nil {
		return err
	}
	return draw()
}
