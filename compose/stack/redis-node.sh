#!/usr/bin/env bash
# redis-node.sh — one Redis process of the swarm stack (compose/stack/stack.yaml), by REDIS_ROLE:
#   primary, replica  redis-server on 6379, its append-only file on the task's volume. At start
#                     it asks the Sentinels which address is the primary now (after a failover
#                     that is the other node) and replicates it; when no Sentinel answers (the
#                     stack's first start, or all of it restarting), the role decides: the
#                     replica follows REDIS_PEER.
#   sentinel          redis-server --sentinel on 26379, watching the primary as "estate". It
#                     keeps no state across restarts: it starts by asking the data nodes which
#                     of them is the primary, and learns the rest from it and the other
#                     Sentinels.
# Sentinels know every node by address, not by name: a node whose task is gone has no name to
# resolve, and a Sentinel that cannot resolve the primary's name never declares it down.
# The stack sets REDIS_NAME (this node's service name); arguments are ignored.
set -euo pipefail

MASTER=estate
SENTINELS=(sentinel-1 sentinel-2 sentinel-3)
NODES=(redis redis-2)
DATA=/var/lib/redis
# A primary unreachable this long is down for a Sentinel; two of three must agree.
DOWN_AFTER_MS="${REDIS_DOWN_AFTER_MS:-1500}"
FAILOVER_TIMEOUT_MS="${REDIS_FAILOVER_TIMEOUT_MS:-10000}"

log() { echo "[redis-node ${REDIS_NAME:-?}] $*" >&2; }

# The primary's address as the first Sentinel that answers has it, or nothing.
sentinels_primary() {
    local sentinel answer
    for sentinel in "${SENTINELS[@]}"; do
        answer=$(timeout 2 redis-cli -h "$sentinel" -p 26379 --raw \
            SENTINEL get-master-addr-by-name "$MASTER" 2>/dev/null | head -n1 || true)
        if [[ "$answer" =~ ^[0-9a-f.:]+$ ]]; then
            echo "$answer"
            return
        fi
    done
}

# The address of the data node that says it is the primary, or nothing.
nodes_primary() {
    local node
    for node in "${NODES[@]}"; do
        if timeout 2 redis-cli -h "$node" INFO replication 2>/dev/null | tr -d '\r' | grep -qx 'role:master'; then
            getent hosts "$node" | awk '{ print $1; exit }'
            return
        fi
    done
}

serve_data() {
    local args=(--port 6379 --bind 0.0.0.0 --protected-mode no --dir "$DATA"
        --appendonly yes --appendfsync everysec)
    local primary
    primary=$(sentinels_primary)
    if [ -z "$primary" ] && [ "$REDIS_ROLE" = replica ]; then
        primary=$REDIS_PEER
    fi
    if [ -n "$primary" ] && ! grep -qw -- "$primary" <<<"$(hostname -I)"; then
        log "replica of $primary"
        args+=(--replicaof "$primary" 6379)
    else
        log "primary"
    fi
    exec redis-server "${args[@]}"
}

serve_sentinel() {
    local conf=/tmp/sentinel.conf primary="" tries=0
    until [ -n "$primary" ]; do
        primary=$(nodes_primary)
        tries=$((tries + 1))
        [ -n "$primary" ] || [ "$tries" -le 120 ] || { log "no data node says it is the primary"; exit 1; }
        [ -n "$primary" ] || sleep 0.5
    done
    cat >"$conf" <<EOF
port 26379
bind 0.0.0.0
protected-mode no
dir /tmp
sentinel monitor $MASTER $primary 6379 2
sentinel down-after-milliseconds $MASTER $DOWN_AFTER_MS
sentinel failover-timeout $MASTER $FAILOVER_TIMEOUT_MS
sentinel parallel-syncs $MASTER 1
EOF
    log "sentinel, watching the primary at $primary"
    exec redis-server "$conf" --sentinel
}

case "${REDIS_ROLE:-}" in
    primary | replica) serve_data ;;
    sentinel) serve_sentinel ;;
    *) log "REDIS_ROLE must be primary, replica or sentinel"; exit 64 ;;
esac
