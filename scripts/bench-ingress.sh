#!/usr/bin/env bash
# The ingress against nginx (Debian's package), both proxying the same origin on loopback,
# side by side in one run (docs/performance.md, "Ingress"):
#  - the origin: a third nginx answering 200 "ok" from memory (the cheapest origin there is,
#    so the proxies' own cost shows);
#  - nginx as a proxy configured like the ingress: HTTP/1.1 with upstream keep-alive,
#    X-Forwarded-For/-Proto/-Host, a request id minted per request ($request_id), sent to the
#    origin and echoed as X-Request-Id, HSTS on HTTPS, no buffering either way; plain HTTP and HTTPS
#    (HTTP/2 by ALPN) with the same certificate as the ingress;
#  - the ingress (release build) with the same origin as its catch-all service, serving
#    plain HTTP (not redirecting) beside HTTPS.
# Rounds alternate every target, each a bounded run: wrk for HTTP/1.1 (plain and over TLS,
# connections kept alive, so the handshake is paid once per connection) and h2load for
# HTTP/2 (MAX_STREAMS concurrent streams per connection). The summary gives each target's
# median requests/s and latency (p99 from wrk; h2load reports only the mean), the
# throughput ratio ingress/nginx per protocol (target >= 1.0), the p99 each proxy adds over
# the direct origin, and the CPU time each target's own processes spent per request
# (user + system, from /proc): on a machine shared with other work, the figure least moved
# by noise.
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
NGINX_TLS_PORT=${NGINX_TLS_PORT:-19305}
INGRESS_TLS_PORT=${INGRESS_TLS_PORT:-19306}
MAX_STREAMS=${MAX_STREAMS:-8}

