/* dashboard.js - the page at "/": every solver of GET /solvers as a form, its
 * answer (result with units, warnings, assumptions, the request as curl, a link
 * to the page's state) and pictures: the roofline (from single_node), the
 * pipeline's stage bars and any sweep as a chart. Everything is generated from
 * what the API describes; only the two pictures are tied to solver outputs
 * (single_node's peak_flops_actual / peak_bw_actual / arithmetic_intensity and
 * pipeline's storage_time / transform_time / accelerator_step_time).
 * Charts: Chart.js (web/chart.min.js, window.Chart). No other dependency.
 *
 * First render: the page opens on a worked example and draws it before anything
 * else. index.html preloads /solvers, /version and chart.min.js; the solve and
 * the roofline's single_node runs go out together, and only then does Chart.js
 * run (chartReady), while the daemon answers; the catalog lists behind the
 * pickers are fetched after the first answer is drawn (state.firstRender), each
 * kind once. The moment the worked example is drawn is the performance mark
 * "mlsysd:first-render" (tests/browser/first_render.mjs measures it).
 *
 * Two modes (the radio group "Mode"): solve or sweep (POST /solve, or /sweep
 * when a field holds a list or a range), and find (POST /optimize over the
 * same axes). The find mode lives in web/find.js, loaded the first time it is
 * chosen (loadFind()), so the first render neither fetches nor runs it; it
 * uses this file's top-level helpers (classic scripts share one global scope). */
'use strict';

const $ = (id) => document.getElementById(id);
const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
};

const state = {
  solvers: [],          // GET /solvers
  editions: [],         // GET /version catalog_editions
  edition: '',
  solver: null,         // the solver shown
  catalogs: new Map(),  // "edition/kind" -> list of entries
  charts: {},           // name -> Chart
  sweep: null,          // last sweep answer
  firstRender: null,    // resolves when the page's first answer is drawn (or its problem shown)
  mode: 'run',          // 'run' (solve or sweep) or 'find' (POST /optimize, web/find.js)
};
let firstRenderDone; // resolves state.firstRender (start() calls it)
state.firstRender = new Promise((resolve) => { firstRenderDone = resolve; });

/* Chart.js (window.Chart): index.html preloads its bytes; it runs when a picture
 * first needs it (chartReady()), which is after the first answer's requests left. */
let chartLoading = null;
function chartReady() {
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

/* web/find.js, the find mode: loaded once, when first needed. */
let findLoading = null;
function loadFind() {
  if (!findLoading) {
    findLoading = new Promise((resolve, reject) => {
      const s = el('script', {src: '/ui/find.js'});
      s.addEventListener('load', () => resolve());
      s.addEventListener('error', () => { findLoading = null; reject(new Error('the find mode (/ui/find.js) did not load')); });
      document.head.append(s);
    });
  }
  return findLoading;
}

/* The worked example the page opens on: the seed's question ("Starving the GPU"). */
const EXAMPLE = {solver: 'pipeline', model: 'ResNet50', hardware: 'A100', batch_size: '512',
  sample_size_bytes: '500 KB', cpu_workers: '8', compare: 'H100'};

/* --- numbers ----------------------------------------------------------------------- */

const PREFIX = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
/* Units whose values read better with an SI prefix (B, flop/s, ...). */
const SI_UNITS = /^(B|B\/s|flop|flop\/s|count|W|J|1\/s)$/;

function fmtNum(v) {
  if (typeof v !== 'number') return String(v);
  if (v === 0 || Number.isInteger(v) && Math.abs(v) < 1e6) return String(v);
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-3) return v.toExponential(4).replace(/\.?0+e/, 'e');
  return String(Number(v.toPrecision(6)));
}

function fmtUnit(v, unit) {
  if (typeof v !== 'number' || !unit) return fmtNum(v) + (unit ? ' ' + unit : '');
  if (SI_UNITS.test(unit)) {
    for (const [f, p] of PREFIX)
      if (Math.abs(v) >= f) return String(Number((v / f).toPrecision(4))) + ' ' + p + (unit === 'count' ? '' : unit);
  }
  return fmtNum(v) + ' ' + unit;
}

/* Log-axis ticks: only the powers of ten are labelled. */
const tickSI = (v) => {
  if (Math.abs(Math.log10(v) - Math.round(Math.log10(v))) > 1e-9) return '';
  for (const [f, p] of PREFIX) if (Math.abs(v) >= f) return Number((v / f).toPrecision(3)) + p;
  return Number(v.toPrecision(3));
};

