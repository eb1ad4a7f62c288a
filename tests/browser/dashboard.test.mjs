// dashboard.test.mjs - the dashboard at "/" in a real browser: Debian's
// chromium driven by puppeteer-core, under node's test runner. Starts its own
// daemon (MLSYSD_BINARY, default build/mlsysd) on a free port. Every number
// the page shows is compared with what the API answers for the same request.
// Screenshots go to tests/browser/artifacts/. Run by tests/browser/run.sh.
import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {execFileSync, spawn} from 'node:child_process';
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import puppeteer from 'puppeteer-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const binary = process.env.MLSYSD_BINARY || path.join(here, '../../build/mlsysd');
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const artifacts = path.join(here, 'artifacts');
mkdirSync(artifacts, {recursive: true});

let daemon, base, browser, page;
const consoleErrors = [];
const foreign = [];
const failed = []; // responses with an error status: "METHOD path status"

async function startDaemon(args = []) {
  const p = spawn(binary, ['--port', '0', '--drain-delay', '0', ...args], {stdio: ['ignore', 'pipe', 'inherit']});
  const port = await new Promise((resolve, reject) => {
    let buf = '';
    p.on('error', reject);
    p.on('exit', (code) => reject(new Error('daemon exited with ' + code)));
    p.stdout.on('data', (d) => {
      buf += d;
      const line = buf.split('\n').find((l) => l.includes('"listening"'));
      if (line) resolve(JSON.parse(line).port);
    });
  });
  p.stdout.resume();
  return {p, url: 'http://127.0.0.1:' + port};
}

async function getJSON(url, body) {
  const r = await fetch(url, body ? {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)} : {});
  assert.equal(r.status, 200, url + ': ' + r.status);
  return r.json();
}

const shot = (name) => page.screenshot({path: path.join(artifacts, name + '.png'), fullPage: true});

/* What a chart on the page draws, read from its uPlot instance (web/charts.js
 * keeps it as the element's `uplot`): bars (a value per category) or points and
 * lines on two axes, each series' data as uPlot holds it, as plain data. */
const chartData = (name) => page.evaluate((n) => {
  const u = (document.getElementById('chart-' + n) || {}).uplot;
  if (!u) return null;
  const scales = {x: u.scales.x.distr === 3 ? 'logarithmic' : 'linear', y: u.scales.y.distr === 3 ? 'logarithmic' : 'linear'};
  if (u.mode !== 2) {
    return {kind: 'bars', labels: u.series[0].categories, scales,
      datasets: u.series.slice(1).map((s, i) => ({label: s.label, role: null, hw: null, data: [...u.data[i + 1]]}))};
  }
  return {kind: 'xy', scales, datasets: u.series.slice(1).map((s, i) => ({label: s.label, role: s.role, hw: s.hw,
    data: u.data[i + 1][0].map((x, j) => ({x, y: u.data[i + 1][1][j]}))}))};
}, name);

async function openSolver(name) {
  await page.click(`#solvers button[data-solver="${name}"]`);
  await page.waitForSelector(`#fields .field`);
}

async function fill(name, value) {
  const sel = '#in-' + name;
  const tag = await page.$eval(sel, (e) => e.tagName);
  if (tag === 'SELECT') await page.select(sel, value);
  else {
    await page.$eval(sel, (e) => { e.value = ''; });
    await page.type(sel, value);
  }
}

async function submitAndWait(selector) {
  await page.$eval('#result', (e) => { e.textContent = ''; });
  await page.click('#run');
  await page.waitForSelector(selector + ', #problem:not([hidden])');
}

before(async () => {
  ({p: daemon, url: base} = await startDaemon());
  try {
    browser = await puppeteer.launch({executablePath: chromium, headless: true, timeout: 180000, protocolTimeout: 180000,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check']});
  } catch (e) {
    writeFileSync(path.join(artifacts, 'launch-failed'), String(e.message || e));
    throw e;
  }
  page = await browser.newPage();
  page.setDefaultTimeout(60000);
  await page.setViewport({width: 1280, height: 900});
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('request', (r) => { if (!r.url().startsWith(base + '/')) foreign.push(r.url()); });
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(r.request().method() + ' ' + r.url().slice(base.length) + ' ' + r.status());
  });
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) daemon.kill('SIGTERM');
});

// The budget for a first visit: everything the page transfers, compressed, under 400 KB.
const TRANSFER_BUDGET = 400 * 1024;

test('first load shows the worked example: stage bars and the roofline, drawn; the first visit transfers under 400 KB', async () => {
  // a cold first visit: nothing cached; the bytes on the wire (headers included) as chromium's network stack counts them
  await page.setCacheEnabled(false);
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  const wire = new Map(); // requestId -> bytes
  const urls = new Map();
  const encoding = new Map(); // path -> Content-Encoding
  const posts = []; // "POST /path" of each solver request
  cdp.on('Network.requestWillBeSent', (e) => {
    urls.set(e.requestId, e.request.url);
    if (e.request.method === 'POST') posts.push('POST ' + e.request.url.replace(base, ''));
  });
  cdp.on('Network.responseReceived', (e) => {
    const h = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    encoding.set(e.response.url.replace(base, ''), h['content-encoding'] || 'identity');
  });
  cdp.on('Network.loadingFinished', (e) => wire.set(e.requestId, e.encodedDataLength));
  await page.goto(base + '/', {waitUntil: 'load'});
  await page.waitForSelector('#fig-stages:not([hidden])');
  await page.waitForSelector('#fig-roofline:not([hidden])');
  await page.waitForFunction(() => performance.getEntriesByName('mlsysd:first-render').length > 0);
  // what the page fetches after its first render (the pickers' catalog lists) counts too
  await page.waitForFunction(() => document.querySelectorAll('#dl-compare option').length > 0 &&
    document.querySelectorAll('#in-hardware-list option').length > 0);
  await page.waitForNetworkIdle({idleTime: 300});
  const perf = await page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource');
    return {render: performance.getEntriesByName('mlsysd:first-render')[0].startTime, dcl: n.domContentLoadedEventEnd,
      transfer: n.transferSize + res.reduce((s, r) => s + r.transferSize, 0), decoded: n.decodedBodySize + res.reduce((s, r) => s + r.decodedBodySize, 0),
      requests: res.length + 1};
  });
  await cdp.detach();
  await page.setCacheEnabled(true);
  const onWire = [...wire.values()].reduce((a, b) => a + b, 0);
  // wall-clock time is reported, not asserted: machines are noisy (tests/browser/first_render.mjs measures it properly)
  console.log(`first render: worked example drawn ${perf.render.toFixed(0)} ms after navigation start (DOMContentLoaded at ` +
    `${perf.dcl.toFixed(0)} ms); first visit: ${perf.requests} requests, ${onWire} bytes on the wire, ${perf.transfer} bytes ` +
    `transferred (Resource Timing), ${perf.decoded} bytes decoded`);
  assert.ok(wire.size >= perf.requests, `chromium reported every request (${wire.size} of ${perf.requests})`);
  assert.ok(perf.decoded > onWire, 'answers arrive compressed');
  assert.ok(onWire < TRANSFER_BUDGET, `first visit transfers ${onWire} bytes on the wire, budget ${TRANSFER_BUDGET}: ` +
    [...wire.entries()].map(([id, b]) => (urls.get(id) || id).replace(base, '') + ' ' + b).join(', '));
  assert.ok(perf.transfer < TRANSFER_BUDGET, `first visit transfers ${perf.transfer} bytes (Resource Timing), budget ${TRANSFER_BUDGET}`);
  assert.ok(![...urls.values()].some((u) => u.endsWith('/ui/find.js')), 'the find mode is not fetched by the first visit');
  // the worked example's requests, sent by web/example.js as the page starts, are the ones the form describes:
  // the page takes their answers and asks nothing twice
  assert.deepEqual(posts.sort(), ['POST /batch', 'POST /solve'], 'the worked example is asked once: ' + posts.join(', '));
  assert.deepEqual([...urls.values()].filter((u) => /\/(solvers|version)$/.test(u)).map((u) => u.replace(base, '')).sort(),
    ['/solvers', '/version'], '/solvers and /version are asked once (the preloads example.js takes)');
  // the browser accepts gzip: the dashboard's files and the larger answers come compressed
  for (const f of ['/ui/uPlot.iife.min.js', '/ui/uPlot.min.css', '/ui/dashboard.js', '/ui/dashboard.css', '/solvers', '/catalog/hardware?catalog=current'])
    assert.equal(encoding.get(f), 'gzip', `${f} sent gzip-encoded (${[...encoding].map((e) => e.join(' ')).join(', ')})`);
  const bars = await chartData('stages');
  assert.equal(bars.kind, 'bars');
  const api = await getJSON(base + '/solve/pipeline?model=ResNet50&hardware=A100&batch_size=512&sample_size_bytes=500%20KB&cpu_workers=8');
  assert.deepEqual(bars.datasets[0].data, [api.result.storage_time, api.result.transform_time, api.result.accelerator_step_time]);
  assert.match(bars.labels[1], /binding/, 'the binding stage (Transformation) is marked');
  const notes = await page.$eval('#stages-notes', (e) => e.textContent);
  assert.ok(notes.includes('CPU workers needed: ' + api.result.workers_needed), notes);
  const roof = await chartData('roofline');
  assert.deepEqual(roof.datasets.filter((d) => d.role === 'ridge').map((d) => d.hw), ['A100', 'H100']);
  await shot('01-worked-example');
});

