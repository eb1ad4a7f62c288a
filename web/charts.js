/* charts.js - owns the pictures: Chart.js (web/chart.min.js, window.Chart),
 * run the first time a picture needs it (chartReady) - index.html preloads its
 * bytes, and the first answer's requests are out before it runs; one chart per
 * canvas, by role (chart()); the roofline (peak_flops_actual /
 * peak_bw_actual / arithmetic_intensity of the roofline solver, found in
 * /solvers by its outputs (rooflineSolver), on the form's accelerator and those
 * to compare, one POST /batch: rooflineData, drawRoofline), the stage bars of a
 * solver with storage_time / transform_time / accelerator_step_time
 * (drawsStages, drawStages) and a sweep's chosen output against its first
 * axis (drawSweep). No solver is named here: each picture names the outputs it
 * draws. */
import {$, el} from './dom.js';
import {fmtNum, fmtUnit, tickSI} from './format.js';
import {state} from './state.js';
import {api, envelope} from './api.js';

/* Chart.js (window.Chart): index.html preloads its bytes; it runs when a picture
 * first needs it (chartReady()), which is after the first answer's requests left. */
let chartLoading = null;
export function chartReady() {
  if (!chartLoading) {
    chartLoading = new Promise((resolve, reject) => {
      const s = el('script', {src: '/ui/chart.min.js'});
      s.addEventListener('load', () => resolve(window.Chart));
      s.addEventListener('error', () => reject(new Error('the chart library (/ui/chart.min.js) did not load')));
      document.head.append(s);
    });
  }
  return chartLoading;
}

export const COLORS = ['#0b5cad', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207', '#be185d'];

export function chart(name, config) {
  if (state.charts[name]) state.charts[name].destroy();
  config.options = Object.assign({responsive: true, maintainAspectRatio: false, animation: false}, config.options);
  state.charts[name] = new window.Chart($('chart-' + name), config);
  return state.charts[name];
}

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

/* The roofline of the workload on each accelerator of rooflineData(). */
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
    datasets.push({label: p.hw, data: [{x: xmin, y: p.bw * xmin}, {x: ridge, y: p.peak}, {x: xmax, y: p.peak}],
      borderColor: color, backgroundColor: color, showLine: true, pointRadius: 0, borderWidth: 2});
    datasets.push({label: p.hw + ' ridge', data: [{x: ridge, y: p.peak}], borderColor: color, backgroundColor: '#fff',
      pointRadius: 5, pointStyle: 'circle', showLine: false, role: 'ridge', hw: p.hw});
    datasets.push({label: p.hw + ' workload', data: [{x: p.ai, y: Math.min(p.peak, p.bw * p.ai)}], borderColor: color,
      backgroundColor: color, pointRadius: 7, pointStyle: 'rectRot', showLine: false, role: 'workload', hw: p.hw});
    notes.append(el('li', {'data-hw': p.hw, 'data-ridge': String(ridge), 'data-ai': String(p.ai),
      text: p.hw + ': roof ' + fmtUnit(p.peak, 'flop/s') + ', memory ' + fmtUnit(p.bw, 'B/s') + ', ridge at ' +
        fmtNum(ridge) + ' flop/B; the workload (' + fmtNum(p.ai) + ' flop/B) is ' + p.bottleneck + '-bound'}));
  });
  const sn = rooflineSolver();
  $('roofline-solver').textContent = sn ? sn.name + ': ' : '';
  $('fig-roofline').hidden = false;
  chart('roofline', {type: 'scatter', data: {datasets},
    options: {scales: {
      x: {type: 'logarithmic', min: xmin, max: xmax, title: {display: true, text: 'arithmetic intensity (flop/B)'}, ticks: {callback: tickSI}},
      y: {type: 'logarithmic', title: {display: true, text: 'attainable (flop/s)'}, ticks: {callback: tickSI}}},
    plugins: {legend: {labels: {filter: (item, data) => !data.datasets[item.datasetIndex].role}},
      tooltip: {callbacks: {label: (c) => c.dataset.label + ': ' + fmtNum(c.parsed.x) + ' flop/B, ' + fmtUnit(c.parsed.y, 'flop/s')}}}}});
  $('chart-roofline').setAttribute('aria-label', 'Roofline: ' + [...notes.children].map((li) => li.textContent).join('; '));
}

/* The stage bars: storage, CPU transformation and accelerator time per step. */
const STAGES = [['Storage', 'storage_time'], ['CPU transform', 'transform_time'], ['Accelerator', 'accelerator_step_time']];

