#!/usr/bin/env bash
# Bounded analysis (docs/performance.md, "Bounded analysis"): a release analyzer, backend and
# mcp-server on loopback, every request bounded in time (curl --max-time), one run each:
#  1. findings bait (print(password) lines) through POST /analyze (2 MB), the backend's
#     POST /api/v1/analyzer (1.9 MB: its body bound is 2 MiB) and mcp-server's analyze_snippet
#     (900 kB: its body bound is 1 MiB): answer bytes, wall time, the summary, and the peak
#     RSS growth of the analyzer and of the relay (VmHWM after the call minus VmRSS before,
#     the peak reset through /proc/PID/clear_refs first);
#  2. one 200 000-character line with each pattern that iterating every match made quadratic;
#  3. ordinary rules: the golden corpus with its rules.json must answer exactly expected.json;
#  4. the deadline: a rule the regex engine runs slowly on 3.9 MB of 16 KiB lines, answered
#     cut at ANALYZE_DEADLINE_MS;
#  5. the longest step the deadline cannot interrupt: the built-in checks over one 3 MB file
#     of nested log calls (a file is lexed and checked whole).
set -euo pipefail
cd "$(dirname "$0")/.."

ANALYZER_PORT=${ANALYZER_PORT:-19301}
BACKEND_PORT=${BACKEND_PORT:-19302}
MCP_PORT=${MCP_PORT:-19303}
MAX_TIME=${MAX_TIME:-60}
CORPUS=services/analyzer/tests/corpus

if [[ ${1:-} == --help ]]; then
  cat <<USAGE
usage: scripts/bench-bounds.sh
env: ANALYZER_PORT=$ANALYZER_PORT BACKEND_PORT=$BACKEND_PORT MCP_PORT=$MCP_PORT (loopback ports)
     MAX_TIME=$MAX_TIME (seconds any one request may take before curl gives up)
USAGE
  exit 0
fi

cargo build -q --release -p analyzer -p mcp-server -p backend
bin=${CARGO_TARGET_DIR:-target}/release
work=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
token=$(openssl rand -hex 24)
secret=$(openssl rand -hex 32)

# start NAME PORT VAR=value...: a release binary, up within 5 s; its pid in $work/NAME.pid.
start() {
  local name=$1 port=$2
  shift 2
  env PORT="$port" RUST_LOG=warn "$@" "$bin/$name" &
  pids+=($!)
  echo $! >"$work/$name.pid"
  for _ in $(seq 50); do PORT=$port "$bin/$name" --healthcheck 2>/dev/null && return; sleep 0.1; done
  echo "$name on $port did not start" >&2
  exit 1
}

mkdir -p "$work/data"
start analyzer "$ANALYZER_PORT" ANALYZER_TOKEN="$token"
start backend "$BACKEND_PORT" SECURITY_JWT_SECRET_KEY="$secret" DATA_DIR="$work/data" \
  ANALYZER_URL="http://127.0.0.1:$ANALYZER_PORT" ANALYZER_TOKEN="$token"
start mcp-server "$MCP_PORT" SECURITY_JWT_SECRET_KEY="$secret" ANALYZER_TOKEN="$token" \
  ANALYZER_URL="http://127.0.0.1:$ANALYZER_PORT" BACKEND_URL="http://127.0.0.1:$BACKEND_PORT"

# kib NAME FIELD: a /proc status field of NAME, in KiB.
kib() { awk -v field="$2:" '$1 == field { print $2 }' "/proc/$(cat "$work/$1.pid")/status"; }
reset_peak() { echo 5 >"/proc/$(cat "$work/$1.pid")/clear_refs"; }

# A bearer for the backend, the way a user gets one: sign up, read the code, verify.
email=bench@example.com
curl -fsS -m "$MAX_TIME" -o /dev/null -H 'content-type: application/json' \
  -d "{\"email\":\"$email\",\"password\":\"correct horse battery staple\",\"name\":\"Bench\"}" \
  "http://127.0.0.1:$BACKEND_PORT/api/v1/auth/signup"
for _ in $(seq 50); do [[ -s $work/data/outbox.jsonl ]] && break; sleep 0.1; done
code=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readlines()[-1])["code"])' \
  "$work/data/outbox.jsonl")
bearer=$(curl -fsS -m "$MAX_TIME" -H 'content-type: application/json' \
  -d "{\"email\":\"$email\",\"code\":\"$code\"}" \
  "http://127.0.0.1:$BACKEND_PORT/api/v1/auth/verify-otp" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["accessToken"])')

