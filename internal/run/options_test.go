package run

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/report"
)

// TestValidateProgrammatic: Validate refuses
// what the command line refuses for a caller that builds Options itself,
// as a usage error naming the flag; DefaultOptions pass.
func TestValidateProgrammatic(t *testing.T) {
	t.Parallel()
	if o := DefaultOptions(); o.Validate() != nil {
		t.Fatalf("defaults: %v", o.Validate())
	}
	tests := []struct {
		name string
		edit func(o *Options)
		want string
	}{
		{"host header", func(o *Options) { o.Headers = []backend.Header{{Key: "Host", Value: "x"}} }, "argument --header: header Host"},
		{"CRLF header", func(o *Options) { o.Headers = []backend.Header{{Key: "X-A", Value: "1\r\nX-B: 2"}} }, "argument --header: header X-A: the value holds"},
		{"empty header name", func(o *Options) { o.Headers = []backend.Header{{Value: "x"}} }, "argument --header: a header needs a name"},
		{"request id prefix", func(o *Options) { o.RequestIDPrefix = "a\x00" }, "argument --request-id-prefix"},
		{"negative prompts", func(o *Options) { o.NumPrompts = -1 }, "argument --num-prompts: must be at least 1"},
		{"negative warm-ups", func(o *Options) { o.NumWarmups = -1 }, "argument --num-warmups"},
		{"negative grace", func(o *Options) { o.InterruptGrace = -time.Second }, "argument --interrupt-grace: must not be negative (got -1.0)"},
		{"negative read timeout", func(o *Options) { o.ReadTimeout = -time.Second }, "argument --read-timeout: must not be negative"},
		{"negative ready check", func(o *Options) { o.ReadyCheckTimeout = -time.Second }, "argument --ready-check-timeout-sec: must not be negative (got -1)"},
		{"NaN top_p", func(o *Options) { o.SamplingParams.Set("top_p", math.NaN()) }, "argument --top-p: nan is not a finite number"},
		{"inf temperature", func(o *Options) { o.SamplingParams.Set("temperature", math.Inf(1)) }, "argument --temperature: inf is not a finite number"},
		{"NaN goodput", func(o *Options) { o.Goodput = map[string]float64{"tpot": math.NaN()} }, "argument --goodput: the tpot objective"},
		{"goodput with pooling", func(o *Options) { o.Backend = "openai-embeddings"; o.Goodput = map[string]float64{"e2el": 100} },
			"argument --goodput: --backend openai-embeddings is a pooling backend, for which vLLM computes no goodput"},
		{"unknown metric", func(o *Options) { o.PercentileMetrics = []string{"ttft", "nope"} }, "argument --percentile-metrics: unknown metric 'nope'"},
		{"metadata key", func(o *Options) { o.Metadata = []report.KV{{Value: "v"}} }, "argument --metadata: KEY=VALUE needs a key (got '=v')"},
		{"port", func(o *Options) { o.Port = 70000 }, "argument --port"},
		{"base URL credentials stay out", func(o *Options) { o.BaseURL = "http://user:pw@h:99999" }, "argument --base-url: the port must be between 1 and 65535 (got 99999)"},
		{"base URL bad port", func(o *Options) { o.BaseURL = "http://user:pw@h:x1" }, `argument --base-url: not a URL: invalid port ":x1" after host`},
		{"endpoint", func(o *Options) { o.Endpoint = "/v1/models" }, "argument --endpoint: the OpenAI Completions API URL must end with completions"},
		{"request rate", func(o *Options) { o.Schedule.RequestRate = 1e-300 }, "argument --request-rate"},
		{"dataset length", func(o *Options) { o.Dataset.RandomPrefixLen = -3 }, "argument --random-prefix-len: must not be negative (got -3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions()
			tt.edit(&o)
			err := o.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if ue := new(exitcode.UsageError); !errors.As(err, &ue) {
				t.Errorf("%v is not a usage error", err)
			}
			if strings.Contains(err.Error(), "pw") {
				t.Errorf("the credentials are in %q", err)
			}
		})
	}
}
