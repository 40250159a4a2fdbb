# Sourced by scripts/stack.sh: finding the stack's tasks, waiting for it to converge, and the
# checks of the routes, the scrapes and the rolls. Uses $STACK, $SERVICES, $WAIT_TIMEOUT,
# $STAGE_DIR, $ANALYZER_TOKEN and the functions of scripts/lib/estate-http.sh.

# The running containers of one service of the stack, on this node.
task_containers() {
    docker ps -q --filter "label=com.docker.swarm.service.name=${STACK}_$1" --filter status=running
}
task_container() { task_containers "$1" | head -n1; }

# The stack's services whose running tasks are fewer than they should be.
unconverged() {
    docker stack services --format '{{.Name}} {{.Replicas}}' "$STACK" |
        awk '{ split($2, r, "/"); if (r[1] + 0 != r[2] + 0 || r[2] + 0 == 0) print $1 " " $2 }'
}

# Waits until every service of the stack runs all its tasks, healthy (a task with a health
# check counts as running once it is healthy), and the ingress routes every host name.
wait_converged() {
    local started deadline pending count host
    started=$(now_ms)
    deadline=$((SECONDS + WAIT_TIMEOUT))
    while :; do
        count=$(docker stack services -q "$STACK" | wc -l)
        pending=$(unconverged)
        [ "$count" -ge 11 ] && [ -z "$pending" ] && break
        [ "$SECONDS" -lt "$deadline" ] || die "the stack did not converge within ${WAIT_TIMEOUT}s: ${pending//$'\n'/, }"
        sleep 1
    done
    for host in api.localhost analyzer.localhost ai.localhost mcp.localhost; do
        until [ "$(ingress "$host" GET "$(health_path "$host")" | cut -d' ' -f1)" = 200 ]; do
            [ "$SECONDS" -lt "$deadline" ] || die "$host does not answer through the ingress"
            sleep 0.5
        done
    done
    UP_RESULT="11 services converged (2 tasks of each estate service, the ingress on every node, Redis with 3 Sentinels, Prometheus) in $(($(now_ms) - started)) ms"
    log "$UP_RESULT"
    docker stack services --format '  {{.Name}} {{.Mode}} {{.Replicas}}' "$STACK" | sort >&2
}

health_path() { if [ "$1" = api.localhost ]; then echo /actuator/health; else echo /health; fi; }

check_routes() {
    local host answer head
    log "routes through the ingress"
    for host in api.localhost analyzer.localhost ai.localhost mcp.localhost; do
        answer=$(ingress "$host" GET "$(health_path "$host")" | cut -d' ' -f1)
        [ "$answer" = 200 ] || die "https://$host$(health_path "$host"): $answer"
        head=$(https_head "$host" "$(health_path "$host")")
        grep -qi '^strict-transport-security: max-age=31536000; includeSubDomains$' <<<"$head" ||
            die "no HSTS from $host: $head"
    done
    for target in "api.localhost /actuator/prometheus" "mcp.localhost /metrics" "localhost /"; do
        read -r host path <<<"$target"
        answer=$(ingress "$host" GET "$path" | cut -d' ' -f1)
        [ "$answer" = 404 ] || die "https://$host$path through the ingress: $answer, expected 404"
    done
    ROUTES_RESULT="every host name answers 200 with HSTS through the ingress; metrics and unknown hosts 404"
    log "  $ROUTES_RESULT"
}

# One PromQL query, answered by the stack's Prometheus: "<labels> <value>" lines.
promql() {
    docker exec "$(task_container prometheus)" promtool query instant http://127.0.0.1:9090 "$1" |
        sed -n 's/^\({.*}\) => \([0-9.e+-]*\) @.*/\1 \2/p'
}

# Prometheus's own HTTP API, from inside its container (the image has no curl).
prometheus_api() {
    docker exec -i "$(task_container prometheus)" bash -c '
        exec 3<>/dev/tcp/127.0.0.1/9090 || exit 1
        printf "GET %s HTTP/1.0\r\n\r\n" "$1" >&3
        cat <&3' _ "$1"
}

# Every task of every service is scraped (up == 1) through Swarm's DNS, and the alert rules
# are loaded.
check_scrapes() {
    local deadline=$((SECONDS + 90)) expected found rules nodes
    nodes=$(docker node ls -q | wc -l)
    expected="ai-service=2 analyzer=2 backend=2 ingress=$nodes mcp-server=2"
    log "scrapes: waiting for Prometheus to find every task ($expected)"
    while :; do
        found=$(promql 'count by (job) (up == 1)' | sed 's/^{job="\([^"]*\)"} /\1=/' | sort | xargs)
        [ "$found" = "$expected" ] && break
        [ "$SECONDS" -lt "$deadline" ] || die "Prometheus scrapes $found, expected $expected"
        sleep 2
    done
    rules=$(prometheus_api /api/v1/rules | grep -o '"type":"alerting"' | wc -l)
    [ "$rules" -eq "$(grep -c '^ *- alert:' compose/prometheus/alerts.yml)" ] ||
        die "Prometheus has $rules alert rules loaded, compose/prometheus/alerts.yml has more"
    SCRAPES_RESULT="Prometheus scrapes every task through tasks.<service> DNS ($found up) and has the $rules alert rules"
    log "  $SCRAPES_RESULT"
}

