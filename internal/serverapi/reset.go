package serverapi

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// DefaultResetTimeout bounds one cache reset: vLLM answers at once, but a
// busy engine takes the call between steps.
const DefaultResetTimeout = 30 * time.Second

// ResetPrefixCache is vLLM's POST /reset_prefix_cache without a body, as
// the Rust client's --reset-prefix-cache sends it between sweep points
// (vllm rust/src/bench/src/sweep.rs@11dfa3169). vLLM serves it only with
// VLLM_SERVER_DEV_MODE=1, which the error says.
func (c *Client) ResetPrefixCache(ctx context.Context) error {
	return c.ResetCaches(ctx, "/reset_prefix_cache")
}

// VLLMCacheResets are the endpoints `vllm bench sweep serve` posts to after
// each benchmark run when it started a vLLM server itself
// (ServerProcess.VLLM_RESET_CACHE_ENDPOINTS, vllm/benchmarks/sweep/server.py@11dfa3169).
var VLLMCacheResets = []string{"/reset_prefix_cache", "/reset_mm_cache", "/reset_encoder_cache"}

// ResetCaches posts to each of paths in turn, without a body, and stops at
// the first that does not answer 2xx.
func (c *Client) ResetCaches(ctx context.Context, paths ...string) error {
	for _, p := range paths {
		if _, err := c.call(ctx, http.MethodPost, p, nil, timeout(c.Timeout, DefaultResetTimeout)); err != nil {
			return fmt.Errorf("reset the server's cache: %w (vLLM serves %s only with VLLM_SERVER_DEV_MODE=1)", err, p)
		}
	}
	return nil
}
