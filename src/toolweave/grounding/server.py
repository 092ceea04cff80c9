"""The search gateway as an MCP server with one `search` tool (stdio or streamable HTTP).

Run: python -m toolweave.grounding.server [--config FILE] [--transport streamable-http --port 8000]
     [--metrics-port 9464]   (also: `toolweave gateway serve`)
The gateway opens on the first call, inside the server's event loop, and serves every session.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from toolweave.grounding.telemetry import Metrics
from toolweave.grounding.tool import HINTS, GatewayHolder, search_tool
from toolweave.servers.transport import add_transport_options, serve
from toolweave.settings import Settings, load_settings

SEARCH = ToolAnnotations.model_validate(HINTS)


def create_server(settings: Settings, metrics: Metrics | None = None) -> MCPServer:
    server = MCPServer(
        "toolweave-gateway",
        instructions="Web and local document search with fallback between providers and a cache.",
    )
    server.add_tool(search_tool(GatewayHolder(settings, metrics)), annotations=SEARCH)
    return server


def run(settings: Settings, args: argparse.Namespace) -> None:
    metrics = None
    if args.metrics_port:
        from prometheus_client import start_http_server

        metrics = Metrics()
        start_http_server(args.metrics_port, addr=args.host, registry=metrics.registry)
    serve(create_server(settings, metrics), args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=None, help="settings file")
    parser.add_argument("--metrics-port", type=int, default=None, help="Prometheus /metrics port")
    add_transport_options(parser)
    args = parser.parse_args()
    run(load_settings(args.config), args)


if __name__ == "__main__":
    main()
