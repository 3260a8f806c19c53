package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is the simulated OpenAI-compatible server. It is safe for
// concurrent use; one Server may back several listeners.
type Server struct {
	cfg     Config
	handler http.Handler
	// words are the vocabulary tokens and texts their JSON literals (see
	// vocabularyTokens).
	words []string
	texts [][]byte
	// active counts generation requests between admission and their last
	// byte, so tests can see that a handler really stopped.
	active atomic.Int64
	logMu  sync.Mutex

	engine  Engine
	sched   *Scheduler // the engine model, when it is the engine
	needIDs bool       // the engine hashes prompt token ids (prefix caching)
	metrics *promMetrics
	rec     *recorder // nil without Config.Record
	stats   *statLogger
}

// NewServer validates cfg, fills in its defaults and returns a server.
func NewServer(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults(flagName)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, engine: cfg.Engine}
	s.words, s.texts = vocabularyTokens(cfg.Tokenizer)
	var engineCfg *SchedulerConfig // the scheduler's, when it is the engine
	if cfg.Engine == nil {
		engineCfg = cfg.Scheduler
	}
	s.metrics = newPromMetrics(cfg.Model, cfg.MaxModelLen, engineCfg)
	s.stats = newStatLogger(engineCfg != nil && engineCfg.NumSpeculativeTokens > 0)
	if cfg.Engine == nil {
		sc := *cfg.Scheduler
		sc.OnStep = func(st StepStats) {
			s.metrics.step(st)
			s.stats.step(st)
			if cfg.Scheduler.OnStep != nil {
				cfg.Scheduler.OnStep(st)
			}
		}
		sched, err := NewScheduler(sc)
		if err != nil {
			return nil, err
		}
		s.engine, s.sched = sched, sched
		s.needIDs = sc.EnablePrefixCaching
	}
	if cfg.Record != nil {
		name := "fixed"
		if s.sched != nil {
			name = "scheduler"
		} else if _, ok := cfg.Engine.(FixedLatency); !ok {
			name = "custom"
		}
		s.rec = newRecorder(cfg.Record, cfg.Model, name)
	}
	s.handler = s.routes()
	return s, nil
}

// RecordErr returns the first error writing Config.Record, if any, so a
// command can report a record that could not be written.
func (s *Server) RecordErr() error {
	if s.rec == nil {
		return nil
	}
	return s.rec.Err()
}

// Handler returns the server's HTTP handler, for httptest or for mounting
// in another server.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve accepts connections on ln until ctx ends, then shuts down
// gracefully: it stops accepting, lets in-flight requests (streams
// included) finish for up to Config.ShutdownTimeout, and returns nil. If
// they have not finished by then it closes their connections and returns an
// error wrapping context.DeadlineExceeded. Serve closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	// fresh holds the connections that have not carried a request yet.
	var fresh sync.Map
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 30 * time.Second,
		// Request contexts deliberately do not derive from ctx: cancelling
		// ctx must not cut the streams that the graceful shutdown is
		// waiting for.
		ConnState: func(c net.Conn, st http.ConnState) {
			if st == http.StateNew {
				fresh.Store(c, struct{}{})
			} else {
				fresh.Delete(c)
			}
		},
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if s.cfg.Logger != nil && s.cfg.LogStatsInterval > 0 {
		sctx, stop := context.WithCancel(ctx)
		defer stop()
		go s.logStats(sctx, s.cfg.LogStatsInterval)
	}
	select {
	case err := <-errc:
		return fmt.Errorf("sim: serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	s.logf("shutting down, waiting up to %v for %d in-flight requests", s.cfg.ShutdownTimeout, s.active.Load())
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	// A connection a client dialled but never used (an HTTP pool's spare)
	// would hold Shutdown for 5 s, net/http's grace for slow first
	// requests: stop accepting, then close those at once.
	_ = ln.Close()
	fresh.Range(func(c, _ any) bool {
		_ = c.(net.Conn).Close()
		return true
	})
	err := srv.Shutdown(sctx)
	<-errc // returns http.ErrServerClosed as soon as Shutdown starts
	if errors.Is(err, net.ErrClosed) {
		// Shutdown closes the listener again, which was closed above.
		err = nil
	}
	if err != nil {
		closeErr := srv.Close()
		return fmt.Errorf("sim: graceful shutdown: %w", errors.Join(err, closeErr))
	}
	return nil
}

// router dispatches on exact paths and then on methods, so that a known
// path with the wrong method is a 405 and an unknown path a 404, each with
// the JSON body FastAPI writes (vLLM leaves both to FastAPI).
type router map[string]map[string]http.HandlerFunc

func (s *Server) routes() router {
	return router{
		"/v1/completions":          {http.MethodPost: s.handleCompletions},
		"/v1/chat/completions":     {http.MethodPost: s.handleChat},
		"/v1/embeddings":           {http.MethodPost: s.handleEmbeddings},
		"/v1/responses":            {http.MethodPost: s.handleResponses},
		"/embeddings":              {http.MethodPost: s.handleInfinityEmbeddings},
		"/pooling":                 {http.MethodPost: s.handlePooling},
		"/rerank":                  {http.MethodPost: s.handleRerank},
		"/v1/rerank":               {http.MethodPost: s.handleRerank},
		"/v2/rerank":               {http.MethodPost: s.handleRerank},
		"/v1/audio/transcriptions": {http.MethodPost: s.handleTranscriptions},
		"/v1/audio/translations":   {http.MethodPost: s.handleTranslations},
		"/v1/models":               {http.MethodGet: s.handleModels},
		"/health":                  {http.MethodGet: s.handleHealth},
		"/metrics":                 {http.MethodGet: s.metrics.handler().ServeHTTP},
		"/tokenize":                {http.MethodPost: s.handleTokenize},
		"/detokenize":              {http.MethodPost: s.handleDetokenize},
		"/start_profile":           {http.MethodPost: s.handleProfile("started")},
		"/stop_profile":            {http.MethodPost: s.handleProfile("stopped")},
		"/reset_prefix_cache":      {http.MethodPost: s.handleResetCache(true)},
		"/reset_mm_cache":          {http.MethodPost: s.handleResetCache(false)},
		"/reset_encoder_cache":     {http.MethodPost: s.handleResetCache(false)},
	}
}

// ServeHTTP implements http.Handler.
func (rt router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	methods, ok := rt[r.URL.Path]
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
		return
	}
	m := r.Method
	if m == http.MethodHead {
		// Starlette serves HEAD wherever it serves GET.
		m = http.MethodGet
	}
	if h, ok := methods[m]; ok {
		h(w, r)
		return
	}
	allow := make([]string, 0, len(methods))
	for m := range methods {
		allow = append(allow, m)
	}
	sort.Strings(allow)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"detail": "Method Not Allowed"})
}

