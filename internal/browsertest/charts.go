package browsertest

import (
	"context"
	"fmt"
	"strconv"

	"github.com/chromedp/chromedp"
)

// chartsJS reads every figure.gb-chart: its attributes, caption and marks
// (non-transparent pixels of its canvases, copied onto a 2D canvas so WebGL
// canvases count too, plus its SVG shapes), and window.gobenchCharts.
const chartsJS = `(() => {
  const marks = f => {
    let n = 0;
    for (const c of f.querySelectorAll("canvas")) {
      if (!c.width || !c.height) continue;
      const t = document.createElement("canvas");
      t.width = c.width; t.height = c.height;
      const g = t.getContext("2d");
      g.drawImage(c, 0, 0);
      const d = g.getImageData(0, 0, t.width, t.height).data;
      for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
    }
    return n + f.querySelectorAll("svg path, svg circle, svg rect, svg line, svg polyline, svg polygon, svg ellipse").length;
  };
  const figs = [...document.querySelectorAll("figure.gb-chart")].map(f => ({
    id: f.id, series: f.dataset.series || "", points: f.dataset.points || "",
    caption: ((f.querySelector("figcaption") || {}).textContent || "").trim(),
    marks: marks(f)}));
  const g = Array.isArray(window.gobenchCharts) ? window.gobenchCharts.map(c => ({id: String(c.id), series: Number(c.series), points: Number(c.points)})) : null;
  return {figs, declared: g};
})()`

type pageCharts struct {
	Figs []struct {
		ID      string `json:"id"`
		Series  string `json:"series"`
		Points  string `json:"points"`
		Caption string `json:"caption"`
		Marks   int    `json:"marks"`
	} `json:"figs"`
	Declared []struct {
		ID     string `json:"id"`
		Series int    `json:"series"`
		Points int    `json:"points"`
	} `json:"declared"`
}

// readCharts reads the page's charts and returns them with the problems
// found: a page without charts (unless noCharts) or without
// window.gobenchCharts, a figure
// whose attributes are not positive counts or disagree with
// window.gobenchCharts, and a chart that drew nothing.
func readCharts(tab context.Context, noCharts bool) ([]Chart, []error) {
	pc, err := chromedp.Run(tab, chromedp.Evaluate[pageCharts](chartsJS))
	if err != nil {
		return nil, []error{fmt.Errorf("reading the charts: %w", err)}
	}
	var problems []error
	if len(pc.Figs) == 0 && !noCharts {
		problems = append(problems, fmt.Errorf("the page has no figure.gb-chart"))
	}
	if pc.Declared == nil {
		problems = append(problems, fmt.Errorf("window.gobenchCharts is not an array"))
	} else if len(pc.Declared) != len(pc.Figs) {
		problems = append(problems, fmt.Errorf("window.gobenchCharts lists %d charts, the page has %d figures", len(pc.Declared), len(pc.Figs)))
	}
	declared := map[string][2]int{}
	for _, d := range pc.Declared {
		declared[d.ID] = [2]int{d.Series, d.Points}
	}
	charts := make([]Chart, 0, len(pc.Figs))
	for _, f := range pc.Figs {
		c := Chart{ID: f.ID, Caption: f.Caption, Marks: f.Marks}
		c.Series, _ = strconv.Atoi(f.Series)
		c.Points, _ = strconv.Atoi(f.Points)
		charts = append(charts, c)
		if c.Series < 1 || c.Points < 1 {
			problems = append(problems, fmt.Errorf("%s: data-series=%q data-points=%q, want positive counts", f.ID, f.Series, f.Points))
		}
		if d, ok := declared[f.ID]; pc.Declared != nil && (!ok || d != [2]int{c.Series, c.Points}) {
			problems = append(problems, fmt.Errorf("%s: window.gobenchCharts says series/points %v (listed: %v), the figure %d/%d", f.ID, d, ok, c.Series, c.Points))
		}
		if c.Marks == 0 {
			problems = append(problems, fmt.Errorf("%s: drew nothing (no canvas pixel, no SVG shape)", f.ID))
		}
		if c.Caption == "" {
			problems = append(problems, fmt.Errorf("%s: no figcaption", f.ID))
		}
	}
	return charts, problems
}

