package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"image/jpeg"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/numpyrand"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/google/go-cmp/cmp"
)

type goldenMMItem struct {
	Height       int    `json:"height"`
	Width        int    `json:"width"`
	Frames       int    `json:"frames"`
	PixelsSHA256 string `json:"pixels_sha256"`
}

type goldenMMSample struct {
	Prompt            string         `json:"prompt"`
	PromptLen         int            `json:"prompt_len"`
	ExpectedOutputLen int            `json:"expected_output_len"`
	RequestID         string         `json:"request_id"`
	Items             []goldenMMItem `json:"items"`
}

// TestRandomMMMatchesVLLM compares with samples of a copy of vLLM's
// RandomMultiModalDataset run with NumPy
// (tools/gen-dataset-vectors/gen_randommm_vectors.py): the text, the item
// counts, each item's shape and its pixels (by digest), limits reached and
// buckets renormalised, zero and duplicate buckets, and the generator's
// next draw after the last request, which proves every draw was consumed
// as vLLM consumes it.
func TestRandomMMMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed            uint64  `json:"seed"`
		NumPrompts      int     `json:"num_prompts"`
		PrefixLen       int     `json:"prefix_len"`
		RangeRatio      string  `json:"range_ratio"`
		InputLen        int     `json:"input_len"`
		OutputLen       int     `json:"output_len"`
		BaseItems       int     `json:"base_items"`
		ItemsRangeRatio float64 `json:"items_range_ratio"`
		Limits          string  `json:"limits"`
		Buckets         string  `json:"buckets"`
		Samples         []goldenMMSample
		NextUint32      int64 `json:"next_uint32"`
	}
	readJSON(t, "randommm_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "random-mm", Backend: "openai-chat", NumPrompts: c.NumPrompts, Seed: int64(c.Seed), RequestIDPrefix: "mm-",
			RandomInputLen: c.InputLen, RandomOutputLen: c.OutputLen, RandomPrefixLen: c.PrefixLen,
			RandomRangeRatio: mustRangeRatio(t, c.RangeRatio), RandomBatchSize: 1,
			RandomMMBaseItemsPerRequest: c.BaseItems, RandomMMNumMMItemsRangeRatio: c.ItemsRangeRatio,
			RandomMMLimitMMPerPrompt: c.Limits, RandomMMBucketConfig: c.Buckets}
		var items []goldenMMItem
		rng := numpyrand.NewGenerator(c.Seed)
		record := func(it MMItem) *pyjson.Object {
			sum := sha256.Sum256(it.Pixels)
			items = append(items, goldenMMItem{it.Height, it.Width, it.Frames, hex.EncodeToString(sum[:])})
			o := pyjson.NewObject()
			o.Set("n", len(items)-1)
			return o
		}
		got, err := randomMM(opts, newFake(), rng, io.Discard, record, 1)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		gs := make([]goldenMMSample, len(got))
		for i, s := range got {
			gs[i] = goldenMMSample{Prompt: s.Prompt, PromptLen: s.PromptLen, ExpectedOutputLen: s.ExpectedOutputLen,
				RequestID: s.RequestID, Items: []goldenMMItem{}}
			for _, m := range s.MultiModal {
				n, _ := m.Get("n")
				gs[i].Items = append(gs[i].Items, items[n.(int)])
			}
		}
		if diff := cmp.Diff(c.Samples, gs); diff != "" {
			t.Errorf("seed %d (-vllm +gobench):\n%s", c.Seed, diff)
		}
		if next := rng.Integers(0, 1<<32); next != c.NextUint32 {
			t.Errorf("seed %d: next draw %d, vLLM's %d", c.Seed, next, c.NextUint32)
		}
	}
}

// TestRandomMMErrors checks vLLM's refusals, each naming the flag and
// exiting 2.
func TestRandomMMErrors(t *testing.T) {
	t.Parallel()
	base := Options{Name: "random-mm", Backend: "openai-chat", NumPrompts: 2, RandomInputLen: 10, RandomOutputLen: 4, RandomBatchSize: 1,
		RandomMMBaseItemsPerRequest: 1, RandomMMLimitMMPerPrompt: DefaultMMLimits, RandomMMBucketConfig: DefaultMMBuckets}
	for _, c := range []struct {
		name string
		edit func(o *Options)
		want string
	}{
		{"backend", func(o *Options) { o.Backend = "openai" }, "only supported on 'openai-chat' backend"},
		{"batch", func(o *Options) { o.RandomBatchSize = 2 }, "batchsize > 1 is not supported for RandomMultiModalDataset."},
		{"ratio", func(o *Options) { o.RandomMMNumMMItemsRangeRatio = 1.5 }, "num_mm_items_range_ratio must be in [0, 1]."},
		{"modality", func(o *Options) {
			o.RandomMMLimitMMPerPrompt = `{"image": 1}`
			o.RandomMMBucketConfig = "{(2, 2, 3): 1}"
		},
			"Modality video is not in limit_mm_per_prompt: dict_keys(['image'])"},
		{"negative", func(o *Options) { o.RandomMMBucketConfig = "{(2, 2, 1): -1}" }, "Bucket config values must be non-negative."},
		{"zero", func(o *Options) { o.RandomMMBucketConfig = "{(2, 2, 1): 0.0}" }, "Bucket config values must be non-zero."},
		{"min>max", func(o *Options) {
			o.RandomMMBaseItemsPerRequest = 5
			o.RandomMMLimitMMPerPrompt = `{"image": 2}`
			o.RandomMMBucketConfig = "{(2, 2, 1): 1}"
		},
			"Min num mm items is greater than max mm items: 5 > 2"},
		{"frames", func(o *Options) { o.RandomMMBucketConfig = "{(2, 2, 0): 1}" }, "Invalid multimodal item configuration: (2, 2, 0)"},
		{"key", func(o *Options) { o.RandomMMBucketConfig = "{(2, 2): 1}" }, "Invalid bucket key (2, 2). Expected tuple (H, W, T)."},
		{"string key", func(o *Options) { o.RandomMMBucketConfig = `{"(2, x, 1)": 1}` }, "Invalid bucket key '(2, x, 1)'. Expected tuple (H, W, T)."},
		{"not a dict", func(o *Options) { o.RandomMMBucketConfig = "[1]" }, "Bucket config must parse to a dict."},
		{"huge", func(o *Options) { o.RandomMMBucketConfig = "{(100000, 100000, 1): 1}" }, "at most 1073741824 bytes"},
		{"limit json", func(o *Options) { o.RandomMMLimitMMPerPrompt = `{"image": 1.5}` }, `the limit of "image" must be an integer`},
		{"limit list", func(o *Options) { o.RandomMMLimitMMPerPrompt = `[1]` }, "expected a JSON object"},
	} {
		o := base
		c.edit(&o)
		_, err := RandomMM(o, newFake(), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
			continue
		}
		if code := exitcode.Of(err); code != exitcode.BadUsage {
			t.Errorf("%s: exit status %d, want %d", c.name, code, exitcode.BadUsage)
		}
	}
}

