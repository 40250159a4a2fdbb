#!/usr/bin/env bash
# Redis backend throughput, side by side in one run: the limiter's Redis decisions with 16
# concurrent tasks, then redis-benchmark with 16 clients running the same GCRA script on the
# same server. Traffic stays on loopback; both runs are bounded in count.
set -euo pipefail
cd "$(dirname "$0")/.."

REDIS_IMAGE=${REDIS_IMAGE:-estate/redis:7}
REQUESTS=${REQUESTS:-80000}

if [[ ${1:-} == --help ]]; then
  echo "usage: scripts/bench-redis.sh   (env: REDIS_IMAGE=$REDIS_IMAGE REQUESTS=$REQUESTS)"
  exit 0
fi

scripts/offline-images.sh --no-verify >/dev/null
container=$(docker run -d --rm -p 127.0.0.1::6379 "$REDIS_IMAGE")
trap 'docker stop "$container" >/dev/null' EXIT
port=$(docker port "$container" 6379/tcp | head -n1 | sed 's/.*://')
for _ in $(seq 50); do
  docker exec "$container" redis-cli ping 2>/dev/null | grep -q PONG && break
  sleep 0.2
done

echo "== limiter (redis backend, 16 tasks, one multiplexed connection)"
REDIS_URL="redis://127.0.0.1:$port" cargo bench -q -p limiter --bench redis_throughput

echo "== redis-benchmark (16 clients, the same script by EVALSHA, same server)"
sha=$(docker exec -i "$container" sh -c 'redis-cli -x SCRIPT LOAD' < crates/limiter/src/gcra.lua)
# 1e9 per hour: the interval and tolerance in microseconds, as the limiter sends them.
docker run --rm --network host "$REDIS_IMAGE" redis-benchmark -h 127.0.0.1 -p "$port" \
  -c 16 -n "$REQUESTS" -r 10000 -q EVALSHA "$sha" 1 "rl:bench:group:__rand_int__" 3 2999999997 \
  | tr '\r' '\n' | grep 'requests per second' | sed 's/^.*: \([0-9.]* requests per second.*\)$/redis-benchmark EVALSHA: \1/'
