#!/usr/bin/env bash
# cluster.sh — the estate as a compose cluster, from images built offline: release binaries
# → a small staging context per service → one image each from compose/Dockerfile →
# `docker compose up --wait --pull never` → the checks below → `docker compose down`.
#
# `test` (the default, what CI runs) proves, against the running cluster:
#   1. every container is healthy, and the deploy guard finds every data path on a volume;
#   2. every host name reaches its service through the ingress over HTTPS, trusting only the
#      development CA (scripts/dev-cert.sh), with HSTS (metrics and strangers: 404), and plain
#      HTTP on the other port is a 308 to the same URL on HTTPS, without HSTS;
#   3. crates/probe's estate-probe agrees with every measurement (when that crate exists),
#      on the fresh cluster; Redis is then flushed so the next proof counts from zero;
#   4. two backend replicas share ONE budget through Redis: 40 logins from one client, spread
#      over both replicas, meet a 30/1h credential budget exactly (30 pass, 10 are 429), and
#      a forged X-Forwarded-For on each changes nothing;
#   5. the window a single-replica restart opens, measured through the ingress;
#   6. a health-gated roll of the backend (scripts/deploy) while requests flow, counted;
# then tears everything down (always: trap), volumes included.
set -euo pipefail
cd "$(dirname "$0")/.."

ALL_SERVICES="redis analyzer backend ai-service mcp-server ingress"
SERVICES="${SERVICES:-$ALL_SERVICES}"
BASE_IMAGE="${BASE_IMAGE:-estate/base:bookworm}"
REDIS_IMAGE="${REDIS_IMAGE:-estate/redis:7}"
ESTATE_TAG="${ESTATE_TAG:-local}"
ESTATE_IMAGE_PREFIX="${ESTATE_IMAGE_PREFIX:-estate}"
INGRESS_HOST_PORT="${INGRESS_HOST_PORT:-8080}"
# The ingress's TLS port; the container listens on 8443 and redirects plain HTTP there, so the
# host publishes it on the same number.
INGRESS_TLS_HOST_PORT=8443
# The development certificate compose mounts into the ingress (scripts/dev-cert.sh).
export DEV_CERT_DIR="${DEV_CERT_DIR:-dev-cert}"
WAIT_TIMEOUT="${WAIT_TIMEOUT:-180}"
ROLL_MAX_FAILURES="${ROLL_MAX_FAILURES:-0}"
# auto: build and run estate-probe when crates/probe exists; 0: never; 1: always.
PROBE="${PROBE:-auto}"
CARGO="${CARGO:-cargo}"
COMPOSE_FILE_PATH=compose/compose.yaml
STAGE_DIR=target/cluster
MODE=test

usage() {
    cat <<EOF
Usage: $0 [test|build|up|down] [--help]

  test   (default) build, bring the cluster up, run the checks, tear it down (volumes too)
  build  release binaries and one image per service ($ESTATE_IMAGE_PREFIX/<service>:$ESTATE_TAG)
  up     build, then bring the cluster up as project 'estate' and leave it running
  down   stop project 'estate'; its volumes are kept (docker volume rm estate_redis-data
         estate_backend-data removes them)

'test' runs as compose project 'estate-ci' on its own subnet, so it never touches a cluster
started with 'up'. Both publish the ingress on 127.0.0.1:$INGRESS_TLS_HOST_PORT (HTTPS, the
certificate of scripts/dev-cert.sh in \$DEV_CERT_DIR, made when missing) and
127.0.0.1:$INGRESS_HOST_PORT (plain HTTP, redirected to HTTPS).
Missing pieces are made first: the Compose v2 plugin (scripts/install-compose.sh) and the
offline base images (scripts/offline-images.sh); both need root the first time.

Environment (defaults in brackets):
  SERVICES            [$ALL_SERVICES]
                      a subset runs what it can (no ingress: requests go to the replicas
                      from inside their containers, and the restart window is not measured)
  BASE_IMAGE          [$BASE_IMAGE]    FROM of every service image
  REDIS_IMAGE         [$REDIS_IMAGE]
  ESTATE_IMAGE_PREFIX [$ESTATE_IMAGE_PREFIX]  ESTATE_TAG [$ESTATE_TAG]
  INGRESS_HOST_PORT   [$INGRESS_HOST_PORT]  the plain HTTP port
  DEV_CERT_DIR        [$DEV_CERT_DIR]  the development CA and certificate
  WAIT_TIMEOUT        [$WAIT_TIMEOUT]  seconds for the cluster, a restart or a roll to be healthy
  ROLL_MAX_FAILURES   [$ROLL_MAX_FAILURES]  failed requests tolerated during the backend roll
  PROBE               [$PROBE]  estate-probe against the ingress: auto (when crates/probe
                      exists), 0 (never), 1 (always)
  CARGO               [$CARGO]
Secrets: 'test' generates random ones; 'up' reads compose/.env (compose/.env.example).
EOF
}

