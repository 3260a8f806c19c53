package sim

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/testserver"
)

func TestRecordFixedEngineAgainstClock(t *testing.T) {
	t.Parallel()
	// The record's instants are on the system clock the test reads itself
	// around the request, so they must fall between its two readings; no
	// event leaves before it is due. How late an event may leave is a
	// property of the machine, not of the server: the exact timeline is
	// TestFixedTimeline's, in a synctest bubble.
	const ttft, itl = 30 * time.Millisecond, 5 * time.Millisecond
	var rec testserver.LockedBuffer
	ls := startLive(t, Config{TTFT: ttft, ITL: itl, Record: &rec, Tokenizer: fakeTokenizer{}})
	before, ok := readSystemClock()
	if !ok && runtime.GOOS == "linux" {
		t.Fatal("no CLOCK_MONOTONIC on Linux")
	}
	for _, tt := range []struct{ path, body string }{
		{"/v1/completions", `{"prompt":"a b","max_tokens":4,"ignore_eos":true,"stream":true,"stream_options":{}}`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"a b"}],"max_tokens":4,"ignore_eos":true,"stream":true}`},
	} {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, ls.url+tt.path, strings.NewReader(tt.body))
		req.Header.Set("X-Request-Id", tt.path)
		resp, err := newClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	after, _ := readSystemClock()
	// Each record line is written before its handler returns, so before
	// the client read the body's end (see recorded).
	head, reqs := parseRecord(t, rec.Bytes())
	if len(reqs) != 2 {
		t.Fatalf("%d request lines, want 2", len(reqs))
	}
	if head["record"] != "gobench-sim" || head["version"] != 1.0 || head["engine"] != "fixed" ||
		(runtime.GOOS == "linux" && head["clock"] != "CLOCK_MONOTONIC") {
		t.Errorf("header %v", head)
	}
	comp, chat := reqs["/v1/completions"], reqs["/v1/chat/completions"]
	if len(comp.EventsNS) != 4 || comp.EventTokens != nil || len(comp.LateNS) != 4 {
		t.Errorf("completions: %d events, tokens %v, %d lateness values", len(comp.EventsNS), comp.EventTokens, len(comp.LateNS))
	}
	// The chat role event is a token event for the client; it carries none.
	if len(chat.EventsNS) != 5 || len(chat.EventTokens) != 5 || chat.EventTokens[0] != 0 {
		t.Errorf("chat: %d events, tokens %v", len(chat.EventsNS), chat.EventTokens)
	}
	for id, r := range reqs {
		if ok && (r.ArrivalNS < before || r.EventsNS[len(r.EventsNS)-1] > after) {
			t.Errorf("%s: arrival %d .. last event %d outside the test's clock readings %d .. %d",
				id, r.ArrivalNS, r.EventsNS[len(r.EventsNS)-1], before, after)
		}
		if got := time.Duration(r.EventsNS[0] - r.ArrivalNS); got < ttft {
			t.Errorf("%s: first event %v after arrival, before the TTFT %v", id, got, ttft)
		}
		if d := seconds(r.Intervals["ttft"]) - time.Duration(r.EventsNS[0]-r.ArrivalNS).Seconds(); d < -1e-6 || d > 1e-6 {
			t.Errorf("%s: intervals.ttft %v does not match events_ns", id, seconds(r.Intervals["ttft"]))
		}
		for i, l := range r.LateNS {
			if l < 0 {
				t.Errorf("%s: event %d sent %v before it was due", id, i, time.Duration(-l))
			}
		}
		if r.Status != 200 || r.Finish != "length" || r.Completion != 4 || seconds(r.Intervals["queue"]) != 0 {
			t.Errorf("%s: %+v", id, r)
		}
	}
}

func TestRecordFaultedRequest(t *testing.T) {
	t.Parallel()
	var rec testserver.LockedBuffer
	var f Faults
	f.Set(FaultHTTP503, FaultRule{Rate: 1})
	s := newTestServer(t, Config{Faults: f, Record: &rec})
	do(t, s.Handler(), http.MethodPost, "/v1/completions", `{"prompt":"x","max_tokens":2}`, map[string]string{"X-Request-Id": "f1"})
	do(t, s.Handler(), http.MethodPost, "/v1/completions", `{"prompt":"x","max_tokens":0}`, map[string]string{"X-Request-Id": "bad"})
	_, reqs := parseRecord(t, rec.Bytes())
	if r := reqs["f1"]; r.Status != 503 || r.Fault != "http-503" || len(r.EventsNS) != 0 || r.Intervals["ttft"] != nil {
		t.Errorf("faulted request recorded as %+v", r)
	}
	if r := reqs["bad"]; r.Status != 400 {
		t.Errorf("invalid request recorded as %+v", r)
	}
}
