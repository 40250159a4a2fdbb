#!/usr/bin/env bash
# stack.sh — the estate as a Docker Swarm stack: compose/compose.yaml with
# compose/stack/stack.yaml over it, deployed with `docker stack deploy` on a swarm (a
# single-node swarm is made when the engine is in none, and left again afterwards).
#
# `test` (what CI runs after scripts/cluster.sh test) proves, against the running stack:
#   1. every service converges: two healthy tasks each (the ingress: one per node), Redis as
#      a primary, a replica and three Sentinels, Prometheus;
#   2. every host name answers through the ingress over HTTPS, with HSTS;
#   3. Prometheus scrapes every task of every service through Swarm's DNS, and has the rules;
#   4. every service is rolled (`docker service update --force`) while requests flow through
#      the ingress to each of them: no request fails; the ingress's own roll is measured;
#   5. the Redis primary is killed under a login load through the ingress: the Sentinels
#      promote the replica, the services follow it without a restart, the window is measured
#      and bounded, the locks written before it survive, and the old primary rejoins as a
#      replica;
# then removes the stack, its volumes, and the swarm if this script made it.
set -euo pipefail
cd "$(dirname "$0")/.."

STACK_FILES=(-c compose/compose.yaml -c compose/stack/stack.yaml)
SERVICES="analyzer backend ai-service mcp-server"
REDIS_IMAGE="${REDIS_IMAGE:-estate/redis:7}"
PROMETHEUS_IMAGE="${PROMETHEUS_IMAGE:-estate/prometheus:2}"
INGRESS_HOST_PORT="${INGRESS_HOST_PORT:-8080}"
INGRESS_TLS_HOST_PORT=8443
export DEV_CERT_DIR="${DEV_CERT_DIR:-dev-cert}"
WAIT_TIMEOUT="${WAIT_TIMEOUT:-240}"
# The longest a failover may keep logins from being answered normally.
FAILOVER_MAX_WINDOW_MS="${FAILOVER_MAX_WINDOW_MS:-15000}"
BUILD="${BUILD:-1}"
STAGE_DIR=target/stack
MADE_SWARM="$STAGE_DIR/swarm-made-here"
MODE=test

usage() {
    cat <<EOF
Usage: $0 [test|up|down] [--help]

  test   (default) images, a swarm if none, deploy as stack 'estate-ci', the checks, remove
  up     images, a swarm if none, deploy as stack 'estate' and leave it running
  down   remove stack 'estate' (its volumes are kept), and leave the swarm if this made it

Both publish the ingress on every address of each node, ports $INGRESS_TLS_HOST_PORT (HTTPS, the
certificate of scripts/dev-cert.sh in \$DEV_CERT_DIR) and $INGRESS_HOST_PORT (plain HTTP,
redirected to HTTPS). Images are built offline as scripts/cluster.sh builds them, plus
$PROMETHEUS_IMAGE (scripts/offline-images.sh --prometheus).

Environment (defaults in brackets):
  BUILD                  [$BUILD]  0: use the images already built (scripts/cluster.sh build)
  DEV_CERT_DIR           [$DEV_CERT_DIR]
  INGRESS_HOST_PORT      [$INGRESS_HOST_PORT]  the plain HTTP port
  WAIT_TIMEOUT           [$WAIT_TIMEOUT]  seconds for the stack or a roll to converge
  FAILOVER_MAX_WINDOW_MS [$FAILOVER_MAX_WINDOW_MS]  the longest failover window 'test' accepts
Secrets: 'test' generates random ones; 'up' reads them from the environment
(SECURITY_JWT_SECRET_KEY, ANALYZER_TOKEN, INTERNAL_TOKEN).
EOF
}

case "${1:-}" in
    "" | test) MODE=test ;;
    up | down) MODE="$1" ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 64 ;;
esac

log() { echo "[stack $(date -u +%H:%M:%S)] $*" >&2; }
die() { echo "[stack] ERROR: $*" >&2; exit 1; }

if [ "$MODE" = test ]; then STACK=estate-ci; else STACK=estate; fi
export ESTATE_SUBNET="${ESTATE_SUBNET:-172.30.82.0/24}"
export REDIS_IMAGE PROMETHEUS_IMAGE INGRESS_HOST_PORT INGRESS_TLS_HOST_PORT

# now_ms, random_secrets, ports_free, ingress, https_head, poll, summarise, failed_statuses.
# shellcheck source=scripts/lib/estate-http.sh
source scripts/lib/estate-http.sh
# tasks, task_container, wait_converged, the checks of steps 2 to 4.
# shellcheck source=scripts/lib/stack-checks.sh
source scripts/lib/stack-checks.sh
# The failover of step 5.
# shellcheck source=scripts/lib/stack-failover.sh
source scripts/lib/stack-failover.sh

prerequisites() {
    docker info >/dev/null 2>&1 || die "no Docker engine (docker info failed)"
    command -v curl >/dev/null || die "curl is required (apt-get install curl)"
    mkdir -p "$STAGE_DIR"
    scripts/dev-cert.sh
    ESTATE_TLS_DIR="$(cd "$DEV_CERT_DIR" && pwd)"
    export ESTATE_TLS_DIR
    scripts/offline-images.sh --prometheus --no-verify
    if [ "$BUILD" = 1 ]; then scripts/cluster.sh build; fi
}

