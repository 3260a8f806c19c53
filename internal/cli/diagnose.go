package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/redact"
	"github.com/gobench/gobench/internal/serverapi"
	"github.com/spf13/cobra"
)

// DiagnoseOptions is what `gobench diagnose` runs.
type DiagnoseOptions struct {
	// BaseURL is the server's root; its page is BaseURL + /metrics.
	BaseURL string
	// MetricsURLs are full /metrics URLs (API-server processes or
	// replicas, summed); they replace BaseURL.
	MetricsURLs []string
	// Window is the time between the two scrapes; WindowSet says it was
	// given (with two --metrics-file it is the files' window).
	Window    time.Duration
	WindowSet bool
	// Interval is how often the gauges are sampled in the window, Timeout
	// the bound of each scrape.
	Interval, Timeout time.Duration
	// Files are the --metrics-file values: one or two scrapes, each a
	// list of files (one per source).
	Files [][]string
	// SaveScrapes is the directory the raw pages are saved in ("": none).
	SaveScrapes string
	// Format is text, markdown or json.
	Format string
	// Headers are sent with every scrape (--header KEY=VALUE).
	Headers []backend.Header
	// APIKey is OPENAI_API_KEY, sent as a bearer token as gobench serve
	// sends it; never printed.
	APIKey string
	// Diagnose holds the model, --max-num-seqs and the thresholds.
	Diagnose diagnose.Options
}

const diagnoseLong = `Read an inference server's own account of itself — its Prometheus /metrics — over
a window, and say where the time goes and why.

Live: the server is scraped (every --metrics-url, summed; else --base-url +
/metrics), the state gauges are sampled every --interval while --window
passes (progress on stderr; Ctrl-C ends the window early), and it is scraped
again. Saved pages: --metrics-file FILE alone reads one scrape, whose
figures are totals since the server started (said so in the output);
--metrics-file A --metrics-file B reads the window between two. Several
sources in one scrape are files separated by commas. The window's length is
--window, else the times --save-scrapes wrote in the files; without either
the output gives counts instead of rates.

The output has the quantiles (p50/p90/p95/p99, Prometheus' histogram_quantile,
with the bucket the p99 lies in: a quantile in a wide bucket is an estimate)
of every latency and request-shape histogram, the ratios that matter, the
state gauges, then five questions asked in order — queue, why waiting,
thrashing, prefill, streaming — each with its evidence, thresholds (the
flags below), conclusion and advice, and a verdict: healthy, unknown (no
question could be asked or answered; verdict_reason says why), queue/seq-limit,
queue/memory-thrashing, queue/memory-full, queue/head-of-line,
prefill/prefix-cache, prefill/frontend, stream/prefill-interference or
stream/batch-or-cpu. A script reads it with
  gobench diagnose --format json | jq -r .verdict

vLLM's V1 and V0 metric names are both read; llama.cpp's llamacpp:*,
SGLang's sglang:* and TGI's tgi_* are read too (docs/server-view.md); a
server serving several models needs --model.

Environment: OPENAI_API_KEY (sent as a bearer token, never printed).

Exit status: 0 whatever the verdict, 1 server unreachable, 2 bad command
line or unreadable metrics file (the error names the flag, file and line).`

const diagnoseExample = `  gobench diagnose --base-url http://127.0.0.1:8000
  gobench diagnose --metrics-url http://10.0.0.1:8000/metrics --metrics-url http://10.0.0.2:8000/metrics --window 2m
  gobench diagnose --window 30s --save-scrapes scrapes/ --max-num-seqs 256
  gobench diagnose --metrics-file scrapes/start-1.prom --metrics-file scrapes/end-1.prom --format markdown
  gobench diagnose --metrics-file metrics.txt --format json | jq -r .verdict`

// defaultDiagnoseBase is scraped when no source is given: vLLM's default
// host and port, as gobench serve's.
const defaultDiagnoseBase = "http://127.0.0.1:8000"

