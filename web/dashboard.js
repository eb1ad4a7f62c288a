/* dashboard.js - the page at "/" (index.html loads it as a module): owns
 * starting the page and what ties its parts together. It reads GET /solvers and
 * GET /version, fills the header (views, catalog edition, calibration mode) and
 * the solver list,
 * opens the state in the URL or the worked example, and runs a request
 * (run(): the form's request to POST /solve, /sweep when a field holds a list
 * or a range, or /optimize in the find mode). Everything is generated from
 * what the API describes.
 *
 * The modules, one idea each:
 *   dom.js      $ and el
 *   format.js   numbers, units, shell quoting
 *   state.js    the page's shared state
 *   api.js      the API client and the catalog lists
 *   form.js     the solver's form, its request, the URL's hash
 *   charts.js   the charts (uPlot), the roofline, the stage bars, the sweep chart
 *   answer.js   the answer panel
 *   catalog.js  the Catalog view (loaded when first opened)
 *   validation.js  the Validation view (loaded when first opened)
 *   find.js     the find mode (loaded when first chosen)
 * and example.js, a classic script index.html runs first: the requests the
 * first render needs, sent as the page starts.
 *
 * First render: the page opens on a worked example and draws it before anything
 * else. example.js, the first script index.html runs, asks for /solvers,
 * /version and, on the default page (no state in the hash), the worked
 * example's solve and the roofline solver's runs, and reads each answer as it
 * arrives, while the modules load; the requests the page then builds from
 * /solvers take those answers (api.js). uPlot (uPlot.iife.min.js) runs before
 * the modules (index.html). So once the modules have run, the solver list,
 * the form, the answer and its two charts are drawn in one go, waiting for
 * nothing; the catalog lists behind the pickers are fetched after the first
 * answer is drawn (state.firstRender), each kind once. The moment the worked
 * example is drawn is the performance mark "mlsysd:first-render"
 * (tests/browser/first_render.mjs measures it). */
import {$, el} from './dom.js';
import {state, firstRenderDone} from './state.js';
import {api, catalogList} from './api.js';
import {buildRequest, formValues, hashToState, renderForm, stateToHash} from './form.js';
import {drawSweep, drawsStages, rooflineData} from './charts.js';
import {clearAnswer, problemText, showCurl, showProblem, showSolve, showSweep} from './answer.js';

/* The worked example the page opens on: the seed's question ("Starving the GPU"),
 * the example (GET /solvers: "example") of the solver whose answers have the
 * stage bars, its accelerator compared with an H100 on the roofline; else the
 * first solver's example. Values as the form holds them: text. */
