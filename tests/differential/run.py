#!/usr/bin/env python3
"""Random differential of the breadth solvers: the daemon against calc.py.

Contract: starts the daemon given by --daemon (default build/mlsysd) on a free loopback
port, posts every case of gen.cases(seed, count) to POST /solve (mlsysim mode, current
catalog), and compares each output the calculator states at relative error 1e-9
(absolute 1e-12 near zero; infinite = null; strings and booleans exactly; a dotted
name is a member of a record output). A case the calculator refuses must be a 400
application/problem+json; a case it answers must be a 200. Prints each disagreement (at
most --show) and a summary per solver; exits 1 on any disagreement or when the daemon
does not exit 0 on SIGTERM, 77 without the reference catalog.
Usage: run.py [--seed N ...] [--count N] [--solver NAME ...] [--daemon PATH].
"""

import argparse
import http.client
import json
import math
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calc  # noqa: E402
import gen   # noqa: E402

REL = 1e-9
ABS = 1e-12


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(daemon):
    port = free_port()
    proc = subprocess.Popen([daemon, "--host", "127.0.0.1", "--port", str(port),
                             "--threads", "1", "--calibration", "mlsysim"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request("GET", "/health")
            c.getresponse().read()
            return proc, c
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("daemon did not start on port %d" % port)


def same(want, got):
    if isinstance(want, bool) or isinstance(want, str):
        return want == got
    if want is None:
        return got is None
    if isinstance(want, float) and math.isinf(want):
        return got is None
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        return False
    return abs(got - want) <= max(ABS, REL * abs(want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, nargs="+", default=[1])
    ap.add_argument("--count", type=int, default=1000, help="cases per seed")
    ap.add_argument("--solver", nargs="*")
    ap.add_argument("--daemon", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                    "build", "mlsysd"))
    ap.add_argument("--show", type=int, default=20)
    a = ap.parse_args()
    if not os.path.exists(calc.CATALOG_PATH):
        print("skipped: no reference catalog at %s (set MLSYSD_SHARED)" % calc.CATALOG_PATH)
        return 77
    proc, conn = start(a.daemon)
    stats = {}
    shown = 0
    bad = 0
    try:
        for seed in a.seed:
            for i, (solver, inputs) in enumerate(gen.cases(seed, a.count, a.solver)):
                st = stats.setdefault(solver, [0, 0, 0])  # cases, refused, disagreements
                st[0] += 1
                try:
                    want = calc.solve(solver, inputs)
                except calc.Refused:
                    want = None
                body = json.dumps({"solver": solver, "calibration": "mlsysim",
                                   "inputs": inputs})
                conn.request("POST", "/solve", body, {"Content-Type": "application/json"})
                r = conn.getresponse()
                text = r.read()
                problems = []
                if want is None:
                    st[1] += 1
                    if r.status != 400:
                        problems.append("expected 400, got %d" % r.status)
                    elif r.getheader("Content-Type", "") != "application/problem+json":
                        problems.append("400 without problem+json: %s"
                                        % r.getheader("Content-Type"))
                elif r.status != 200:
                    problems.append("expected 200, got %d: %s" % (r.status, text[:300]))
                else:
                    res = json.loads(text)["result"]
                    for k, v in want.items():
                        got = res
                        for part in k.split("."):  # "a.b": member b of record a
                            got = got.get(part, KeyError) if isinstance(got, dict) else KeyError
                        if got is KeyError:
                            problems.append("%s missing" % k)
                        elif not same(v, got):
                            problems.append("%s: want %r got %r" % (k, v, got))
                if problems:
                    st[2] += 1
                    bad += 1
                    if shown < a.show:
                        shown += 1
                        print("DISAGREE seed %d case %d %s %s\n  %s" % (
                            seed, i, solver, json.dumps(inputs), "\n  ".join(problems)))
    finally:
        conn.close()
        proc.terminate()
        rc = proc.wait(timeout=30)
    if rc != 0:  # e.g. a sanitizer report at exit
        print("daemon exited %d on SIGTERM" % rc)
        bad += 1
    total = sum(s[0] for s in stats.values())
    for name in sorted(stats):
        c, rf, d = stats[name]
        print("%-24s cases %5d refused %4d disagreements %d" % (name, c, rf, d))
    print("total: %d cases over %d solvers, seeds %s: %d disagreements" % (
        total, len(stats), a.seed, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
