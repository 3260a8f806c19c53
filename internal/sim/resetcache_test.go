package sim

import (
	"net/http"
	"testing"
)

// TestResetPrefixCache: POST /reset_prefix_cache empties the engine's
// prefix cache once no request holds a block, and keeps it (answering
// 200, as vLLM does) while one does; the multimodal and encoder resets
// only acknowledge.
func TestResetPrefixCache(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{Scheduler: &SchedulerConfig{MaxNumSeqs: 4, MaxNumBatchedTokens: 256, BlockSize: 16,
		NumGPUBlocks: 8, EnablePrefixCaching: true}, MaxModelLen: 128, Tokenizer: fakeTokenizer{}})
	kv := s.sched.core.kv
	h := blockHash(0, []int{1, 2})
	held := kv.allocate(nil, 1)
	kv.register(held[0], h)
	reset := func() {
		t.Helper()
		if rec := do(t, s.handler, http.MethodPost, "/reset_prefix_cache", "", nil); rec.Code != http.StatusOK {
			t.Fatalf("POST /reset_prefix_cache: %d %s", rec.Code, rec.Body)
		}
	}
	reset()
	if len(kv.lookup([]uint64{h}, 1)) != 1 {
		t.Fatal("the cache was reset while a request held a block")
	}
	kv.release(held)
	reset()
	if n := len(kv.lookup([]uint64{h}, 1)); n != 0 || len(kv.cached) != 0 {
		t.Fatalf("after the reset: %d hits, %d cached blocks, want none", n, len(kv.cached))
	}
	for _, path := range []string{"/reset_mm_cache", "/reset_encoder_cache"} {
		if rec := do(t, s.handler, http.MethodPost, path, "", nil); rec.Code != http.StatusOK {
			t.Errorf("POST %s: %d %s", path, rec.Code, rec.Body)
		}
	}
}
