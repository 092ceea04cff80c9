"""The connection manager under crashes, changes and other transports, with real servers."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolweave.catalog.connections import ServerPool
from toolweave.types import ServerSpec

from .processes import children, matching

pytestmark = pytest.mark.anyio
CALC = ServerSpec(command=sys.executable, args=["-m", "toolweave.servers.calc"])
TIME = ServerSpec(command=sys.executable, args=["-m", "mcp_server_time"])


async def eventually(check, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.2)


async def test_a_killed_server_reconnects_while_the_others_keep_working(tmp_path: Path) -> None:
    async with ServerPool({"calc": CALC, "time": TIME}, log_dir=tmp_path) as pool:
        (pid,) = children("toolweave.servers.calc")
        os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.3)
        first = await pool.call("calc", "calculate", {"expression": "2*3"})
        assert not first.ok and "Connection closed" in (first.error or "")
        assert (await pool.call("time", "get_current_time", {"timezone": "UTC"})).ok
        seen = set()

        async def calc_back() -> bool:
            seen.add(pool.statuses["calc"].state)
            return (await pool.call("calc", "calculate", {"expression": "2*3"})).ok

        await eventually(calc_back)
        assert "reconnecting" in seen and pool.statuses["calc"].state == "ready"
        assert children("toolweave.servers.calc") and children("toolweave.servers.calc") != [pid]


async def test_mcp_server_git_on_a_temporary_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for command in (
        ["init", "-q"],
        ["config", "user.email", "t@example.com"],
        ["config", "user.name", "T"],
    ):
        subprocess.run(["git", *command], cwd=repo, check=True)
    (repo / "notes.txt").write_text("hello\n")
    subprocess.run(["git", "add", "notes.txt"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "first note"], cwd=repo, check=True)
    git = ServerSpec(
        command=sys.executable, args=["-m", "mcp_server_git", "--repository", str(repo)]
    )
    async with ServerPool({"git": git, "calc": CALC}, log_dir=tmp_path / "logs") as pool:
        assert pool.statuses["git"].state == "ready"
        names = {t.name for t in pool.tools if t.server == "git"}
        assert {"git_status", "git_log"} <= names
        log = await pool.call("git", "git_log", {"repo_path": str(repo)})
        assert log.ok and "first note" in log.text
        (repo / "notes.txt").write_text("changed\n")
        status = await pool.call("git", "git_status", {"repo_path": str(repo)})
        assert status.ok and "notes.txt" in status.text


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_streamable_http_server(tmp_path: Path) -> None:
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolweave.servers.calc",
            "--transport",
            "streamable-http",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        remote = ServerSpec(url=f"http://127.0.0.1:{port}/mcp")
        for _ in range(100):  # until the HTTP server listens
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            await asyncio.sleep(0.1)
        async with ServerPool({"remote": remote}, log_dir=tmp_path) as pool:
            assert pool.statuses["remote"].state == "ready", pool.statuses["remote"].error
            result = await pool.call("remote", "percentage", {"percent": 10, "value": 50})
            assert result.ok and result.structured["result"] == 5
    finally:
        server.terminate()
        server.wait(timeout=10)


async def test_native_python_functions_join_the_catalogue(tmp_path: Path) -> None:
    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    async def add(a: int, b: int = 1) -> int:
        """Add two integers."""
        return a + b

    async with ServerPool({"calc": CALC}, log_dir=tmp_path, native={"local": [shout, add]}) as pool:
        local = {t.name: t for t in pool.tools if t.server == "local"}
        assert set(local) == {"shout", "add"} and local["add"].input_schema["required"] == ["a"]
        assert (await pool.call("local", "shout", {"text": "hi"})).text == "HI"
        assert (await pool.call("local", "add", {"a": 2})).structured == {"result": 3}
        bad = await pool.call("local", "add", {"a": "two"})
        assert not bad.ok


GROWING = """
from mcp.server.mcpserver import Context, MCPServer
server = MCPServer("grow")

@server.tool()
async def grow(name: str, ctx: Context) -> str:
    def extra() -> str:
        return "new"
    server.add_tool(extra, name=name, description="A tool added at run time")
    await ctx.notify_tools_changed()
    return "added"

server.run()
"""


async def test_a_changed_tool_list_refreshes_the_catalogue(tmp_path: Path) -> None:
    changed: list[str] = []
    growing = ServerSpec(command=sys.executable, args=["-c", GROWING])
    async with ServerPool(
        {"grow": growing}, log_dir=tmp_path, on_tools_changed=changed.append
    ) as pool:
        assert {t.name for t in pool.tools} == {"grow"}
        assert (await pool.call("grow", "grow", {"name": "shiny"})).ok

        async def listed() -> bool:
            return "shiny" in {t.name for t in pool.tools}

        await eventually(listed, timeout=10)
        assert changed == ["grow"] and pool.statuses["grow"].tools == 2
        assert (await pool.call("grow", "shiny", {})).text == "new"


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_and_sigterm_leave_no_server_process_behind(
    tmp_path: Path, sent: signal.Signals, code: int
) -> None:
    """A server that ignores the end of its input (`mute`) and one that is still starting when
    the signal comes: neither outlives the CLI (SIGTERM is what `timeout`, systemd and Docker
    send)."""
    marker = f"toolweave-orphan-check-{os.getpid()}"
    docs = tmp_path / marker
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome text here.\n")
    (tmp_path / "toolweave.toml").write_text(
        f'docs_dir = "{docs}"\n[mcp]\nstart_timeout_s = 60\n'
        f'[mcpServers.mute]\ncommand = "{sys.executable}"\n'
        f'args = ["-c", "import time; time.sleep(300)", "{marker}"]\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWEAVE_")}
    env["TOOLWEAVE_STATE_DIR"] = str(tmp_path / "state")
    cli = subprocess.Popen(
        [sys.executable, "-m", "toolweave", "ask", "what is 2+2"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # As on a terminal: a runner started in the background (nohup, `&`) passes SIGINT on
        # ignored, and Python keeps an ignored SIGINT ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while len(matching(marker)) < 2:  # the docs server and the mute one are running
        assert time.monotonic() < deadline and cli.poll() is None, "servers did not start"
        time.sleep(0.2)
    cli.send_signal(sent)
    cli.wait(timeout=10)  # the SDK's grace period alone would take 2 s per mute server
    deadline = time.monotonic() + 10
    while matching(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert matching(marker) == []
    assert cli.returncode == code, cli.stderr.read()
