/* answer.js - owns the answer panel: the request as curl (showCurl), a
 * problem with the field it names marked (showProblem), clearing it
 * (clearAnswer), a /solve answer (showSolve: the result with units and
 * meanings, a table output's rows, warnings, assumptions with what the model
 * leaves out and its measured error band, the inputs as used,
 * then the stage bars and roofline pictures) and a /sweep answer (showSweep: the
 * chart, every row, the points with an error, the CSV download). */
import {$, el} from './dom.js';
import {fmtNum, fmtPct, fmtUnit, shellQuote} from './format.js';
import {state} from './state.js';
import {chartReady, drawStages, drawRoofline, drawSweep} from './charts.js';

export function showCurl(path, body) {
  $('curl').textContent = 'curl -s -X POST ' + shellQuote(location.origin + path) +
    " -H 'Content-Type: application/json' \\\n  -d " + shellQuote(JSON.stringify(body));
  $('plan').textContent = planText(body);
}

/* The request as a capacity plan of one scenario (POST /evaluate, mlsysd eval):
 * the fields a plan scenario takes, and an empty list of assertions to fill in. */
const SCENARIO_FIELDS = ['solver', 'catalog', 'calibration', 'inputs', 'axes', 'constraints', 'objective', 'objectives',
  'top_k', 'method'];
export function planText(body) {
  const scenario = {name: body.solver};
  for (const k of SCENARIO_FIELDS) if (body[k] !== undefined) scenario[k] = body[k];
  scenario.assert = [];
  return JSON.stringify({version: '1', name: 'from-the-dashboard', scenarios: [scenario]}, null, 2);
}

/* A problem (an Error, with the API's problem as .problem) as one line. */
export function problemText(err) {
  const p = err.problem || {};
  return (p.title ? p.title + ': ' : '') + (p.detail || err.message) + (p.field ? ' (' + p.field + ')' : '');
}

