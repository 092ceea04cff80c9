"""Command-line transport options shared by the built-in servers: stdio (default) or HTTP."""

from __future__ import annotations

import argparse

from mcp.server.mcpserver import MCPServer


def add_transport_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--transport",
        choices=["stdio", "streamable-http"],
        default="stdio",
        help="stdio (default) or streamable HTTP at http://HOST:PORT/mcp",
    )
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")


def serve(server: MCPServer, args: argparse.Namespace) -> None:
    if args.transport == "stdio":
        server.run()
    else:
        server.run("streamable-http", host=args.host, port=args.port)