func newDiagnoseCmd(deps *Deps, runF func(context.Context, *DiagnoseOptions) error) *cobra.Command {
	o := &DiagnoseOptions{Window: diagnose.DefaultWindow, Interval: diagnose.DefaultInterval,
		Timeout: diagnose.DefaultScrapeTimeout, Diagnose: diagnose.DefaultOptions()}
	var urls, files, headers argparse.Strings
	format := formatFlag("text", "markdown", "json")
	window := argparse.BindDuration("window", &o.Window)
	cmd := &cobra.Command{
		Use:     "diagnose [flags]",
		Short:   "Read the server's /metrics over a window: quantiles, ratios, gauges, and why it is slow",
		Long:    diagnoseLong,
		Example: diagnoseExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return argErrorf("unrecognized arguments: %s (each --header takes one KEY=VALUE)", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.MetricsURLs, o.Format, o.WindowSet = urls.Value(), format.Value(), window.Given()
			o.APIKey = deps.Getenv("OPENAI_API_KEY")
			if err := o.fill(files.Value(), headers.Value()); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&o.BaseURL, "base-url", "", "Server root; its page is BASE/metrics (default "+defaultDiagnoseBase+" when no --metrics-url or --metrics-file is given).")
	fs.Var(&urls, "metrics-url", "Full URL of a /metrics page; repeat for several API-server processes or replicas (summed).")
	fs.Var(window, "window", "Time between the two scrapes: a duration (90s, 2m) or seconds.")
	fs.Var(argparse.BindDuration("interval", &o.Interval), "interval", "How often the state gauges are sampled inside the window (one GET /metrics each).")
	fs.Var(argparse.BindDuration("scrape-timeout", &o.Timeout), "scrape-timeout", "Bound of each scrape.")
	fs.Var(&files, "metrics-file", "A saved /metrics page (FILE[,FILE...] for several sources): once for totals since start, twice for the window between.")
	fs.StringVar(&o.SaveScrapes, "save-scrapes", "", "Directory to save the raw pages of both scrapes in (start-N.prom, end-N.prom), with their times.")
	fs.StringVar(&o.Diagnose.Model, "model", "", "The model_name to read, when the server serves several.")
	fs.Var(format, "format", "Output: text, markdown or json (the schema is in docs/server-view.md).")
	fs.Var(&headers, "header", "Extra HTTP header KEY=VALUE sent with every scrape; repeat for several.")
	fs.Var(argparse.BindInt("max-num-seqs", &o.Diagnose.MaxNumSeqs), "max-num-seqs", "The server's --max-num-seqs (per engine), which vLLM does not publish; question 2 compares the running requests with it.")
	for _, k := range diagnose.Knobs() {
		fs.Var(argparse.BindFloat(k.Flag, k.Field(&o.Diagnose.Thresholds)), k.Flag, k.Help)
	}
	return cmd
}

// fill checks the combination of flags and converts the lists.
func (o *DiagnoseOptions) fill(files, headers []string) error {
	if err := o.Diagnose.Thresholds.Validate(); err != nil {
		return argErrorf("argument %v", err)
	}
	if o.Diagnose.MaxNumSeqs < 0 {
		return argErrorf("argument --max-num-seqs: must be >= 0")
	}
	live := o.BaseURL != "" || len(o.MetricsURLs) > 0
	switch {
	case len(files) > 2:
		return argErrorf("argument --metrics-file: at most twice (the two ends of a window), got %d", len(files))
	case len(files) > 0 && live:
		return argErrorf("argument --metrics-file: not with --base-url or --metrics-url (saved pages or a live server, not both)")
	case len(files) > 0 && o.SaveScrapes != "":
		return argErrorf("argument --save-scrapes: saves live scrapes; the --metrics-file pages are already saved")
	case len(files) == 1 && o.WindowSet:
		return argErrorf("argument --window: one --metrics-file is totals since start; a window needs two")
	case o.BaseURL != "" && len(o.MetricsURLs) > 0:
		return argErrorf("argument --metrics-url: not with --base-url (the URLs name the pages)")
	}
	for _, f := range files {
		o.Files = append(o.Files, strings.Split(f, ","))
	}
	if len(o.Files) == 2 && len(o.Files[0]) != len(o.Files[1]) {
		return argErrorf("argument --metrics-file: %d files at the start but %d at the end (one per source at both)", len(o.Files[0]), len(o.Files[1]))
	}
	hs, err := parseHeaders(headers)
	if err != nil {
		return err
	}
	for _, h := range hs {
		if err := h.Check(); err != nil {
			return argErrorf("argument --header: %v", err)
		}
	}
	o.Headers = hs
	return nil
}

// runDiagnose reads the scrapes (saved or live), diagnoses and prints.
func runDiagnose(ctx context.Context, deps *Deps, o *DiagnoseOptions, stop <-chan struct{}) error {
	var in diagnose.Input
	var err error
	if len(o.Files) > 0 {
		in, err = readMetricsFiles(o)
	} else {
		in, err = collectLive(ctx, deps, o, stop)
	}
	if err != nil {
		return err
	}
	rep, err := diagnose.FromScrapes(in, o.Diagnose)
	if err != nil {
		return diagnoseError(err, len(o.Files) > 0)
	}
	return rep.Render(deps.Stdout, o.Format)
}

// diagnoseError gives a diagnosis error its exit status: a page that does
// not parse is bad input when it is a file (2, naming --metrics-file) and
// a server fault when scraped live (1); a model the pages lack is a
// command-line error (2).
func diagnoseError(err error, files bool) error {
	var pe *diagnose.ParseError
	var me *diagnose.ModelError
	switch {
	case errors.As(err, &pe) && files:
		return argErrorf("argument --metrics-file: %v", pe)
	case errors.As(err, &pe):
		return fmt.Errorf("the server's /metrics page: %w", pe)
	case errors.As(err, &me):
		return argErrorf("argument --model: %v", me)
	}
	return err
}

// readMetricsFiles reads the --metrics-file pages: one scrape (totals
// since start) or two (a window, whose length is --window or the times
// --save-scrapes wrote in them).
func readMetricsFiles(o *DiagnoseOptions) (diagnose.Input, error) {
	in := diagnose.Input{Sources: o.Files[len(o.Files)-1]}
	var times [2]time.Time
	for i, scrape := range o.Files {
		pages := make([][]byte, len(scrape))
		for j, path := range scrape {
			data, err := readMetricsFile(path)
			if err != nil {
				return in, err
			}
			var at time.Time
			pages[j], at, _ = diagnose.ReadSaved(data)
			if j == 0 {
				times[i] = at
			}
		}
		if i == len(o.Files)-1 {
			in.End = pages
		} else {
			in.Start = pages
		}
	}
	switch {
	case len(o.Files) == 1:
	case o.WindowSet:
		in.Seconds = o.Window.Seconds()
	default:
		in.Seconds = diagnose.WindowBetween(times[0], times[1])
	}
	return in, nil
}

// collectLive scrapes the sources over the window, saving the pages when
// asked.
func collectLive(ctx context.Context, deps *Deps, o *DiagnoseOptions, stop <-chan struct{}) (diagnose.Input, error) {
	sources, err := o.sources(deps)
	if err != nil {
		return diagnose.Input{}, err
	}
	if o.SaveScrapes != "" {
		if err := checkSaveDir(o.SaveScrapes); err != nil {
			return diagnose.Input{}, err
		}
	}
	c := &diagnose.Collector{Sources: sources, Window: o.Window, Interval: o.Interval, Timeout: o.Timeout,
		Model: o.Diagnose.Model, Now: deps.Now, Progress: deps.Stderr, Stop: stop}
	col, err := c.Collect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return diagnose.Input{}, exitcode.With(ctx.Err(), exitcode.Interrupted)
		}
		return diagnose.Input{}, err
	}
	if o.SaveScrapes != "" {
		if err := saveScrapes(o.SaveScrapes, col, deps.Stderr); err != nil {
			return diagnose.Input{}, err
		}
	}
	return col.Input, nil
}