/* --- API ---------------------------------------------------------------------------------- */

async function api(path, body) {
  const init = body === undefined ? {} :
    {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)};
  const r = await fetch(path, init);
  const text = await r.text();
  let data;
  try { data = JSON.parse(text); } catch (e) { data = text; }
  if (!r.ok) {
    const err = new Error(data && data.detail ? data.detail : r.status + ' ' + r.statusText);
    err.problem = data;
    throw err;
  }
  return data;
}

/* The entries of one catalog kind in the current edition: one request per kind
 * and edition (concurrent callers share it; a failed one is asked again), made
 * once the first answer is drawn. */
function catalogList(kind) {
  const key = state.edition + '/' + kind;
  if (!state.catalogs.has(key)) {
    const edition = state.edition;
    const list = state.firstRender
      .then(() => api('/catalog/' + encodeURIComponent(kind) + '?catalog=' + encodeURIComponent(edition)))
      .then((data) => Object.values(data).find(Array.isArray) || []);
    list.catch(() => state.catalogs.delete(key));
    state.catalogs.set(key, list);
  }
  return state.catalogs.get(key);
}

/* The kinds the catalog has: the array-valued members of GET /catalog. */
async function catalogKinds() {
  const data = await api('/catalog?catalog=' + encodeURIComponent(state.edition));
  return Object.keys(data).filter((k) => Array.isArray(data[k]));
}

const findEntry = (list, id) => {
  const low = String(id).toLowerCase();
  return list.find((e) => String(e.key).toLowerCase() === low || String(e.id).toLowerCase() === low);
};

/* Up to n of an entry's numbers with their units, as "312 Tflop/s". */
function keyFigures(entry, n) {
  const units = entry.units || {};
  const out = [];
  for (const [f, u] of Object.entries(units)) {
    if (typeof entry[f] === 'number' && out.length < n) out.push(f + ' ' + fmtUnit(entry[f], u));
  }
  return out.join(' · ');
}

/* --- the form -------------------------------------------------------------------------- */

const isRecord = (inp) => Array.isArray(inp.catalog_kinds) && inp.catalog_kinds.length > 0;

function fieldFor(inp) {
  const id = 'in-' + inp.name;
  const hint = [];
  if (inp.default !== undefined && inp.default !== null) hint.push('default ' + inp.default + (inp.unit ? ' ' + inp.unit : ''));
  if (inp.minimum !== undefined) hint.push('min ' + inp.minimum);
  if (inp.maximum !== undefined) hint.push('max ' + inp.maximum);
  if (inp.required) hint.push('required');
  if (inp.nullable) hint.push('may be empty (none)');
  const unit = inp.unit ? el('span', {class: 'unit', text: ' [' + inp.unit + ']'}) : null;
  const label = el('label', {for: id}, inp.name, unit);
  const help = el('span', {class: 'help', id: id + '-help', text: (inp.description || '') + (hint.length ? ' (' + hint.join(', ') + ')' : '')});
  const wrap = el('div', {class: 'field', 'data-input': inp.name});
  let control;
  if (inp.type === 'boolean') {
    control = el('input', {type: 'checkbox', id, 'aria-describedby': id + '-help'});
    control.checked = inp.default === true;
    wrap.classList.add('check');
    wrap.append(control, label, help);
    return wrap;
  }
  if (inp.type === 'enum') {
    control = el('select', {id, 'aria-describedby': id + '-help'});
    if (inp.default === undefined || inp.nullable) control.append(el('option', {value: '', text: '(none)'}));
    for (const v of inp.values || []) control.append(el('option', {value: v, text: v}));
    control.value = inp.default === undefined || inp.default === null ? '' : inp.default;
    wrap.append(label, control, help);
    return wrap;
  }
  control = el('input', {type: 'text', id, 'aria-describedby': id + '-help', autocomplete: 'off',
    inputmode: inp.type === 'number' || inp.type === 'integer' ? 'decimal' : null,
    placeholder: inp.default !== undefined && inp.default !== null ? String(inp.default) : ''});
  if (inp.default !== undefined && inp.default !== null && !isRecord(inp)) control.value = String(inp.default);
  wrap.append(label, control);
  if (isRecord(inp)) {
    const dl = el('datalist', {id: id + '-list'});
    control.setAttribute('list', dl.id);
    const figures = el('span', {class: 'figures', id: id + '-figures'});
    const over = el('textarea', {id: id + '-override', rows: 2, placeholder: '{"field": "value with unit"}'});
    const det = el('details', {}, el('summary', {text: 'override fields (inline entry)'}),
      el('label', {for: over.id, class: 'help', text: 'JSON fields that replace the catalog entry\'s'}), over);
    wrap.append(dl, figures, det, help);
    fillPicker(inp, control, dl, figures);
    control.addEventListener('input', () => showFigures(inp, control, figures));
  } else {
    wrap.append(help);
  }
  return wrap;
}

