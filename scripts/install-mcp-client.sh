#!/usr/bin/env bash
# install-mcp-client.sh — makes the Python environment of the MCP test client
# (scripts/mcp-client/): a venv with the official MCP SDK pinned in requirements.txt.
# Idempotent: an environment already built from the same requirements is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${MCP_CLIENT_VENV:-target/mcp-client-venv}"
PYTHON="${PYTHON:-python3}"
REQUIREMENTS=scripts/mcp-client/requirements.txt

usage() {
    cat <<EOF
Usage: $0 [--help]

Creates $VENV (a Python venv) and installs $REQUIREMENTS into it, so that
services/mcp-server/tests/api/python_sdk.rs runs the official MCP SDK against the server.
Run again after requirements.txt changes; otherwise it does nothing.

Environment (defaults in brackets):
  MCP_CLIENT_VENV  [target/mcp-client-venv]  where the venv goes (the Rust test reads the same
                   variable; a relative path is taken from the repository root)
  PYTHON           [python3]  the interpreter the venv is made from (3.10 or newer)
EOF
}

case "${1:-}" in
    "") ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
esac

die() { echo "install-mcp-client.sh: $*" >&2; exit 1; }

command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
    die "$PYTHON is older than 3.10; the MCP SDK needs 3.10 or newer"

stamp="$VENV/.requirements.sha256"
wanted="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if [ -x "$VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
    echo "install-mcp-client.sh: $VENV is up to date" >&2
    exit 0
fi

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
"$VENV/bin/python" -c 'import mcp.client.streamable_http' || die "the SDK does not import"
echo "$wanted" >"$stamp"
echo "install-mcp-client.sh: installed $REQUIREMENTS into $VENV" >&2