// sources are the pages to scrape: each --metrics-url, else --base-url's
// /metrics. A URL's credentials (http://user:pass@host) become an HTTP
// Basic header, so that no URL printed or saved holds a password.
func (o *DiagnoseOptions) sources(deps *Deps) ([]diagnose.Source, error) {
	type target struct{ flag, base string }
	var targets []target
	for _, u := range o.MetricsURLs {
		base, ok := strings.CutSuffix(strings.TrimSuffix(u, "/"), "/metrics")
		if !ok {
			return nil, argErrorf("argument --metrics-url: %q does not end in /metrics", redact.URL(u))
		}
		targets = append(targets, target{"--metrics-url", base})
	}
	if len(targets) == 0 {
		base := o.BaseURL
		if base == "" {
			base = defaultDiagnoseBase
		}
		targets = append(targets, target{"--base-url", strings.TrimSuffix(base, "/")})
	}
	hc := &http.Client{Transport: transport(deps)}
	var out []diagnose.Source
	for _, t := range targets {
		clean, auth, err := splitCredentials(t.base)
		if err != nil {
			return nil, argErrorf("argument %s: %v", t.flag, err)
		}
		headers := o.Headers
		if auth != nil {
			headers = append([]backend.Header{*auth}, headers...)
		}
		bc := &backend.Client{APIKey: o.APIKey}
		api := &serverapi.Client{HTTP: hc, BaseURL: clean, Header: bc.Headers(headers, ""), MetricsTimeout: o.Timeout}
		out = append(out, diagnose.Source{Name: api.URL("/metrics"), Scrape: api.Metrics})
	}
	return out, nil
}

// transport is the injected HTTP transport (tests), else gobench's.
func transport(deps *Deps) http.RoundTripper {
	if deps.Transport != nil {
		return deps.Transport(4, false)
	}
	return http.DefaultTransport
}

// splitCredentials takes the user:password out of a URL and returns it as
// a Basic Authorization header.
func splitCredentials(raw string) (string, *backend.Header, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", nil, fmt.Errorf("%q is not an http(s) URL", redact.URL(raw))
	}
	if u.User == nil {
		return raw, nil, nil
	}
	pw, _ := u.User.Password()
	basic := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pw))
	u.User = nil
	return u.String(), &backend.Header{Key: "Authorization", Value: "Basic " + basic}, nil
}
