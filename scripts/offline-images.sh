#!/usr/bin/env bash
# offline-images.sh — build the estate's Docker base images on a machine with NO
# container registry (nothing can be pulled). Root file systems are made with
# debootstrap from the Debian apt mirror already configured on this host and turned
# into images with `docker import`:
#   estate/base:bookworm  minimal Debian bookworm + ca-certificates (FROM for our services)
#   estate/redis:7        the same + Debian's redis-server/redis-tools (7.0.x)
#   estate/prometheus:2   the same + Debian's prometheus (with --prometheus: the swarm stack's)
# Idempotent: an image that already exists is kept (unless --force), then checked.
# Needs root (debootstrap) and a running Docker engine.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE_IMAGE_TAG="${BASE_IMAGE_TAG:-estate/base:bookworm}"
REDIS_IMAGE_TAG="${REDIS_IMAGE_TAG:-estate/redis:7}"
PROMETHEUS_IMAGE_TAG="${PROMETHEUS_IMAGE_TAG:-estate/prometheus:2}"
SUITE="${SUITE:-bookworm}"
# Apt mirror: empty means "read the URIs: line of /etc/apt/sources.list.d/debian.sources".
MIRROR="${MIRROR:-}"
APT_SOURCES="${APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}"
KEYRING="${KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}"
# Scratch space for the root file systems; must be a real disk (not tmpfs, not noexec).
WORK_PARENT="${WORK_PARENT:-/var/tmp}"
FORCE=0
PROMETHEUS=0
VERIFY="${VERIFY:-1}"

usage() {
    cat <<EOF
Usage: $0 [--force] [--no-verify] [--prometheus] [--help]

Build Docker images without any registry, from the host's Debian apt mirror:
  $BASE_IMAGE_TAG   (env BASE_IMAGE_TAG)
  $REDIS_IMAGE_TAG  (env REDIS_IMAGE_TAG)
  $PROMETHEUS_IMAGE_TAG  (env PROMETHEUS_IMAGE_TAG; only with --prometheus)
Images that already exist are not rebuilt unless --force is given.

Options:
  --force       rebuild the images even if they exist
  --prometheus  also build the Prometheus image (scripts/stack.sh needs it)
  --no-verify   skip the smoke tests (same as VERIFY=0)
  -h, --help    show this help

Environment (defaults in brackets):
  BASE_IMAGE_TAG   [$BASE_IMAGE_TAG]
  REDIS_IMAGE_TAG  [$REDIS_IMAGE_TAG]
  SUITE            [$SUITE]   Debian suite to bootstrap
  MIRROR           [read from \$APT_SOURCES]  apt mirror URI
  APT_SOURCES      [$APT_SOURCES]
  KEYRING          [$KEYRING]
  WORK_PARENT      [$WORK_PARENT]  where the temporary root file systems go
  VERIFY           [$VERIFY]  1 = run smoke tests on the images
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
        --force) FORCE=1 ;;
        --no-verify) VERIFY=0 ;;
        --prometheus) PROMETHEUS=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

log() { echo "[offline-images] $*" >&2; }
die() { echo "[offline-images] ERROR: $*" >&2; exit 1; }

# read_mirror: the first plain-codename URI of the machine's apt sources.
# shellcheck source=scripts/lib/apt-mirror.sh
source scripts/lib/apt-mirror.sh

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap)"
docker info >/dev/null 2>&1 || die "cannot talk to the Docker engine"

if [ -z "$MIRROR" ]; then
    MIRROR="$(read_mirror)"
    [ -n "$MIRROR" ] || die "no apt mirror found in $APT_SOURCES (set MIRROR=...)"
fi

need_base=0; need_redis=0; need_prometheus=0
{ [ "$FORCE" = 1 ] || ! image_exists "$BASE_IMAGE_TAG"; } && need_base=1
{ [ "$FORCE" = 1 ] || ! image_exists "$REDIS_IMAGE_TAG"; } && need_redis=1
if [ "$PROMETHEUS" = 1 ]; then
    { [ "$FORCE" = 1 ] || ! image_exists "$PROMETHEUS_IMAGE_TAG"; } && need_prometheus=1
fi

