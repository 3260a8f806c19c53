package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// Options bound and shape one Check. The zero value is usable.
type Options struct {
	// Timeout bounds the whole check: start, load, drawing, hovers and the
	// screenshot (default 2 min: Chromium starts in a second on an idle
	// machine, but has taken tens of seconds on a loaded one).
	Timeout time.Duration
	// ReadyTimeout, when set, bounds only the wait for body.dataset.ready
	// once the page has loaded, so that a check of a page that never gets
	// ready fails for that, however long the browser took to start.
	ReadyTimeout time.Duration
	// Width and Height are the window's size in CSS pixels (default
	// 1280x900).
	Width, Height int
	// Screenshot asks for a PNG of the window (Width x Height) scrolled to
	// the top of the page, after the hovers, in Result.Screenshot.
	Screenshot bool
	// ScrollTo, when set, is the CSS selector of the element the
	// screenshot's window starts at (a chart further down the page)
	// instead of the top.
	ScrollTo string
	// NoCharts accepts a page without any chart (a report of a result
	// saved without per-request data has only its cards and tables).
	NoCharts bool
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Minute
	}
	if o.Width <= 0 {
		o.Width = 1280
	}
	if o.Height <= 0 {
		o.Height = 900
	}
	return o
}

// Chart is what the page says about one chart and what the browser saw of
// it.
type Chart struct {
	// ID, Series and Points are the figure's id, data-series and
	// data-points (checked equal to window.gobenchCharts' entry).
	ID             string
	Series, Points int
	// Caption is the figcaption's text.
	Caption string
	// Marks counts what the chart drew: non-transparent canvas pixels plus
	// SVG shapes inside the figure.
	Marks int
	// Tooltip is the .gb-tooltip's text after the mouse hovered the plot.
	Tooltip string
}

// Result is what one Check saw. Every field is filled as far as the check
// got, also when it returns an error.
type Result struct {
	// Charts are the page's charts in document order.
	Charts []Chart
	// LoadTime runs from the navigation's start to body.dataset.ready.
	LoadTime time.Duration
	// Requests lists every URL the page asked for, the file itself first.
	Requests []string
	// Console lists console errors, uncaught exceptions and error log
	// entries.
	Console []string
	// Text is the page's visible text (body.innerText) once ready: tests
	// find the result block's numbers in it.
	Text string
	// Cards are the page's .gb-card elements, measured at the top of the
	// page once it is ready.
	Cards []Card
	// IdleLegend are the texts of the legend values (uPlot's .u-legend
	// .u-value) visible before the mouse enters any chart: a legend that
	// shows values only on hover leaves it empty.
	IdleLegend []string
	// Screenshot is a PNG of the top of the page when Options.Screenshot
	// is set.
	Screenshot []byte
	// Profile is the browser's user-data folder, removed when Check
	// returns; ProfileUsers(Profile) must then be empty.
	Profile string
}

// Check opens the HTML file at path in a headless browser (the binary
// browser, see Find) and checks it as a reader would meet it: the page
// becomes ready within the timeout, requests nothing but the file itself
// (any other request is blocked and reported), logs no console error and
// throws no exception, sets no body.dataset.error, has at least one chart,
// and every chart drew something, announces at least one series and point
// (its figure's attributes agreeing with window.gobenchCharts) and shows a
// non-empty .gb-tooltip when the mouse moves over its plot. The error joins
// every problem found. The browser and all its processes are gone when
// Check returns.
func Check(ctx context.Context, browser, path string, o Options) (*Result, error) {
	o = o.withDefaults()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("browsertest: %w", err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("browsertest: %w", err) // Chromium would show an error page and never be ready
	}
	fileURL := (&url.URL{Scheme: "file", Path: abs}).String()
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	tab, profile, stop, err := launch(ctx, browser, o)
	if err != nil {
		return nil, fmt.Errorf("browsertest: %w", err)
	}
	defer stop()
	res := &Result{Profile: profile}
	w, err := watch(tab, fileURL)
	if err != nil {
		return res, fmt.Errorf("browsertest: %w", err)
	}
	problems := visit(tab, fileURL, o, res)
	res.Requests, res.Console = w.requests(), w.console()
	for _, r := range res.Requests {
		if !allowedURL(r, fileURL) {
			problems = append(problems, fmt.Errorf("the page requested %s", r))
		}
	}
	for _, c := range res.Console {
		problems = append(problems, fmt.Errorf("console: %s", c))
	}
	if err := errors.Join(problems...); err != nil {
		return res, fmt.Errorf("browsertest: %s: %w", path, err)
	}
	return res, nil
}

