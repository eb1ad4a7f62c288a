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
 * Two to four objectives make the request's "objectives" instead: the answer
 * is the Pareto front (showPareto): its points in a table with their
 * objective values and units, for two objectives a scatter of the front
 * (objective 1 across, objective 2 up), and the full answer of the point
 * picked in either.
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
import {chartReady, COLORS, logWorthy, plot, setPoints} from './charts.js';
import {listBlock, showCurl, showProblem, showSolve} from './answer.js';

const FIND_OPS = ['<=', '<', '>=', '>', '==', '!='];
const FIND_METHODS = ['auto', 'exhaustive', 'bisection'];
const FIND_TOP_K = 5; // the API's default
const FIND_MAX_OBJECTIVES = 4; // the API's maxItems for objectives
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

  const objList = el('ol', {id: 'find-objectives'});
  const addObj = el('button', {type: 'button', id: 'find-add-objective', text: 'Add an objective'});
  const wanted = (values['find.obj'] || '').split(';').map((o) => o.trim().split(' ')).filter((o) => o[0]);
  (wanted.length ? wanted.slice(0, FIND_MAX_OBJECTIVES) : [[]]).forEach(([wantDir, wantTarget], i) =>
    objList.append(objectiveRow(solver, i === 0, wantDir, wantTarget)));

  const k = el('input', {id: 'find-k', type: 'number', min: 1, max: 100, step: 1, inputmode: 'numeric'});
  k.value = values['find.k'] || String(FIND_TOP_K);
  const method = el('select', {id: 'find-method'}, ...FIND_METHODS.map((m) => el('option', {value: m, text: m})));
  if (FIND_METHODS.includes(values['find.method'])) method.value = values['find.method'];
  const multiHint = el('p', {class: 'hint', id: 'find-multi-hint', text: 'Several objectives: the answer is the Pareto front, the feasible ' +
    'points no other point beats in every objective, searched exhaustively; Top and Method apply to one objective.'});

  addObj.addEventListener('click', () => {
    objList.append(objectiveRow(solver, false, 'minimize'));
    syncObjectives();
    objList.lastChild.querySelector('.o-target').focus();
  });
  panel.append(
    el('fieldset', {class: 'find-group'}, el('legend', {text: 'Constraints on outputs (every one must hold)'}), list, add),
    el('fieldset', {class: 'find-group', id: 'find-objectives-group'},
      el('legend', {text: 'Objective (add a second, up to four, for their Pareto front)'}), objList, addObj),
    el('div', {class: 'find-row'},
      el('label', {for: 'find-k', text: 'Top'}), k,
      el('label', {for: 'find-method', text: 'Method'}), method),
    multiHint,
    el('p', {class: 'hint', text: 'The search space is the fields holding a list or a range. Method auto bisects when ' +
      'the space is one axis, the objective is that axis and every constraint is on record as monotone along it; ' +
      'otherwise it evaluates every point.'}));
  syncObjectives();
}

/* One objective row: maximize or minimize, a numeric input (an axis) or output; the first
 * row's controls are #find-dir and #find-target, the others can be removed. */
function objectiveRow(solver, first, wantDir, wantTarget) {
  const li = el('li', {class: 'objective'});
  const dir = el('select', {class: 'o-dir'}, el('option', {value: 'maximize', text: 'maximize'}), el('option', {value: 'minimize', text: 'minimize'}));
  const target = el('select', {class: 'o-target'});
  const inputs = solver.inputs.filter((i) => isNumericType(i.type));
  const outputs = solver.outputs.filter((o) => (o.type === 'number' || o.type === 'integer') && !inputs.some((i) => i.name === o.name));
  if (inputs.length) target.append(el('optgroup', {label: 'an input (an axis)'}, ...inputs.map((i) => el('option', {value: i.name, text: i.name + (i.unit ? ' (' + i.unit + ')' : '')}))));
  if (outputs.length) target.append(el('optgroup', {label: 'an output'}, ...outputs.map((o) => el('option', {value: o.name, text: o.name + (o.unit ? ' (' + o.unit + ')' : '')}))));
  if (wantDir === 'minimize') dir.value = 'minimize';
  if ([...target.options].some((o) => o.value === wantTarget)) target.value = wantTarget;
  else if (!first && outputs.length) target.value = outputs[0].name; // an added objective starts on an output
  li.append(dir, target);
  if (!first) {
    const remove = el('button', {type: 'button', class: 'o-remove', text: 'Remove'});
    remove.addEventListener('click', () => {
      li.remove();
      syncObjectives();
      $('find-add-objective').focus();
    });
    li.append(remove);
  }
  return li;
}

