# Sourced by scripts/stack.sh: the Redis primary killed under a login load through the
# ingress, and what the clients saw. Uses $STACK, $STAGE_DIR, $FAILOVER_MAX_WINDOW_MS and the
# functions of scripts/lib/estate-http.sh and scripts/lib/stack-checks.sh.

# Addresses locked before the failover (LOGIN_MAX_ATTEMPTS wrong passwords each, the
# service's default of 5): each must still be locked after it.
LOCKED_ADDRESSES=8
LOGIN_MAX_ATTEMPTS_DEFAULT=5

redis_cli() {
    local service=$1
    shift
    docker exec "$(task_container "$service")" redis-cli "$@"
}

# The primary's address, as the first Sentinel that answers has it.
sentinel_primary() {
    local sentinel answer
    for sentinel in sentinel-1 sentinel-2 sentinel-3; do
        answer=$(redis_cli "$sentinel" -p 26379 --raw SENTINEL get-master-addr-by-name estate 2>/dev/null |
            head -n1 || true)
        if [ -n "$answer" ]; then
            echo "$answer"
            return
        fi
    done
}

# The data node that says it is the primary: redis or redis-2.
primary_node() {
    local node
    for node in redis redis-2; do
        if redis_cli "$node" INFO replication | tr -d '\r' | grep -qx 'role:master'; then
            echo "$node"
            return
        fi
    done
}

# The addresses of one service's task on this node.
task_addresses() {
    docker inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}' "$(task_container "$1")"
}

login() {
    ingress api.localhost POST /api/v1/auth/login \
        "{\"email\":\"$1@example.com\",\"password\":\"wrong-password\"}" | cut -d' ' -f1
}

seed_locks() {
    local n attempt answer
    for n in $(seq "$LOCKED_ADDRESSES"); do
        for attempt in $(seq "$LOGIN_MAX_ATTEMPTS_DEFAULT"); do
            answer=$(login "locked$n")
            [ "$answer" = 401 ] || die "seeding lock $n: attempt $attempt answered $answer"
        done
        [ "$(login "locked$n")" = 429 ] || die "locked$n@example.com is not locked after $LOGIN_MAX_ATTEMPTS_DEFAULT wrong passwords"
    done
}

count_locked() {
    local n locked=0
    for n in $(seq "$LOCKED_ADDRESSES"); do
        [ "$(login "locked$n")" = 429 ] && locked=$((locked + 1))
    done
    echo "$locked"
}

# One field of a node's INFO replication.
replication_field() {
    redis_cli "$1" INFO replication | tr -d '\r' | awk -F: -v field="$2" '$1 == field { print $2 }'
}

# Failed logins per second after the kill, as "+0s:3 +1s:20 …".
failures_per_second() {
    awk -v kill="$2" '$2 != 401 { s = int(($1 - kill) / 1000); count[s]++ }
        END { for (s in count) printf "%s+%ds:%d", (n++ ? " " : ""), s, count[s] }' "$1" |
        tr ' ' '\n' | sort -t+ -k2 -n | xargs
}

# Keeps a killed data node down: its service scaled to 0 and no task of it running for 3 s
# in a row, longer than the restart policy's delay (1 s): a replacement the policy started
# before the scale took effect would follow the dead primary's address.
stay_down() {
    local node=$1 deadline=$((SECONDS + 30)) quiet_since=""
    while :; do
        if [ "$(docker service inspect --format '{{.Spec.Mode.Replicated.Replicas}}' "${STACK}_$node")" = 0 ] &&
            [ -z "$(task_containers "$node")" ]; then
            quiet_since=${quiet_since:-$(now_ms)}
            [ $(($(now_ms) - quiet_since)) -lt 3000 ] || return 0
        else
            quiet_since=""
            docker service scale --detach "${STACK}_$node=0" >/dev/null 2>&1 || true
        fi
        [ "$SECONDS" -lt "$deadline" ] || die "$node did not stay down after the kill"
        sleep 0.2
    done
}

