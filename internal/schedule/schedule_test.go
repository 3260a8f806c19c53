package schedule

import (
	"bufio"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gobench/gobench/internal/numpyrand"
)

// goldenLine is one line of testdata/schedule.jsonl (vLLM's get_request
// schedules, computed with NumPy 1.24.2 outside this repository) or of
// testdata/schedule_extra.jsonl (longer runs from
// tools/gen-rng-vectors/gen_rng_vectors.py, which also records rate_i).
type goldenLine struct {
	Seed        uint32    `json:"seed"`
	NumPrompts  int       `json:"num_prompts"`
	RequestRate string    `json:"request_rate"`
	Burstiness  string    `json:"burstiness"`
	Strategy    *string   `json:"ramp_up_strategy"`
	StartRPS    *float64  `json:"ramp_up_start_rps"`
	EndRPS      *float64  `json:"ramp_up_end_rps"`
	Offsets     []float64 `json:"offsets_s"`
	Rates       []float64 `json:"rates"`
}

func (g goldenLine) params(t *testing.T) Params {
	t.Helper()
	rate, err := strconv.ParseFloat(g.RequestRate, 64)
	if err != nil {
		t.Fatalf("bad request_rate %q: %v", g.RequestRate, err)
	}
	burst, err := strconv.ParseFloat(g.Burstiness, 64)
	if err != nil {
		t.Fatalf("bad burstiness %q: %v", g.Burstiness, err)
	}
	p := Params{NumRequests: g.NumPrompts, RequestRate: rate, Burstiness: burst}
	if g.Strategy != nil {
		p.RampUp = &RampUp{Strategy: *g.Strategy, StartRPS: *g.StartRPS, EndRPS: *g.EndRPS}
	}
	return p
}

func readGolden(t *testing.T, name string) []goldenLine {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("opening golden file: %v", err)
	}
	defer f.Close()
	var lines []goldenLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<22) // lines of 1000 offsets exceed 64 KiB
	for sc.Scan() {
		var g goldenLine
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("%s line %d: %v", name, len(lines)+1, err)
		}
		lines = append(lines, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	if len(lines) == 0 {
		t.Fatalf("%s is empty", name)
	}
	return lines
}

// relTol is the agreement asked of golden offsets: NumPy's gamma goes through
// glibc's log/pow and Go's through its own, which differ by 1-2 ulp, so the
// offsets agree to ~1e-15; 1e-9 is the tolerance the vector README states.
const relTol = 1e-9

func closeEnough(got, want float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= relTol*math.Abs(want)
}

func TestOffsetsMatchNumPy(t *testing.T) {
	for _, file := range []string{"schedule.jsonl", "schedule_extra.jsonl"} {
		for n, g := range readGolden(t, file) {
			t.Run(file+"#"+strconv.Itoa(n+1), func(t *testing.T) {
				got, err := Offsets(g.params(t), numpyrand.NewLegacy(g.Seed))
				if err != nil {
					t.Fatalf("Offsets: %v", err)
				}
				if len(got) != len(g.Offsets) {
					t.Fatalf("got %d arrivals, want %d", len(got), len(g.Offsets))
				}
				exact := 0
				for i, a := range got {
					if a.Offset == g.Offsets[i] {
						exact++
					}
					if !closeEnough(a.Offset, g.Offsets[i]) {
						t.Errorf("offset[%d] = %v, want %v", i, a.Offset, g.Offsets[i])
					}
					if g.Rates != nil && !closeEnough(a.Rate, g.Rates[i]) {
						t.Errorf("rate[%d] = %v, want %v", i, a.Rate, g.Rates[i])
					}
				}
				t.Logf("%d of %d offsets bit-identical", exact, len(got))
			})
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range validateCases() {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.p)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate: unexpected error %q", err)
			case tc.want != "" && err == nil:
				t.Fatalf("Validate: no error, want %q", tc.want)
			case tc.want != "" && err.Error() != tc.want:
				t.Fatalf("Validate error\n got: %q\nwant: %q", err, tc.want)
			}
			// Offsets reports the same error, wrapped.
			_, oerr := Offsets(tc.p, numpyrand.NewLegacy(0))
			if tc.want == "" {
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Msg != tc.want {
				t.Fatalf("Validate error %#v is not a *ValidationError with the message", err)
			}
			if !errors.As(oerr, &ve) || ve.Msg != tc.want {
				t.Fatalf("Offsets error %v does not wrap the *ValidationError", oerr)
			}
		})
	}
}

