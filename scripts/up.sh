#!/usr/bin/env bash
# Brings the estate up on this machine with embedded defaults: no Docker, no Redis.
# Reads ./.env when there is one (copied from .env.example; a variable already set in the
# shell wins), builds the service binaries, starts each on its own port on 127.0.0.1, waits
# until each answers its own --healthcheck, prints where they are, and stops them all on
# Ctrl-C. The ingress serves HTTPS on 8443 with the development certificate
# (scripts/dev-cert.sh, made when missing) and redirects plain HTTP on 8080 there.
set -euo pipefail
cd "$(dirname "$0")/.."

ENV_FILE=${ENV_FILE:-.env}
# KEY=VALUE lines of $ENV_FILE, exported unless the shell already sets them; comments and
# blank lines are skipped, and the value is taken as written (no quotes are removed).
if [[ -f $ENV_FILE && ${1:-} != --help && ${1:-} != -h ]]; then
  while IFS= read -r line || [[ -n $line ]]; do
    [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
    name=${line%%=*}
    if [[ ! $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ || $line != *=* ]]; then
      echo "up.sh: $ENV_FILE: not a KEY=VALUE line: ${line:0:40}" >&2
      exit 64
    fi
    if [[ -z ${!name+set} ]]; then export "$name=${line#*=}"; fi
  done <"$ENV_FILE"
fi

PROFILE=${PROFILE:-release}
SERVICES=${SERVICES:-analyzer backend ai-service mcp-server ingress}
LOG_DIR=${LOG_DIR:-target/estate-logs}
# The ingress maps api/analyzer/ai/mcp.localhost on :8080 to the services above.
export INGRESS_CONFIG=${INGRESS_CONFIG:-services/ingress/examples/local.yml}
DEV_CERT_DIR=${DEV_CERT_DIR:-dev-cert}

if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  cat <<USAGE
usage: scripts/up.sh

Starts: $SERVICES (each on its own port, 127.0.0.1; the ingress with
$INGRESS_CONFIG's map on https://...:8443 with the certificate in $DEV_CERT_DIR/ (made by
scripts/dev-cert.sh when missing; trust $DEV_CERT_DIR/ca.pem), plain HTTP on 8080 redirected
there, its /health and /metrics on 8081), logs in $LOG_DIR/.
Reads $ENV_FILE when it exists (cp .env.example .env; the shell's own variables win).
Development defaults are filled in for secrets that are unset, with a warning.
Environment: PROFILE=$PROFILE (release|dev)  SERVICES="$SERVICES"  LOG_DIR=$LOG_DIR
  ENV_FILE=$ENV_FILE
  DEV_CERT_DIR=$DEV_CERT_DIR  (INGRESS_TLS_CERT / INGRESS_TLS_KEY name another pair)
Every service variable (docs/config.md) is passed through.
USAGE
  exit 0
fi

dev_default() {
  local name=$1 value=$2
  if [[ -z ${!name:-} ]]; then
    echo "up.sh: WARNING: $name is unset; using a development value (never in production)" >&2
    export "$name=$value"
  fi
}
DEV_ANALYZER_TOKEN=dev-analyzer-token-not-for-production
dev_default ANALYZER_TOKEN "$DEV_ANALYZER_TOKEN"
# The probe command below names the token only when it is this development value.
probe_token='"$ANALYZER_TOKEN"'
if [[ $ANALYZER_TOKEN == "$DEV_ANALYZER_TOKEN" ]]; then probe_token=$DEV_ANALYZER_TOKEN; fi
dev_default SECURITY_JWT_SECRET_KEY "dev-only-secret-$(printf '%s' "$PWD" | sha256sum | cut -c1-48)"
# A development secret is not a production one: the backend prints its own warning too.
dev_default SECURITY_JWT_REQUIRE_STRONG_SECRET false

DEV_CERT_DIR="$DEV_CERT_DIR" scripts/dev-cert.sh
export INGRESS_TLS_CERT=${INGRESS_TLS_CERT:-$DEV_CERT_DIR/cert.pem}
export INGRESS_TLS_KEY=${INGRESS_TLS_KEY:-$DEV_CERT_DIR/key.pem}

cargo_flags=()
for service in $SERVICES; do cargo_flags+=(--bin "$service"); done
target_dir=target/debug
if [[ $PROFILE == release ]]; then
  cargo_flags+=(--release)
  target_dir=target/release
fi
cargo build "${cargo_flags[@]}"

mkdir -p "$LOG_DIR"
pids=()
stop_all() {
  [[ ${#pids[@]} -gt 0 ]] && kill -TERM "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap stop_all EXIT INT TERM

for service in $SERVICES; do
  "$target_dir/$service" >"$LOG_DIR/$service.log" 2>&1 &
  pids+=($!)
done
for service in $SERVICES; do
  for attempt in $(seq 100); do
    "$target_dir/$service" --healthcheck 2>/dev/null && break
    [[ $attempt == 100 ]] && { echo "up.sh: $service did not become healthy; see $LOG_DIR/$service.log" >&2; exit 1; }
    sleep 0.2
  done
  echo "up.sh: $service is up"
done

# Where everything is: the ingress's hostnames (curl and browsers resolve *.localhost to this
# machine themselves), the state that persists between runs, and the probe with this run's
# analyzer token.
cat <<WHERE

The estate is up (HTTPS trusts $DEV_CERT_DIR/ca.pem; http://<name>.localhost:8080 redirects):
  backend     https://api.localhost:8443       (health: /actuator/health)
  analyzer    https://analyzer.localhost:8443  (every route but /health needs X-Analyzer-Token)
  ai-service  https://ai.localhost:8443
  mcp-server  https://mcp.localhost:8443/mcp
  ingress     http://127.0.0.1:${INGRESS_ADMIN_PORT:-8081}/health and /metrics (not through the hostnames)
State: the backend's store and outbox.jsonl in ${DATA_DIR:-./data} (kept between runs); logs in $LOG_DIR/.
Check it (a fresh estate: the probe spends budgets):
  ANALYZER_TOKEN=$probe_token cargo run --release --bin estate-probe -- \
    https://127.0.0.1:8443 --cacert $DEV_CERT_DIR/ca.pem --plain-url http://127.0.0.1:8080
Ctrl-C stops it.
WHERE
wait