let latencyHash;
test('single_node form: ResNet50 / A100 / batch 256 / fp16 shows /solve\'s latency', async () => {
  await openSolver('single_node');
  await fill('model', 'ResNet50');
  await fill('hardware', 'A100');
  await fill('batch_size', '256');
  await fill('precision', 'fp16');
  await page.$eval('#compare', (e) => { e.value = ''; });
  await submitAndWait('#result-table');
  const shown = await page.$eval('tr[data-output="latency"] td.value', (e) => ({v: JSON.parse(e.dataset.value), text: e.textContent}));
  const unit = await page.$eval('tr[data-output="latency"] td.unit', (e) => e.textContent);
  const api = await getJSON(base + '/solve', {solver: 'single_node', inputs: {model: 'ResNet50', hardware: 'A100', batch_size: 256, precision: 'fp16'}});
  assert.equal(shown.v, api.result.latency);
  assert.equal(Number(shown.text), Number(api.result.latency.toPrecision(6)));
  assert.equal(unit, api.units.latency);
  const curl = await page.$eval('#curl', (e) => e.textContent);
  assert.match(curl, /curl -s -X POST '.*\/solve' -H 'Content-Type: application\/json'/);
  assert.match(curl, /"batch_size":256/);
  latencyHash = await page.evaluate(() => location.hash);
  assert.match(latencyHash, /solver=single_node/);
  // the same request as a plan scenario: POST /evaluate runs it, with /solve's answer
  const plan = JSON.parse(await page.$eval('#plan', (e) => e.textContent));
  assert.equal(plan.scenarios.length, 1);
  assert.deepEqual(plan.scenarios[0].assert, []);
  const evaluated = await getJSON(base + '/evaluate', plan);
  assert.equal(evaluated.status, 'pass');
  assert.deepEqual(evaluated.scenarios[0].answer.result, api.result);
  await shot('02-single-node');
});

test('roofline: ridge point at peak / bandwidth, the workload at its arithmetic intensity', async () => {
  await page.waitForSelector('#fig-roofline:not([hidden])');
  const api = await getJSON(base + '/solve', {solver: 'single_node', inputs: {model: 'ResNet50', hardware: 'A100', batch_size: 256, precision: 'fp16'}});
  const peak = api.result.peak_flops_actual * 1e12, bw = api.result.peak_bw_actual * 1e9;
  const roof = await chartData('roofline');
  assert.equal(roof.scales.x, 'logarithmic');
  assert.equal(roof.scales.y, 'logarithmic');
  const ridge = roof.datasets.find((d) => d.role === 'ridge').data[0];
  assert.ok(Math.abs(ridge.x - peak / bw) <= 1e-12 * (peak / bw), `ridge ${ridge.x} vs ${peak / bw}`);
  assert.equal(ridge.y, peak);
  const work = roof.datasets.find((d) => d.role === 'workload').data[0];
  assert.equal(work.x, api.result.arithmetic_intensity);
  assert.equal(work.y, Math.min(peak, bw * work.x));
  const line = roof.datasets.find((d) => d.label === 'A100' && !d.role).data;
  assert.equal(line.length, 3, 'memory slope, ridge, compute roof');
  assert.ok(Math.abs(line[0].y / line[0].x - bw) <= 1e-9 * bw, 'memory slope is the bandwidth');
  const li = await page.$eval('#roofline-notes li[data-hw="A100"]', (e) => Number(e.dataset.ridge));
  assert.equal(li, ridge.x);
  // several accelerators at once
  await page.type('#compare', 'H100,V100');
  await page.$eval('#compare', (e) => e.dispatchEvent(new Event('change')));
  await page.waitForFunction(() => document.querySelectorAll('#roofline-notes li').length === 3);
  const roof3 = await chartData('roofline');
  assert.deepEqual(roof3.datasets.filter((d) => d.role === 'ridge').map((d) => d.hw), ['A100', 'H100', 'V100']);
  await shot('03-roofline');
});

test('the page state is a link: opening it reproduces the answer', async () => {
  const p2 = await browser.newPage();
  const solves = []; // the solver requests the page sends
  p2.on('request', (r) => { if (r.url() === base + '/solve') solves.push(JSON.parse(r.postData()).solver); });
  await p2.goto(base + '/' + latencyHash, {waitUntil: 'load'});
  await p2.waitForSelector('tr[data-output="latency"]');
  const [a, b] = await Promise.all([p2, page].map((pg) => pg.$eval('tr[data-output="latency"] td.value', (e) => e.dataset.value)));
  assert.equal(a, b);
  // a page opened on a state asks for that state only, not for the worked example (web/example.js)
  assert.deepEqual(solves, ['single_node'], 'the solves a page opened on a state sends: ' + solves.join(', '));
  await p2.close();
});

test('a sweep: one chart point per row, crossovers marked, log axis over decades', async () => {
  await page.$eval('#compare', (e) => { e.value = ''; });
  await fill('hardware', 'A100,H100');
  await fill('batch_size', '1,32,256');
  await submitAndWait('#fig-sweep:not([hidden])');
  const api = await getJSON(base + '/sweep', {solver: 'single_node', catalog: 'current',
    inputs: {model: 'ResNet50', precision: 'fp16'}, axes: [{input: 'hardware', values: ['A100', 'H100']}, {input: 'batch_size', values: [1, 32, 256]}]});
  await page.select('#sweep-output', 'latency');
  const ch = await chartData('sweep');
  const points = ch.datasets.filter((d) => d.role !== 'crossover').reduce((s, d) => s + d.data.length, 0);
  assert.equal(points, api.rows.length);
  const li = api.columns.indexOf('latency');
  const ys = ch.datasets.filter((d) => d.role !== 'crossover').flatMap((d) => d.data.map((p) => p.y));
  assert.deepEqual(ys.sort(), api.rows.map((r) => r[li]).sort());
  // hardware is the first axis (categories), batch_size series; the API reports a bottleneck change
  // along hardware at batch_size 1: marked on the curve
  const marks = ch.datasets.find((d) => d.role === 'crossover');
  const along = api.transitions.filter((t) => t.axis === 'hardware');
  assert.ok(along.length > 0);
  assert.equal(marks.data.length, along.length);
  await shot('04-sweep');
  // batch_size as the first axis: numbers spanning two decades get a log axis
  await fill('hardware', 'H100');
  await submitAndWait('#fig-sweep:not([hidden])');
  const ch2 = await chartData('sweep');
  assert.equal(ch2.scales.x, 'logarithmic');
  const marks2 = ch2.datasets.find((d) => d.role === 'crossover');
  assert.equal(marks2.data.length, 1, 'H100 turns from Memory- to Compute-bound between batch 1 and 32');
  await shot('05-sweep-log');
});

