package serverapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeServer is a vLLM with every side endpoint; it records each call's
// method, path, headers and body.
type fakeServer struct {
	mu    sync.Mutex
	calls []seen
}

type seen struct {
	method, path string
	header       http.Header
	body         string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.calls = append(f.calls, seen{r.Method, r.URL.Path, r.Header.Clone(), string(b)})
	f.mu.Unlock()
	switch r.URL.Path {
	case "/v1/models":
		io.WriteString(w, `{"object":"list","data":[{"id":"served","root":"org/weights"},{"id":"other"}]}`)
	case "/tokenize":
		io.WriteString(w, `{"tokens":[1,2,3],"count":3,"max_model_len":4096}`)
	case "/detokenize":
		io.WriteString(w, `{"prompt":"a b c"}`)
	case "/tokenizer_info":
		io.WriteString(w, `{"tokenizer_class":"X","added_tokens_decoder":{"7":{"special":true},"2":{"special":true},"5":{"special":false}}}`)
	case "/metrics":
		io.WriteString(w, "vllm:num_requests_running 0\n")
	case "/start_profile", "/stop_profile", "/reset_prefix_cache", "/reset_mm_cache", "/reset_encoder_cache":
	default:
		http.NotFound(w, r)
	}
}

// every calls each method of c once, in the order of their names.
var every = []struct {
	name, method, path string
	call               func(context.Context, *Client) error
}{
	{"FirstModel", "GET", "/v1/models", func(ctx context.Context, c *Client) error { _, _, err := c.FirstModel(ctx); return err }},
	{"Tokenize", "POST", "/tokenize", func(ctx context.Context, c *Client) error { _, err := c.Tokenize(ctx, "m", "a b c", false); return err }},
	{"Detokenize", "POST", "/detokenize", func(ctx context.Context, c *Client) error { _, err := c.Detokenize(ctx, "m", []int{1}); return err }},
	{"TokenizerInfo", "GET", "/tokenizer_info", func(ctx context.Context, c *Client) error { _, err := c.TokenizerInfo(ctx); return err }},
	{"Metrics", "GET", "/metrics", func(ctx context.Context, c *Client) error { _, err := c.Metrics(ctx); return err }},
	{"StartProfile", "POST", "/start_profile", func(ctx context.Context, c *Client) error { return c.StartProfile(ctx) }},
	{"StopProfile", "POST", "/stop_profile", func(ctx context.Context, c *Client) error { return c.StopProfile(ctx) }},
}

// TestHeaders: every call carries the run's headers (the user's --header
// values and the API key's Authorization), Content-Type only with a body.
func TestHeaders(t *testing.T) {
	t.Parallel()
	f := &fakeServer{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	// As backend.Client.Headers builds them, Content-Type included.
	h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer sk-1"}, "X-Tenant": {"t1"}}
	c := &Client{HTTP: srv.Client(), BaseURL: srv.URL + "/", Header: h}
	for _, e := range every {
		if err := e.call(context.Background(), c); err != nil {
			t.Errorf("%s: %v", e.name, err)
		}
	}
	if len(f.calls) != len(every) {
		t.Fatalf("%d calls, want %d", len(f.calls), len(every))
	}
	for i, e := range every {
		got := f.calls[i]
		if got.method != e.method || got.path != e.path {
			t.Errorf("%s sent %s %s, want %s %s", e.name, got.method, got.path, e.method, e.path)
		}
		wantCT := ""
		if e.method == "POST" {
			wantCT = "application/json"
		}
		if got.header.Get("Authorization") != "Bearer sk-1" || got.header.Get("X-Tenant") != "t1" || got.header.Get("Content-Type") != wantCT {
			t.Errorf("%s headers %v, want Authorization, X-Tenant and Content-Type %q", e.name, got.header, wantCT)
		}
	}
	if h.Get("Content-Type") != "application/json" {
		t.Error("the Client's Header was modified")
	}
}

// TestBodies pins what the JSON calls send and how their answers read.
func TestBodies(t *testing.T) {
	t.Parallel()
	f := &fakeServer{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), BaseURL: srv.URL}
	ctx := context.Background()
	name, id, err := c.FirstModel(ctx)
	if err != nil || name != "served" || id != "org/weights" {
		t.Errorf("FirstModel = %q, %q, %v", name, id, err)
	}
	ids, err := c.Tokenize(ctx, "m", "a b c", true)
	if err != nil || !cmp.Equal(ids, Tokenized{Tokens: []int{1, 2, 3}, Count: 3}) || !ids.VLLM() {
		t.Errorf("Tokenize = %v, %v", ids, err)
	}
	text, err := c.Detokenize(ctx, "m", nil)
	if err != nil || text != "a b c" {
		t.Errorf("Detokenize = %q, %v", text, err)
	}
	info, err := c.TokenizerInfo(ctx)
	if err != nil || !cmp.Equal(info, TokenizerInfo{SpecialIDs: []int{2, 7}}) {
		t.Errorf("TokenizerInfo = %+v, %v", info, err)
	}
	if err := c.StartProfile(ctx); err != nil {
		t.Error(err)
	}
	var bodies []map[string]any
	for _, s := range f.calls {
		var m map[string]any
		if s.body != "" {
			if err := json.Unmarshal([]byte(s.body), &m); err != nil {
				t.Fatalf("%s body %q: %v", s.path, s.body, err)
			}
		}
		bodies = append(bodies, m)
	}
	want := []map[string]any{
		nil,
		{"model": "m", "prompt": "a b c", "add_special_tokens": true},
		{"model": "m", "tokens": []any{}}, // never "tokens": null
		nil,
		{},
	}
	if diff := cmp.Diff(want, bodies); diff != "" {
		t.Errorf("bodies (-want +got):\n%s", diff)
	}
}

