#!/usr/bin/env bash
# POST /analyze throughput on the golden corpus, limiter on vs off, side by side in one run:
# two release analyzers on loopback, the same bounded wrk load against each in turn.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-8s}
CONNECTIONS=${CONNECTIONS:-8}
CORPUS=${CORPUS:-services/analyzer/tests/corpus}
TOKEN=${TOKEN:-bench-analyzer-token}

if [[ ${1:-} == --help ]]; then
  echo "usage: scripts/bench-analyzer.sh  (env: DURATION=$DURATION CONNECTIONS=$CONNECTIONS CORPUS=$CORPUS)"
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

# Alternating runs (on, off, on, off) so drift on a shared machine hits both sides alike.
for run in "limiter on:19101" "limiter off:19102" "limiter on:19101" "limiter off:19102"; do
  echo "== ${run%%:*}"
  TOKEN=$TOKEN BODY_FILE=$work/body.json wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency \
    -s scripts/bench/post.lua "http://127.0.0.1:${run##*:}/analyze" | grep -E 'Requests/sec|  Latency|99%|Non-2xx'
done
