#!/usr/bin/env python3
"""soak.py - mixed traffic at a fixed rate against a real mlsysd on loopback.

Starts the daemon (--binary) on 127.0.0.1 and a free port, sends --rate
requests per second for --minutes (an open loop: request i is due at
t0 + i/rate, whatever the earlier ones did; a pool of workers sends them), then
stops it with SIGTERM. Only loopback is ever addressed.

The mix (one draw per request from a seeded generator, so every window has the
same composition):
  (tests/lib/request_mix.py holds what the fuzz corpus seeds from too)
  solve (POST and GET, every solver's example, both calibration modes, the
  extra bodies: simulation draws and traces, measured mode), sweep
  (JSON, CSV, NDJSON, sharded), batch, optimize, plans (POST /evaluate), catalog,
  the contract (/openapi.json, .yaml), the dashboard (/, /ui/*), probes and
  /metrics; invalid requests (bad JSON, unknown solver or input, wrong method or
  media type, a gzip-encoded body, a request target over 32 KiB, the refused
  bodies of the shared mix, an oversized sweep among them); with and without
  Accept-Encoding: gzip (gzip answers are decompressed and checked); over a kept-
  alive connection or a new one; and clients that vanish in the middle of a
  large streamed sweep (close, or reset with SO_LINGER 0).

Targets (exit 1 when one is missed):
  - no 5xx, no transport error other than the intended disconnects, and every
    answer as expected (2xx for the valid, 4xx for the invalid; a gzip body that
    inflates; JSON that parses);
  - the daemon alive throughout, and exit code 0 on SIGTERM;
  - RSS growth after warm-up below --max-rss-growth-kib (1024): the median of the
    RSS samples (1 per second) of the last window minus that of the first
    window after warm-up;
  - p99 latency of the last window within --p99-tolerance (20 %) of the first
    window's (of the requests that are not intended disconnects), plus
    --p99-slack-ms (1 ms) for the timer and scheduler granularity of a shared
    machine.
--report FILE writes the figures as JSON.
"""
import argparse
import gzip
import http.client
import json
import os
import queue
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from request_mix import (BAD_BODIES, EXTRA_SOLVES, VALID_OPTIMIZES, example_sweep, long_target,  # noqa: E402
                         query_of)
HOST = "127.0.0.1"  # loopback only, by construction


def log(msg):
    print("soak: " + msg, flush=True)


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Daemon:
    def __init__(self, binary, extra):
        self.log = tempfile.NamedTemporaryFile(prefix="mlsysd-soak-", suffix=".log", delete=False)
        # A free port picked here: --log-level warn keeps the log small (no line per request),
        # and it leaves out the "listening" line that --port 0 would need.
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            self.port = probe.getsockname()[1]
        args = [binary, "--port", str(self.port), "--host", HOST, "--drain-delay", "0", "--log-level", "warn"] + extra
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while True:
            if self.proc.poll() is not None:
                raise SystemExit("soak: the daemon exited at start-up (%d); log %s" % (self.proc.returncode, self.log.name))
            try:
                c = http.client.HTTPConnection(HOST, self.port, timeout=2)
                c.request("GET", "/healthz")
                if c.getresponse().status == 200:
                    c.close()
                    break
            except OSError:
                pass
            if time.time() > deadline:
                self.proc.kill()
                raise SystemExit("soak: the daemon did not answer /healthz on port %d" % self.port)
            time.sleep(0.05)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return -9


# ---- the request mix --------------------------------------------------------------------------

class Req:
    __slots__ = ("kind", "method", "path", "body", "headers", "expect", "stream_cut")

    def __init__(self, kind, method, path, body=None, headers=None, expect="2xx", stream_cut=False):
        self.kind, self.method, self.path, self.body = kind, method, path, body
        self.headers = dict(headers or {})
        self.expect, self.stream_cut = expect, stream_cut


def jbody(doc):
    return json.dumps(doc, separators=(",", ":")).encode()


