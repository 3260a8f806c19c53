// gobench's report: draws window.gobenchData's charts with uPlot and keeps
// the browser tests' contract (see package htmlreport's documentation).
(function () {
  "use strict";
  var palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
  var fixed = { "-1": "#d62728", "-2": "#999999", "-3": "#bbbbbb", "-4": "#f2b134", "-5": "#2ca02c", "-6": "#ff7f0e", "-7": "#9b1c1c" };
  function color(i) { return i < 0 ? fixed[String(i)] : palette[i % palette.length]; }
  // fmt is resultfile.FormatFloat: two decimals from 1 on, four significant
  // digits below (0 as 0), as the tables print.
  function fmt(v) {
    if (v == null || isNaN(v)) return "-";
    var a = Math.abs(v);
    if (a >= 1e15) return v.toPrecision(6);
    if (a >= 1) return v.toFixed(2);
    if (v === 0) return "0";
    return String(Number(v.toPrecision(4)));
  }
  // A page without charts (a result saved without --save-detailed) has
  // empty lists; an older page may have null.
  var specs = window.gobenchData.charts || [];
  window.gobenchCharts = window.gobenchData.index || [];

  // histPath draws a histogram's bars: bin i spans x[i] to x[i+1], from 0
  // to its count (the last row, the right edge, has no count).
  function histPath(u, sidx, i0, i1) {
    var p = new Path2D(), x = u.data[0], y = u.data[sidx], base = u.valToPos(0, "y", true);
    for (var i = i0; i <= i1; i++) {
      if (y[i] == null || i + 1 >= x.length) continue;
      var a = u.valToPos(x[i], "x", true), b = u.valToPos(x[i + 1], "x", true), top = u.valToPos(y[i], "y", true);
      p.rect(a, top, Math.max(b - a - 1, 1), base - top);
    }
    return { stroke: p, fill: p };
  }

  // binAt is the histogram bin under the cursor: the last left edge at or
  // before it (uPlot's cursor snaps to the nearest edge, which may be the
  // next bin's).
  function binAt(u) {
    var v = u.posToVal(u.cursor.left, "x"), x = u.data[0], i = u.cursor.idx;
    while (i > 0 && x[i] > v) i--;
    while (i + 1 < x.length && x[i + 1] <= v) i++;
    return i;
  }

  function barsPath(spec) {
    return function (u, sidx, i0, i1) {
      var p = new Path2D(), end = spec.series[sidx - 1].end, y = u.data[sidx], x = u.data[0];
      var sc = u.scales.y, rows = Math.max(1, (sc.max - sc.min));
      var h = Math.max(1, u.bbox.height / rows * 0.8);
      for (var i = i0; i <= i1; i++) {
        if (y[i] == null) continue;
        var x0 = u.valToPos(x[i], "x", true), x1 = u.valToPos(end[i], "x", true), yy = u.valToPos(y[i], "y", true);
        p.rect(x0, yy - h / 2, Math.max(x1 - x0, 1), h);
      }
      return { stroke: p, fill: p };
    };
  }

  function seriesOpts(spec, s) {
    var o = { label: s.label, stroke: color(s.color), width: 1.5, spanGaps: true, value: function (u, v) { return fmt(v); } };
    if (s.dash) o.dash = [6, 4];
    if (spec.kind === "step") o.paths = uPlot.paths.stepped({ align: 1 });
    if (spec.kind === "points") { o.paths = function () { return null; }; o.points = { show: true, size: 7, space: 0, fill: color(s.color) }; }
    if (spec.kind === "timeline") { o.paths = barsPath(spec); o.fill = color(s.color); o.points = { show: false }; }
    if (spec.kind === "bars") { o.paths = histPath; o.fill = color(s.color) + (spec.series.length > 1 ? "59" : "b3"); o.points = { show: false }; }
    return o;
  }

  function drawMarks(spec) {
    return function (u) {
      if (!spec.marks) return;
      var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
      ctx.save();
      ctx.font = Math.round(11 * devicePixelRatio) + "px sans-serif";
      spec.marks.forEach(function (m, k) {
        var x = u.valToPos(m.x, "x", true);
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        ctx.strokeStyle = ctx.fillStyle = color(m.color);
        ctx.setLineDash(m.dash ? [5 * devicePixelRatio, 4 * devicePixelRatio] : []);
        ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
        ctx.fillText(m.label, x + 3, top + 12 * devicePixelRatio * (1 + k % 4));
      });
      ctx.restore();
    };
  }

  function tooltip(spec, fig) {
    var tip = fig.querySelector(".gb-tooltip");
    return function (u) {
      var i = u.cursor.idx;
      var on = i != null && u.cursor.left >= 0;
      fig.classList.toggle("gb-hover", on);
      if (!on) { tip.hidden = true; return; }
      var xText = fmt(u.data[0][i]);
      if (spec.kind === "bars") {
        i = binAt(u);
        xText = fmt(u.data[0][i]) + "–" + fmt(u.data[0][i + 1]);
      }
      if (spec.xTicks) xText = spec.xTicks[u.data[0][i]];
      var lines = [spec.xLabel + ": " + xText];
      for (var s = 1; s < u.series.length; s++) {
        var v = u.data[s][i];
        if (v == null || !u.series[s].show) continue;
        var sp = spec.series[s - 1];
        if (spec.kind === "timeline") lines.push(sp.label + ": request " + v + ", " + fmt(u.data[0][i]) + "–" + fmt(sp.end[i]) + " s (" + fmt(sp.end[i] - u.data[0][i]) + " s)");
        else lines.push(sp.label + ": " + fmt(v));
      }
      tip.textContent = lines.join("\n");
      tip.hidden = false;
      var left = u.over.offsetLeft + u.cursor.left + 12, top = u.over.offsetTop + u.cursor.top + 12;
      tip.style.left = Math.min(left, fig.clientWidth - tip.offsetWidth) + "px";
      tip.style.top = top + fig.querySelector(".gb-plot").offsetTop + "px";
    };
  }

  // zoomPan: wheel zooms the x axis around the cursor, shift-drag pans it.
  function zoomPan(u) {
    var over = u.over;
    over.addEventListener("wheel", function (e) {
      e.preventDefault();
      var sc = u.scales.x, f = e.deltaY < 0 ? 0.75 : 1 / 0.75;
      u.gbZoomed = true;
      var at = u.posToVal(e.offsetX, "x"), min = at - (at - sc.min) * f, max = at + (sc.max - at) * f;
      u.setScale("x", { min: min, max: max });
    }, { passive: false });
    over.addEventListener("mousedown", function (e) {
      if (!e.shiftKey) return;
      e.stopPropagation(); e.preventDefault();
      u.gbZoomed = true;
      var x0 = e.clientX, min0 = u.scales.x.min, max0 = u.scales.x.max, perPx = (max0 - min0) / u.bbox.width * devicePixelRatio;
      function move(ev) { var d = (ev.clientX - x0) * perPx; u.setScale("x", { min: min0 - d, max: max0 - d }); }
      function up() { document.removeEventListener("mousemove", move); document.removeEventListener("mouseup", up); }
      document.addEventListener("mousemove", move); document.addEventListener("mouseup", up);
    }, true);
  }

  // xRange is the x axis' range before a zoom: the data, widened to the
  // chart's xMin/xMax (a time axis covers the whole run) and to every mark
  // (an SLO beyond the data); a single value (every TPOT equal) gets a
  // width; a categorical axis spans its ticks.
  function xRange(spec) {
    var xs = (spec.marks || []).map(function (m) { return m.x; });
    if (spec.xMin != null) xs.push(spec.xMin);
    if (spec.xMax != null) xs.push(spec.xMax);
    var lo = Math.min.apply(null, xs), hi = Math.max.apply(null, xs);
    return function (u, min, max) {
      if (spec.xTicks) return [-0.5, spec.xTicks.length - 0.5];
      if (!u.gbZoomed) { min = Math.min(min, lo); max = Math.max(max, hi); }
      if (!(max - min > 1e-9 * Math.max(1, Math.abs(max)))) { var pad = Math.abs(min) / 10 || 1; min -= pad; max += pad; }
      if (spec.xLog && min <= 0) min = max / 1e3;
      return [min, max];
    };
  }

  function xAxis(spec) {
    var a = { label: spec.xLabel };
    if (spec.xTicks) {
      a.splits = function () { return spec.xTicks.map(function (_, i) { return i; }); };
      a.values = function (u, splits) { return splits.map(function (i) { return spec.xTicks[i] || ""; }); };
    }
    return a;
  }

  function draw(spec) {
    var fig = document.getElementById("chart-" + spec.id);
    var box = fig.querySelector(".gb-plot");
    var opts = {
      width: Math.max(300, box.clientWidth || 900),
      height: spec.kind === "timeline" ? 420 : 260,
      scales: { x: { time: false, distr: spec.xLog ? 3 : 1, range: xRange(spec) } },
      axes: [xAxis(spec), { label: spec.yLabel, size: 60 }],
      legend: { show: spec.series.length > 1 },
      cursor: { drag: { x: !spec.xTicks, y: false }, sync: spec.time ? { key: "gobench-time" } : undefined },
      series: [{ label: spec.xLabel, value: function (u, v) { return fmt(v); } }].concat(spec.series.map(function (s) { return seriesOpts(spec, s); })),
      hooks: { draw: [drawMarks(spec)], setCursor: [tooltip(spec, fig)], setSelect: [function (u) { u.gbZoomed = u.gbZoomed || u.select.width > 0; }] }
    };
    if (spec.kind === "timeline") opts.scales.y = { range: function (u, lo, hi) { return [lo - 1, hi + 1]; } };
    if (spec.kind === "bars") opts.scales.y = { range: function (u, lo, hi) { return [0, Math.max(1, hi) * 1.05]; } };
    var data = [spec.x].concat(spec.series.map(function (s) { return s.y; }));
    var u = new uPlot(opts, data, box);
    if (spec.time) zoomPan(u);
    u.over.addEventListener("dblclick", function () { u.gbZoomed = false; }, true);
    u.over.addEventListener("mouseleave", function () { fig.querySelector(".gb-tooltip").hidden = true; fig.classList.remove("gb-hover"); });
    return u;
  }

  var failed = [], plots = [];
  specs.forEach(function (spec) {
    try { plots.push(draw(spec)); } catch (e) {
      failed.push("chart-" + spec.id + ": " + e.message);
      console.error("gobench report: chart-" + spec.id + " failed to draw:", e);
    }
  });
  // The charts follow the grid's width when the window changes.
  var resizing = 0;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      plots.forEach(function (u) {
        var w = Math.max(300, u.root.parentNode.clientWidth);
        if (w !== u.width) u.setSize({ width: w, height: u.height });
      });
    }, 100);
  });
  if (failed.length) document.body.dataset.error = failed.join("; ");
  else document.body.dataset.ready = "true";
})();