case "${1:-}" in
    "" | test) MODE=test ;;
    build | up | down) MODE="$1" ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 64 ;;
esac

log() { echo "[cluster $(date -u +%H:%M:%S)] $*" >&2; }
die() { echo "[cluster] ERROR: $*" >&2; exit 1; }
has_service() { case " $SERVICES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# now_ms, random_secrets, ports_free, ingress, https_head, plain_head, poll, summarise,
# failed_statuses.
# shellcheck source=scripts/lib/estate-http.sh
source scripts/lib/estate-http.sh

if [ "$MODE" = test ]; then
    PROJECT=estate-ci
    export ESTATE_SUBNET="${ESTATE_SUBNET:-172.30.81.0/24}"
    export ESTATE_INGRESS_IP="${ESTATE_INGRESS_IP:-172.30.81.80}"
else
    PROJECT=estate
fi
export ESTATE_TAG ESTATE_IMAGE_PREFIX REDIS_IMAGE INGRESS_HOST_PORT INGRESS_TLS_HOST_PORT
compose() { docker compose --project-name "$PROJECT" --file "$COMPOSE_FILE_PATH" "$@"; }

# ---------------------------------------------------------------- prerequisites
prerequisites() {
    docker info >/dev/null 2>&1 || die "no Docker engine (docker info failed)"
    command -v curl >/dev/null || die "curl is required (apt-get install curl)"
    scripts/dev-cert.sh
    ESTATE_TLS_DIR="$(cd "$DEV_CERT_DIR" && pwd)"
    export ESTATE_TLS_DIR
    docker compose version >/dev/null 2>&1 || scripts/install-compose.sh
    local missing=0 image
    for image in "$BASE_IMAGE" "$REDIS_IMAGE"; do
        docker image inspect "$image" >/dev/null 2>&1 || missing=1
    done
    if [ "$missing" = 1 ]; then
        BASE_IMAGE_TAG="$BASE_IMAGE" REDIS_IMAGE_TAG="$REDIS_IMAGE" scripts/offline-images.sh
    fi
}

# ---------------------------------------------------------------- build
want_probe() {
    case "$PROBE" in
        auto) [ -f crates/probe/Cargo.toml ] ;;
        1) return 0 ;;
        *) return 1 ;;
    esac
}

build() {
    local bins=() service
    for service in $SERVICES; do
        [ "$service" = redis ] && continue
        [ -f "services/$service/Cargo.toml" ] || die "services/$service does not exist (set SERVICES to a subset)"
        bins+=(--bin "$service")
    done
    bins+=(--bin estate-deploy)
    want_probe && bins+=(--bin estate-probe)
    log "cargo build --release ${bins[*]}"
    "$CARGO" build --release "${bins[@]}"
    for service in $SERVICES; do
        [ "$service" = redis ] && continue
        local context="$STAGE_DIR/context/$service"
        rm -rf "$context" && mkdir -p "$context"
        cp compose/Dockerfile "$context/Dockerfile"
        ln -f "target/release/$service" "$context/$service" 2>/dev/null ||
            cp "target/release/$service" "$context/$service"
        # BuildKit would try to resolve the base image in a registry; the classic builder
        # uses the local one.
        DOCKER_BUILDKIT=0 docker build --quiet --build-arg "BASE_IMAGE=$BASE_IMAGE" \
            --build-arg "BIN=$service" --tag "$ESTATE_IMAGE_PREFIX/$service:$ESTATE_TAG" \
            "$context" >/dev/null
        log "image $ESTATE_IMAGE_PREFIX/$service:$ESTATE_TAG ($(du -h "$context/$service" | cut -f1) binary)"
    done
}

