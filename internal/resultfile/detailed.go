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
// queue_times, generated_texts and the server's lists (server_ttfts,
// server_queue_times, server_prompt_times, server_decode_times) are used
// when present. Every list must have one entry per request.
func (r *Run) Detailed() (*Detailed, error) {
	if !r.Has(resultkey.TTFTs) || !r.Has(resultkey.ITLs) {
		return nil, fmt.Errorf("%s: %w", r.Name(), ErrNotDetailed)
	}
	var l lists
	n, err := l.decode(r)
	if err != nil {
		return nil, err
	}
	d := &Detailed{
		Outputs:      make([]metrics.Output, n),
		HasLatencies: l.latencies != nil, HasStartTimes: l.starts != nil, HasQueueTimes: l.queues != nil,
	}
	for i := range d.Outputs {
		l.fill(&d.Outputs[i], i)
	}
	return d, nil
}

// lists are a detailed result's per-request lists, nil when absent.
type lists struct {
	ttfts, latencies, starts, queues []number
	itls                             [][]number
	outLens, inLens                  []int
	errs, texts                      []string
	serverTTFTs, serverQueues        []*number
	serverPrompts, serverDecodes     []*number
}

// decode reads the lists of r and returns their common length.
func (l *lists) decode(r *Run) (int, error) {
	all := []struct {
		key      string
		dst      any
		required bool
	}{
		{resultkey.TTFTs, &l.ttfts, true}, {resultkey.ITLs, &l.itls, true}, {resultkey.OutputLens, &l.outLens, true}, {resultkey.Errors, &l.errs, true},
		{resultkey.InputLens, &l.inLens, false}, {resultkey.Latencies, &l.latencies, false}, {resultkey.StartTimes, &l.starts, false},
		{resultkey.QueueTimes, &l.queues, false}, {resultkey.GeneratedTexts, &l.texts, false},
		{resultkey.ServerTTFTs, &l.serverTTFTs, false}, {resultkey.ServerQueueTimes, &l.serverQueues, false},
		{resultkey.ServerPromptTimes, &l.serverPrompts, false}, {resultkey.ServerDecodeTimes, &l.serverDecodes, false},
	}
	n := -1
	for _, li := range all {
		raw, ok := r.Raw(li.key)
		if !ok || string(raw) == "null" {
			if li.required {
				return 0, fmt.Errorf("%s: per-request list %q is missing", r.Name(), li.key)
			}
			continue
		}
		if err := json.Unmarshal(raw, li.dst); err != nil {
			return 0, fmt.Errorf("%s: per-request list %q: %w", r.Name(), li.key, err)
		}
		m := listLen(li.dst)
		if n < 0 {
			n = m
		} else if m != n {
			return 0, fmt.Errorf("%s: per-request list %q has %d entries, %q has %d", r.Name(), li.key, m, resultkey.TTFTs, n)
		}
	}
	return n, nil
}

// fill rebuilds request i's record from the lists.
func (l *lists) fill(o *metrics.Output, i int) {
	o.Error = l.errs[i]
	o.TTFT = float64(l.ttfts[i])
	// A request succeeded when it has no error text. vLLM keeps only
	// the HTTP reason phrase as the error, which may be empty, so a
	// request without error that never received a token (TTFT 0, no
	// output) failed too; a real success always has a first token.
	o.Success = l.errs[i] == "" && (o.TTFT != 0 || l.outLens[i] != 0 || len(l.itls[i]) > 0)
	o.ITL = make([]float64, len(l.itls[i]))
	for k, x := range l.itls[i] {
		o.ITL[k] = float64(x)
	}
	if o.Success {
		o.OutputTokens = l.outLens[i]
	}
	if l.inLens != nil {
		o.PromptLen = l.inLens[i]
	}
	if l.latencies != nil {
		o.Latency = float64(l.latencies[i])
	} else {
		// vLLM's latency is the last token's time minus the start, which
		// equals TTFT plus the ITLs up to rounding.
		o.Latency = o.TTFT
		for _, x := range o.ITL {
			o.Latency += x
		}
	}
	if l.starts != nil {
		o.StartTime = float64(l.starts[i])
	}
	if l.queues != nil {
		o.ClientQueueTime = float64(l.queues[i])
	}
	if l.texts != nil {
		o.GeneratedText = l.texts[i]
	}
	o.ServerTTFT, o.ServerQueueTime = entry(l.serverTTFTs, i), entry(l.serverQueues, i)
	o.ServerPromptTime, o.ServerDecodeTime = entry(l.serverPrompts, i), entry(l.serverDecodes, i)
}

// entry is finite(list[i]), nil for an absent list.
func entry(list []*number, i int) *float64 {
	if list == nil {
		return nil
	}
	return finite(list[i])
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
