package livemetrics

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"

	"github.com/gobench/gobench/internal/live"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
)

// dashboardFile is the Grafana dashboard of deploy/grafana.
const dashboardFile = "../../deploy/grafana/gobench.json"

// metricName finds the metric names of a PromQL expression: gobench's
// and vLLM's.
var metricName = regexp.MustCompile(`\b(gobench_[a-z0-9_]+|vllm:[a-z0-9_:]+)`)

// dashboardNames reads the dashboard and the metric names its queries and
// variables use.
func dashboardNames(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
		Templating struct {
			List []struct{ Definition string }
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s does not parse: %v", dashboardFile, err)
	}
	var exprs []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		exprs = append(exprs, v.Definition)
	}
	var names []string
	for _, e := range exprs {
		names = append(names, metricName.FindAllString(e, -1)...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// familiesOf reads the family names of a text-format page (counters with
// their _total, as PromQL names them).
func familiesOf(t *testing.T, url string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for name, mf := range scrape(t, url, expfmt.NewFormat(expfmt.TypeTextPlain)) {
		out[name] = true
		if mf.GetType().String() == "HISTOGRAM" {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				out[name+s] = true
			}
		}
	}
	return out
}

// TestDashboardNamesOnlyMetricsThatExist: the dashboard parses, and every
// metric it queries is gobench's (the endpoint's families once a run fed
// them) or the simulator's vLLM page's.
func TestDashboardNamesOnlyMetricsThatExist(t *testing.T) {
	e := New()
	feed(e.Watch(live.Info{Label: "a", Model: "m", Backend: "openai"}))
	g := httptest.NewServer(e.Handler())
	defer g.Close()
	s, err := sim.NewServer(sim.Config{Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	v := httptest.NewServer(s.Handler())
	defer v.Close()
	known := familiesOf(t, g.URL)
	for k := range familiesOf(t, v.URL+"/metrics") {
		known[k] = true
	}
	names := dashboardNames(t)
	if len(names) < 10 {
		t.Fatalf("the dashboard names %d metrics: %v", len(names), names)
	}
	var gobench, vllm int
	for _, n := range names {
		if !known[n] {
			t.Errorf("the dashboard queries %s, which neither gobench's endpoint nor vLLM's page has", n)
		}
		if strings.HasPrefix(n, "vllm:") {
			vllm++
		} else {
			gobench++
		}
	}
	if gobench == 0 || vllm == 0 {
		t.Errorf("the dashboard should show gobench's metrics beside vLLM's: %v", names)
	}
}
