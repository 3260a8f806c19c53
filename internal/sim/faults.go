package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// FaultKind names one way a real server misbehaves. Each is injected on
// demand by a FaultRule, so gobench's tests can prove that the client counts
// and keeps every failure.
type FaultKind int

// The faults, in the order they take precedence. The HTTP status faults
// answer instead of generating; the stream faults strike mid-stream, right
// after the event that brings the output to half its tokens (at least the
// first event); the others change the whole response.
const (
	// FaultHTTP429 answers 429 Too Many Requests with a JSON error body.
	FaultHTTP429 FaultKind = iota
	// FaultHTTP500 answers 500 Internal Server Error with a JSON error body.
	FaultHTTP500
	// FaultHTTP503 answers 503 Service Unavailable with a JSON error body.
	FaultHTTP503
	// FaultReset resets the TCP connection (RST) mid-stream.
	FaultReset
	// FaultErrorEvent sends vLLM's in-stream error event and [DONE]
	// mid-stream, inside a 200 response.
	FaultErrorEvent
	// FaultMalformed sends one event whose JSON is cut short, mid-stream,
	// then carries on.
	FaultMalformed
	// FaultStall sends no byte for Faults.StallFor, mid-stream, then
	// carries on.
	FaultStall
	// FaultSlowDrip writes every event in pieces of Faults.DripBytes bytes,
	// Faults.DripEvery apart.
	FaultSlowDrip
	// FaultNoDone ends the stream without data: [DONE].
	FaultNoDone
	// FaultNoUsage leaves out the usage event (and the usage of a
	// non-streaming response).
	FaultNoUsage
	// FaultWrongUsage reports twice the completion tokens generated.
	FaultWrongUsage
	numFaultKinds
)

// faultNames are the kinds' names: the flag is --fault-NAME.
var faultNames = [numFaultKinds]string{
	"http-429", "http-500", "http-503", "reset", "error-event", "malformed", "stall", "slow-drip",
	"no-done", "no-usage", "wrong-usage",
}

// String returns the kind's name, as in its flag.
func (k FaultKind) String() string {
	if k >= 0 && k < numFaultKinds {
		return faultNames[k]
	}
	return "fault(" + strconv.Itoa(int(k)) + ")"
}

// FaultKinds returns every fault kind, in precedence order.
func FaultKinds() []FaultKind {
	ks := make([]FaultKind, numFaultKinds)
	for i := range ks {
		ks[i] = FaultKind(i)
	}
	return ks
}

// FaultRule says which requests a fault strikes: a fraction of them
// (Rate), or those whose request id matches Pattern. The zero value
// strikes none.
type FaultRule struct {
	// Rate is the fraction of requests struck, in [0, 1]. Which ones is
	// fixed by the server seed and the request id, so a replay with the same
	// x-request-id values is struck the same way.
	Rate float64
	// Pattern, when set, strikes the requests whose id (x-request-id, or
	// the random id) it matches; unanchored, as regexp.MatchString.
	Pattern *regexp.Regexp
}

// ParseFaultRule reads a rule as the --fault-* flags take it: a number in
// [0, 1] is a rate ("0.05"; "5%" works too), anything else a regular
// expression over request ids ("1[0-9]$"). A pattern that reads as a
// number can be written "re:7".
func ParseFaultRule(spec string) (FaultRule, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return FaultRule{}, fmt.Errorf("empty fault rule: give a rate in [0, 1] or a request-id pattern")
	}
	if re, ok := strings.CutPrefix(s, "re:"); ok {
		return compileRule(re)
	}
	num, pct := strings.CutSuffix(s, "%")
	if v, err := strconv.ParseFloat(num, 64); err == nil {
		if pct {
			v /= 100
		}
		if !(v >= 0 && v <= 1) || math.IsNaN(v) {
			return FaultRule{}, fmt.Errorf("fault rate %q must be in [0, 1]", spec)
		}
		return FaultRule{Rate: v}, nil
	}
	return compileRule(s)
}

func compileRule(expr string) (FaultRule, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return FaultRule{}, fmt.Errorf("fault pattern %q: %w", expr, err)
	}
	return FaultRule{Pattern: re}, nil
}

