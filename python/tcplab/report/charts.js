// tcplab's interactive charts: the report's only script, written for it and inlined
// into every report (no network, no library). Reads the chart descriptions that
// tcplab.charts builds (embedded as JSON by tcplab.report) and draws each as SVG.
//
// Per chart: a legend whose entries toggle their lines (and companion lines, e.g. a
// flow's dashed ssthresh); drag across a panel to zoom the time axis (all panels of
// the chart follow), double-click or "reset zoom" to go back; hovering shows the
// value of every visible line at the nearest point.
"use strict";

(function () {
  const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                   "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  const ROLE_COLOUR = { aggregate: "#222222", median: "#1f4e99" };
  const BAND_COLOUR = "#6b8fd6";
  const MARGIN = { left: 64, right: 16, top: 10, bottom: 34 };
  const PANEL_HEIGHT = 260;
  const SVG = "http://www.w3.org/2000/svg";

  function decode(b64, kind) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return kind === "f64" ? new Float64Array(bytes.buffer) : new Float32Array(bytes.buffer);
  }

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function format(v) {
    if (!Number.isFinite(v)) return "–";
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(3);
    return Number(v.toPrecision(5)).toString();
  }

  // Tick values: 1, 2 or 5 times a power of ten, about `count` of them.
  function ticks(lo, hi, count) {
    if (!(hi > lo)) return [lo];
    const raw = (hi - lo) / count;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
    const out = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
    return out;
  }

  // Ticks of a logarithmic axis: 1, 2 and 5 of each decade (1 of each if many decades).
  function logTicks(lo, hi) {
    const out = [], decades = Math.log10(hi / lo);
    for (let p = Math.floor(Math.log10(lo)); p <= Math.ceil(Math.log10(hi)); p++) {
      for (const m of decades > 4 ? [1] : [1, 2, 5]) { const t = m * Math.pow(10, p); if (t >= lo && t <= hi) out.push(t); }
    }
    return out;
  }

  // The first index whose x is >= v (x ascending).
  function lowerBound(x, v) {
    let lo = 0, hi = x.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (x[mid] < v) lo = mid + 1; else hi = mid; }
    return lo;
  }

  // An error bar's ends within the range its quantity can take ([low, high]; null:
  // unbounded): a confidence interval of a few runs can reach below zero.
  function clipped(bottom, top, bounds) {
    const [low, high] = bounds || [null, null];
    return [low === null ? bottom : Math.max(bottom, low), high === null ? top : Math.min(top, high)];
  }

  function nearest(x, v) {
    const i = lowerBound(x, v);
    if (i <= 0) return 0;
    if (i >= x.length) return x.length - 1;
    return v - x[i - 1] <= x[i] - v ? i - 1 : i;
  }

  class Chart {
    constructor(figure, spec) {
      this.figure = figure;
      this.spec = spec;
      this.hidden = new Set();
      this.zoom = null; // [x0, x1] or null for everything
      this.colours = new Map();
      for (const panel of spec.panels) {
        for (const line of panel.lines) {
          line.xs = decode(line.x, "f64");
          line.ys = decode(line.y, "f32");
          line.errs = line.err ? decode(line.err, "f32") : null;
        }
        for (const band of panel.bands) {
          band.xs = decode(band.x, "f64");
          band.lo = decode(band.lower, "f32");
          band.hi = decode(band.upper, "f32");
        }
      }
      this.assignColours();
      this.build();
      this.render();
    }

    assignColours() {
      let next = 0;
      for (const panel of this.spec.panels) {
        for (const line of panel.lines) {
          if (line.pair || this.colours.has(line.name)) continue;
          this.colours.set(line.name, ROLE_COLOUR[line.role] || PALETTE[next++ % PALETTE.length]);
        }
        if (panel.bars) {
          for (const name of Object.keys(panel.bars.values)) {
            if (!this.colours.has(name)) this.colours.set(name, PALETTE[next++ % PALETTE.length]);
          }
        }
      }
    }

    colour(line) { return this.colours.get(line.pair || line.name) || "#444"; }
    visible(name) { return !this.hidden.has(name); }

    build() {
      const f = this.figure;
      const head = document.createElement("div");
      head.className = "chart-head";
      head.innerHTML = "<h3></h3><button class='reset' type='button'>reset zoom</button>";
      head.querySelector("h3").textContent = this.spec.title;
      head.querySelector(".reset").addEventListener("click", () => { this.zoom = null; this.render(); });
      f.appendChild(head);
      this.svgs = this.spec.panels.map(() => {
        const svg = el("svg", { class: "panel", role: "img" });
        f.appendChild(svg);
        return svg;
      });
      this.tooltip = document.createElement("div");
      this.tooltip.className = "tooltip";
      f.appendChild(this.tooltip);
      this.legend = document.createElement("div");
      this.legend.className = "legend";
      f.appendChild(this.legend);
      const names = [];
      for (const panel of this.spec.panels) {
        for (const band of panel.bands) if (!names.includes(band.name)) names.push(band.name);
        for (const line of panel.lines) if (!line.pair && !names.includes(line.name)) names.push(line.name);
        if (panel.bars) for (const name of Object.keys(panel.bars.values)) if (!names.includes(name)) names.push(name);
      }
      for (const name of names) {
        const entry = document.createElement("button");
        entry.type = "button";
        entry.className = "entry";
        entry.dataset.name = name;
        const swatch = document.createElement("span");
        swatch.className = "swatch";
        swatch.style.background = this.colours.get(name) || BAND_COLOUR;
        entry.append(swatch, document.createTextNode(name));
        entry.title = "show or hide";
        entry.addEventListener("click", () => {
          if (this.hidden.has(name)) this.hidden.delete(name); else this.hidden.add(name);
          entry.classList.toggle("off", this.hidden.has(name));
          this.render();
        });
        this.legend.appendChild(entry);
      }
      if (names.length <= 1) this.legend.classList.add("single");
      window.addEventListener("resize", () => this.render());
    }

    xDomain() {
      if (this.zoom) return this.zoom;
      if (this.spec.xcategories) return [-0.5, this.spec.xcategories.length - 0.5];
      let lo = Infinity, hi = -Infinity;
      for (const panel of this.spec.panels) {
        for (const line of panel.lines) for (const x of [line.xs[0], line.xs[line.xs.length - 1]]) {
          if (Number.isFinite(x)) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
        }
        for (const band of panel.bands) { lo = Math.min(lo, band.xs[0]); hi = Math.max(hi, band.xs[band.xs.length - 1]); }
      }
      if (!Number.isFinite(lo)) return [0, 1];
      if (this.spec.xlog) return hi > lo ? [lo / 1.15, hi * 1.15] : [lo / 2, hi * 2];
      const markers = this.spec.panels.some((p) => p.lines.some((l) => l.markers));
      const pad = markers ? (hi - lo) * 0.04 : 0; // room for the first and last marker
      return hi > lo ? [lo - pad, hi + pad] : [lo - 0.5, hi + 0.5];
    }

    yDomain(panel, x0, x1) {
      if (panel.ylim) return panel.ylim;
      let lo = Infinity, hi = -Infinity;
      const take = (xs, ys, errs, bounds) => {
        const a = Math.max(lowerBound(xs, x0) - 1, 0), b = Math.min(lowerBound(xs, x1) + 1, xs.length);
        for (let i = a; i < b; i++) {
          const y = ys[i], e = errs && Number.isFinite(errs[i]) ? errs[i] : 0;
          const [bottom, top] = clipped(y - e, y + e, bounds);
          if (Number.isFinite(y)) { if (bottom < lo) lo = bottom; if (top > hi) hi = top; }
        }
      };
      for (const line of panel.lines) if (this.visible(line.pair || line.name)) take(line.xs, line.ys, line.errs, line.bounds);
      for (const band of panel.bands) if (this.visible(band.name)) { take(band.xs, band.lo); take(band.xs, band.hi); }
      if (!Number.isFinite(lo)) return [0, 1];
      lo = Math.min(lo, 0);
      if (hi <= lo) hi = lo + 1;
      return [lo, hi + (hi - lo) * 0.05];
    }

    render() {
      const width = Math.max(this.figure.clientWidth - 2, 320);
      this.spec.panels.forEach((panel, k) => this.renderPanel(this.svgs[k], panel, width, k === this.spec.panels.length - 1));
    }

    renderPanel(svg, panel, width, last) {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      const height = PANEL_HEIGHT + (last ? 0 : -MARGIN.bottom + 8);
      svg.setAttribute("width", width);
      svg.setAttribute("height", height);
      svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
      const plotW = width - MARGIN.left - MARGIN.right, plotH = height - MARGIN.top - (last ? MARGIN.bottom : 8);
      if (panel.bars) return this.renderBars(svg, panel, plotW, plotH);
      const [x0, x1] = this.xDomain();
      const [y0, y1] = this.yDomain(panel, x0, x1);
      const log = this.spec.xlog && x0 > 0;
      const sx = log ? (x) => MARGIN.left + (Math.log(x / x0) / Math.log(x1 / x0)) * plotW
                     : (x) => MARGIN.left + ((x - x0) / (x1 - x0)) * plotW;
      const sy = (y) => MARGIN.top + plotH - ((y - y0) / (y1 - y0)) * plotH;
      const xt = this.spec.xcategories ? this.spec.xcategories.map((_, i) => i).filter((i) => i >= x0 && i <= x1)
        : log ? logTicks(x0, x1) : ticks(x0, x1, Math.max(Math.floor(plotW / 90), 2));
      this.axes(svg, panel, plotW, plotH, xt, ticks(y0, y1, 5), sx, sy, last);
      const clipId = `clip-${this.spec.name}-${this.svgs.indexOf(svg)}`;
      const clip = el("clipPath", { id: clipId }, el("defs", {}, svg));
      el("rect", { x: MARGIN.left, y: MARGIN.top, width: plotW, height: plotH }, clip);
      const body = el("g", { "clip-path": `url(#${clipId})` }, svg);
      for (const band of panel.bands) {
        const a = Math.max(lowerBound(band.xs, x0) - 1, 0), b = Math.min(lowerBound(band.xs, x1) + 1, band.xs.length);
        let d = "";
        for (let i = a; i < b; i++) d += `${i === a ? "M" : "L"}${sx(band.xs[i]).toFixed(1)},${sy(band.hi[i]).toFixed(1)}`;
        for (let i = b - 1; i >= a; i--) d += `L${sx(band.xs[i]).toFixed(1)},${sy(band.lo[i]).toFixed(1)}`;
        const path = el("path", { class: "band", d: d + "Z", fill: BAND_COLOUR, "fill-opacity": 0.3, "data-name": band.name }, body);
        if (!this.visible(band.name)) path.style.display = "none";
      }
      for (const line of panel.lines) {
        const path = el("path", {
          class: "line", d: line.joined === false ? "" : this.linePath(line, x0, x1, sx, sy), fill: "none", stroke: this.colour(line),
          "stroke-width": line.role === "aggregate" || line.role === "median" ? 2 : (line.dashed ? 1 : 1.4),
          "data-name": line.pair || line.name,
        }, body);
        if (line.dashed) path.setAttribute("stroke-dasharray", "5 3");
        if (!this.visible(line.pair || line.name)) path.style.display = "none";
        if (line.markers) {
          const reference = line.role === "reference"; // a paper's values: hollow diamonds
          const marks = el("path", { class: "marks", d: reference ? this.diamondPath(line, sx, sy) : this.markPath(line, sx, sy),
                                     fill: reference ? "none" : this.colour(line), stroke: this.colour(line),
                                     "stroke-width": reference ? 1.5 : 1.2, "data-name": line.pair || line.name }, body);
          if (!this.visible(line.pair || line.name)) marks.style.display = "none";
        }
      }
      if (panel.note) {
        el("text", { x: MARGIN.left + plotW / 2, y: MARGIN.top + plotH / 2, "text-anchor": "middle", class: "note" }, svg).textContent = panel.note;
      }
      this.interact(svg, panel, plotW, plotH, x0, x1, sx, sy);
    }

    linePath(line, x0, x1, sx, sy) {
      const xs = line.xs, ys = line.ys;
      const a = Math.max(lowerBound(xs, x0) - 1, 0), b = Math.min(lowerBound(xs, x1) + 1, xs.length);
      let d = "", pen = false, lastY = 0;
      for (let i = a; i < b; i++) {
        const y = ys[i];
        if (!Number.isFinite(y) || !Number.isFinite(xs[i])) { pen = false; continue; }
        const px = sx(xs[i]).toFixed(1), py = sy(y).toFixed(1);
        if (!pen) d += `M${px},${py}`;
        else if (line.step) d += `H${px}V${py}`;
        else d += `L${px},${py}`;
        pen = true;
        lastY = py;
      }
      if (line.step && pen && b === xs.length) d += `H${sx(x1).toFixed(1)}V${lastY}`;
      return d;
    }

    // A dot at each point, and its error bar (with caps) where there is one.
    diamondPath(line, sx, sy) {
      let d = "";
      for (let i = 0; i < line.xs.length; i++) {
        if (!Number.isFinite(line.ys[i])) continue;
        const px = sx(line.xs[i]), py = sy(line.ys[i]);
        d += `M${px.toFixed(1)},${(py - 5).toFixed(1)}l5,5l-5,5l-5,-5z`;
      }
      return d;
    }

    markPath(line, sx, sy) {
      let d = "";
      for (let i = 0; i < line.xs.length; i++) {
        const y = line.ys[i];
        if (!Number.isFinite(y)) continue;
        const px = sx(line.xs[i]), py = sy(y);
        d += `M${(px - 3).toFixed(1)},${py.toFixed(1)}a3,3 0 1,0 6,0a3,3 0 1,0 -6,0`;
        const e = line.errs ? line.errs[i] : 0;
        if (e > 0) {
          const [low, high] = clipped(y - e, y + e, line.bounds);
          const top = sy(high).toFixed(1), bottom = sy(low).toFixed(1);
          d += `M${px.toFixed(1)},${top}V${bottom}M${(px - 4).toFixed(1)},${top}h8M${(px - 4).toFixed(1)},${bottom}h8`;
        }
      }
      return d;
    }

    axes(svg, panel, plotW, plotH, xt, yt, sx, sy, last) {
      const g = el("g", { class: "axes" }, svg);
      el("rect", { x: MARGIN.left, y: MARGIN.top, width: plotW, height: plotH, class: "frame" }, g);
      for (const t of yt) {
        const y = sy(t);
        el("line", { x1: MARGIN.left, x2: MARGIN.left + plotW, y1: y, y2: y, class: "grid" }, g);
        el("text", { x: MARGIN.left - 6, y: y + 4, "text-anchor": "end" }, g).textContent = format(t);
      }
      for (const t of xt) {
        const x = sx(t);
        el("line", { x1: x, x2: x, y1: MARGIN.top, y2: MARGIN.top + plotH, class: "grid" }, g);
        const label = this.spec.xcategories ? this.spec.xcategories[t] : format(t);
        if (last) el("text", { x, y: MARGIN.top + plotH + 16, "text-anchor": "middle" }, g).textContent = label;
      }
      const yl = el("text", { x: 0, y: 0, transform: `translate(14,${MARGIN.top + plotH / 2}) rotate(-90)`, "text-anchor": "middle", class: "label" }, g);
      yl.textContent = panel.ylabel;
      if (last) el("text", { x: MARGIN.left + plotW / 2, y: MARGIN.top + plotH + 31, "text-anchor": "middle", class: "label" }, g).textContent = this.spec.xlabel;
    }

    renderBars(svg, panel, plotW, plotH) {
      const bars = panel.bars, names = Object.keys(bars.values).filter((n) => this.visible(n));
      let hi = 0;
      for (const n of names) for (const v of bars.values[n]) if (Number.isFinite(v)) hi = Math.max(hi, v);
      hi = hi > 0 ? hi * 1.05 : 1;
      const sy = (y) => MARGIN.top + plotH - (y / hi) * plotH;
      this.axes(svg, panel, plotW, plotH, [], ticks(0, hi, 5), () => 0, sy, true);
      const slot = plotW / bars.categories.length, w = (slot * 0.8) / Math.max(names.length, 1);
      bars.categories.forEach((cat, i) => {
        names.forEach((n, j) => {
          const v = bars.values[n][i];
          const x = MARGIN.left + i * slot + slot * 0.1 + j * w;
          const rect = el("rect", { x, y: sy(v), width: Math.max(w - 1, 1), height: Math.max(sy(0) - sy(v), 0),
                                    fill: this.colours.get(n), class: "bar", "data-name": n }, svg);
          el("title", {}, rect).textContent = `${cat} ${n}: ${format(v)} ${panel.ylabel}`;
        });
        if (bars.categories.length <= 40) {
          const t = el("text", { x: MARGIN.left + (i + 0.5) * slot, y: MARGIN.top + plotH + 16, "text-anchor": "middle", class: "category" }, svg);
          t.textContent = cat;
        }
      });
    }

    interact(svg, panel, plotW, plotH, x0, x1, sx, sy) {
      const rule = el("line", { class: "rule", y1: MARGIN.top, y2: MARGIN.top + plotH, visibility: "hidden" }, svg);
      const selection = el("rect", { class: "selection", y: MARGIN.top, height: plotH, width: 0, visibility: "hidden" }, svg);
      const xAt = this.spec.xlog && x0 > 0 ? (px) => x0 * Math.pow(x1 / x0, (px - MARGIN.left) / plotW)
                                           : (px) => x0 + ((px - MARGIN.left) / plotW) * (x1 - x0);
      const local = (event) => { const box = svg.getBoundingClientRect(); return [event.clientX - box.left, event.clientY - box.top]; };
      let dragFrom = null;
      svg.onmousedown = (event) => { dragFrom = local(event)[0]; event.preventDefault(); };
      svg.onmousemove = (event) => {
        const [px, py] = local(event);
        if (px < MARGIN.left || px > MARGIN.left + plotW) { this.hideTip(rule); return; }
        if (dragFrom !== null) {
          selection.setAttribute("x", Math.min(dragFrom, px));
          selection.setAttribute("width", Math.abs(px - dragFrom));
          selection.setAttribute("visibility", "visible");
        }
        const x = xAt(px), rows = [];
        for (const line of panel.lines) {
          if (!this.visible(line.pair || line.name) || line.xs.length === 0) continue;
          const i = nearest(line.xs, x);
          const e = line.errs && line.errs[i] > 0 ? ` ± ${format(line.errs[i])}` : "";
          rows.push([line.name, e ? `${format(line.ys[i])}${e}` : line.ys[i], this.colour(line)]);
        }
        for (const band of panel.bands) {
          if (!this.visible(band.name)) continue;
          const i = nearest(band.xs, x);
          rows.push([band.name, `${format(band.lo[i])} – ${format(band.hi[i])}`, BAND_COLOUR]);
        }
        if (rows.length === 0) { this.hideTip(rule); return; }
        rule.setAttribute("x1", px); rule.setAttribute("x2", px); rule.setAttribute("visibility", "visible");
        rows.sort((a, b) => (typeof b[1] === "number" ? b[1] : Infinity) - (typeof a[1] === "number" ? a[1] : Infinity));
        const shown = rows.slice(0, 12);
        this.tooltip.replaceChildren();
        const head = document.createElement("div");
        head.className = "tip-x";
        const xi = this.spec.xcategories ? this.spec.xcategories[Math.min(Math.max(Math.round(x), 0), this.spec.xcategories.length - 1)] : format(x);
        head.textContent = `${this.spec.xlabel}: ${xi}`;
        this.tooltip.appendChild(head);
        for (const [name, value, colour] of shown) {
          const row = document.createElement("div");
          const swatch = document.createElement("span");
          swatch.className = "swatch";
          swatch.style.background = colour;
          row.append(swatch, document.createTextNode(`${name}: ${typeof value === "number" ? format(value) : value}`));
          this.tooltip.appendChild(row);
        }
        if (rows.length > shown.length) this.tooltip.appendChild(document.createTextNode(`… ${rows.length - shown.length} more`));
        const box = svg.getBoundingClientRect(), fig = this.figure.getBoundingClientRect();
        const left = box.left - fig.left + px + 14;
        this.tooltip.style.left = `${Math.min(left, fig.width - 260)}px`;
        this.tooltip.style.top = `${box.top - fig.top + Math.max(py - 20, 0)}px`;
        this.tooltip.style.display = "block";
      };
      svg.onmouseleave = () => { this.hideTip(rule); dragFrom = null; selection.setAttribute("visibility", "hidden"); };
      svg.onmouseup = (event) => {
        const px = local(event)[0];
        if (dragFrom !== null && Math.abs(px - dragFrom) > 4) {
          const a = xAt(Math.max(Math.min(dragFrom, px), MARGIN.left)), b = xAt(Math.min(Math.max(dragFrom, px), MARGIN.left + plotW));
          this.zoom = [a, b];
          dragFrom = null;
          this.render();
          return;
        }
        dragFrom = null;
        selection.setAttribute("visibility", "hidden");
      };
      svg.ondblclick = () => { this.zoom = null; this.render(); };
    }

    hideTip(rule) {
      rule.setAttribute("visibility", "hidden");
      this.tooltip.style.display = "none";
    }
  }

  function start() {
    const specs = JSON.parse(document.getElementById("tcplab-charts").textContent);
    const home = document.getElementById("charts");
    window.tcplabCharts = specs.map((spec) => {
      const figure = document.createElement("figure");
      figure.className = "chart";
      figure.id = `chart-${spec.name}`;
      figure.dataset.name = spec.name;
      home.appendChild(figure);
      return new Chart(figure, spec);
    });
    for (const table of document.querySelectorAll("table.sortable")) sortable(table);
  }

  // Click a column heading to sort by it (again to reverse); numbers sort as numbers.
  function sortable(table) {
    table.querySelectorAll("th").forEach((th, column) => {
      th.addEventListener("click", () => {
        const body = table.tBodies[0], rows = Array.from(body.rows);
        const down = th.dataset.sort !== "down";
        table.querySelectorAll("th").forEach((h) => delete h.dataset.sort);
        th.dataset.sort = down ? "down" : "up";
        const key = (row) => { const t = row.cells[column].textContent.replace(/,/g, ""); const n = parseFloat(t); return Number.isNaN(n) ? t : n; };
        rows.sort((a, b) => { const x = key(a), y = key(b); const c = x < y ? -1 : x > y ? 1 : 0; return down ? -c : c; });
        body.append(...rows);
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