// visit loads the page, waits until it is ready and checks its charts; it
// returns the problems it found.
func visit(tab context.Context, fileURL string, o Options, res *Result) []error {
	start := time.Now()
	if err := chromedp.Do(tab, chromedp.Navigate(fileURL)); err != nil {
		return []error{fmt.Errorf("navigate: %w", err)}
	}
	if err := waitReady(tab, o.ReadyTimeout); err != nil {
		return []error{err}
	}
	res.LoadTime = time.Since(start)
	text, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		return []error{fmt.Errorf("reading the page's text: %w", err)}
	}
	res.Text = text
	cards, err := chromedp.Run(tab, chromedp.Evaluate[[]Card](cardsJS))
	if err != nil {
		return []error{fmt.Errorf("reading the cards: %w", err)}
	}
	res.Cards = cards
	idle, err := chromedp.Run(tab, chromedp.Evaluate[[]string](idleLegendJS))
	if err != nil {
		return []error{fmt.Errorf("reading the legends: %w", err)}
	}
	res.IdleLegend = idle
	charts, problems := readCharts(tab, o.NoCharts)
	for i := range charts {
		tip, err := hover(tab, charts[i].ID)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: hover: %w", charts[i].ID, err))
		}
		charts[i].Tooltip = tip
	}
	res.Charts = charts
	if o.Screenshot {
		png, err := chromedp.Run(tab, topScreenshot(o.ScrollTo))
		if err != nil {
			problems = append(problems, fmt.Errorf("screenshot: %w", err))
		}
		res.Screenshot = png
	}
	return problems
}

// waitReady polls body.dataset until the page says ready or error, for at
// most bound when it is set; the check's context bounds it too.
func waitReady(tab context.Context, bound time.Duration) error {
	if bound > 0 {
		// A context derived from a tab that has run bounds the calls made
		// with it, not the browser.
		var cancel context.CancelFunc
		tab, cancel = context.WithTimeout(tab, bound)
		defer cancel()
	}
	const expr = `document.body ? (document.body.dataset.error ? "error: " + document.body.dataset.error : document.body.dataset.ready || "") : ""`
	for {
		state, err := chromedp.Run(tab, chromedp.Evaluate[string](expr))
		switch {
		case err != nil:
			return fmt.Errorf("waiting for body.dataset.ready: %w", err)
		case state == "true":
			return nil
		case strings.HasPrefix(state, "error: "):
			return fmt.Errorf("the page set body.dataset.error: %s", strings.TrimPrefix(state, "error: "))
		}
		select {
		case <-tab.Done():
			return fmt.Errorf("waiting for body.dataset.ready (it is %q): %w", state, context.Cause(tab))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// allowedURL reports whether a request is the page itself or inline data
// (data: and blob: URLs never reach a host).
func allowedURL(u, fileURL string) bool {
	if u == fileURL || strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:") || u == "about:blank" {
		return true
	}
	// The page's own URL with a fragment is the same file.
	return strings.HasPrefix(u, fileURL+"#")
}

// topScreenshot scrolls to the top of the page (or to the element
// selector names), waits two frames for the scroll to paint, and captures
// the window as a PNG.
func topScreenshot(selector string) chromedp.Action[[]byte] {
	return func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		to := "window.scrollTo(0, 0)"
		if selector != "" {
			sel, err := json.Marshal(selector)
			if err != nil {
				return nil, err
			}
			to = "(document.querySelector(" + string(sel) + ") || document.body).scrollIntoView({block: \"start\"})"
		}
		scroll := `new Promise(done => { ` + to + `; requestAnimationFrame(() => requestAnimationFrame(() => done(true))); })`
		if _, err := chromedp.Evaluate[bool](scroll, chromedp.EvalAwaitPromise)(ctx, t); err != nil {
			return nil, err
		}
		return chromedp.CaptureScreenshot()(ctx, t)
	}
}
