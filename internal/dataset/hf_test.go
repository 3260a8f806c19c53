package dataset

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/google/go-cmp/cmp"
)

// hfCase is one case of testdata/hf/hf_golden.json.
type hfCase struct {
	Dir              string   `json:"dir"`
	Split            string   `json:"split"`
	HFName           string   `json:"hf_name"`
	Seed             int64    `json:"seed"`
	NumPrompts       int      `json:"num_prompts"`
	NoStream         bool     `json:"no_stream"`
	DisableShuffle   bool     `json:"disable_shuffle"`
	OutputLen        *int     `json:"output_len"`
	SkipChatTemplate bool     `json:"skip_chat_template"`
	MinDistance      float64  `json:"min_distance"`
	MaxDistance      float64  `json:"max_distance"`
	ASRMin           float64  `json:"asr_min"`
	ASRMax           *float64 `json:"asr_max"`
	Samples          []hfSample
}

// hfSample is a golden sample with its media: the image part as JSON, or
// the clip's duration.
type hfSample struct {
	Prompt            string          `json:"prompt"`
	PromptLen         int             `json:"prompt_len"`
	ExpectedOutputLen int             `json:"expected_output_len"`
	RequestID         string          `json:"request_id"`
	MultiModal        json.RawMessage `json:"multi_modal_data,omitempty"`
	AudioDuration     *float64        `json:"audio_duration,omitempty"`
}

// toHFGolden is toGolden with the media.
func toHFGolden(t *testing.T, ss []Sample) []hfSample {
	t.Helper()
	out := make([]hfSample, len(ss))
	for i, s := range ss {
		out[i].Prompt, out[i].PromptLen, out[i].ExpectedOutputLen, out[i].RequestID = s.Prompt, s.PromptLen, s.ExpectedOutputLen, s.RequestID
		if len(s.MultiModal) == 1 {
			b, err := s.MultiModal[0].MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			out[i].MultiModal = b
		}
		if s.Audio != nil {
			out[i].AudioDuration = &s.Audio.Duration
		}
	}
	return out
}

// compactJSON rewrites the golden's media in the compact form.
func compactJSON(t *testing.T, ss []hfSample) []hfSample {
	t.Helper()
	for i := range ss {
		if len(ss[i].MultiModal) > 0 && string(ss[i].MultiModal) != "null" {
			o, err := pyjson.DecodeObject(ss[i].MultiModal)
			if err != nil {
				t.Fatal(err)
			}
			ss[i].MultiModal, _ = o.MarshalJSON()
		} else {
			ss[i].MultiModal = nil
		}
	}
	return ss
}

func (c hfCase) options(path string) Options {
	return Options{Name: "hf", Path: path, HFName: c.HFName, NumPrompts: c.NumPrompts, Seed: c.Seed,
		RequestIDPrefix: "hf-", NoStream: c.NoStream, DisableShuffle: c.DisableShuffle, HFOutputLen: c.OutputLen,
		SkipChatTemplate: c.SkipChatTemplate, BlazeditMinDistance: c.MinDistance, BlazeditMaxDistance: c.MaxDistance,
		Backend: "openai-chat", HFSplit: c.Split, ASRMinAudioLenSec: c.ASRMin, ASRMaxAudioLenSec: max(asrMax(c.ASRMax), 0)}
}

// asrMax is the golden's --asr-max-audio-len-sec (null: inf).
func asrMax(v *float64) float64 {
	if v == nil {
		return math.Inf(1)
	}
	return *v
}

// TestHFMatchesVLLM compares with samples produced by a copy of vLLM's
// HuggingFace text classes and of the datasets library's shuffles
// (tools/gen-dataset-vectors/gen_hf_vectors.py) on the same local files:
// the streaming shuffle (three shards shuffled, a buffer of 1000 filled,
// replaced and shuffled at the end, then oversampling), --no-stream's
// permutation, --disable-shuffle, and each text class.
func TestHFMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []hfCase
	readJSON(t, filepath.Join("hf", "hf_golden.json"), &cases)
	if len(cases) == 0 {
		t.Fatal("no cases in hf_golden.json")
	}
	for _, c := range cases {
		got, err := Load(c.options(filepath.Join("testdata", "hf", c.Dir)), chatFake{newFake()}, nil, io.Discard)
		if err != nil {
			t.Fatalf("%s seed %d: %v", c.Dir, c.Seed, err)
		}
		if diff := cmp.Diff(compactJSON(t, c.Samples), toHFGolden(t, got)); diff != "" {
			t.Errorf("%s seed %d stream=%v (-vllm +gobench):\n%s", c.Dir, c.Seed, !c.NoStream, diff)
		}
	}
}

func TestHFErrors(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "hf", "mtbench")
	tests := []struct {
		name string
		opts Options
		want string
		ns   bool
	}{
		{"unknown id", Options{Path: dir}, "Unsupported dataset path: testdata/hf/mtbench. Huggingface dataset only supports dataset_path from one of following: {'AI-MO/NuminaMath-1.5'", false},
		{"multimodal on completions", Options{Path: dir, HFName: "Lin-Chen/MMStar", Backend: "openai"}, "Multi-modal content is only supported on 'openai-chat' and 'openai-audio' backends.", false},
		{"multimodal class", Options{Path: dir, HFName: "yale-nlp/MMVU", Backend: "openai-chat"}, "MMVUDataset (testdata/hf/mtbench) is not supported yet", true},
		{"hub id without a Hub", Options{Path: "philschmid/mt-bench"}, "Hub downloads are not supported yet", true},
		{"neither", Options{Path: "no/such/id", HFName: "philschmid/mt-bench"}, "not a local file or directory, nor a Hub dataset id", false},
		{"unknown split", Options{Path: dir, HFName: "philschmid/mt-bench", HFSplit: "test"}, `Unknown split "test"`, false},
		{"no subset dir", Options{Path: dir, HFName: "philschmid/mt-bench", HFSubset: "x"}, "--dataset-path testdata/hf/mtbench: --hf-subset x: no directory x with data files", false},
		{"wrong column", Options{Path: dir, HFName: "openai/openai_humaneval", HFSplit: "train"}, `train.jsonl:3: no column "prompt"`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := tc.opts
			o.Name, o.NumPrompts, o.BlazeditMaxDistance = "hf", 3, 1
			if o.Backend == "" {
				o.Backend = "openai"
			}
			_, err := Load(o, chatFake{newFake()}, nil, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if errors.Is(err, exitcode.ErrNotSupported) != tc.ns {
				t.Errorf("errors.Is(err, ErrNotSupported) = %v, want %v", !tc.ns, tc.ns)
			}
		})
	}
}