if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  cat <<USAGE
usage: scripts/bench-ingress.sh
Installs wrk and nginx with apt-get when missing (as root), builds the ingress (release),
makes a certificate with scripts/dev-cert.sh in a temporary directory, then runs ROUNDS x
(direct origin; ingress and nginx over plain HTTP/1.1, HTTPS/1.1 and HTTP/2) rounds of
DURATION each.
env: DURATION=$DURATION ROUNDS=$ROUNDS THREADS=$THREADS CONNECTIONS=$CONNECTIONS (wrk, h2load)
     MAX_STREAMS=$MAX_STREAMS (h2load's concurrent streams per connection)
     ORIGIN_PORT=$ORIGIN_PORT NGINX_PORT=$NGINX_PORT INGRESS_PORT=$INGRESS_PORT
     NGINX_TLS_PORT=$NGINX_TLS_PORT INGRESS_TLS_PORT=$INGRESS_TLS_PORT
     INGRESS_ADMIN_PORT=$INGRESS_ADMIN_PORT (loopback ports)
USAGE
  exit 0
fi

# Debian's packages, installed without starting the packaged nginx service on port 80.
install_missing() {
  local missing=()
  command -v wrk >/dev/null || missing+=(wrk)
  command -v h2load >/dev/null || missing+=(nghttp2-client)
  command -v openssl >/dev/null || missing+=(openssl)
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
DEV_CERT_DIR=$work/cert scripts/dev-cert.sh >/dev/null
cert=$work/cert/cert.pem key=$work/cert/key.pem

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
# HSTS on HTTPS answers only, as the ingress sends it (an empty add_header is not sent).
nginx proxy "upstream origin { server 127.0.0.1:$ORIGIN_PORT; keepalive 64; }
  map \$scheme \$hsts { https 'max-age=31536000; includeSubDomains'; default ''; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    keepalive_requests 100000;
    listen 127.0.0.1:$NGINX_TLS_PORT ssl http2;
    ssl_certificate $cert;
    ssl_certificate_key $key;
    ssl_protocols TLSv1.3;
    ssl_session_cache shared:tls:1m;
    location / {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection '';
      proxy_set_header Host \$host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto \$scheme;
      proxy_set_header X-Forwarded-Host \$host;
      proxy_set_header X-Request-Id \$request_id;
      add_header X-Request-Id \$request_id always;
      proxy_buffering off;
      proxy_request_buffering off;
      add_header Strict-Transport-Security \$hsts always;
    }
  }"
cat >"$work/ingress.yml" <<YAML
ingress:
  - service: http://127.0.0.1:$ORIGIN_PORT
YAML
INGRESS_CONFIG=$work/ingress.yml PORT=$INGRESS_PORT INGRESS_ADMIN_PORT=$INGRESS_ADMIN_PORT \
  INGRESS_TLS_CERT=$cert INGRESS_TLS_KEY=$key INGRESS_TLS_PORT=$INGRESS_TLS_PORT \
  INGRESS_PLAIN_HTTP=serve RUST_LOG=warn,rustls=error "$ingress" &
pids+=($!)
master[ingress]=$!

# The URLs of the targets (the certificate names 127.0.0.1 too; wrk and h2load send it as
# SNI, which rustls ignores with a warning per connection, hence rustls=error above).
declare -A url=(
  [direct]="http://127.0.0.1:$ORIGIN_PORT/"
  [ingress]="http://127.0.0.1:$INGRESS_PORT/"
  [nginx]="http://127.0.0.1:$NGINX_PORT/"
  [ingress-tls]="https://127.0.0.1:$INGRESS_TLS_PORT/"
  [nginx-tls]="https://127.0.0.1:$NGINX_TLS_PORT/"
  [ingress-h2]="https://127.0.0.1:$INGRESS_TLS_PORT/"
  [nginx-h2]="https://127.0.0.1:$NGINX_TLS_PORT/"
)
declare -A process=(
  [direct]=origin [ingress]=ingress [nginx]=proxy [ingress-tls]=ingress [nginx-tls]=proxy
  [ingress-h2]=ingress [nginx-h2]=proxy
)
targets=(direct ingress nginx ingress-tls nginx-tls ingress-h2 nginx-h2)

for target in direct ingress nginx ingress-tls nginx-tls; do
  for attempt in $(seq 50); do
    curl -fsS -o /dev/null --cacert "$work/cert/ca.pem" "${url[$target]}" && break
    [[ $attempt == 50 ]] && { echo "nothing answers at ${url[$target]}" >&2; exit 1; }
    sleep 0.1
  done
done
for target in ingress-h2 nginx-h2; do
  version=$(curl -fsS -o /dev/null -w '%{http_version}' --http2 --cacert "$work/cert/ca.pem" "${url[$target]}")
  [[ $version == 2 ]] || { echo "${url[$target]} answered HTTP/$version, not HTTP/2" >&2; exit 1; }
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

# load TARGET SECONDS OUT: one bounded run against TARGET (wrk, or h2load for -h2 targets).
load() {
  local target=$1 seconds=$2 out=$3
  if [[ $target == *-h2 ]]; then
    h2load -D "$seconds" -c"$CONNECTIONS" -m"$MAX_STREAMS" -t"$THREADS" "${url[$target]}" >"$out"
  else
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${seconds}s" --latency "${url[$target]}" >"$out"
  fi
}

# round TARGET: one run; appends "TARGET rps p50_ms p99_ms errors cpu_us" to $work/results,
# cpu_us being the target's own processes' CPU time per request (h2load gives the mean
# latency in the p50 column and no p99: "-").
round() {
  local target=$1 out="$work/run-$1.txt" before after pid=${master[${process[$1]}]}
  before=$(ticks "$pid")
  load "$target" "${DURATION%s}" "$out"
  after=$(ticks "$pid")
  local rps p50 p99 errors requests cpu
  if [[ $target == *-h2 ]]; then
    rps=$(awk '/^finished in/ {print $4}' "$out")
    p50=$(to_ms "$(awk '/^time for request:/ {print $6}' "$out")")
    p99=-
    errors=$(awk '/^requests:/ {print ($10 + $12 + $14 > 0)} /^status codes:/ {print ($5 + $7 + $9 > 0)}' "$out" | awk '{n += $1} END {print n + 0}')
    requests=$(awk '/^status codes:/ {print $3}' "$out")
  else
    rps=$(awk '/Requests\/sec/ {print $2}' "$out")
    p50=$(to_ms "$(awk '$1 == "50%" {print $2}' "$out")")
    p99=$(to_ms "$(awk '$1 == "99%" {print $2}' "$out")")
    errors=$(awk '/Non-2xx|Socket errors/ {n++} END {print n + 0}' "$out")
    requests=$(awk '/requests in/ {print $1}' "$out")
  fi
  cpu=$(awk -v t=$((after - before)) -v n="$requests" -v hz="$(getconf CLK_TCK)" \
    'BEGIN {printf "%.1f", t / hz * 1e6 / n}')
  echo "$target $rps $p50 $p99 $errors $cpu" | tee -a "$work/results"
}

echo "warm-up (not counted)"
for target in "${targets[@]}"; do load "$target" 2 /dev/null; done
echo "target requests/s p50_ms p99_ms error_runs cpu_us_per_request"
for round_number in $(seq "$ROUNDS"); do
  for target in "${targets[@]}"; do round "$target"; done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

# Medians per target, then the figures the targets are about.
awk -v rounds="$ROUNDS" '
  function median(list, n,   i, j, t, a) {
    split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function row(label, t) {
    added = (t == "direct" || P99[t] == "-") ? "—" : sprintf("%+.2f ms", P99[t] - P99["direct"])
    tail = (P99[t] == "-") ? "—" : sprintf("%.2f ms", P99[t])
    printf "| %s | %.0f | %.2f ms | %s | %s | %.1f µs |\n", label, R[t], P50[t], tail, added, C[t]
  }
  { rps[$1] = rps[$1] " " $2; p50[$1] = p50[$1] " " $3; p99[$1] = p99[$1] " " $4; cpu[$1] = cpu[$1] " " $6; n[$1]++; err += $5 }
  END {
    for (t in n) {
      R[t] = median(rps[t], n[t]); P50[t] = median(p50[t], n[t]); C[t] = median(cpu[t], n[t])
      P99[t] = (p99[t] ~ /-/) ? "-" : median(p99[t], n[t])
    }
    printf "\n| target | requests/s (median of %d) | p50 (h2load: mean) | p99 | p99 added over direct | its CPU per request |\n|---|---|---|---|---|---|\n", rounds
    row("origin direct", "direct")
    row("ingress, HTTP/1.1", "ingress"); row("nginx, HTTP/1.1", "nginx")
    row("ingress, HTTPS/1.1", "ingress-tls"); row("nginx, HTTPS/1.1", "nginx-tls")
    row("ingress, HTTP/2", "ingress-h2"); row("nginx, HTTP/2", "nginx-h2")
    split("ingress nginx|ingress-tls nginx-tls|ingress-h2 nginx-h2", pairs, "|")
    split("HTTP/1.1|HTTPS/1.1|HTTP/2", names, "|")
    printf "\n| protocol | throughput ingress/nginx (target >= 1.0) | CPU per request ingress/nginx (target <= 1.0) |\n|---|---|---|\n"
    for (i = 1; i <= 3; i++) {
      split(pairs[i], p, " ")
      printf "| %s | %.2f | %.2f |\n", names[i], R[p[1]] / R[p[2]], C[p[1]] / C[p[2]]
    }
    if (err > 0) printf "WARNING: %d runs reported errors or non-2xx answers\n", err
  }' "$work/results"
