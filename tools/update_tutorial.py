#!/usr/bin/env python3
"""update_tutorial.py - rewrite the output blocks of a checked page from the daemon.

tests/docs/check_tutorial.sh runs every ```sh block of a page and compares its
output with the ```json / ```text / ```csv block after it. When the answers change
on purpose (measured mode refitted by `build/calibrate --write`), this rewrites
those blocks with what the daemon now answers, so the diff shows every figure
that moved:

    tools/update_tutorial.py docs/tutorials/serving-70b-under-load.md [build/mlsysd]

It starts the daemon on a free port, runs each block as check_tutorial.sh does
(`bash -eo pipefail`, 127.0.0.1:8080 rewritten to the port) and writes the page
back. Prose that quotes figures is not touched: read the diff.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

BLOCK = re.compile(r"```sh\n(.*?)\n```\n\n```(json|text|csv)\n(.*?)\n```", re.S)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    page = sys.argv[1]
    binary = sys.argv[2] if len(sys.argv) > 2 else "build/mlsysd"
    log = tempfile.NamedTemporaryFile(mode="w+", suffix=".log")
    daemon = subprocess.Popen([binary, "--port", "0"], stdout=log, stderr=subprocess.DEVNULL)
    port = None
    deadline = time.time() + 10
    while port is None and time.time() < deadline:
        time.sleep(0.05)
        m = re.search(r'"msg":"listening".*?"port":(\d+)', open(log.name).read())
        if m:
            port = m.group(1)
    if port is None:
        daemon.kill()
        sys.exit("update_tutorial: the daemon did not say which port it listens on")
    try:
        text = open(page).read()

        def run(m):
            cmd = m.group(1).replace("127.0.0.1:8080", "127.0.0.1:" + port)
            out = subprocess.run(["bash", "-eo", "pipefail", "-c", cmd], capture_output=True, text=True, check=True)
            return "```sh\n%s\n```\n\n```%s\n%s\n```" % (m.group(1), m.group(2), out.stdout.rstrip("\n"))

        new = BLOCK.sub(run, text)
        if new != text:
            open(page, "w").write(new)
            print("update_tutorial: %s rewritten" % page)
        else:
            print("update_tutorial: %s unchanged" % page)
    finally:
        daemon.terminate()
        daemon.wait()


if __name__ == "__main__":
    main()
