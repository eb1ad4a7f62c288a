/* validation.js - owns the Validation view: how far the service's answers land
 * from published measurements (GET /validation, fetched once, when the view
 * is first opened). Three parts:
 *   - a summary per measurement family and overall: n, sources, and the
 *     median and 90th-percentile error with the count within 25 % in mlsysim
 *     mode, in measured mode (fitted on every source) and leave-one-source-out
 *     (each measurement predicted by parameters fitted without its source);
 *     each family's row shows its colour and shape on the chart;
 *   - a log-log scatter of predicted (y) against measured (x), square, one
 *     point per measurement coloured and shaped by family, with the y = x line
 *     and the ±25 % band (drawn with charts.js's plot()); which prediction is
 *     plotted is a choice (measured, leave-one-source-out, mlsysim); hovering
 *     a point names it, and a click
 *     on it shows it beside the chart (#val-point: its figures, its quote, a
 *     link to its source and one to its request) and picks its row;
 *   - the measurements as a table (all, or one family's) sortable by any
 *     column, each row linking to its source (its url, or its file on GitHub
 *     from repo and path, or where it is printed) and to its request: a link
 *     with the page's URL state that opens the Solve view on that solver,
 *     inputs and calibration (dashboard.js follows links marked data-state).
 * The error of one measurement is max(predicted / measured, measured /
 * predicted) - 1 (GET /validation's "error" says so). Loaded by dashboard.js
 * the first time the view is opened. */
import {$, el} from './dom.js';
import {fmtNum, fmtPct} from './format.js';
import {api} from './api.js';
import {requestToHash} from './form.js';
import {chartReady, OPEN_SHAPES, plot} from './charts.js';

/* The predictions a point can show, and the calibration its request link opens. */
const WHICH = [
  {key: 'measured', label: 'measured mode', short: 'measured', calibration: 'measured'},
  {key: 'measured_loso', label: 'measured, leave-one-source-out', short: 'leave-one-source-out', calibration: 'measured'},
  {key: 'mlsysim', label: 'mlsysim defaults', short: 'mlsysim', calibration: 'mlsysim'},
];
/* A family's colour and shape, by its place in GET /validation's families: the
 * Okabe-Ito colours (told apart with colour-blindness too), and a shape each. */
const COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000', '#8c564b'];
const SHAPES = ['circle', 'triangle', 'rect', 'rectRot', 'star', 'crossRot', 'rectRounded', 'cross'];
const BAND = 1.25; // ±25 %: error <= 0.25, so predicted within [measured / 1.25, measured * 1.25]

const view = {data: null, loading: null, which: 'measured', sort: 'family', dir: 1, picked: '', family: ''};

/* The families in GET /validation's order, then any a measurement names that the list does not. */
function familyList(data) {
  const fs = (data.families || []).map((f) => f.family);
  for (const m of data.measurements || []) if (!fs.includes(m.family)) fs.push(m.family);
  return fs;
}
const familyTitle = (data, f) => ((data.families || []).find((x) => x.family === f) || {}).title || f;
function style(f) {
  const i = Math.max(0, familyList(view.data).indexOf(f));
  return {color: COLORS[i % COLORS.length], shape: SHAPES[i % SHAPES.length]};
}
/* The family's colour and shape as a small inline picture (for the summary and the point's panel). */
function swatch(f) {
  const {color, shape} = style(f);
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '-6 -6 12 12');
  svg.setAttribute('class', 'swatch');
  svg.setAttribute('aria-hidden', 'true');
  const shapes = {
    circle: ['circle', {r: 4.2}], triangle: ['polygon', {points: '0,-5 4.6,3.5 -4.6,3.5'}], rect: ['rect', {x: -3.8, y: -3.8, width: 7.6, height: 7.6}],
    rectRot: ['polygon', {points: '0,-5 5,0 0,5 -5,0'}], rectRounded: ['rect', {x: -3.8, y: -3.8, width: 7.6, height: 7.6, rx: 2}],
    star: ['path', {d: 'M0,-5V5M-5,0H5M-3.5,-3.5L3.5,3.5M-3.5,3.5L3.5,-3.5', fill: 'none'}],
    crossRot: ['path', {d: 'M-4,-4L4,4M-4,4L4,-4', fill: 'none'}], cross: ['path', {d: 'M0,-5V5M-5,0H5', fill: 'none'}]};
  const [tag, attrs] = shapes[shape];
  const e = document.createElementNS(ns, tag);
  for (const [k, v] of Object.entries(Object.assign({fill: color, stroke: color, 'stroke-width': 1.6}, attrs))) e.setAttribute(k, v);
  svg.append(e);
  return svg;
}

