#!/usr/bin/env bash
# install-compose.sh — install the Docker Compose v2 CLI plugin (`docker compose`) on a
# Debian bookworm host that has no access to Docker Hub or GitHub. Bookworm only ships the
# old Python v1 `docker-compose`; the v2 plugin is Debian trixie's `docker-compose` package
# (a static-ish Go binary, depends only on libc). We fetch that .deb with apt using a
# PRIVATE apt state/config dir pointed at trixie on the host's own mirror, so the system's
# apt sources and lists are left untouched, and copy the plugin binary into a directory the
# docker CLI searches for all users.
# Idempotent: does nothing if `docker compose version` already works (unless --force).
set -euo pipefail
cd "$(dirname "$0")/.."

PLUGIN_DIR="${PLUGIN_DIR:-/usr/local/lib/docker/cli-plugins}"
COMPOSE_SUITE="${COMPOSE_SUITE:-trixie}"
COMPOSE_PACKAGE="${COMPOSE_PACKAGE:-docker-compose}"
# Apt mirror: empty means "read the URIs: line of /etc/apt/sources.list.d/debian.sources".
MIRROR="${MIRROR:-}"
APT_SOURCES="${APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}"
KEYRING="${KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}"
WORK_PARENT="${WORK_PARENT:-/var/tmp}"
FORCE=0

usage() {
    cat <<EOF
Usage: $0 [--force] [--help]

Install the Docker Compose v2 plugin from Debian $COMPOSE_SUITE's '$COMPOSE_PACKAGE' package
into $PLUGIN_DIR, without changing the system's apt sources.
Does nothing if 'docker compose version' already works (unless --force).

Options:
  --force      reinstall even if 'docker compose' works
  -h, --help   show this help

Environment (defaults in brackets):
  PLUGIN_DIR       [$PLUGIN_DIR]
  COMPOSE_SUITE    [$COMPOSE_SUITE]
  COMPOSE_PACKAGE  [$COMPOSE_PACKAGE]
  MIRROR           [read from \$APT_SOURCES]  apt mirror URI
  APT_SOURCES      [$APT_SOURCES]
  KEYRING          [$KEYRING]
  WORK_PARENT      [$WORK_PARENT]  where the temporary apt dir goes
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
        --force) FORCE=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

log() { echo "[install-compose] $*" >&2; }
die() { echo "[install-compose] ERROR: $*" >&2; exit 1; }

# read_mirror: the first plain-codename URI of the machine's apt sources.
# shellcheck source=scripts/lib/apt-mirror.sh
source scripts/lib/apt-mirror.sh

WORK=""
cleanup() {
    local rc=$?
    if [ -n "$WORK" ] && [ -d "$WORK" ]; then rm -rf "$WORK"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Check the plugin against the running engine: version plus a trivial config render.
check_compose() {
    local dir
    docker compose version >/dev/null 2>&1 || return 1
    dir="$(mktemp -d "$WORK_PARENT/install-compose-check.XXXXXX")"
    cat >"$dir/compose.yaml" <<'EOF'
name: estate-compose-check
services:
  hello:
    image: estate/base:bookworm
    command: ["true"]
EOF
    if ! docker compose -f "$dir/compose.yaml" config >"$dir/out" 2>&1; then
        cat "$dir/out" >&2
        rm -rf "$dir"
        return 1
    fi
    rm -rf "$dir"
}

command -v docker >/dev/null 2>&1 || die "docker CLI not found"
mkdir -p "$WORK_PARENT"

if [ "$FORCE" != 1 ] && docker compose version >/dev/null 2>&1; then
    check_compose || die "'docker compose' exists but failed the config check"
    log "already installed: $(docker compose version)"
    exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root (installs into $PLUGIN_DIR)"
command -v dpkg-deb >/dev/null 2>&1 || die "dpkg-deb not found"
[ -f "$KEYRING" ] || die "keyring $KEYRING missing (apt-get install debian-archive-keyring)"
if [ -z "$MIRROR" ]; then
    MIRROR="$(read_mirror)"
    [ -n "$MIRROR" ] || die "no apt mirror found in $APT_SOURCES (set MIRROR=...)"
fi

WORK="$(mktemp -d "$WORK_PARENT/install-compose.XXXXXX")"
mkdir -p "$WORK/lists/partial" "$WORK/cache/archives/partial" "$WORK/deb" "$WORK/x"
echo "deb [signed-by=$KEYRING] $MIRROR $COMPOSE_SUITE main" >"$WORK/sources.list"
APT_OPTS=(
    -o "Dir::State::Lists=$WORK/lists"
    -o "Dir::Cache=$WORK/cache"
    -o "Dir::Etc::SourceList=$WORK/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::Etc::Preferences=/dev/null"
    -o "Dir::Etc::PreferencesParts=/dev/null"
    -o "APT::Get::List-Cleanup=0"
    -q
)

log "fetching $COMPOSE_PACKAGE from $COMPOSE_SUITE on $MIRROR (private apt dir $WORK)"
apt-get "${APT_OPTS[@]}" update >"$WORK/update.log" 2>&1 || { cat "$WORK/update.log" >&2; die "apt-get update ($COMPOSE_SUITE) failed"; }
(cd "$WORK/deb" && apt-get "${APT_OPTS[@]}" download "$COMPOSE_PACKAGE") >"$WORK/download.log" 2>&1 \
    || { cat "$WORK/download.log" >&2; die "apt-get download $COMPOSE_PACKAGE failed"; }
deb="$(find "$WORK/deb" -maxdepth 1 -name '*.deb' | head -n1)"
[ -n "$deb" ] || die "no .deb downloaded"
log "downloaded $(basename "$deb")"
dpkg-deb -x "$deb" "$WORK/x"

bin="$WORK/x/usr/libexec/docker/cli-plugins/docker-compose"
if [ ! -f "$bin" ]; then
    # Layout differs from what we expect: take whatever docker-compose executable it ships.
    bin="$(find "$WORK/x" -type f -name docker-compose -perm -u+x | head -n1)"
    [ -n "$bin" ] || die "no docker-compose binary inside $(basename "$deb")"
    log "plugin found at ${bin#"$WORK/x"}"
fi
"$bin" version >/dev/null 2>&1 || die "extracted binary does not run: $bin"

mkdir -p "$PLUGIN_DIR"
install -m 0755 "$bin" "$PLUGIN_DIR/docker-compose.new"
mv -f "$PLUGIN_DIR/docker-compose.new" "$PLUGIN_DIR/docker-compose"
log "installed $PLUGIN_DIR/docker-compose"

check_compose || die "'docker compose' does not work after install"
log "ok: $(docker compose version)"