// validateCase is a schedule's parameters and Validate's message ("" for valid).
type validateCase struct {
	name string
	p    Params
	want string
}

// validateCases are TestValidate's cases, in vLLM's order of checks.
func validateCases() []validateCase {
	nan := math.NaN()
	inf := math.Inf(1)
	ramp := func(s string, a, b float64) *RampUp { return &RampUp{Strategy: s, StartRPS: a, EndRPS: b} }
	return []validateCase{
		// Poisson at 4 req/s.
		{"poisson", Params{NumRequests: 10, RequestRate: 4, Burstiness: 1}, ""},
		// Unlimited rate, the vLLM default.
		{"inf rate", Params{NumRequests: 1, RequestRate: inf, Burstiness: 1}, ""},
		// Evenly spaced.
		{"inf burstiness", Params{NumRequests: 3, RequestRate: 2, Burstiness: inf}, ""},
		// Linear ramp with equal bounds is allowed.
		{"ramp equal", Params{NumRequests: 5, RequestRate: inf, Burstiness: 1, RampUp: ramp(Linear, 3, 3)}, ""},
		// Exponential ramp.
		{"ramp exp", Params{NumRequests: 5, RequestRate: inf, Burstiness: 1, RampUp: ramp(Exponential, 1, 8)}, ""},
		// Ramp-up together with a finite --request-rate.
		{"ramp with rate", Params{NumRequests: 5, RequestRate: 3, Burstiness: 1, RampUp: ramp(Linear, 1, 2)},
			"When using ramp-up, do not specify --request-rate. The request rate will be controlled by ramp-up parameters. Please remove the --request-rate argument."},
		// The rate check comes before the missing-bound check.
		{"rate before missing", Params{NumRequests: 5, RequestRate: 3, Burstiness: 1, RampUp: ramp(Linear, nan, 2)},
			"When using ramp-up, do not specify --request-rate. The request rate will be controlled by ramp-up parameters. Please remove the --request-rate argument."},
		// --ramp-up-end-rps not given.
		{"missing end", Params{NumRequests: 5, RequestRate: inf, Burstiness: 1, RampUp: ramp(Linear, 1, nan)},
			"When using --ramp-up-strategy, both --ramp-up-start-rps and --ramp-up-end-rps must be specified"},
		// --ramp-up-start-rps not given.
		{"missing start", Params{NumRequests: 5, RequestRate: inf, Burstiness: 1, RampUp: ramp(Exponential, nan, 4)},
			"When using --ramp-up-strategy, both --ramp-up-start-rps and --ramp-up-end-rps must be specified"},
		// Negative end.
		{"negative", Params{NumRequests: 5, RequestRate: inf, Burstiness: 1, RampUp: ramp(Linear, 1, -2)},
			"Ramp-up start and end RPS must be non-negative"},
		// Negative start with a zero end: negativity is reported first.
		{"negative start", Params{NumRequests: 5, RequestRate: inf, Burstiness: 1, RampUp: ramp(Linear, -1, 0)},
			"Ramp-up start and end RPS must be non-negative"},
		// Decreasing ramp.
		{"start above end", Params{NumRequests: 5, RequestRate: inf, Burstiness: 1, RampUp: ramp(Exponential, 9, 2)},
			"Ramp-up start RPS must be less than end RPS"},
		// Later upstream: start 0 rejected for linear too, with this exact text.
		{"zero start linear", Params{NumRequests: 5, RequestRate: inf, Burstiness: 1, RampUp: ramp(Linear, 0, 10)},
			"--ramp-up-start-rps must be > 0"},
		// Same message for exponential (replaces "For exponential ramp-up, the start RPS cannot be 0.").
		{"zero start exponential", Params{NumRequests: 5, RequestRate: inf, Burstiness: 1, RampUp: ramp(Exponential, 0, 10)},
			"--ramp-up-start-rps must be > 0"},
		// Unknown strategy (argparse's choices in vLLM).
		{"bad strategy", Params{NumRequests: 5, RequestRate: inf, Burstiness: 1, RampUp: ramp("sine", 1, 2)},
			"Unknown ramp-up strategy: sine"},
		// Zero burstiness, formatted like Python's str(0.0).
		{"zero burstiness", Params{NumRequests: 5, RequestRate: 1, Burstiness: 0},
			"A positive burstiness factor is expected, but given 0.0."},
		// Negative burstiness.
		{"negative burstiness", Params{NumRequests: 5, RequestRate: 1, Burstiness: -1},
			"A positive burstiness factor is expected, but given -1.0."},
		// NaN burstiness fails the > 0 assertion too.
		{"nan burstiness", Params{NumRequests: 5, RequestRate: 1, Burstiness: nan},
			"A positive burstiness factor is expected, but given nan."},
		// Ramp-up checks run before the burstiness assertion.
		{"ramp before burstiness", Params{NumRequests: 5, RequestRate: inf, Burstiness: 0, RampUp: ramp(Linear, 0, 1)},
			"--ramp-up-start-rps must be > 0"},
		// Burstiness is asserted before the request count.
		{"burstiness before count", Params{NumRequests: 0, RequestRate: 1, Burstiness: 0.5 - 1},
			"A positive burstiness factor is expected, but given -0.5."},
		// No requests.
		{"no requests", Params{NumRequests: 0, RequestRate: 1, Burstiness: 1}, "No requests provided."},
		// A zero --request-rate trips get_request's rate assertion.
		{"zero rate", Params{NumRequests: 3, RequestRate: 0, Burstiness: 1}, "Obtained non-positive request rate 0.0."},
		// A negative rate likewise.
		{"negative rate", Params{NumRequests: 3, RequestRate: -2.5, Burstiness: 1}, "Obtained non-positive request rate -2.5."},
	}
}