/* GET /validation once; a failed request is asked again next time. */
function load() {
  if (!view.loading) {
    view.loading = api('/validation').then((d) => { view.data = d; return d; });
    view.loading.catch(() => { view.loading = null; });
  }
  return view.loading;
}

export const sourceLink = (s) => (!s ? null : s.url ? s.url :
  s.repo && s.path ? 'https://github.com/' + s.repo + '/blob/HEAD/' + s.path.split('/').map(encodeURIComponent).join('/') : null);

const num = (v) => (typeof v === 'number' && isFinite(v) ? v : null);
const predicted = (m, which) => num((m.predicted || {})[which]);
const errorOf = (m, which) => {
  const e = num((m.error || {})[which]);
  if (e !== null) return e;
  const p = predicted(m, which), x = num(m.measured && m.measured.value);
  return p > 0 && x > 0 ? Math.max(p / x, x / p) - 1 : null;
};
const ratioOf = (m, which) => {
  const r = num((m.ratio || {})[which]);
  if (r !== null) return r;
  const p = predicted(m, which), x = num(m.measured && m.measured.value);
  return p !== null && x > 0 ? p / x : null;
};
/* A measurement the scatter can place: a positive measured figure and prediction. */
const plotted = (m, which) => predicted(m, which) > 0 && num(m.measured && m.measured.value) > 0;

export async function showValidation() {
  $('val-status').textContent = 'Loading GET /validation…';
  const data = await load();
  const n = (data.measurements || []).length;
  $('val-status').textContent = n + ' published measurements in ' + (data.families || []).length + ' families.';
  summary(data);
  await chartReady();
  draw();
}

/* --- the summary ------------------------------------------------------------------------------ */

function summary(data) {
  const modes = [['mlsysim', 'mlsysim defaults', true], ['measured', 'measured (fitted on every source)', true],
    ['measured_loso', 'measured, leave-one-source-out', true]];
  const cell = (v, text) => el('td', {class: 'value', 'data-value': JSON.stringify(v ?? null), text: v === null || v === undefined ? '—' : text});
  const row = (f, key, title) => {
    const name = el('th', {scope: 'row'}, key === 'overall' ? null : swatch(key), title);
    const tr = el('tr', {'data-family': key}, name, cell(f.n, String(f.n)), cell(f.sources, String(f.sources)));
    for (const [m, , within] of modes) {
      const s = f[m] || {};
      tr.append(cell(s.median, fmtPct(s.median)), cell(s.p90, fmtPct(s.p90)));
      const w = s.within_25pct;
      if (within) tr.append(cell(w, String(w) + (f.n ? ' (' + Math.round(100 * w / f.n) + ' %)' : '')));
    }
    return tr;
  };
  const head1 = el('tr', {}, el('th', {scope: 'col', rowspan: 2, text: 'family'}), el('th', {scope: 'col', rowspan: 2, text: 'n'}),
    el('th', {scope: 'col', rowspan: 2, text: 'sources'}),
    ...modes.map(([, label, within]) => el('th', {scope: 'colgroup', colspan: within ? 3 : 2, text: label})));
  const head2 = el('tr', {}, ...modes.flatMap(([, , within]) => [el('th', {scope: 'col', text: 'median error'}),
    el('th', {scope: 'col', text: '90th percentile'}), within ? el('th', {scope: 'col', text: 'within 25 % (of n)'}) : null].filter(Boolean)));
  const body = el('tbody', {}, ...(data.families || []).map((f) => row(f, f.family, f.title || f.family)));
  if (data.overall) body.append(row(data.overall, 'overall', 'all families'));
  $('val-summary').textContent = '';
  $('val-summary').append(el('table', {id: 'validation-summary'},
    el('caption', {class: 'sub', text: 'Error per family: ' + (data.error || 'max(predicted / measured, measured / predicted) − 1')}),
    el('thead', {}, head1, head2), body));
}

