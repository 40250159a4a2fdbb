#!/usr/bin/env bash
# Backend benchmarks over loopback (docs/performance.md, "Backend"), two release
# backends on 127.0.0.1, every load bounded:
#  1. limiter cost: GET /api/v1/generator/bench (metered by EXPENSIVE per bearer, budget so
#     large it never refuses; no GET route, so the router's 404) against GET /api/v1/nowhere
#     (no rule matches; the same 404 handler), same bearer, same backend, alternating wrk
#     rounds: the limiter is the only difference;
#  2. credential stuffing: LOGINS one-guess logins for LOGINS distinct addresses from one
#     client address at default budgets; how many password verifications ran, from the
#     backend's own limiter_decisions_total counters, and the wall time.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-6s}
ROUNDS=${ROUNDS:-4}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-8}
LOGINS=${LOGINS:-10000}
STUFFERS=${STUFFERS:-8}
METERED_PORT=${METERED_PORT:-19201}
STUFFED_PORT=${STUFFED_PORT:-19202}

if [[ ${1:-} == --help ]]; then
  cat <<USAGE
usage: scripts/bench-backend.sh
env: DURATION=$DURATION ROUNDS=$ROUNDS THREADS=$THREADS CONNECTIONS=$CONNECTIONS (wrk, part 1)
     LOGINS=$LOGINS STUFFERS=$STUFFERS (part 2: logins, concurrent connections)
     METERED_PORT=$METERED_PORT STUFFED_PORT=$STUFFED_PORT (loopback ports of the two backends)
     REDIS_URL (optional: both backends on that Redis instead of memory and the embedded store)
USAGE
  exit 0
fi
command -v wrk >/dev/null || { echo "bench-backend.sh: needs wrk (apt-get install wrk)" >&2; exit 1; }

cargo build -q --release -p backend
bin=${CARGO_TARGET_DIR:-target}/release/backend
work=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
secret=$(openssl rand -hex 32)

# start PORT [VAR=value ...]: a release backend with its own data directory, up within 5 s.
start() {
  local port=$1
  shift
  mkdir -p "$work/data-$port"
  env SECURITY_JWT_SECRET_KEY="$secret" PORT="$port" DATA_DIR="$work/data-$port" RUST_LOG=warn \
    "$@" "$bin" &
  pids+=($!)
  for _ in $(seq 50); do PORT=$port "$bin" --healthcheck 2>/dev/null && return; sleep 0.1; done
  echo "backend on $port did not start" >&2
  exit 1
}

# ticks PID: the user + system clock ticks a process has used.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# count PORT GROUP OUTCOME: limiter_decisions_total for one group and outcome (0 when absent).
count() {
  curl -fsS "http://127.0.0.1:$1/actuator/prometheus" \
    | awk -v labels="group=\"$2\",outcome=\"$3\"" '
        /^limiter_decisions_total/ && index($0, labels) { sum += $NF }
        END { printf "%d\n", sum }'
}

start "$METERED_PORT" RATE_LIMIT_EXPENSIVE=1000000000/1h
metered_pid=${pids[-1]}
start "$STUFFED_PORT"

echo "== 1. limiter on (metered path) vs no rule (unmetered path), one backend, $ROUNDS rounds"
bearer="Authorization: Bearer bench-client-token"
metered="http://127.0.0.1:$METERED_PORT/api/v1/generator/bench"
unmetered="http://127.0.0.1:$METERED_PORT/api/v1/nowhere"
for url in "$metered" "$unmetered"; do
  echo "probe $url:"
  curl -sS -H "$bearer" -D - -o "$work/body" "$url" | grep -iE '^(HTTP|ratelimit)' | tr -d '\r'
  echo "  body: $(cat "$work/body")"
