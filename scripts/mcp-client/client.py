#!/usr/bin/env python3
"""The estate's MCP test client: the official MCP Python SDK against a running mcp-server.

Opens a session over Streamable HTTP, lists the tools, calls each one against the real
analyzer and backend behind the server, calls a tool that does not exist, and prints ONE JSON
report on stdout for the Rust test (services/mcp-server/tests/api/python_sdk.rs) to assert.

    client.py URL [--mode legacy|auto] [--token ACCESS_TOKEN]

--mode legacy uses the 2025-11-25 initialize handshake; --mode auto (the SDK's default)
probes server/discover and, since this server answers it, speaks the stateless 2026-07-28
revision. Exit status 0 when the session ran to the end (tool failures are reported, not
fatal), 1 when it could not.
"""

import argparse
import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

SNIPPET = (
    "import logging\n"
    "logger = logging.getLogger(__name__)\n"
    "\n"
    "def login(user, password):\n"
    '    logger.info(f"login {user} with {password}")\n'
    '    print("debug", user)\n'
)

# (label, tool, arguments): every tool, and validate_rule both ways.
CALLS = [
    ("list_analysis_types", "list_analysis_types", {}),
    ("analyze_snippet", "analyze_snippet", {"code": SNIPPET, "path": "app/auth.py"}),
    (
        "validate_rule/valid",
        "validate_rule",
        {"ruleId": "no-session-id", "pattern": "sessionId", "message": "do not log session ids"},
    ),
    ("validate_rule/invalid", "validate_rule", {"ruleId": "r", "pattern": "(", "message": "m"}),
    ("list_projects", "list_projects", {}),
]


def text_of(result):
    """The first text block of a tool result."""
    return next((block.text for block in result.content if block.type == "text"), None)


async def session(url, mode, token):
    headers = {"authorization": f"Bearer {token}"} if token else {}
    report = {"mode": mode}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            report["protocolVersion"] = client.protocol_version
            report["serverName"] = client.server_info.name if client.server_info else None
            if mode == "legacy":
                await client.send_ping()
                report["ping"] = True
            listed = await client.list_tools()
            report["tools"] = [tool.name for tool in listed.tools]
            report["calls"] = {}
            for label, tool, arguments in CALLS:
                result = await client.call_tool(tool, arguments)
                report["calls"][label] = {
                    "isError": bool(result.is_error),
                    "structured": result.structured_content,
                    "text": text_of(result),
                }
            try:
                await client.call_tool("no_such_tool", {})
                report["unknownTool"] = None
            except MCPError as error:
                report["unknownTool"] = {"code": error.code, "message": error.error.message}
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the MCP endpoint, e.g. http://127.0.0.1:9500/mcp")
    parser.add_argument("--mode", choices=["legacy", "auto"], default="auto")
    parser.add_argument("--token", help="an access token sent as Authorization: Bearer")
    args = parser.parse_args()
    try:
        report = asyncio.run(session(args.url, args.mode, args.token))
    except Exception as error:  # the report is for a test: say what failed, exit 1
        print(f"client.py: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
