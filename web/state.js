/* state.js - owns the page's shared state: what the API described (solvers,
 * catalog editions), what the page shows (solver, edition, calibration, mode), what it
 * keeps (catalog lists, charts, the last sweep) and the promise of its first
 * render. Every module reads it; the module that owns a field writes it. */

export const state = {
  solvers: [],          // GET /solvers
  editions: [],         // GET /version catalog_editions
  edition: '',
  solver: null,         // the solver shown
  catalogs: new Map(),  // "edition/kind" -> list of entries (api.js)
  charts: {},           // name -> uPlot instance (charts.js)
  sweep: null,          // last sweep answer (answer.js)
  firstRender: null,    // resolves when the page's first answer is drawn (or its problem shown)
  mode: 'run',          // 'run' (solve or sweep) or 'find' (POST /optimize, find.js)
  calibration: '',      // 'mlsysim' or 'measured', sent with every request; '' until the URL or an answer names it
  find: null,           // the find.js module once loaded (dashboard.js loadFind())
};

/* Resolves state.firstRender; dashboard.js calls it once the worked example is drawn. */
export let firstRenderDone;
state.firstRender = new Promise((resolve) => { firstRenderDone = resolve; });