// plotJS scrolls a figure's plot (its largest canvas or svg) into the middle
// of the window and returns its box in viewport pixels.
const plotJS = `((id) => {
  const f = document.getElementById(id);
  if (!f) return null;
  let best = null, area = 0;
  for (const e of f.querySelectorAll("canvas, svg")) {
    const r = e.getBoundingClientRect();
    if (r.width * r.height > area) { best = e; area = r.width * r.height; }
  }
  if (!best) return null;
  best.scrollIntoView({block: "center", inline: "center"});
  const r = best.getBoundingClientRect();
  return {x: r.left, y: r.top, w: r.width, h: r.height};
})`

// tooltipJS returns the text of the figure's .gb-tooltip when it is shown,
// after two animation frames (charts often redraw on the next frame).
const tooltipJS = `((id) => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
  const t = document.querySelector("#" + CSS.escape(id) + " .gb-tooltip");
  if (!t) return done("");
  const s = getComputedStyle(t);
  const shown = s.display !== "none" && s.visibility !== "hidden" && Number(s.opacity) > 0 && t.getClientRects().length > 0;
  done(shown ? t.textContent.trim() : "");
}))))`

type box struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// hover moves the mouse over a grid of points in the chart's plot, middle
// first, until its tooltip shows text, and returns that text; no text after
// the whole grid is an error.
func hover(tab context.Context, id string) (string, error) {
	idJS := strconv.Quote(id)
	b, err := chromedp.Run(tab, chromedp.Evaluate[*box](plotJS+"("+idJS+")"))
	if err != nil {
		return "", err
	}
	if b == nil || b.W < 2 || b.H < 2 {
		return "", fmt.Errorf("no canvas or svg with an area to hover")
	}
	fx := []float64{0.5, 0.3, 0.7, 0.15, 0.85, 0.4, 0.6}
	fy := []float64{0.5, 0.3, 0.7, 0.15, 0.85}
	for _, y := range fy {
		for _, x := range fx {
			if err := chromedp.Do(tab, chromedp.MouseEvent("mouseMoved", b.X+x*b.W, b.Y+y*b.H)); err != nil {
				return "", err
			}
			tip, err := chromedp.Run(tab, chromedp.Evaluate[string](tooltipJS+"("+idJS+")", chromedp.EvalAwaitPromise))
			if err != nil {
				return "", err
			}
			if tip != "" {
				return tip, nil
			}
		}
	}
	return "", fmt.Errorf("no visible .gb-tooltip with text after hovering %d points of the plot", len(fx)*len(fy))
}

// Card is one of the report's cards (.gb-card): its label and value, and
// where it lies in the window with the page scrolled to the top, in CSS
// pixels.
type Card struct {
	Label  string  `json:"label"`
	Value  string  `json:"value"`
	Top    float64 `json:"top"`
	Bottom float64 `json:"bottom"`
}

// cardsJS scrolls to the top and measures every .gb-card.
const cardsJS = `(() => {
  window.scrollTo(0, 0);
  const text = (c, sel) => ((c.querySelector(sel) || {}).textContent || "").trim();
  return [...document.querySelectorAll(".gb-card")].map(c => {
    const r = c.getBoundingClientRect();
    return {label: text(c, ".gb-card-label"), value: text(c, ".gb-card-value"), top: r.top, bottom: r.bottom};
  });
})()`

// idleLegendJS lists the legend values shown while no chart is hovered.
const idleLegendJS = `[...document.querySelectorAll(".u-legend .u-value")]
  .filter(e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden")
  .map(e => e.textContent.trim())`