test('find: the largest batch with latency <= 10 ms equals POST /optimize\'s answer; its curl command reproduces it', async () => {
  const {outputs} = await getJSON(base + '/solvers/single_node');
  await openSolver('single_node');
  await fill('model', 'ResNet50');
  await fill('hardware', 'A100');
  await fill('precision', 'fp16');
  await fill('batch_size', '1..4096');
  await page.$eval('#compare', (e) => { e.value = ''; });
  await page.click('input[name="mode"][value="find"]');
  await page.waitForSelector('#find-target');
  assert.equal(await page.$eval('#run', (e) => e.textContent), 'Find');
  // two constraints: a number with the output's unit shown, and a boolean compared with == / != only
  for (const [i, output, op, bound] of [[1, 'latency', '<=', '10'], [2, 'feasible', '==', 'true']]) {
    await page.click('#find-add');
    const row = `#find-constraints li:nth-child(${i})`;
    await page.waitForSelector(row);
    await page.select(row + ' .c-output', output);
    const ops = await page.$$eval(row + ' .c-op option', (o) => o.map((x) => x.value));
    const o = outputs.find((x) => x.name === output);
    if (o.type === 'boolean') {
      assert.deepEqual(ops, ['==', '!=']);
      await page.select(row + ' .c-value', bound);
    } else {
      assert.deepEqual(ops, ['<=', '<', '>=', '>', '==', '!=']);
      assert.equal(await page.$eval(row + ' .unit', (e) => e.textContent), o.unit);
      await page.type(row + ' .c-value', bound);
    }
    await page.select(row + ' .c-op', op);
    assert.equal(await page.$eval(row + ' .c-value', (e) => e.getAttribute('aria-label')), `constraint ${i}: bound`);
  }
  await page.select('#find-dir', 'maximize');
  await page.select('#find-target', 'batch_size');
  await page.$eval('#find-k', (e) => { e.value = ''; });
  await page.type('#find-k', '3');
  await submitAndWait('#find-point');
  assert.equal(await page.$('#problem:not([hidden])'), null, 'no problem shown');
  const api = await getJSON(base + '/optimize', {solver: 'single_node', catalog: 'current', inputs: {model: 'ResNet50', hardware: 'A100', precision: 'fp16'},
    axes: [{input: 'batch_size', range: {start: 1, stop: 4096, step: 1}}],
    constraints: [{output: 'latency', '<=': 10}, {output: 'feasible', '==': true}], objective: {maximize: 'batch_size'}, top_k: 3});
  assert.ok(api.best && api.runners_up.length === 2, 'the API finds a best batch and two runners-up');
  const best = await page.$eval('#find-point tr[data-input="batch_size"] td.value', (e) => JSON.parse(e.dataset.value));
  assert.equal(best, api.best.point.batch_size);
  // the runners-up table: the best (rank 1) and each runner-up with its batch size
  const ranks = await page.$$eval('#find-runners tbody tr', (rs) => rs.map((r) => [Number(r.dataset.rank), JSON.parse(r.cells[1].dataset.value)]));
  assert.deepEqual(ranks, [api.best, ...api.runners_up].map((r) => [r.rank, r.point.batch_size]));
  assert.equal(ranks.filter(([rank]) => rank > 1).length, api.runners_up.length);
  // the search's figures, the method, and the constraint that binds at the optimum
  const dd = (k) => page.$eval(`#find-summary dd[data-key="${k}"]`, (e) => e.textContent);
  assert.equal(await dd('evaluated'), String(api.evaluated));
  assert.equal(await dd('feasible'), String(api.feasible));
  assert.ok((await dd('method')).startsWith(api.method + ' '), await dd('method'));
  assert.deepEqual(api.best.binding.map((b) => b.output), ['latency']);
  assert.match(await dd('binding'), /^latency <= 10 ms \(/);
  assert.deepEqual(await page.$$eval('#find-at-best tr.binds', (r) => r.map((x) => x.dataset.output)), ['latency']);
  // the best point's full answer, with units
  const lat = await page.$eval('#result-table tr[data-output="latency"]', (tr) => ({v: JSON.parse(tr.querySelector('td.value').dataset.value), unit: tr.querySelector('td.unit').textContent}));
  assert.deepEqual(lat, {v: api.best.answer.result.latency, unit: api.best.answer.units.latency});
  // the curl command shown answers the same, byte for byte as JSON
  const curl = await page.$eval('#curl', (e) => e.textContent);
  assert.match(curl, /^curl -s -X POST '.*\/optimize' /);
  assert.deepEqual(JSON.parse(execFileSync('sh', ['-c', curl], {encoding: 'utf8'})), api);
  await shot('10-find');
  // the state is in the URL: a new page opened on it finds the same
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /mode=find/);
  const p2 = await browser.newPage();
  p2.on('pageerror', (e) => consoleErrors.push(String(e)));
  await p2.goto(base + '/' + hash, {waitUntil: 'load'});
  await p2.waitForSelector('#find-point');
  assert.equal(await p2.$eval('#find-point tr[data-input="batch_size"] td.value', (e) => JSON.parse(e.dataset.value)), best);
  assert.equal(await p2.$$eval('#find-runners tbody tr', (r) => r.length), ranks.length);
  await p2.close();
  // a bound of the wrong dimension: the API's problem shown, the bound marked
  const first = '#find-constraints li:nth-child(1) .c-value';
  await page.$eval(first, (e) => { e.value = ''; });
  await page.type(first, '5 GB');
  await submitAndWait('#find-point');
  assert.match(await page.$eval('#problem', (e) => e.textContent), /constraints\[0\]\.<=/);
  assert.equal(await page.$eval(first, (e) => e.getAttribute('aria-invalid')), 'true');
  await page.click('input[name="mode"][value="run"]');
  await page.waitForSelector('#find', {hidden: true});
});

test('find over a catalog-id axis and a range, by keyboard: the most throughput under 20 ms equals /optimize\'s top 3', async () => {
  await openSolver('single_node');
  await fill('model', 'Llama3_8B');
  await fill('hardware', 'A100,H100,MI300X');
  await fill('batch_size', '1..256');
  // the mode and the constraints by keyboard: arrows in the radio group, Enter on the button
  await page.focus('input[name="mode"][value="run"]');
  await page.keyboard.press('ArrowDown');
  await page.waitForSelector('#find:not([hidden]) #find-target');
  for (const [output, op, bound] of [['latency', '<=', '20 ms'], ['feasible', '==', 'true']]) {
    await page.focus('#find-add');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement.className), 'c-output', 'the new row\'s output has the focus');
    const row = '#find-constraints li:last-child';
    await page.select(row + ' .c-output', output);
    await page.select(row + ' .c-op', op);
    if (bound === 'true') await page.select(row + ' .c-value', bound);
    else await page.type(row + ' .c-value', bound);
  }
  await page.select('#find-target', 'throughput');
  await page.$eval('#find-k', (e) => { e.value = '3'; });
  await submitAndWait('#find-point');
  assert.equal(await page.$('#problem:not([hidden])'), null, 'no problem shown');
  const api = await getJSON(base + '/optimize', {solver: 'single_node', catalog: 'current', inputs: {model: 'Llama3_8B'},
    axes: [{input: 'hardware', values: ['A100', 'H100', 'MI300X']}, {input: 'batch_size', range: {start: 1, stop: 256, step: 1}}],
    constraints: [{output: 'latency', '<=': '20 ms'}, {output: 'feasible', '==': true}], objective: {maximize: 'throughput'}, top_k: 3});
  assert.equal(api.method, 'exhaustive');
  assert.equal(api.evaluated, 3 * 256);
  // rank, hardware, batch_size, throughput: the page's top 3 rows are the API's
  const rows = await page.$$eval('#find-runners tbody tr', (rs) => rs.map((r) => [...r.cells].slice(0, 4).map((c) => JSON.parse(c.dataset.value))));
  assert.deepEqual(rows, [api.best, ...api.runners_up].map((r) => [r.rank, r.point.hardware, r.point.batch_size, r.objective]));
  assert.equal(await page.$eval('#find-point tr[data-input="hardware"] td.value', (e) => JSON.parse(e.dataset.value)), api.best.point.hardware);
  assert.equal(await page.$eval('#find-point tr[data-objective="throughput"] td.value', (e) => JSON.parse(e.dataset.value)), api.best.objective);
  assert.ok((await page.$eval('#find-summary dd[data-key="method"]', (e) => e.textContent)).startsWith('exhaustive ('));
  await shot('11-find-catalog-axis');
  await page.focus('input[name="mode"][value="find"]');
  await page.keyboard.press('ArrowUp');
  await page.waitForSelector('#find', {hidden: true});
  assert.equal(await page.$eval('#run', (e) => e.textContent), 'Run');
});