def build_catalogue(base_conn_factory):
    """Fetches /solvers once to build the valid requests from every solver's example."""
    c = base_conn_factory()
    c.request("GET", "/solvers")
    solvers = [s["name"] for s in json.loads(c.getresponse().read())["solvers"]]
    examples = {}
    for n in solvers:
        c.request("GET", "/solvers/" + n)
        examples[n] = json.loads(c.getresponse().read()).get("example") or {}
    c.close()
    ui = sorted(f for f in os.listdir(os.path.join(ROOT, "web")) if f.endswith((".js", ".css", ".html")))
    plans = []
    pd = os.path.join(ROOT, "examples", "plans")
    for f in sorted(os.listdir(pd)) if os.path.isdir(pd) else []:
        with open(os.path.join(pd, f), "rb") as fh:
            plans.append(fh.read())
    return solvers, examples, ui, plans


def draw(rng, cat):
    """One request of the mix."""
    solvers, examples, ui, plans = cat
    json_h = {"Content-Type": "application/json"}
    r = rng.random()
    n = rng.choice(solvers)
    ex = examples[n]
    mode = rng.choice(["mlsysim", "measured"])
    if r < 0.20:
        return Req("solve", "POST", "/solve", jbody({"solver": n, "inputs": ex, "calibration": mode}), json_h)
    if r < 0.22:
        return Req("solve", "POST", "/solve", jbody(rng.choice(EXTRA_SOLVES)), json_h)
    if r < 0.30:
        return Req("solve_get", "GET", "/solve/%s?%s&calibration=%s" % (n, query_of(ex), mode), expect="2xx|400")
    if r < 0.42:
        doc = example_sweep(n, ex, mode, rng.choice(["json", "csv", "ndjson"]),
                            rng.choice(["0/2", "1/2"]) if rng.random() < 0.3 else None, points=3)
        if not doc:
            return Req("solve", "POST", "/solve", jbody({"solver": n, "inputs": ex}), json_h)
        return Req("sweep", "POST", "/sweep", jbody(doc), json_h)
    if r < 0.47:
        items = [{"solver": s, "inputs": examples[s], "calibration": rng.choice(["mlsysim", "measured"])}
                 for s in rng.sample(solvers, 5)]
        return Req("batch", "POST", "/batch", jbody({"items": items}), json_h)
    if r < 0.49:
        return Req("optimize", "POST", "/optimize", jbody(rng.choice(VALID_OPTIMIZES)), json_h)
    if r < 0.51:
        doc = {"solver": "single_node", "inputs": {"model": "ResNet50", "hardware": rng.choice(["A100", "H100", "T4"])},
               "axes": [{"input": "batch_size", "range": {"start": 1, "stop": 4096, "step": 1}}],
               "constraints": [{"output": "latency", "<=": "%d ms" % rng.choice([5, 10, 20])}],
               "objective": {"maximize": "batch_size"}, "calibration": mode}
        return Req("optimize", "POST", "/optimize", jbody(doc), json_h)
    if r < 0.53 and plans:
        return Req("evaluate", "POST", "/evaluate", rng.choice(plans), {"Content-Type": "application/yaml"},
                   expect="2xx|422")
    if r < 0.60:
        return Req("catalog", "GET", rng.choice(["/catalog", "/catalog/hardware", "/catalog/hardware/A100",
                                                 "/catalog/models/Llama3_70B", "/catalog?kind=fabrics",
                                                 "/solvers", "/solvers/" + n, "/calibration", "/version"]))
    if r < 0.64:
        return Req("contract", "GET", rng.choice(["/openapi.json", "/openapi.yaml", "/schemas/plan.json"]))
    if r < 0.70:
        if rng.random() < 0.3:
            return Req("dashboard", "GET", "/", headers={"Accept": "text/html"})
        return Req("dashboard", "GET", "/ui/" + rng.choice(ui))
    if r < 0.76:
        return Req("probe", "GET", rng.choice(["/healthz", "/livez", "/readyz", "/metrics"]))
    if r < 0.985:
        bad = rng.randrange(9)
        if bad == 0:
            route, body, status = rng.choice(BAD_BODIES)
            return Req("invalid", "POST", "/" + route, body, json_h, expect=str(status))
        if bad == 1:
            return Req("invalid", rng.choice(["GET", "POST"]), long_target(rng.choice(["/solve/single_node", "/healthz"])),
                       expect="414")
        if bad == 2:
            bad_in = dict(ex, no_such_input=1)
            return Req("invalid", "POST", "/solve", jbody({"solver": n, "inputs": bad_in}), json_h, expect="400")
        if bad == 3:
            return Req("invalid", "DELETE", "/solve", expect="405")
        if bad == 4:
            return Req("invalid", "POST", "/solve", jbody({"solver": n, "inputs": ex}), {"Content-Type": "text/plain"},
                       expect="415")
        if bad == 5:
            return Req("invalid", "POST", "/solve", gzip.compress(jbody({"solver": n, "inputs": ex})),
                       {"Content-Type": "application/json", "Content-Encoding": "gzip"}, expect="4xx")
        if bad in (6, 7):
            return Req("invalid", "GET", "/catalog/hardware/A101", expect="404")
        return Req("invalid", "POST", "/solve", jbody({"solver": n, "inputs": ex, "calibration": "bogus"}), json_h,
                   expect="400")
    # the rest: a large streamed sweep the client abandons mid-stream
    doc = {"solver": "transformation",
           "inputs": {"sample_size_bytes": "500 KB", "cpu_throughput": "2 GB/s", "accelerator_step_time": "7 ms"},
           "axes": [{"input": "batch_size", "range": {"start": 1, "stop": 500000, "step": 1}}],
           "format": rng.choice(["csv", "ndjson"])}
    return Req("disconnect", "POST", "/sweep", jbody(doc), json_h, stream_cut=True)


