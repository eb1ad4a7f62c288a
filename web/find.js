/* find.js - owns the dashboard's find mode: the best point of the form's
 * search space by an objective, among the points whose outputs meet
 * constraints (POST /optimize, docs/optimize.md). The space is the form's axes
 * as the sweep mode builds them (a list or a range in a field, catalog ids
 * included); this panel adds the constraints (an output, a comparison, a
 * bound in the output's unit or with its own; == / != for boolean and string
 * outputs), the objective (maximize or minimize a numeric input or output),
 * top_k and the method. The answer: the search's figures (points, evaluated,
 * feasible, method and why), the constraints at the best point and the ones
 * that bind, the best point with its full /solve answer, the runners-up.
 *
 * Loaded by dashboard.js (loadFind(), a dynamic import) the first time the
 * find mode is chosen, so a first visit neither fetches nor runs it. Exports
 * renderFind(), findValues() (the panel's state for the URL, keys "mode" and
 * "find.*") and runFind() (the answer, or null when there is none). */
import {$, el} from './dom.js';
import {fmtNum} from './format.js';
import {state} from './state.js';
import {api} from './api.js';
import {asNumber} from './form.js';
import {chartReady} from './charts.js';
import {listBlock, showCurl, showProblem, showSolve} from './answer.js';

const FIND_OPS = ['<=', '<', '>=', '>', '==', '!='];
const FIND_METHODS = ['auto', 'exhaustive', 'bisection'];
const FIND_TOP_K = 5; // the API's default
const isNumericType = (t) => t === 'number' || t === 'integer' || t === 'quantity';

/* "latency<=10 ms;feasible==true" (the URL's find.c) as [{output, op, value}]. */
function parseConstraints(text) {
  const out = [];
  for (const part of (text || '').split(';')) {
    const m = /^\s*([^<>=!\s]+)\s*(<=|>=|==|!=|<|>)\s*(.*?)\s*$/.exec(part);
    if (m) out.push({output: m[1], op: m[2], value: m[3]});
  }
  return out;
}

/* The value control of a constraint on output o: true/false for a boolean, text otherwise. */
function boundControl(o, value) {
  if (o.type === 'boolean') {
    const s = el('select', {class: 'c-value'}, el('option', {value: 'true', text: 'true'}), el('option', {value: 'false', text: 'false'}));
    s.value = value === 'false' ? 'false' : 'true';
    return s;
  }
  const c = el('input', {type: 'text', class: 'c-value', autocomplete: 'off',
    inputmode: isNumericType(o.type) ? 'decimal' : null,
    placeholder: isNumericType(o.type) ? (o.unit ? 'in ' + o.unit + ', or with a unit' : 'a number') : 'a value'});
  c.value = value || '';
  return c;
}

/* One constraint row: output (with its unit), comparison, bound, remove. */
function constraintRow(solver, c) {
  const li = el('li', {class: 'constraint'});
  const output = el('select', {class: 'c-output'});
  for (const o of solver.outputs) output.append(el('option', {value: o.name, title: o.description || '', text: o.name + (o.unit ? ' (' + o.unit + ')' : '')}));
  if (solver.outputs.some((o) => o.name === c.output)) output.value = c.output;
  const op = el('select', {class: 'c-op'});
  const unit = el('span', {class: 'unit'});
  const slot = el('span', {class: 'c-slot'});
  const remove = el('button', {type: 'button', class: 'c-remove', text: 'Remove'});
  /* the comparisons and the bound's control follow the output's type */
  const sync = (wantOp, value) => {
    const o = solver.outputs.find((x) => x.name === output.value);
    const ops = isNumericType(o.type) ? FIND_OPS : ['==', '!='];
    op.textContent = '';
    for (const x of ops) op.append(el('option', {value: x, text: x}));
    op.value = ops.includes(wantOp) ? wantOp : ops[0];
    slot.textContent = '';
    slot.append(boundControl(o, value));
    unit.textContent = isNumericType(o.type) && o.unit ? o.unit : '';
    labelRows(li.parentNode);
  };
  output.addEventListener('change', () => sync(op.value, ''));
  remove.addEventListener('click', () => {
    const list = li.parentNode;
    li.remove();
    labelRows(list);
    $('find-add').focus();
  });
  li.append(output, op, slot, unit, remove);
  sync(c.op || '<=', c.value);
  return li;
}