test('a bad input shows the problem and marks the field', async () => {
  await fill('hardware', 'A100');
  await fill('batch_size', '0');
  await submitAndWait('#result-table');
  const problem = await page.$eval('#problem', (e) => e.textContent);
  assert.match(problem, /inputs\.batch_size/);
  assert.equal(await page.$eval('#in-batch_size', (e) => e.getAttribute('aria-invalid')), 'true');
});

test('every solver has a form: labelled inputs, enum choices, catalog pickers filled from /catalog', async () => {
  const {solvers} = await getJSON(base + '/solvers');
  for (const s of solvers) {
    await openSolver(s.name);
    for (const inp of s.inputs) {
      const label = await page.$(`label[for="in-${inp.name}"]`);
      assert.ok(label, `${s.name}.${inp.name} has a label`);
      if (inp.type === 'enum') {
        const opts = await page.$$eval(`#in-${inp.name} option`, (o) => o.map((x) => x.value).filter(Boolean));
        assert.deepEqual(opts, inp.values, `${s.name}.${inp.name} choices`);
      }
      if (inp.unit) assert.match(await page.$eval(`label[for="in-${inp.name}"]`, (e) => e.textContent), new RegExp(inp.unit.replace(/[/.]/g, '\\$&')));
      if (Array.isArray(inp.catalog_kinds) && inp.catalog_kinds.length && inp.type !== 'list') {
        let want = 0;
        for (const k of inp.catalog_kinds) {
          const d = await getJSON(`${base}/catalog/${k}`);
          want += Object.values(d).find(Array.isArray).length;
        }
        await page.waitForFunction((n, w) => document.querySelectorAll(`#in-${n}-list option`).length === w, {}, inp.name, want);
      }
    }
  }
});

test('a solver whose form picks a catalog record of another kind', async (t) => {
  const {solvers} = await getJSON(base + '/solvers');
  const s = solvers.find((x) => x.inputs.some((i) => (i.catalog_kinds || []).some((k) => k !== 'hardware' && k !== 'models')));
  if (!s) { t.skip('no solver of this build takes a record other than hardware or a model'); return; }
  const inp = s.inputs.find((i) => (i.catalog_kinds || []).some((k) => k !== 'hardware' && k !== 'models'));
  const kind = inp.catalog_kinds.find((k) => k !== 'hardware' && k !== 'models');
  await openSolver(s.name);
  const list = Object.values(await getJSON(`${base}/catalog/${kind}`)).find(Array.isArray);
  await page.waitForFunction((n) => document.querySelectorAll(`#in-${n}-list option`).length > 0, {}, inp.name);
  const opts = await page.$$eval(`#in-${inp.name}-list option`, (o) => o.map((x) => x.value));
  for (const e of list) assert.ok(opts.includes(e.key), `${kind} ${e.key} offered`);
  await fill(inp.name, list[0].key);
  await page.waitForFunction((n) => document.getElementById(`in-${n}-figures`).textContent.length > 0, {}, inp.name);
  await shot('06-other-kind');
});

test('a solver with a table output: synthesis lists the hardware /solve qualifies, one row each', async () => {
  const {table} = await getJSON(base + '/solvers/synthesis');
  assert.equal(table.name, 'qualifying');
  await openSolver('synthesis');
  await fill('model', 'Llama3_8B');
  await fill('target_latency', '10');
  await submitAndWait('#result-rows');
  const api = await getJSON(base + '/solve', {solver: 'synthesis', inputs: {model: 'Llama3_8B', target_latency: 10}});
  const want = api.result.qualifying.map((r) => r.hardware);
  assert.ok(want.length > 1, 'several accelerators qualify');
  const head = await page.$$eval('#result-rows thead th', (t) => t.map((x) => x.textContent));
  assert.deepEqual(head.map((h) => h.replace(/ \(.*\)$/, '')), table.columns.map((c) => c.name));
  const col = table.columns.findIndex((c) => c.name === 'hardware');
  const shown = await page.$$eval('#result-rows tbody tr', (rows, i) => rows.map((r) => JSON.parse(r.cells[i].dataset.value)), col);
  assert.deepEqual(shown, want, 'the same hardware keys in the same order');
  // each row's numbers are the API's
  const rows = await page.$$eval('#result-rows tbody tr', (rs) => rs.map((r) => [...r.cells].map((c) => JSON.parse(c.dataset.value))));
  assert.deepEqual(rows, api.result.qualifying.map((r) => table.columns.map((c) => r[c.name] ?? null)));
  // the table is not also flattened into the scalar result
  assert.equal(await page.$('tr[data-output="qualifying"], tr[data-output^="qualifying."]'), null);
  assert.equal(await page.$eval('tr[data-output="qualifying_count"] td.value', (e) => JSON.parse(e.dataset.value)), want.length);
  await shot('07-synthesis-rows');
});

test('catalog view: sortable table per kind, side-by-side comparison', async () => {
  await page.click('#tab-catalog');
  await page.waitForSelector('#catalog-table tbody tr');
  await page.select('#cat-kind', 'hardware');
  const hw = (await getJSON(base + '/catalog/hardware')).hardware;
  await page.waitForFunction((n) => document.querySelectorAll('#catalog-table tbody tr').length === n, {}, hw.length);
  const header = await page.$$('#catalog-table th button');
  const names = await Promise.all(header.map((h) => h.evaluate((e) => e.textContent)));
  await header[names.findIndex((n) => n.startsWith('peak_flops'))].click();
  const keys = await page.$$eval('#catalog-table tbody tr', (r) => r.map((x) => x.dataset.key));
  const sorted = [...hw].sort((a, b) => a.peak_flops - b.peak_flops).map((e) => e.key);
  assert.deepEqual(keys.map((k) => hw.find((e) => e.key === k).peak_flops), sorted.map((k) => hw.find((e) => e.key === k).peak_flops));
  for (const k of ['A100', 'H100']) {
    await page.click(`#catalog-table tr[data-key="${k}"] input`);
    await page.waitForSelector(`#catalog-table tr[data-key="${k}"] input:checked`);
  }
  await page.waitForSelector('#compare-table');
  const cols = await page.$$eval('#compare-table thead th', (t) => t.map((x) => x.textContent));
  assert.deepEqual(cols.slice(1), ['NVIDIA A100', 'NVIDIA H100']);
  await shot('08-catalog');
  await page.click('#tab-solve');
});

/* The page's answer (#result-table) as {output: value}, and the same outputs of an API answer. */
const shownResult = () => page.$$eval('#result-table tbody tr', (rs) => Object.fromEntries(rs.map((r) => [r.dataset.output, JSON.parse(r.querySelector('td.value').dataset.value)])));
const resultAt = (ans, name) => name.split('.').reduce((o, k) => (o === null || o === undefined ? undefined : o[k]), ans.result);
function assertSameResult(shown, ans, what) {
  assert.ok(Object.keys(shown).length > 0, what + ': the page shows outputs');
  for (const [name, v] of Object.entries(shown)) assert.deepEqual(v, resultAt(ans, name), `${what}: ${name}`);
}

/* The request bodies the page POSTs while fn runs: [{path, body}]. */
async function posted(fn) {
  const seen = [];
  const on = (r) => {
    if (r.method() === 'POST' && r.url().startsWith(base + '/')) seen.push({path: new URL(r.url()).pathname, body: JSON.parse(r.postData() || 'null')});
  };
  page.on('request', on);
  try { await fn(); } finally { page.off('request', on); }
  return seen;
}

/* The error band the answer panel shows: [[family, median, p90, n, sources]] from #error-band-table. */
const shownBands = () => page.$$eval('#error-band-table tbody tr', (rs) => rs.map((r) =>
  [r.dataset.family, ...[...r.querySelectorAll('td.value')].map((c) => JSON.parse(c.dataset.value))]));

