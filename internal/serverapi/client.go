// Package serverapi talks to the benchmarked server's side endpoints: the
// calls a run makes besides the measured requests. They are GET /v1/models
// (the first model), POST /tokenize and /detokenize (prompt alignment and
// the server-side tokenizer), GET /tokenizer_info, GET /metrics (the
// Prometheus scrapes around the run), POST /start_profile and
// /stop_profile, and the ready check's loop.
//
// Every call carries the same headers as the benchmark requests (the
// user's --header values and the API key's Authorization), so a server
// behind an auth gateway answers them too, and every call has its own
// timeout, reported as a *TimeoutError naming the endpoint. Redirects are
// followed only as package redirect allows (never to another host, which
// would receive those headers). The package knows nothing of backends or
// runs: the ready check takes its probe as a function.
package serverapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/redirect"
)

// Default per-call timeouts, used when the Client's field is zero.
const (
	// DefaultTimeout bounds /v1/models, /tokenize, /detokenize and
	// /tokenizer_info: each answers in milliseconds on a healthy server,
	// so 30 s means the server is stuck.
	DefaultTimeout = 30 * time.Second
	// DefaultMetricsTimeout bounds a /metrics scrape, as vLLM's
	// fetch_spec_decode_metrics does.
	DefaultMetricsTimeout = 10 * time.Second
	// DefaultProfileTimeout bounds /start_profile and /stop_profile: vLLM
	// answers /stop_profile only after the torch profiler has written its
	// traces, which takes minutes after a long run.
	DefaultProfileTimeout = 5 * time.Minute
	// DefaultMaxBody bounds every answer read into memory; no answer of
	// these endpoints comes near it (a /metrics page is kilobytes).
	DefaultMaxBody = 64 << 20
)

// Client calls the side endpoints of one server. The zero timeouts and
// size bound mean the defaults; a Client is safe for concurrent use and is
// not modified by its methods.
type Client struct {
	// HTTP sends the calls; nil uses http.DefaultClient. Its CheckRedirect
	// is not used: redirects follow package redirect's rule.
	HTTP *http.Client
	// BaseURL is the server's root, without /v1 (e.g.
	// http://127.0.0.1:8000); a trailing slash is ignored.
	BaseURL string
	// Header is sent with every call: the user's --header values and the
	// API key's Authorization, as the benchmark requests carry them. Its
	// Content-Type is ignored: calls with a JSON body send
	// application/json, calls without a body send none.
	Header http.Header

	// Timeout bounds each call but /metrics and the profiler's;
	// 0 is DefaultTimeout.
	Timeout time.Duration
	// MetricsTimeout bounds a /metrics scrape; 0 is DefaultMetricsTimeout.
	MetricsTimeout time.Duration
	// ProfileTimeout bounds /start_profile and /stop_profile; 0 is
	// DefaultProfileTimeout.
	ProfileTimeout time.Duration
	// MaxBody bounds the size of an answer in bytes; a larger answer is
	// an error. 0 is DefaultMaxBody.
	MaxBody int64
}

// WithHTTP returns a copy of c that sends through hc: the same server,
// headers and timeouts over another connection pool (the prompt alignment
// keeps 64 calls in flight, which the benchmark's pool of
// --max-concurrency connections would serialize).
func (c *Client) WithHTTP(hc *http.Client) *Client {
	cp := *c
	cp.HTTP = hc
	return &cp
}

// URL is the full address of path (which starts with "/") on the server.
func (c *Client) URL(path string) string {
	return strings.TrimSuffix(c.BaseURL, "/") + path
}

// TimeoutError is a side call that ran out of its own timeout (not the
// caller's context). It unwraps to context.DeadlineExceeded.
type TimeoutError struct {
	// Method and URL name the call, e.g. "GET" and
	// "http://127.0.0.1:8000/metrics".
	Method, URL string
	// After is the timeout that ran out.
	After time.Duration
}

// Error says which endpoint timed out, and after how long.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s %s: timed out after %v", e.Method, e.URL, e.After)
}

// Unwrap lets errors.Is(err, context.DeadlineExceeded) hold.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// errCallTimeout is the cause of a call's own deadline, which tells it
// apart from a deadline or cancellation of the caller's context.
var errCallTimeout = errors.New("side call timeout")

// call is one request: method on path with body (JSON-encoded, nil for
// none), bounded by timeout. It returns the answer's body when the status
// is 2xx, and an error naming the call otherwise.
func (c *Client) call(ctx context.Context, method, path string, body any, timeout time.Duration) ([]byte, error) {
	url := c.URL(path)
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errCallTimeout)
	defer cancel()
	data, err := c.roundTrip(ctx, method, url, body)
	if err != nil && errors.Is(context.Cause(ctx), errCallTimeout) {
		return nil, &TimeoutError{Method: method, URL: url, After: timeout}
	}
	return data, err
}

// roundTrip sends the request and reads the bounded answer.
func (c *Client) roundTrip(ctx context.Context, method, url string, body any) ([]byte, error) {
	var payload io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", method, url, err)
		}
		payload = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, payload)
	if err != nil {
		return nil, err
	}
	req.Header = c.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Del("Content-Type")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := redirect.Client(c.HTTP).Do(req)
	if err != nil {
		return nil, err // a *url.Error, which names the method and URL
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		detail, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("%s %s: HTTP %s: %s", method, url, resp.Status, bytes.TrimSpace(detail))
	}
	limit := c.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: read the answer: %w", method, url, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s %s: the answer is larger than %d bytes", method, url, limit)
	}
	return data, nil
}

// callJSON is call with a JSON answer decoded into out.
func (c *Client) callJSON(ctx context.Context, method, path string, body, out any, timeout time.Duration) error {
	data, err := c.call(ctx, method, path, body, timeout)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode the answer: %w", method, c.URL(path), err)
	}
	return nil
}

// timeout returns d, or def when d is zero.
func timeout(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
