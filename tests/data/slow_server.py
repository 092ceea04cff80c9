"""A stdio MCP server for the tests of deadlines, cancellation and consent: `pause` writes
`started`, then `finished` or `cancelled`, to the file named by $SLOW_SERVER_LOG; `forget`
(destructive) writes `forgot:<name>` there."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

server = MCPServer("slow")


def _log(word: str) -> None:
    with Path(os.environ["SLOW_SERVER_LOG"]).open("a") as log:
        log.write(word + "\n")


@server.tool(description="Pause for a number of seconds, then say how long it paused")
async def pause(
    seconds: Annotated[float, Field(description="How many seconds to pause for")],
) -> str:
    _log("started")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        _log("cancelled")
        raise
    _log("finished")
    return f"paused {seconds:g} s"


@server.tool(
    description="Forget a remembered name for good",
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True),
)
def forget(name: Annotated[str, Field(description="The name to forget")]) -> str:
    _log(f"forgot:{name}")
    return f"forgot {name}"


if __name__ == "__main__":
    server.run()
