/* charts.js - owns the pictures. They are drawn with uPlot (web/uPlot.iife.min.js,
 * window.uPlot, run by index.html before the modules: chartReady(); its
 * stylesheet web/uPlot.min.css is linked by index.html). Two kinds of
 * chart, one per element #chart-<name> (state.charts[name]):
 *   - plot(): points and lines on two axes (linear, logarithmic or categories),
 *     from datasets ({label, role, data: [{x, y, ...}], a line and/or a marker
 *     shape}); a point's text shows on hover and a click on it calls the
 *     chart's pick(); setPoints() replaces one dataset's points;
 *   - bars(): horizontal bars, one colour per bar (uPlot.paths.bars).
 * On them: the roofline (peak_flops_actual / peak_bw_actual /
 * arithmetic_intensity of the roofline solver, found in /solvers by its
 * outputs (rooflineSolver), on the form's accelerator and those to compare,
 * one POST /batch: rooflineData, drawRoofline), the stage bars of a solver
 * with storage_time / transform_time / accelerator_step_time (drawsStages,
 * drawStages) and a sweep's chosen output against its first axis
 * (drawSweep). validation.js and find.js draw theirs with plot(). No solver
 * is named here: each picture names the outputs it draws.
 *
 * A chart's uPlot instance is also its element's `uplot` property; each of its
 * series keeps its dataset's label, role, hw and family, so what is drawn can
 * be read back (the browser test does). */
import {$, el} from './dom.js';
import {fmtNum, fmtUnit, tickSI} from './format.js';
import {state} from './state.js';
import {api, envelope} from './api.js';

/* uPlot (window.uPlot): index.html runs it (a deferred script) before the
 * modules, so it is there when a picture is drawn; chartReady() gives it, or
 * the error a picture shows when it did not load. */
export function chartReady() {
  return window.uPlot ? Promise.resolve(window.uPlot) :
    Promise.reject(new Error('the chart library (/ui/uPlot.iife.min.js) did not load'));
}

