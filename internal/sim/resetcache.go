package sim

import "net/http"

// resetPrefixCache forgets every cached block, as vLLM's
// BlockPool.reset_prefix_cache does (vllm/v1/core/block_pool.py@11dfa3169):
// only when no request holds a block, since a running request's blocks
// must stay findable by the request itself; it reports whether it reset.
func (c *kvCache) resetPrefixCache() bool {
	if c.numFree != len(c.blocks) {
		return false
	}
	if c.caching {
		clear(c.cached)
	}
	for i := range c.blocks {
		c.blocks[i].hashed = false
		c.blocks[i].hash = 0
	}
	return true
}

// ResetPrefixCache empties the engine's prefix cache; it reports false,
// and keeps the cache, while requests hold blocks (vLLM's rule).
func (s *Scheduler) ResetPrefixCache() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.kv.resetPrefixCache()
}

// handleResetCache answers vLLM's POST /reset_prefix_cache,
// /reset_mm_cache and /reset_encoder_cache (development endpoints,
// vllm/entrypoints/openai/api_server.py@11dfa3169, which answer 200 with
// an empty body): the prefix cache of the engine model is emptied, as
// `vllm bench sweep` and the Rust client's --reset-prefix-cache ask
// between points; the simulator has no multimodal or encoder cache, so
// those two only acknowledge.
func (s *Server) handleResetCache(prefix bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !prefix:
			s.logf("%s %s: nothing to reset (no such cache in the simulator)", r.Method, r.URL.Path)
		case s.sched == nil:
			s.logf("%s %s: the fixed-latency engine caches nothing", r.Method, r.URL.Path)
		case s.sched.ResetPrefixCache():
			s.logf("%s %s: prefix cache reset", r.Method, r.URL.Path)
		default:
			s.logf("%s %s: prefix cache not reset: requests still hold blocks", r.Method, r.URL.Path)
		}
		w.WriteHeader(http.StatusOK)
	}
}
