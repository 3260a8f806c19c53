package resultfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultkey"
)

// ErrNotDetailed is returned by Run.Detailed for a result saved without
// --save-detailed (no per-request lists).
var ErrNotDetailed = errors.New("the result has no per-request data (save it with --save-detailed)")

// Detailed is the per-request data of a --save-detailed result, rebuilt as
// the records metrics.Calculate takes, in request order.
type Detailed struct {
	// Outputs holds one record per request sent. Success is errors[i] == ""
	// (unless the request has no token at all: see Run.Detailed);
	// OutputTokens is output_lens[i] (the lengths the run used, after any
	// tokenizer fallback); Latency is latencies[i], or TTFT plus the sum of
	// the ITLs when the file has no latencies (vLLM's files before the key
	// was added).
	Outputs []metrics.Output
	// HasLatencies, HasStartTimes and HasQueueTimes tell which optional
	// lists the file had. Without start_times the peak concurrency and peak
	// output throughput cannot be recomputed; without queue_times neither
	// can the client queue statistics.
	HasLatencies, HasStartTimes, HasQueueTimes bool
}

// Detailed rebuilds the per-request records of the run. It needs ttfts,
// itls, output_lens and errors; input_lens, latencies, start_times,
// queue_times, generated_texts, server_ttfts and server_queue_times are
// used when present. Every list must have one entry per request.
func (r *Run) Detailed() (*Detailed, error) {
	if !r.Has(resultkey.TTFTs) || !r.Has(resultkey.ITLs) {
		return nil, fmt.Errorf("%s: %w", r.Name(), ErrNotDetailed)
	}
	var (
		ttfts, latencies, starts, queues []number
		itls                             [][]number
		outLens, inLens                  []int
		errs, texts                      []string
		serverTTFTs, serverQueues        []*number
	)
	lists := []struct {
		key      string
		dst      any
		required bool
	}{
		{resultkey.TTFTs, &ttfts, true}, {resultkey.ITLs, &itls, true}, {resultkey.OutputLens, &outLens, true}, {resultkey.Errors, &errs, true},
		{resultkey.InputLens, &inLens, false}, {resultkey.Latencies, &latencies, false}, {resultkey.StartTimes, &starts, false},
		{resultkey.QueueTimes, &queues, false}, {resultkey.GeneratedTexts, &texts, false},
		{resultkey.ServerTTFTs, &serverTTFTs, false}, {resultkey.ServerQueueTimes, &serverQueues, false},
	}
	n := -1
	for _, l := range lists {
		raw, ok := r.Raw(l.key)
		if !ok || string(raw) == "null" {
			if l.required {
				return nil, fmt.Errorf("%s: per-request list %q is missing", r.Name(), l.key)
			}
			continue
		}
		if err := json.Unmarshal(raw, l.dst); err != nil {
			return nil, fmt.Errorf("%s: per-request list %q: %w", r.Name(), l.key, err)
		}
		m := listLen(l.dst)
		if n < 0 {
			n = m
		} else if m != n {
			return nil, fmt.Errorf("%s: per-request list %q has %d entries, %q has %d", r.Name(), l.key, m, resultkey.TTFTs, n)
		}
	}
	d := &Detailed{
		Outputs:      make([]metrics.Output, n),
		HasLatencies: latencies != nil, HasStartTimes: starts != nil, HasQueueTimes: queues != nil,
	}
	for i := range d.Outputs {
		o := &d.Outputs[i]
		o.Error = errs[i]
		o.TTFT = float64(ttfts[i])
		// A request succeeded when it has no error text. vLLM keeps only
		// the HTTP reason phrase as the error, which may be empty, so a
		// request without error that never received a token (TTFT 0, no
		// output) failed too; a real success always has a first token.
		o.Success = errs[i] == "" && (o.TTFT != 0 || outLens[i] != 0 || len(itls[i]) > 0)
		o.ITL = make([]float64, len(itls[i]))
		for k, x := range itls[i] {
			o.ITL[k] = float64(x)
		}
		if o.Success {
			o.OutputTokens = outLens[i]
		}
		if inLens != nil {
			o.PromptLen = inLens[i]
		}
		if latencies != nil {
			o.Latency = float64(latencies[i])
		} else {
			// vLLM's latency is the last token's time minus the start, which
			// equals TTFT plus the ITLs up to rounding.
			o.Latency = o.TTFT
			for _, x := range o.ITL {
				o.Latency += x
			}
		}
		if starts != nil {
			o.StartTime = float64(starts[i])
		}
		if queues != nil {
			o.ClientQueueTime = float64(queues[i])
		}
		if texts != nil {
			o.GeneratedText = texts[i]
		}
		if serverTTFTs != nil {
			o.ServerTTFT = finite(serverTTFTs[i])
		}
		if serverQueues != nil {
			o.ServerQueueTime = finite(serverQueues[i])
		}
	}
	return d, nil
}

// listLen is the length of one of the decoded lists above.
func listLen(dst any) int {
	switch l := dst.(type) {
	case *[]number:
		return len(*l)
	case *[][]number:
		return len(*l)
	case *[]int:
		return len(*l)
	case *[]string:
		return len(*l)
	case *[]*number:
		return len(*l)
	}
	panic(fmt.Sprintf("resultfile: unexpected list type %T", dst))
}

// finite turns a nullable list entry into the *float64 metrics.Output
// keeps (nil for null).
func finite(n *number) *float64 {
	if n == nil || math.IsNaN(float64(*n)) {
		return nil
	}
	v := float64(*n)
	return &v
}
