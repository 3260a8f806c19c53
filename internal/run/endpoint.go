package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
)

// fetchModel asks GET {base}/v1/models for the first model, as vLLM's
// get_first_model_from_server does: it returns the model name (id) and the
// model id (root, the vLLM field naming the weights; servers without it
// give the id, where vLLM would crash with a KeyError).
func fetchModel(ctx context.Context, hc *http.Client, baseURL string, headers http.Header) (name, id string, err error) {
	url := baseURL + "/v1/models"
	fail := func(e error) (string, string, error) {
		return "", "", fmt.Errorf("Failed to fetch models from server at %s. Check that:\n1. The server is running\n2. The server URL is correct\nError: %w", url, e)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fail(err)
	}
	for k, v := range headers {
		if k != "Content-Type" {
			req.Header[k] = v
		}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fail(fmt.Errorf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(b))))
	}
	var body struct {
		Data []struct {
			ID   string `json:"id"`
			Root string `json:"root"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&body); err != nil {
		return fail(fmt.Errorf("decode the model list: %w", err))
	}
	if len(body.Data) == 0 {
		return "", "", fmt.Errorf("No models found on the server at %s. Make sure the server is running and has models loaded.", baseURL)
	}
	m := body.Data[0]
	if m.Root == "" {
		m.Root = m.ID
	}
	return m.ID, m.Root, nil
}

// retryInterval is vLLM's pause between readiness probes.
const retryInterval = 5 * time.Second

// waitForEndpoint sends the test request until it succeeds or the deadline
// passes, with the later upstream semantics (rc.py@032a8d24): every probe is
// bounded by the time left and cancelled when it runs out, the pause between
// probes never runs past the deadline, a success after k failures returns
// after exactly k+1 probes, the last failure is returned as it is, and a
// timeout with no probe completed gives "Endpoint readiness timed out after
// {timeout}s.".
func waitForEndpoint(ctx context.Context, probe func(context.Context) metrics.Output, timeout, interval time.Duration, warn io.Writer) (metrics.Output, error) {
	deadline := time.Now().Add(timeout)
	var last *metrics.Output
	for {
		remaining := time.Until(deadline)
		if remaining <= 0 {
			break
		}
		pctx, cancel := context.WithDeadline(ctx, deadline)
		out := probe(pctx)
		expired := pctx.Err() != nil
		cancel()
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("ready check: %w", err)
		}
		if out.Success {
			return out, nil
		}
		if !expired {
			last = &out
			lines := strings.Split(strings.TrimSpace(out.Error), "\n")
			fmt.Fprintf(warn, "WARNING: Endpoint is not ready. Error='%s'\n", lines[len(lines)-1])
		}
		wait := min(interval, time.Until(deadline))
		if wait <= 0 {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return metrics.Output{}, fmt.Errorf("ready check: %w", ctx.Err())
		}
	}
	if last != nil {
		return *last, nil
	}
	return metrics.Output{Error: fmt.Sprintf("Endpoint readiness timed out after %ds.", int(timeout/time.Second))}, nil
}

// postProfile calls {base}/start_profile or /stop_profile with the run's
// headers (the later upstream async_request_profile; the baseline reused the
// request function, which never reported success against vLLM).
func postProfile(ctx context.Context, hc *http.Client, url string, headers http.Header) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader("{}"))
	if err != nil {
		return err
	}
	req.Header = headers.Clone()
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: HTTP %s", url, resp.Status)
	}
	return nil
}

// warmUp sends n concurrent copies of the test request, bounded by their own
// semaphore of size maxConcurrency (0 = unbounded), and discards the results.
func warmUp(ctx context.Context, c *backend.Client, be backend.Backend, req *backend.Request, body []byte, n, maxConcurrency int, done func()) error {
	var sem chan struct{}
	if maxConcurrency > 0 {
		sem = make(chan struct{}, maxConcurrency)
	}
	errs := make(chan error, n)
	for range n {
		go func() {
			if sem != nil {
				select {
				case sem <- struct{}{}:
					defer func() { <-sem }()
				case <-ctx.Done():
					errs <- ctx.Err()
					return
				}
			}
			c.Do(ctx, be, req, body)
			if done != nil {
				done()
			}
			errs <- nil
		}()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil && !errors.Is(first, context.Canceled) {
		return first
	}
	return ctx.Err()
}