async function fillPicker(inp, control, dl, figures) {
  dl.textContent = '';
  for (const kind of inp.catalog_kinds) {
    let list;
    try { list = await catalogList(kind); } catch (e) { continue; }
    for (const e of list) dl.append(el('option', {value: e.key, text: (e.name || e.key) + (e.group ? ' — ' + e.group : '')}));
  }
  showFigures(inp, control, figures);
}

async function showFigures(inp, control, figures) {
  const ids = control.value.split(',').map((s) => s.trim()).filter(Boolean);
  const parts = [];
  for (const id of ids.slice(0, 3)) {
    let entry;
    for (const kind of inp.catalog_kinds) {
      try { entry = entry || findEntry(await catalogList(kind), id); } catch (e) { /* kind not listed */ }
    }
    parts.push(entry ? (entry.name || entry.key) + ': ' + keyFigures(entry, 4) : id + ': not in this edition');
  }
  figures.textContent = parts.join('\n');
}

function renderForm(solver, values) {
  state.solver = solver;
  $('solver-title').textContent = solver.title || solver.name;
  $('solver-desc').textContent = solver.description || '';
  const fields = $('fields');
  fields.textContent = '';
  for (const inp of solver.inputs) fields.append(fieldFor(inp));
  for (const b of $('solvers').children) b.setAttribute('aria-current', b.dataset.solver === solver.name ? 'true' : 'false');
  setValues(values || {});
}

function setValues(values) {
  for (const inp of state.solver.inputs) {
    const c = $('in-' + inp.name);
    if (!c || !(inp.name in values)) continue;
    if (inp.type === 'boolean') c.checked = values[inp.name] === 'true';
    else c.value = values[inp.name];
    if (isRecord(inp) && values[inp.name + '.override']) $('in-' + inp.name + '-override').value = values[inp.name + '.override'];
    if (isRecord(inp)) c.dispatchEvent(new Event('input'));
  }
}

/* What the form holds, as text per input (for the URL) - only what differs from the default. */
function formValues() {
  const v = {};
  for (const inp of state.solver.inputs) {
    const c = $('in-' + inp.name);
    const text = inp.type === 'boolean' ? String(c.checked) : c.value.trim();
    const def = inp.default === undefined || inp.default === null ? '' : String(inp.default);
    if (text !== def && !(inp.type === 'boolean' && text === 'false' && def === '')) v[inp.name] = text;
    if (isRecord(inp)) {
      const o = $('in-' + inp.name + '-override').value.trim();
      if (o) v[inp.name + '.override'] = o;
    }
  }
  return v;
}

const asNumber = (s) => (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s) ? Number(s) : s);

/* One value of an input from its text: numbers as numbers, the rest as the API takes them. */
function parseValue(inp, s) {
  if (inp.type === 'boolean') return s === 'true';
  if (inp.type === 'number' || inp.type === 'integer' || inp.type === 'quantity') return asNumber(s);
  return s;
}

/* "start..stop" or "start..stop:step" in a numeric field: a range axis (bounds
 * in the input's unit or with their own, as the API takes them). */
const RANGE = /^(.+?)\.\.(.+?)(?::(.+))?$/;
function parseRange(inp, text) {
  const m = RANGE.exec(text);
  if (!m || !(inp.type === 'number' || inp.type === 'integer' || inp.type === 'quantity')) return null;
  const range = {start: asNumber(m[1].trim()), stop: asNumber(m[2].trim())};
  range.step = m[3] === undefined ? 1 : asNumber(m[3].trim());
  return {input: inp.name, range};
}

