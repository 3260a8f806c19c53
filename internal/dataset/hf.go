package dataset

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/hffiles"
	"github.com/gobench/gobench/internal/tokenizer"
)

// hfClass is one of vLLM's HuggingFaceDataset subclasses: the Hub ids it
// serves (SUPPORTED_DATASET_PATHS), the split and subset get_samples gives
// it, and its sample().
type hfClass struct {
	// name is vLLM's class name, for messages.
	name string
	// paths are the Hub ids that select the class.
	paths []string
	// split is the default --hf-split ("" leaves it as given).
	split string
	// subset is the default --hf-subset; clearSubset drops a given one.
	subset      string
	clearSubset bool
	// multimodal is IS_MULTIMODAL: only chat-style backends take it.
	multimodal bool
	// sample builds the samples from the shuffled rows; nil: gobench does
	// not have the class yet.
	sample func(r *hfRun, rows rowIter) ([]Sample, error)
}

// hfClasses are vLLM's classes in the order get_samples tests them
// (vllm/benchmarks/datasets/datasets.py@003cf0297 get_samples, "hf").
var hfClasses = []hfClass{
	{name: "VisionArenaDataset", paths: []string{"lmarena-ai/VisionArena-Chat", "lmarena-ai/vision-arena-bench-v0.1"},
		split: "train", clearSubset: true, multimodal: true, sample: visionArena},
	{name: "MMVUDataset", paths: []string{"yale-nlp/MMVU"}, split: "validation", clearSubset: true, multimodal: true},
	{name: "InstructCoderDataset", paths: []string{"likaixin/InstructCoder"}, split: "train", sample: instructCoder},
	{name: "MTBenchDataset", paths: []string{"philschmid/mt-bench"}, split: "train", sample: firstTurnColumn("turns", 256)},
	{name: "HumanEvalDataset", paths: []string{"openai/openai_humaneval"}, split: "test", sample: textColumn("prompt", 256)},
	{name: "GSM8KDataset", paths: []string{"openai/gsm8k"}, split: "test", subset: "main", sample: textColumn("question", 256)},
	{name: "MultiModalConversationDataset", paths: []string{"lmms-lab/LLaVA-OneVision-Data"}, multimodal: true, sample: conversation},
	{name: "ConversationDataset", paths: []string{"Aeala/ShareGPT_Vicuna_unfiltered"}, sample: conversation},
	{name: "AIMODataset", paths: []string{"AI-MO/aimo-validation-aime", "AI-MO/NuminaMath-1.5", "AI-MO/NuminaMath-CoT"},
		split: "train", sample: aimo},
	{name: "NextEditPredictionDataset", paths: []string{"zed-industries/zeta"}, split: "train", sample: nextEdit},
	{name: "ASRDataset", paths: []string{"openslr/librispeech_asr", "facebook/voxpopuli", "LIUM/tedlium", "edinburghcstr/ami",
		"speechcolab/gigaspeech", "kensho/spgispeech"}, split: "train", multimodal: true, sample: asr},
	{name: "BlazeditDataset", paths: []string{"vdaita/edit_5k_char", "vdaita/edit_10k_char"}, split: "train", sample: blazedit},
	{name: "MLPerfDataset", paths: []string{"mgoin/mlperf-inference-llama2-data", "mgoin/mlperf-inference-llama3.1-data"},
		split: "train", sample: mlperf},
	{name: "MMStarDataset", paths: []string{"Lin-Chen/MMStar"}, split: "val", clearSubset: true, multimodal: true, sample: mmstar},
}

// multimodalBackends are the backends vLLM lets a multimodal class run
// on (besides those with "embeddings-" in their name).
var multimodalBackends = []string{"openai-audio", "openai-chat"}

// findHFClass picks the class as get_samples does: the first whose ids
// hold --dataset-path or --hf-name. (vLLM picks BlazeditDataset by
// --dataset-path only, so that a local copy of it works only from a
// directory with the Hub id as its relative path; gobench takes --hf-name
// for it too.)
func findHFClass(opts Options) (*hfClass, error) {
	for i := range hfClasses {
		c := &hfClasses[i]
		if slices.Contains(c.paths, opts.Path) || (opts.HFName != "" && slices.Contains(c.paths, opts.HFName)) {
			return c, nil
		}
	}
	var all []string
	for _, c := range hfClasses {
		for _, p := range c.paths {
			all = append(all, "'"+p+"'")
		}
	}
	sort.Strings(all)
	return nil, fmt.Errorf("Unsupported dataset path: %s. Huggingface dataset only supports dataset_path from one of following: {%s}. Please consider contributing if you would like to add support for additional dataset formats. (A local copy: --dataset-path DIR --hf-name ID.)",
		opts.Path, strings.Join(all, ", "))
}

