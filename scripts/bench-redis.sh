#!/usr/bin/env bash
# Redis backend throughput, side by side in one run: the limiter's Redis decisions with 16
# concurrent tasks on its one multiplexed connection (so up to 16 calls in flight, pipelined),
# then redis-benchmark running the same GCRA script on the same server with the same
# concurrency and pipelining: one client, 16 commands in flight (-c 1 -P 16). The unpipelined
# figure (-c 16 -P 1) is printed too, for what it was once compared against. Traffic stays on
# loopback; every run is bounded in count.
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

sha=$(docker exec -i "$container" sh -c 'redis-cli -x SCRIPT LOAD' < crates/limiter/src/gcra.lua)
# bench CLIENTS PIPELINE: redis-benchmark EVALSHA of the same script; 1e9 per hour: the
# interval and tolerance in microseconds, as the limiter sends them.
bench() {
  docker run --rm --network host "$REDIS_IMAGE" redis-benchmark -h 127.0.0.1 -p "$port" \
    -c "$1" -P "$2" -n "$REQUESTS" -r 10000 -q \
    EVALSHA "$sha" 1 "rl:bench:group:__rand_int__" 3 2999999997 \
    | tr '\r' '\n' | grep 'requests per second' \
    | sed "s/^.*: \([0-9.]* requests per second.*\)$/redis-benchmark -c $1 -P $2 EVALSHA: \1/"
}
echo "== redis-benchmark, the same concurrency and pipelining (1 client, 16 in flight)"
bench 1 16
echo "== redis-benchmark, unpipelined (16 clients, one in flight each)"
bench 16 1
