package htmlreport

import (
	"math"
	"sort"
	"strconv"
)

// Chart kinds: how report.js draws a chart's series.
const (
	kindLine     = "line"     // lines between points
	kindStep     = "step"     // a histogram's steps
	kindPoints   = "points"   // markers only (scatter)
	kindTimeline = "timeline" // one horizontal bar per point, from x to end
	kindBars     = "bars"     // a histogram: a bar from each x to the next
)

// chart is one figure: aligned columns for uPlot (X, then one column per
// series with NaN, written null, where the series has no point), the
// vertical marks and what the axes show.
type chart struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Kind   string   `json:"kind"`
	XLabel string   `json:"xLabel"`
	YLabel string   `json:"yLabel"`
	Time   bool     `json:"time"` // a time axis: zoom and pan, cursors in sync
	X      nums     `json:"x"`
	Series []series `json:"series"`
	Marks  []mark   `json:"marks,omitempty"`
	// XLog draws the x axis on a log scale (a long tail, see logAxis).
	XLog bool `json:"xLog,omitempty"`
	// XMin and XMax, when set, are the x range before any zoom: the whole
	// run on a time axis, whatever the series cover.
	XMin *float64 `json:"xMin,omitempty"`
	XMax *float64 `json:"xMax,omitempty"`
	// XTicks name the x values 0, 1, ... of a categorical axis (a sweep's
	// loads, "inf" included).
	XTicks []string `json:"xTicks,omitempty"`
	// Wide spans the whole width of the page's grid (the timeline).
	Wide   bool   `json:"-"`
	Note   string `json:"-"`
	points int
}

// series is one column of a chart.
type series struct {
	Label string `json:"label"`
	Color int    `json:"color"`
	Y     nums   `json:"y"`
	// End is, for a timeline bar, where it ends (aligned with Y).
	End nums `json:"end,omitempty"`
	// Dash draws the line dashed.
	Dash bool `json:"dash,omitempty"`
}

// mark is a vertical line: a printed percentile or a goodput SLO.
type mark struct {
	X     float64 `json:"x"`
	Label string  `json:"label"`
	Color int     `json:"color"`
	Dash  bool    `json:"dash,omitempty"`
}

// nums is a column written as a JSON array, NaN as null, in the shortest
// form that reads back the same float64.
type nums []float64

// MarshalJSON writes the column.
func (n nums) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 8*len(n)+2)
	b = append(b, '[')
	for i, v := range n {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return append(b, ']'), nil
}

// raw is one series before alignment.
type raw struct {
	label  string
	color  int
	x, y   []float64
	end    []float64
	dashed bool
}

// newChart aligns the series on one x column, as uPlot takes them: the
// rows are every series' x values, sorted; the k-th repetition of a value
// within a series gets its own row, so no point is lost.
func newChart(id, title, kind, xLabel, yLabel string, list []raw) *chart {
	type key struct {
		x float64
		k int
	}
	var keys []key
	seen := map[key]bool{}
	for _, s := range list {
		count := map[float64]int{}
		for _, x := range s.x {
			k := key{x, count[x]}
			count[x]++
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].x != keys[j].x {
			return keys[i].x < keys[j].x
		}
		return keys[i].k < keys[j].k
	})
	row := make(map[key]int, len(keys))
	c := &chart{ID: id, Title: title, Kind: kind, XLabel: xLabel, YLabel: yLabel, X: make(nums, len(keys))}
	for i, k := range keys {
		row[k], c.X[i] = i, k.x
	}
	for _, s := range list {
		out := series{Label: s.label, Color: s.color, Y: fill(len(keys)), Dash: s.dashed}
		if s.end != nil {
			out.End = fill(len(keys))
		}
		count := map[float64]int{}
		for i, x := range s.x {
			r := row[key{x, count[x]}]
			count[x]++
			out.Y[r] = s.y[i]
			if s.end != nil {
				out.End[r] = s.end[i]
			}
			if !math.IsNaN(s.y[i]) {
				c.points++
			}
		}
		c.Series = append(c.Series, out)
	}
	return c
}

// fill is n NaNs.
func fill(n int) nums {
	v := make(nums, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}
