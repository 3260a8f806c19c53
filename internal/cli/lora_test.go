package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/google/go-cmp/cmp"
)

// loraServer serves the simulator on 127.0.0.1 and records the model each
// completion request names, by its x-request-id; the request is then
// served as one for the simulator's model (the simulator knows no LoRA).
func loraServer(t *testing.T) (*httptest.Server, func() map[string]string) {
	t.Helper()
	s, err := sim.NewServer(sim.Config{TTFT: time.Millisecond, ITL: time.Millisecond, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	var mu sync.Mutex
	models := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			var body map[string]any
			if b, err := io.ReadAll(r.Body); err == nil && json.Unmarshal(b, &body) == nil {
				mu.Lock()
				models[r.Header.Get("x-request-id")], _ = body["model"].(string)
				mu.Unlock()
				delete(body, "model") // the simulator's own model
				b, _ = json.Marshal(body)
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string]string {
		mu.Lock()
		defer mu.Unlock()
		return models
	}
}

// TestLoRARandomContinuesDatasetRandom: `gobench serve --lora-modules ...
// --lora-assignment random` with a dataset that shuffles (and oversamples)
// sends each request with the LoRA vLLM would pick: random.choice continuing
// CPython's global random after the dataset's shuffle and oversampling.
// The expected assignments come from tools/gen-lora-vectors (CPython).
func TestLoRARandomContinuesDatasetRandom(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "dataset", "testdata", "lora_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Dataset        string   `json:"dataset"`
		Seed           int64    `json:"seed"`
		NumPrompts     int      `json:"num_prompts"`
		DisableShuffle bool     `json:"disable_shuffle"`
		NoOversample   bool     `json:"no_oversample"`
		LoRAModules    []string `json:"lora_modules"`
		LoRAs          []string `json:"loras"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range cases {
		// Custom prompts are sent as they are, whatever the tokenizer; two
		// cases: shuffled and oversampled, shuffled without oversampling.
		if c.Dataset != "custom" || c.Seed != 7 || c.DisableShuffle {
			continue
		}
		ran++
		srv, models := loraServer(t)
		args := []string{"serve", "--base-url", srv.URL, "--model", "m", "--tokenizer", tokenizer.BuiltinName,
			"--dataset-name", "custom", "--dataset-path", filepath.Join("..", "dataset", "testdata", "custom60.jsonl"),
			"--skip-chat-template", "--seed", strconv.FormatInt(c.Seed, 10), "--num-prompts", strconv.Itoa(c.NumPrompts),
			"--request-id-prefix", "r-", "--lora-assignment", "random", "--lora-modules"}
		args = append(args, c.LoRAModules...)
		if c.NoOversample {
			args = append(args, "--no-oversample")
		}
		_, stderr, code := runMain(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		got := make([]string, len(c.LoRAs))
		for i := range got {
			got[i] = models()["r-"+strconv.Itoa(i)]
		}
		if diff := cmp.Diff(c.LoRAs, got); diff != "" {
			t.Errorf("seed %d n %d oversample %v (-vllm +gobench):\n%s", c.Seed, c.NumPrompts, !c.NoOversample, diff)
		}
		if n := len(models()); n != len(c.LoRAs) {
			t.Errorf("%d requests, want %d: %s", n, len(c.LoRAs), strings.Join(c.LoRAs, ","))
		}
	}
	if ran != 2 {
		t.Fatalf("%d cases ran, want 2", ran)
	}
}