# ---------------------------------------------------------------- up / down
up() {
    ports_free
    local started
    started=$(now_ms)
    log "docker compose up ($SERVICES), project $PROJECT"
    # shellcheck disable=SC2086 # SERVICES is a list of names
    compose up --detach --wait --wait-timeout "$WAIT_TIMEOUT" --pull never --no-build \
        --no-deps $SERVICES
    UP_MS=$(($(now_ms) - started))
    log "healthy in ${UP_MS} ms"
    compose ps --format 'table {{.Name}}\t{{.Image}}\t{{.Status}}' >&2
}

teardown() {
    local rc=$?
    trap - EXIT INT TERM
    if [ "$rc" -ne 0 ]; then
        log "failed (exit $rc); the last lines of each service's log:"
        compose logs --no-color --tail 30 >&2 2>/dev/null || true
    fi
    log "docker compose down (project $PROJECT, volumes too)"
    compose down --volumes --remove-orphans --timeout 10 >/dev/null 2>&1 || true
    exit "$rc"
}

# ---------------------------------------------------------------- talking to the cluster
# One HTTP request from inside a container, with bash's /dev/tcp (images carry no curl):
# in_container ID METHOD PATH [BODY] → the response (status line, headers, body).
in_container() {
    local id=$1 method=$2 path=$3 body=${4:-} port=${5:-9800}
    docker exec -i "$id" bash -c '
        exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
        printf "%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" \
            "$2" "$3" "${#4}" "$4" >&3
        cat <&3' _ "$port" "$method" "$path" "$body"
}

service_ids() { compose ps --quiet "$1"; }

# The sum of one limiter counter on one backend replica.
limiter_count() {
    local id=$1 group=$2 outcome=$3
    in_container "$id" GET /actuator/prometheus |
        awk -v labels="group=\"$group\",outcome=\"$outcome\"" \
            '/^limiter_decisions_total/ && index($0, labels) { sum += $NF } END { print sum + 0 }'
}

# ---------------------------------------------------------------- the checks
check_guard() {
    local service
    for service in $SERVICES; do
        log "deploy guard: $service"
        target/release/estate-deploy check "$service" --project "$PROJECT" --file "$COMPOSE_FILE_PATH" >&2 ||
            die "the deploy guard refuses $service: a data path is not on a volume"
    done
}

# The logins of the budget proof, one status code a line. Through the ingress: curl, four at a
# time, each with a different forged X-Forwarded-For — only the ingress is a trusted proxy, so
# the backend must still see one client (trusting the whole subnet would believe them, since
# the host reaches the ingress from the network's gateway). Without the ingress: each replica answers every other login, asked from inside its container
# (one `docker exec` per replica; a process per request would load the machine enough to
# push Redis past the limiter's 50 ms timeout, and the proof needs Redis to decide).
send_logins() {
    local logins=$1 ids
    if has_service ingress; then
        export -f ingress
        export INGRESS_HOST_PORT INGRESS_TLS_HOST_PORT DEV_CERT_DIR
        seq "$logins" | xargs -P 4 -I{} bash -c \
            'ingress api.localhost POST /api/v1/auth/login "{\"email\":\"guess{}@example.com\",\"password\":\"wrong-password\"}" "X-Forwarded-For: 203.0.113.{}" | cut -d" " -f1'
        return
    fi
    mapfile -t ids < <(service_ids backend)
    local first
    for first in 1 2; do
        docker exec -i "${ids[$((first - 1))]}" bash -c '
            for n in $(seq "$1" 2 "$2"); do
                body="{\"email\":\"guess$n@example.com\",\"password\":\"wrong-password\"}"
                exec 3<>/dev/tcp/127.0.0.1/9800 || exit 1
                printf "POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" \
                    "${#body}" "$body" >&3
                head -n1 <&3 | cut -d" " -f2
                exec 3<&-
            done' _ "$first" "$logins" &
    done
    wait
}

