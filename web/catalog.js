/* catalog.js - owns the Catalog view: the entries of one kind of the current
 * edition (GET /catalog, /catalog/{kind}) as a table sortable by any column
 * and filtered by name or group, and two or three ticked entries side by
 * side. Loaded by dashboard.js the first time the view is opened; the view's
 * controls (kind, filter) are wired here, when it loads. */
import {$, el} from './dom.js';
import {fmtUnit} from './format.js';
import {catalogKinds, catalogList, findEntry} from './api.js';

const catView = {kind: '', sort: 'key', dir: 1, picked: []};

export async function showCatalog() {
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

/* The view's controls; once, when the module is first loaded. */
$('cat-kind').addEventListener('change', () => { catView.picked = []; catView.sort = 'key'; showCatalog(); });
$('cat-filter').addEventListener('input', () => showCatalog());