func TestOffsetsSpecialCases(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name  string
		p     Params
		want  []float64
		rates []float64
	}{
		// Unlimited rate: everything at 0, no normalisation, rate +Inf.
		{"inf rate", Params{NumRequests: 3, RequestRate: inf, Burstiness: 1}, []float64{0, 0, 0}, []float64{inf, inf, inf}},
		// Infinite burstiness: 1/rate steps, already ending at N/rate.
		{"even", Params{NumRequests: 4, RequestRate: 2, Burstiness: inf}, []float64{0.5, 1, 1.5, 2}, []float64{2, 2, 2, 2}},
		// One request with a ramp: progress 0, so rate = start.
		{"single ramp", Params{NumRequests: 1, RequestRate: inf, Burstiness: inf, RampUp: &RampUp{Linear, 4, 9}}, []float64{0.25}, []float64{4}},
		// Linear ramp 1 -> 3 over 3 requests, evenly spaced, not normalised.
		{"linear even", Params{NumRequests: 3, RequestRate: inf, Burstiness: inf, RampUp: &RampUp{Linear, 1, 3}}, []float64{1, 1.5, 1.5 + 1.0/3}, []float64{1, 2, 3}},
		// Exponential ramp 1 -> 4 over 3 requests: rates 1, 2, 4.
		{"exponential even", Params{NumRequests: 3, RequestRate: inf, Burstiness: inf, RampUp: &RampUp{Exponential, 1, 4}}, []float64{1, 1.5, 1.75}, []float64{1, 2, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A nil generator is fine when no gamma is drawn.
			got, err := Offsets(tc.p, nil)
			if err != nil {
				t.Fatalf("Offsets: %v", err)
			}
			for i, a := range got {
				if !closeEnough(a.Offset, tc.want[i]) || a.Rate != tc.rates[i] {
					t.Errorf("arrival %d = %+v, want offset %v rate %v", i, a, tc.want[i], tc.rates[i])
				}
			}
		})
	}
}

func TestOffsetsNeedGenerator(t *testing.T) {
	_, err := Offsets(Params{NumRequests: 2, RequestRate: 1, Burstiness: 1}, nil)
	if err == nil {
		t.Fatal("Offsets with gamma draws and a nil generator: no error")
	}
}