/* After objectives are added or removed: the first row's ids, every row's labels, the add
 * button up to four, Top and Method (one objective only) enabled or not. */
function syncObjectives() {
  const rows = [...document.querySelectorAll('#find-objectives li')];
  const several = rows.length > 1;
  rows.forEach((li, i) => {
    const n = several ? 'objective ' + (i + 1) + ': ' : 'objective: ';
    const dir = li.querySelector('.o-dir');
    const target = li.querySelector('.o-target');
    dir.id = i === 0 ? 'find-dir' : '';
    target.id = i === 0 ? 'find-target' : '';
    if (!dir.id) dir.removeAttribute('id');
    if (!target.id) target.removeAttribute('id');
    dir.setAttribute('aria-label', n + 'maximize or minimize');
    target.setAttribute('aria-label', n + 'what to maximize or minimize');
    const rm = li.querySelector('.o-remove');
    if (rm) rm.setAttribute('aria-label', 'remove objective ' + (i + 1));
  });
  $('find-add-objective').hidden = rows.length >= FIND_MAX_OBJECTIVES;
  $('find-k').disabled = several;
  $('find-method').disabled = several;
  $('find-multi-hint').hidden = !several;
}

/* The objective rows as [{dir, name}]. */
const objectiveRows = () => [...document.querySelectorAll('#find-objectives li')].map((li) =>
  ({dir: li.querySelector('.o-dir').value, name: li.querySelector('.o-target').value}));

