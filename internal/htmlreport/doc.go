// Package htmlreport writes gobench's HTML report: one self-contained file
// with the charts of one run, of several runs overlaid (headed by compare's
// table) or of a sweep directory, readable offline.
//
// The charts are drawn by uPlot 1.6.32 (MIT; assets/uPlot.LICENSE, version
// and checksums in assets/README.md), embedded with go:embed and inlined in
// the page with gobench's own report.js and report.css, so the page makes
// no request to any host. uPlot was chosen because it is small (51 kB
// minified, no dependency; Chart.js is 254 kB, Plotly.js, which vLLM's
// --plot-timeline uses, 3.6 MB), draws on a canvas and stays fast on large
// series (its README: an interactive chart of 150,000 points from a cold
// start in 90 ms, where SVG libraries build one DOM node per point), has a
// legend that toggles series, cursor hooks for hover values, drag-to-zoom
// on the x axis, and the MIT licence, which allows vendoring. Measured
// here: the page of a 100,000-request run is about 0.5 MB, written in about
// half a second (BenchmarkReport100k), and draws in headless Chromium in
// about 0.2 s.
//
// Downsampling rule (downsample.go): a series keeps at most MaxPoints
// points. A longer line is cut into MaxPoints/2 buckets of consecutive
// points, each bucket keeping its lowest and highest point in x order, so
// spikes survive; a CDF keeps MaxPoints evenly spaced ranks, first and last
// included; the per-request timeline keeps every k-th request (k the
// smallest that leaves at most MaxTimelineRequests). Exact numbers are in
// the tables, which are computed from all requests.
//
// The page reads as a dashboard: cards with the figures a reader checks
// first (requests, failures, throughput, TTFT/ITL/E2EL p50 and p99,
// goodput, the server's verdict), then the charts in a grid as wide as the
// window, the comparison and the server view as HTML tables, and the
// settings folded at the end. A latency distribution goes on a log axis
// when its largest value is at least logTail (20) times its median; the
// charts over time span the whole run; a sweep is drawn against its
// achieved throughput and its loads in order, so that the unlimited rate
// shows.
//
// The page keeps a contract with the browser tests: each card is a
// .gb-card with its .gb-card-label and .gb-card-value; each chart is a
// <figure class="gb-chart ..." id="chart-NAME" data-series="N" data-points="M">
// (N series, M points drawn after downsampling) with its title in a
// <figcaption>; window.gobenchCharts lists {id, series, points}; once every
// chart has drawn, document.body.dataset.ready is "true", and a chart that
// fails sets document.body.dataset.error; hovering a point shows its value
// in the figure's .gb-tooltip element, formatted as in the tables (two
// decimals).
package htmlreport
