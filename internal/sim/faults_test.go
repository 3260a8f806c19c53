package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/testserver"
)

func TestParseFaultRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec    string
		rate    float64
		pattern string
		wantErr string
	}{
		{spec: "0.05", rate: 0.05},
		{spec: "5%", rate: 0.05},
		{spec: "1", rate: 1},
		{spec: " 0 ", rate: 0},
		// Anything that is not a number is a pattern over request ids.
		{spec: "-1[0-9]$", pattern: "-1[0-9]$"},
		{spec: "bench-.*-7$", pattern: "bench-.*-7$"},
		// re: forces a pattern that would read as a number.
		{spec: "re:7", pattern: "7"},
		{spec: "", wantErr: "empty fault rule"},
		{spec: "1.5", wantErr: "must be in [0, 1]"},
		{spec: "-0.1", wantErr: "must be in [0, 1]"},
		{spec: "NaN", wantErr: "must be in [0, 1]"},
		{spec: "150%", wantErr: "must be in [0, 1]"},
		{spec: "(", wantErr: "fault pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			r, err := ParseFaultRule(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if r.Pattern != nil {
				got = r.Pattern.String()
			}
			if r.Rate != tt.rate || got != tt.pattern {
				t.Errorf("rate %v pattern %q, want %v %q", r.Rate, got, tt.rate, tt.pattern)
			}
		})
	}
}

func FuzzParseFaultRule(f *testing.F) {
	for _, s := range []string{"0.05", "5%", "re:7", "-1[0-9]$", "", "1e-3", "(", "%", "re:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		r, err := ParseFaultRule(spec)
		if err != nil {
			return
		}
		if !(r.Rate >= 0 && r.Rate <= 1) {
			t.Fatalf("%q: rate %v out of [0, 1]", spec, r.Rate)
		}
		// The rendered rule parses back to the same rule.
		back, err := ParseFaultRule(r.String())
		if err != nil || back.String() != r.String() {
			t.Fatalf("%q renders as %q which parses to %q, %v", spec, r.String(), back.String(), err)
		}
	})
}

func TestFaultRuleRateIsSeededAndIndependent(t *testing.T) {
	t.Parallel()
	var f Faults
	f.Set(FaultHTTP503, FaultRule{Rate: 0.3})
	f.Set(FaultNoUsage, FaultRule{Rate: 0.3})
	n503, both := 0, 0
	const n = 20000
	for i := range n {
		id := fmt.Sprintf("bench-x-%d", i)
		set := f.decide(7, id)
		if set != f.decide(7, id) {
			t.Fatalf("%s: decision changes between calls", id)
		}
		if set.has(FaultHTTP503) {
			n503++
			if set.has(FaultNoUsage) {
				both++
			}
		}
	}
	// 30 % ± 1.5 points (about 5 standard deviations), and the two kinds
	// strike independently (9 % of requests get both).
	if r := float64(n503) / n; r < 0.285 || r > 0.315 {
		t.Errorf("503 rate %.3f, want 0.3", r)
	}
	if r := float64(both) / n; r < 0.08 || r > 0.10 {
		t.Errorf("both faults on %.3f of requests, want 0.09", r)
	}
}

// wireResult is what a raw client saw of one streaming request.
type wireResult struct {
	status  int
	header  http.Header
	body    string
	err     error
	elapsed time.Duration // from before the request to after the body's end
}

