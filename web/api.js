/* api.js - owns the page's conversation with the daemon: api(path, body)
 * (GET, or POST of a JSON body; a problem answer becomes an Error carrying
 * it as .problem; until the first render, a request that example.js sent as
 * the page started takes that answer instead of asking again), a solver
 * request's envelope (envelope: solver, edition, calibration, inputs), the
 * catalog lists behind the pickers (catalogList, one request per kind and
 * edition, made after the first render), the catalog's kinds, and finding an
 * entry in a list by key or id. */
import {state} from './state.js';

/* Answers example.js asked for as the page started are taken until the first render. */
let beforeFirstRender = true;
state.firstRender.then(() => { beforeFirstRender = false; });

/* A request's answer as api() reads it: {ok, status, statusText, text}. */
async function send(path, json) {
  const r = await fetch(path, json === undefined ? {} :
    {method: 'POST', headers: {'Content-Type': 'application/json'}, body: json});
  return {ok: r.ok, status: r.status, statusText: r.statusText, text: await r.text()};
}

export async function api(path, body) {
  const json = body === undefined ? undefined : JSON.stringify(body);
  const early = beforeFirstRender && window.mlsysdEarly ? window.mlsysdEarly(path, json) : undefined;
  const r = await (early || send(path, json));
  let data;
  try { data = JSON.parse(r.text); } catch (e) { data = r.text; }
  if (!r.ok) {
    const err = new Error(data && data.detail ? data.detail : r.status + ' ' + r.statusText);
    err.problem = data;
    throw err;
  }
  return data;
}

/* A solver request's envelope: the solver, the catalog edition, the
 * calibration mode (once known: from the URL, the switch, or the mode the
 * daemon's first answer names; before that the daemon's default applies and
 * the request leaves it out) and the inputs. Every request the page sends to
 * a solver starts here. */
export function envelope(solver, inputs) {
  const body = {solver, catalog: state.edition};
  if (state.calibration) body.calibration = state.calibration;
  body.inputs = inputs;
  return body;
}

/* The entries of one catalog kind in the current edition: one request per kind
 * and edition (concurrent callers share it; a failed one is asked again), made
 * once the first answer is drawn. */
export function catalogList(kind) {
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
export async function catalogKinds() {
  const data = await api('/catalog?catalog=' + encodeURIComponent(state.edition));
  return Object.keys(data).filter((k) => Array.isArray(data[k]));
}

export const findEntry = (list, id) => {
  const low = String(id).toLowerCase();
  return list.find((e) => String(e.key).toLowerCase() === low || String(e.id).toLowerCase() === low);
};