// TestErrors pins vLLM's texts for the model list and the errors that
// name the endpoint.
func TestErrors(t *testing.T) {
	t.Parallel()
	answer := func(code int, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			io.WriteString(w, body)
		})
	}
	tests := []struct {
		name    string
		server  http.Handler
		call    func(context.Context, *Client) error
		want    string // {base} is the server's URL
		prefix  bool
		maxBody int64
	}{
		{"models HTTP error", answer(500, " boom \n"), every[0].call,
			"Failed to fetch models from server at {base}/v1/models. Check that:\n1. The server is running\n2. The server URL is correct\nError: GET {base}/v1/models: HTTP 500 Internal Server Error: boom", false, 0},
		{"models not JSON", answer(200, "<html>"), every[0].call,
			"Failed to fetch models from server at {base}/v1/models. Check that:\n1. The server is running\n2. The server URL is correct\nError: GET {base}/v1/models: decode the answer: ", true, 0},
		{"no models", answer(200, `{"data":[]}`), every[0].call,
			"No models found on the server at {base}. Make sure the server is running and has models loaded.", false, 0},
		{"tokenize 404", http.NotFoundHandler(), every[1].call, "POST {base}/tokenize: HTTP 404 Not Found: 404 page not found", false, 0},
		{"no tokens", answer(200, `{"count":0}`), every[1].call, `POST {base}/tokenize: the answer has no "tokens"`, false, 0},
		{"no prompt", answer(200, `{}`), every[2].call, `POST {base}/detokenize: the answer has no "prompt"`, false, 0},
		{"profile 500", answer(500, ""), every[5].call, "POST {base}/start_profile: HTTP 500 Internal Server Error: ", false, 0},
		{"metrics at the bound", answer(200, strings.Repeat("x", 16)), every[4].call, "", false, 16},
		{"metrics over the bound", answer(200, strings.Repeat("x", 17)), every[4].call, "GET {base}/metrics: the answer is larger than 16 bytes", false, 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.server)
			defer srv.Close()
			c := &Client{HTTP: srv.Client(), BaseURL: srv.URL, MaxBody: tc.maxBody}
			err := tc.call(context.Background(), c)
			want := strings.ReplaceAll(tc.want, "{base}", srv.URL)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tc.prefix && !strings.HasPrefix(got, want) || !tc.prefix && got != want {
				t.Errorf("error\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// TestMetricsText: /metrics comes back as the server wrote it.
func TestMetricsText(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(&fakeServer{})
	defer srv.Close()
	text, err := (&Client{HTTP: srv.Client(), BaseURL: srv.URL}).Metrics(context.Background())
	if err != nil || string(text) != "vllm:num_requests_running 0\n" {
		t.Errorf("Metrics = %q, %v", text, err)
	}
}

// TestTimeouts: a call that outlives its own timeout says it timed out and
// which endpoint; each timeout field bounds its own calls; the caller's
// cancellation is not reported as a timeout.
func TestTimeouts(t *testing.T) {
	t.Parallel()
	// The body is read first: the server notices the client hanging up
	// (and cancels r.Context()) only after that.
	hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	})
	srv := httptest.NewServer(hang)
	t.Cleanup(srv.Close) // after the parallel subtests
	const short = 20 * time.Millisecond
	for _, e := range every {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			// Only the field that bounds this call is short, so a pass
			// shows which field bounds which call.
			c := &Client{HTTP: srv.Client(), BaseURL: srv.URL, Timeout: time.Hour, MetricsTimeout: time.Hour, ProfileTimeout: time.Hour}
			switch e.path {
			case "/metrics":
				c.MetricsTimeout = short
			case "/start_profile", "/stop_profile", "/reset_prefix_cache", "/reset_mm_cache", "/reset_encoder_cache":
				c.ProfileTimeout = short
			default:
				c.Timeout = short
			}
			err := e.call(context.Background(), c)
			var te *TimeoutError
			if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want a *TimeoutError", err)
			}
			want := e.method + " " + srv.URL + e.path + ": timed out after 20ms"
			if te.Error() != want || !strings.Contains(err.Error(), want) {
				t.Errorf("err = %q, want it to say %q", err, want)
			}
		})
	}
	t.Run("caller cancels", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(short, cancel)
		_, err := (&Client{HTTP: srv.Client(), BaseURL: srv.URL}).Metrics(ctx)
		var te *TimeoutError
		if errors.As(err, &te) || !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want the caller's cancellation", err)
		}
	})
}

