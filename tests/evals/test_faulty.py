"""The faulty proxy of `eval recovery` in front of a real stdio MCP server, through the official
MCP client: the named tool's calls fail as an outage would, everything else is the server's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from toolweave.evals.faulty import OUTAGE

pytestmark = pytest.mark.anyio
SERVER = Path(__file__).parents[1] / "data" / "air_server.py"


async def test_only_the_named_tool_fails() -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolweave.evals.faulty", "--fail", "air_quality", "--",
              sys.executable, str(SERVER)],
    )  # fmt: skip
    async with Client(stdio_client(params)) as client:
        listed = await client.list_tools()
        assert {t.name for t in listed.tools} == {"air_quality", "pollution_readings"}
        failed = await client.call_tool("air_quality", {"city": "Paris"})
        assert failed.is_error and OUTAGE in failed.content[0].text
        served = await client.call_tool("pollution_readings", {"city": "Paris"})
        assert not served.is_error and "Pollution readings in Paris" in served.content[0].text