// modelCard is vLLM's ModelCard; vllm bench serve reads data[0].id and
// data[0].root.
type modelCard struct {
	ID          string            `json:"id"`
	Object      string            `json:"object"`
	Created     int64             `json:"created"`
	OwnedBy     string            `json:"owned_by"`
	Root        string            `json:"root"`
	Parent      *string           `json:"parent"`
	MaxModelLen int               `json:"max_model_len"`
	Permission  []modelPermission `json:"permission"`
}

// modelPermission is vLLM's ModelPermission with its default values.
type modelPermission struct {
	ID                 string  `json:"id"`
	Object             string  `json:"object"`
	Created            int64   `json:"created"`
	AllowCreateEngine  bool    `json:"allow_create_engine"`
	AllowSampling      bool    `json:"allow_sampling"`
	AllowLogprobs      bool    `json:"allow_logprobs"`
	AllowSearchIndices bool    `json:"allow_search_indices"`
	AllowView          bool    `json:"allow_view"`
	AllowFineTuning    bool    `json:"allow_fine_tuning"`
	Organization       string  `json:"organization"`
	Group              *string `json:"group"`
	IsBlocking         bool    `json:"is_blocking"`
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	// vLLM builds the cards per call, so created is the time of the call.
	now := time.Now().Unix()
	card := modelCard{
		ID:          s.cfg.Model,
		Object:      "model",
		Created:     now,
		OwnedBy:     "gobench",
		Root:        s.cfg.Root,
		MaxModelLen: s.cfg.MaxModelLen,
		Permission: []modelPermission{{
			ID:            "modelperm-" + randomID(),
			Object:        "model_permission",
			Created:       now,
			AllowSampling: true,
			AllowLogprobs: true,
			AllowView:     true,
			Organization:  "*",
		}},
	}
	writeJSON(w, http.StatusOK, struct {
		Object string      `json:"object"`
		Data   []modelCard `json:"data"`
	}{"list", []modelCard{card}})
}

// handleHealth answers 200 with an empty body, as vLLM's /health does.
func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusOK)
}

// handleProfile acknowledges a profiler call with an empty 200 and logs it;
// the client's --profile only needs the round trip.
func (s *Server) handleProfile(done string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.logf("%s %s: profiler %s (simulated, nothing recorded)", r.Method, r.URL.Path, done)
		w.WriteHeader(http.StatusOK)
	}
}

// writeJSON writes v as a JSON response. HTML escaping is off because
// Python's JSON encoders do not escape <, > and &.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := encodeJSON(v)
	if err != nil {
		// Only programming errors (an unencodable type) end up here.
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// encodeJSON is v as FastAPI's JSONResponse writes it: no HTML escaping,
// no trailing newline.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("sim: encode response: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// errorBody is vLLM's ErrorResponse.
type errorBody struct {
	Error errorInfo `json:"error"`
}

// errorInfo is vLLM's ErrorInfo.
type errorInfo struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

func (e *apiError) body() errorBody {
	info := errorInfo{Message: e.msg, Type: e.typ, Code: e.status}
	if e.param != "" {
		info.Param = &e.param
	}
	return errorBody{Error: info}
}

// writeError writes e as an error response.
func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, e.body())
}

// logRequest writes a line about one request, with Config.LogRequests.
func (s *Server) logRequest(format string, args ...any) {
	if s.cfg.LogRequests {
		s.logf(format, args...)
	}
}

// logf writes one line to the configured logger, if any. Handlers run
// concurrently, so writes are serialised.
func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logger == nil {
		return
	}
	line := fmt.Sprintf("%s sim: "+format+"\n",
		append([]any{time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")}, args...)...)
	s.logMu.Lock()
	defer s.logMu.Unlock()
	_, _ = io.WriteString(s.cfg.Logger, line)
}

// randomID is a random 32-digit hex id, the shape of vLLM's random_uuid().
func randomID() string {
	return fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64())
}