python3 - "$work" <<'PY'
import json, os, random, sys
work = sys.argv[1]
def bait(size):
    return "print(password)\n" * (size // len("print(password)\n"))
json.dump({"files": [{"path": "bait.py", "content": bait(2_000_000)}]}, open(f"{work}/analyzer.json", "w"))
json.dump({"files": [{"path": "bait.py", "content": bait(1_900_000)}]}, open(f"{work}/backend.json", "w"))
call = {"name": "analyze_snippet", "arguments": {"code": bait(900_000), "language": "python"}}
json.dump({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}, open(f"{work}/mcp.json", "w"))
for name, pattern in [("quadratic1", "a*z|a"), ("quadratic2", "\\w*@|\\w")]:
    rule = {"ruleId": "q", "pattern": pattern, "message": "m"}
    json.dump({"files": [{"path": "a.py", "content": "a" * 200_000}], "analysisTypes": ["custom"],
               "rules": [rule]}, open(f"{work}/{name}.json", "w"))
random.seed(1)
line = lambda: "".join(random.choice("ab") for _ in range(16 * 1024))
slow = "\n".join(line() for _ in range(3_900_000 // (16 * 1024)))
rule = {"ruleId": "slow", "pattern": "[ab]*a[ab]{2000}[^ab]", "message": "m"}
json.dump({"files": [{"path": "a.py", "content": slow}], "analysisTypes": ["custom"], "rules": [rule]},
          open(f"{work}/deadline.json", "w"))
nested = 'info!("password {}", ' * (3_000_000 // len('info!("password {}", '))
json.dump({"files": [{"path": "a.rs", "content": nested}]}, open(f"{work}/one-file.json", "w"))
PY

# post NAME URL BODY [HEADER]: wall time, answer bytes and the summary; RSS growth of the
# analyzer and of NAME (the relay, when it is not the analyzer).
post() {
  local name=$1 url=$2 body=$3 header=${4:-x-bench: 1}
  reset_peak analyzer
  reset_peak "$name"
  local before_analyzer before_relay
  before_analyzer=$(kib analyzer VmRSS)
  before_relay=$(kib "$name" VmRSS)
  curl -sS -m "$MAX_TIME" -o "$work/answer" -w '%{http_code} %{time_total}\n' \
    -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H "x-analyzer-token: $token" -H "$header" --data-binary "@$body" "$url" >"$work/status"
  read -r status seconds <"$work/status"
  local summary
  summary=$(python3 -c '
import json, sys
answer = json.load(open(sys.argv[1]))
answer = answer.get("result", {}).get("structuredContent", answer)
print(json.dumps(answer.get("summary", answer)))' "$work/answer")
  echo "$name: HTTP $status in ${seconds}s, answer $(wc -c <"$work/answer") bytes, summary $summary"
  echo "  peak RSS growth: analyzer $((($(kib analyzer VmHWM) - before_analyzer) / 1024)) MiB" \
    "$([[ $name == analyzer ]] || echo "$name $((($(kib "$name" VmHWM) - before_relay) / 1024)) MiB")"
}

echo "== 1. findings bait"
post analyzer "http://127.0.0.1:$ANALYZER_PORT/analyze" "$work/analyzer.json"
post backend "http://127.0.0.1:$BACKEND_PORT/api/v1/analyzer" "$work/backend.json" \
  "authorization: Bearer $bearer"
post mcp-server "http://127.0.0.1:$MCP_PORT/mcp" "$work/mcp.json"

echo "== 2. one 200 000-character line, quadratic over every match"
for name in quadratic1 quadratic2; do
  pattern=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rules"][0]["pattern"])' "$work/$name.json")
  echo "pattern $pattern:"
  post analyzer "http://127.0.0.1:$ANALYZER_PORT/analyze" "$work/$name.json"
done

echo "== 3. ordinary rules: the golden corpus"
python3 - "$CORPUS" "$work/corpus.json" <<'PY'
import json, os, sys
corpus, out = sys.argv[1], sys.argv[2]
files = [{"path": name, "content": open(os.path.join(corpus, name), encoding="utf-8").read()}
         for name in sorted(os.listdir(corpus)) if not name.endswith(".json")]
rules = json.load(open(os.path.join(corpus, "rules.json")))
json.dump({"files": files, "rules": rules}, open(out, "w"))
PY
curl -fsS -m "$MAX_TIME" -H 'content-type: application/json' -H "x-analyzer-token: $token" \
  --data-binary "@$work/corpus.json" "http://127.0.0.1:$ANALYZER_PORT/analyze" >"$work/answer"
python3 - "$work/answer" "$CORPUS/expected.json" <<'PY'
import json, sys
found = json.load(open(sys.argv[1]))["findings"]
expected = json.load(open(sys.argv[2]))
same = sorted(map(json.dumps, found)) == sorted(map(json.dumps, expected))
print(f"corpus: {len(found)} findings, expected.json {len(expected)}: {'identical' if same else 'DIFFERENT'}")
sys.exit(0 if same else 1)
PY

echo "== 4. the deadline: [ab]*a[ab]{2000}[^ab] over 3.9 MB of 16 KiB lines"
post analyzer "http://127.0.0.1:$ANALYZER_PORT/analyze" "$work/deadline.json"

echo "== 5. the built-in checks over one 3 MB file of nested log calls"
post analyzer "http://127.0.0.1:$ANALYZER_PORT/analyze" "$work/one-file.json"