# Pollers through the ingress, one per service, each on an ordinary route that touches the
# limiter: "<name> <host> <path> <expected status> <method> <body> <header>".
POLLERS=(
    "backend|api.localhost|/v3/api-docs|200|GET||"
    "analyzer|analyzer.localhost|/analysis-types|200|GET||X-Analyzer-Token: {token}"
    "ai-service|ai.localhost|/api/log-analysis|400|POST|{}|"
    "mcp-server|mcp.localhost|/install.sh|200|GET||"
)
POLLER_PIDS=()
POLLER_STOPS=()

# Runs poll (scripts/lib/estate-http.sh) in the background, stopped by stop_pollers:
#   start_poller STOP HOST PATH OUT [HEADER [METHOD [BODY]]]
start_poller() {
    local stop=$1
    shift
    rm -f "$stop"
    POLLER_STOPS+=("$stop")
    poll "$1" "$2" "$3" "$stop" "${@:4}" &
    POLLER_PIDS+=($!)
}

start_pollers() {
    local tag=$1 entry name host path expected method body header
    for entry in "${POLLERS[@]}"; do
        IFS='|' read -r name host path expected method body header <<<"$entry"
        start_poller "$STAGE_DIR/$tag.stop" "$host" "$path" "$STAGE_DIR/$tag.$name.poll" \
            "${header//\{token\}/$ANALYZER_TOKEN}" "$method" "$body"
    done
    sleep 1
}

stop_pollers() {
    [ "${#POLLER_PIDS[@]}" -gt 0 ] || return 0
    touch "${POLLER_STOPS[@]}"
    wait "${POLLER_PIDS[@]}" 2>/dev/null || true
    POLLER_PIDS=()
    POLLER_STOPS=()
}

# Rolls every estate service, one after the other, while every one of them is polled through
# the ingress: no request may fail. Then the ingress itself, measured.
check_rolls() {
    local service started entry name expected requests failed window slowest total=0 bad=0
    log "rolls: docker service update --force, one service after the other, under load"
    start_pollers roll
    for service in $SERVICES; do
        started=$(now_ms)
        timeout "$WAIT_TIMEOUT" docker service update --force --quiet --detach=false \
            "${STACK}_$service" >/dev/null || die "the roll of $service did not converge"
        log "  $service: 2 tasks replaced in $(($(now_ms) - started)) ms"
    done
    sleep 1
    stop_pollers
    ROLLS_RESULT=""
    for entry in "${POLLERS[@]}"; do
        IFS='|' read -r name _ _ expected _ <<<"$entry"
        read -r requests failed window slowest < <(summarise "$STAGE_DIR/roll.$name.poll" "$expected")
        total=$((total + requests))
        bad=$((bad + failed))
        ROLLS_RESULT="$ROLLS_RESULT $name $failed/$requests failed (slowest ${slowest} ms$(failed_statuses "$STAGE_DIR/roll.$name.poll" "$expected"));"
    done
    ROLLS_RESULT="$SERVICES rolled while $total requests went through the ingress:$ROLLS_RESULT"
    log "  $ROLLS_RESULT"
    [ "$bad" -eq 0 ] || die "$bad requests failed during the rolls"
    check_ingress_roll
}

# The ingress holds the node's ports: on one node its roll stops the old task before the new
# one starts, and the gap is measured (on several nodes, a balancer in front skips the node).
check_ingress_roll() {
    local requests failed window slowest
    start_poller "$STAGE_DIR/ingress.stop" api.localhost /v3/api-docs "$STAGE_DIR/ingress.poll"
    sleep 1
    timeout "$WAIT_TIMEOUT" docker service update --force --quiet --detach=false \
        "${STACK}_ingress" >/dev/null || die "the roll of the ingress did not converge"
    until [ "$(ingress api.localhost GET /v3/api-docs | cut -d' ' -f1)" = 200 ]; do sleep 0.2; done
    sleep 1
    stop_pollers
    read -r requests failed window slowest < <(summarise "$STAGE_DIR/ingress.poll")
    INGRESS_ROLL_RESULT="the ingress rolled on one node: $failed of $requests requests failed$(failed_statuses "$STAGE_DIR/ingress.poll"), window ${window} ms"
    log "  $INGRESS_ROLL_RESULT"
}
