# Shared by scripts/cluster.sh and scripts/stack.sh: talking to the estate through its ingress
# from the host, with curl, and summing up what a poller saw. Source it; it reads
# $DEV_CERT_DIR, $INGRESS_TLS_HOST_PORT and $INGRESS_HOST_PORT.

now_ms() { date +%s%3N; }

# Secrets for a throw-away estate: random, never written to the repository.
random_secrets() {
    local name
    for name in SECURITY_JWT_SECRET_KEY ANALYZER_TOKEN INTERNAL_TOKEN; do
        export "$name=$(head -c 48 /dev/urandom | sha256sum | cut -c1-64)"
    done
}

# Stops (with the caller's die) when anything already listens on the ingress's ports on
# 127.0.0.1: a cluster or stack left running, or any other program. A connection is enough to
# tell; the TLS port would not answer a plain HTTP request.
ports_free() {
    local port
    for port in "$INGRESS_HOST_PORT" "$INGRESS_TLS_HOST_PORT"; do
        if timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$port" 2>/dev/null; then
            die "127.0.0.1:$port is taken (a cluster or stack still up? scripts/cluster.sh down, scripts/stack.sh down)"
        fi
    done
}

# Through the ingress over HTTPS, trusting the development CA only (curl sends HOST as the TLS
# name and the Host header): ingress HOST METHOD PATH [BODY [HEADER]] → "<status> <milliseconds>".
ingress() {
    local host=$1 method=$2 path=$3 body=${4:-} header=${5:-}
    local args=(--silent --output /dev/null --max-time 15 --write-out '%{http_code} %{time_total}'
        --cacert "$DEV_CERT_DIR/ca.pem" --resolve "$host:$INGRESS_TLS_HOST_PORT:127.0.0.1"
        --request "$method")
    [ -n "$body" ] && args+=(--header 'Content-Type: application/json' --data "$body")
    [ -n "$header" ] && args+=(--header "$header")
    # A refused connection still writes "000 <time>"; the exit status is not needed.
    local result
    result=$(curl "${args[@]}" "https://$host:$INGRESS_TLS_HOST_PORT$path") || true
    awk '{ printf "%s %d\n", $1, $2 * 1000 }' <<<"${result:-000 0}"
}

# The answer's head, over HTTPS (https_head HOST PATH) or plain HTTP (plain_head HOST PATH).
https_head() {
    curl --silent --max-time 15 --output /dev/null --dump-header - --cacert "$DEV_CERT_DIR/ca.pem" \
        --resolve "$1:$INGRESS_TLS_HOST_PORT:127.0.0.1" "https://$1:$INGRESS_TLS_HOST_PORT$2" | tr -d '\r'
}
plain_head() {
    curl --silent --max-time 15 --output /dev/null --dump-header - \
        --resolve "$1:$INGRESS_HOST_PORT:127.0.0.1" "http://$1:$INGRESS_HOST_PORT$2" | tr -d '\r'
}

# Sends one request through the ingress every 50 ms until the file STOP exists, and writes
# "<epoch ms> <status> <ms taken>" lines to OUT:
#   poll HOST PATH OUT STOP [HEADER [METHOD [BODY]]]
# A BODY holding "{n}" gets the request's number there, so each request can differ (a login
# for another address, say). The path should be an ordinary route, not a health endpoint: a
# stopping replica's health answers 503 on purpose (SHUTDOWN_DELAY_MS) while it still serves
# every other request.
poll() {
    local host=$1 path=$2 out=$3 stop=$4 header=${5:-} method=${6:-GET} body=${7:-} n=0
    : >"$out"
    while [ ! -e "$stop" ]; do
        n=$((n + 1))
        echo "$(now_ms) $(ingress "$host" "$method" "$path" "${body//\{n\}/$n}" "$header")" >>"$out"
        sleep 0.05
    done
}

# "<requests> <failed> <window ms> <slowest ms>" from a poll file; failed means not EXPECTED
# (200 by default), the window runs from the first failure to the last.
summarise() {
    awk -v ok="${2:-200}" '{ n++; if ($2 != ok) { bad++; if (!first) first = $1; last = $1 } if ($3 > slow) slow = $3 }
         END { printf "%d %d %d %d\n", n, bad, (bad ? last - first + 50 : 0), slow }' "$1"
}

# " (3× 502, 1× 000)": the statuses in a poll file that were not EXPECTED (200), or nothing.
failed_statuses() {
    awk -v ok="${2:-200}" '$2 != ok { count[$2]++ } END { for (s in count) out = out sprintf("%s%d× %s", (out ? ", " : ""), count[s], s); if (out) printf " (%s)", out }' "$1"
}
