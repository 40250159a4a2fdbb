#!/usr/bin/env bash
# The ingress against nginx (Debian's package), both proxying the same origin on loopback,
# side by side in one run (docs/performance.md, "Ingress"):
#  - the origin: a third nginx answering 200 "ok" from memory (the cheapest origin there is,
#    so the proxies' own cost shows);
#  - nginx as a proxy configured like the ingress: HTTP/1.1 with upstream keep-alive,
#    X-Forwarded-For/-Proto/-Host, HSTS on every answer, no buffering either way;
#  - the ingress (release build) with the same origin as its catch-all service.
# Rounds alternate direct / ingress / nginx, each a bounded wrk run; the summary gives each
# target's median requests/s and p99, the throughput ratio ingress/nginx (target >= 1.0) and
# the p99 each proxy adds over the direct origin (target <= 1 ms), and the CPU time each
# target's own processes spent per request (user + system, from /proc): on a machine shared
# with other work, the figure least moved by noise.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
ORIGIN_PORT=${ORIGIN_PORT:-19301}
NGINX_PORT=${NGINX_PORT:-19302}
INGRESS_PORT=${INGRESS_PORT:-19303}
INGRESS_ADMIN_PORT=${INGRESS_ADMIN_PORT:-19304}

if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  cat <<USAGE
usage: scripts/bench-ingress.sh
Installs wrk and nginx with apt-get when missing (as root), builds the ingress (release),
then runs ROUNDS x (direct origin, ingress, nginx) wrk rounds of DURATION each.
env: DURATION=$DURATION ROUNDS=$ROUNDS THREADS=$THREADS CONNECTIONS=$CONNECTIONS (wrk)
     ORIGIN_PORT=$ORIGIN_PORT NGINX_PORT=$NGINX_PORT INGRESS_PORT=$INGRESS_PORT
     INGRESS_ADMIN_PORT=$INGRESS_ADMIN_PORT (loopback ports)
USAGE
  exit 0
fi

# Debian's packages, installed without starting the packaged nginx service on port 80.
install_missing() {
  local missing=()
  command -v wrk >/dev/null || missing+=(wrk)
  [[ -x /usr/sbin/nginx ]] || missing+=(nginx-light)
  [[ ${#missing[@]} -eq 0 ]] && return
  echo "bench-ingress.sh: installing ${missing[*]} with apt-get" >&2
  local guard=/usr/sbin/policy-rc.d placed=0
  if [[ ! -e $guard ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$guard" && chmod +x "$guard" && placed=1
  fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  [[ $placed == 1 ]] && rm -f "$guard"
  return 0
}
install_missing

cargo build -q --release -p ingress
ingress=${CARGO_TARGET_DIR:-target}/release/ingress
work=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# nginx NAME SERVER-BLOCK: an nginx of our own (two workers, no access log) in $work/NAME.
declare -A master
nginx() {
  local name=$1 server=$2
  mkdir -p "$work/$name"
  cat >"$work/$name/nginx.conf" <<CONF
worker_processes 2;
pid $work/$name/nginx.pid;
error_log $work/$name/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work/$name/body;
  proxy_temp_path $work/$name/proxy;
  $server
}
CONF
  /usr/sbin/nginx -p "$work/$name" -c "$work/$name/nginx.conf" -g 'daemon off;' &
  pids+=($!)
  master[$name]=$!
}

nginx origin "server {
    listen 127.0.0.1:$ORIGIN_PORT;
    keepalive_requests 100000;
    location / { default_type text/plain; return 200 'ok'; }
  }"
nginx proxy "upstream origin { server 127.0.0.1:$ORIGIN_PORT; keepalive 64; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    keepalive_requests 100000;
    location / {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection '';
      proxy_set_header Host \$host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto \$scheme;
      proxy_set_header X-Forwarded-Host \$host;
      proxy_buffering off;
      proxy_request_buffering off;
      add_header Strict-Transport-Security 'max-age=31536000; includeSubDomains' always;
    }
  }"
cat >"$work/ingress.yml" <<YAML
ingress:
  - service: http://127.0.0.1:$ORIGIN_PORT
YAML
INGRESS_CONFIG=$work/ingress.yml PORT=$INGRESS_PORT INGRESS_ADMIN_PORT=$INGRESS_ADMIN_PORT \
  RUST_LOG=warn "$ingress" &
pids+=($!)
master[ingress]=$!

for port in "$ORIGIN_PORT" "$NGINX_PORT" "$INGRESS_PORT"; do
  for attempt in $(seq 50); do
    curl -fsS -o /dev/null "http://127.0.0.1:$port/" && break
    [[ $attempt == 50 ]] && { echo "nothing answers on $port" >&2; exit 1; }
    sleep 0.1
  done
done

# to_ms VALUE: wrk's 1.23ms / 456.78us / 1.02s in milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN {
    if (v ~ /us$/) { sub(/us$/, "", v); print v / 1000 }
    else if (v ~ /ms$/) { sub(/ms$/, "", v); print v + 0 }
    else if (v ~ /s$/) { sub(/s$/, "", v); print v * 1000 }
  }'
}

