#!/usr/bin/env bash
# redis-node.sh — one Redis process of the swarm stack (compose/stack/stack.yaml), by REDIS_ROLE:
#   primary, replica  redis-server on 6379, its append-only file on the task's volume. At start
#                     it asks the Sentinels which address is the primary now (after a failover
#                     that is the other node) and replicates it, once that address answers as a
#                     primary: a node restarted while its old primary is down, before the
#                     Sentinels have promoted the other, would otherwise follow an address that
#                     is gone (a task's address changes with the task) and never be told
#                     otherwise, for no Sentinel knows its new address. When no Sentinel answers
#                     (the stack's first start, or all of it restarting), the role decides: the
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
# How long a starting data node waits for the primary the Sentinels name to answer as one
# (a failover under way), asking them again each second; then it follows what they name. Well
# inside the health check's start period (30 s).
PRIMARY_WAIT_S="${REDIS_PRIMARY_WAIT_S:-20}"

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

# Whether the node at $1 (an address or a name) answers as a primary.
answers_as_primary() {
    timeout 2 redis-cli -h "$1" INFO replication 2>/dev/null | tr -d '\r' | grep -qx 'role:master'
}

# Whether $1 is one of this task's own addresses.
is_own_address() {
    grep -qw -- "$1" <<<"$(hostname -I)"
}

# The primary the Sentinels name, once it answers as one (what they name after PRIMARY_WAIT_S
# all the same: they are the authority); nothing when no Sentinel answers.
live_primary() {
    local primary waited=0
    primary=$(sentinels_primary)
    while [ -n "$primary" ] && ! is_own_address "$primary" && ! answers_as_primary "$primary"; do
        if [ "$waited" -ge "$PRIMARY_WAIT_S" ]; then
            log "the Sentinels still name $primary, which does not answer as a primary: following it"
            break
        fi
        log "the Sentinels name $primary, which does not answer as a primary yet: asking again"
        sleep 1
        waited=$((waited + 1))
        primary=$(sentinels_primary)
    done
    echo "$primary"
}

# The address of the data node that says it is the primary, or nothing.
nodes_primary() {
    local node
    for node in "${NODES[@]}"; do
        if answers_as_primary "$node"; then
            getent hosts "$node" | awk '{ print $1; exit }'
            return
        fi
    done
}

serve_data() {
    local args=(--port 6379 --bind 0.0.0.0 --protected-mode no --dir "$DATA"
        --appendonly yes --appendfsync everysec)
    local primary
    primary=$(live_primary)
    if [ -z "$primary" ] && [ "$REDIS_ROLE" = replica ]; then
        primary=$REDIS_PEER
    fi
    if [ -n "$primary" ] && ! is_own_address "$primary"; then
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
