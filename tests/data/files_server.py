"""A stdio MCP file server for the recovery tests: reading a folder as a file fails as Node's
and Python's file APIs do ("EISDIR", "Is a directory"); listing it works."""

from __future__ import annotations

from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("files")
READ_ONLY = ToolAnnotations(read_only_hint=True)


@server.tool(description="Read the complete contents of a file as text", annotations=READ_ONLY)
def read_text_file(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError as exc:  # a folder: "[Errno 21] Is a directory", said to the caller
        raise ToolError(str(exc)) from exc


@server.tool(description="List the files and folders in a directory", annotations=READ_ONLY)
def list_directory(path: str) -> str:
    return "\n".join(sorted(p.name for p in Path(path).iterdir()))


if __name__ == "__main__":
    server.run()