/* Each row's controls named for assistive technology: "constraint 2: output", ... */
function labelRows(list) {
  if (!list) return;
  [...list.children].forEach((li, i) => {
    const n = 'constraint ' + (i + 1) + ': ';
    li.querySelector('.c-output').setAttribute('aria-label', n + 'output');
    li.querySelector('.c-op').setAttribute('aria-label', n + 'comparison');
    li.querySelector('.c-value').setAttribute('aria-label', n + 'bound');
    li.querySelector('.c-remove').setAttribute('aria-label', 'remove constraint ' + (i + 1));
  });
}

/* The find panel for a solver; values: the URL's find.* keys (or none). */
export function renderFind(solver, values) {
  const panel = $('find-panel');
  panel.textContent = '';
  const list = el('ol', {id: 'find-constraints'});
  const add = el('button', {type: 'button', id: 'find-add', text: 'Add a constraint'});
  add.addEventListener('click', () => {
    list.append(constraintRow(solver, {}));
    labelRows(list);
    list.lastChild.querySelector('.c-output').focus();
  });
  for (const c of parseConstraints(values['find.c'])) list.append(constraintRow(solver, c));
  labelRows(list);

  const dir = el('select', {id: 'find-dir'}, el('option', {value: 'maximize', text: 'maximize'}), el('option', {value: 'minimize', text: 'minimize'}));
  const target = el('select', {id: 'find-target', 'aria-label': 'objective: what to maximize or minimize'});
  const inputs = solver.inputs.filter((i) => isNumericType(i.type));
  const outputs = solver.outputs.filter((o) => (o.type === 'number' || o.type === 'integer') && !inputs.some((i) => i.name === o.name));
  if (inputs.length) target.append(el('optgroup', {label: 'an input (an axis)'}, ...inputs.map((i) => el('option', {value: i.name, text: i.name + (i.unit ? ' (' + i.unit + ')' : '')}))));
  if (outputs.length) target.append(el('optgroup', {label: 'an output'}, ...outputs.map((o) => el('option', {value: o.name, text: o.name + (o.unit ? ' (' + o.unit + ')' : '')}))));
  const [wantDir, wantTarget] = (values['find.obj'] || '').split(' ');
  if (wantDir === 'minimize') dir.value = 'minimize';
  if ([...target.options].some((o) => o.value === wantTarget)) target.value = wantTarget;

  const k = el('input', {id: 'find-k', type: 'number', min: 1, max: 100, step: 1, inputmode: 'numeric'});
  k.value = values['find.k'] || String(FIND_TOP_K);
  const method = el('select', {id: 'find-method'}, ...FIND_METHODS.map((m) => el('option', {value: m, text: m})));
  if (FIND_METHODS.includes(values['find.method'])) method.value = values['find.method'];

  panel.append(
    el('fieldset', {class: 'find-group'}, el('legend', {text: 'Constraints on outputs (every one must hold)'}), list, add),
    el('div', {class: 'find-row'},
      el('label', {for: 'find-dir', text: 'Objective'}), dir, target,
      el('label', {for: 'find-k', text: 'Top'}), k,
      el('label', {for: 'find-method', text: 'Method'}), method),
    el('p', {class: 'hint', text: 'The search space is the fields holding a list or a range. Method auto bisects when ' +
      'the space is one axis, the objective is that axis and every constraint is on record as monotone along it; ' +
      'otherwise it evaluates every point.'}));
}

/* The panel's state for the URL. */
export function findValues() {
  const v = {mode: 'find'};
  const c = [...document.querySelectorAll('#find-constraints li')].map((li) =>
    li.querySelector('.c-output').value + li.querySelector('.c-op').value + li.querySelector('.c-value').value.trim());
  if (c.length) v['find.c'] = c.join(';');
  v['find.obj'] = $('find-dir').value + ' ' + $('find-target').value;
  v['find.k'] = $('find-k').value.trim();
  if ($('find-method').value !== 'auto') v['find.method'] = $('find-method').value;
  return v;
}

