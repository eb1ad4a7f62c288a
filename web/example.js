/* example.js - owns the requests the page's first render needs, sent as the
 * page starts: GET /solvers and GET /version, and on the default page (no
 * state in the URL's hash) the worked example's two requests, as the page
 * builds them from what the API describes (dashboard.js workedExample(): the
 * example in GET /solvers of the solver with the stage bars, pipeline, in the
 * first catalog edition, the calibration left to the daemon; charts.js
 * rooflineData(): the roofline solver's runs on its accelerator and the H100
 * it is compared with, one POST /batch).
 *
 * A classic script, the first index.html runs (a module would run only once
 * the document is parsed). Each answer is read as it arrives, while the
 * modules load, and kept in window.mlsysdEarly: api.js hands it to the page's
 * first request with that path and body (GET /solvers and /version take the
 * bytes index.html preloads). A page opened on a state in its hash sends no
 * solver request here. A request the page builds differently is sent as usual
 * and the early answer is left unused; the browser test checks that a first
 * visit sends each of these once. */
'use strict';
{
  const WORKED_EXAMPLE = [
    ['/solve', {solver: 'pipeline', catalog: 'current',
      inputs: {model: 'ResNet50', hardware: 'A100', batch_size: 512, sample_size_bytes: '500 KB', cpu_workers: 8}}],
    ['/batch', {items: ['A100', 'H100'].map((hardware) =>
      ({solver: 'single_node', catalog: 'current', inputs: {model: 'ResNet50', hardware, batch_size: 512}}))}],
  ];
  const requests = [['/solvers'], ['/version']];
  if (!location.hash.replace(/^#/, '')) requests.push(...WORKED_EXAMPLE);

  const key = (path, json) => path + ' ' + (json === undefined ? '' : json);
  const early = new Map(); // path and body (JSON, as sent) -> the promise of {ok, status, statusText, text}
  for (const [path, body] of requests) {
    const json = body === undefined ? undefined : JSON.stringify(body);
    const init = json === undefined ? {} : {method: 'POST', headers: {'Content-Type': 'application/json'}, body: json};
    const answer = fetch(path, init).then((r) => r.text().then((text) => ({ok: r.ok, status: r.status, statusText: r.statusText, text})));
    answer.catch(() => {}); // a failure is reported by the request that takes it
    early.set(key(path, json), answer);
  }

  /* The early answer to the request with this path and JSON body (undefined
   * for a GET), once (then forgotten); undefined when none was sent. */
  window.mlsysdEarly = (path, json) => {
    const answer = early.get(key(path, json));
    early.delete(key(path, json));
    return answer;
  };
}