check_failover() {
    local primary replica killed promoted written lost out="$STAGE_DIR/failover.poll"
    primary=$(primary_node)
    case "$primary" in
        redis) replica=redis-2 ;;
        redis-2) replica=redis ;;
        *) die "no data node says it is the primary" ;;
    esac
    local replica_addresses
    replica_addresses=$(task_addresses "$replica")
    log "failover: locking $LOCKED_ADDRESSES addresses, then killing the primary ($primary) under a login load"
    seed_locks
    sleep 1
    start_poller "$STAGE_DIR/failover.stop" api.localhost /api/v1/auth/login "$out" "" POST \
        '{"email":"load{n}@example.com","password":"wrong-password"}'
    sleep 3
    # How much of the replication stream the primary had just before it died; the promoted
    # replica's second_repl_offset says how much of it reached the replica.
    written=$(replication_field "$primary" master_repl_offset)
    killed=$(now_ms)
    docker kill "$(task_container "$primary")" >/dev/null
    stay_down "$primary"
    local deadline=$((SECONDS + 60))
    local named=""
    until [ -n "$named" ] && grep -qw -- "$named" <<<"$replica_addresses"; do
        named=$(sentinel_primary)
        [ "$SECONDS" -lt "$deadline" ] || die "the Sentinels did not promote $replica within 60 s"
        sleep 0.1
    done
    promoted=$(now_ms)
    # Writes between the reading and the kill can make this negative: then nothing was lost.
    lost=$((written - $(replication_field "$replica" second_repl_offset) + 1))
    [ "$lost" -ge 0 ] || lost=0
    log "  $replica promoted $((promoted - killed)) ms after the kill"
    # Logins answered normally again for 3 s in a row end the window.
    until tail -n 60 "$out" | awk -v since="$(($(now_ms) - 3000))" '$1 >= since { n++; if ($2 != 401) bad++ } END { exit !(n >= 10 && !bad) }'; do
        [ "$SECONDS" -lt "$deadline" ] || die "logins did not recover within 60 s of the kill"
        sleep 0.5
    done
    stop_pollers
    local requests failed window slowest fallbacks locked rejoined
    read -r requests failed window slowest < <(summarise "$out" 401)
    fallbacks=$(promql 'sum(increase(limiter_decisions_total{outcome="fallback"}[3m]))' | awk '{ printf "%d", $2 }')
    locked=$(count_locked)
    log "  bringing $primary back: it must rejoin as a replica of $replica"
    docker service scale --detach=false "${STACK}_$primary=1" >/dev/null 2>&1 ||
        die "$primary did not come back"
    deadline=$((SECONDS + 60))
    until redis_cli "$primary" INFO replication | tr -d '\r' | grep -qx 'master_link_status:up'; do
        [ "$SECONDS" -lt "$deadline" ] || die "$primary did not rejoin as a replica of $replica"
        sleep 0.5
    done
    rejoined="rejoined as a replica of $replica"
    FAILOVER_RESULT="primary $primary killed: $replica promoted after $((promoted - killed)) ms; $failed of $requests logins not answered 401$(failed_statuses "$out" 401), window ${window} ms, slowest answer ${slowest} ms, failures per second after the kill: $(failures_per_second "$out" "$killed"); limiter decisions made locally: ${fallbacks:-0}; locks kept: $locked of $LOCKED_ADDRESSES; bytes of replication stream the primary had and $replica never got: $lost; $primary $rejoined"
    log "  $FAILOVER_RESULT"
    [ "$locked" -eq "$LOCKED_ADDRESSES" ] || die "$((LOCKED_ADDRESSES - locked)) locks were lost in the failover"
    [ "$window" -le "$FAILOVER_MAX_WINDOW_MS" ] || die "the failover window was ${window} ms (at most $FAILOVER_MAX_WINDOW_MS)"
    ! awk '$2 != 401 && $2 != 503 { found = 1 } END { exit !found }' "$out" ||
        die "during the failover a login got an answer other than 401 or 503$(failed_statuses "$out" 401)"
}
