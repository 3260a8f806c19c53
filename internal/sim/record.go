package sim

import (
	"io"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/gobench/gobench/internal/pyjson"
)

// The record (Config.Record, `gobench sim --record FILE`) is the ground
// truth of a run: JSON Lines, a header object and then one object per
// request, written when the request ends, so a client's TTFT, ITL and E2EL
// can be compared with what the server did, request by request.
//
// # File
//
// With Config.RecordPath (`--record FILE`), the record is written to a
// temporary file next to FILE, ".FILE.RANDOM.tmp", and renamed to FILE when
// the simulator stops (Running.Close: Ctrl-C or SIGTERM for `gobench sim`,
// the end of the run for `gobench serve --sim`), so FILE is always whole: it
// appears complete or not at all. A simulator killed with SIGKILL leaves
// only the temporary file, every line up to the kill (each line is one
// write; the last may be cut short); rename it to use it, or delete it. A
// record that could not be written in full is removed, and Close says why.
//
// # Clock
//
// Every instant is an integer of nanoseconds ("_ns") on one system clock,
// named in the header: CLOCK_MONOTONIC on Linux, the clock every process on
// the machine shares and the clock of Python's time.perf_counter(), so
// vllm bench serve's start_times (perf_counter seconds) map onto it by
// multiplying by 1e9. Elsewhere it is CLOCK_REALTIME (Unix nanoseconds).
// The server reads Go's monotonic clock and maps it onto the system clock
// through one pair of readings taken at start (the tightest of several), so
// the mapping errs by well under a microsecond and never drifts. A client
// whose clock has another epoch (gobench serve's start_times count from its
// run's start) can find its offset as the smallest "arrival_ns minus start
// time" over its requests, which errs by the fastest upload (tens of
// microseconds on loopback); tools/simbench does that.
//
// # Header
//
//	{"record":"gobench-sim","version":1,"clock":"CLOCK_MONOTONIC","started_ns":N,
//	 "wall_start":"2026-11-30T08:00:00.000000Z","model":"...","engine":"fixed"|"scheduler"}
//
// # Request
//
//	request_id     the x-request-id (or the random id)
//	path, status   the endpoint and the HTTP status answered
//	stream         whether it streamed
//	fault          the injected faults, comma-separated ("" for none)
//	error          how it ended if not normally ("client disconnected", ...)
//	prompt_tokens, completion_tokens, finish_reason, preemptions, cached_tokens
//	arrival_ns     receipt by the handler (vLLM's arrival_time)
//	queued_ns, scheduled_ns, first_token_ns, last_token_ns
//	               the engine timeline (Timing); first SCHEDULED only
//	finished_ns    when the handler finished
//	events_ns      the send instant of every event a client counts as a
//	               token event (the chat role event included), read just
//	               before the event is written to the socket, so that no
//	               client can appear to receive an event before it was sent
//	event_tokens   tokens carried by each of those events (only when some
//	               event carries other than one: role events, stream
//	               interval, speculative decoding)
//	late_ns        per event, its send instant minus the engine timestamp of
//	               the output it carries: the simulator's own lateness
//	usage_ns, done_ns  send instants of the usage event and of [DONE]
//	intervals      seconds: queue, prefill, decode, inference (engine, as
//	               vLLM defines them), ttft and e2e (first and last token
//	               event sent, minus arrival)
//
// Absent instants are 0.
type recorder struct {
	mu    sync.Mutex
	w     io.Writer
	buf   []byte
	clock sysClock
	err   error
}

// sysClock maps Go time readings onto the record's system clock.
type sysClock struct {
	base   time.Time
	baseNS int64
	name   string
}

// newSysClock anchors the mapping: of several (Go time, system clock,
// Go time) triples it keeps the tightest, pairing the system reading with
// the midpoint of its two Go readings.
func newSysClock() sysClock {
	var c sysClock
	best := time.Duration(math.MaxInt64)
	for range 9 {
		t0 := time.Now()
		ns, ok := readSystemClock()
		t1 := time.Now()
		if !ok {
			return sysClock{base: t0, baseNS: t0.UnixNano(), name: "CLOCK_REALTIME"}
		}
		if d := t1.Sub(t0); d < best {
			best = d
			c = sysClock{base: t0.Add(d / 2), baseNS: ns, name: clockName}
		}
	}
	return c
}

// ns is t on the system clock; 0 for the zero time.
func (c sysClock) ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return c.baseNS + int64(t.Sub(c.base))
}

// newRecorder writes the header to w and returns the recorder.
func newRecorder(w io.Writer, model, engine string) *recorder {
	r := &recorder{w: w, clock: newSysClock()}
	now := time.Now()
	b := append([]byte(nil), `{"record":"gobench-sim","version":1,"clock":`...)
	b = pyjson.AppendCompactString(b, r.clock.name)
	b = append(b, `,"started_ns":`...)
	b = strconv.AppendInt(b, r.clock.ns(now), 10)
	b = append(b, `,"wall_start":`...)
	b = pyjson.AppendCompactString(b, now.UTC().Format("2006-01-02T15:04:05.000000Z"))
	b = append(b, `,"model":`...)
	b = pyjson.AppendCompactString(b, model)
	b = append(b, `,"engine":`...)
	b = pyjson.AppendCompactString(b, engine)
	b = append(b, "}\n"...)
	_, r.err = w.Write(b)
	return r
}