// TestDefaults: zero fields mean the documented defaults.
func TestDefaults(t *testing.T) {
	t.Parallel()
	c := &Client{}
	got := []time.Duration{timeout(c.Timeout, DefaultTimeout), timeout(c.MetricsTimeout, DefaultMetricsTimeout), timeout(c.ProfileTimeout, DefaultProfileTimeout)}
	if want := []time.Duration{30 * time.Second, 10 * time.Second, 5 * time.Minute}; !cmp.Equal(got, want) {
		t.Errorf("defaults %v, want %v", got, want)
	}
	hc := &http.Client{}
	if d := c.WithHTTP(hc); d.HTTP != hc || c.HTTP != nil {
		t.Error("WithHTTP must copy the client")
	}
}

// llamaTokenize answers /tokenize as llama.cpp's llama-server does (0.7.0):
// it reads "content" and answers {"tokens": [...]} without a count; a
// request without "content" gets an empty list.
func llamaTokenize(w http.ResponseWriter, r *http.Request) {
	var req struct{ Content string }
	_ = json.NewDecoder(r.Body).Decode(&req)
	ids := []int{}
	for range strings.Fields(req.Content) {
		ids = append(ids, len(ids)+1)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"tokens": ids})
}

// TestTokenizeShapes: vLLM's answer says its count; llama.cpp's does not,
// answers nothing to vLLM's field and the tokens to its own.
func TestTokenizeShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    Tokenized
		vllm    bool
	}{
		{"vLLM", func(w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, `{"count":3,"max_model_len":4096,"tokens":[1,2,3],"token_strs":null}`)
		}, Tokenized{Tokens: []int{1, 2, 3}, Count: 3}, true},
		{"llama.cpp", llamaTokenize, Tokenized{Tokens: []int{}, Count: -1}, false},
		{"count 0", func(w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, `{"count":0,"tokens":[]}`)
		}, Tokenized{Tokens: []int{}, Count: 0}, true},
		{"count disagrees", func(w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, `{"count":5,"tokens":[1]}`)
		}, Tokenized{Tokens: []int{1}, Count: 5}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			c := &Client{HTTP: srv.Client(), BaseURL: srv.URL}
			got, err := c.Tokenize(context.Background(), "m", "a b c", false)
			if err != nil || !cmp.Equal(got, tt.want) || got.VLLM() != tt.vllm {
				t.Errorf("Tokenize = %+v (vLLM's: %v), %v; want %+v, %v", got, got.VLLM(), err, tt.want, tt.vllm)
			}
		})
	}
	srv := httptest.NewServer(http.HandlerFunc(llamaTokenize))
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), BaseURL: srv.URL}
	ids, err := c.TokenizeContent(context.Background(), "a b c", false)
	if err != nil || !cmp.Equal(ids, []int{1, 2, 3}) {
		t.Errorf("TokenizeContent = %v, %v", ids, err)
	}
}
