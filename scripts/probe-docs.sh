#!/usr/bin/env bash
# probe-docs.sh — regenerates the measured part of docs/edge-rate-limits-and-safety.md: runs
# estate-probe against a fresh compose cluster running every default (or against an estate
# that is already running) and writes its report between the page's two markers, leaving the
# hand-written frame around them as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

DOC="${DOC:-docs/edge-rate-limits-and-safety.md}"
PORT="${INGRESS_HOST_PORT:-8080}"
PROJECT="${PROBE_PROJECT:-estate-probe}"
SUBNET="${PROBE_SUBNET:-172.30.82.0/24}"
INGRESS_IP="${PROBE_INGRESS_IP:-172.30.82.80}"
# Its own image tag, so a cluster started from other images (another checkout's CI run, say)
# never picks these up, nor this one theirs.
TAG="${PROBE_TAG:-probe-docs}"
WAIT_TIMEOUT="${WAIT_TIMEOUT:-180}"
REPORT_DIR=target/probe
COMPOSE_FILE_PATH=compose/compose.yaml
BEGIN_MARK='<!-- estate-probe:begin -->'
END_MARK='<!-- estate-probe:end -->'
# The variables the probe reads its expectations from: unset, so the cluster and the probe
# both run the defaults (docs/DESIGN.md, "Budgets are settings"), the published figures.
EXPECT_NAMES="RATE_LIMIT_CREDENTIAL AUTH_RATE_LIMIT_CREDENTIAL LOGIN_MAX_ATTEMPTS
SECURITY_AUTH_ATTEMPT_LOCK_MINUTES ANALYZER_RATE_LIMIT_READ ANALYZER_RATE_LIMIT_WRITE
ANALYZER_MAX_BODY_BYTES LOG_ANALYSIS_PUBLIC_RATE_LIMIT MCP_RATE_LIMIT_MCP CORS_ALLOWED_ORIGINS"
MODE=cluster
URL=""
WRITE=1
WRITE_ANYWAY=0

usage() {
    cat <<EOF
Usage: $0 [--running URL] [--no-write] [--write-anyway] [--help]

Default: scripts/cluster.sh build (release binaries, offline images tagged '$TAG'), then a
fresh compose cluster as project '$PROJECT' on 127.0.0.1:$PORT with throw-away secrets and
every budget at its default, estate-probe against its ingress (restarting the analyzer for the 502 window),
then the cluster is torn down, volumes included.

  --running URL   probe an estate that is already running at URL instead (its per-address
                  budgets must be unspent: a fresh estate); ANALYZER_TOKEN from the
                  environment; PROBE_RESTART_CMD, when set, is the restart to measure
  --no-write      print the report, leave $DOC alone
  --write-anyway  write the page even when a measurement disagrees (it says so, in bold)

The report replaces what is between these lines of $DOC:
  $BEGIN_MARK
  $END_MARK
and is kept in $REPORT_DIR/report.md.

Environment (defaults in brackets):
  INGRESS_HOST_PORT [$PORT]  PROBE_PROJECT [$PROJECT]  PROBE_SUBNET [$SUBNET]
  PROBE_INGRESS_IP [$INGRESS_IP]  PROBE_TAG [$TAG]  WAIT_TIMEOUT [$WAIT_TIMEOUT]  DOC [$DOC]
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
        --running) MODE=running; URL="${2:?--running needs a URL}"; shift ;;
        --no-write) WRITE=0 ;;
        --write-anyway) WRITE_ANYWAY=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 64 ;;
    esac
    shift
done

log() { echo "[probe-docs $(date -u +%H:%M:%S)] $*" >&2; }
die() { echo "[probe-docs] ERROR: $*" >&2; exit 1; }
compose() {
    docker compose --project-name "$PROJECT" --file "$COMPOSE_FILE_PATH" --env-file /dev/null "$@"
}

grep -qxF "$BEGIN_MARK" "$DOC" && grep -qxF "$END_MARK" "$DOC" ||
    die "$DOC lacks the marker lines $BEGIN_MARK and $END_MARK"
# shellcheck disable=SC2086 # a list of names
unset $EXPECT_NAMES
mkdir -p "$REPORT_DIR"
PROBE_ARGS=()

teardown() {
    local rc=$?
    trap - EXIT INT TERM
    log "docker compose down (project $PROJECT, volumes too)"
    compose down --volumes --remove-orphans --timeout 10 >/dev/null 2>&1 || true
    exit "$rc"
}

start_cluster() {
    if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/"; then
        die "127.0.0.1:$PORT is already answering: stop that estate, or set INGRESS_HOST_PORT"
    fi
    export ESTATE_TAG="$TAG"
    scripts/cluster.sh build
    local name
    for name in SECURITY_JWT_SECRET_KEY ANALYZER_TOKEN INTERNAL_TOKEN; do
        export "$name=$(head -c 48 /dev/urandom | sha256sum | cut -c1-64)"
    done
    export ESTATE_SUBNET="$SUBNET" ESTATE_INGRESS_IP="$INGRESS_IP" INGRESS_HOST_PORT="$PORT"
    trap teardown EXIT
    trap 'exit 130' INT TERM
    compose down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1 || true
    log "docker compose up (project $PROJECT, every default)"
    compose up --detach --wait --wait-timeout "$WAIT_TIMEOUT" --pull never --no-build
    # The ingress terminates TLS with the development certificate (cluster.sh build made it);
    # its plain port redirects there.
    URL="https://127.0.0.1:8443"
    PROBE_ARGS+=(--cacert "${DEV_CERT_DIR:-dev-cert}/ca.pem" --plain-url "http://127.0.0.1:$PORT")
    PROBE_ARGS+=(--restart-cmd
        "docker compose --project-name $PROJECT --file $COMPOSE_FILE_PATH --env-file /dev/null restart analyzer")
}

case "$MODE" in
    cluster) start_cluster ;;
    running)
        cargo build --release --bin estate-probe
        if [ -n "${PROBE_RESTART_CMD:-}" ]; then PROBE_ARGS+=(--restart-cmd "$PROBE_RESTART_CMD"); fi
        ;;
esac

log "estate-probe $URL ${PROBE_ARGS[*]}"
status=0
target/release/estate-probe "$URL" "${PROBE_ARGS[@]}" >"$REPORT_DIR/report.md" || status=$?
[ "$status" -le 1 ] || die "estate-probe could not run (exit $status)"
if [ "$WRITE" = 0 ]; then
    cat "$REPORT_DIR/report.md"
    exit "$status"
fi
if [ "$status" -ne 0 ] && [ "$WRITE_ANYWAY" = 0 ]; then
    cat "$REPORT_DIR/report.md" >&2
    die "a measurement disagrees; $DOC left as it was (--write-anyway writes it regardless)"
fi
awk -v begin="$BEGIN_MARK" -v end="$END_MARK" -v report="$REPORT_DIR/report.md" '
    $0 == begin { print; while ((getline line < report) > 0) print line; skipping = 1; next }
    $0 == end { skipping = 0 }
    !skipping { print }
' "$DOC" >"$DOC.new"
mv "$DOC.new" "$DOC"
log "wrote $DOC (report kept in $REPORT_DIR/report.md)"
exit "$status"