// truth is what the record keeps of one request.
type truth struct {
	id, path, fault, errText, finish string
	status                           int
	stream                           bool
	prompt, completion               int
	timing                           Timing
	arrival, finished                time.Time
	usage, done                      time.Time
	events                           []time.Time
	eventTokens                      []int
	late                             []time.Duration
}

// event notes one token event sent at sent, carrying tokens of an output
// stamped at.
func (t *truth) event(sent, at time.Time, tokens int) {
	t.events = append(t.events, sent)
	t.eventTokens = append(t.eventTokens, tokens)
	t.late = append(t.late, sent.Sub(at))
}

// write appends t to the record. Errors are kept and reported by Err; a
// failing record never fails requests.
func (r *recorder) write(t *truth) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	b := append(r.buf[:0], '{')
	b = t.appendOutcome(b)
	b = t.appendInstants(b, r.clock)
	b = t.appendIntervals(b)
	b = t.appendEvents(b, r.clock)
	b = append(b, "}\n"...)
	r.buf = b
	_, r.err = r.w.Write(b)
}

// appendOutcome appends the request's identity and how it ended, from
// "request_id" to "finish_reason".
func (t *truth) appendOutcome(b []byte) []byte {
	b = append(b, `"request_id":`...)
	b = pyjson.AppendCompactString(b, t.id)
	b = append(b, `,"path":`...)
	b = pyjson.AppendCompactString(b, t.path)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(t.status), 10)
	b = append(b, `,"stream":`...)
	b = strconv.AppendBool(b, t.stream)
	b = append(b, `,"fault":`...)
	b = pyjson.AppendCompactString(b, t.fault)
	b = append(b, `,"error":`...)
	b = pyjson.AppendCompactString(b, t.errText)
	b = appendIntField(b, "prompt_tokens", int64(t.prompt))
	b = appendIntField(b, "completion_tokens", int64(t.completion))
	b = append(b, `,"finish_reason":`...)
	return pyjson.AppendCompactString(b, t.finish)
}

// appendInstants appends the engine's counts and every instant of the
// request on the record's clock c, from "preemptions" to "done_ns".
func (t *truth) appendInstants(b []byte, c sysClock) []byte {
	tm := t.timing
	fields := []struct {
		k string
		v int64
	}{
		{"preemptions", int64(tm.Preemptions)}, {"cached_tokens", int64(tm.CachedTokens)},
		{"arrival_ns", c.ns(t.arrival)}, {"queued_ns", c.ns(tm.Queued)}, {"scheduled_ns", c.ns(tm.Scheduled)},
		{"first_token_ns", c.ns(tm.FirstToken)}, {"last_token_ns", c.ns(tm.LastToken)},
		{"finished_ns", c.ns(t.finished)}, {"usage_ns", c.ns(t.usage)}, {"done_ns", c.ns(t.done)},
	}
	for _, f := range fields {
		b = appendIntField(b, f.k, f.v)
	}
	return b
}

// appendIntField appends ,"k":v.
func appendIntField(b []byte, k string, v int64) []byte {
	b = append(b, `,"`+k+`":`...)
	return strconv.AppendInt(b, v, 10)
}

// appendIntervals appends the "intervals" object: each in seconds, null
// when one of its ends never happened.
func (t *truth) appendIntervals(b []byte) []byte {
	tm := t.timing
	var firstSent, lastSent time.Time
	if len(t.events) > 0 {
		firstSent, lastSent = t.events[0], t.events[len(t.events)-1]
	}
	intervals := []struct {
		k        string
		from, to time.Time
	}{
		{"queue", tm.Queued, tm.Scheduled}, {"prefill", tm.Scheduled, tm.FirstToken},
		{"decode", tm.FirstToken, tm.LastToken}, {"inference", tm.Scheduled, tm.LastToken},
		{"ttft", t.arrival, firstSent}, {"e2e", t.arrival, lastSent},
	}
	b = append(b, `,"intervals":{`...)
	for i, iv := range intervals {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `"`+iv.k+`":`...)
		if iv.from.IsZero() || iv.to.IsZero() {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendFloat(b, iv.to.Sub(iv.from).Seconds(), 'f', 9, 64)
		}
	}
	return append(b, '}')
}

// appendEvents appends the token events: when each left on the record's
// clock c ("events_ns"), the tokens of each unless every one carried one
// ("event_tokens"), and how late each left ("late_ns").
func (t *truth) appendEvents(b []byte, c sysClock) []byte {
	b = appendIntList(b, "events_ns", t.events, c.ns)
	if !allOnes(t.eventTokens) {
		b = appendIntList(b, "event_tokens", t.eventTokens, func(n int) int64 { return int64(n) })
	}
	return appendIntList(b, "late_ns", t.late, func(d time.Duration) int64 { return int64(d) })
}

// appendIntList appends ,"k":[...] of xs, each as the integer f makes.
func appendIntList[T any](b []byte, k string, xs []T, f func(T) int64) []byte {
	b = append(b, `,"`+k+`":[`...)
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, f(x), 10)
	}
	return append(b, ']')
}

// Err returns the first write error of the record, if any.
func (r *recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func allOnes(xs []int) bool {
	for _, x := range xs {
		if x != 1 {
			return false
		}
	}
	return true
}