done
allowed_before=$(count "$METERED_PORT" expensive allowed)
served=0
# Alternating runs (on, off, on, off, ...) so drift on a shared machine hits both sides alike.
for round in $(seq "$ROUNDS"); do
  for side in on off; do
    url=$metered
    [[ $side == off ]] && url=$unmetered
    before=$(ticks "$metered_pid")
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -H "$bearer" "$url" >"$work/wrk.txt"
    after=$(ticks "$metered_pid")
    rate=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")
    p99=$(awk '/ 99%/ {print $2}' "$work/wrk.txt")
    requests=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
    non2xx=$(awk '/Non-2xx/ {print $5}' "$work/wrk.txt")
    cpu=$(awk -v t=$((after - before)) -v n="$requests" -v hz="$(getconf CLK_TCK)" \
      'BEGIN {printf "%.2f", t / hz * 1e6 / n}')
    echo "round $round limiter $side: $rate requests/s, p99 $p99, $requests requests, non-2xx (the 404s) ${non2xx:-0}, backend CPU $cpu µs/request"
    echo "$side $rate $cpu" >>"$work/rates"
    [[ $side == on ]] && served=$((served + requests))
  done
done
# Throughput is what a client sees; the backend's CPU time per request is the same cost
# seen from the server, and far less moved by other work on the machine.
awk '{ sum[$1] += $2; cpu[$1] += $3; n[$1]++ }
  END {
    on = sum["on"] / n["on"]; off = sum["off"] / n["off"]
    printf "mean: limiter on %.0f requests/s, no rule %.0f requests/s, ratio %.3f (target >= 0.97)\n", on, off, on / off
    on = cpu["on"] / n["on"]; off = cpu["off"] / n["off"]
    printf "backend CPU per request: limiter on %.2f µs, no rule %.2f µs, ratio off/on %.3f\n", on, off, off / on
  }' "$work/rates"
echo "expensive decisions during the metered runs: allowed $(( $(count "$METERED_PORT" expensive allowed) - allowed_before )) (wrk counted $served requests; it stops mid-flight, so a few more may be decided), refused $(count "$METERED_PORT" expensive refused)"

echo "== 2. credential stuffing: $LOGINS one-guess logins, $LOGINS addresses, one client, default budgets"
for group in credential auth_credential; do
  for outcome in allowed refused; do
    echo "$group $outcome $(count "$STUFFED_PORT" "$group" "$outcome")" >>"$work/before"
  done
done
python3 - "$STUFFED_PORT" "$LOGINS" "$STUFFERS" <<'PY'
import http.client, json, sys, threading, time
port, total, stuffers = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
lock, statuses, sent = threading.Lock(), {}, [0]

def next_index():
    with lock:
        if sent[0] >= total:
            return None
        sent[0] += 1
        return sent[0]

def stuffer():
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while (index := next_index()) is not None:
        body = json.dumps({"email": f"victim{index}@example.com", "password": "Winter2024!"})
        connection.request("POST", "/api/v1/auth/login", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        with lock:
            statuses[response.status] = statuses.get(response.status, 0) + 1

started = time.monotonic()
threads = [threading.Thread(target=stuffer) for _ in range(stuffers)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
wall = time.monotonic() - started
answers = ", ".join(f"{count} x {status}" for status, count in sorted(statuses.items()))
print(f"{sum(statuses.values())} logins in {wall:.2f} s ({sum(statuses.values()) / wall:.0f}/s) over {stuffers} connections: {answers}")
PY
while read -r group outcome before; do
  after=$(count "$STUFFED_PORT" "$group" "$outcome")
  echo "limiter_decisions_total{group=\"$group\",outcome=\"$outcome\"}: $before -> $after (+$((after - before)))"
done <"$work/before"
verified=$(( $(count "$STUFFED_PORT" auth_credential allowed) - $(awk '$1 == "auth_credential" && $2 == "allowed" {print $3}' "$work/before") ))
echo "password verifications: $verified (each login that passes both filters runs exactly one; the rest are refused before any hashing)"