export const COLORS = ['#0b5cad', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207', '#be185d'];

/* --- the two kinds of chart ------------------------------------------------------------------ */

/* Marker shapes: each adds its outline at (x, y), radius r (canvas pixels), to a
 * Path2D; the open ones are drawn with lines only (no fill). */
const SHAPES = {
  circle: (p, x, y, r) => { p.moveTo(x + r, y); p.arc(x, y, r, 0, 2 * Math.PI); },
  triangle: (p, x, y, r) => { p.moveTo(x, y - r); p.lineTo(x + 0.92 * r, y + 0.7 * r); p.lineTo(x - 0.92 * r, y + 0.7 * r); p.closePath(); },
  rect: (p, x, y, r) => { p.rect(x - 0.8 * r, y - 0.8 * r, 1.6 * r, 1.6 * r); },
  rectRot: (p, x, y, r) => { p.moveTo(x, y - r); p.lineTo(x + r, y); p.lineTo(x, y + r); p.lineTo(x - r, y); p.closePath(); },
  rectRounded: (p, x, y, r) => { p.roundRect(x - 0.8 * r, y - 0.8 * r, 1.6 * r, 1.6 * r, 0.4 * r); },
  star: (p, x, y, r) => { SHAPES.cross(p, x, y, r); SHAPES.crossRot(p, x, y, r); },
  crossRot: (p, x, y, r) => { const d = 0.7 * r; p.moveTo(x - d, y - d); p.lineTo(x + d, y + d); p.moveTo(x - d, y + d); p.lineTo(x + d, y - d); },
  cross: (p, x, y, r) => { p.moveTo(x, y - r); p.lineTo(x, y + r); p.moveTo(x - r, y); p.lineTo(x + r, y); },
};
export const OPEN_SHAPES = ['star', 'crossRot', 'cross'];

/* A point's place on the canvas (canvas pixels), or null where it cannot be drawn. */
function at(u, x, y) {
  if (typeof x !== 'number' || typeof y !== 'number' || !isFinite(x) || !isFinite(y)) return null;
  if ((u.scales.x.distr === 3 && x <= 0) || (u.scales.y.distr === 3 && y <= 0)) return null;
  return [u.valToPos(x, 'x', true), u.valToPos(y, 'y', true)];
}

/* What a dataset draws: its line (through its points in order, a gap at a
 * point with no value; filled down to ds.fillTo's points when given) and its
 * markers, as a uPlot path builder. */
const linePath = (ds) => (u, si) => {
  const [xs, ys] = u.data[si];
  const stroke = new Path2D();
  const drawn = [];
  let pen = false;
  xs.forEach((x, i) => {
    const q = at(u, x, ys[i]);
    if (!q) { pen = false; return; }
    if (pen) stroke.lineTo(q[0], q[1]); else stroke.moveTo(q[0], q[1]);
    pen = true;
    drawn.push(q);
  });
  let fill = null;
  if (ds.fillTo) {
    fill = new Path2D();
    const lower = ds.fillTo.map((p) => at(u, p.x, p.y)).filter(Boolean).reverse();
    drawn.concat(lower).forEach(([x, y], i) => (i ? fill.lineTo(x, y) : fill.moveTo(x, y)));
    fill.closePath();
  }
  return {stroke, fill, clip: null, flags: 0};
};
const markerPath = (ds) => (u, si) => {
  const [xs, ys] = u.data[si];
  const r = ds.marker.size * devicePixelRatio;
  const shape = SHAPES[ds.marker.shape || 'circle'];
  const path = new Path2D();
  xs.forEach((x, i) => {
    const q = at(u, x, ys[i]);
    if (q) shape(path, q[0], q[1], r);
  });
  return {stroke: path, fill: OPEN_SHAPES.includes(ds.marker.shape) ? null : path, clip: null, flags: 0};
};
const datasetPath = (ds) => (u, si) => {
  const line = ds.line ? linePath(ds)(u, si) : null;
  const marks = ds.marker ? markerPath(ds)(u, si) : null;
  if (line && marks) line.stroke.addPath(marks.stroke);
  return line && marks ? {stroke: line.stroke, fill: marks.fill, clip: null, flags: 0} : line || marks;
};

/* An axis as deep as its tick labels need: as wide as the longest beside the
 * plot, one line of text below it (uPlot's default is a fixed size). */
function axisSize(u, values, ai, cycle) {
  const a = u.axes[ai];
  if (cycle > 1) return a._size;
  const label = a.label ? a.labelSize : 0;
  if (a.side % 2 === 0) return Math.ceil(a.ticks.size + a.gap + 1.4 * a.font[2] + label);
  u.ctx.font = a.font[0];
  const w = Math.max(0, ...(values || []).map((v) => u.ctx.measureText(String(v)).width)) / devicePixelRatio;
  return Math.ceil(a.ticks.size + a.gap + w + label + 4);
}

/* A scale and its axis: logarithmic (decades labelled), linear (padded by `pad`
 * of the span when given), or categories (labels at 0, 1, ...); min and max
 * fix its range. */
function scaleOf(o) {
  if (o.categories) return {auto: true, range: () => [-0.5, o.categories.length - 0.5]};
  if (o.log) return Object.assign({distr: 3, log: 10}, o.min !== undefined ? {auto: true, range: () => [o.min, o.max]} : {});
  if (o.min !== undefined) return {auto: true, range: () => [o.min, o.max]};
  return {auto: true, range: (u, lo, hi) => {
    if (lo === null || hi === null) return [0, 1];
    const span = hi - lo || Math.abs(hi) || 1;
    const pad = (o.pad || 0.04) * span;
    return [lo - pad, hi + pad];
  }};
}
function axisOf(o, side) {
  const axis = {label: o.title, side, size: axisSize, labelSize: 22};
  if (o.categories) {
    axis.splits = () => o.categories.map((_, i) => i);
    axis.values = (u, splits) => splits.map((i) => o.categories[i] ?? '');
    axis.grid = {show: false};
  } else if (o.log) {
    axis.values = (u, splits) => splits.map((v) => (v === null ? '' : tickSI(v)));
  }
  return axis;
}

/* How deep a legend is (CSS pixels): one line until one is measured. A chart
 * starts at its element's height less this, so that it is usually drawn once. */
let legendDepth = 26;

/* The element's size for a chart: its width, and its height less the legend's
 * (or, for a square chart, a plot area as high as it is wide). */
function fit(u, box, square) {
  const w = box.clientWidth;
  if (!w || !u.root.isConnected) return; // hidden: sized when it shows (mount's ResizeObserver); or replaced
  const lh = Math.max(0, u.root.offsetHeight - u.height); // the legend, with its margins
  if (lh) legendDepth = lh;
  let h = Math.max(80, box.clientHeight - lh);
  if (square) {
    const axesW = u.width - u.bbox.width / devicePixelRatio; // the y axis beside the plot
    const axesH = u.height - u.bbox.height / devicePixelRatio; // the x axis below it
    h = w - axesW + axesH;
  }
  if (u.width !== w || u.height !== h) u.setSize({width: w, height: h});
}

/* Build chart `name` in #chart-<name> (the previous one of that name is
 * destroyed) and keep it sized to its element: once uPlot has laid it out (its
 * legend's height is known then), after each size it takes, and when the
 * element's width changes. */
function mount(name, opts, data, square) {
  const box = $('chart-' + name);
  if (state.charts[name]) state.charts[name].destroy();
  box.textContent = '';
  opts.width = box.clientWidth || 400;
  opts.height = (box.clientHeight || 300) - (opts.legend.show === false ? 0 : legendDepth);
  const refit = (u) => fit(u, box, square);
  // uPlot calls these hooks while it commits a layout: a new size waits until that is done
  const later = (u) => queueMicrotask(() => refit(u));
  opts.hooks = Object.assign({}, opts.hooks, {ready: [later], setSize: [later]});
  const u = new window.uPlot(opts, data, box);
  let width = box.clientWidth;
  const ro = new ResizeObserver(() => {
    if (box.clientWidth !== width) { width = box.clientWidth; refit(u); }
  });
  ro.observe(box);
  const destroy = u.destroy.bind(u);
  u.destroy = () => { ro.disconnect(); destroy(); };
  box.uplot = u;
  state.charts[name] = u;
  return u;
}

const PICK_PX = 10; // how near the pointer a point must be (CSS pixels) to be hovered or picked

/* Points and lines: spec = {x, y: axes as in scaleOf (title, log, min, max, pad,
 * categories), datasets: [{label, role, hw, family, data: [{x, y, ...}], color,
 * line: {width, dash}, fillTo: [{x, y}], fillColor, marker: {shape, size, fill,
 * width}, legend: false to leave it out of the legend, hover: false}],
 * tip(ds, p): a point's text on hover, pick(ds, p): a click on a point, square:
 * a plot area as high as wide, legend: false for none, draw(u): extra drawing}.
 * Only datasets with markers are hovered and picked. */
export function plot(name, spec) {
  const series = [{}].concat(spec.datasets.map((ds) => ({
    label: ds.label, role: ds.role || null, hw: ds.hw || null, family: ds.family || null,
    class: ds.legend === false ? 'no-legend' : undefined,
    stroke: ds.color, width: ds.line ? ds.line.width || 1.5 : ds.marker.width ?? 1,
    dash: ds.line && ds.line.dash, fill: ds.marker ? ds.marker.fill ?? ds.color : ds.fillColor,
    paths: datasetPath(ds), points: {show: false},
  })));
  const data = [null].concat(spec.datasets.map((ds) => [ds.data.map((p) => p.x), ds.data.map((p) => p.y)]));
  const opts = {
    mode: 2, series,
    scales: {x: Object.assign({time: false}, scaleOf(spec.x)), y: scaleOf(spec.y)},
    axes: [axisOf(spec.x, 2), axisOf(spec.y, 3)],
    legend: {show: spec.legend !== false, live: false},
    cursor: {x: false, y: false, points: {show: false}, drag: {x: false, y: false, setScale: false}},
    hooks: spec.draw ? {draw: [spec.draw]} : {},
  };
  const u = mount(name, opts, data, spec.square);
  u.spec = spec;
  const near = (ev) => {
    const r = u.over.getBoundingClientRect();
    const mx = ev.clientX - r.left, my = ev.clientY - r.top;
    let best = null, bd = PICK_PX;
    spec.datasets.forEach((ds, i) => {
      if (!ds.marker || ds.hover === false || !u.series[i + 1].show) return;
      for (const p of ds.data) {
        if (typeof p.y !== 'number') continue;
        const d = Math.hypot(u.valToPos(p.x, 'x') - mx, u.valToPos(p.y, 'y') - my);
        if (d < bd) { bd = d; best = {ds, p}; }
      }
    });
    return best;
  };
  u.over.addEventListener('mousemove', (ev) => {
    const h = near(ev);
    u.over.title = h && spec.tip ? spec.tip(h.ds, h.p) : '';
    u.over.style.cursor = h && spec.pick ? 'pointer' : '';
  });
  u.over.addEventListener('click', (ev) => {
    const h = near(ev);
    if (h && spec.pick) spec.pick(h.ds, h.p);
  });
  return u;
}

/* Replace the points of chart `name`'s dataset of role `role`, the scales kept. */
export function setPoints(name, role, points) {
  const u = state.charts[name];
  const i = u.spec.datasets.findIndex((d) => d.role === role);
  u.spec.datasets[i].data = points;
  const data = u.data.slice();
  data[i + 1] = [points.map((p) => p.x), points.map((p) => p.y)];
  u.setData(data, false);
}

/* Horizontal bars: spec = {categories: [label per bar, top first], values,
 * colors: [colour per bar], label: the series' name, title: the value axis's}. */
export function bars(name, spec) {
  const n = spec.categories.length;
  const max = Math.max(0, ...spec.values.filter((v) => typeof v === 'number' && isFinite(v)));
  const opts = {
    series: [{categories: spec.categories}, {label: spec.label, width: 0, fill: spec.colors[0], points: {show: false},
      paths: window.uPlot.paths.bars({size: [0.6, 48], disp: {fill: {unit: 3, values: () => spec.colors}}})}],
    scales: {x: {time: false, ori: 1, dir: -1, auto: true, range: () => [-0.5, n - 0.5]},
      y: {ori: 0, auto: true, range: () => [0, max > 0 ? max * 1.05 : 1]}},
    axes: [Object.assign(axisOf({categories: spec.categories}, 3), {labelSize: 0}), axisOf({title: spec.title}, 2)],
    legend: {show: false},
    cursor: {show: false},
  };
  return mount(name, opts, [spec.categories.map((_, i) => i), spec.values]);
}

/* --- the roofline ---------------------------------------------------------------------------- */

const hasAll = (list, names) => names.every((n) => list.some((x) => x.name === n));

/* The roofline solver: the one whose outputs are what the roofline draws and
 * whose inputs include a model and an accelerator (undefined if none). */
export const rooflineSolver = () => state.solvers.find((s) =>
  hasAll(s.outputs, ['arithmetic_intensity', 'peak_flops_actual', 'peak_bw_actual', 'bottleneck']) &&
  hasAll(s.inputs, ['model', 'hardware']));

/* Whether a solver's answers have the stage bars drawStages draws. */
export const drawsStages = (s) => hasAll(s.outputs, STAGES.map(([, k]) => k).concat(['binding_stage', 'accelerator_bottleneck']));

/* The roofline's data for a request: the roofline solver on the form's
 * accelerator and those to compare, in one POST /batch (the form's other inputs
 * that it takes stay fixed; an accelerator it rejects is left out). null when
 * the request has no model and hardware. */
export async function rooflineData(body) {
  const sn = rooflineSolver();
  const names = new Set((sn ? sn.inputs : []).map((i) => i.name));
  if (!sn || !('hardware' in body.inputs) || !('model' in body.inputs)) return null;
  const inputs = {};
  for (const [k, v] of Object.entries(body.inputs)) if (names.has(k)) inputs[k] = v;
  const extra = $('compare').value.split(',').map((s) => s.trim()).filter(Boolean);
  const hws = [inputs.hardware, ...extra.filter((h) => h !== inputs.hardware)];
  const ans = await api('/batch', {items: hws.map((hardware) =>
    envelope(sn.name, Object.assign({}, inputs, {hardware})))});
  return ans.items.filter((it) => it.response).map(({response: {inputs: used, result: r}}) => ({
    hw: typeof used.hardware === 'object' ? 'inline' : String(used.hardware),
    peak: r.peak_flops_actual * 1e12, bw: r.peak_bw_actual * 1e9, ai: r.arithmetic_intensity, bottleneck: r.bottleneck}));
}

/* The roofline of the workload on each accelerator of rooflineData(): its line
 * (memory slope, ridge, compute roof), its ridge point and the workload's point. */
export function drawRoofline(pts) {
  if (!pts || !pts.length) return;
  const xs = pts.flatMap((p) => [p.peak / p.bw, p.ai]);
  const xmin = Math.pow(10, Math.floor(Math.log10(Math.min(...xs))) - 1);
  const xmax = Math.pow(10, Math.ceil(Math.log10(Math.max(...xs))) + 1);
  const datasets = [];
  const notes = $('roofline-notes');
  notes.textContent = '';
  pts.forEach((p, i) => {
    const ridge = p.peak / p.bw;
    const color = COLORS[i % COLORS.length];
    datasets.push({label: p.hw, hw: p.hw, data: [{x: xmin, y: p.bw * xmin}, {x: ridge, y: p.peak}, {x: xmax, y: p.peak}],
      color, line: {width: 2}});
    datasets.push({label: p.hw + ' ridge', role: 'ridge', hw: p.hw, data: [{x: ridge, y: p.peak}], color,
      marker: {shape: 'circle', size: 5, fill: '#fff', width: 2}, legend: false});
    datasets.push({label: p.hw + ' workload', role: 'workload', hw: p.hw, data: [{x: p.ai, y: Math.min(p.peak, p.bw * p.ai)}], color,
      marker: {shape: 'rectRot', size: 7}, legend: false});
    notes.append(el('li', {'data-hw': p.hw, 'data-ridge': String(ridge), 'data-ai': String(p.ai),
      text: p.hw + ': roof ' + fmtUnit(p.peak, 'flop/s') + ', memory ' + fmtUnit(p.bw, 'B/s') + ', ridge at ' +
        fmtNum(ridge) + ' flop/B; the workload (' + fmtNum(p.ai) + ' flop/B) is ' + p.bottleneck + '-bound'}));
  });
  const sn = rooflineSolver();
  $('roofline-solver').textContent = sn ? sn.name + ': ' : '';
  $('fig-roofline').hidden = false;
  plot('roofline', {datasets,
    x: {log: true, min: xmin, max: xmax, title: 'arithmetic intensity (flop/B)'},
    y: {log: true, title: 'attainable (flop/s)'},
    tip: (ds, p) => ds.label + ': ' + fmtNum(p.x) + ' flop/B, ' + fmtUnit(p.y, 'flop/s')});
  $('chart-roofline').setAttribute('aria-label', 'Roofline: ' + [...notes.children].map((li) => li.textContent).join('; '));
}

/* --- the stage bars -------------------------------------------------------------------------- */

/* The stage bars: storage, CPU transformation and accelerator time per step. */
const STAGES = [['Storage', 'storage_time'], ['CPU transform', 'transform_time'], ['Accelerator', 'accelerator_step_time']];

/* Storage, CPU transformation and accelerator time per step, the binding one
 * marked: binding_stage is Storage, the accelerator's own bottleneck
 * (accelerator_bottleneck: Compute or Memory), or else the CPU's stage. */
export function drawStages(ans) {
  const r = ans.result;
  if (!STAGES.every(([, k]) => typeof r[k] === 'number')) return;
  const bind = r.binding_stage === 'Storage' ? 0 : r.binding_stage === r.accelerator_bottleneck ? 2 : 1;
  $('fig-stages').hidden = false;
  const unit = (ans.units || {}).step_time || 'ms';
  bars('stages', {categories: STAGES.map(([l], i) => l + (i === bind ? ' (binding)' : '')),
    values: STAGES.map(([, k]) => r[k]), colors: STAGES.map((s, i) => (i === bind ? '#b91c1c' : '#8aa4c0')),
    label: 'time per step (' + unit + ')', title: unit + ' per step'});
  const text = 'Binding stage: ' + r.binding_stage + '. Step ' + fmtNum(r.step_time) + ' ' + unit +
    (typeof r.accelerator_utilization === 'number' ? '; accelerator busy ' + (100 * r.accelerator_utilization).toFixed(1) + '%' : '') +
    (r.workers_needed !== undefined ? '; CPU workers needed: ' + r.workers_needed : '') + '.';
  $('stages-notes').textContent = text;
  $('chart-stages').setAttribute('aria-label', 'Stages: ' + STAGES.map(([l, k]) => l + ' ' + fmtNum(r[k]) + ' ' + unit).join(', ') + '. ' + text);
}

/* --- the sweep ------------------------------------------------------------------------------- */

/* A log axis when the values are positive and span two decades or more. */
export const logWorthy = (vals) => {
  const v = vals.filter((x) => typeof x === 'number' && isFinite(x));
  return v.length > 1 && v.every((x) => x > 0) && Math.max(...v) / Math.min(...v) >= 100;
};

/* The chosen output against the first axis (numbers, or categories in their
 * order of first appearance); every combination of the other axes is a series;
 * the crossovers along the first axis are marked. */
export function drawSweep() {
  const {ans} = state.sweep;
  const out = $('sweep-output').value;
  const ci = (n) => ans.columns.indexOf(n);
  const xName = ans.axes[0].input;
  const rest = ans.axes.slice(1).map((a) => a.input);
  const key = (v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  const xsAll = ans.rows.map((r) => r[ci(xName)]);
  const numericX = xsAll.every((x) => typeof x === 'number');
  const categories = numericX ? null : [...new Set(xsAll.map(key))];
  const xOf = (v) => (numericX ? v : categories.indexOf(key(v)));
  const series = new Map();
  for (const r of ans.rows) {
    const s = rest.map((n) => n + '=' + key(r[ci(n)])).join(', ') || out;
    if (!series.has(s)) series.set(s, []);
    const y = r[ci(out)];
    series.get(s).push({x: xOf(r[ci(xName)]), y: typeof y === 'number' ? y : null, row: r});
  }
  const datasets = [...series.entries()].map(([label, data], i) => ({label, data, color: COLORS[i % COLORS.length],
    line: {width: 2}, marker: {shape: 'circle', size: 4}}));
  /* crossovers along the x axis: marked on the point where the new value starts */
  const marks = [];
  const notes = [];
  for (const t of ans.transitions || []) {
    if (t.axis !== xName) continue;
    for (const ds of datasets) {
      const p = ds.data.find((d) => key(d.row[ci(xName)]) === key(t.to_input) &&
        Object.entries(t.at || {}).every(([k, v]) => key(d.row[ci(k)]) === key(v)));
      if (p && p.y !== null) marks.push({x: p.x, y: p.y, text: t.output + ': ' + t.from + ' → ' + t.to});
    }
    notes.push(t.output + ' changes from ' + t.from + ' to ' + t.to + ' between ' + xName + '=' + key(t.from_input) +
      ' and ' + key(t.to_input) + (Object.keys(t.at || {}).length ? ' (' + Object.entries(t.at).map(([k, v]) => k + '=' + key(v)).join(', ') + ')' : ''));
  }
  if (marks.length) {
    datasets.push({label: 'crossover', role: 'crossover', data: marks, color: '#000',
      marker: {shape: 'triangle', size: 9, fill: '#f0a400', width: 1}});
  }
  const ys = ans.rows.map((r) => r[ci(out)]);
  const unit = ans.units[out] || '';
  plot('sweep', {datasets,
    x: numericX ? {log: logWorthy(xsAll), title: xName} : {categories, title: xName},
    y: {log: logWorthy(ys), title: out + (unit ? ' (' + unit + ')' : '')},
    tip: (ds, p) => p.text || ds.label + ': ' + fmtNum(p.y) + ' ' + unit});
  $('sweep-notes').textContent = notes.length ? 'Crossovers: ' + notes.join('; ') + '.' : 'No crossover along ' + xName + '.';
  $('chart-sweep').setAttribute('aria-label', 'Sweep of ' + out + ' against ' + xName + ', ' + ans.rows.length + ' points. ' + $('sweep-notes').textContent);
}