/* --- the scatter ------------------------------------------------------------------------------ */

function draw() {
  const data = view.data;
  const which = WHICH.find((w) => w.key === view.which);
  const ms = data.measurements || [];
  const families = familyList(data);
  const pts = ms.filter((m) => plotted(m, view.which));
  const missing = ms.filter((m) => !plotted(m, view.which));
  const vals = pts.flatMap((m) => [m.measured.value, predicted(m, view.which)]);
  const lo = vals.length ? Math.pow(10, Math.floor(Math.log10(Math.min(...vals) / BAND))) : 1;
  const hi = vals.length ? Math.pow(10, Math.ceil(Math.log10(Math.max(...vals) * BAND))) : 10;
  const grey = 'rgba(74,83,96,.55)';
  const lower = [{x: lo, y: lo / BAND}, {x: hi, y: hi / BAND}];
  const datasets = [
    {label: '±25 %', role: 'band', data: [{x: lo, y: lo * BAND}, {x: hi, y: hi * BAND}], color: grey, line: {width: 1},
      fillTo: lower, fillColor: 'rgba(74,83,96,.13)'},
    {label: '−25 %', role: 'band-low', data: lower, color: grey, line: {width: 1}, legend: false},
    {label: 'y = x', role: 'identity', data: [{x: lo, y: lo}, {x: hi, y: hi}], color: '#1b1f24', line: {width: 1.2, dash: [5, 3]}},
  ];
  for (const f of families) {
    const data = pts.filter((m) => m.family === f).map((m) => ({x: m.measured.value, y: predicted(m, view.which), id: m.id,
      unit: m.measured.unit || '', metric: m.measured.metric || '', error: errorOf(m, view.which)}));
    if (!data.length) continue;
    const {color, shape} = style(f);
    const stroke = OPEN_SHAPES.includes(shape); // drawn with lines only: a thicker line
    datasets.push({label: familyTitle(view.data, f), family: f, data, color,
      marker: {shape, size: stroke ? 5 : 4, width: stroke ? 2 : 1, fill: color + 'b3'}});
  }
  const within = pts.filter((m) => errorOf(m, view.which) <= BAND - 1).length;
  plot('validation', {datasets, square: true,
    x: {log: true, min: lo, max: hi, title: 'measured (the source\'s figure: ms or 1/s)'},
    y: {log: true, min: lo, max: hi, title: 'predicted (' + which.short + ')'},
    tip: (ds, p) => p.id + ' (' + ds.label + '): measured ' + fmtNum(p.x) + ' ' + p.unit +
      ', predicted ' + fmtNum(p.y) + (p.error !== null ? ', error ' + fmtPct(p.error) : ''),
    pick: (ds, p) => pick(p.id)});
  const note = pts.length + ' of ' + ms.length + ' measurements plotted (' + which.label + '); ' + within + ' within ±25 % (the band: ' +
    'predicted between measured / 1.25 and measured × 1.25). Units differ between families (times in ms, throughputs in 1/s); ' +
    'each point compares a prediction with its own measurement, so the distance from y = x is the error whatever the unit.' +
    (missing.length ? ' No ' + which.label + ' prediction for ' + missing.map((m) => m.id).join(', ') + '.' : '') +
    (view.which === 'measured_loso' ? ' A request link opens measured mode fitted on every source, so its answer is the measured-mode prediction.' : '');
  $('val-notes').textContent = note;
  $('chart-validation').setAttribute('aria-label', 'Scatter of predicted (' + which.label + ') against measured, log-log, for ' +
    pts.length + ' measurements in ' + families.length + ' families, with the line y = x and the ±25 % band. ' + note +
    ' The table below lists every point.');
  table();
  point();
}

/* --- the point picked on the chart ---------------------------------------------------------- */

const sourceNode = (s, cls) => {
  const href = sourceLink(s);
  return href ? el('a', {href, class: cls, rel: 'noreferrer', title: s.where || null}, s.title || s.key || href) :
    el('span', {class: 'source-where'}, (s.title || s.key || 'source') + (s.where ? ', ' + s.where : ''));
};
const requestNode = (m, which, cls, text) => (m.request && m.request.solver ?
  el('a', {href: requestToHash(m.request, which.calibration), class: cls, 'data-state': '',
    'aria-label': 'open the request of ' + m.id + ' in the Solve view (' + m.request.solver + ', calibration ' + which.calibration + ')'},
  text || m.request.solver) : el('span', {text: '—'}));