WORK=""
VERIFY_CID=""
cleanup() {
    local rc=$?
    if [ -n "$VERIFY_CID" ]; then docker rm -f "$VERIFY_CID" >/dev/null 2>&1 || true; fi
    if [ -n "$WORK" ] && [ -d "$WORK" ]; then
        # debootstrap may leave proc/sys/dev mounted inside the root fs after a failure.
        awk -v w="$WORK/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r |
            while read -r m; do umount -l "$m" 2>/dev/null || true; done
        rm -rf --one-file-system "$WORK"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$need_base" = 1 ] || [ "$need_redis" = 1 ] || [ "$need_prometheus" = 1 ]; then
    if ! command -v debootstrap >/dev/null 2>&1; then
        log "installing debootstrap"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
    fi
    [ -f "$KEYRING" ] || die "keyring $KEYRING missing (apt-get install debian-archive-keyring)"
    mkdir -p "$WORK_PARENT"
    WORK="$(mktemp -d "$WORK_PARENT/offline-images.XXXXXX")"
    mkdir -p "$WORK/cache"
fi

# build_image TAG INCLUDE_PKGS [docker import -c changes...]
build_image() {
    local tag="$1" include="$2"; shift 2
    local changes=() c rootfs="$WORK/rootfs"
    for c in "$@"; do changes+=(-c "$c"); done
    log "debootstrap $SUITE ($include) from $MIRROR -> $tag"
    rm -rf --one-file-system "$rootfs"
    mkdir -p "$rootfs"
    if ! debootstrap --variant=minbase --include="$include" --keyring="$KEYRING" \
            --cache-dir="$WORK/cache" "$SUITE" "$rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1; then
        tail -n 30 "$WORK/debootstrap.log" >&2
        [ -f "$rootfs/debootstrap/debootstrap.log" ] && tail -n 30 "$rootfs/debootstrap/debootstrap.log" >&2
        die "debootstrap failed for $tag"
    fi
    # Shrink: apt lists/caches, docs, man pages, locales, logs.
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin \
        "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/debconf/*-old \
        "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
        "$rootfs"/usr/share/locale/* "$rootfs"/usr/share/lintian "$rootfs"/var/log/*.log \
        "$rootfs"/var/log/apt/* "$rootfs"/debootstrap
    # Keep docs/man/locales out of packages installed later in derived images too.
    mkdir -p "$rootfs/etc/dpkg/dpkg.cfg.d"
    cat >"$rootfs/etc/dpkg/dpkg.cfg.d/01-estate-nodoc" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
EOF
    printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' \
        >"$rootfs/etc/apt/apt.conf.d/01-estate-norecommends"
    : >"$rootfs/etc/hostname"
    rm -f "$rootfs/etc/machine-id" "$rootfs/var/lib/dbus/machine-id"
    tar --numeric-owner -C "$rootfs" -c . |
        docker import "${changes[@]}" \
            -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
            -c 'ENV LANG=C.UTF-8' \
            -m "offline-images.sh: debootstrap $SUITE minbase +$include" \
            - "$tag" >/dev/null
    rm -rf --one-file-system "$rootfs"
    log "imported $tag"
}

if [ "$need_base" = 1 ]; then
    build_image "$BASE_IMAGE_TAG" ca-certificates 'CMD ["bash"]'
else
    log "$BASE_IMAGE_TAG exists, not rebuilding (use --force)"
fi

if [ "$need_redis" = 1 ]; then
    # redis-server with only flags (no config file) runs in the foreground and logs to stdout,
    # so it is a fine PID 1. WORKDIR is where it would write dump.rdb.
    build_image "$REDIS_IMAGE_TAG" ca-certificates,redis-server \
        'CMD ["redis-server","--bind","0.0.0.0","--protected-mode","no"]' \
        'EXPOSE 6379' \
        'WORKDIR /var/lib/redis'
else
    log "$REDIS_IMAGE_TAG exists, not rebuilding (use --force)"
fi

if [ "$need_prometheus" = 1 ]; then
    # The package's own user and paths; the stack mounts the configuration and a tmpfs on the
    # data directory.
    build_image "$PROMETHEUS_IMAGE_TAG" ca-certificates,prometheus \
        'USER prometheus' \
        'EXPOSE 9090' \
        'ENTRYPOINT ["/usr/bin/prometheus"]' \
        'CMD ["--config.file=/etc/prometheus/prometheus.yml","--storage.tsdb.path=/prometheus"]'
elif [ "$PROMETHEUS" = 1 ]; then
    log "$PROMETHEUS_IMAGE_TAG exists, not rebuilding (use --force)"
fi

if [ "$VERIFY" = 1 ]; then
    if [ "$PROMETHEUS" = 1 ]; then
        log "verifying $PROMETHEUS_IMAGE_TAG"
        docker run --rm --entrypoint promtool "$PROMETHEUS_IMAGE_TAG" --version 2>&1 | head -n1 | sed 's/^/  /' >&2 ||
            die "$PROMETHEUS_IMAGE_TAG has no working promtool"
    fi
    log "verifying $BASE_IMAGE_TAG"
    docker run --rm "$BASE_IMAGE_TAG" sh -c 'test -s /etc/ssl/certs/ca-certificates.crt && . /etc/os-release && echo "  $PRETTY_NAME"' >&2 \
        || die "$BASE_IMAGE_TAG does not run or lacks CA certificates"

    log "verifying $REDIS_IMAGE_TAG"
    VERIFY_CID="$(docker run --rm -d -p 127.0.0.1:0:6379 "$REDIS_IMAGE_TAG")"
    pong=""
    for _ in $(seq 1 50); do
        pong="$(docker exec "$VERIFY_CID" redis-cli ping 2>/dev/null || true)"
        [ "$pong" = PONG ] && break
        sleep 0.2
    done
    if [ "$pong" != PONG ]; then
        docker logs "$VERIFY_CID" >&2 || true
        die "$REDIS_IMAGE_TAG did not answer PING"
    fi
    version="$(docker exec "$VERIFY_CID" redis-server --version)"
    case "$version" in
        *" v=7."*) ;;
        *) die "unexpected redis version: $version" ;;
    esac
    lua="$(docker exec "$VERIFY_CID" redis-cli EVAL "return redis.call('TIME')" 0)"
    [ "$(printf '%s\n' "$lua" | grep -c '^[0-9][0-9]*$')" -eq 2 ] || die "Lua EVAL failed: $lua"
    docker exec "$VERIFY_CID" sh -c 'command -v redis-benchmark >/dev/null' || die "redis-benchmark missing"
    port="$(docker port "$VERIFY_CID" 6379/tcp | head -n1)"
    log "  PING -> PONG, EVAL TIME ok, published on $port, ${version%% sha=*}"
    docker rm -f "$VERIFY_CID" >/dev/null
    VERIFY_CID=""
fi

echo "Images:"
tags=("$BASE_IMAGE_TAG" "$REDIS_IMAGE_TAG")
[ "$PROMETHEUS" = 1 ] && tags+=("$PROMETHEUS_IMAGE_TAG")
for tag in "${tags[@]}"; do
    docker image ls --format '{{.Repository}}:{{.Tag}}  {{.ID}}  {{.Size}}' "$tag" | sed 's/^/  /'
done