function findError(field, detail) {
  const e = new Error(detail);
  e.problem = {detail, field};
  return e;
}

/* The /optimize body: the form's request (solver, catalog, inputs, axes) and the panel. */
function findRequest(base) {
  if (!base.axes) throw findError('axes', 'Find searches the form\'s axes: give a field a list (1,32,256) or a range (1..4096)');
  const constraints = [...document.querySelectorAll('#find-constraints li')].map((li, i) => {
    const o = state.solver.outputs.find((x) => x.name === li.querySelector('.c-output').value);
    const text = li.querySelector('.c-value').value.trim();
    if (text === '') throw findError('constraints[' + i + ']', 'constraint ' + (i + 1) + ' on ' + o.name + ' needs a bound');
    const bound = o.type === 'boolean' ? text === 'true' : isNumericType(o.type) ? asNumber(text) : text;
    return {output: o.name, [li.querySelector('.c-op').value]: bound};
  });
  const body = Object.assign({}, base, {constraints, objective: {[$('find-dir').value]: $('find-target').value}});
  const k = $('find-k').value.trim();
  body.top_k = /^\d+$/.test(k) ? Number(k) : k; // the API names a bad one
  if ($('find-method').value !== 'auto') body.method = $('find-method').value;
  return body;
}

/* A problem as the page shows it, the panel's control it names marked. */
function showFindProblem(e) {
  showProblem(e);
  const f = (e.problem && e.problem.field) || '';
  const m = /^constraints\[(\d+)\]/.exec(f);
  const row = m ? document.querySelectorAll('#find-constraints li')[Number(m[1])] : null;
  const c = row ? row.querySelector(/\.output$/.test(f) ? '.c-output' : '.c-value') :
    f.startsWith('objective') ? $('find-target') : f === 'top_k' ? $('find-k') : f === 'method' ? $('find-method') : null;
  if (c) {
    c.setAttribute('aria-invalid', 'true');
    c.focus();
  }
}

const show = (v) => (v === null || v === undefined ? '—' : typeof v === 'number' ? fmtNum(v) : typeof v === 'object' ? JSON.stringify(v) : String(v));
const cell = (v, attrs) => el('td', Object.assign({class: 'value', 'data-value': JSON.stringify(v), text: show(v)}, attrs || {}));
const pointText = (p) => Object.entries(p || {}).map(([k, v]) => k + '=' + show(v)).join(', ');

/* The search's figures, the constraints at the best point (those that bind
 * marked), the best point, the runners-up; then the best point's full answer. */
