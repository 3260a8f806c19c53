package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestEngineLive runs the engine model in real time over loopback HTTP with
// many concurrent streams, clients that go away, and scrapes in between:
// every stream completes with its tokens, the per-request metrics object
// carries the engine's queue and prefill intervals, and the engine ends
// with no request running or waiting and its KV cache empty.
func TestEngineLive(t *testing.T) {
	t.Parallel()
	n := 48
	if raceEnabled {
		n = 16
	}
	sc := SchedulerConfig{MaxNumSeqs: 8, MaxNumBatchedTokens: 128, BlockSize: 16, NumGPUBlocks: 96, EnablePrefixCaching: true,
		StepBase: time.Millisecond, StepPerToken: 5 * time.Microsecond, StepPerSeq: 50 * time.Microsecond}
	ls := startLive(t, Config{Scheduler: &sc, MaxModelLen: 512, EnablePerRequestMetrics: true, Tokenizer: fakeTokenizer{}})
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			prompt := strings.Repeat("shared words ", 20) + fmt.Sprint(i)
			body := fmt.Sprintf(`{"prompt":%q,"max_tokens":40,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`, prompt)
			resp := post(ctx, t, newClient(), ls.url+"/v1/completions", body)
			defer resp.Body.Close()
			if i%5 == 4 {
				// A client that leaves after the first bytes: its request
				// is aborted and its blocks freed.
				buf := make([]byte, 16)
				_, _ = resp.Body.Read(buf)
				cancel()
				return
			}
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				errs <- err
				return
			}
			var usage struct {
				Usage struct {
					Completion int `json:"completion_tokens"`
				} `json:"usage"`
				Metrics map[string]float64 `json:"metrics"`
			}
			events := strings.Split(strings.TrimSpace(string(b)), "\n\n")
			if len(events) < 3 || json.Unmarshal([]byte(strings.TrimPrefix(events[len(events)-2], "data: ")), &usage) != nil {
				errs <- fmt.Errorf("request %d: body %q", i, b)
				return
			}
			if usage.Usage.Completion != 40 || usage.Metrics["queue_time_ms"] < 0 || usage.Metrics["time_to_first_token_ms"] <= 0 {
				errs <- fmt.Errorf("request %d: usage %+v", i, usage)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ok := waitFor(eventually, func() bool {
		r, w, kv := ls.s.sched.Snapshot()
		return r == 0 && w == 0 && kv == 0
	})
	if !ok {
		r, w, kv := ls.s.sched.Snapshot()
		t.Errorf("engine not drained: running %d, waiting %d, KV usage %v", r, w, kv)
	}
	fams := scrapeMetrics(t, ls.s)
	if hits := value(fams["vllm:prefix_cache_hits_total"]); hits == 0 {
		t.Errorf("no prefix cache hits for prompts sharing 40 words")
	}
	if ab := value(fams["vllm:request_success_total"]); ab != float64(n) {
		t.Errorf("request_success total %v, want %d (aborted ones included)", ab, n)
	}
}