/* The panel's state for the URL. */
export function findValues() {
  const v = {mode: 'find'};
  const c = [...document.querySelectorAll('#find-constraints li')].map((li) =>
    li.querySelector('.c-output').value + li.querySelector('.c-op').value + li.querySelector('.c-value').value.trim());
  if (c.length) v['find.c'] = c.join(';');
  v['find.obj'] = objectiveRows().map((o) => o.dir + ' ' + o.name).join(';');
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
  const objs = objectiveRows();
  if (objs.length > 1) { // a Pareto front: searched exhaustively, no ranks
    return Object.assign({}, base, {constraints, objectives: objs.map((o) => ({[o.dir]: o.name}))});
  }
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
  const mo = /^objectives\[(\d+)\]/.exec(f);
  const orow = mo ? document.querySelectorAll('#find-objectives li')[Number(mo[1])] : null;
  const c = row ? row.querySelector(/\.output$/.test(f) ? '.c-output' : '.c-value') : orow ? orow.querySelector('.o-target') :
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

/* --- several objectives: the Pareto front ------------------------------------------------------ */

const objOf = (o) => {
  const dir = 'maximize' in o ? 'maximize' : 'minimize';
  return {dir, name: o[dir], unit: o.unit || ''};
};
const withUnit = (name, unit) => name + (unit ? ' (' + unit + ')' : '');

/* The search's figures, the front (a scatter of it for two objectives, a table of its
 * points with their objective values), then the full answer of the point picked (the
 * first one until another is picked in the table or on the chart). */
async function showPareto(body, ans) {
  const box = $('result');
  const objs = (ans.objectives || []).map(objOf);
  const front = ans.pareto || [];
  const dl = el('dl', {id: 'find-summary'});
  const item = (key, label, value) => dl.append(el('dt', {text: label}), el('dd', {'data-key': key, text: value}));
  item('method', 'method', ans.method + ' (' + ans.method_reason + ')');
  item('points', 'points in the space', String(ans.points));
  item('evaluated', 'points evaluated', String(ans.evaluated));
  item('feasible', 'points meeting the constraints', String(ans.feasible));
  if (ans.failed) item('failed', 'points whose inputs failed', String(ans.failed));
  item('objectives', 'objectives', objs.map((o) => o.dir + ' ' + o.name + (o.unit ? ' [' + o.unit + ']' : '')).join('; '));
  item('front', 'Pareto front', front.length + ' point' + (front.length === 1 ? '' : 's') + ' no other feasible point beats in every objective');
  if (ans.pareto_cut) dl.append(el('dd', {class: 'sub', 'data-key': 'pareto_cut', text: ans.pareto_cut}));
  box.append(dl);
  if (ans.error) box.append(listBlock('The search', [ans.error], 'warnings'));
  if (!front.length) {
    box.append(el('p', {id: 'find-none', text: 'No point of the space meets every constraint.'}));
    return;
  }

  const first = front.find((p) => p.answer) || front[0];
  const inUnits = (first.answer && first.answer.input_units) || {};
  const axes = Object.keys(first.point);
  const objCols = objs.filter((o) => !axes.includes(o.name)); // an axis objective is already a column
  const dirOf = Object.fromEntries(objs.map((o) => [o.name, o.dir]));
  const head = el('tr', {}, el('th', {scope: 'col', text: '#'}),
    ...axes.map((a) => el('th', {scope: 'col', text: a + (inUnits[a] ? ' [' + inUnits[a] + ']' : '') + (dirOf[a] ? ' (' + dirOf[a] + ')' : '')})),
    ...objCols.map((o) => el('th', {scope: 'col', text: o.name + (o.unit ? ' [' + o.unit + ']' : '') + ' (' + o.dir + ')'})),
    el('th', {scope: 'col', text: 'answer'}));
  const rows = front.map((p, i) => el('tr', {'data-index': String(i)}, cell(i + 1),
    ...axes.map((a) => cell(p.point[a])), ...objCols.map((o) => cell(p.objectives[o.name])),
    el('td', {}, el('button', {type: 'button', class: 'open-point', disabled: p.answer ? null : true,
      'aria-label': 'the answer at ' + pointText(p.point), text: 'Show'}))));
  const table = el('table', {id: 'find-pareto'},
    el('caption', {class: 'sub', text: 'The Pareto front, ordered by ' + objs[0].name + ', best first; "Show" opens a point\'s full answer'}),
    el('thead', {}, head), el('tbody', {}, ...rows));

  let pick = () => {};
  if (objs.length === 2) {
    const fig = el('figure', {id: 'fig-pareto'},
      el('figcaption', {}, 'Pareto front ', el('span', {class: 'sub', text: '(' + objs[1].name + ' against ' + objs[0].name +
        '; a point opens its answer)'})),
      el('div', {class: 'chart', id: 'chart-pareto', role: 'img'}),
      el('p', {id: 'pareto-notes', class: 'notes'}));
    box.append(fig);
    pick = await drawPareto(front, objs, (i) => open(i));
  }
  box.append(el('div', {class: 'scroll'}, table));
  const answerBox = el('section', {id: 'find-pareto-answer', 'aria-live': 'polite'});
  box.append(answerBox);

  /* the full answer of front point i, its row and its chart point marked */
  async function open(i) {
    const p = front[i];
    if (!p || !p.answer) return;
    for (const r of rows) r.classList.toggle('picked', r === rows[i]);
    rows.forEach((r) => r.querySelector('.open-point').setAttribute('aria-pressed', String(r === rows[i])));
    pick(i);
    answerBox.textContent = '';
    answerBox.dataset.index = String(i);
    answerBox.append(el('h3', {text: 'The full answer at point ' + (i + 1) + ': ' + pointText(p.point)}));
    await showSolve(body, p.answer, null, answerBox);
  }
  rows.forEach((r, i) => r.querySelector('.open-point').addEventListener('click', () => open(i)));
  await open(Math.max(0, front.indexOf(first)));
}

/* A front point's axis values, short, as its tag on the chart: "MI300X, tp=8". */
const pointTag = (p) => Object.entries(p || {}).map(([k, v]) => (typeof v === 'string' ? v : k + '=' + show(v))).join(', ');
const PARETO_TAGS = 12; // beyond this many points the tags would crowd: the tooltip and the table name them

/* A uPlot draw hook writing each front point's tag beside it: right of the
 * point, or left of it near the plot's right edge. */
const drawTags = (front) => (u) => {
  const ctx = u.ctx;
  const right = u.bbox.left + u.bbox.width;
  ctx.save();
  ctx.font = 12 * devicePixelRatio + 'px system-ui, sans-serif';
  ctx.fillStyle = '#1b1f24';
  ctx.textBaseline = 'bottom';
  const gap = 8 * devicePixelRatio;
  for (const p of front) {
    const x = u.valToPos(p.x, 'x', true), y = u.valToPos(p.y, 'y', true);
    const left = x + gap + ctx.measureText(p.tag).width > right;
    ctx.textAlign = left ? 'right' : 'left';
    ctx.fillText(p.tag, left ? x - gap : x + gap, y - 4 * devicePixelRatio);
  }
  ctx.restore();
};

/* The front of two objectives: objective 1 across, objective 2 up, each point by its axis
 * values; a click on a point calls onPick(i). Returns pick(i), which marks point i. */
async function drawPareto(front, objs, onPick) {
  await chartReady();
  const [ox, oy] = objs;
  const data = front.map((p, i) => ({x: p.objectives[ox.name], y: p.objectives[oy.name], i, label: pointText(p.point), tag: pointTag(p.point)}));
  const xs = data.map((d) => d.x);
  const ys = data.map((d) => d.y);
  const title = (o) => withUnit(o.name, o.unit) + ', ' + (o.dir === 'minimize' ? 'lower' : 'higher') + ' is better';
  plot('pareto', {legend: false,
    datasets: [
      {label: 'Pareto front', role: 'front', data, color: COLORS[0], line: {width: 1, dash: [4, 3]}, marker: {shape: 'circle', size: 6}},
      {label: 'shown below', role: 'picked', data: [], color: '#f0a400', marker: {shape: 'circle', size: 11, width: 3, fill: 'rgba(240,164,0,0.15)'}, hover: false}],
    // linear axes get room around the points for their tags
    x: {log: logWorthy(xs), pad: 0.08, title: title(ox)},
    y: {log: logWorthy(ys), pad: 0.1, title: title(oy)},
    draw: front.length <= PARETO_TAGS ? drawTags(data) : null,
    tip: (ds, p) => (p.label || '') + ': ' + ox.name + ' ' + fmtNum(p.x) + (ox.unit ? ' ' + ox.unit : '') +
      ', ' + oy.name + ' ' + fmtNum(p.y) + (oy.unit ? ' ' + oy.unit : ''),
    pick: (ds, p) => onPick(p.i)});
  const notes = front.length + ' point' + (front.length === 1 ? '' : 's') + ' on the front: ' +
    data.map((d) => d.label + ' (' + fmtNum(d.x) + (ox.unit ? ' ' + ox.unit : '') + ', ' + fmtNum(d.y) + (oy.unit ? ' ' + oy.unit : '') + ')').join('; ') + '.';
  $('pareto-notes').textContent = notes;
  $('chart-pareto').setAttribute('aria-label', 'Pareto front: ' + title(oy) + ' against ' + title(ox) + '. ' + notes + ' The table below lists every point.');
  return (i) => setPoints('pareto', 'picked', [{x: data[i].x, y: data[i].y, i, label: data[i].label}]);
}

export async function runFind(base) {
  let body;
  try { body = findRequest(base); } catch (e) { showFindProblem(e); return null; }
  showCurl('/optimize', body);
  $('status').textContent = 'Searching ' + state.solver.name + '…';
  try {
    const ans = await api('/optimize', body);
    if (Array.isArray(ans.pareto)) {
      await showPareto(body, ans);
      $('status').textContent = 'Pareto front: ' + ans.pareto.length + ' point' + (ans.pareto.length === 1 ? '' : 's') + ' (' + ans.feasible +
        ' of ' + ans.points + ' points meet the constraints)';
      return ans;
    }
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