def status_ok(expect, status):
    for e in expect.split("|"):
        if e == "2xx" and 200 <= status < 300:
            return True
        if e == "4xx" and 400 <= status < 500:
            return True
        if e.isdigit() and int(e) == status:
            return True
    return False


# ---- the workers ------------------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.samples = []      # (t_done, latency_s, kind)
        self.failures = []     # text
        self.counts = {}
        self.statuses = {}
        self.gzip_checked = 0
        self.cuts = 0

    def fail(self, text):
        with self.lock:
            if len(self.failures) < 50:
                self.failures.append(text)
            self.counts["failures"] = self.counts.get("failures", 0) + 1


def cut_stream(port, req, rng, stats):
    """Sends a large streamed sweep on a raw socket, reads a little of it, and vanishes."""
    s = socket.create_connection((HOST, port), timeout=10)
    try:
        head = "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" \
               "Accept-Encoding: %s\r\n\r\n" % (req.method, req.path, HOST, len(req.body),
                                                 "gzip" if rng.random() < 0.5 else "identity")
        s.sendall(head.encode() + req.body)
        got = b""
        want = rng.choice([1, 4096, 65536])
        while len(got) < want:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
        if not got.startswith(b"HTTP/1.1 200"):
            stats.fail("disconnect: the sweep did not start streaming: %r" % got[:200])
        if rng.random() < 0.5:  # an abortive close: RST instead of FIN
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    finally:
        s.close()
    with stats.lock:
        stats.cuts += 1