/* Storage, CPU transformation and accelerator time per step, the binding one
 * marked: binding_stage is Storage, the accelerator's own bottleneck
 * (accelerator_bottleneck: Compute or Memory), or else the CPU's stage. */
export function drawStages(ans) {
  const r = ans.result;
  const stages = STAGES;
  if (!stages.every(([, k]) => typeof r[k] === 'number')) return;
  const bind = r.binding_stage === 'Storage' ? 0 : r.binding_stage === r.accelerator_bottleneck ? 2 : 1;
  $('fig-stages').hidden = false;
  const unit = (ans.units || {}).step_time || 'ms';
  chart('stages', {type: 'bar', data: {labels: stages.map(([l], i) => l + (i === bind ? ' (binding)' : '')),
    datasets: [{label: 'time per step (' + unit + ')', data: stages.map(([, k]) => r[k]),
      backgroundColor: stages.map((s, i) => (i === bind ? '#b91c1c' : '#8aa4c0'))}]},
  options: {indexAxis: 'y', plugins: {legend: {display: false}},
    scales: {x: {title: {display: true, text: unit + ' per step'}}}}});
  const text = 'Binding stage: ' + r.binding_stage + '. Step ' + fmtNum(r.step_time) + ' ' + unit +
    (typeof r.accelerator_utilization === 'number' ? '; accelerator busy ' + (100 * r.accelerator_utilization).toFixed(1) + '%' : '') +
    (r.workers_needed !== undefined ? '; CPU workers needed: ' + r.workers_needed : '') + '.';
  $('stages-notes').textContent = text;
  $('chart-stages').setAttribute('aria-label', 'Stages: ' + stages.map(([l, k]) => l + ' ' + fmtNum(r[k]) + ' ' + unit).join(', ') + '. ' + text);
}

/* A log axis when the values are positive and span two decades or more. */
export const logWorthy = (vals) => {
  const v = vals.filter((x) => typeof x === 'number' && isFinite(x));
  return v.length > 1 && v.every((x) => x > 0) && Math.max(...v) / Math.min(...v) >= 100;
};

/* The chosen output against the first axis; every combination of the other axes is a series. */
export function drawSweep() {
  const {ans} = state.sweep;
  const out = $('sweep-output').value;
  const ci = (n) => ans.columns.indexOf(n);
  const xName = ans.axes[0].input;
  const rest = ans.axes.slice(1).map((a) => a.input);
  const key = (v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  const xsAll = ans.rows.map((r) => r[ci(xName)]);
  const numericX = xsAll.every((x) => typeof x === 'number');
  const series = new Map();
  for (const r of ans.rows) {
    const s = rest.map((n) => n + '=' + key(r[ci(n)])).join(', ') || out;
    if (!series.has(s)) series.set(s, []);
    const y = r[ci(out)];
    series.get(s).push({x: numericX ? r[ci(xName)] : key(r[ci(xName)]), y: typeof y === 'number' ? y : null, row: r});
  }
  const datasets = [...series.entries()].map(([label, data], i) => ({label, data, borderColor: COLORS[i % COLORS.length],
    backgroundColor: COLORS[i % COLORS.length], showLine: true, pointRadius: 4, spanGaps: false}));
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
    datasets.push({label: 'crossover', data: marks, role: 'crossover', pointStyle: 'triangle', pointRadius: 9,
      borderColor: '#000', backgroundColor: '#f0a400', showLine: false});
  }
  const ys = ans.rows.map((r) => r[ci(out)]);
  const unit = ans.units[out] || '';
  chart('sweep', {type: numericX ? 'scatter' : 'line', data: numericX ? {datasets} : {labels: [...new Set(xsAll.map(key))], datasets},
    options: {scales: {
      x: numericX ? {type: logWorthy(xsAll) ? 'logarithmic' : 'linear', title: {display: true, text: xName}} : {type: 'category', title: {display: true, text: xName}},
      y: {type: logWorthy(ys) ? 'logarithmic' : 'linear', title: {display: true, text: out + (unit ? ' (' + unit + ')' : '')}}},
    plugins: {tooltip: {callbacks: {label: (c) => (c.raw.text || c.dataset.label + ': ' + fmtNum(c.parsed.y) + ' ' + unit)}}}}});
  $('sweep-notes').textContent = notes.length ? 'Crossovers: ' + notes.join('; ') + '.' : 'No crossover along ' + xName + '.';
  $('chart-sweep').setAttribute('aria-label', 'Sweep of ' + out + ' against ' + xName + ', ' + ans.rows.length + ' points. ' + $('sweep-notes').textContent);
}
