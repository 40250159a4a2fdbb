#!/usr/bin/env bash
# Timing oracles in the backend's account-mail routes (docs/performance.md, "Account-mail
# routes"): one release backend on 127.0.0.1, a verified and an unverified account, then for
# each route PAIRS alternating requests for an address with an account and one without (a
# fresh unknown address each time; which goes first alternates), on one keep-alive
# connection. Prints the median answer time of each side and their difference: work that
# depends on whether the address has an account shows as a difference.
#
# GAP_MS separates requests so the background work one request leaves (the mail it causes)
# is done before the next one is timed: what is measured is the answer itself. The data
# directory is made under TMPDIR: on a disk each answer includes one fsync, whose spread on a
# shared virtual disk is wider than the differences looked for; TMPDIR=/dev/shm takes the
# disk out and leaves the work the backend does.
set -euo pipefail
cd "$(dirname "$0")/.."

PAIRS=${PAIRS:-100}
WARMUP=${WARMUP:-5}
GAP_MS=${GAP_MS:-50}
PORT=${PORT:-19231}
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/backend}
ROUTES=${ROUTES:-forgot-password magic-link resend-otp pre-register signup}

if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  cat <<USAGE
usage: scripts/bench-oracles.sh

Medians of the answer times of the account-mail routes for an address with an account and
one without, over PAIRS alternating pairs (after WARMUP pairs that are not counted).
env: PAIRS=$PAIRS (at least 30) WARMUP=$WARMUP GAP_MS=$GAP_MS PORT=$PORT
     BIN=$BIN (build it with: cargo build --release -p backend)
     ROUTES="$ROUTES"
     TMPDIR (where the data directory is made; /dev/shm takes the disk's fsync out)
Needs python3 and openssl. Every request has a 5 s timeout; the run is bounded by PAIRS.
USAGE
  exit 0
fi
[[ -x $BIN ]] || { echo "bench-oracles.sh: no backend at $BIN (cargo build --release -p backend)" >&2; exit 1; }
(( PAIRS >= 30 )) || { echo "bench-oracles.sh: PAIRS must be at least 30" >&2; exit 64; }

work=$(mktemp -d)
pid=
cleanup() { [[ -n $pid ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# Budgets no run reaches, so every answer is the route's own.
env SECURITY_JWT_SECRET_KEY="$(openssl rand -hex 32)" PORT="$PORT" DATA_DIR="$work/data" \
  RUST_LOG=warn RATE_LIMIT_EMAIL=1000000/1h RATE_LIMIT_EMAIL_RECIPIENT=1000000/1h \
  AUTH_RATE_LIMIT_EMAIL=1000000/1h AUTH_RATE_LIMIT_ONE_TIME_CODE=1000000/15m \
  AUTH_RATE_LIMIT_BACKSTOP=1000000/15m RATE_LIMIT_CREDENTIAL=1000000/1h \
  "$BIN" >"$work/backend.log" 2>&1 &
pid=$!
for _ in $(seq 100); do PORT=$PORT "$BIN" --healthcheck 2>/dev/null && break; sleep 0.1; done
PORT=$PORT "$BIN" --healthcheck 2>/dev/null || { echo "the backend did not start" >&2; exit 1; }

python3 - "$PORT" "$work/data/outbox.jsonl" "$PAIRS" "$WARMUP" "$GAP_MS" $ROUTES <<'PY'
import http.client, json, statistics, sys, time

port, outbox, pairs, warmup, gap_ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
routes = sys.argv[6:]
connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=5)

def post(path, body):
    data = json.dumps(body).encode()
    started = time.perf_counter_ns()
    connection.request("POST", "/api/v1/auth/" + path, body=data, headers={"content-type": "application/json"})
    answer = connection.getresponse()
    answer.read()
    return answer.status, (time.perf_counter_ns() - started) / 1e6

def code_for(email):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            for line in reversed(open(outbox).read().splitlines()):
                mail = json.loads(line)
                if mail["to"] == email and mail["kind"] == "otp":
                    return mail["code"]
        except FileNotFoundError:
            pass
        time.sleep(0.01)
    sys.exit(f"no code mailed to {email}")

password = "correct horse battery"
for email in ("known@example.com", "pending@example.com"):
    assert post("signup", {"email": email, "password": password, "name": "Bench"})[0] == 201
assert post("verify-otp", {"email": "known@example.com", "code": code_for("known@example.com")})[0] == 200
code_for("pending@example.com")

# The address with an account that each route treats differently from an unknown one.
existing = {"forgot-password": "known@example.com", "magic-link": "known@example.com",
            "resend-otp": "pending@example.com", "pre-register": "pending@example.com",
            "signup": "known@example.com"}
print(f"{'route':<16} {'with account ms':>16} {'without ms':>11} {'difference ms':>14}  (medians of {pairs} pairs)")
for route in routes:
    times = {"with": [], "without": []}
    for n in range(warmup + pairs):
        sides = [("with", existing[route]), ("without", f"nobody{n}-{route}@example.com")]
        if n % 2:
            sides.reverse()
        for side, email in sides:
            status, elapsed = post(route, {"email": email, "password": password, "name": "Bench"})
            if status not in (201, 202):
                sys.exit(f"{route}: answered {status}")
            if n >= warmup:
                times[side].append(elapsed)
            time.sleep(gap_ms / 1000)
    with_account, without = statistics.median(times["with"]), statistics.median(times["without"])
    print(f"{route:<16} {with_account:>16.3f} {without:>11.3f} {with_account - without:>+14.3f}")
PY
