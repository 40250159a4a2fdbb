#!/bin/sh
# Registers the estate's MCP server with an MCP client. Served by mcp-server at GET /install.sh;
# the server URL below is the server's configured MCP_PUBLIC_URL, never taken from a request.
#
#   curl -fsSL <server>/install.sh | sh
#   curl -fsSL <server>/install.sh | sh -s -- --client json --config .mcp.json
set -eu

ESTATE_MCP_URL='__ESTATE_MCP_URL__'

name=${ESTATE_MCP_NAME:-estate}
client=${ESTATE_MCP_CLIENT:-auto}
config=${ESTATE_MCP_CONFIG:-.mcp.json}
scope=${ESTATE_MCP_SCOPE:-user}
dry_run=false

usage() {
    cat <<USAGE
Usage: install.sh [--client auto|claude|json] [--name NAME] [--config FILE] [--scope SCOPE] [--dry-run]

Registers the MCP server at $ESTATE_MCP_URL (Streamable HTTP) with a client:
  claude  runs: claude mcp add --transport http --scope SCOPE NAME URL
  json    writes or merges {"mcpServers": {NAME: {"type": "http", "url": URL}}} into FILE
          (the .mcp.json format; merging into an existing file needs python3)
  auto    claude when the claude command is installed, json otherwise (the default)

Options (environment variables in brackets):
  --client   [ESTATE_MCP_CLIENT]  default auto
  --name     [ESTATE_MCP_NAME]    default estate; letters, digits, - and _
  --config   [ESTATE_MCP_CONFIG]  default .mcp.json (json client only)
  --scope    [ESTATE_MCP_SCOPE]   default user (claude client only: local, project or user)
  --dry-run  print what would be done, change nothing
USAGE
}

die() {
    echo "install.sh: $*" >&2
    exit 1
}

while [ $# -gt 0 ]; do
    case $1 in
        --client) [ $# -ge 2 ] || die "--client needs a value"; client=$2; shift 2 ;;
        --name) [ $# -ge 2 ] || die "--name needs a value"; name=$2; shift 2 ;;
        --config) [ $# -ge 2 ] || die "--config needs a value"; config=$2; shift 2 ;;
        --scope) [ $# -ge 2 ] || die "--scope needs a value"; scope=$2; shift 2 ;;
        --dry-run) dry_run=true; shift ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done

case $name in
    '' | *[!A-Za-z0-9_-]*) die "the name must be letters, digits, - or _" ;;
esac
case $scope in
    local | project | user) ;;
    *) die "the scope must be local, project or user" ;;
esac
if [ "$client" = auto ]; then
    if command -v claude >/dev/null 2>&1; then client=claude; else client=json; fi
fi

register_claude() {
    command -v claude >/dev/null 2>&1 || die "the claude command is not installed"
    if $dry_run; then
        echo "would run: claude mcp add --transport http --scope $scope $name $ESTATE_MCP_URL"
        return
    fi
    claude mcp add --transport http --scope "$scope" "$name" "$ESTATE_MCP_URL"
}

new_config() {
    printf '{\n  "mcpServers": {\n    "%s": {\n      "type": "http",\n      "url": "%s"\n    }\n  }\n}\n' \
        "$name" "$ESTATE_MCP_URL"
}

merge_config() {
    command -v python3 >/dev/null 2>&1 ||
        die "$config exists and python3 is not installed to merge into it; add this entry under mcpServers by hand: \"$name\": {\"type\": \"http\", \"url\": \"$ESTATE_MCP_URL\"}"
    python3 - "$config" "$name" "$ESTATE_MCP_URL" <<'PYTHON'
import json, os, sys

path, name, url = sys.argv[1:4]
with open(path, encoding="utf-8") as existing:
    text = existing.read()
config = json.loads(text) if text.strip() else {}
if not isinstance(config, dict) or not isinstance(config.setdefault("mcpServers", {}), dict):
    sys.exit(f"install.sh: {path} is not an object with an mcpServers object; not changed")
config["mcpServers"][name] = {"type": "http", "url": url}
partial = path + ".partial"
with open(partial, "w", encoding="utf-8") as updated:
    json.dump(config, updated, indent=2)
    updated.write("\n")
os.replace(partial, path)
PYTHON
}

register_json() {
    if $dry_run; then
        echo "would write the server \"$name\" ($ESTATE_MCP_URL) into $config"
        return
    fi
    if [ -e "$config" ]; then merge_config; else new_config >"$config"; fi
    echo "install.sh: registered \"$name\" ($ESTATE_MCP_URL) in $config"
}

case $client in
    claude) register_claude ;;
    json) register_json ;;
    *) die "unknown client: $client (auto, claude or json)" ;;
esac