/* #val-point: the picked measurement (its figures in the chosen prediction, its
 * quote, its source and its request), or how to pick one. */
function point() {
  const box = $('val-point');
  box.textContent = '';
  const m = view.picked && (view.data.measurements || []).find((x) => x.id === view.picked);
  if (!m) {
    box.append(el('p', {class: 'sub', text: 'Click a point for its measurement: the published figure, the source it is quoted from, ' +
      'and the request that reproduces it. Click a family in the legend to hide or show it.'}));
    return;
  }
  const which = WHICH.find((w) => w.key === view.which);
  const unit = (m.measured && m.measured.unit) || '';
  const u = (v) => (v === null ? '—' : fmtNum(v) + (unit ? ' ' + unit : ''));
  const e = errorOf(m, view.which);
  const quoted = m.measured && m.measured.as_quoted;
  const s = m.source || {};
  box.dataset.id = m.id;
  box.append(el('h3', {}, swatch(m.family), m.id),
    el('p', {class: 'sub', text: familyTitle(view.data, m.family) + (m.year ? ', ' + m.year : '') + (m.framework ? ', ' + m.framework : '')}),
    el('dl', {},
      el('dt', {text: 'measured'}), el('dd', {text: u(num(m.measured && m.measured.value)) + ' (' + ((m.measured && m.measured.metric) || m.output || '') + ')' +
        (quoted && (quoted.unit !== unit || quoted.value !== m.measured.value) ? ', quoted as ' + fmtNum(quoted.value) + ' ' + (quoted.unit || '') : '')}),
      el('dt', {text: 'predicted'}), el('dd', {text: u(predicted(m, view.which)) + ' (' + which.label + ')'}),
      el('dt', {text: 'error'}), el('dd', {class: e !== null && e <= BAND - 1 ? 'within' : null, text: e === null ? '—' : fmtPct(e)}),
      el('dt', {text: 'source'}), el('dd', {}, sourceNode(s, 'point-source'), s.where && sourceLink(s) ? el('span', {class: 'sub', text: ' (' + s.where + ')'}) : null),
      el('dt', {text: 'request'}), el('dd', {}, requestNode(m, which, 'point-request', 'open ' + (m.request && m.request.solver) + ' in the Solve view'))),
    m.quote ? el('blockquote', {text: m.quote}) : null);
}

/* --- the table ------------------------------------------------------------------------------- */

const COLUMNS = [
  {key: 'id', title: 'measurement', get: (m) => m.id},
  {key: 'family', title: 'family', get: (m) => m.family},
  {key: 'source', title: 'source', get: (m) => (m.source && (m.source.title || m.source.key)) || ''},
  {key: 'year', title: 'year', get: (m) => m.year ?? null},
  {key: 'metric', title: 'figure', get: (m) => (m.measured && m.measured.metric) || ''},
  {key: 'measured', title: 'measured', get: (m) => num(m.measured && m.measured.value), numeric: true},
  {key: 'predicted', title: 'predicted', get: (m) => predicted(m, view.which), numeric: true},
  {key: 'ratio', title: 'predicted / measured', get: (m) => ratioOf(m, view.which), numeric: true},
  {key: 'error', title: 'error', get: (m) => errorOf(m, view.which), numeric: true},
];

function compare(col) {
  return (a, b) => {
    const x = col.get(a), y = col.get(b);
    if (x === null || x === undefined) return y === null || y === undefined ? 0 : 1; // no value: last either way
    if (y === null || y === undefined) return -1;
    return view.dir * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)));
  };
}

/* The table's family filter: every family of the data, or all. */
function familyFilter() {
  const sel = $('val-family');
  const fs = familyList(view.data);
  if (sel.options.length !== fs.length + 1) {
    sel.textContent = '';
    sel.append(el('option', {value: '', text: 'all families'}), ...fs.map((f) => el('option', {value: f, text: familyTitle(view.data, f)})));
  }
  sel.value = view.family;
}