async function assertErrorBand(ans, what) {
  const band = ans.assumptions && ans.assumptions.error_band;
  assert.ok(band && typeof band === 'object' && Array.isArray(band.bands), `${what}: /solve states assumptions.error_band with bands`);
  assert.equal(band.calibration, ans.calibration, `${what}: the band is the answer's mode's`);
  assert.equal(await page.$eval('#error-band', (e) => e.dataset.calibration), band.calibration);
  if (band.bands.length) {
    assert.deepEqual(await shownBands(), band.bands.map((b) => [b.family, b.median, b.p90, b.n, b.sources]), `${what}: one row per band`);
    const texts = await page.$$eval('#error-band-table tbody td.value', (c) => c.map((x) => x.textContent));
    for (const t of texts.filter((_, i) => i % 4 < 2)) assert.match(t, /^[\d.]+ %$/, `${what}: median and p90 as percentages`);
    assert.deepEqual(await page.$$eval('#error-band-table tbody th', (c) => c.map((x) => x.textContent)), band.bands.map((b) => b.title),
      `${what}: each family by its title`);
  } else {
    assert.ok(await page.$('#error-band-none'), `${what}: no band, said so`);
  }
}

const RN50 = {model: 'ResNet50', hardware: 'A100', batch_size: 256, precision: 'fp16'};

test('calibration switch: measured mode sends "calibration" with every request; its answers equal the API\'s in that mode, with the error band', async () => {
  await page.click('#tab-solve');
  await openSolver('single_node');
  for (const [k, v] of Object.entries(RN50)) await fill(k, String(v));
  await page.$eval('#compare', (e) => { e.value = 'H100'; });
  await submitAndWait('#result-table');
  // the daemon's default mode, as its answer names it, is the one the switch shows
  const dflt = await getJSON(base + '/solve', {solver: 'single_node', inputs: RN50});
  assert.ok(['mlsysim', 'measured'].includes(dflt.calibration), 'a /solve answer names its calibration');
  assert.equal(await page.$eval('input[name="calibration"]:checked', (e) => e.value), dflt.calibration);

  // measured: the switch re-runs the request; the solve and the roofline's /batch items carry the mode
  await page.$eval('#result', (e) => { e.textContent = ''; });
  const sent = await posted(async () => {
    await page.click('input[name="calibration"][value="measured"]');
    await page.waitForSelector('#result-table, #problem:not([hidden])');
    await page.waitForSelector('#fig-roofline:not([hidden])');
  });
  assert.equal(await page.$('#problem:not([hidden])'), null, 'no problem shown');
  const solve = sent.find((r) => r.path === '/solve');
  assert.equal(solve.body.calibration, 'measured');
  const batch = sent.find((r) => r.path === '/batch');
  assert.ok(batch && batch.body.items.length === 2 && batch.body.items.every((it) => it.calibration === 'measured'), 'the roofline\'s runs in measured mode too');
  const measured = await getJSON(base + '/solve', {solver: 'single_node', calibration: 'measured', inputs: RN50});
  assert.equal(measured.calibration, 'measured');
  assertSameResult(await shownResult(), measured, 'measured mode');
  assert.match(await page.$eval('#status', (e) => e.textContent), /calibration measured/);
  await assertErrorBand(measured, 'measured mode');
  // the curl command and the URL name the mode; the curl command answers the same
  const curl = await page.$eval('#curl', (e) => e.textContent);
  assert.match(curl, /"calibration":"measured"/);
  assert.deepEqual(JSON.parse(execFileSync('sh', ['-c', curl], {encoding: 'utf8'})), JSON.parse(JSON.stringify(await getJSON(base + '/solve', solve.body))));
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /(^#|&)calibration=measured(&|$)/);
  await shot('12-calibration-measured');
  // a new page opened on the URL is in measured mode and answers the same
  const p2 = await browser.newPage();
  p2.on('pageerror', (e) => consoleErrors.push(String(e)));
  await p2.goto(base + '/' + hash, {waitUntil: 'load'});
  await p2.waitForSelector('tr[data-output="latency"]');
  assert.equal(await p2.$eval('input[name="calibration"]:checked', (e) => e.value), 'measured');
  assert.equal(await p2.$eval('tr[data-output="latency"] td.value', (e) => JSON.parse(e.dataset.value)), measured.result.latency);
  await p2.close();

  // a sweep and a find in measured mode: their bodies carry it, their answers are the API's
  await page.$eval('#compare', (e) => { e.value = ''; });
  await fill('batch_size', '1,32,256');
  const sweepSent = await posted(() => submitAndWait('#fig-sweep:not([hidden])'));
  const sw = sweepSent.find((r) => r.path === '/sweep');
  assert.equal(sw.body.calibration, 'measured');
  const swApi = await getJSON(base + '/sweep', {solver: 'single_node', calibration: 'measured', inputs: {model: 'ResNet50', hardware: 'A100', precision: 'fp16'},
    axes: [{input: 'batch_size', values: [1, 32, 256]}]});
  const rows = await page.$$eval('#sweep-table tbody tr', (rs) => rs.length);
  assert.equal(rows, swApi.rows.length);
  await page.select('#sweep-output', 'latency');
  const ys = (await chartData('sweep')).datasets.filter((d) => d.role !== 'crossover').flatMap((d) => d.data.map((q) => q.y));
  assert.deepEqual(ys, swApi.rows.map((r) => r[swApi.columns.indexOf('latency')]));

  await fill('batch_size', '1..256');
  await page.click('input[name="mode"][value="find"]');
  await page.waitForSelector('#find-target');
  await page.click('#find-add');
  await page.select('#find-constraints li:nth-child(1) .c-output', 'latency');
  await page.select('#find-constraints li:nth-child(1) .c-op', '<=');
  await page.type('#find-constraints li:nth-child(1) .c-value', '10');
  await page.select('#find-dir', 'maximize');
  await page.select('#find-target', 'batch_size');
  const findSent = await posted(() => submitAndWait('#find-point'));
  const opt = findSent.find((r) => r.path === '/optimize');
  assert.equal(opt.body.calibration, 'measured');
  const optApi = await getJSON(base + '/optimize', opt.body);
  assert.ok(optApi.best, 'measured mode finds a batch');
  assert.equal(await page.$eval('#find-point tr[data-input="batch_size"] td.value', (e) => JSON.parse(e.dataset.value)), optApi.best.point.batch_size);
  await page.click('input[name="mode"][value="run"]');
  await page.waitForSelector('#find', {hidden: true});

  // back to mlsysim: the request names it, the answer is the API's in that mode
  await fill('batch_size', '256');
  await submitAndWait('#result-table');
  await page.$eval('#result', (e) => { e.textContent = ''; });
  const back = await posted(async () => {
    await page.click('input[name="calibration"][value="mlsysim"]');
    await page.waitForSelector('#result-table, #problem:not([hidden])');
  });
  assert.equal(back.find((r) => r.path === '/solve').body.calibration, 'mlsysim');
  const first = await getJSON(base + '/solve', {solver: 'single_node', calibration: 'mlsysim', inputs: RN50});
  assertSameResult(await shownResult(), first, 'mlsysim mode');
  await assertErrorBand(first, 'mlsysim mode');
});

/* A chart's axis titles and the points of its datasets by role. */
const chartAxes = (name) => page.evaluate((n) => {
  const u = document.getElementById('chart-' + n).uplot;
  return {x: u.axes[0].label, y: u.axes[1].label};
}, name);

const SERVING_FRONT = {model: 'Llama3_70B', seq_len: 4096, batch_size: 8};

test('find with two objectives over hardware x tp for serving: the Pareto front is POST /optimize\'s, point for point, in a table and a scatter; each point opens its answer', async () => {
  await page.click('#tab-solve');
  await openSolver('serving');
  for (const [k, v] of Object.entries(SERVING_FRONT)) await fill(k, String(v));
  await fill('hardware', 'A100,H100,MI300X');
  await fill('tp', '1,2,4,8');
  await page.$eval('#compare', (e) => { e.value = ''; });
  await page.click('input[name="mode"][value="find"]');
  await page.waitForSelector('#find-target');
  await page.click('#find-add');
  await page.select('#find-constraints li:nth-child(1) .c-output', 'feasible');
  await page.select('#find-constraints li:nth-child(1) .c-value', 'true');
  await page.select('#find-dir', 'minimize');
  await page.select('#find-target', 'ttft');
  // one objective: Top and Method apply; a second: the front, searched exhaustively, no ranks
  assert.deepEqual(await page.$$eval('#find-k, #find-method', (c) => c.map((x) => x.disabled)), [false, false]);
  await page.click('#find-add-objective');
  assert.equal(await page.$$eval('#find-objectives li', (r) => r.length), 2);
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'objective 2: what to maximize or minimize');
  await page.select('#find-objectives li:nth-child(2) .o-dir', 'minimize');
  await page.select('#find-objectives li:nth-child(2) .o-target', 'tp');
  assert.deepEqual(await page.$$eval('#find-k, #find-method', (c) => c.map((x) => x.disabled)), [true, true]);
  const sent = await posted(() => submitAndWait('#find-pareto'));
  assert.equal(await page.$('#problem:not([hidden])'), null, 'no problem shown');
  const req = {solver: 'serving', catalog: 'current', inputs: SERVING_FRONT,
    axes: [{input: 'hardware', values: ['A100', 'H100', 'MI300X']}, {input: 'tp', values: [1, 2, 4, 8]}],
    constraints: [{output: 'feasible', '==': true}], objectives: [{minimize: 'ttft'}, {minimize: 'tp'}]};
  const opt = sent.find((r) => r.path === '/optimize').body;
  assert.deepEqual(opt.objectives, req.objectives, 'the request carries objectives');
  assert.ok(!('objective' in opt) && !('top_k' in opt) && !('method' in opt), 'and neither objective, top_k nor method');
  const api = await getJSON(base + '/optimize', req);
  assert.ok(api.pareto.length >= 3, `a front of several points (${api.pareto.length})`);
  assert.ok(new Set(api.pareto.map((q) => q.point.hardware)).size > 1, 'of more than one accelerator');
  assert.deepEqual(api.objectives.map((o) => o.unit || ''), ['ms', '']);

  // the table: one row per front point, in the API's order, its axis values and objective values
  const rows = await page.$$eval('#find-pareto tbody tr', (rs) => rs.map((r) => [...r.querySelectorAll('td.value')].map((c) => JSON.parse(c.dataset.value))));
  assert.equal(rows.length, api.pareto.length, 'as many rows as front points');
  assert.deepEqual(rows, api.pareto.map((q, i) => [i + 1, q.point.hardware, q.point.tp, q.objectives.ttft]));
  const head = await page.$$eval('#find-pareto thead th', (t) => t.map((x) => x.textContent));
  assert.ok(head.includes('ttft [ms] (minimize)') && head.includes('tp (minimize)'), head.join(' | '));
  const dd = (k) => page.$eval(`#find-summary dd[data-key="${k}"]`, (e) => e.textContent);
  assert.equal(await dd('objectives'), 'minimize ttft [ms]; minimize tp');
  assert.equal(await dd('feasible'), String(api.feasible));
  assert.ok((await dd('front')).startsWith(api.pareto.length + ' points'));

  // the scatter: one point per front point at (ttft, tp), its axes named with their units
  const ch = await chartData('pareto');
  assert.equal(ch.kind, 'xy');
  assert.deepEqual(ch.datasets.find((d) => d.role === 'front').data, api.pareto.map((q) => ({x: q.objectives.ttft, y: q.objectives.tp})));
  const axes = await chartAxes('pareto');
  assert.match(axes.x, /^ttft \(ms\)/);
  assert.match(axes.y, /^tp\b/);

  // the first point's full answer, then the last's by its row's button, then the second's by a click on the chart
  assert.equal(await page.$eval('#find-pareto-answer', (e) => e.dataset.index), '0');
  assertSameResult(await shownResult(), api.pareto[0].answer, 'front point 1');
  await shot('15-find-pareto');
  const last = api.pareto.length - 1;
  await page.click(`#find-pareto tbody tr[data-index="${last}"] .open-point`);
  await page.waitForSelector(`#find-pareto-answer[data-index="${last}"] #result-table`);
  assertSameResult(await shownResult(), api.pareto[last].answer, 'the last front point');
  assert.deepEqual(await page.$$eval('#find-pareto tr.picked', (r) => r.map((x) => x.dataset.index)), [String(last)]);
  await page.$eval('#chart-pareto', (c) => c.scrollIntoView({block: 'center'}));
  const spot = await page.evaluate(() => {
    const u = document.getElementById('chart-pareto').uplot;
    const r = u.over.getBoundingClientRect();
    return {x: r.left + u.valToPos(u.data[1][0][1], 'x'), y: r.top + u.valToPos(u.data[1][1][1], 'y')};
  });
  await page.mouse.click(spot.x, spot.y);
  await page.waitForSelector('#find-pareto-answer[data-index="1"] #result-table');
  assertSameResult(await shownResult(), api.pareto[1].answer, 'front point 2, picked on the chart');
  const picked = (await chartData('pareto')).datasets.find((d) => d.role === 'picked').data;
  assert.deepEqual(picked, [{x: api.pareto[1].objectives.ttft, y: api.pareto[1].objectives.tp}], 'the chart marks the point shown');
  await shot('16-find-pareto-picked');
  await (await page.$('#fig-pareto')).screenshot({path: path.join(artifacts, '16b-pareto-chart.png')});

  // the curl command answers the same; the URL keeps the objectives and opens the same front
  const curl = await page.$eval('#curl', (e) => e.textContent);
  assert.match(curl, /"objectives":\[\{"minimize":"ttft"\},\{"minimize":"tp"\}\]/);
  assert.deepEqual(JSON.parse(execFileSync('sh', ['-c', curl], {encoding: 'utf8'})), api);
  const hash = await page.evaluate(() => location.hash);
  assert.equal(new URLSearchParams(hash.slice(1)).get('find.obj'), 'minimize ttft;minimize tp');
  const p2 = await browser.newPage();
  p2.on('pageerror', (e) => consoleErrors.push(String(e)));
  await p2.goto(base + '/' + hash, {waitUntil: 'load'});
  await p2.waitForSelector('#find-pareto tbody tr');
  assert.equal(await p2.$$eval('#find-objectives li', (r) => r.length), 2);
  assert.deepEqual(await p2.$$eval('#find-pareto tbody tr', (rs) => rs.map((r) => JSON.parse(r.querySelectorAll('td.value')[1].dataset.value))),
    api.pareto.map((q) => q.point.hardware));
  await p2.close();

  // removing the second objective gives back the single flow
  await page.click('#find-objectives li:nth-child(2) .o-remove');
  assert.equal(await page.$$eval('#find-objectives li', (r) => r.length), 1);
  assert.deepEqual(await page.$$eval('#find-k, #find-method', (c) => c.map((x) => x.disabled)), [false, false]);
  await page.click('input[name="mode"][value="run"]');
  await page.waitForSelector('#find', {hidden: true});
});

