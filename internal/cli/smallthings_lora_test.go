package cli

import (
	"strconv"
	"testing"

	"github.com/gobench/gobench/internal/tokenizer"
)

// TestLoRAWarmUpsUseTheBaseModel: with --lora-modules the ready check and
// the warm-ups name the base model, as vLLM's test_input does (it is built
// before the LoRA draw); the measured requests carry the adapters.
func TestLoRAWarmUpsUseTheBaseModel(t *testing.T) {
	t.Parallel()
	srv, models := loraServer(t)
	_, stderr, code := runMain(t, "serve", "--base-url", srv.URL, "--model", "base", "--tokenizer", tokenizer.BuiltinName,
		"--num-prompts", "4", "--random-input-len", "8", "--random-output-len", "2", "--request-id-prefix", "r-",
		"--num-warmups", "3", "--ready-check-timeout-sec", "5", "--no-server-metrics", "--disable-tqdm",
		"--lora-assignment", "round-robin", "--lora-modules", "a1", "a2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := models()
	// The ready check and the warm-ups carry no request id.
	if got[""] != "base" {
		t.Errorf("the ready check and the warm-ups named %q, want the base model", got[""])
	}
	for i, want := range []string{"a1", "a2", "a1", "a2"} {
		if m := got["r-"+strconv.Itoa(i)]; m != want {
			t.Errorf("request %d named %q, want %q", i, m, want)
		}
	}
}