// String renders the rule back in ParseFaultRule's syntax.
func (r FaultRule) String() string {
	if r.Pattern != nil {
		return "re:" + r.Pattern.String()
	}
	return strconv.FormatFloat(r.Rate, 'g', -1, 64)
}

// active reports whether the rule strikes anything.
func (r FaultRule) active() bool { return r.Pattern != nil || r.Rate > 0 }

// strikes decides for one request; kind and seed decorrelate the kinds.
func (r FaultRule) strikes(kind FaultKind, seed int64, id string) bool {
	if r.Pattern != nil {
		return r.Pattern.MatchString(id)
	}
	if r.Rate <= 0 {
		return false
	}
	if r.Rate >= 1 {
		return true
	}
	h := fnv.New64a()
	_, _ = fmt.Fprintf(h, "%d\x00%d\x00%s", seed, kind, id)
	return float64(mix64(h.Sum64())>>11)/(1<<53) < r.Rate
}

// mix64 is SplitMix64's finaliser: FNV's high bits vary too little between
// ids that differ in their last characters (bench-x-1, bench-x-2) to be
// compared with a rate directly.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// The defaults of the faults' parameters.
const (
	defaultStallFor  = 30 * time.Second
	defaultDripBytes = 8
	defaultDripEvery = 10 * time.Millisecond
)

// Faults configures fault injection. The zero value injects nothing.
type Faults struct {
	// Rules holds the rule of each kind, indexed by FaultKind.
	Rules [numFaultKinds]FaultRule
	// StallFor is how long FaultStall sends nothing. Default 30 s.
	StallFor time.Duration
	// DripBytes and DripEvery shape FaultSlowDrip: pieces of DripBytes
	// bytes, DripEvery apart. Defaults 8 bytes and 10 ms.
	DripBytes int
	DripEvery time.Duration
}

// Set gives kind its rule.
func (f *Faults) Set(kind FaultKind, r FaultRule) { f.Rules[kind] = r }

// withDefaults fills in the defaults and validates.
func (f Faults) withDefaults() (Faults, error) {
	if f.StallFor < 0 || f.DripEvery < 0 || f.DripBytes < 0 {
		return f, fmt.Errorf("sim: Faults.StallFor, DripBytes and DripEvery must not be negative")
	}
	if f.StallFor == 0 {
		f.StallFor = defaultStallFor
	}
	if f.DripBytes == 0 {
		f.DripBytes = defaultDripBytes
	}
	if f.DripEvery == 0 {
		f.DripEvery = defaultDripEvery
	}
	return f, nil
}

// faultSet is the set of faults that strike one request.
type faultSet uint32

func (f faultSet) has(k FaultKind) bool { return f&(1<<k) != 0 }

// String lists the faults, for the log and the record.
func (f faultSet) String() string {
	var names []string
	for k := range numFaultKinds {
		if f.has(k) {
			names = append(names, k.String())
		}
	}
	return strings.Join(names, ",")
}

// decide returns the faults that strike the request with id.
func (f *Faults) decide(seed int64, id string) faultSet {
	var set faultSet
	for k := range numFaultKinds {
		if f.Rules[k].active() && f.Rules[k].strikes(k, seed, id) {
			set |= 1 << k
		}
	}
	return set
}

// httpFault returns the status fault among set, if any: status, error type
// and message of the JSON error body.
func httpFault(set faultSet) *apiError {
	switch {
	case set.has(FaultHTTP429):
		return &apiError{status: 429, typ: "TooManyRequestsError",
			msg: "Too many requests: the server's waiting queue is full. (gobench sim fault --fault-http-429)"}
	case set.has(FaultHTTP500):
		return &apiError{status: 500, typ: "InternalServerError",
			msg: "Internal server error. (gobench sim fault --fault-http-500)"}
	case set.has(FaultHTTP503):
		return &apiError{status: 503, typ: "ServiceUnavailableError",
			msg: "The engine is not available. (gobench sim fault --fault-http-503)"}
	}
	return nil
}

// errorEventMessage is the message of the in-stream error event fault.
const errorEventMessage = "Internal server error during generation. (gobench sim fault --fault-error-event)"
