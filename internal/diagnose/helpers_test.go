package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// vLLM's bucket sets (vllm/v1/metrics/loggers.py@005a810bc).
var (
	latencyBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
		240.0, 480.0, 960.0, 1920.0, 7680.0}
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
		20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
		20.0, 40.0, 80.0}
	tokenBuckets = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000}
)

// obs is n observations of v.
func obs(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// page writes a V1-style /metrics page (typed, labelled with a model and
// engine "0"), for tests that need one built from observations.
type page struct {
	model    string
	counters map[string]float64
	gauges   map[string]float64
	hists    map[string][]float64
	buckets  map[string][]float64
	extra    []string
}

func newPage() *page {
	return &page{model: "m", counters: map[string]float64{}, gauges: map[string]float64{}, hists: map[string][]float64{},
		buckets: map[string][]float64{}}
}

func (p *page) hist(name string, buckets []float64, values ...float64) *page {
	p.hists[name] = append(p.hists[name], values...)
	p.buckets[name] = buckets
	return p
}

func (p *page) counter(name string, v float64) *page { p.counters[name] = v; return p }
func (p *page) gauge(name string, v float64) *page   { p.gauges[name] = v; return p }

func (p *page) String() string {
	var b strings.Builder
	labels := fmt.Sprintf(`engine="0",model_name=%q`, p.model)
	for _, name := range sortedKeys(p.counters) {
		l := labels
		if name == sm.RequestSuccess {
			l += `,finished_reason="stop"`
		}
		fmt.Fprintf(&b, "# TYPE %s_total counter\n%s_total{%s} %v\n", name, name, l, p.counters[name])
	}
	for _, name := range sortedKeys(p.gauges) {
		fmt.Fprintf(&b, "# TYPE %s gauge\n%s{%s} %v\n", name, name, labels, p.gauges[name])
	}
	for _, name := range sortedKeys(p.hists) {
		values := slices.Clone(p.hists[name])
		sort.Float64s(values)
		fmt.Fprintf(&b, "# TYPE %s histogram\n", name)
		sum := 0.0
		for _, v := range values {
			sum += v
		}
		for _, ub := range append(slices.Clone(p.buckets[name]), 0) {
			le, n := "+Inf", len(values)
			if ub != 0 {
				le = fmt.Sprint(ub)
				n = sort.Search(len(values), func(i int) bool { return values[i] > ub })
			}
			fmt.Fprintf(&b, "%s_bucket{%s,le=%q} %d\n", name, labels, le, n)
		}
		fmt.Fprintf(&b, "%s_count{%s} %d\n%s_sum{%s} %v\n", name, labels, len(values), name, labels, sum)
	}
	for _, line := range p.extra {
		b.WriteString(line + "\n")
	}
	return b.String()
}

func (p *page) bytes() []byte { return []byte(p.String()) }

// untyped is the page without its # TYPE lines, to follow another page's
// (a second model's series of the same families).
func (p *page) untyped() []byte {
	var out []string
	for _, line := range strings.Split(p.String(), "\n") {
		if !strings.HasPrefix(line, "# TYPE") {
			out = append(out, line)
		}
	}
	return []byte(strings.Join(out, "\n"))
}