const hfCase = (file) => JSON.parse(readFileSync(path.join(here, '../data/hf_configs', file), 'utf8'));
const pasteHf = (text) => page.$eval('#in-model-hf', (e, t) => {
  e.focus();
  e.value = t;
  e.dispatchEvent(new InputEvent('input', {inputType: 'insertFromPaste', bubbles: true}));
}, text);

test('a pasted config.json as the model of serving: kv_cache and resolved.model\'s figures are POST /solve\'s with that hf_config; kept in the URL; invalid JSON shown inline, not sent', async () => {
  await openSolver('serving');
  const fixed = {hardware: 'H100', seq_len: 4096, batch_size: 4};
  for (const [k, v] of Object.entries(fixed)) await fill(k, String(v));
  await fill('model', 'Llama3_70B');
  await page.$eval('#compare', (e) => { e.value = ''; });
  await page.click('.field[data-input="model"] details.hf summary');
  await page.waitForSelector('#in-model-hf', {visible: true});
  for (const file of ['llama3_8b.json', 'mixtral_8x7b.json']) {
    const {config, kv_cache_bytes_per_token_fp16: kvPerToken} = hfCase(file);
    await pasteHf(JSON.stringify(config, null, 2));
    assert.equal(await page.$eval('#in-model', (e) => e.disabled), true, 'the catalog id is set aside');
    assert.match(await page.$eval('#in-model-hf-note', (e) => e.textContent), new RegExp('model_type ' + config.model_type));
    const sent = await posted(() => submitAndWait('#resolved-model'));
    assert.equal(await page.$('#problem:not([hidden])'), null, `${file}: no problem (${await page.$eval('#problem', (e) => e.textContent)})`);
    assert.deepEqual(sent.find((r) => r.path === '/solve').body.inputs.model, {hf_config: config}, `${file}: the request carries the config`);
    const api = await getJSON(base + '/solve', {solver: 'serving', inputs: Object.assign({model: {hf_config: config}}, fixed)});
    assertSameResult(await shownResult(), api, file);
    const kv = await page.$eval('#result-table tr[data-output="kv_cache"] td.value', (e) => JSON.parse(e.dataset.value));
    assert.equal(kv, api.result.kv_cache);
    assert.equal(kv, kvPerToken * fixed.seq_len * fixed.batch_size, `${file}: the KV bytes per token of the test data`);
    const r = api.resolved.model;
    const shown = await page.$$eval('#resolved-model tbody tr', (rs) => Object.fromEntries(rs.map((x) => [x.dataset.field, JSON.parse(x.querySelector('td.value').dataset.value)])));
    assert.deepEqual(shown, {parameters: r.parameters, active_parameters: r.active_parameters ?? r.parameters, layers: r.layers, heads: r.heads,
      kv_heads: r.kv_heads, head_dim: r.head_dim}, `${file}: resolved.model's figures`);
    if (file === 'mixtral_8x7b.json') assert.ok(r.active_parameters < r.parameters / 2, 'a mixture of experts: fewer active parameters');
    assert.match(await page.$eval('#in-model-figures', (e) => e.textContent), /^config\.json → .*layers 32/);
  }
  await page.$eval('#resolved-model', (e) => e.scrollIntoView({block: 'center'}));
  await shot('17-hf-config');
  // the URL keeps the config without its whitespace; a new page opened on it answers the same
  const hash = await page.evaluate(() => location.hash);
  const mixtral = hfCase('mixtral_8x7b.json').config;
  assert.equal(new URLSearchParams(hash.slice(1)).get('model.hf'), JSON.stringify(mixtral));
  const p2 = await browser.newPage();
  p2.on('pageerror', (e) => consoleErrors.push(String(e)));
  await p2.goto(base + '/' + hash, {waitUntil: 'load'});
  await p2.waitForSelector('#resolved-model');
  const [a, b] = await Promise.all([p2, page].map((pg) => pg.$eval('#resolved-model tr[data-field="parameters"] td.value', (e) => e.dataset.value)));
  assert.equal(a, b);
  await p2.close();

  // not JSON: said beside the textarea, and nothing is sent
  await pasteHf('{"model_type": "llama", "hidden_size": 4096,');
  assert.equal(await page.$eval('#in-model-hf', (e) => e.getAttribute('aria-invalid')), 'true');
  assert.match(await page.$eval('#in-model-hf-note', (e) => e.className + ': ' + e.textContent), /bad: The config\.json is not JSON/);
  const none = await posted(() => submitAndWait('#result-table'));
  assert.deepEqual(none, [], 'no request is sent');
  assert.match(await page.$eval('#problem', (e) => e.textContent), /inputs\.model\.hf_config/);
  await page.$eval('#in-model-hf', (e) => e.scrollIntoView({block: 'center'}));
  await page.screenshot({path: path.join(artifacts, '18-hf-config-invalid.png')});
  // a field the architecture needs, missing: the API's 400 names it, the textarea is marked
  const {config} = hfCase('llama3_8b.json');
  const {num_hidden_layers: _, ...without} = config;
  await pasteHf(JSON.stringify(without));
  await submitAndWait('#result-table');
  assert.match(await page.$eval('#problem', (e) => e.textContent), /inputs\.model\.hf_config\.num_hidden_layers/);
  assert.equal(await page.$eval('#in-model-hf', (e) => e.getAttribute('aria-invalid')), 'true');
  // emptied: the catalog id is back
  await pasteHf('');
  assert.equal(await page.$eval('#in-model', (e) => e.disabled), false);
});

