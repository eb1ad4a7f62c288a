/* form.js - owns the solver's form and the page's URL state: one field per
 * input of GET /solvers/{name} (label, unit, help with default and bounds;
 * enums as selects, booleans as checkboxes, catalog records as pickers with
 * their key figures and an inline override; a model's also a pasted Hugging
 * Face config.json, sent as {"hf_config": ...}), the values it holds (text per
 * input, only what differs from the default), the request it describes
 * (buildRequest: inputs, and a list or a range in a field as a sweep axis),
 * and the state in the URL's hash (stateToHash / hashToState; requestToHash
 * for a request given as JSON). */
import {$, el} from './dom.js';
import {fmtUnit} from './format.js';
import {state} from './state.js';
import {catalogList, envelope, findEntry} from './api.js';

export const isRecord = (inp) => Array.isArray(inp.catalog_kinds) && inp.catalog_kinds.length > 0;
/* A model input: besides a catalog id it takes a pasted Hugging Face config.json ({"hf_config": {...}}). */
export const isModel = (inp) => isRecord(inp) && inp.catalog_kinds.includes('models');

/* Up to n of an entry's numbers with their units, as "312 Tflop/s". */
function keyFigures(entry, n) {
  const units = entry.units || {};
  const out = [];
  for (const [f, u] of Object.entries(units)) {
    if (typeof entry[f] === 'number' && out.length < n) out.push(f + ' ' + fmtUnit(entry[f], u));
  }
  return out.join(' · ');
}

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
    wrap.append(dl, figures, det);
    if (isModel(inp)) wrap.append(hfBox(inp, control, figures));
    wrap.append(help);
    fillPicker(inp, control, dl, figures);
    control.addEventListener('input', () => showFigures(inp, control, figures));
  } else {
    wrap.append(help);
  }
  return wrap;
}

/* The "paste a config.json" option of a model input: a textarea (#in-<name>-hf) whose JSON
 * object the request carries as {"hf_config": ...} in place of the catalog id; what it holds
 * is checked as it is typed, and a text that is not a JSON object is said so beside it. */
function hfBox(inp, control, figures) {
  const id = 'in-' + inp.name + '-hf';
  const hf = el('textarea', {id, rows: 6, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': id + '-note',
    placeholder: '{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, ...}'});
  const note = el('p', {class: 'hf-note', id: id + '-note', 'aria-live': 'polite'});
  hf.addEventListener('input', () => checkHf(inp, control, hf, note, figures));
  return el('details', {class: 'hf'}, el('summary', {text: 'paste a config.json (Hugging Face)'}),
    el('label', {for: id, class: 'help', text: 'A model\'s config.json as published. It takes the catalog id\'s place; ' +
      'the answer shows the figures the service computes from it (resolved.' + inp.name + ').'}), hf, note);
}

/* The pasted config.json: parsed, or why it cannot be. */
function readHf(text) {
  let cfg;
  try { cfg = JSON.parse(text); } catch (e) { return {problem: 'not JSON: ' + e.message}; }
  if (!cfg || typeof cfg !== 'object' || Array.isArray(cfg)) return {problem: 'a config.json is one JSON object ({...})'};
  return {cfg};
}

function checkHf(inp, control, hf, note, figures) {
  const text = hf.value.trim();
  note.classList.remove('bad');
  hf.removeAttribute('aria-invalid');
  control.disabled = Boolean(text);
  if (!text) {
    note.textContent = '';
    showFigures(inp, control, figures);
    return;
  }
  const {cfg, problem} = readHf(text);
  if (problem) {
    figures.textContent = '';
    note.textContent = 'The config.json is ' + problem + '. Nothing is sent until it is one JSON object.';
    note.classList.add('bad');
    hf.setAttribute('aria-invalid', 'true');
    return;
  }
  const layers = cfg.num_hidden_layers ?? cfg.n_layer ?? (cfg.text_config && cfg.text_config.num_hidden_layers);
  note.textContent = 'model_type ' + (cfg.model_type || (cfg.text_config && cfg.text_config.model_type) || '(none given)') +
    (layers !== undefined ? ', ' + layers + ' layers' : '') + ': sent as {"hf_config": …} in place of the catalog id.';
  figures.textContent = 'From the pasted config.json; the figures computed from it come with the answer.';
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
  const hf = $('in-' + inp.name + '-hf');
  if (hf && hf.value.trim()) return; // a pasted config.json takes the id's place (checkHf)
  figures.textContent = parts.join('\n');
}

export function renderForm(solver, values) {
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
    const over = isRecord(inp) ? values[inp.name + '.override'] : undefined;
    const hf = isModel(inp) ? values[inp.name + '.hf'] : undefined;
    if (!c || !(inp.name in values || over || hf)) continue;
    if (inp.name in values) {
      if (inp.type === 'boolean') c.checked = values[inp.name] === 'true';
      else {
        // a choice this daemon does not list is kept, so the request carries it and the API names the problem
        if (inp.type === 'enum' && ![...c.options].some((o) => o.value === values[inp.name])) c.append(el('option', {value: values[inp.name], text: values[inp.name]}));
        c.value = values[inp.name];
      }
    }
    if (over) {
      const o = $('in-' + inp.name + '-override');
      o.value = over;
      o.closest('details').open = true;
    }
    if (hf) {
      const h = $('in-' + inp.name + '-hf');
      h.value = prettyHf(hf);
      h.closest('details').open = true;
      h.dispatchEvent(new Event('input'));
    }
    if (isRecord(inp)) c.dispatchEvent(new Event('input'));
  }
}

