package sim

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// errorCase is a request the server refuses and the answer it gives.
type errorCase struct {
	name, method, path, body string
	wantStatus               int
	wantBody, wantAllow      string
}

// validationBody is the 400 body vLLM's RequestValidationError handler
// writes for one error of type typ at loc (a Python tuple) in param.
func validationBody(typ, loc, msg, param string) string {
	return `{"error":{"message":"1 validation error:\n  {'type': '` + typ + `', 'loc': ` + loc + `, 'msg': '` + msg +
		`'}","type":"Bad Request","param":"` + param + `","code":400}}`
}

// servingErrorBody is the body of a serving-layer error; param "" is null.
func servingErrorBody(msg, typ, param string, code int) string {
	p := "null"
	if param != "" {
		p = `"` + param + `"`
	}
	return `{"error":{"message":"` + msg + `","type":"` + typ + `","param":` + p + `,"code":` + strconv.Itoa(code) + `}}`
}

// errorCases are the refused requests of TestErrorResponses.
var errorCases = []errorCase{
	// Body validation, as vLLM's RequestValidationError handler writes it.
	{"malformed json", http.MethodPost, "/v1/completions", `{"prompt": "x",`, 400,
		validationBody("json_invalid", "('body', 15)", "JSON decode error", "body.15"), ""},
	{"empty body", http.MethodPost, "/v1/chat/completions", ``, 400,
		validationBody("json_invalid", "('body', 0)", "JSON decode error", "body.0"), ""},
	{"body not an object", http.MethodPost, "/v1/completions", `[1,2]`, 400,
		validationBody("model_attributes_type", "('body',)", "Input should be a valid dictionary or object to extract fields from", "body"), ""},
	{"missing prompt", http.MethodPost, "/v1/completions", `{"model":"gobench/sim","max_tokens":3}`, 400,
		validationBody("missing", "('body', 'prompt')", "Field required", "body.prompt"), ""},
	{"null prompt", http.MethodPost, "/v1/completions", `{"prompt":null}`, 400,
		validationBody("missing", "('body', 'prompt')", "Field required", "body.prompt"), ""},
	{"missing messages", http.MethodPost, "/v1/chat/completions", `{"prompt":"completions field on chat"}`, 400,
		validationBody("missing", "('body', 'messages')", "Field required", "body.messages"), ""},
	{"messages not a list", http.MethodPost, "/v1/chat/completions", `{"messages":"hi"}`, 400,
		validationBody("list_type", "('body', 'messages')", "Input should be a valid list", "body.messages"), ""},
	{"message without role", http.MethodPost, "/v1/chat/completions", `{"messages":[{"content":"hi"}]}`, 400,
		validationBody("missing", "('body', 'messages', 0, 'role')", "Field required", "body.messages.0.role"), ""},
	{"wrongly typed field", http.MethodPost, "/v1/completions", `{"prompt":"x","max_tokens":"many"}`, 400,
		validationBody("int_type", "('body', 'max_tokens')", "Input should be a valid integer", "body.max_tokens"), ""},
	{"stream options without stream", http.MethodPost, "/v1/completions", `{"prompt":"x","stream_options":{"include_usage":true}}`, 400,
		validationBody("value_error", "('body',)", "Value error, Stream options can only be defined when `stream=True`.", "body"), ""},
	// Serving-layer checks.
	{"unknown model", http.MethodPost, "/v1/completions", `{"model":"other","prompt":"x"}`, 404,
		servingErrorBody("The model `other` does not exist.", "NotFoundError", "", 404), ""},
	{"unknown model on chat", http.MethodPost, "/v1/chat/completions", `{"model":"other","messages":[]}`, 404,
		servingErrorBody("The model `other` does not exist.", "NotFoundError", "", 404), ""},
	{"zero max_tokens", http.MethodPost, "/v1/completions", `{"prompt":"x","max_tokens":0}`, 400,
		servingErrorBody("max_tokens must be at least 1, got 0.", "BadRequestError", "max_tokens", 400), ""},
	{"negative max_completion_tokens", http.MethodPost, "/v1/chat/completions", `{"messages":[],"max_completion_tokens":-2}`, 400,
		servingErrorBody("max_tokens must be at least 1, got -2.", "BadRequestError", "max_tokens", 400), ""},
	{"min_tokens above max_tokens", http.MethodPost, "/v1/completions", `{"prompt":"x","max_tokens":2,"min_tokens":3}`, 400,
		servingErrorBody("min_tokens must be less than or equal to max_tokens=2, got 3.", "BadRequestError", "min_tokens", 400), ""},
	{"n above one", http.MethodPost, "/v1/completions", `{"prompt":"x","n":2}`, 400,
		servingErrorBody("n=2 is not supported by the simulator, only n=1.", "BadRequestError", "", 400), ""},
	{"batched prompts", http.MethodPost, "/v1/completions", `{"prompt":["a","b"]}`, 400,
		servingErrorBody("a list of 2 prompts is not supported by the simulator, send one prompt per request.", "BadRequestError", "prompt", 400), ""},
	// Routing errors keep FastAPI's own bodies.
	{"unknown path", http.MethodPost, "/v1/no-such-endpoint", `{}`, 404, `{"detail":"Not Found"}`, ""},
	{"root path", http.MethodGet, "/", ``, 404, `{"detail":"Not Found"}`, ""},
	{"GET completions", http.MethodGet, "/v1/completions", ``, 405, `{"detail":"Method Not Allowed"}`, "POST"},
	{"POST models", http.MethodPost, "/v1/models", `{}`, 405, `{"detail":"Method Not Allowed"}`, "GET"},
	{"DELETE health", http.MethodDelete, "/health", ``, 405, `{"detail":"Method Not Allowed"}`, "GET"},
	{"GET start_profile", http.MethodGet, "/start_profile", ``, 405, `{"detail":"Method Not Allowed"}`, "POST"},
}