async function showFind(body, ans) {
  const box = $('result');
  const best = ans.best;
  const objDir = 'maximize' in ans.objective ? 'maximize' : 'minimize';
  const objName = ans.objective[objDir];
  const objUnit = ans.objective.unit ? ' ' + ans.objective.unit : '';
  const binds = (best && best.binding) || [];
  const dl = el('dl', {id: 'find-summary'});
  const item = (key, label, value) => dl.append(el('dt', {text: label}), el('dd', {'data-key': key, text: value}));
  item('method', 'method', ans.method + ' (' + ans.method_reason + ')');
  item('points', 'points in the space', String(ans.points));
  item('evaluated', 'points evaluated', String(ans.evaluated));
  item('feasible', 'points meeting the constraints', String(ans.feasible));
  if (ans.failed) item('failed', 'points whose inputs failed', String(ans.failed));
  item('objective', 'objective', objDir + ' ' + objName + (objUnit ? ' [' + objUnit.trim() + ']' : ''));
  if (best) {
    item('binding', 'binding at the optimum', binds.length ? binds.map((b) => b.output + ' ' + b.op + ' ' + show(b.bound) +
      (b.unit ? ' ' + b.unit : '') + (b.value_next !== undefined ? ' (' + show(b.value_next) + (b.unit ? ' ' + b.unit : '') + ' at ' +
      pointText(best.next_point) + ')' : '')).join('; ') : 'none');
    if (best.binding_reason) dl.append(el('dd', {class: 'sub', text: best.binding_reason}));
  }
  box.append(dl);
  if (ans.error) box.append(listBlock('The search', [ans.error], 'warnings'));
  if (!best) {
    box.append(el('p', {id: 'find-none', text: 'No point of the space meets every constraint.'}));
    return;
  }

  const inUnits = best.answer.input_units || {};
  const pt = el('tbody');
  for (const [k, v] of Object.entries(best.point)) {
    pt.append(el('tr', {'data-input': k}, el('th', {scope: 'row', text: k}), cell(v), el('td', {class: 'unit', text: inUnits[k] || ''})));
  }
  if (!(objName in best.point)) {
    pt.append(el('tr', {'data-objective': objName}, el('th', {scope: 'row', text: objDir + ' ' + objName}), cell(best.objective), el('td', {class: 'unit', text: objUnit.trim()})));
  }
  box.append(el('div', {class: 'scroll'}, el('table', {id: 'find-point'}, el('caption', {class: 'sub', text: 'Best point'}),
    el('thead', {}, el('tr', {}, el('th', {text: 'input'}), el('th', {text: 'value'}), el('th', {text: 'unit'}))), pt)));

  if ((best.constraints || []).length) {
    const bound = new Set(binds.map((b) => b.output + b.op));
    box.append(el('div', {class: 'scroll'}, el('table', {id: 'find-at-best'}, el('caption', {class: 'sub', text: 'Constraints at the best point'}),
      el('thead', {}, el('tr', {}, ...['output', 'value', 'bound', 'unit', 'binds'].map((h) => el('th', {scope: 'col', text: h})))),
      el('tbody', {}, ...best.constraints.map((c) => el('tr', {'data-output': c.output, class: bound.has(c.output + c.op) ? 'binds' : null},
        el('th', {scope: 'row', text: c.output}), cell(c.value), el('td', {text: c.op + ' ' + show(c.bound)}),
        el('td', {class: 'unit', text: c.unit || ''}), el('td', {text: bound.has(c.output + c.op) ? 'binds' : ''})))))));
  }

  const axes = Object.keys(best.point);
  const objCol = !axes.includes(objName); // an axis objective is already a column
  const outs = [...new Set((body.constraints || []).map((c) => c.output))].filter((o) => o !== objName);
  const units = best.answer.units || {};
  const runners = ans.runners_up;
  const head = el('tr', {}, el('th', {scope: 'col', text: 'rank'}), ...axes.map((a) => el('th', {scope: 'col', text: a + (inUnits[a] ? ' [' + inUnits[a] + ']' : '')})),
    objCol ? el('th', {scope: 'col', text: objName + objUnit.replace(/^ (.+)$/, ' [$1]')}) : null,
    ...outs.map((o) => el('th', {scope: 'col', text: o + (units[o] ? ' [' + units[o] + ']' : '')})));
  const row = (r) => el('tr', {'data-rank': String(r.rank)}, cell(r.rank), ...axes.map((a) => cell(r.point[a])), objCol ? cell(r.objective) : null,
    ...outs.map((o) => cell(r.answer.result[o])));
  box.append(el('div', {class: 'scroll'}, el('table', {id: 'find-runners'},
    el('caption', {class: 'sub', text: runners.length ? 'The best and ' + runners.length + ' runner' + (runners.length > 1 ? 's' : '') + '-up' : 'No runner-up'}),
    el('thead', {}, head), el('tbody', {}, ...[best, ...runners].map(row)))));

  box.append(el('h3', {text: 'The best point\'s full answer'}));
  await showSolve(body, best.answer, null);
}

export async function runFind(base) {
  let body;
  try { body = findRequest(base); } catch (e) { showFindProblem(e); return null; }
  showCurl('/optimize', body);
  $('status').textContent = 'Searching ' + state.solver.name + '…';
  chartReady().catch(() => {}); // the best point's pictures; a failure is reported where it is awaited
  try {
    const ans = await api('/optimize', body);
    await showFind(body, ans);
    return ans;
    $('status').textContent = ans.best ? 'Found: ' + pointText(ans.best.point) + ' (' + ans.evaluated + ' of ' + ans.points + ' points evaluated, ' +
      ans.method + ')' : 'Nothing qualifies (' + ans.evaluated + ' of ' + ans.points + ' points evaluated)';
  } catch (e) {
    $('status').textContent = '';
    showFindProblem(e);
  }
  return null;
}