// hfRun is what a class's sample() reads besides the rows.
type hfRun struct {
	opts Options
	tok  tokenizer.Tokenizer
	// name is hf_name (--hf-name, else --dataset-path).
	name string
	warn io.Writer
	// workers is how many goroutines count tokens where a class counts
	// after reading its rows.
	workers int
}

// outputLen is --hf-output-len, else the class's DEFAULT_OUTPUT_LEN.
func (r *hfRun) outputLen(def int) int {
	if r.opts.HFOutputLen != nil {
		return *r.opts.HFOutputLen
	}
	return def
}

// chat applies the tokenizer's chat template (add_generation_prompt=True,
// tokenize=False) to msgs.
func (r *hfRun) chat(msgs []tokenizer.Message, where string) (string, error) {
	c, ok := r.tok.(tokenizer.ChatTemplater)
	if !ok {
		return "", fmt.Errorf("--dataset-name hf: tokenizer %s: %w", r.tok.Name(), ErrChatTemplate)
	}
	p, err := c.ApplyChatTemplate(msgs, true, r.opts.ChatTemplateKwargs)
	if errors.Is(err, tokenizer.ErrNoChatTemplate) {
		return "", fmt.Errorf("--dataset-name hf: %w (%w)", ErrChatTemplate, err)
	}
	if err != nil {
		return "", fmt.Errorf("--dataset-name hf: %s: %w", where, err)
	}
	return p, nil
}

// userPrompt is the prompt as the text classes send it: chat-formatted as
// one user message unless --skip-chat-template.
func (r *hfRun) userPrompt(p, where string) (string, error) {
	if r.opts.SkipChatTemplate {
		return p, nil
	}
	return r.chat([]tokenizer.Message{{Role: "user", Content: p}}, where)
}

// count is len(tokenizer(text).input_ids).
func (r *hfRun) count(text string) int { return len(r.tok.Encode(text, true)) }

// countPrompts sets every sample's PromptLen to its prompt's token count
// (count), on r.workers goroutines: the classes whose counts decide
// nothing make them once their rows are read, on all cores.
func (r *hfRun) countPrompts(samples []Sample) {
	forEach(len(samples), r.workers, func(j int) { samples[j].PromptLen = r.count(samples[j].Prompt) })
}

// id is request_id_prefix + str(i).
func (r *hfRun) id(i int) string { return fmt.Sprintf("%s%d", r.opts.RequestIDPrefix, i) }

// HF builds vLLM's hf dataset: the class chosen by --dataset-path or
// --hf-name, its rows read from local files (a file, or a directory in the
// Hub's layout with --hf-subset and --hf-split) in the order the datasets
// library's shuffle leaves them, sampled as the class does, then
// oversampled.
func HF(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	return hf(opts, tok, g, warn, runtime.GOMAXPROCS(0))
}

// hf is HF with up to workers goroutines counting tokens; the samples do
// not depend on workers.
func hf(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer, workers int) ([]Sample, error) {
	c, err := findHFClass(opts)
	if err != nil {
		return nil, exitcode.Usage(err)
	}
	if c.multimodal && !slices.Contains(multimodalBackends, opts.Backend) && !strings.Contains(opts.Backend, "embeddings-") {
		// vllm/benchmarks/datasets/datasets.py@11dfa3169 get_samples.
		return nil, exitcode.Usagef("Multi-modal content is only supported on 'openai-chat' and 'openai-audio' backends.")
	}
	if c.sample == nil {
		return nil, fmt.Errorf("--dataset-name hf: %s (%s) is %w", c.name, opts.Path, exitcode.ErrNotSupported)
	}
	split, subset := opts.HFSplit, opts.HFSubset
	if split == "" {
		split = c.split
	}
	switch {
	case c.clearSubset:
		subset = ""
	case subset == "":
		subset = c.subset
	}
	if split == "" {
		// load_dataset(split=None) returns every split (a DatasetDict),
		// which the classes cannot iterate.
		return nil, exitcode.Usagef("--dataset-name hf: %s needs --hf-split", c.name)
	}
	root, err := hfRoot(opts, subset, split)
	if err != nil {
		return nil, err
	}
	files, err := hffiles.Find(root, subset, split, isDataFile)
	if err != nil {
		return nil, exitcode.Usage(err)
	}
	rows, closer, err := hfOrder(files, opts)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	name := opts.HFName
	if name == "" {
		name = opts.Path
	}
	samples, err := c.sample(&hfRun{opts: opts, tok: tok, name: name, warn: warn, workers: workers}, rows)
	if err != nil {
		return nil, err
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("--dataset-name hf: %s: no row of %s gave a sample", c.name, opts.Path)
	}
	return oversample(samples, opts, g.Random, warn)
}