function workedExample() {
  const s = state.solvers.find(drawsStages) || state.solvers[0];
  const ex = {solver: s.name, compare: 'H100'};
  for (const [k, v] of Object.entries(s.example || {})) ex[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return ex;
}

/* find.js, the find mode: loaded once, when first needed (state.find). */
let findLoading = null;
function loadFind() {
  if (!findLoading) {
    findLoading = import('./find.js').then((m) => { state.find = m; return m; },
      () => { findLoading = null; throw new Error('the find mode (/ui/find.js) did not load'); });
  }
  return findLoading;
}

/* catalog.js, the Catalog view: loaded once, when the view is first opened. */
let catalogLoading = null;
function loadCatalog() {
  if (!catalogLoading) {
    catalogLoading = import('./catalog.js').catch(() => {
      catalogLoading = null;
      throw new Error('the catalog view (/ui/catalog.js) did not load');
    });
  }
  return catalogLoading;
}

/* --- the calibration mode ------------------------------------------------------------------- */

/* The header's switch (mlsysim / measured) shows state.calibration; every
 * request the page sends names it (api.js envelope()). It starts as the URL
 * names it; otherwise the first request leaves it out, so the deployment's
 * default applies, and the mode its answer names is taken (adoptCalibration)
 * and sent from then on. A daemon without calibration names none: the page
 * then sends none either. */
const CALIBRATIONS = ['mlsysim', 'measured'];

function showCalibration(mode) {
  for (const r of document.querySelectorAll('input[name="calibration"]')) r.checked = r.value === mode;
}

function adoptCalibration(ans) {
  const mode = ans && (ans.calibration || (ans.best && ans.best.answer && ans.best.answer.calibration));
  if (typeof mode !== 'string' || !CALIBRATIONS.includes(mode)) return;
  if (!state.calibration) state.calibration = mode;
  showCalibration(mode);
}

/* validation.js, the Validation view: loaded once, when the view is first opened. */
let validationLoading = null;
function loadValidation() {
  if (!validationLoading) {
    validationLoading = import('./validation.js').catch(() => {
      validationLoading = null;
      throw new Error('the validation view (/ui/validation.js) did not load');
    });
  }
  return validationLoading;
}

/* A problem in the Catalog or Validation view, shown in that view (the answer panel is in the Solve view). */
function showViewProblem(box, what) {
  return (e) => {
    $(box).textContent = '';
    $(box).append(el('p', {role: 'alert', class: 'view-problem', text: what + ': ' + problemText(e)}));
  };
}

/* --- views and modes ------------------------------------------------------------------------ */

const VIEWS = ['solve', 'catalog', 'validation'];

function showView(name) {
  for (const v of VIEWS) {
    $('view-' + v).hidden = name !== v;
    $('tab-' + v).setAttribute('aria-pressed', String(name === v));
  }
  if (name === 'catalog') loadCatalog().then((m) => m.showCatalog()).catch(showViewProblem('cat-table', 'the catalog'));
  if (name === 'validation') loadValidation().then((m) => m.showValidation()).catch(showViewProblem('val-status', 'GET /validation'));
}

/* A state from a link (a request of the Validation view, or the URL's hash
 * changed by hand or by going back): its edition, calibration, mode and
 * compare list taken, the Solve view shown on its solver and inputs, run. */
async function openState(values) {
  if (!values || !values.solver) return;
  if (CALIBRATIONS.includes(values.calibration)) state.calibration = values.calibration;
  showCalibration(state.calibration || 'mlsysim');
  if (values.catalog && state.editions.includes(values.catalog) && values.catalog !== state.edition) {
    state.edition = values.catalog;
    $('edition').value = state.edition;
    fillCompare();
    $('cat-kind').textContent = '';
  }
  $('compare').value = values.compare || '';
  if (values.mode === 'find') {
    try { await loadFind(); } catch (e) { showProblem(e); return; }
    applyMode('find');
  } else {
    applyMode('run');
  }
  showView('solve');
  await openSolver(values.solver, values, true);
  $('solver-title').scrollIntoView({block: 'start'});
}

async function run() {
  clearAnswer();
  let body;
  try { body = buildRequest(); } catch (e) { showProblem(e); return; }
  history.replaceState(null, '', stateToHash());
  $('share').href = stateToHash();
  if (state.mode === 'find') { adoptCalibration(await state.find.runFind(body)); return; }
  const sweep = Boolean(body.axes);
  const path = sweep ? '/sweep' : '/solve';
  showCurl(path, body);
  $('status').textContent = 'Running ' + state.solver.name + (sweep ? ' sweep' : '') + '…';
  // the roofline's runs go out with the solve, not after it
  const roof = sweep ? null : rooflineData(body);
  if (roof) roof.catch(() => {}); // its failure is reported where it is awaited
  try {
    const ans = await api(path, body);
    if (sweep) await showSweep(body, ans);
    else await showSolve(body, ans, roof);
    adoptCalibration(ans);
    const cal = ans.calibration ? ', calibration ' + ans.calibration : '';
    $('status').textContent = sweep ? ans.points + ' points' + (cal ? ' (' + cal.slice(2) + ')' : '') :
      'Solved (catalog ' + ans.catalog + ', version ' + ans.catalog_version + cal + ')';
  } catch (e) {
    $('status').textContent = '';
    showProblem(e);
  }
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
  if (state.mode === 'find') state.find.renderFind(s, values);
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
    state.find.renderFind(state.solver, {});
  } catch (e) {
    applyMode('run');
    showProblem(e);
  }
}

async function start() {
  const [solvers, version] = await Promise.all([api('/solvers'), api('/version')]);
  state.solvers = solvers.solvers;
  state.editions = (version.catalog_editions || []).map((e) => e.name);
  const initial = hashToState() || workedExample();
  state.edition = state.editions.includes(initial.catalog) ? initial.catalog : state.editions[0] || 'current';
  const ed = $('edition');
  for (const e of version.catalog_editions || []) ed.append(el('option', {value: e.name, title: e.description, text: e.name}));
  ed.value = state.edition;
  ed.addEventListener('change', () => {
    state.edition = ed.value;
    openSolver(state.solver.name, Object.assign(formValues(), state.mode === 'find' ? state.find.findValues() : {}), false);
    fillCompare();
    $('cat-kind').textContent = '';
    if (!$('view-catalog').hidden) showView('catalog');
  });
  if (CALIBRATIONS.includes(initial.calibration)) state.calibration = initial.calibration;
  showCalibration(state.calibration || 'mlsysim');
  for (const r of document.querySelectorAll('input[name="calibration"]')) {
    r.addEventListener('change', () => {
      if (!r.checked) return;
      state.calibration = r.value;
      if (state.solver) run();
    });
  }
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
  $('copy-plan').addEventListener('click', () => navigator.clipboard && navigator.clipboard.writeText($('plan').textContent));
  $('share').addEventListener('click', (ev) => { ev.preventDefault(); history.replaceState(null, '', stateToHash()); $('share').href = location.href; });
  $('tab-solve').addEventListener('click', () => showView('solve'));
  $('tab-catalog').addEventListener('click', () => showView('catalog'));
  $('tab-validation').addEventListener('click', () => showView('validation'));
  // links to a page state (data-state: the Validation view's requests) open it here; a new tab opens it by its URL
  document.addEventListener('click', (ev) => {
    const a = ev.target.closest && ev.target.closest('a[data-state]');
    if (!a || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    history.pushState(null, '', a.getAttribute('href'));
    openState(hashToState()).catch(showProblem);
  });
  window.addEventListener('hashchange', () => openState(hashToState()).catch(showProblem));
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
// a module runs once the document is parsed
start().catch(showProblem);
