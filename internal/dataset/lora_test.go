package dataset

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// loraCase is one case of testdata/lora_golden.json, written by
// tools/gen-lora-vectors with CPython's random making vLLM's calls.
type loraCase struct {
	Dataset        string   `json:"dataset"`
	Seed           int64    `json:"seed"`
	NumPrompts     int      `json:"num_prompts"`
	DisableShuffle bool     `json:"disable_shuffle"`
	NoOversample   bool     `json:"no_oversample"`
	LoRAModules    []string `json:"lora_modules"`
	Prompts        []string `json:"prompts"` // nil for the random dataset
	LoRAs          []string `json:"loras"`
}

// options are the dataset options of the case, for the fake tokenizer.
func (c loraCase) options() Options {
	o := DefaultOptions()
	o.Name, o.Seed, o.NumPrompts = c.Dataset, c.Seed, c.NumPrompts
	o.DisableShuffle, o.NoOversample, o.SkipChatTemplate = c.DisableShuffle, c.NoOversample, true
	o.RandomInputLen, o.RandomOutputLen = 12, 4
	switch c.Dataset {
	case "custom":
		o.Path = filepath.Join("testdata", "custom60.jsonl")
	case "sharegpt":
		o.Path = filepath.Join("testdata", "sharegpt_lora.json")
	}
	return o
}

// TestGlobalRandomContinues: after Load, the generator passed in is where
// vLLM leaves CPython's global random (seeded by main_async, reseeded and
// shuffled by the file datasets, reseeded and drawn by oversampling), so
// that random.choice of the LoRA modules continues it: the assignments
// equal vLLM's for custom and sharegpt, with and without shuffling and
// oversampling, and for random, which does not touch it.
func TestGlobalRandomContinues(t *testing.T) {
	t.Parallel()
	var cases []loraCase
	readJSON(t, "lora_golden.json", &cases)
	for _, c := range cases {
		o := c.options()
		g := NewGlobals(c.Seed) // main_async: random.seed(args.seed)
		global := g.Random
		samples, err := Load(o, newFake(), g, nil)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if c.Prompts != nil {
			prompts := make([]string, len(samples))
			for i, s := range samples {
				prompts[i] = s.Prompt
			}
			if diff := cmp.Diff(c.Prompts, prompts); diff != "" {
				t.Errorf("%s seed %d n %d: prompts (-vllm +gobench):\n%s", c.Dataset, c.Seed, c.NumPrompts, diff)
			}
		}
		got := make([]string, len(samples))
		for i := range got {
			got[i] = c.LoRAModules[global.Choice(len(c.LoRAModules))]
		}
		if diff := cmp.Diff(c.LoRAs, got); diff != "" {
			t.Errorf("%s seed %d n %d shuffle %v oversample %v: LoRAs (-vllm +gobench):\n%s",
				c.Dataset, c.Seed, c.NumPrompts, !c.DisableShuffle, !c.NoOversample, diff)
		}
	}
}
