#!/usr/bin/env bash
# check_tutorial.sh - run every ```sh block of docs/tutorials/starving-the-gpu.md against a
# fresh mlsysd and compare its output with the ```json / ```text / ```csv block that follows
# it in the document (exact text; trailing newlines aside, as $(...) strips them).
#
#   tests/docs/check_tutorial.sh [path/to/mlsysd]        (default: build/mlsysd)
#   DOC=other.md tests/docs/check_tutorial.sh ...         (check another page)
#
# The daemon listens on a free port (--port 0; the port is read from its "listening" log
# line) and every "127.0.0.1:8080" in a command is rewritten to it, every "build-release/mlsysd"
# (what scripts/serve.sh builds, which the README's commands use) to the binary checked. Each block runs in its
# own `bash -eo pipefail`, so blocks must not depend on each other. Other fenced blocks
# (```bash, ```python, ...) are prose and are not run. Prints "N passed, N failed"; exits
# non-zero on any failure. Needs curl and jq.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-build/mlsysd}
# Without an argument, build/mlsysd is looked up in the working directory, then in the repository.
[[ $# -eq 0 && ! -x $bin && -x $root/build/mlsysd ]] && bin=$root/build/mlsysd
doc=${DOC:-$root/docs/tutorials/starving-the-gpu.md}

die() { echo "check_tutorial: $*" >&2; exit 2; }

[[ -x $bin ]] || die "no executable mlsysd at '$bin' (give its path as the first argument)"
[[ -f $doc ]] || die "no document at '$doc'"
command -v curl >/dev/null || die "curl is required"
if ! command -v jq >/dev/null; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        echo "check_tutorial: installing jq" >&2
        apt-get install -y -qq jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq >/dev/null; }
    fi
    command -v jq >/dev/null || die "jq is required (apt-get install jq)"
fi

# --- start the daemon -------------------------------------------------------------------
work=$(mktemp -d)
pid=""
stop() {
    if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap stop EXIT

: >"$work/daemon.log" # before the daemon: the loop below may read it before the child's redirection makes it
"$bin" --host 127.0.0.1 --port 0 --drain-delay 0 >"$work/daemon.log" 2>&1 &
pid=$!
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's/.*"msg":"listening".*"port":\([0-9][0-9]*\).*/\1/p' "$work/daemon.log" | head -n 1)
    [[ -n $port ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
[[ -n $port ]] || { cat "$work/daemon.log" >&2; die "mlsysd did not start"; }
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.05
done
curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || die "mlsysd on port $port is not ready"

# --- split the document into fenced blocks ------------------------------------------------
langs=()   # info string of each fenced block ("sh", "json", "bash", ...)
bodies=()  # its text, lines joined with \n
lines=()   # line number of its opening fence
in_block=false
lang="" body="" start=0 n=0
while IFS= read -r line || [[ -n $line ]]; do
    n=$((n + 1))
    if ! $in_block; then
        if [[ $line =~ ^\`\`\`([A-Za-z0-9_+-]*)[[:space:]]*$ ]]; then
            in_block=true lang=${BASH_REMATCH[1]} body="" start=$n
            first=true
        fi
    elif [[ $line =~ ^\`\`\`[[:space:]]*$ ]]; then
        in_block=false
        langs+=("$lang") bodies+=("$body") lines+=("$start")
    else
        if $first; then body=$line first=false; else body+=$'\n'$line; fi
    fi
done <"$doc"
$in_block && die "$doc: unclosed code fence opened at line $start"

# --- run and compare ----------------------------------------------------------------------
passed=0 failed=0
for i in "${!langs[@]}"; do
    [[ ${langs[i]} == sh ]] || continue
    j=$((i + 1))
    where="$(basename "$doc"):${lines[i]}"
    if [[ $j -ge ${#langs[@]} || ! ${langs[j]} =~ ^(json|text|csv)$ ]]; then
        echo "FAIL $where: the sh block is not followed by a json, text or csv block"
        failed=$((failed + 1))
        continue
    fi
    cmd=${bodies[i]//127.0.0.1:8080/127.0.0.1:$port}
    cmd=${cmd//build-release\/mlsysd/$bin}
    expected=${bodies[j]}
    rc=0
    actual=$(bash -eo pipefail -c "$cmd" 2>"$work/stderr") || rc=$?
    if [[ $rc -eq 0 && $actual == "$expected" ]]; then
        passed=$((passed + 1))
        continue
    fi
    failed=$((failed + 1))
    echo "FAIL $where (exit status $rc)"
    diff -u --label expected --label actual <(printf '%s\n' "$expected") <(printf '%s\n' "$actual") | sed 's/^/    /' || true
    if [[ -s $work/stderr ]]; then
        sed 's/^/    stderr: /' "$work/stderr"
    fi
done

echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
