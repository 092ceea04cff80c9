"""Server failures stay isolated: each is reported with its reason and nothing hangs."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from toolweave.catalog.connections import ServerPool
from toolweave.types import ServerSpec

pytestmark = pytest.mark.anyio
CALC = ServerSpec(command=sys.executable, args=["-m", "toolweave.servers.calc"])


def python(code: str) -> ServerSpec:
    return ServerSpec(command=sys.executable, args=["-c", code])


async def test_missing_command_fails_alone(tmp_path: Path) -> None:
    servers = {"calc": CALC, "ghost": ServerSpec(command="toolweave-no-such-command")}
    async with ServerPool(servers, log_dir=tmp_path) as pool:
        assert pool.statuses["calc"].state == "ready"
        ghost = pool.statuses["ghost"]
        assert ghost.state == "failed" and "was not found" in (ghost.error or "")
        outcome = await pool.call("ghost", "anything", {})
        assert not outcome.ok and "unavailable" in (outcome.error or "")
        assert (await pool.call("calc", "calculate", {"expression": "1+1"})).ok


async def test_server_that_exits_at_once_is_reported_with_its_stderr(tmp_path: Path) -> None:
    servers = {
        "dies": python("import sys; print('boom: missing API key', file=sys.stderr); sys.exit(3)")
    }
    started = time.monotonic()
    async with ServerPool(servers, log_dir=tmp_path, start_timeout_s=20) as pool:
        status = pool.statuses["dies"]
    assert time.monotonic() - started < 10
    assert status.state == "failed"
    assert "boom: missing API key" in (status.error or "")
    assert "dies.log" in (status.error or "")


async def test_server_that_never_answers_times_out_alone(tmp_path: Path) -> None:
    servers = {"calc": CALC, "mute": python("import time; time.sleep(120)")}
    started = time.monotonic()
    async with ServerPool(servers, log_dir=tmp_path, start_timeout_s=3) as pool:
        assert pool.statuses["calc"].state == "ready"
        assert pool.statuses["mute"].state == "failed"
        assert "within 3 s" in (pool.statuses["mute"].error or "")
    assert time.monotonic() - started < 15


async def test_slow_tool_call_times_out_as_data(tmp_path: Path) -> None:
    slow = python(
        "from mcp.server.mcpserver import MCPServer\n"
        "import time\n"
        "s = MCPServer('slow')\n"
        "@s.tool()\n"
        "def nap(seconds: float) -> str:\n"
        "    time.sleep(seconds)\n"
        "    return 'done'\n"
        "s.run()\n"
    )
    async with ServerPool({"slow": slow}, log_dir=tmp_path, call_timeout_s=1) as pool:
        assert (await pool.call("slow", "nap", {"seconds": 0})).text == "done"
        outcome = await pool.call("slow", "nap", {"seconds": 5})
        assert not outcome.ok and "did not answer within 1 s" in (outcome.error or "")
        assert outcome.latency_ms < 3000


async def test_unknown_tool_is_an_error_outcome(tmp_path: Path) -> None:
    async with ServerPool({"calc": CALC}, log_dir=tmp_path) as pool:
        outcome = await pool.call("calc", "no_such_tool", {})
    assert not outcome.ok and "no_such_tool" in (outcome.error or "")