/* What the form holds, as text per input (for the URL) - only what differs from the default. */
export function formValues() {
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
    if (isModel(inp)) {
      const h = $('in-' + inp.name + '-hf').value.trim();
      if (h) v[inp.name + '.hf'] = compactHf(h);
    }
  }
  return v;
}

/* A pasted config.json as the URL keeps it: without its whitespace (a text that is not
 * JSON as it is); and back as the textarea shows it, two spaces an indent. */
const compactHf = (text) => { try { return JSON.stringify(JSON.parse(text)); } catch (e) { return text; } };
const prettyHf = (text) => { try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; } };

export const asNumber = (s) => (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s) ? Number(s) : s);

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
export function buildRequest() {
  const vals = formValues();
  const inputs = {};
  const axes = [];
  for (const inp of state.solver.inputs) {
    if (isModel(inp) && vals[inp.name + '.hf']) { // a pasted config.json, in place of the catalog id
      const {cfg, problem} = readHf(vals[inp.name + '.hf']);
      if (problem) throw fieldError(inp.name + '.hf_config', 'the config.json pasted for ' + inp.name + ' is ' + problem);
      const over = vals[inp.name + '.override'];
      inputs[inp.name] = Object.assign({hf_config: cfg}, over ? parseOverride(inp, over) : {});
      continue;
    }
    if (!(inp.name in vals)) {
      // an override without a catalog id is a whole inline entry
      if (isRecord(inp) && vals[inp.name + '.override']) inputs[inp.name] = parseOverride(inp, vals[inp.name + '.override']);
      continue;
    }
    const text = vals[inp.name];
    if (text === '' && inp.type !== 'boolean') continue;
    if (inp.type === 'list') { inputs[inp.name] = text.split(',').map((s) => s.trim()).filter(Boolean); continue; }
    if (inp.type === 'rows') {
      // a JSON array of rows (request_trace): never an axis
      try { inputs[inp.name] = JSON.parse(text); } catch (e) { throw fieldError(inp.name, inp.name + ' is not a JSON array of rows: ' + e.message); }
      continue;
    }
    const sweepable = inp.type !== 'boolean' && inp.type !== 'enum';
    const range = sweepable ? parseRange(inp, text) : null;
    if (range) { axes.push(range); continue; }
    const parts = sweepable ? text.split(',').map((s) => s.trim()).filter(Boolean) : [text];
    if (parts.length > 1) { axes.push({input: inp.name, values: parts.map((p) => parseValue(inp, p))}); continue; }
    let value = parseValue(inp, parts[0]);
    const over = vals[inp.name + '.override'];
    if (isRecord(inp) && over) value = Object.assign({base: value}, parseOverride(inp, over));
    inputs[inp.name] = value;
  }
  const body = envelope(state.solver.name, inputs);
  if (axes.length) body.axes = axes;
  return body;
}

function parseOverride(inp, text) {
  let fields;
  try { fields = JSON.parse(text); } catch (e) { throw fieldError(inp.name, 'the override of ' + inp.name + ' is not a JSON object: ' + e.message); }
  if (!fields || typeof fields !== 'object' || Array.isArray(fields)) throw fieldError(inp.name, 'the override of ' + inp.name + ' is not a JSON object');
  return fields;
}

function fieldError(name, detail) {
  const e = new Error(detail);
  e.problem = {detail, field: 'inputs.' + name};
  return e;
}

/* --- URL state ------------------------------------------------------------------------------ */

/* The page's state as a hash: solver, edition, calibration, the form's values (find.* in
 * the find mode), the roofline's accelerators to compare. */
export function stateToHash() {
  const p = new URLSearchParams();
  p.set('solver', state.solver.name);
  if (state.edition) p.set('catalog', state.edition);
  if (state.calibration) p.set('calibration', state.calibration);
  for (const [k, v] of Object.entries(formValues())) p.set(k, v);
  if (state.mode === 'find' && state.find) for (const [k, v] of Object.entries(state.find.findValues())) p.set(k, v);
  const cmp = $('compare').value.trim();
  if (cmp) p.set('compare', cmp);
  return '#' + p.toString();
}

/* A request ({solver, catalog, inputs}, as GET /validation gives them) as the
 * URL state that opens it in the form: each input as the text its field holds
 * (lists comma-separated), a record given inline as its catalog id ("base")
 * and the other fields as the override, or as the override alone. */
export function requestToHash(req, calibration) {
  const p = new URLSearchParams();
  p.set('solver', req.solver);
  if (req.catalog) p.set('catalog', req.catalog);
  if (calibration) p.set('calibration', calibration);
  for (const [k, v] of Object.entries(req.inputs || {})) {
    if (v === null || v === undefined) continue;
    if (Array.isArray(v)) p.set(k, v.join(','));
    else if (typeof v === 'object' && v.hf_config && typeof v.hf_config === 'object') {
      const {hf_config: cfg, ...rest} = v;
      p.set(k + '.hf', JSON.stringify(cfg));
      if (Object.keys(rest).length) p.set(k + '.override', JSON.stringify(rest));
    } else if (typeof v === 'object') {
      const {base, ...rest} = v;
      if (base === undefined) p.set(k + '.override', JSON.stringify(v));
      else {
        p.set(k, String(base));
        if (Object.keys(rest).length) p.set(k + '.override', JSON.stringify(rest));
      }
    } else p.set(k, String(v));
  }
  return '#' + p.toString();
}

export function hashToState() {
  const h = location.hash.replace(/^#/, '');
  return h ? Object.fromEntries(new URLSearchParams(h)) : null;
}
