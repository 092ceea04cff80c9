"""A stdio MCP air-quality server for the recovery tests: two tools that read the same thing
under different names; `--broken` makes the first one fail, as a provider that is down would."""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

server = MCPServer("air")
READ_ONLY = ToolAnnotations(read_only_hint=True)
City = Annotated[str, Field(description="City name, e.g. Paris")]


@server.tool(description="Air quality in a city: the air quality index", annotations=READ_ONLY)
def air_quality(city: City) -> str:
    if "--broken" in sys.argv:
        raise RuntimeError("upstream air quality provider unavailable")
    return f"Air quality index in {city}: 42 (good)"


@server.tool(description="Pollution readings for a city (PM2.5, ozone)", annotations=READ_ONLY)
def pollution_readings(city: City) -> str:
    return f"Pollution readings in {city}: PM2.5 9 µg/m3, ozone 61 µg/m3"


if __name__ == "__main__":
    server.run()