function table() {
  familyFilter();
  const which = WHICH.find((w) => w.key === view.which);
  const ms = (view.data.measurements || []).filter((m) => !view.family || m.family === view.family);
  const col = COLUMNS.find((c) => c.key === view.sort) || COLUMNS[0];
  ms.sort((a, b) => compare(col)(a, b) || String(a.id).localeCompare(String(b.id)));
  const head = el('tr', {}, ...COLUMNS.map((c) => {
    const b = el('button', {type: 'button', text: c.title + (view.sort === c.key ? (view.dir > 0 ? ' ▲' : ' ▼') : '')});
    b.addEventListener('click', () => {
      view.dir = view.sort === c.key ? -view.dir : 1;
      view.sort = c.key;
      table();
      $('validation-table').querySelector('th[data-col="' + c.key + '"] button').focus();
    });
    return el('th', {scope: 'col', 'data-col': c.key, class: c.numeric ? 'num' : null,
      'aria-sort': view.sort === c.key ? (view.dir > 0 ? 'ascending' : 'descending') : null}, b);
  }), el('th', {scope: 'col', text: 'request'}));
  const body = el('tbody');
  for (const m of ms) {
    const unit = (m.measured && m.measured.unit) || '';
    const e = errorOf(m, view.which);
    const metric = (m.measured && m.measured.metric) || '';
    const v = (x, text) => el('td', {class: 'value', 'data-value': JSON.stringify(x ?? null), text: x === null || x === undefined ? '—' : text});
    body.append(el('tr', {'data-id': m.id, 'data-family': m.family, class: [e !== null && e <= BAND - 1 ? 'within' : '', view.picked === m.id ? 'picked' : ''].join(' ').trim() || null,
      tabindex: '-1', title: m.quote ? 'quoted: ' + m.quote : null},
    el('th', {scope: 'row', class: 'mid', text: m.id}), el('td', {text: familyTitle(view.data, m.family)}), el('td', {class: 'src'}, sourceNode(m.source || {}, 'source-link')),
    v(m.year, String(m.year)),
    el('td', {text: metric + (m.output && m.output !== metric ? ' (' + m.output + ')' : '')}),
    v(num(m.measured && m.measured.value), fmtNum(m.measured && m.measured.value) + (unit ? ' ' + unit : '')),
    v(predicted(m, view.which), fmtNum(predicted(m, view.which)) + (unit ? ' ' + unit : '')),
    v(ratioOf(m, view.which), fmtNum(Number((ratioOf(m, view.which) || 0).toPrecision(3)))),
    v(e, fmtPct(e)), el('td', {}, requestNode(m, which, 'request-link'))));
  }
  $('val-table').textContent = '';
  $('val-table').append(el('table', {id: 'validation-table'},
    el('caption', {class: 'sub', text: ms.length + ' measurements' + (view.family ? ' of ' + familyTitle(view.data, view.family) : '') +
      ' (' + which.label + '); sort by a column\'s button; the request link opens it in the Solve view'}),
    el('thead', {}, head), body));
}

/* A point clicked on the chart: shown beside the chart, its row picked (the
 * table shows all families when the filter hides it) and scrolled to within
 * the table, without moving the page. */
function pick(id) {
  view.picked = id;
  const m = (view.data.measurements || []).find((x) => x.id === id);
  if (m && view.family && m.family !== view.family) {
    view.family = '';
    table();
  }
  point();
  for (const tr of document.querySelectorAll('#validation-table tr.picked')) tr.classList.remove('picked');
  const tr = document.querySelector('#validation-table tr[data-id="' + CSS.escape(id) + '"]');
  if (!tr) return;
  tr.classList.add('picked');
  const box = $('val-table');
  box.scrollTop += tr.getBoundingClientRect().top - box.getBoundingClientRect().top - box.clientHeight / 2;
}

/* The view's controls; once, when the module is first loaded. */
for (const r of document.querySelectorAll('input[name="val-which"]')) {
  r.addEventListener('change', () => {
    if (!r.checked || !view.data) return;
    view.which = r.value;
    draw();
  });
}
$('val-family').addEventListener('change', () => {
  view.family = $('val-family').value;
  if (view.data) table();
});