# Every host name reaches its service's health through the ingress; the rest is 404.
check_routes() {
    has_service ingress || return 0
    local host path service expected answer
    log "routes through the ingress"
    while read -r host path service expected; do
        [ "$service" = - ] || has_service "$service" || continue
        answer=$(ingress "$host" GET "$path" | cut -d' ' -f1)
        [ "$answer" = "$expected" ] || die "GET http://$host$path through the ingress: $answer, expected $expected"
        log "  $host$path → $answer"
    done <<'ROUTES'
api.localhost /actuator/health backend 200
analyzer.localhost /health analyzer 200
ai.localhost /health ai-service 200
mcp.localhost /health mcp-server 200
api.localhost /actuator/prometheus - 404
localhost / - 404
ROUTES
    check_transports
    ROUTES_RESULT="every host name answers through the ingress over HTTPS with HSTS; metrics and unknown hosts are 404; plain HTTP is a 308 to HTTPS without HSTS"
}

# HSTS on HTTPS, none on plain HTTP, and plain HTTP redirected to the same URL on HTTPS.
check_transports() {
    local head expected="https://api.localhost:$INGRESS_TLS_HOST_PORT/actuator/health?x=1"
    head=$(https_head api.localhost /actuator/health)
    grep -qi '^strict-transport-security: max-age=31536000; includeSubDomains$' <<<"$head" ||
        die "no HSTS on an HTTPS answer: $head"
    head=$(plain_head api.localhost '/actuator/health?x=1')
    grep -q '^HTTP/1.1 308' <<<"$head" || die "plain HTTP is not redirected: $head"
    grep -qi "^location: $expected\$" <<<"$head" || die "plain HTTP is not redirected to $expected: $head"
    ! grep -qi '^strict-transport-security' <<<"$head" || die "HSTS on a plain HTTP answer: $head"
    log "  http://api.localhost:$INGRESS_HOST_PORT/actuator/health?x=1 → 308 $expected, no HSTS"
}

check_shared_budget() {
    local ids logins=40 budget=30 statuses passed refused allowed=0 id count refused_here fallback
    local -A before
    mapfile -t ids < <(service_ids backend)
    [ "${#ids[@]}" -eq 2 ] || die "expected 2 backend replicas, found ${#ids[@]}"
    # The counters are cumulative: the proof counts what changes while it runs.
    for id in "${ids[@]}"; do
        for outcome in allowed refused fallback; do
            before[$id.$outcome]=$(limiter_count "$id" credential "$outcome")
        done
    done
    log "shared budget: $logins logins from one client over 2 replicas, credential budget ${budget}/1h"
    statuses=$(send_logins "$logins")
    passed=$(grep -c '^401$' <<<"$statuses" || true)
    refused=$(grep -c '^429$' <<<"$statuses" || true)
    for id in "${ids[@]}"; do
        count=$(($(limiter_count "$id" credential allowed) - before[$id.allowed]))
        refused_here=$(($(limiter_count "$id" credential refused) - before[$id.refused]))
        fallback=$(($(limiter_count "$id" credential fallback) - before[$id.fallback]))
        allowed=$((allowed + count))
        log "  replica ${id:0:12}: $count allowed, $refused_here refused, $fallback decided without Redis"
        [ "$fallback" -eq 0 ] || die "replica ${id:0:12} decided without Redis"
        [ $((count + refused_here)) -gt 0 ] || die "replica ${id:0:12} took no login: the proof needs both"
    done
    log "  answers: $passed × 401, $refused × 429, $((logins - passed - refused)) other; allowed over both replicas: $allowed"
    [ "$passed" -eq "$budget" ] && [ "$refused" -eq $((logins - budget)) ] && [ "$allowed" -eq "$budget" ] ||
        die "the budget is not one: expected $budget × 401 and $((logins - budget)) × 429 (per-replica buckets, or a forged X-Forwarded-For believed)"
    BUDGET_RESULT="$passed of $logins logins passed, $refused refused (429); $allowed allowed over 2 replicas"
}