/* The request the form describes: {inputs, axes}; a comma-separated value or a range is an axis. */
function buildRequest() {
  const vals = formValues();
  const inputs = {};
  const axes = [];
  for (const inp of state.solver.inputs) {
    if (!(inp.name in vals)) continue;
    const text = vals[inp.name];
    if (text === '' && inp.type !== 'boolean') continue;
    if (inp.type === 'list') { inputs[inp.name] = text.split(',').map((s) => s.trim()).filter(Boolean); continue; }
    const sweepable = inp.type !== 'boolean' && inp.type !== 'enum';
    const range = sweepable ? parseRange(inp, text) : null;
    if (range) { axes.push(range); continue; }
    const parts = sweepable ? text.split(',').map((s) => s.trim()).filter(Boolean) : [text];
    if (parts.length > 1) { axes.push({input: inp.name, values: parts.map((p) => parseValue(inp, p))}); continue; }
    let value = parseValue(inp, parts[0]);
    const over = vals[inp.name + '.override'];
    if (isRecord(inp) && over) {
      let fields;
      try { fields = JSON.parse(over); } catch (e) { throw fieldError(inp.name, 'the override of ' + inp.name + ' is not a JSON object: ' + e.message); }
      value = Object.assign({base: value}, fields);
    }
    inputs[inp.name] = value;
  }
  const body = {solver: state.solver.name, catalog: state.edition, inputs};
  if (axes.length) body.axes = axes;
  return body;
}

function fieldError(name, detail) {
  const e = new Error(detail);
  e.problem = {detail, field: 'inputs.' + name};
  return e;
}

/* --- URL state ------------------------------------------------------------------------------ */

function stateToHash() {
  const p = new URLSearchParams();
  p.set('solver', state.solver.name);
  if (state.edition) p.set('catalog', state.edition);
  for (const [k, v] of Object.entries(formValues())) p.set(k, v);
  if (state.mode === 'find') for (const [k, v] of Object.entries(findValues())) p.set(k, v);
  const cmp = $('compare').value.trim();
  if (cmp) p.set('compare', cmp);
  return '#' + p.toString();
}

