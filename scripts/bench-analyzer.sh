#!/usr/bin/env bash
# POST /analyze throughput on the golden corpus, limiter on vs off, side by side in one run:
# two release analyzers on loopback, the same bounded wrk load against each in turn.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-6s}
ROUNDS=${ROUNDS:-4}
CONNECTIONS=${CONNECTIONS:-8}
CORPUS=${CORPUS:-services/analyzer/tests/corpus}
TOKEN=${TOKEN:-bench-analyzer-token}

if [[ ${1:-} == --help ]]; then
  echo "usage: scripts/bench-analyzer.sh  (env: DURATION=$DURATION ROUNDS=$ROUNDS CONNECTIONS=$CONNECTIONS CORPUS=$CORPUS)"
  exit 0
fi
command -v wrk >/dev/null || { echo "bench-analyzer.sh: needs wrk (apt-get install wrk)" >&2; exit 1; }

cargo build -q --release -p analyzer
work=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# One batch: every source file of the corpus (not its .json expectations).
python3 - "$CORPUS" "$work/body.json" <<'PY'
import json, os, sys
corpus, out = sys.argv[1], sys.argv[2]
files = []
for root, _, names in os.walk(corpus):
    for name in sorted(names):
        if name.endswith(".json"):
            continue
        path = os.path.join(root, name)
        files.append({"path": os.path.relpath(path, corpus), "content": open(path, encoding="utf-8").read()})
json.dump({"files": files}, open(out, "w"))
print(f"batch: {len(files)} files, {sum(len(f['content']) for f in files)} bytes of source")
PY

start() {
  local port=$1 enabled=$2
  ANALYZER_TOKEN=$TOKEN PORT=$port ANALYZER_RATE_LIMIT_ENABLED=$enabled \
    ANALYZER_RATE_LIMIT_ANALYZE=1000000000/1h RUST_LOG=warn target/release/analyzer &
  pids+=($!)
  for _ in $(seq 50); do PORT=$port target/release/analyzer --healthcheck 2>/dev/null && return; sleep 0.1; done
  echo "analyzer on $port did not start" >&2; exit 1
}
start 19101 true
start 19102 false

# Alternating runs (on, off, on, off, ...) so drift on a shared machine hits both sides alike.
for round in $(seq "$ROUNDS"); do
  for side in "on:19101" "off:19102"; do
    rate=$(TOKEN=$TOKEN BODY_FILE=$work/body.json wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency \
      -s scripts/bench/post.lua "http://127.0.0.1:${side##*:}/analyze" | tee "$work/wrk.txt" \
      | awk '/Requests\/sec/ {print $2}')
    p99=$(awk '/ 99%/ {print $2}' "$work/wrk.txt")
    errors=$(awk '/Non-2xx/ {print $5}' "$work/wrk.txt")
    echo "round $round limiter ${side%%:*}: $rate requests/s, p99 $p99, non-2xx ${errors:-0}"
    echo "${side%%:*} $rate" >>"$work/rates"
  done
done
awk -v bytes="$(wc -c <"$work/body.json")" '
  { sum[$1] += $2; n[$1]++ }
  END {
    on = sum["on"] / n["on"]; off = sum["off"] / n["off"]
    printf "mean: limiter on %.0f requests/s, off %.0f requests/s, ratio %.3f\n", on, off, on / off
  }' "$work/rates"