// TestStatistics checks the gamma parameterisation over long seeded runs.
//
// Without ramp-up the offsets are normalised, so the mean gap is exactly
// 1/rate by construction; the coefficient of variation of the gaps is not
// changed by the common scale factor and must be close to 1/sqrt(b). A linear
// ramp with equal bounds is a constant rate without normalisation, so there
// the raw mean gap is checked against 1/rate.
//
// Tolerances: with n = 200,000 gamma(b) gaps the relative standard error of
// the mean is 1/sqrt(b*n) (0.32 % at b = 0.5) and that of the sample standard
// deviation about sqrt((2+6/b)/(4n)) (0.59 % at b = 0.5). The bounds, 2 % for
// the mean and 3 % for the CV, are over five standard errors, yet far
// tighter than the errors a wrong parameterisation would cause (using the
// rate as the scale, or 1/b as the shape, is off by a factor). The runs are
// seeded, so the test is deterministic; the margin only guards against a
// change of seed.
func TestStatistics(t *testing.T) {
	if testing.Short() {
		t.Skip("statistical check skipped in -short mode")
	}
	const n = 200_000
	const rate = 5.0
	for _, b := range []float64{0.5, 1, 2, 4} {
		t.Run("b="+strconv.FormatFloat(b, 'g', -1, 64), func(t *testing.T) {
			norm, err := Offsets(Params{NumRequests: n, RequestRate: rate, Burstiness: b}, numpyrand.NewLegacy(12345))
			if err != nil {
				t.Fatalf("Offsets: %v", err)
			}
			mean, cv := gapStats(norm)
			if !closeEnough(mean, 1/rate) {
				t.Errorf("normalised mean gap %v, want exactly %v", mean, 1/rate)
			}
			if want := 1 / math.Sqrt(b); math.Abs(cv-want) > 0.03*want {
				t.Errorf("CV %v, want %v ± 3 %%", cv, want)
			}

			raw, err := Offsets(Params{NumRequests: n, RequestRate: math.Inf(1), Burstiness: b,
				RampUp: &RampUp{Strategy: Linear, StartRPS: rate, EndRPS: rate}}, numpyrand.NewLegacy(54321))
			if err != nil {
				t.Fatalf("Offsets: %v", err)
			}
			mean, cv = gapStats(raw)
			if math.Abs(mean-1/rate) > 0.02/rate {
				t.Errorf("raw mean gap %v, want %v ± 2 %%", mean, 1/rate)
			}
			if want := 1 / math.Sqrt(b); math.Abs(cv-want) > 0.03*want {
				t.Errorf("raw CV %v, want %v ± 3 %%", cv, want)
			}
		})
	}
}

// gapStats returns the mean and coefficient of variation of the gaps between
// consecutive offsets, counting the first offset as the gap from 0.
func gapStats(as []Arrival) (mean, cv float64) {
	var sum, sumSq, prev float64
	for _, a := range as {
		g := a.Offset - prev
		prev = a.Offset
		sum += g
		sumSq += g * g
	}
	n := float64(len(as))
	mean = sum / n
	return mean, math.Sqrt(sumSq/n-mean*mean) / mean
}

func TestRPSChangeEvents(t *testing.T) {
	arr := func(rates ...float64) []Arrival {
		out := make([]Arrival, len(rates))
		for i, r := range rates {
			out[i].Rate = r
		}
		return out
	}
	tests := []struct {
		name  string
		as    []Arrival
		start float64
		want  []RPSEvent
	}{
		// Only the initial event when the integer rate never rises.
		{"flat", arr(2, 2.5, 2.99), 2, []RPSEvent{{2, -1}}},
		// A jump of several integers emits each one at the same request.
		{"jump", arr(1, 1.5, 4.2, 4.9, 5), 1, []RPSEvent{{1, -1}, {2, 2}, {3, 2}, {4, 2}, {5, 4}}},
		// The first request can already raise the rate (int(1.0) = 1 > 0).
		{"first request", arr(1, 2), 0, []RPSEvent{{0, -1}, {1, 0}, {2, 1}}},
		// Non-finite rates are skipped instead of converted.
		{"inf", arr(math.Inf(1), 3), 2, []RPSEvent{{2, -1}, {3, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := RPSChangeEvents(tc.as, tc.start)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestRPSChangeEventsFromSchedule runs the helper on a real exponential
// ramp: every integer from start to end appears exactly once, in order.
func TestRPSChangeEventsFromSchedule(t *testing.T) {
	p := Params{NumRequests: 100, RequestRate: math.Inf(1), Burstiness: 1, RampUp: &RampUp{Exponential, 2, 16}}
	as, err := Offsets(p, numpyrand.NewLegacy(5))
	if err != nil {
		t.Fatalf("Offsets: %v", err)
	}
	ev := RPSChangeEvents(as, 2)
	if len(ev) != 15 || ev[0] != (RPSEvent{2, -1}) || ev[14].RPS != 16 || ev[14].Request != 99 {
		t.Fatalf("events %v", ev)
	}
	for i := 1; i < len(ev); i++ {
		if ev[i].RPS != ev[i-1].RPS+1 || ev[i].Request < ev[i-1].Request {
			t.Fatalf("events not consecutive: %v", ev)
		}
	}
}
func BenchmarkOffsets(b *testing.B) {
	p := Params{NumRequests: 1000, RequestRate: 10, Burstiness: 1}
	for b.Loop() {
		if _, err := Offsets(p, numpyrand.NewLegacy(0)); err != nil {
			b.Fatal(err)
		}
	}
}