// wireGet posts a streaming request and reads the whole body as it comes.
func wireGet(t *testing.T, url, id string) wireResult {
	t.Helper()
	body := `{"prompt":"a b c","max_tokens":6,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url+"/v1/completions", strings.NewReader(body))
	req.Header.Set("X-Request-Id", id)
	start := time.Now()
	resp, err := newClient().Do(req)
	if err != nil {
		return wireResult{err: err}
	}
	defer resp.Body.Close()
	res := wireResult{status: resp.StatusCode, header: resp.Header}
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			b.Write(buf[:n])
		}
		if err != nil {
			if err != io.EOF {
				res.err = err
			}
			break
		}
	}
	res.body, res.elapsed = b.String(), time.Since(start)
	return res
}

// faultsOnTheWire are the faults of TestFaultsOnTheWire: each kind
// strikes the request whose id is its name.
func faultsOnTheWire(t *testing.T) Faults {
	var f Faults
	for _, k := range FaultKinds() {
		f.Set(k, FaultRule{Pattern: mustRegexp(t, "^"+k.String()+"$")})
	}
	f.StallFor = 300 * time.Millisecond
	f.DripBytes, f.DripEvery = 64, 5*time.Millisecond
	return f
}

// TestFaultsOnTheWire sends a streamed request per fault kind to a live
// server and checks what reaches the client. What a client reads is no
// measure of when the server wrote: a late read shortens the silence after
// it and coalesces pieces. The stall is told by the server's record, the
// slow drip by its writes, on a server of its own whose connections log
// them.
func TestFaultsOnTheWire(t *testing.T) {
	t.Parallel()
	f := faultsOnTheWire(t)
	cfg := Config{Faults: f, TTFT: time.Millisecond, ITL: time.Millisecond, Tokenizer: fakeTokenizer{}}
	var rec testserver.LockedBuffer
	cfg.Record = &rec
	ls := startLive(t, cfg)
	var drip writeLog
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Record = nil
	dripURL := startLiveOn(t, cfg, loggedListener{Listener: ln, log: &drip}).url
	checks := map[FaultKind]func(t *testing.T, r wireResult){
		FaultHTTP429: statusCheck(429, "TooManyRequestsError"), FaultHTTP500: statusCheck(500, "InternalServerError"),
		FaultHTTP503: statusCheck(503, "ServiceUnavailableError"), FaultReset: checkReset, FaultErrorEvent: checkErrorEvent,
		FaultMalformed: checkMalformed, FaultStall: stallCheck(&rec, f.StallFor), FaultSlowDrip: dripCheck(&drip, f.DripBytes),
		FaultNoDone: bodyCheck(true, false, true), FaultNoUsage: bodyCheck(false, true, false),
		FaultWrongUsage: func(t *testing.T, r wireResult) {
			if !strings.Contains(r.body, `"completion_tokens":12}`) {
				t.Errorf("want completion_tokens 12 for 6 tokens:\n%s", r.body)
			}
		},
	}
	for _, k := range FaultKinds() {
		t.Run(k.String(), func(t *testing.T) {
			t.Parallel()
			check, ok := checks[k]
			if !ok {
				t.Fatalf("no check for the fault %s", k)
			}
			url := ls.url
			if k == FaultSlowDrip {
				url = dripURL
			}
			check(t, wireGet(t, url, k.String()))
		})
	}
	t.Run("untouched", func(t *testing.T) {
		t.Parallel()
		r := wireGet(t, ls.url, "healthy")
		if r.err != nil || r.status != 200 || !strings.Contains(r.body, `"completion_tokens":6}`) ||
			!strings.HasSuffix(r.body, "data: [DONE]\n\n") {
			t.Errorf("a request no fault matches was changed: %v\n%s", r.err, r.body)
		}
	})
}

// checkReset: a reset stream ends in an error, without [DONE].
func checkReset(t *testing.T, r wireResult) {
	t.Helper()
	if r.err == nil || strings.Contains(r.body, "[DONE]") {
		t.Errorf("a reset stream ended cleanly: %v\n%s", r.err, r.body)
	}
}

// checkErrorEvent: the stream carries vLLM's error event, then [DONE],
// and no usage.
func checkErrorEvent(t *testing.T, r wireResult) {
	t.Helper()
	if r.status != 200 || !strings.Contains(r.body, `data: {"error":{"message":"Internal server error during generation.`) ||
		!strings.HasSuffix(r.body, "data: [DONE]\n\n") || strings.Contains(r.body, `"usage"`) {
		t.Errorf("status %d body:\n%s", r.status, r.body)
	}
}

// checkMalformed: exactly one event is not JSON, and the stream ends.
func checkMalformed(t *testing.T, r wireResult) {
	t.Helper()
	bad := 0
	for _, ev := range strings.Split(strings.TrimSpace(r.body), "\n\n") {
		p := strings.TrimPrefix(ev, "data: ")
		if p != "[DONE]" && !json.Valid([]byte(p)) {
			bad++
		}
	}
	if bad != 1 || !strings.Contains(r.body, "[DONE]") {
		t.Errorf("%d malformed events, want 1:\n%s", bad, r.body)
	}
}

// bodyCheck checks that the stream ended without a read error (clean),
// and whether it carries [DONE] and a usage event.
func bodyCheck(clean, done, usage bool) func(*testing.T, wireResult) {
	return func(t *testing.T, r wireResult) {
		t.Helper()
		if clean && r.err != nil || strings.Contains(r.body, "[DONE]") != done || strings.Contains(r.body, `"usage"`) != usage {
			t.Errorf("err %v, want [DONE] %t and usage %t; body:\n%s", r.err, done, usage, r.body)
		}
	}
}

// stallCheck: the stream carries on after the stall, which the server's
// record (rec) shows between the third and fourth of 6 token events.
func stallCheck(rec *testserver.LockedBuffer, stall time.Duration) func(*testing.T, wireResult) {
	return func(t *testing.T, r wireResult) {
		t.Helper()
		if r.err != nil || !strings.HasSuffix(r.body, "data: [DONE]\n\n") {
			t.Fatalf("the stream did not carry on after the stall: %v\n%s", r.err, r.body)
		}
		// The stall follows the event that brings the output to half its
		// 6 tokens, the third: the server sent the fourth at least stall
		// after it, by its own clock.
		tr := recorded(t, rec, "stall")
		if tr.Fault != "stall" || len(tr.EventsNS) != 6 {
			t.Fatalf("recorded fault %q with %d token events, want stall with 6", tr.Fault, len(tr.EventsNS))
		}
		if gap := time.Duration(tr.EventsNS[3] - tr.EventsNS[2]); gap < stall {
			t.Errorf("the server sent token event 4 %v after event 3, want at least the %v stall", gap, stall)
		}
		// The whole exchange, from before the request to after its last
		// byte, contains the stall whenever the client reads.
		if r.elapsed < stall {
			t.Errorf("the exchange took %v, less than the %v stall inside it", r.elapsed, stall)
		}
	}
}

// dripCheck: after the headers, every write the server's connections
// logged (drip) carries one piece of at most pieceBytes, framed as an HTTP
// chunk ("40\r\n" ... "\r\n").
func dripCheck(drip *writeLog, pieceBytes int) func(*testing.T, wireResult) {
	return func(t *testing.T, r wireResult) {
		t.Helper()
		if !strings.HasSuffix(r.body, "data: [DONE]\n\n") {
			t.Fatalf("body:\n%s", r.body)
		}
		sizes := drip.Sizes()
		if len(sizes) < 11 || slices.Max(sizes[1:]) > pieceBytes+6 {
			t.Errorf("writes of %v bytes, want the headers, then many pieces of at most %d (+6 framing)", sizes, pieceBytes)
		}
	}
}

func statusCheck(status int, typ string) func(*testing.T, wireResult) {
	return func(t *testing.T, r wireResult) {
		t.Helper()
		var body errorBody
		if err := json.Unmarshal([]byte(r.body), &body); err != nil {
			t.Fatalf("status %d body %q: %v", r.status, r.body, err)
		}
		if r.status != status || body.Error.Type != typ || body.Error.Code != status || r.header.Get("Retry-After") == "" {
			t.Errorf("status %d, body %+v", r.status, body)
		}
	}
}
