package diagnose

import (
	"fmt"
	"slices"
	"strings"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// Input is a window as raw /metrics pages: one per source at each end.
type Input struct {
	// Sources name the sources (URLs or files), in the order of the
	// scrapes, for messages and the report.
	Sources []string
	// Start holds the pages at the window's start; nil for one scrape
	// (totals since the server started).
	Start [][]byte
	// End holds the pages at the window's end.
	End [][]byte
	// Seconds is the window's length; 0 when not known.
	Seconds float64
	// States are state gauges sampled inside the window (optional: the
	// two ends are read from Start and End).
	States []State
	// Notes are added to the report's (a window cut short, ...).
	Notes []string
}

// ParseError is a page that did not parse: which source, at which end of
// the window, and expfmt's error (which names the line).
type ParseError struct {
	Source string
	// End says which scrape: "start" or "end" of the window, "" for one.
	End string
	Err error
}

// Error names the source, the end of the window and the parser's error.
func (e *ParseError) Error() string {
	if e.End == "" {
		return fmt.Sprintf("%s: %v", e.Source, e.Err)
	}
	return fmt.Sprintf("%s (%s of the window): %v", e.Source, e.End, e.Err)
}

// Unwrap returns the parser's error.
func (e *ParseError) Unwrap() error { return e.Err }

// ModelError is a model choice the scrapes cannot satisfy: several models
// and none chosen, or the chosen one absent.
type ModelError struct {
	// Want is the model asked for ("" for none).
	Want string
	// Served are the model_name values the scrapes have.
	Served []string
}

// Error says which models there are and what to do.
func (e *ModelError) Error() string {
	if e.Want == "" {
		return fmt.Sprintf("the server serves several models (%s): choose one with --model", strings.Join(e.Served, ", "))
	}
	if len(e.Served) == 0 {
		return fmt.Sprintf("model %q: the metrics carry no model_name label at all", e.Want)
	}
	return fmt.Sprintf("model %q is not served (the metrics have: %s)", e.Want, strings.Join(e.Served, ", "))
}

// FromScrapes parses a window's pages, narrows them to the model and
// diagnoses. It is what gobench serve calls with the scrapes it took
// around its run. Errors are *ParseError, *ModelError, or an invalid
// threshold.
func FromScrapes(in Input, o Options) (*Report, error) {
	if err := o.Thresholds.Validate(); err != nil {
		return nil, err
	}
	end, err := parseAll(in.Sources, in.End, endName(in.Start != nil, "end"))
	if err != nil {
		return nil, err
	}
	var start []*sm.Scrape
	if in.Start != nil {
		if start, err = parseAll(in.Sources, in.Start, "start"); err != nil {
			return nil, err
		}
	}
	model, err := ResolveModel(end, o.Model)
	if err != nil {
		return nil, err
	}
	end, start = narrow(end, model), narrow(start, model)
	w, err := sm.NewWindow(start, end, in.Sources, in.Seconds)
	if err != nil {
		return nil, err
	}
	o.Model = model
	r := Diagnose(w, in.States, o)
	r.Sources = in.Sources
	r.Notes = append(r.Notes, in.Notes...)
	return r, nil
}

func endName(window bool, name string) string {
	if window {
		return name
	}
	return ""
}

// parseAll parses one page per source.
func parseAll(names []string, pages [][]byte, end string) ([]*sm.Scrape, error) {
	out := make([]*sm.Scrape, len(pages))
	for i, p := range pages {
		s, err := sm.Parse(p)
		if err != nil {
			return nil, &ParseError{Source: sourceName(names, i), End: end, Err: err}
		}
		out[i] = s
	}
	return out, nil
}

func sourceName(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("source %d", i+1)
}

// ResolveModel picks the model the figures are of: want when the scrapes
// serve it, the only model when want is "", "" when no series carries a
// model_name.
func ResolveModel(scrapes []*sm.Scrape, want string) (string, error) {
	var served []string
	for _, s := range scrapes {
		for _, m := range s.Models() {
			if !slices.Contains(served, m) {
				served = append(served, m)
			}
		}
	}
	slices.Sort(served)
	switch {
	case want != "" && slices.Contains(served, want):
		return want, nil
	case want != "":
		return "", &ModelError{Want: want, Served: served}
	case len(served) > 1:
		return "", &ModelError{Served: served}
	case len(served) == 1:
		return served[0], nil
	}
	return "", nil
}

// narrow keeps each scrape's series of model ("" keeps all).
func narrow(scrapes []*sm.Scrape, model string) []*sm.Scrape {
	if model == "" || scrapes == nil {
		return scrapes
	}
	out := make([]*sm.Scrape, len(scrapes))
	for i, s := range scrapes {
		out[i] = s.ForModel(model)
	}
	return out
}
