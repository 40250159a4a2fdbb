#!/usr/bin/env bash
# redis-node.sh — one Redis process of the swarm stack (compose/stack/stack.yaml), by REDIS_ROLE:
#   primary, replica  redis-server on 6379, its append-only file on the task's volume. At start
#                     it asks the Sentinels which node is the primary now (after a failover that
#                     is the other one) and replicates it; when no Sentinel answers (the stack's
#                     first start), the role decides: the replica follows REDIS_PEER.
#   sentinel          redis-server --sentinel on 26379, watching the primary as "estate". Its
#                     configuration is on its volume: a Sentinel rewrites it as it learns, and a
#                     restarted one must remember who the primary is now.
# Every node is known by its service name (a task's address changes when it is replaced), so
# nodes announce names and the Sentinels resolve them.
# The stack sets REDIS_NAME (this node's service name); arguments are ignored.
set -euo pipefail

MASTER=estate
SENTINELS=(sentinel-1 sentinel-2 sentinel-3)
DATA=/var/lib/redis
# A primary unreachable this long is down for the Sentinels; two of three must agree.
DOWN_AFTER_MS="${REDIS_DOWN_AFTER_MS:-1500}"
FAILOVER_TIMEOUT_MS="${REDIS_FAILOVER_TIMEOUT_MS:-10000}"

log() { echo "[redis-node ${REDIS_NAME:-?}] $*" >&2; }

# The primary's name as the first Sentinel that answers has it, or nothing.
current_primary() {
    local sentinel answer
    for sentinel in "${SENTINELS[@]}"; do
        answer=$(timeout 2 redis-cli -h "$sentinel" -p 26379 --raw \
            SENTINEL get-master-addr-by-name "$MASTER" 2>/dev/null | head -n1 || true)
        if [[ "$answer" =~ ^[A-Za-z0-9._-]+$ ]]; then
            echo "$answer"
            return
        fi
    done
}

# Waits (bounded) until NAME resolves: a service's name exists once its task runs.
wait_for_name() {
    local name=$1 tries=0
    until getent hosts "$name" >/dev/null; do
        tries=$((tries + 1))
        [ "$tries" -le 120 ] || { log "$name does not resolve"; exit 1; }
        sleep 0.5
    done
}

serve_data() {
    local args=(--port 6379 --bind 0.0.0.0 --protected-mode no --dir "$DATA"
        --appendonly yes --appendfsync everysec --replica-announce-ip "$REDIS_NAME")
    local primary
    primary=$(current_primary)
    if [ -z "$primary" ] && [ "$REDIS_ROLE" = replica ]; then
        primary=$REDIS_PEER
    fi
    if [ -n "$primary" ] && [ "$primary" != "$REDIS_NAME" ]; then
        wait_for_name "$primary"
        log "replica of $primary"
        args+=(--replicaof "$primary" 6379)
    else
        log "primary"
    fi
    exec redis-server "${args[@]}"
}

serve_sentinel() {
    local conf="$DATA/sentinel.conf"
    if [ ! -s "$conf" ]; then
        wait_for_name redis
        cat >"$conf" <<EOF
port 26379
bind 0.0.0.0
protected-mode no
dir /tmp
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel announce-ip $REDIS_NAME
sentinel monitor $MASTER redis 6379 2
sentinel down-after-milliseconds $MASTER $DOWN_AFTER_MS
sentinel failover-timeout $MASTER $FAILOVER_TIMEOUT_MS
sentinel parallel-syncs $MASTER 1
EOF
        log "sentinel, new configuration: watching redis"
    else
        log "sentinel, configuration kept from the last run"
    fi
    exec redis-server "$conf" --sentinel
}

case "${REDIS_ROLE:-}" in
    primary | replica) serve_data ;;
    sentinel) serve_sentinel ;;
    *) log "REDIS_ROLE must be primary, replica or sentinel"; exit 64 ;;
esac