# Waits until every container of SERVICE is healthy; prints the milliseconds it took.
wait_healthy() {
    local service=$1 started deadline id state all
    started=$(now_ms)
    deadline=$((SECONDS + WAIT_TIMEOUT))
    while :; do
        all=1
        for id in $(service_ids "$service"); do
            state=$(docker inspect --format '{{.State.Health.Status}}' "$id" 2>/dev/null || echo gone)
            [ "$state" = healthy ] || all=0
        done
        [ "$all" = 1 ] && break
        [ "$SECONDS" -lt "$deadline" ] || die "$service not healthy within ${WAIT_TIMEOUT}s"
        sleep 0.2
    done
    echo $(($(now_ms) - started))
}

check_restart_window() {
    local service=analyzer host=analyzer.localhost path=/analysis-types took stop="$STAGE_DIR/poll.stop"
    if ! has_service "$service"; then return; fi
    rm -f "$stop"
    if has_service ingress; then
        poll "$host" "$path" "$STAGE_DIR/restart.poll" "$stop" "X-Analyzer-Token: $ANALYZER_TOKEN" &
        local poller=$!
        sleep 1
    fi
    log "restart window: docker compose restart $service (one replica), GET $host$path every 50 ms"
    compose restart "$service" >/dev/null 2>&1
    took=$(wait_healthy "$service")
    if has_service ingress; then
        sleep 1
        touch "$stop"
        wait "$poller"
        read -r requests failed window slowest < <(summarise "$STAGE_DIR/restart.poll")
        RESTART_RESULT="$service restart: healthy again after ${took} ms; through the ingress $requests requests, $failed not 200$(failed_statuses "$STAGE_DIR/restart.poll"), window ${window} ms, slowest ${slowest} ms"
    else
        RESTART_RESULT="$service restart: healthy again after ${took} ms (no ingress: window not measured)"
    fi
    log "  $RESTART_RESULT"
}

check_roll() {
    local before after stop="$STAGE_DIR/poll.stop" poller=""
    before=$(service_ids backend | sort | xargs)
    rm -f "$stop"
    if has_service ingress; then
        poll api.localhost /v3/api-docs "$STAGE_DIR/roll.poll" "$stop" &
        poller=$!
        sleep 1
    fi
    log "roll: scripts/deploy backend (2 replicas, surge), GET api.localhost/v3/api-docs every 50 ms"
    local started
    started=$(now_ms)
    ESTATE_DEPLOY=target/release/estate-deploy scripts/deploy backend --project "$PROJECT" \
        --file "$COMPOSE_FILE_PATH" --health-timeout "$WAIT_TIMEOUT" >&2 ||
        die "scripts/deploy backend failed"
    local took=$(($(now_ms) - started))
    after=$(service_ids backend | sort | xargs)
    [ "$(wc -w <<<"$after")" -eq 2 ] || die "expected 2 backend replicas after the roll, found: $after"
    for id in $before; do
        case " $after " in *" $id "*) die "replica ${id:0:12} was not replaced" ;; esac
    done
    ROLL_RESULT="backend roll: 2 replicas replaced in ${took} ms"
    if [ -n "$poller" ]; then
        sleep 1
        touch "$stop"
        wait "$poller"
        read -r requests failed window slowest < <(summarise "$STAGE_DIR/roll.poll")
        ROLL_RESULT="$ROLL_RESULT; through the ingress $requests requests, $failed not 200$(failed_statuses "$STAGE_DIR/roll.poll"), slowest ${slowest} ms"
        [ "$failed" -le "$ROLL_MAX_FAILURES" ] ||
            die "$failed requests failed during the roll (allowed: $ROLL_MAX_FAILURES)"
    fi
    log "  $ROLL_RESULT"
}

