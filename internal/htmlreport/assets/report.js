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
  window.gobenchCharts = window.gobenchData.index;

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
      if (i == null || u.cursor.left < 0) { tip.hidden = true; return; }
      var lines = [spec.xLabel + ": " + fmt(u.data[0][i])];
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
      var at = u.posToVal(e.offsetX, "x"), min = at - (at - sc.min) * f, max = at + (sc.max - at) * f;
      u.setScale("x", { min: min, max: max });
    }, { passive: false });
    over.addEventListener("mousedown", function (e) {
      if (!e.shiftKey) return;
      e.stopPropagation(); e.preventDefault();
      var x0 = e.clientX, min0 = u.scales.x.min, max0 = u.scales.x.max, perPx = (max0 - min0) / u.bbox.width * devicePixelRatio;
      function move(ev) { var d = (ev.clientX - x0) * perPx; u.setScale("x", { min: min0 - d, max: max0 - d }); }
      function up() { document.removeEventListener("mousemove", move); document.removeEventListener("mouseup", up); }
      document.addEventListener("mousemove", move); document.addEventListener("mouseup", up);
    }, true);
  }

  function draw(spec) {
    var fig = document.getElementById("chart-" + spec.id);
    var box = fig.querySelector(".gb-plot");
    var opts = {
      width: Math.max(400, fig.clientWidth || 900),
      height: spec.kind === "timeline" ? 420 : 300,
      scales: { x: { time: false } },
      axes: [{ label: spec.xLabel }, { label: spec.yLabel, size: 60 }],
      cursor: { drag: { x: true, y: false }, sync: spec.time ? { key: "gobench-time" } : undefined },
      series: [{ label: spec.xLabel, value: function (u, v) { return fmt(v); } }].concat(spec.series.map(function (s) { return seriesOpts(spec, s); })),
      hooks: { draw: [drawMarks(spec)], setCursor: [tooltip(spec, fig)] }
    };
    if (!spec.time) {
      // Widen the value axis to show every mark (an SLO beyond the data),
      // and give a single value (every TPOT equal) a width.
      var xs = (spec.marks || []).map(function (m) { return m.x; });
      var lo = Math.min.apply(null, xs), hi = Math.max.apply(null, xs);
      opts.scales.x.range = function (u, min, max) {
        if (!u.gbZoomed) { min = Math.min(min, lo); max = Math.max(max, hi); }
        if (!(max - min > 1e-9 * Math.max(1, Math.abs(max)))) { var pad = Math.abs(min) / 10 || 1; min -= pad; max += pad; }
        return [min, max];
      };
      opts.hooks.setSelect = [function (u) { u.gbZoomed = u.select.width > 0; }];
    }
    if (spec.kind === "timeline") opts.scales.y = { range: function (u, lo, hi) { return [lo - 1, hi + 1]; } };
    var data = [spec.x].concat(spec.series.map(function (s) { return s.y; }));
    var u = new uPlot(opts, data, box);
    if (spec.time) zoomPan(u);
    u.over.addEventListener("dblclick", function () { u.gbZoomed = false; }, true);
    u.over.addEventListener("mouseleave", function () { fig.querySelector(".gb-tooltip").hidden = true; });
    return u;
  }

  var failed = [];
  window.gobenchData.charts.forEach(function (spec) {
    try { draw(spec); } catch (e) {
      failed.push("chart-" + spec.id + ": " + e.message);
      console.error("gobench report: chart-" + spec.id + " failed to draw:", e);
    }
  });
  if (failed.length) document.body.dataset.error = failed.join("; ");
  else document.body.dataset.ready = "true";
})();