function hashToState() {
  const h = location.hash.replace(/^#/, '');
  return h ? Object.fromEntries(new URLSearchParams(h)) : null;
}

/* --- answers ----------------------------------------------------------------------------- */

const shellQuote = (s) => "'" + s.replace(/'/g, "'\\''") + "'";

function showCurl(path, body) {
  $('curl').textContent = 'curl -s -X POST ' + shellQuote(location.origin + path) +
    " -H 'Content-Type: application/json' \\\n  -d " + shellQuote(JSON.stringify(body));
}

function showProblem(err) {
  const box = $('problem');
  const p = err.problem || {};
  box.hidden = false;
  box.textContent = (p.title ? p.title + ': ' : '') + (p.detail || err.message) + (p.field ? ' (' + p.field + ')' : '');
  const m = /^inputs\.([^.[]+)/.exec(p.field || '');
  if (m && $('in-' + m[1])) {
    $('in-' + m[1]).setAttribute('aria-invalid', 'true');
    $('in-' + m[1]).focus();
  }
}

function clearAnswer() {
  $('problem').hidden = true;
  $('result').textContent = '';
  $('status').textContent = '';
  for (const f of ['fig-roofline', 'fig-pipeline', 'fig-sweep']) $(f).hidden = true;
  for (const c of document.querySelectorAll('[aria-invalid]')) c.removeAttribute('aria-invalid');
}

function outputTable(solver, result, units) {
  const rows = [];
  const walk = (obj, prefix) => {
    for (const [k, v] of Object.entries(obj)) {
      const name = prefix + k;
      if (solver.table && name === solver.table.name) continue; // drawn by rowsTable()
      if (v && typeof v === 'object' && !Array.isArray(v)) walk(v, name + '.');
      else rows.push([name, v]);
    }
  };
  walk(result, '');
  const desc = Object.fromEntries(solver.outputs.map((o) => [o.name, o.description || '']));
  const unitOf = (name) => units[name];
  const tbody = el('tbody');
  for (const [name, v] of rows) {
    const unit = unitOf(name);
    const shown = v === null ? '—' : typeof v === 'number' ? fmtNum(v) : String(v);
    tbody.append(el('tr', {'data-output': name, title: desc[name] || ''},
      el('th', {scope: 'row', text: name}),
      el('td', {class: 'value', 'data-value': JSON.stringify(v), text: shown}),
      el('td', {class: 'unit', text: typeof unit === 'string' ? unit : ''}),
      el('td', {class: 'desc', text: desc[name] || ''})));
  }
  return el('table', {id: 'result-table'},
    el('caption', {class: 'sub', text: 'Result'}),
    el('thead', {}, el('tr', {}, el('th', {text: 'output'}), el('th', {text: 'value'}), el('th', {text: 'unit'}), el('th', {class: 'desc', text: 'meaning'}))),
    tbody);
}

// The solver's table output (GET /solvers/{name} "table"): one row per entry, its columns with units.
function rowsTable(solver, result, units) {
  const t = solver.table;
  if (!t || !Array.isArray(result[t.name])) return null;
  const cols = t.columns;
  const head = el('tr', {}, ...cols.map((c) => {
    const unit = units[t.name + '.' + c.name];
    return el('th', {scope: 'col', title: c.description || '', text: c.name + (unit ? ' (' + unit + ')' : '')});
  }));
  const body = el('tbody', {}, ...result[t.name].map((row) => el('tr', {},
    ...cols.map((c) => {
      const v = row[c.name];
      return el('td', {class: 'value', 'data-value': JSON.stringify(v), text: v === null || v === undefined ? '—' : typeof v === 'number' ? fmtNum(v) : String(v)});
    }))));
  return el('table', {id: 'result-rows'},
    el('caption', {class: 'sub', text: t.name + ': ' + t.description}),
    el('thead', {}, head), body);
}

function listBlock(title, items, cls) {
  if (!items || !items.length) return null;
  return el('div', {class: cls}, el('h3', {text: title}), el('ul', {}, ...items.map((t) => el('li', {text: typeof t === 'string' ? t : JSON.stringify(t)}))));
}

async function run() {
  clearAnswer();
  let body;
  try { body = buildRequest(); } catch (e) { showProblem(e); return; }
  history.replaceState(null, '', stateToHash());
  $('share').href = stateToHash();
  if (state.mode === 'find') { await runFind(body); return; }
  const sweep = Boolean(body.axes);
  const path = sweep ? '/sweep' : '/solve';
  showCurl(path, body);
  $('status').textContent = 'Running ' + state.solver.name + (sweep ? ' sweep' : '') + '…';
  // the roofline's runs go out with the solve, not after it
  const roof = sweep ? null : rooflineData(body);
  if (roof) roof.catch(() => {}); // its failure is reported where it is awaited
  chartReady().catch(() => {}); // loads while the answers are computed; a failure is reported where it is awaited
  try {
    const ans = await api(path, body);
    if (sweep) await showSweep(body, ans);
    else await showSolve(body, ans, roof);
    $('status').textContent = sweep ? ans.points + ' points' : 'Solved (catalog ' + ans.catalog + ', version ' + ans.catalog_version + ')';
  } catch (e) {
    $('status').textContent = '';
    showProblem(e);
  }
}

async function showSolve(body, ans, roof) {
  const box = $('result');
  box.append(el('div', {class: 'scroll'}, outputTable(state.solver, ans.result, ans.units || {})));
  const rows = rowsTable(state.solver, ans.result, ans.units || {});
  if (rows) box.append(el('div', {class: 'scroll'}, rows));
  const w = listBlock('Warnings', ans.warnings, 'warnings');
  const t = listBlock('Assumptions', ans.trace, 'assumptions');
  if (w) box.append(w);
  if (t) box.append(t);
  if (ans.input_units && Object.keys(ans.input_units).length) {
    box.append(el('p', {class: 'sub', text: 'Inputs as used: ' +
      Object.entries(ans.inputs).map(([k, v]) => k + '=' + (typeof v === 'object' ? JSON.stringify(v) : v) +
      (ans.input_units[k] ? ' ' + ans.input_units[k] : '')).join(', ')}));
  }
  await chartReady();
  drawPipeline(ans);
  drawRoofline(await roof);
}

/* --- pictures ------------------------------------------------------------------------------ */

const COLORS = ['#0b5cad', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207', '#be185d'];

function chart(name, config) {
  if (state.charts[name]) state.charts[name].destroy();
  config.options = Object.assign({responsive: true, maintainAspectRatio: false, animation: false}, config.options);
  state.charts[name] = new window.Chart($('chart-' + name), config);
  return state.charts[name];
}

/* The roofline's data for a request: single_node on the form's accelerator and
 * those to compare, in one POST /batch (the form's other inputs that single_node
 * takes stay fixed; an accelerator single_node rejects is left out). null when
 * the request has no model and hardware. */
async function rooflineData(body) {
  const sn = state.solvers.find((s) => s.name === 'single_node');
  const names = new Set((sn ? sn.inputs : []).map((i) => i.name));
  if (!sn || !('hardware' in body.inputs) || !('model' in body.inputs)) return null;
  const inputs = {};
  for (const [k, v] of Object.entries(body.inputs)) if (names.has(k)) inputs[k] = v;
  const extra = $('compare').value.split(',').map((s) => s.trim()).filter(Boolean);
  const hws = [inputs.hardware, ...extra.filter((h) => h !== inputs.hardware)];
  const ans = await api('/batch', {items: hws.map((hardware) =>
    ({solver: 'single_node', catalog: state.edition, inputs: Object.assign({}, inputs, {hardware})}))});
  return ans.items.filter((it) => it.response).map(({response: {inputs: used, result: r}}) => ({
    hw: typeof used.hardware === 'object' ? 'inline' : String(used.hardware),
    peak: r.peak_flops_actual * 1e12, bw: r.peak_bw_actual * 1e9, ai: r.arithmetic_intensity, bottleneck: r.bottleneck}));
}

/* The roofline of the workload on each accelerator of rooflineData(). */
function drawRoofline(pts) {
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
  $('fig-roofline').hidden = false;
  chart('roofline', {type: 'scatter', data: {datasets},
    options: {scales: {
      x: {type: 'logarithmic', min: xmin, max: xmax, title: {display: true, text: 'arithmetic intensity (flop/B)'}, ticks: {callback: tickSI}},
      y: {type: 'logarithmic', title: {display: true, text: 'attainable (flop/s)'}, ticks: {callback: tickSI}}},
    plugins: {legend: {labels: {filter: (item, data) => !data.datasets[item.datasetIndex].role}},
      tooltip: {callbacks: {label: (c) => c.dataset.label + ': ' + fmtNum(c.parsed.x) + ' flop/B, ' + fmtUnit(c.parsed.y, 'flop/s')}}}}});
  $('chart-roofline').setAttribute('aria-label', 'Roofline: ' + [...notes.children].map((li) => li.textContent).join('; '));
}

/* Storage, CPU transformation and accelerator time per step, the binding one marked. */
function drawPipeline(ans) {
  const r = ans.result;
  const stages = [['Storage', 'storage_time'], ['CPU transform', 'transform_time'], ['Accelerator', 'accelerator_step_time']];
  if (!stages.every(([, k]) => typeof r[k] === 'number')) return;
  const bind = r.binding_stage === 'Storage' ? 0 : r.binding_stage === 'Transformation' ? 1 : 2;
  $('fig-pipeline').hidden = false;
  const unit = (ans.units || {}).step_time || 'ms';
  chart('pipeline', {type: 'bar', data: {labels: stages.map(([l], i) => l + (i === bind ? ' (binding)' : '')),
    datasets: [{label: 'time per step (' + unit + ')', data: stages.map(([, k]) => r[k]),
      backgroundColor: stages.map((s, i) => (i === bind ? '#b91c1c' : '#8aa4c0'))}]},
  options: {indexAxis: 'y', plugins: {legend: {display: false}},
    scales: {x: {title: {display: true, text: unit + ' per step'}}}}});
  const text = 'Binding stage: ' + r.binding_stage + '. Step ' + fmtNum(r.step_time) + ' ' + unit +
    (typeof r.accelerator_utilization === 'number' ? '; accelerator busy ' + (100 * r.accelerator_utilization).toFixed(1) + '%' : '') +
    (r.workers_needed !== undefined ? '; CPU workers needed: ' + r.workers_needed : '') + '.';
  $('pipeline-notes').textContent = text;
  $('chart-pipeline').setAttribute('aria-label', 'Pipeline stages: ' + stages.map(([l, k]) => l + ' ' + fmtNum(r[k]) + ' ' + unit).join(', ') + '. ' + text);
}

async function showSweep(body, ans) {
  state.sweep = {body, ans};
  const sel = $('sweep-output');
  const prev = sel.value;
  sel.textContent = '';
  const axisNames = new Set(ans.axes.map((a) => a.input));
  const numeric = ans.columns.filter((c, i) => !axisNames.has(c) && c !== 'error' &&
    ans.rows.some((r) => typeof r[i] === 'number'));
  for (const c of numeric) sel.append(el('option', {value: c, text: c + (ans.units[c] ? ' (' + ans.units[c] + ')' : '')}));
  if (numeric.includes(prev)) sel.value = prev;
  await chartReady();
  $('fig-sweep').hidden = false;
  drawSweep();
  const errors = ans.rows.filter((r) => r[ans.columns.indexOf('error')]);
  const box = $('result');
  const table = el('table', {id: 'sweep-table'}, el('thead', {}, el('tr', {}, ...ans.columns.map((c) => el('th', {text: c + (ans.units[c] ? ' [' + ans.units[c] + ']' : '')})))),
    el('tbody', {}, ...ans.rows.map((r) => el('tr', {}, ...r.map((v) => el('td', {class: typeof v === 'number' ? 'value' : '',
      text: v === null ? '' : typeof v === 'number' ? fmtNum(v) : typeof v === 'object' ? JSON.stringify(v) : String(v)}))))));
  box.append(el('div', {class: 'scroll'}, table));
  if (errors.length) box.append(listBlock('Points with an error', errors.map((r) => r[ans.columns.indexOf('error')]), 'warnings'));
  const csvBody = Object.assign({}, body, {format: 'csv'});
  const link = $('csv');
  link.onclick = async (ev) => {
    ev.preventDefault();
    const r = await fetch('/sweep', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(csvBody)});
    const url = URL.createObjectURL(await r.blob());
    const a = el('a', {href: url, download: body.solver + '-sweep.csv'});
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
}

/* A log axis when the values are positive and span two decades or more. */
const logWorthy = (vals) => {
  const v = vals.filter((x) => typeof x === 'number' && isFinite(x));
  return v.length > 1 && v.every((x) => x > 0) && Math.max(...v) / Math.min(...v) >= 100;
};

/* The chosen output against the first axis; every combination of the other axes is a series. */
function drawSweep() {
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

/* --- catalog view ----------------------------------------------------------------------- */

const catView = {kind: '', sort: 'key', dir: 1, picked: []};

async function showCatalog() {
  const sel = $('cat-kind');
  if (!sel.options.length) {
    for (const k of await catalogKinds()) sel.append(el('option', {value: k, text: k}));
  }
  catView.kind = sel.value;
  const list = await catalogList(catView.kind);
  const filter = $('cat-filter').value.trim().toLowerCase();
  const numCols = [];
  for (const e of list) for (const [f, u] of Object.entries(e.units || {})) if (typeof e[f] === 'number' && !numCols.some((c) => c[0] === f)) numCols.push([f, u]);
  const cols = [['key', ''], ['name', ''], ['group', ''], ...numCols.slice(0, 8)];
  const rows = list.filter((e) => !filter || [e.key, e.name, e.group].join(' ').toLowerCase().includes(filter));
  rows.sort((a, b) => {
    const x = a[catView.sort], y = b[catView.sort];
    if (typeof x === 'number' || typeof y === 'number') return catView.dir * ((x ?? -Infinity) - (y ?? -Infinity));
    return catView.dir * String(x ?? '').localeCompare(String(y ?? ''));
  });
  const head = el('tr', {}, el('th', {text: 'compare'}), ...cols.map(([c, u]) => {
    const b = el('button', {type: 'button', text: c + (u ? ' [' + u + ']' : '') + (catView.sort === c ? (catView.dir > 0 ? ' ▲' : ' ▼') : '')});
    b.addEventListener('click', () => { catView.dir = catView.sort === c ? -catView.dir : 1; catView.sort = c; showCatalog(); });
    return el('th', {scope: 'col', 'aria-sort': catView.sort === c ? (catView.dir > 0 ? 'ascending' : 'descending') : null}, b);
  }));
  const body = el('tbody');
  for (const e of rows) {
    const cb = el('input', {type: 'checkbox', 'aria-label': 'compare ' + e.key});
    cb.checked = catView.picked.includes(e.key);
    cb.addEventListener('change', () => {
      catView.picked = cb.checked ? [...catView.picked, e.key].slice(-3) : catView.picked.filter((k) => k !== e.key);
      showCatalog();
    });
    body.append(el('tr', {'data-key': e.key}, el('td', {}, cb), ...cols.map(([c, u]) =>
      el('td', {class: typeof e[c] === 'number' ? 'value' : '', text: e[c] === undefined || e[c] === null ? '' : typeof e[c] === 'number' ? fmtUnit(e[c], u) : String(e[c])}))));
  }
  $('cat-table').textContent = '';
  $('cat-table').append(el('table', {id: 'catalog-table'}, el('thead', {}, head), body));
  const picked = catView.picked.map((k) => findEntry(list, k)).filter(Boolean);
  $('cat-compare').textContent = '';
  if (picked.length >= 2) {
    const fields = [...new Set(picked.flatMap((e) => Object.keys(e)))].filter((f) => f !== 'units');
    const units = Object.assign({}, ...picked.map((e) => e.units || {}));
    const show = (v, u) => (v === undefined || v === null ? '' : typeof v === 'number' ? fmtUnit(v, u) : typeof v === 'object' ? JSON.stringify(v) : String(v));
    $('cat-compare').append(el('table', {id: 'compare-table'}, el('caption', {text: 'Side by side'}),
      el('thead', {}, el('tr', {}, el('th', {text: 'field'}), ...picked.map((e) => el('th', {scope: 'col', text: e.name || e.key})))),
      el('tbody', {}, ...fields.map((f) => el('tr', {}, el('th', {scope: 'row', text: f}), ...picked.map((e) => el('td', {text: show(e[f], units[f])})))))));
  } else {
    $('cat-compare').append(el('p', {class: 'hint', text: 'Tick two or three entries to compare them side by side.'}));
  }
}

function showView(name) {
  $('view-solve').hidden = name !== 'solve';
  $('view-catalog').hidden = name !== 'catalog';
  $('tab-solve').setAttribute('aria-pressed', String(name === 'solve'));
  $('tab-catalog').setAttribute('aria-pressed', String(name === 'catalog'));
  if (name === 'catalog') showCatalog().catch(showProblem);
}

/* --- start ---------------------------------------------------------------------------------- */

async function fillCompare() {
  const dl = $('dl-compare');
  dl.textContent = '';
  try { for (const e of await catalogList('hardware')) dl.append(el('option', {value: e.key, text: e.name})); } catch (e) { /* no hardware kind */ }
}

async function openSolver(name, values, runNow) {
  const s = state.solvers.find((x) => x.name === name) || state.solvers[0];
  clearAnswer();
  renderForm(s, values);
  if (state.mode === 'find') renderFind(s, values);
  if (runNow) await run();
}

/* The page in one mode: the radio group, the button's name, the find panel shown or not. */
function applyMode(mode) {
  state.mode = mode;
  for (const r of document.querySelectorAll('input[name="mode"]')) r.checked = r.value === mode;
  $('run').textContent = mode === 'find' ? 'Find' : 'Run';
  $('find').hidden = mode !== 'find';
}

/* Switch between solve-or-sweep and find (loading web/find.js the first time). */
async function setMode(mode) {
  if (mode !== 'find') { applyMode('run'); return; }
  try {
    await loadFind();
    applyMode('find');
    renderFind(state.solver, {});
  } catch (e) {
    applyMode('run');
    showProblem(e);
  }
}

async function start() {
  const [solvers, version] = await Promise.all([api('/solvers'), api('/version')]);
  state.solvers = solvers.solvers;
  state.editions = (version.catalog_editions || []).map((e) => e.name);
  const initial = hashToState() || EXAMPLE;
  state.edition = state.editions.includes(initial.catalog) ? initial.catalog : state.editions[0] || 'current';
  const ed = $('edition');
  for (const e of version.catalog_editions || []) ed.append(el('option', {value: e.name, title: e.description, text: e.name}));
  ed.value = state.edition;
  ed.addEventListener('change', () => {
    state.edition = ed.value;
    openSolver(state.solver.name, Object.assign(formValues(), state.mode === 'find' ? findValues() : {}), false);
    fillCompare();
    $('cat-kind').textContent = '';
    if (!$('view-catalog').hidden) showCatalog().catch(showProblem);
  });
  const nav = $('solvers');
  for (const s of state.solvers) {
    const b = el('button', {type: 'button', 'data-solver': s.name, title: s.title || '', text: s.name});
    b.addEventListener('click', () => openSolver(s.name, {}, false));
    nav.append(b);
  }
  $('compare').value = initial.compare || '';
  $('compare').addEventListener('change', () => run());
  $('form').addEventListener('submit', (ev) => { ev.preventDefault(); run(); });
  $('reset').addEventListener('click', () => openSolver(state.solver.name, {}, false));
  $('sweep-output').addEventListener('change', drawSweep);
  $('copy-curl').addEventListener('click', () => navigator.clipboard && navigator.clipboard.writeText($('curl').textContent));
  $('share').addEventListener('click', (ev) => { ev.preventDefault(); history.replaceState(null, '', stateToHash()); $('share').href = location.href; });
  $('tab-solve').addEventListener('click', () => showView('solve'));
  $('tab-catalog').addEventListener('click', () => showView('catalog'));
  $('cat-kind').addEventListener('change', () => { catView.picked = []; catView.sort = 'key'; showCatalog(); });
  $('cat-filter').addEventListener('input', () => showCatalog());
  for (const r of document.querySelectorAll('input[name="mode"]')) r.addEventListener('change', () => setMode(r.value));
  fillCompare();
  try {
    if (initial.mode === 'find') {
      await loadFind();
      applyMode('find');
    }
    await openSolver(initial.solver, initial, true);
  } finally {
    performance.mark('mlsysd:first-render');
    firstRenderDone();
  }
}

window.dashboard = {state};
// index.html loads this file with defer: the document is parsed when it runs.
start().catch(showProblem);