# estate-probe on the fresh cluster (its per-address checks need unspent budgets), with the
# values this cluster runs with in its environment and the restart it should measure.
check_probe() {
    if ! want_probe || ! has_service ingress; then
        PROBE_RESULT="not run (PROBE=$PROBE; it needs crates/probe and the ingress)"
        return
    fi
    local services="" service
    for service in $SERVICES; do
        case "$service" in redis | ingress) ;; *) services="${services:+$services,}$service" ;; esac
    done
    log "estate-probe against https://127.0.0.1:$INGRESS_TLS_HOST_PORT (report: $STAGE_DIR/probe.md)"
    target/release/estate-probe "https://127.0.0.1:$INGRESS_TLS_HOST_PORT" --services "$services" \
        --cacert "$DEV_CERT_DIR/ca.pem" --plain-url "http://127.0.0.1:$INGRESS_HOST_PORT" \
        --restart-cmd "docker compose --project-name $PROJECT --file $COMPOSE_FILE_PATH restart analyzer" \
        --restart-service analyzer >"$STAGE_DIR/probe.md" ||
        { cat "$STAGE_DIR/probe.md" >&2; die "estate-probe found a mismatch"; }
    PROBE_RESULT="every measurement agrees ($STAGE_DIR/probe.md)"
}

# Forgets every budget, lock and account: the probe spent the per-address budgets the proofs
# below count from zero.
reset_redis() {
    log "FLUSHALL on redis (the next proofs count budgets from zero)"
    docker exec "$(service_ids redis)" redis-cli FLUSHALL >/dev/null
}

# ---------------------------------------------------------------- main
case "$MODE" in
    down)
        # Compose interpolates the whole file even to stop it; the secrets are not used.
        for name in SECURITY_JWT_SECRET_KEY ANALYZER_TOKEN INTERNAL_TOKEN; do
            [ -n "${!name:-}" ] || export "$name=unused-by-down"
        done
        compose down --remove-orphans
        exit 0
        ;;
    build)
        prerequisites
        build
        exit 0
        ;;
    up)
        prerequisites
        build
        up
        log "up: https://api.localhost:$INGRESS_TLS_HOST_PORT (and analyzer., ai., mcp.localhost), trusting $DEV_CERT_DIR/ca.pem; plain HTTP on $INGRESS_HOST_PORT redirects there"
        exit 0
        ;;
esac

prerequisites
build
mkdir -p "$STAGE_DIR"
random_secrets
# The budget proof's numbers (the backend's own cluster test uses the same): the credential
# budget is the only one that can refuse these logins.
export RATE_LIMIT_CREDENTIAL=30/1h AUTH_RATE_LIMIT_CREDENTIAL=1000/15m
trap teardown EXIT
trap 'exit 130' INT TERM
compose down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1 || true
up
check_guard
ROUTES_RESULT="not run (no ingress)"
check_routes
check_probe
if want_probe && has_service ingress; then reset_redis; fi
BUDGET_RESULT="not run (no backend)"
RESTART_RESULT="not run (no analyzer)"
ROLL_RESULT="not run (no backend)"
if has_service backend; then check_shared_budget; fi
check_restart_window
if has_service backend; then check_roll; fi
cat >&2 <<EOF
[cluster] passed in ${SECONDS}s (services: $SERVICES)
  up:       healthy in ${UP_MS} ms
  routes:   $ROUTES_RESULT
  budget:   $BUDGET_RESULT
  restart:  $RESTART_RESULT
  roll:     $ROLL_RESULT
  probe:    $PROBE_RESULT
EOF