const sourceHref = (s) => (s.url ? s.url : s.repo && s.path ? 'https://github.com/' + s.repo + '/blob/HEAD/' + s.path : null);

test('validation view: the summary is GET /validation\'s; one point per measurement at (measured, predicted), each linked to its source and its request', async () => {
  const v = await getJSON(base + '/validation');
  assert.ok(v.measurements.length > 0 && v.families.length > 0, '/validation has measurements and families');
  await page.click('#tab-validation');
  await page.waitForSelector('#validation-table tbody tr');
  assert.equal(await page.$eval('#view-solve', (e) => e.hidden), true, 'the Solve view is hidden');
  assert.equal(await page.$eval('#tab-validation', (e) => e.getAttribute('aria-pressed')), 'true');

  // the summary: a row per family and one for all, the figures as /validation gives them
  const summary = await page.$$eval('#validation-summary tbody tr', (rs) => Object.fromEntries(rs.map((r) =>
    [r.dataset.family, [...r.querySelectorAll('td.value')].map((c) => JSON.parse(c.dataset.value))])));
  const figures = (f) => [f.n, f.sources, f.mlsysim.median, f.mlsysim.p90, f.mlsysim.within_25pct,
    f.measured.median, f.measured.p90, f.measured.within_25pct, f.measured_loso.median, f.measured_loso.p90, f.measured_loso.within_25pct];
  assert.deepEqual(Object.keys(summary), [...v.families.map((f) => f.family), 'overall']);
  for (const f of v.families) assert.deepEqual(summary[f.family], figures(f), f.family);
  assert.deepEqual(summary.overall, figures(v.overall), 'overall');

  // the table: one row per measurement
  const ids = await page.$$eval('#validation-table tbody tr', (rs) => rs.map((r) => r.dataset.id));
  assert.deepEqual([...ids].sort(), v.measurements.map((m) => m.id).sort());

  // the scatter, for each prediction: one point per measurement at (measured, predicted), a dataset per family
  // x and y as uPlot draws them; each point's id from the dataset charts.js drew it from (u.spec)
  const points = () => page.evaluate(() => {
    const u = document.getElementById('chart-validation').uplot;
    const sets = u.series.slice(1).map((s, i) => ({s, i: i + 1, xs: u.data[i + 1][0], ys: u.data[i + 1][1], ds: u.spec.datasets[i]}));
    const log = (k) => (u.scales[k].distr === 3 ? 'logarithmic' : 'linear');
    return {scales: [log('x'), log('y')], roles: sets.filter((d) => d.s.role).map((d) => [d.s.role, d.xs.map((x, j) => [x, d.ys[j]])]),
      families: sets.filter((d) => !d.s.role).map((d) => [d.s.family, typeof d.s.stroke === 'function' ? d.s.stroke(u, d.i) : d.s.stroke]),
      points: sets.filter((d) => !d.s.role).flatMap((d) => d.xs.map((x, j) => ({id: d.ds.data[j].id, family: d.s.family, x, y: d.ys[j]})))};
  });
  for (const which of ['measured', 'measured_loso', 'mlsysim']) {
    await page.click(`input[name="val-which"][value="${which}"]`);
    await page.waitForFunction((w) => document.getElementById('chart-validation').getAttribute('aria-label').includes(
      {measured: 'measured mode', measured_loso: 'leave-one-source-out', mlsysim: 'mlsysim defaults'}[w]), {}, which);
    const ch = await points();
    const want = v.measurements.filter((m) => typeof m.predicted[which] === 'number' && m.predicted[which] > 0 && m.measured.value > 0);
    if (which !== 'measured_loso') assert.equal(want.length, v.measurements.length, `every measurement has a ${which} prediction`);
    assert.equal(ch.points.length, want.length, `${which}: one point per measurement`);
    const byId = Object.fromEntries(ch.points.map((q) => [q.id, q]));
    for (const m of want) assert.deepEqual(byId[m.id], {id: m.id, family: m.family, x: m.measured.value, y: m.predicted[which]}, `${which}: ${m.id}`);
    assert.deepEqual(ch.scales, ['logarithmic', 'logarithmic']);
    const identity = ch.roles.find(([r]) => r === 'identity')[1];
    assert.ok(identity.every(([x, y]) => x === y), 'the line y = x');
    const band = ch.roles.find(([r]) => r === 'band')[1];
    assert.ok(band.every(([x, y]) => Math.abs(y / x - 1.25) < 1e-12), 'the band\'s upper edge: 25 % above');
    const colours = new Set(ch.families.map(([, c]) => c));
    assert.equal(colours.size, ch.families.length, 'a colour per family');
    // the table's predicted column follows the choice
    const predicted = await page.$$eval('#validation-table tbody tr', (rs) => Object.fromEntries(rs.map((r) =>
      [r.dataset.id, JSON.parse(r.querySelectorAll('td.value')[2].dataset.value)])));
    for (const m of v.measurements) assert.deepEqual(predicted[m.id], m.predicted[which] ?? null, `${which}: ${m.id} in the table`);
  }
  await page.click('input[name="val-which"][value="measured"]');
  await page.waitForFunction(() => document.getElementById('chart-validation').getAttribute('aria-label').includes('measured mode'));
  // the plot is square, so y = x is its diagonal: a decade is as long on both axes
  const area = await page.evaluate(() => {
    const b = document.getElementById('chart-validation').uplot.bbox;
    return {w: b.width, h: b.height};
  });
  assert.ok(Math.abs(area.w / area.h - 1) < 0.1, `the plot is square (${area.w} x ${area.h} px)`);
  // the summary shows each family with its colour on the chart
  const swatches = await page.$$eval('#validation-summary tbody tr[data-family]:not([data-family="overall"])', (rs) =>
    rs.map((r) => [r.dataset.family, r.querySelector('svg.swatch [fill]').getAttribute('stroke')]));
  const colourOf = Object.fromEntries((await points()).families.map(([f, c]) => [f, c.slice(0, 7)]));
  for (const [f, c] of swatches) assert.equal(c, colourOf[f], `${f}: the summary's swatch is the chart's colour`);

  // a click on a point shows it beside the chart, with its source and its request, and picks its row
  const spot = await page.evaluate(() => {
    const u = document.getElementById('chart-validation').uplot;
    const all = u.series.flatMap((s, i) => (i === 0 || s.role ? [] : u.data[i][0].map((x, j) => ({x: u.valToPos(x, 'x'), y: u.valToPos(u.data[i][1][j], 'y'),
      id: u.spec.datasets[i - 1].data[j].id}))));
    const alone = all.find((p) => all.every((q) => q === p || Math.hypot(q.x - p.x, q.y - p.y) > 14));
    u.over.scrollIntoView({block: 'center'}); // the click lands in the viewport
    const r = u.over.getBoundingClientRect();
    return alone && {id: alone.id, x: r.left + alone.x, y: r.top + alone.y};
  });
  assert.ok(spot, 'a point no other point overlaps');
  await page.mouse.click(spot.x, spot.y);
  await page.waitForSelector(`#val-point[data-id="${spot.id}"]`);
  const m0 = v.measurements.find((m) => m.id === spot.id);
  const shown = await page.$eval('#val-point', (e) => ({source: e.querySelector('a.point-source') && e.querySelector('a.point-source').getAttribute('href'),
    request: e.querySelector('a.point-request').getAttribute('href'), text: e.textContent}));
  if (sourceHref(m0.source)) assert.equal(m0.source.url ? shown.source : decodeURIComponent(shown.source), sourceHref(m0.source), 'the point links to its source');
  else assert.equal(shown.source, null);
  assert.equal(shown.request, await page.$eval(`#validation-table tr[data-id="${spot.id}"] a.request-link`, (a) => a.getAttribute('href')),
    'the point links to its request, as its row does');
  assert.ok(shown.text.includes(m0.quote.slice(0, 40)), 'the point shows its quote');
  assert.equal(await page.$eval(`#validation-table tr[data-id="${spot.id}"]`, (r) => r.classList.contains('picked')), true, 'its row is picked');

  // the table shows one family's measurements when asked
  const fam = v.families[1].family;
  await page.select('#val-family', fam);
  const famRows = await page.$$eval('#validation-table tbody tr', (rs) => rs.map((r) => r.dataset.family));
  assert.deepEqual(famRows, v.measurements.filter((m) => m.family === fam).map(() => fam));
  await page.select('#val-family', '');
  assert.equal(await page.$$eval('#validation-table tbody tr', (rs) => rs.length), v.measurements.length);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('13-validation');

  // each row links to its source: its url, or its file on GitHub; otherwise it names where the figure is
  const links = await page.$$eval('#validation-table tbody tr', (rs) => Object.fromEntries(rs.map((r) => {
    const a = r.querySelector('a.source-link');
    return [r.dataset.id, a ? a.getAttribute('href') : null];
  })));
  for (const m of v.measurements) {
    const want = sourceHref(m.source);
    if (!want) assert.equal(links[m.id], null, `${m.id}: no source link`);
    else assert.equal(m.source.url ? links[m.id] : decodeURIComponent(links[m.id]), want, `${m.id}: source link`);
  }

  // sortable by keyboard: the error column's button, Enter: rows by error, smallest first
  await page.focus('#validation-table th[data-col="error"] button');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#validation-table th[data-col="error"][aria-sort="ascending"]');
  const errs = await page.$$eval('#validation-table tbody tr', (rs) => rs.map((r) => JSON.parse(r.querySelectorAll('td.value')[4].dataset.value)));
  const known = errs.filter((e) => e !== null);
  assert.deepEqual(known, [...known].sort((a, b) => a - b));
  assert.equal(await page.evaluate(() => document.activeElement.closest('th').dataset.col), 'error', 'the focus stays on the sorted column');

  // each request link opens the Solve view on that request in measured mode; one per solver the set uses
  const firstPerSolver = [...new Map([...v.measurements].reverse().map((m) => [m.request.solver, m])).values()];
  for (const m of firstPerSolver) {
    if (await page.$eval('#view-validation', (e) => e.hidden)) {
      await page.click('#tab-validation');
      await page.waitForSelector('#validation-table tbody tr');
    }
    await page.$eval('#result', (e) => { e.textContent = ''; });
    await page.click(`#validation-table tr[data-id="${m.id}"] a.request-link`);
    await page.waitForSelector('#result-table, #problem:not([hidden])');
    assert.equal(await page.$('#problem:not([hidden])'), null, `${m.id}: no problem (${await page.$eval('#problem', (e) => e.textContent)})`);
    assert.equal(await page.$eval('#view-solve', (e) => e.hidden), false, 'the Solve view is shown');
    assert.equal(await page.$eval('#solvers button[aria-current="true"]', (e) => e.dataset.solver), m.request.solver);
    assert.equal(await page.$eval('input[name="calibration"]:checked', (e) => e.value), 'measured');
    const ans = await getJSON(base + '/solve', Object.assign({}, m.request, {calibration: 'measured'}));
    assertSameResult(await shownResult(), ans, m.id);
    const out = resultAt(ans, m.output);
    // the same figure, up to how /validation writes its numbers
    assert.ok(Math.abs(out / m.predicted.measured - 1) < 1e-3, `${m.id}: /solve's ${m.output} ${out} is /validation's measured prediction ${m.predicted.measured}`);
  }
  await shot('14-validation-request');
});

