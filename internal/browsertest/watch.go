package browsertest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// watcher records what the page asks for and what it complains about, from
// the DevTools events of its tab.
type watcher struct {
	mu   sync.Mutex
	seen map[string]bool
	urls []string
	errs []string
}

// watch subscribes to the tab's events before anything is loaded: every
// request is paused (Fetch domain); the file itself goes on, anything else
// fails as blocked by the client. Requests (Network), console calls and
// exceptions (Runtime) and log entries (Log) are recorded.
func watch(tab context.Context, fileURL string) (*watcher, error) {
	w := &watcher{seen: map[string]bool{}}
	if err := chromedp.Listen(tab, w.listen); err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	paused := chromedp.Events(tab, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			w.request(ev.Request.URL)
			if allowedURL(ev.Request.URL, fileURL) {
				_, _ = chromedp.Call(tab, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			} else {
				_, _ = chromedp.Call(tab, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			}
		}
	}()
	steps := []error{
		call(tab, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}),
		call(tab, network.Enable, network.EnableParams{}),
		call(tab, runtime.Enable, cdp.Empty{}),
		call(tab, log.Enable, cdp.Empty{}),
	}
	for _, err := range steps {
		if err != nil {
			return nil, err
		}
	}
	return w, nil
}

// call runs one protocol command whose result is not needed.
func call[P, R any](tab context.Context, cmd cdp.Command[P, R], p P) error {
	if _, err := chromedp.Call(tab, cmd, p); err != nil {
		return fmt.Errorf("%s: %w", cmd.Method, err)
	}
	return nil
}

// listen is called on the tab's reading goroutine: it only records.
func (w *watcher) listen(ev any) {
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		w.request(ev.Request.URL)
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			w.complain("console." + string(ev.Type) + ": " + argsText(ev.Args))
		}
	case *runtime.EventExceptionThrown:
		w.complain("uncaught exception: " + exceptionText(ev.ExceptionDetails))
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError {
			w.complain(fmt.Sprintf("%s error: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	}
}

func (w *watcher) request(u string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.seen[u] {
		w.seen[u] = true
		w.urls = append(w.urls, u)
	}
}

func (w *watcher) complain(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.errs = append(w.errs, s)
}

func (w *watcher) requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.urls...)
}

func (w *watcher) console() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.errs...)
}

// argsText renders a console call's arguments as the console shows them.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case a.Value != nil:
			parts = append(parts, strings.Trim(string(a.Value), `"`))
		case a.Description != "":
			parts = append(parts, a.Description)
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, " ")
}

// exceptionText is an uncaught exception's message and where it was thrown.
func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "(no details)"
	}
	msg := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		msg += " " + d.Exception.Description
	}
	return fmt.Sprintf("%s (%s:%d)", msg, d.URL, d.LineNumber+1)
}