# ticks PROCESS: user + system clock ticks of a process and its children (nginx's workers).
ticks() {
  local pid=$1 total=0 child
  for child in "$pid" $(ps -o pid= --ppid "$pid"); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}

# round NAME PORT PROCESS: one wrk run; appends "NAME rps p50_ms p99_ms errors cpu_us" to
# $work/results, cpu_us being PROCESS's CPU time per request.
round() {
  local name=$1 port=$2 process=$3 out="$work/wrk-$1.txt" before after
  before=$(ticks "$process")
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "http://127.0.0.1:$port/" >"$out"
  after=$(ticks "$process")
  local rps p50 p99 errors requests cpu
  rps=$(awk '/Requests\/sec/ {print $2}' "$out")
  p50=$(to_ms "$(awk '$1 == "50%" {print $2}' "$out")")
  p99=$(to_ms "$(awk '$1 == "99%" {print $2}' "$out")")
  errors=$(awk '/Non-2xx|Socket errors/ {n++} END {print n + 0}' "$out")
  requests=$(awk '/requests in/ {print $1}' "$out")
  cpu=$(awk -v t=$((after - before)) -v n="$requests" -v hz="$(getconf CLK_TCK)" \
    'BEGIN {printf "%.1f", t / hz * 1e6 / n}')
  echo "$name $rps $p50 $p99 $errors $cpu" | tee -a "$work/results"
}

echo "warm-up (not counted)"
for port in "$ORIGIN_PORT" "$INGRESS_PORT" "$NGINX_PORT"; do
  wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "http://127.0.0.1:$port/" >/dev/null
done
echo "target requests/s p50_ms p99_ms error_lines cpu_us_per_request"
for round_number in $(seq "$ROUNDS"); do
  round direct "$ORIGIN_PORT" "${master[origin]}"
  round ingress "$INGRESS_PORT" "${master[ingress]}"
  round nginx "$NGINX_PORT" "${master[proxy]}"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

# Medians per target, then the two figures the targets are about.
awk -v rounds="$ROUNDS" '
  function median(list, n,   i, j, t, a) {
    split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { rps[$1] = rps[$1] " " $2; p50[$1] = p50[$1] " " $3; p99[$1] = p99[$1] " " $4; cpu[$1] = cpu[$1] " " $6; n[$1]++; err += $5 }
  END {
    for (t in n) { R[t] = median(rps[t], n[t]); P50[t] = median(p50[t], n[t]); P99[t] = median(p99[t], n[t]); C[t] = median(cpu[t], n[t]) }
    printf "\n| target | requests/s (median of %d) | p50 | p99 | p99 added over direct | its CPU per request |\n|---|---|---|---|---|---|\n", rounds
    printf "| origin direct | %.0f | %.2f ms | %.2f ms | — | %.1f µs |\n", R["direct"], P50["direct"], P99["direct"], C["direct"]
    printf "| ingress | %.0f | %.2f ms | %.2f ms | %+.2f ms | %.1f µs |\n", R["ingress"], P50["ingress"], P99["ingress"], P99["ingress"] - P99["direct"], C["ingress"]
    printf "| nginx | %.0f | %.2f ms | %.2f ms | %+.2f ms | %.1f µs |\n", R["nginx"], P50["nginx"], P99["nginx"], P99["nginx"] - P99["direct"], C["nginx"]
    printf "\nthroughput ratio ingress/nginx: %.2f (target >= 1.0)\n", R["ingress"] / R["nginx"]
    printf "p99 added by the ingress: %+.2f ms (target <= 1 ms); by nginx: %+.2f ms\n", P99["ingress"] - P99["direct"], P99["nginx"] - P99["direct"]
    printf "proxy CPU per request, ingress/nginx: %.2f\n", C["ingress"] / C["nginx"]
    if (err > 0) printf "WARNING: %d wrk runs reported errors or non-2xx answers\n", err
  }' "$work/results"