test('on a phone-sized screen the form and answer stay in one column', async () => {
  await page.setViewport({width: 390, height: 844});
  await page.goto(base + '/', {waitUntil: 'load'});
  await page.waitForSelector('#fig-stages:not([hidden])');
  await shot('09-phone');
  const overflow = () => page.evaluate(() => {
    const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 &&
      !e.closest('.scroll'));
    return {px: document.documentElement.scrollWidth - window.innerWidth, wide: wide.slice(0, 5).map((e) => e.tagName + '#' + e.id + '.' + e.className)};
  });
  const o1 = await overflow();
  assert.ok(o1.px <= 0, `no horizontal scroll (${o1.px}px: ${o1.wide.join(', ')})`);
  // the Validation view too: its wide tables scroll in their own boxes
  await page.click('#tab-validation');
  await page.waitForSelector('#validation-table tbody tr');
  const o2 = await overflow();
  assert.ok(o2.px <= 0, `validation view: no horizontal scroll (${o2.px}px: ${o2.wide.join(', ')})`);
  await page.click('#tab-solve');
  await page.setViewport({width: 1280, height: 900});
});

test('no console errors and no request left the daemon\'s origin', () => {
  // the error responses on purpose are the bad inputs' 400s; the browser logs them as console errors
  // (and the pasted config.json missing num_hidden_layers)
  assert.deepEqual(failed, ['POST /optimize 400', 'POST /solve 400', 'POST /solve 400']);
  assert.deepEqual(consoleErrors.filter((m) => !/status of 400/.test(m)), []);
  assert.deepEqual(foreign, []);
});