export function showProblem(err) {
  const box = $('problem');
  const p = err.problem || {};
  box.hidden = false;
  box.textContent = problemText(err);
  const m = /^inputs\.([^.[]+)(\.hf_config)?/.exec(p.field || '');
  // a pasted config.json's problem (inputs.model.hf_config.num_hidden_layers) marks its textarea
  const c = m && ((m[2] && $('in-' + m[1] + '-hf')) || $('in-' + m[1]));
  if (c) {
    if (c.closest('details')) c.closest('details').open = true;
    c.setAttribute('aria-invalid', 'true');
    c.focus();
  }
}

export function clearAnswer() {
  $('problem').hidden = true;
  $('result').textContent = '';
  $('status').textContent = '';
  for (const f of ['fig-roofline', 'fig-stages', 'fig-sweep']) $(f).hidden = true;
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

export function listBlock(title, items, cls) {
  if (!items || !items.length) return null;
  return el('div', {class: cls}, el('h3', {text: title}), el('ul', {}, ...items.map((t) => el('li', {text: typeof t === 'string' ? t : JSON.stringify(t)}))));
}

/* What an answer's assumptions state beyond the trace: what the model leaves
 * out, and assumptions.error_band - how far answers of this kind land from
 * published measurements in the answer's calibration mode (GET /validation):
 * per measurement family (its title; the outputs it checks) its median and
 * 90th-percentile error, as percentages, over n measurements from so many
 * sources. A daemon that states no band in numbers
 * gives a sentence instead; it is shown as it is. */
function assumptionsBlock(a) {
  if (!a || typeof a !== 'object') return null;
  const box = el('div', {class: 'assumptions', id: 'assumptions-box'});
  if (a.leaves_out) box.append(el('p', {class: 'sub', id: 'leaves-out', text: 'The model leaves out: ' + a.leaves_out}));
  const band = a.error_band;
  if (band === undefined || band === null) return box.childNodes.length ? box : null;
  const eb = el('div', {id: 'error-band'}, el('h3', {text: 'Error against published measurements'}));
  box.append(eb);
  if (typeof band !== 'object') {
    eb.append(el('p', {class: 'sub', text: String(band)}));
    return box;
  }
  if (band.calibration) eb.dataset.calibration = band.calibration;
  eb.append(el('p', {class: 'sub', text: (band.calibration ? 'Calibration ' + band.calibration + ': ' : '') + (band.basis || '') +
    '. The error of one measurement is max(predicted / measured, measured / predicted) − 1; the Validation tab shows each one.'}));
  const bands = Array.isArray(band.bands) ? band.bands : [];
  if (bands.length) {
    const pct = (v) => el('td', {class: 'value', 'data-value': JSON.stringify(v ?? null), text: typeof v === 'number' ? fmtPct(v) : '—'});
    const count = (v) => el('td', {class: 'value', 'data-value': JSON.stringify(v ?? null), text: String(v ?? '—')});
    eb.append(el('div', {class: 'scroll'}, el('table', {id: 'error-band-table'},
      el('caption', {class: 'sub', text: 'Error band by measurement family'}),
      el('thead', {}, el('tr', {}, ...['measurements', 'outputs checked', 'median error', '90th percentile', 'n', 'sources'].map((h) => el('th', {scope: 'col', text: h})))),
      el('tbody', {}, ...bands.map((b) => el('tr', {'data-family': b.family},
        el('th', {scope: 'row', title: b.family, text: b.title || b.family}), el('td', {text: (b.outputs || []).join(', ')}),
        pct(b.median), pct(b.p90), count(b.n), count(b.sources)))))));
  } else {
    eb.append(el('p', {id: 'error-band-none', text: 'No measurement family covers this answer: its error is not known.'}));
  }
  if (band.note) eb.append(el('p', {class: 'sub', text: band.note}));
  return box;
}

/* The figures resolved.<input> gives for a model sent as a pasted config.json: parameters,
 * active parameters (a dense model's are all of them), layers, heads, KV heads, head dim.
 * Shown in a table (#resolved-<input>) and beside the form's field. */
const RESOLVED_FIGURES = ['parameters', 'active_parameters', 'layers', 'heads', 'kv_heads', 'head_dim'];
function resolvedFromConfig(body, ans) {
  const out = [];
  for (const [name, v] of Object.entries((body && body.inputs) || {})) {
    const r = ans.resolved && ans.resolved[name];
    if (!v || typeof v !== 'object' || !v.hf_config || !r) continue;
    const units = r.units || {};
    const derived = r.derived_from_hf_config || {};
    const value = (f) => (f === 'active_parameters' && r[f] === undefined ? r.parameters : r[f]);
    const text = (f) => {
      const x = value(f);
      if (x === undefined || x === null) return '—';
      return (units[f] === 'count' ? fmtUnit(x, 'count') + ' (' + x.toLocaleString('en-US') + ')' : fmtNum(x)) +
        (f === 'active_parameters' && r[f] === undefined ? ', dense: every one' : '');
    };
    const title = (r.name || name) + (derived.model_type ? ' (model_type ' + derived.model_type + ')' : '') + (r.architecture ? ', ' + r.architecture : '');
    out.push(el('div', {class: 'scroll'}, el('table', {id: 'resolved-' + name, class: 'resolved'},
      el('caption', {class: 'sub', text: name + ' from the pasted config.json: ' + title}),
      el('thead', {}, el('tr', {}, el('th', {scope: 'col', text: 'figure'}), el('th', {scope: 'col', text: 'value'}))),
      el('tbody', {}, ...RESOLVED_FIGURES.map((f) => el('tr', {'data-field': f}, el('th', {scope: 'row', text: f.replace('_', ' ')}),
        el('td', {class: 'value', 'data-value': JSON.stringify(value(f) ?? null), text: text(f)})))))));
    const fig = $('in-' + name + '-figures');
    if (fig) fig.textContent = 'config.json → ' + title + ': ' + RESOLVED_FIGURES.filter((f) => value(f) !== undefined)
      .map((f) => f.replace('_', ' ') + ' ' + (units[f] === 'count' ? fmtUnit(value(f), 'count') : fmtNum(value(f)))).join(' · ');
  }
  return out;
}

export async function showSolve(body, ans, roof, into) {
  const box = into || $('result');
  box.append(el('div', {class: 'scroll'}, outputTable(state.solver, ans.result, ans.units || {})));
  const rows = rowsTable(state.solver, ans.result, ans.units || {});
  if (rows) box.append(el('div', {class: 'scroll'}, rows));
  for (const r of resolvedFromConfig(body, ans)) box.append(r);
  const w = listBlock('Warnings', ans.warnings, 'warnings');
  const t = listBlock('Assumptions', ans.trace, 'assumptions');
  if (w) box.append(w);
  if (t) box.append(t);
  const a = assumptionsBlock(ans.assumptions);
  if (a) box.append(a);
  if (ans.input_units && Object.keys(ans.input_units).length) {
    box.append(el('p', {class: 'sub', text: 'Inputs as used: ' +
      Object.entries(ans.inputs).map(([k, v]) => k + '=' + (typeof v === 'object' ? JSON.stringify(v) : v) +
      (ans.input_units[k] ? ' ' + ans.input_units[k] : '')).join(', ')}));
  }
  await chartReady();
  drawStages(ans);
  drawRoofline(await roof);
}

export async function showSweep(body, ans) {
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