def worker(port, jobs, stats, t0):
    conn = None
    rng = random.Random(threading.get_ident())
    while True:
        item = jobs.get()
        if item is None:
            return
        due, req, fresh, want_gzip = item
        start = time.monotonic()
        try:
            if req.stream_cut:
                cut_stream(port, req, rng, stats)
                continue
            headers = dict(req.headers)
            if want_gzip:
                headers["Accept-Encoding"] = "gzip"
            if fresh:
                headers["Connection"] = "close"
                c = http.client.HTTPConnection(HOST, port, timeout=60)
            else:
                if conn is None:
                    conn = http.client.HTTPConnection(HOST, port, timeout=60)
                c = conn
            try:
                c.request(req.method, req.path, body=req.body, headers=headers)
                resp = c.getresponse()
                body = resp.read()
            except (ConnectionError, http.client.HTTPException, socket.timeout) as e:
                if not fresh:
                    # a kept-alive connection the server closed between requests (idle timeout): retry once, fresh
                    conn.close()
                    conn = None
                    c = http.client.HTTPConnection(HOST, port, timeout=60)
                    c.request(req.method, req.path, body=req.body, headers=headers)
                    resp = c.getresponse()
                    body = resp.read()
                    fresh = True
                else:
                    raise e
            done = time.monotonic()
            status = resp.status
            if resp.getheader("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
                with stats.lock:
                    stats.gzip_checked += 1
            ctype = resp.getheader("Content-Type") or ""
            if status >= 500:
                stats.fail("%s %s: %d %s" % (req.method, req.path[:120], status, body[:300]))
            elif not status_ok(req.expect, status):
                stats.fail("%s %s (%s): %d, expected %s: %s" % (req.method, req.path[:120], req.kind, status,
                                                               req.expect, body[:300]))
            elif "json" in ctype and req.method != "HEAD":
                json.loads(body) if "ndjson" not in ctype else [json.loads(l) for l in body.splitlines() if l]
            if fresh:
                c.close()
            elif resp.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
            with stats.lock:
                stats.samples.append((done - t0, done - start, req.kind))
                stats.counts[req.kind] = stats.counts.get(req.kind, 0) + 1
                k = "%dxx" % (status // 100)
                stats.statuses[k] = stats.statuses.get(k, 0) + 1
        except Exception as e:  # noqa: BLE001 - every transport error is a finding
            stats.fail("%s %s (%s): %s: %s" % (req.method, req.path[:120], req.kind, type(e).__name__, e))
            if conn is not None and not fresh:
                conn.close()
                conn = None
        finally:
            jobs.task_done()


def p99(xs):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.99 * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "mlsysd"))
    ap.add_argument("--minutes", type=float, default=2)
    ap.add_argument("--rate", type=float, default=40, help="requests per second (default 40)")
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--warmup", type=float, default=None, help="seconds (default: 15 %% of the run, 20..120)")
    ap.add_argument("--window", type=float, default=None,
                    help="seconds of the first and last windows compared (default: 40 %% of the rest, at most 300)")
    ap.add_argument("--max-rss-growth-kib", type=float, default=1024)
    ap.add_argument("--p99-tolerance", type=float, default=0.20)
    ap.add_argument("--p99-slack-ms", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--report", default=None)
    ap.add_argument("--threads", type=int, default=2, help="the daemon's worker threads (default 2)")
    a = ap.parse_args()

    total = a.minutes * 60
    warmup = a.warmup if a.warmup is not None else min(120, max(20, 0.15 * total))
    window = a.window if a.window is not None else min(300, (total - warmup) / 2.5)
    seed = a.seed if a.seed is not None else int(time.time())
    d = Daemon(a.binary, ["--threads", str(a.threads)])
    try:
        return run(a, d, total, warmup, window, seed)
    except BaseException:
        # interrupted (Ctrl-C, SIGTERM) or broken: never leave the daemon behind
        if d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait()
        raise


def run(a, d, total, warmup, window, seed):
    log("daemon pid %d on %s:%d; %.1f min at %.0f req/s, warm-up %.0f s, windows of %.0f s, seed %d"
        % (d.proc.pid, HOST, d.port, a.minutes, a.rate, warmup, window, seed))
    cat = build_catalogue(lambda: http.client.HTTPConnection(HOST, d.port, timeout=30))
    stats = Stats()
    jobs = queue.Queue(maxsize=int(a.rate * 10) + 100)
    t0 = time.monotonic()
    threads = [threading.Thread(target=worker, args=(d.port, jobs, stats, t0), daemon=True) for _ in range(a.workers)]
    for t in threads:
        t.start()

    rss = []  # (t, kib)
    stop_rss = threading.Event()

    def sample_rss():
        while not stop_rss.is_set():
            v = rss_kib(d.proc.pid)
            if v is not None:
                rss.append((time.monotonic() - t0, v))
            if d.proc.poll() is not None:
                stats.fail("the daemon exited during the soak (code %s)" % d.proc.returncode)
                return
            stop_rss.wait(1.0)

    rt = threading.Thread(target=sample_rss, daemon=True)
    rt.start()
    rng = random.Random(seed)
    i = 0
    lagging = 0
    next_report = 30
    while True:
        due = i / a.rate
        if due >= total:
            break
        now = time.monotonic() - t0
        if due > now:
            time.sleep(due - now)
        elif now - due > 1.0:
            lagging += 1
        req = draw(rng, cat)
        jobs.put((due, req, rng.random() < 0.3, rng.random() < 0.5))
        i += 1
        if now >= next_report:
            with stats.lock:
                n = len(stats.samples)
                f = stats.counts.get("failures", 0)
            log("%4.0f s: %d answers, %d failures, RSS %s KiB" % (now, n, f, rss[-1][1] if rss else "?"))
            next_report += 30
    jobs.join()
    for _ in threads:
        jobs.put(None)
    # the RSS of the end: a few idle seconds more, when nothing is in flight
    time.sleep(2)
    stop_rss.set()
    rt.join()
    alive = d.proc.poll() is None
    code = d.stop()

    # ---- figures
    end = total
    first = (warmup, warmup + window)
    last = (end - window, end)
    lat = lambda lo, hi: [x[1] for x in stats.samples if lo <= x[0] < hi and x[2] != "disconnect"]
    p_first, p_last = p99(lat(*first)), p99(lat(*last))
    rss_first = [v for t, v in rss if first[0] <= t < first[1]]
    rss_last = [v for t, v in rss if last[0] <= t <= end + 5]
    rss_warm = statistics.median(rss_first) if rss_first else float("nan")
    rss_end = statistics.median(rss_last) if rss_last else float("nan")
    growth = rss_end - rss_warm
    rss_max = max((v for _, v in rss), default=float("nan"))
    fig = {
        "minutes": a.minutes, "rate": a.rate, "seed": seed, "requests": i, "answers": len(stats.samples),
        "disconnects": stats.cuts, "gzip_answers_checked": stats.gzip_checked, "by_kind": stats.counts,
        "statuses": stats.statuses, "failures": stats.counts.get("failures", 0), "failure_samples": stats.failures[:10],
        "late_sends": lagging, "warmup_s": warmup, "window_s": window,
        "rss_kib": {"start": rss[0][1] if rss else None, "after_warmup": rss_warm, "end": rss_end, "max": rss_max,
                    "growth_after_warmup": growth},
        "p99_ms": {"first_window": p_first * 1000, "last_window": p_last * 1000,
                   "change_pct": (p_last / p_first - 1) * 100 if p_first else None},
        "p50_ms": {"first_window": statistics.median(lat(*first)) * 1000 if lat(*first) else None,
                   "last_window": statistics.median(lat(*last)) * 1000 if lat(*last) else None},
        "daemon_alive_at_end": alive, "exit_code": code,
    }
    ok = True
    reasons = []
    if fig["failures"]:
        ok = False
        reasons.append("%d failures (first: %s)" % (fig["failures"], "; ".join(stats.failures[:5])))
    if stats.statuses.get("5xx"):
        ok = False
        reasons.append("%d 5xx" % stats.statuses["5xx"])
    if not alive or code != 0:
        ok = False
        reasons.append("daemon alive at end: %s, exit code %s (log %s)" % (alive, code, d.log.name))
    if not growth < a.max_rss_growth_kib:
        ok = False
        reasons.append("RSS grew %.0f KiB after warm-up (limit %.0f)" % (growth, a.max_rss_growth_kib))
    if not p_last <= p_first * (1 + a.p99_tolerance) + a.p99_slack_ms / 1000:
        ok = False
        reasons.append("p99 of the last window %.2f ms > first %.2f ms + %.0f %% + %.1f ms"
                       % (p_last * 1000, p_first * 1000, a.p99_tolerance * 100, a.p99_slack_ms))
    fig["passed"] = ok
    fig["reasons"] = reasons
    if a.report:
        with open(a.report, "w") as f:
            json.dump(fig, f, indent=1)
    log("%d requests (%d answers, %d mid-stream disconnects, %d gzip answers inflated), statuses %s"
        % (i, len(stats.samples), stats.cuts, stats.gzip_checked, json.dumps(stats.statuses, sort_keys=True)))
    log("RSS after warm-up %.0f KiB, at the end %.0f KiB: growth %+.0f KiB (max %.0f KiB)"
        % (rss_warm, rss_end, growth, rss_max))
    log("p99 first window %.2f ms, last window %.2f ms (%+.1f %%); p50 %.2f / %.2f ms"
        % (p_first * 1000, p_last * 1000, fig["p99_ms"]["change_pct"] or 0, fig["p50_ms"]["first_window"] or 0,
           fig["p50_ms"]["last_window"] or 0))
    log("daemon exit code %s; %s" % (code, "passed" if ok else "FAILED: " + " | ".join(reasons)))
    if ok:
        os.unlink(d.log.name)
    return 0 if ok else 1


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
