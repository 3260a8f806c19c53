package run

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/texttable"
)

// sayWrapped writes one of the run's announcements on w, wrapped at
// texttable.Width with its later lines indented, so that what comes before
// vLLM's block fits a 100-column terminal as what follows it does.
func sayWrapped(w io.Writer, line string) {
	for _, l := range texttable.Wrap(line, texttable.Width, "", "  ") {
		fmt.Fprintln(w, l)
	}
}

// loadLine states the load the run is about to send, in one line: how
// many requests, how fast, how many at a time, and how many tokens. vLLM's
// defaults (1000 prompts, all at once, no limit) flood a server; nobody
// should learn that from the server's alerts. It replaces vLLM's "Traffic
// request rate / Burstiness factor / Maximum request concurrency" lines,
// which spell an absent limit as Python's None.
func (x *execution) loadLine() string {
	o := &x.Options
	var b strings.Builder
	fmt.Fprintf(&b, "Sending %s %s", plural(len(x.jobs), "request"), x.pace())
	switch {
	case x.fdBound:
		fmt.Fprintf(&b, ", at most %d at a time (the open-file limit, see below)", x.inFlight)
	case o.MaxConcurrency > 0:
		fmt.Fprintf(&b, ", at most %d at a time", o.MaxConcurrency)
	default:
		b.WriteString(", with no limit on how many at a time")
	}
	in, out := 0, 0
	specials := x.serverSpecials()
	for _, j := range x.jobs {
		in += j.req.PromptLen
		if j.req.Prompt != "" && j.req.PromptTokenIDs == nil {
			in += specials
		}
		out += j.req.OutputLen
	}
	if x.Backend.Task == backend.Pooling {
		// A pooling request generates nothing: its output_len is unused.
		fmt.Fprintf(&b, ": %s input tokens", groupThousands(in))
	} else {
		fmt.Fprintf(&b, ": %s input tokens, up to %s output tokens", groupThousands(in), groupThousands(out))
	}
	if n := len(x.Offsets); n > 0 && x.Offsets[n-1] > 0 && !math.IsInf(x.Offsets[n-1], 0) {
		fmt.Fprintf(&b, "; the last is due %s s after the start", plainNumber(math.Round(x.Offsets[n-1]*10)/10))
	}
	return b.String() + "."
}

// serverSpecials is how many special tokens (a BOS) the server adds to a
// completions text prompt: the dataset's prompt_len leaves them out, as
// vLLM's does, but the server's usage, which vLLM's block sums, counts
// them, and the line should announce the block's figure.
func (x *execution) serverSpecials() int {
	if _, ok := x.Backend.Impl.(backend.Completions); !ok || x.Tokenizer == nil {
		return 0
	}
	return x.Tokenizer.NumSpecialTokensToAdd()
}

// pace says how the requests arrive: all at once, at a rate with its
// distribution, or on a ramp.
func (x *execution) pace() string {
	p := x.Options.Schedule
	if dataset.SelfTimed(x.Options.Dataset) {
		return "at the trace's timestamps (--self-timed)"
	}
	if ru := p.RampUp; ru != nil {
		return fmt.Sprintf("on a %s ramp from %s to %s req/s", ru.Strategy, plainNumber(ru.StartRPS), plainNumber(ru.EndRPS))
	}
	if math.IsInf(p.RequestRate, 1) {
		return "all at once (--request-rate inf)"
	}
	arrivals := "Poisson arrivals"
	if p.Burstiness != 1 {
		arrivals = "gamma arrivals, burstiness " + plainNumber(p.Burstiness)
	}
	return fmt.Sprintf("at %s req/s (%s)", plainNumber(p.RequestRate), arrivals)
}

// plainNumber writes x in the fewest digits that give it back (10, 0.5),
// not Python's 10.0.
func plainNumber(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// plural is "1 request" or "n requests".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// groupThousands writes n with comma thousands separators (1,024,000):
// token totals run to millions.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + groupThousands(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