ensure_swarm() {
    local state
    state=$(docker info --format '{{.Swarm.LocalNodeState}}')
    if [ "$state" != active ]; then
        log "docker swarm init (single node, advertised on 127.0.0.1)"
        docker swarm init --advertise-addr 127.0.0.1 >/dev/null
        touch "$MADE_SWARM"
    fi
}

leave_swarm() {
    if [ -e "$MADE_SWARM" ]; then
        log "docker swarm leave (this script made it)"
        docker swarm leave --force >/dev/null 2>&1 || true
        rm -f "$MADE_SWARM"
    fi
}

# The names of the configs and secrets carry a digest of their content, and the analyzer's
# token reaches Prometheus as a file.
export_digests() {
    digest() { sha256sum "$1" | cut -c1-12; }
    ANALYZER_TOKEN_FILE="$(pwd)/$STAGE_DIR/analyzer-token"
    (umask 077 && printf '%s' "$ANALYZER_TOKEN" >"$ANALYZER_TOKEN_FILE")
    INGRESS_FILE_DIGEST=$(digest compose/stack/ingress.yml)
    TLS_CERT_DIGEST=$(digest "$ESTATE_TLS_DIR/cert.pem")
    TLS_KEY_DIGEST=$(digest "$ESTATE_TLS_DIR/key.pem")
    REDIS_NODE_DIGEST=$(digest compose/stack/redis-node.sh)
    PROMETHEUS_FILE_DIGEST=$(digest compose/prometheus/prometheus.yml)
    ALERT_RULES_DIGEST=$(digest compose/prometheus/alerts.yml)
    ANALYZER_TOKEN_DIGEST=$(digest "$ANALYZER_TOKEN_FILE")
    export ANALYZER_TOKEN_FILE INGRESS_FILE_DIGEST TLS_CERT_DIGEST TLS_KEY_DIGEST \
        REDIS_NODE_DIGEST PROMETHEUS_FILE_DIGEST ALERT_RULES_DIGEST ANALYZER_TOKEN_DIGEST
}

deploy() {
    ports_free
    export_digests
    log "docker stack deploy $STACK (compose/compose.yaml + compose/stack/stack.yaml)"
    docker stack deploy --resolve-image never --prune "${STACK_FILES[@]}" "$STACK" >&2
}

# Removes the stack and waits until its tasks and network are gone; with "volumes", its
# volumes too.
remove_stack() {
    local deadline=$((SECONDS + 60))
    docker stack rm "$STACK" >/dev/null 2>&1 || true
    while [ -n "$(docker ps -aq --filter "label=com.docker.stack.namespace=$STACK")" ] ||
        docker network inspect "${STACK}_estate" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || break
        sleep 1
    done
    if [ "${1:-}" = volumes ]; then
        docker volume ls -q --filter "label=com.docker.stack.namespace=$STACK" |
            xargs -r docker volume rm >/dev/null 2>&1 || true
    fi
}

teardown() {
    local rc=$?
    trap - EXIT INT TERM
    stop_pollers
    if [ "$rc" -ne 0 ]; then
        log "failed (exit $rc); the last lines of each service's log:"
        local service
        for service in $(docker stack services --format '{{.Name}}' "$STACK" 2>/dev/null); do
            echo "--- $service" >&2
            docker service logs --no-task-ids --tail 15 "$service" 2>&1 | tail -n 15 >&2 || true
        done
    fi
    log "docker stack rm $STACK (volumes too)"
    remove_stack volumes
    leave_swarm
    exit "$rc"
}

case "$MODE" in
    down)
        remove_stack
        leave_swarm
        exit 0
        ;;
    up)
        for name in SECURITY_JWT_SECRET_KEY ANALYZER_TOKEN INTERNAL_TOKEN; do
            [ -n "${!name:-}" ] || die "set $name (compose/.env.example)"
        done
        prerequisites
        ensure_swarm
        deploy
        wait_converged
        log "up: https://api.localhost:$INGRESS_TLS_HOST_PORT (and analyzer., ai., mcp.localhost), trusting $DEV_CERT_DIR/ca.pem"
        exit 0
        ;;
esac

prerequisites
random_secrets
# The checks send many requests from one address through the ingress: budgets large enough
# that the limiter never refuses them, and a lock only after many wrong passwords for one
# address (the failover check locks its own addresses on purpose, with LOCK_ATTEMPTS).
export RATE_LIMIT_CREDENTIAL=1000000/1h AUTH_RATE_LIMIT_CREDENTIAL=1000000/1h \
    AUTH_RATE_LIMIT_BACKSTOP=1000000/1h ANALYZER_RATE_LIMIT_READ=1000000/1h \
    MCP_RATE_LIMIT_INSTALLER=1000000/1h LOG_ANALYSIS_PUBLIC_RATE_LIMIT=1000000
trap teardown EXIT
trap 'exit 130' INT TERM
ensure_swarm
remove_stack volumes
deploy
wait_converged
check_routes
check_scrapes
check_rolls
check_failover
cat >&2 <<EOF
[stack] passed in ${SECONDS}s
  up:       $UP_RESULT
  routes:   $ROUTES_RESULT
  scrapes:  $SCRAPES_RESULT
  rolls:    $ROLLS_RESULT
  ingress:  $INGRESS_ROLL_RESULT
  failover: $FAILOVER_RESULT
EOF
