// first_render.mjs - how long the dashboard takes to draw its worked example,
// and what a first visit transfers, measured in Debian's chromium (the numbers
// of docs/BENCHMARKS.md). Cold loads of "/" (a fresh browser context each,
// cache off); for each: the time from navigation start to the page's
// performance mark "mlsysd:first-render" (set by web/dashboard.js when the
// worked example's answer, stage bars and roofline are drawn), the bytes
// on the wire up to then and in all (CDP Network.loadingFinished, headers
// included) and every resource's start and end (PerformanceResourceTiming).
// Several daemon binaries (--binary A,B) are measured in turns, one load each,
// so a busy machine slows them alike. Prints one JSON object, medians over runs.
// Chromium's own omnibox popup (a WebUI page in a renderer of its own, made for
// every new browser context) is switched off: on 2 cores it rendered during
// each measured load and took about a core from the page (docs/BENCHMARKS.md);
// --browser-ui keeps it, for the figures measured before.
//
//   node first_render.mjs [--runs N] [--binary PATH[,PATH...]] [--timeline] [--browser-ui]
import {spawn} from 'node:child_process';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import puppeteer from 'puppeteer-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name, def) => {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? process.argv[i + 1] : def;
};
const runs = Number(arg('runs', 15));
const binaries = arg('binary', process.env.MLSYSD_BINARY || path.join(here, '../../build/mlsysd')).split(',');
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const timeline = process.argv.includes('--timeline');
const browserUi = process.argv.includes('--browser-ui');

async function startDaemon(binary) {
  const p = spawn(binary, ['--port', '0', '--drain-delay', '0'], {stdio: ['ignore', 'pipe', 'inherit']});
  const port = await new Promise((resolve, reject) => {
    let buf = '';
    p.on('error', reject);
    p.on('exit', (code) => reject(new Error(binary + ' exited with ' + code)));
    p.stdout.on('data', (d) => {
      buf += d;
      const line = buf.split('\n').find((l) => l.includes('"listening"'));
      if (line) resolve(JSON.parse(line).port);
    });
  });
  p.stdout.resume();
  return {p, url: 'http://127.0.0.1:' + port};
}

const median = (xs) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/* One cold load of base + '/'. */
async function load(browser, base) {
  const ctx = await browser.createBrowserContext();
  const page = await ctx.newPage();
  await page.setViewport({width: 1280, height: 900});
  await page.setCacheEnabled(false);
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  const done = []; // [monotonic seconds, bytes]
  cdp.on('Network.loadingFinished', (e) => done.push([e.timestamp, e.encodedDataLength]));
  await page.goto(base + '/', {waitUntil: 'domcontentloaded'});
  await page.waitForFunction(() => performance.getEntriesByName('mlsysd:first-render').length > 0, {timeout: 60000});
  await page.waitForNetworkIdle({idleTime: 300});
  const m = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource').map((r) => ({name: r.name.replace(location.origin, ''),
      start: r.startTime, end: r.responseEnd, transfer: r.transferSize}));
    return {render: performance.getEntriesByName('mlsysd:first-render')[0].startTime, dcl: nav.domContentLoadedEventEnd,
      navTransfer: nav.transferSize, res};
  });
  m.wire = done.reduce((s, [, b]) => s + b, 0);
  m.transfer = m.navTransfer + m.res.reduce((s, r) => s + r.transfer, 0);
  // the bytes the page had before its first render: the document and what ended before the mark
  m.transferBeforeRender = m.navTransfer + m.res.filter((r) => r.end <= m.render).reduce((s, r) => s + r.transfer, 0);
  m.requestsBeforeRender = 1 + m.res.filter((r) => r.start <= m.render).length;
  await ctx.close();
  return m;
}

const daemons = [];
const results = binaries.map(() => []);
const browser = await puppeteer.launch({executablePath: chromium, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check']
    .concat(browserUi ? [] : ['--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup'])});
try {
  for (const b of binaries) daemons.push(await startDaemon(b));
  for (let i = 0; i < runs; i++)
    for (let k = 0; k < binaries.length; k++) results[k].push(await load(browser, daemons[k].url));
} finally {
  await browser.close();
  for (const d of daemons) d.p.kill('SIGTERM');
}
const out = {runs, browser_ui: browserUi, machine: {cpus: (await import('node:os')).cpus().length, load_average: (await import('node:os')).loadavg().map((x) => +x.toFixed(2))},
  binaries: binaries.map((b, k) => {
    const rs = results[k];
    const last = rs[rs.length - 1];
    const o = {binary: b,
      first_render_ms: {median: Math.round(median(rs.map((r) => r.render))), min: Math.round(Math.min(...rs.map((r) => r.render))),
        max: Math.round(Math.max(...rs.map((r) => r.render)))},
      dom_content_loaded_ms: Math.round(median(rs.map((r) => r.dcl))),
      requests_before_first_render: last.requestsBeforeRender,
      transfer_before_first_render_bytes: last.transferBeforeRender,
      first_visit_transfer_bytes: last.transfer, first_visit_wire_bytes: last.wire};
    if (timeline) {
      const names = [...new Set(rs.flatMap((r) => r.res.map((x) => x.name)))];
      const at = (n, f) => Math.round(median(rs.map((r) => { const x = r.res.find((y) => y.name === n); return x ? x[f] : NaN; })));
      o.median_timeline = names.map((n) => `${String(at(n, 'start')).padStart(5)}-${String(at(n, 'end')).padStart(5)} ms ${n}`);
    }
    return o;
  })};
console.log(JSON.stringify(out, null, 1));