// TestParseMMBuckets checks the Python literal forms vLLM's
// ast.literal_eval accepts: string keys, trailing commas, ints, exponents,
// and a repeated key that keeps its first place and its last value.
func TestParseMMBuckets(t *testing.T) {
	t.Parallel()
	got, err := parseMMBuckets(`{ (1,2,1): 1, "(3, 4, 5)": 2.5e-1, (1, 2, 1,): 0.5 , '(6,7,1)':0,}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []MMBucket{{1, 2, 1, 0.5}, {3, 4, 5, 0.25}, {6, 7, 1, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	def, err := parseMMBuckets(DefaultMMBuckets)
	if err != nil || len(def) != 3 || def[2].Frames != 16 {
		t.Errorf("default: %v, %v", def, err)
	}
}

// TestRandomMMChatAndEncoding checks what is sent: JPEG data URLs of the
// drawn size, videos as JPEG frame lists, and with
// --enable-multimodal-chat one prebuilt user message whose text part comes
// first with vLLM's key order.
func TestRandomMMChatAndEncoding(t *testing.T) {
	t.Parallel()
	opts := Options{Name: "random-mm", Backend: "openai-chat", NumPrompts: 2, RandomInputLen: 10, RandomOutputLen: 4, RandomBatchSize: 1,
		RandomMMBaseItemsPerRequest: 2, RandomMMLimitMMPerPrompt: `{"image": 1, "video": 1}`, RandomMMBucketConfig: "{(16, 24, 1): 0.5, (8, 8, 3): 0.5}"}
	plain, err := RandomMM(opts, newFake(), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s := plain[0]
	if s.Prompt == "" || len(s.MultiModal) != 2 || s.PromptParts != nil {
		t.Fatalf("sample: %+v", s)
	}
	var kinds []string
	for _, m := range s.MultiModal {
		sum := MediaSummary(m)
		kinds = append(kinds, sum[:strings.Index(sum, " ")])
		if !strings.HasPrefix(sum, "image_url data:image/jpeg;base64 (") && !strings.HasPrefix(sum, "video_url data:video/jpeg;base64 (") {
			t.Errorf("summary %q", sum)
		}
		checkMedia(t, m)
	}
	if !slicesEqualUnordered(kinds, []string{"image_url", "video_url"}) {
		t.Errorf("kinds %v: the limits allow one image and one video", kinds)
	}
	opts.EnableMultimodalChat = true
	chat, err := RandomMM(opts, newFake(), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c := chat[0]
	if c.Prompt != "" || c.MultiModal != nil || len(c.PromptParts) != 1 {
		t.Fatalf("chat sample: %+v", c)
	}
	b, _ := pyjson.AppendCompact(nil, c.PromptParts[0])
	wantHead := `{"role":"user","content":[{"text":` + strconv.Quote(s.Prompt) + `,"type":"text"},{"type":`
	if !strings.HasPrefix(string(b), wantHead) {
		t.Errorf("chat message starts %.120s, want %s", b, wantHead)
	}
}

func slicesEqualUnordered(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		seen[x]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// checkMedia decodes every JPEG of an image or video part.
func checkMedia(t *testing.T, part *pyjson.Object) {
	t.Helper()
	typ, _ := part.Get("type")
	inner, _ := part.Get(typ.(string))
	u, _ := inner.(*pyjson.Object).Get("url")
	_, data, _ := strings.Cut(u.(string), ",")
	frames := strings.Split(data, ",")
	if typ == "video_url" && len(frames) != 3 || typ == "image_url" && len(frames) != 1 {
		t.Fatalf("%s with %d frames", typ, len(frames))
	}
	for _, f := range frames {
		if err := decodeJPEGBase64(f); err != nil {
			t.Error(errors.Join(errors.New(typ.(string)), err))
		}
	}
}

func decodeJPEGBase64(s string) error {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	_, err = jpeg.Decode(bytes.NewReader(b))
	return err
}
