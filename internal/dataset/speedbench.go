package dataset

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gobench/gobench/internal/tokenizer"
)

// speedBenchPrepare is where vLLM says the dataset comes from: NeMo
// Skills' script downloads nvidia/SPEED-Bench from the Hugging Face Hub and
// writes one SUBSET.jsonl per subset into a directory.
const speedBenchPrepare = "https://raw.githubusercontent.com/NVIDIA-NeMo/Skills/refs/heads/main/nemo_skills/dataset/speed-bench/prepare.py"

// SpeedBench builds vLLM's speed_bench dataset (SpeedBench,
// vllm/benchmarks/datasets/datasets.py@11dfa3169): --dataset-path is a
// directory holding SUBSET.jsonl (--speed-bench-dataset-subset), each
// line's first message ("messages"[0].content) a prompt, only the rows of
// --speed-bench-category when given, shuffled, then sampled as the custom
// dataset samples with --speed-bench-output-len tokens out. Like vLLM, it
// reads local files only: the directory is what NeMo Skills' prepare.py
// writes from the Hub. vLLM's dispatcher passes no seed, so the shuffle and
// the oversampling use seed 0.
func SpeedBench(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	if st, err := os.Stat(opts.Path); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--dataset-path %s is not a directory. Please make sure to download the dataset from HuggingFace using `curl -LsSf %s | python3 -`",
			opts.Path, speedBenchPrepare)
	}
	path := filepath.Join(opts.Path, opts.SpeedBenchSubset+".jsonl")
	var rows []customRow
	hasMessages := false
	err := readJSONL(path, path, func(line int, m map[string]json.RawMessage) error {
		raw, ok := m["messages"]
		hasMessages = hasMessages || ok
		if !categoryMatches(m, opts.SpeedBenchCategory) {
			return nil
		}
		var msgs []struct {
			Content *string `json:"content"`
		}
		if err := json.Unmarshal(raw, &msgs); err != nil || len(msgs) == 0 || msgs[0].Content == nil {
			return fmt.Errorf("%s:%d: \"messages\" must be a list whose first message has a string \"content\", got %.60s", path, line, raw)
		}
		rows = append(rows, customRow{line: line, prompt: *msgs[0].Content})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !hasMessages {
		return nil, fmt.Errorf("%s: JSONL file must contain a 'messages' column. Please make sure to download the dataset from HuggingFace using `curl -LsSf %s | python3 -`",
			path, speedBenchPrepare)
	}
	o := opts
	o.Path = path
	return fixedSeedSamples(rows, o, opts.SpeedBenchOutputLen, tok, g, warn)
}