// TestErrorResponses: each refused request gets vLLM's (or FastAPI's)
// status, JSON body and Allow header.
func TestErrorResponses(t *testing.T) {
	t.Parallel()
	tests := errorCases
	s := newTestServer(t, Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := do(t, s.Handler(), tt.method, tt.path, tt.body, nil)
			if rec.Code != tt.wantStatus {
				t.Errorf("status %d, want %d", rec.Code, tt.wantStatus)
			}
			if got := rec.Body.String(); got != tt.wantBody {
				t.Errorf("body\n got %s\nwant %s", got, tt.wantBody)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if got := rec.Header().Get("Allow"); got != tt.wantAllow {
				t.Errorf("Allow %q, want %q", got, tt.wantAllow)
			}
		})
	}
}

func TestModelMayBeOmittedOrEmpty(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{Model: "served"})
	for _, body := range []string{
		`{"prompt":"x","max_tokens":1}`,
		`{"model":"","prompt":"x","max_tokens":1}`,
		`{"model":null,"prompt":"x","max_tokens":1}`,
		`{"model":"served","prompt":"x","max_tokens":1}`,
	} {
		rec := do(t, s.Handler(), http.MethodPost, "/v1/completions", body, nil)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"model":"served"`) {
			t.Errorf("%s: status %d body %s", body, rec.Code, rec.Body)
		}
	}
}

// failingEngine rejects requests at admission or fails them after some
// tokens, the way a fault-injecting engine will.
type failingEngine struct {
	startErr error
	after    int // tokens produced before Next fails
}

func (f failingEngine) Start(context.Context, Request) (Stream, error) {
	if f.startErr != nil {
		return nil, f.startErr
	}
	return &failingStream{left: f.after}, nil
}

type failingStream struct{ left int }

func (f *failingStream) Next(ctx context.Context) error {
	if f.left == 0 {
		return errors.New("engine core died")
	}
	f.left--
	return ctx.Err()
}

func (f *failingStream) Close() {}

func TestEngineErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		engine     Engine
		body       string
		wantStatus int
		wantBody   string
	}{
		{
			"rejected at admission", failingEngine{startErr: errors.New("queue full")},
			`{"prompt":"x","stream":true}`, 500,
			`{"error":{"message":"queue full","type":"InternalServerError","param":null,"code":500}}`,
		},
		{
			// A stream that fails mid-way ends with vLLM's error event and [DONE].
			"failed mid-stream", failingEngine{after: 1},
			`{"prompt":"x","max_tokens":3,"ignore_eos":true,"stream":true}`, 200,
			`data: {"id":"cmpl-e","object":"text_completion","created":0,"model":"gobench/sim","choices":[{"index":0,"text":" The","logprobs":null,"finish_reason":null,"stop_reason":null}]}` + "\n\n" +
				`data: {"error":{"message":"engine core died","type":"InternalServerError","param":null,"code":500}}` + "\n\n" +
				"data: [DONE]\n\n",
		},
		{
			"failed without streaming", failingEngine{after: 1},
			`{"prompt":"x","max_tokens":3,"ignore_eos":true}`, 500,
			`{"error":{"message":"engine core died","type":"InternalServerError","param":null,"code":500}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newTestServer(t, Config{Engine: tt.engine})
			rec := do(t, s.Handler(), http.MethodPost, "/v1/completions", tt.body, map[string]string{"X-Request-Id": "e"})
			if rec.Code != tt.wantStatus {
				t.Errorf("status %d, want %d", rec.Code, tt.wantStatus)
			}
			if got := string(normalize(rec.Body.Bytes())); got != tt.wantBody {
				t.Errorf("body\n got %s\nwant %s", got, tt.wantBody)
			}
			if n := s.active.Load(); n != 0 {
				t.Errorf("%d requests still active", n)
			}
		})
	}
}
