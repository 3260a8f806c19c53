package backend

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// referenceDecode is the straightforward encoding/json decoder that the
// hand-written scanner replaces; FuzzDecodeMatchesReference holds the two to
// the same results.
func referenceDecode(eventType string, data []byte, c *Chunk, chat bool) error {
	type content struct {
		Content *string `json:"content"`
	}
	var ev struct {
		Choices []struct {
			Text    *string  `json:"text"`
			Delta   *content `json:"delta"`
			Message *content `json:"message"`
		} `json:"choices"`
		Usage   json.RawMessage `json:"usage"`
		Error   json.RawMessage `json:"error"`
		Metrics *struct {
			QueueTimeMS *float64 `json:"queue_time_ms"`
			TTFTMS      *float64 `json:"time_to_first_token_ms"`
		} `json:"metrics"`
		Object  string `json:"object"`
		Message string `json:"message"`
	}
	*c = Chunk{CompletionTokens: -1, PromptTokens: -1, CachedTokens: -1, ServerQueueMS: -1, ServerTTFTMS: -1, ServerPromptMS: -1, ServerDecodeMS: -1}
	err := json.Unmarshal(data, &ev)
	if err == nil && string(bytes.TrimSpace(data)) == "null" {
		// json.Unmarshal leaves a struct as it is for null, but vLLM's
		// data.get("choices") fails on None and fails the request
		// (vllm/benchmarks/lib/endpoint_request_func.py@11dfa3169): an
		// event must be an object, as the scanner says.
		err = errors.New("null event")
	}
	if err != nil {
		if eventType == "error" {
			c.Error = string(bytes.TrimSpace(data))
			return nil
		}
		return err
	}
	e := event{object: ev.Object, message: ev.Message, errRaw: ev.Error}
	if msg, ok := e.errorMessage(); ok || eventType == "error" {
		if !ok {
			msg = string(bytes.TrimSpace(data))
		}
		c.Error = msg
		return nil
	}
	if ev.Metrics != nil {
		if ev.Metrics.QueueTimeMS != nil {
			c.ServerQueueMS = *ev.Metrics.QueueTimeMS
		}
		if ev.Metrics.TTFTMS != nil {
			c.ServerTTFTMS = *ev.Metrics.TTFTMS
		}
	}
	if len(ev.Choices) > 0 {
		c.Token = true
		ch := ev.Choices[0]
		switch {
		case !chat && ch.Text != nil:
			c.Text = *ch.Text
		case chat && ch.Delta != nil && ch.Delta.Content != nil:
			c.Text = *ch.Delta.Content
		case chat && ch.Message != nil && ch.Message.Content != nil:
			c.Text = *ch.Message.Content
		}
		if !isEmptyObject(ev.Usage) {
			return referenceUsage(ev.Usage, c)
		}
		return nil
	}
	if !isEmptyObject(ev.Usage) {
		c.Usage = true
		return referenceUsage(ev.Usage, c)
	}
	return nil
}

// referenceUsage reads an event's usage object into c.
func referenceUsage(raw json.RawMessage, c *Chunk) error {
	var u struct {
		PromptTokens        *int `json:"prompt_tokens"`
		CompletionTokens    *int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens *int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	}
	if err := json.Unmarshal(raw, &u); err != nil {
		return err
	}
	if u.CompletionTokens != nil {
		c.CompletionTokens = *u.CompletionTokens
	}
	if u.PromptTokens != nil {
		c.PromptTokens = *u.PromptTokens
	}
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil {
		c.CachedTokens = *u.PromptTokensDetails.CachedTokens
	}
	return nil
}

// hasDuplicateKeys reports whether any object in data repeats a key.
func hasDuplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj    bool
		keys   map[string]bool
		expect bool // next string token in an object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isKey := top != nil && top.obj && top.expect
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				if top != nil && top.obj {
					top.expect = true
				}
				stack = append(stack, &frame{obj: true, keys: map[string]bool{}, expect: true})
			case '[':
				if top != nil && top.obj {
					top.expect = true
				}
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if isKey {
				if top.keys[v] {
					return true
				}
				top.keys[v] = true
				top.expect = false
				continue
			}
			if top != nil && top.obj {
				top.expect = true
			}
		default:
			if top != nil && top.obj {
				top.expect = true
			}
		}
	}
}

// fieldNames are the keys the decoders look at. encoding/json matches keys
// case-insensitively and Python (and the scanner) do not, so inputs with a
// case variant of one of them are not compared.
var fieldNames = []string{"choices", "text", "delta", "message", "content", "usage", "error", "metrics",
	"object", "queue_time_ms", "time_to_first_token_ms", "prompt_tokens", "completion_tokens",
	"prompt_tokens_details", "cached_tokens"}

func FuzzDecodeMatchesReference(f *testing.F) {
	for _, s := range []string{
		`{"id":"x","choices":[{"index":0,"text":" a\n\u4e2d\ud83d\ude00","finish_reason":null}]}`,
		`{"choices":[{"delta":{"content":"b","role":"assistant"}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":3}}}`,
		`{"choices":[],"usage":{"completion_tokens":2},"metrics":{"queue_time_ms":0.0,"time_to_first_token_ms":1250.0}}`,
		`{"error":{"object":"error","message":"boom","code":400}}`,
		`{"object":"error","message":"flat"}`,
		`{"object":"\u0065rror","message":"escaped"}`,
		`{"object":"text_completion","choices":[{"text":"c"}]}`,
		`{"choices":[null,{"text":1}],"usage":{}}`,
		`{"choices":[{"text":"\ud800x"}]}`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, data string, chat bool) {
		lower := bytes.ToLower([]byte(data))
		for _, k := range fieldNames {
			if bytes.Count(lower, []byte(k)) != bytes.Count([]byte(data), []byte(k)) {
				return
			}
		}
		if hasDuplicateKeys([]byte(data)) {
			return // RFC 8259 leaves repeated names unspecified
		}
		var got, want Chunk
		errGot := decode("", []byte(data), &got, chat)
		errWant := referenceDecode("", []byte(data), &want, chat)
		if (errGot != nil) != (errWant != nil) {
			t.Fatalf("%q: scanner err %v, reference err %v", data, errGot, errWant)
		}
		if errGot != nil {
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q (-reference +scanner):\n%s", data, diff)
		}
	})
}

func BenchmarkDecodeReference(b *testing.B) {
	data := []byte(`{"id":"cmpl-bench-0","object":"text_completion","created":1700000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":" word","logprobs":null,"finish_reason":null,"stop_reason":null}]}`)
	var c Chunk
	b.ReportAllocs()
	for range b.N {
		if err := referenceDecode("", data, &c, false); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTrailingNUL: a NUL byte after the event's JSON is trailing data, as
// for encoding/json, on both decoders (FuzzDecodeMatchesReference found
// "{}\x00" taken as a valid event: the scanner's peek returns 0 at the
// end and for a NUL byte alike).
func TestTrailingNUL(t *testing.T) {
	var ev event
	if err := ev.scan([]byte("{}\x00"), false); err == nil {
		t.Error(`the completions decoder took "{}\x00"`)
	}
	var rev responsesEvent
	if err := rev.scan([]byte("{}\x00")); err == nil {
		t.Error(`the responses decoder took "{}\x00"`)
	}
	if err := ev.scan([]byte("{} \n"), false); err != nil {
		t.Errorf("trailing whitespace: %v", err)
	}
}
