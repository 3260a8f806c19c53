package htmlreport

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/readlimit"
	"github.com/gobench/gobench/internal/resultkey"
)

// Sweep is a sweep directory's table (sweep_table.json, which `gobench
// sweep serve` and `serve --sweep-*` write beside their results) and the
// SLA search of `gobench sweep serve_sla` (sla.json), either may be
// missing but not both.
type Sweep struct {
	// Dir is the directory read.
	Dir string
	// Points are the rows of sweep_table.json.
	Points []*pyjson.Object
	// SLA is sla.json, nil without it.
	SLA *pyjson.Object
}

// maxSweepFile bounds the sweep files read.
const maxSweepFile = 64 << 20

// ReadSweep reads a sweep directory: its table (sweep_table.json in it
// or in summary/, which gobench sweep serve writes; else the last
// sweep-DATE.json, which serve --sweep-* writes; else every
// summary.json below it, vLLM's layout, which plot_pareto reads) and
// sla.json.
func ReadSweep(dir string) (*Sweep, error) {
	s := &Sweep{Dir: dir}
	tables := []string{filepath.Join(dir, "sweep_table.json"), filepath.Join(dir, "summary", "sweep_table.json")}
	if dated, _ := filepath.Glob(filepath.Join(dir, "sweep-*.json")); len(dated) > 0 {
		sort.Strings(dated)
		tables = append(tables, dated[len(dated)-1])
	}
	for _, p := range tables {
		points, err := readPoints(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		s.Points = points
		break
	}
	if s.Points == nil {
		err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || e.Name() != "summary.json" {
				return err
			}
			points, err := readPoints(p)
			s.Points = append(s.Points, points...)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	p := filepath.Join(dir, "sla.json")
	data, err := readlimit.File(p, maxSweepFile)
	switch {
	case err == nil:
		if s.SLA, err = pyjson.DecodeFileObject(data); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	if s.Points == nil && s.SLA == nil {
		return nil, fmt.Errorf("%s: no sweep_table.json, sweep-*.json, summary.json or sla.json: not a sweep directory", dir)
	}
	return s, nil
}

// readPoints reads a JSON list of objects (a sweep table, a summary.json).
func readPoints(path string) ([]*pyjson.Object, error) {
	data, err := readlimit.File(path, maxSweepFile)
	if err != nil {
		return nil, err
	}
	v, err := pyjson.DecodeFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: not a list of points", path)
	}
	var out []*pyjson.Object
	for _, e := range list {
		if o, ok := e.(*pyjson.Object); ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// num is o[key] as a number, NaN when absent or not a number ("inf" is
// +Inf).
func num(o *pyjson.Object, key string) float64 {
	v, ok := o.Get(key)
	if !ok {
		return math.NaN()
	}
	if s, ok := v.(string); ok && s == "inf" {
		return math.Inf(1)
	}
	if f, ok := pyjson.Number(v); ok {
		return f
	}
	return math.NaN()
}

// loadKey is the load the sweep varies: max_concurrency when the points'
// rates are all unlimited or equal, else request_rate.
func (s *Sweep) loadKey() string {
	rates := map[float64]bool{}
	for _, p := range s.Points {
		rates[num(p, "request_rate")] = true
	}
	if len(rates) <= 1 {
		return "max_concurrency"
	}
	return "request_rate"
}

// sweepCharts are latency against the achieved request throughput,
// throughput against the load, and the Pareto front of output tokens per
// user against output tokens per GPU. The x axes are the achieved
// throughput and the loads in order, not the load's value, so that the
// unlimited rate ("inf", the saturation point) is drawn too.
func sweepCharts(s *Sweep) []*chart {
	if len(s.Points) == 0 {
		return nil
	}
	load := s.loadKey()
	pts := append([]*pyjson.Object(nil), s.Points...)
	sort.SliceStable(pts, func(i, j int) bool { return num(pts[i], load) < num(pts[j], load) })
	var lat []string
	for _, k := range pts[0].Keys() {
		for _, m := range latencyMetrics {
			if st, ok := trimMetric(k, m.key); ok && st != "mean" {
				lat = append(lat, k)
			}
		}
	}
	var out []*chart
	achieved := func(p *pyjson.Object, _ int) float64 { return num(p, resultkey.RequestThroughput) }
	if l := sweepSeries(pts, lat, achieved); len(l) > 0 {
		out = append(out, newChart("sweep-latency", "Latency against achieved throughput", kindLine,
			"achieved request throughput (req/s)", "ms", l))
	} else if l := sweepSeries(pts, lat, func(p *pyjson.Object, _ int) float64 { return num(p, load) }); len(l) > 0 {
		// A file without the throughput (a summary of vLLM's layout
		// may lack it): against the load, its unlimited point left out.
		out = append(out, newChart("sweep-latency", "Latency against load", kindLine, load, "ms", l))
	}
	order := func(_ *pyjson.Object, i int) float64 { return float64(i) }
	for _, t := range []struct {
		id, title, unit string
		keys            []string
	}{
		{"sweep-throughput", "Request throughput against load", "req/s", []string{resultkey.RequestThroughput, resultkey.RequestGoodput}},
		{"sweep-tokens", "Output throughput against load", "tokens/s", []string{resultkey.OutputThroughput}},
	} {
		if l := sweepSeries(pts, t.keys, order); len(l) > 0 {
			c := newChart(t.id, t.title, kindLine, load, t.unit, l)
			for _, p := range pts {
				c.XTicks = append(c.XTicks, loadText(p, load))
			}
			out = append(out, c)
		}
	}
	if p := paretoChart(pts); p != nil {
		out = append(out, p)
	}
	return out
}

// sweepSeries are one series per key of the points, each point at x(p,
// its index); a point without a finite x or the key is left out.
func sweepSeries(pts []*pyjson.Object, keys []string, x func(*pyjson.Object, int) float64) []raw {
	var out []raw
	for i, k := range keys {
		var xs, ys []float64
		for j, p := range pts {
			if lx, v := x(p, j), num(p, k); !math.IsNaN(lx) && !math.IsInf(lx, 0) && !math.IsNaN(v) {
				xs, ys = append(xs, lx), append(ys, v)
			}
		}
		if len(xs) > 0 {
			out = append(out, raw{label: k, color: i, x: xs, y: ys})
		}
	}
	return out
}

// loadText is a point's load as the sweep names it ("inf" for an
// unlimited rate, "-" when absent).
func loadText(p *pyjson.Object, load string) string {
	v := num(p, load)
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsNaN(v):
		return "-"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// paretoChart is vLLM's plot_pareto (vllm/benchmarks/sweep/plot_pareto.py@0857176):
// tokens/s/user is output_throughput over the user count (max_concurrency,
// else request_rate; points with neither are left out) and tokens/s/GPU is
// output_throughput over the GPU count, 1 here (a gobench sweep does not
// know the server's parallelism); the front keeps, from the highest
// tokens/s/user down, each point whose tokens/s/GPU is at least the best
// so far (minus 1e-9).
func paretoChart(pts []*pyjson.Object) *chart {
	type xy struct{ x, y float64 }
	var all []xy
	for _, p := range pts {
		users := num(p, "max_concurrency")
		if math.IsNaN(users) || users == 0 {
			users = num(p, "request_rate")
		}
		t := num(p, "output_throughput")
		if math.IsNaN(users) || users == 0 || math.IsInf(users, 0) || math.IsNaN(t) {
			continue
		}
		all = append(all, xy{t / users, t})
	}
	if len(all) == 0 {
		return nil
	}
	sorted := append([]xy(nil), all...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].x != sorted[j].x {
			return sorted[i].x > sorted[j].x
		}
		return sorted[i].y > sorted[j].y
	})
	var front []xy
	best := math.Inf(-1)
	for _, p := range sorted {
		if p.y >= best-1e-9 {
			front = append(front, p)
			best = math.Max(best, p.y)
		}
	}
	sort.Slice(front, func(i, j int) bool { return front[i].x < front[j].x })
	sort.Slice(all, func(i, j int) bool { return all[i].x < all[j].x })
	split := func(l []xy) (x, y []float64) {
		for _, p := range l {
			x, y = append(x, p.x), append(y, p.y)
		}
		return x, y
	}
	ax, ay := split(all)
	fx, fy := split(front)
	return newChart("pareto", "Pareto front: throughput against latency", kindLine, "tokens/s/user", "tokens/s/GPU",
		[]raw{{label: "all runs", color: -2, x: ax, y: ay, dashed: true}, {label: "Pareto frontier", color: 0, x: fx, y: fy}})
}

// slaChart is the SLA search's points: the load of each attempt in order,
// its verdict in the label, and the answer as a mark.
func slaChart(s *Sweep) *chart {
	if s.SLA == nil {
		return nil
	}
	v, _ := s.SLA.Get("sla_variable")
	variable, _ := v.(string)
	pl, _ := s.SLA.Get("points")
	list, _ := pl.([]any)
	byVerdict := map[string]*raw{}
	var order []string
	for _, e := range list {
		p, ok := e.(*pyjson.Object)
		if !ok {
			continue
		}
		vv, _ := p.Get("verdict")
		verdict, _ := vv.(string)
		r, ok := byVerdict[verdict]
		if !ok {
			r = &raw{label: verdict, color: len(order)}
			byVerdict[verdict] = r
			order = append(order, verdict)
		}
		r.x, r.y = append(r.x, num(p, variable)), append(r.y, num(p, "request_throughput"))
	}
	var rs []raw
	for _, k := range order {
		rs = append(rs, *byVerdict[k])
	}
	if len(rs) == 0 {
		return nil
	}
	c := newChart("sla", "SLA search: points tried", kindPoints, variable, "request throughput (req/s)", rs)
	if a := num(s.SLA, "answer"); !math.IsNaN(a) {
		c.Marks = []mark{{X: a, Label: "answer " + fmt.Sprintf("%g", a), Color: sloColor, Dash: true}}
	}
	return c
}
