"""Connections to MCP servers: all started concurrently, each isolated from the others.

Each server lives in its own task that holds its client session open until the pool closes, so a
server that fails to start, hangs or crashes only marks itself failed. stdio servers' stderr goes
to a log file per server (its tail is quoted when the server fails).
"""

from __future__ import annotations

import asyncio
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from toolweave.types import ServerInfo, ServerSpec, ServerStatus, ToolHints, ToolSpec

MAX_TOOL_PAGES = 100


class CallOutcome:
    """What a tool call returned: text, structured content, or an error (never raised)."""

    __slots__ = ("error", "latency_ms", "structured", "text")

    def __init__(
        self, *, text: str = "", structured: Any = None, error: str | None = None, latency_ms: float
    ) -> None:
        self.text, self.structured, self.error, self.latency_ms = (
            text,
            structured,
            error,
            latency_ms,
        )

    @property
    def ok(self) -> bool:
        return self.error is None


class ServerPool:
    """`async with ServerPool(servers, ...) as pool:`, then `pool.tools`, `await pool.call()`."""

    def __init__(
        self,
        servers: dict[str, ServerSpec],
        *,
        log_dir: Path,
        start_timeout_s: float = 30.0,
        call_timeout_s: float = 30.0,
    ) -> None:
        self.specs = servers
        self.log_dir = log_dir
        self.start_timeout_s = start_timeout_s
        self.call_timeout_s = call_timeout_s
        self.statuses: dict[str, ServerStatus] = {}
        self.tools: list[ToolSpec] = []
        self._clients: dict[str, Client] = {}
        self._tools_by_server: dict[str, list[ToolSpec]] = {}
        self.infos: dict[str, ServerInfo] = {}
        self.startup_ms = 0.0
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    async def __aenter__(self) -> ServerPool:
        started = time.perf_counter()
        self.log_dir.mkdir(parents=True, exist_ok=True)
        ready = {name: asyncio.Event() for name in self.specs}
        self._tasks = [
            asyncio.create_task(self._serve(name, spec, ready[name]), name=f"mcp:{name}")
            for name, spec in self.specs.items()
        ]
        await asyncio.gather(*(event.wait() for event in ready.values()))
        # Keep the catalogue in configuration order, whatever order servers became ready in.
        self.tools = [t for name in self.specs for t in self._tools_by_server.get(name, [])]
        self.startup_ms = round((time.perf_counter() - started) * 1000, 1)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, name: str, spec: ServerSpec, ready: asyncio.Event) -> None:
        """Start one server, publish its tools, hold the session until the pool closes."""
        log_path = self.log_dir / f"{name}.log"
        try:
            async with AsyncExitStack() as stack:
                log_start = log_path.stat().st_size if log_path.exists() else 0
                try:
                    async with asyncio.timeout(self.start_timeout_s):
                        client = await stack.enter_async_context(_client(spec, stack, log_path))
                        tools = await _list_tools(name, client)
                except Exception as exc:
                    reason = _start_failure(exc, spec, self.start_timeout_s)
                    self.statuses[name] = ServerStatus(
                        name=name, state="failed", error=reason + _log_tail(log_path, log_start)
                    )
                    return
                self._clients[name] = client
                self._tools_by_server[name] = tools
                self.infos[name] = ServerInfo(name=name, description=client.instructions or "")
                self.statuses[name] = ServerStatus(name=name, state="ready", tools=len(tools))
                ready.set()
                await self._stop.wait()
        except Exception:  # a crash while closing must not disturb the other servers
            pass
        finally:
            self._clients.pop(name, None)
            ready.set()

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        started = time.perf_counter()

        def outcome(**fields: Any) -> CallOutcome:
            return CallOutcome(latency_ms=(time.perf_counter() - started) * 1000, **fields)

        client = self._clients.get(server)
        if client is None:
            status = self.statuses.get(server)
            reason = status.error if status and status.error else "it is not connected"
            return outcome(error=f"server {server!r} is unavailable: {reason}")
        try:
            async with asyncio.timeout(self.call_timeout_s):
                result = await client.call_tool(tool, arguments)
        except TimeoutError:
            return outcome(error=f"{server}.{tool} did not answer within {self.call_timeout_s:g} s")
        except MCPError as exc:
            return outcome(error=f"{server}.{tool} failed: {exc}")
        except Exception as exc:  # a broken connection: the call is data, not a crash
            return outcome(error=f"{server}.{tool} failed: {type(exc).__name__}: {exc}")
        text = "\n".join(_content_text(block) for block in result.content).strip()
        if result.is_error:
            return outcome(error=text or f"{server}.{tool} reported an error", text=text)
        return outcome(text=text, structured=result.structured_content)


def _client(spec: ServerSpec, stack: AsyncExitStack, log_path: Path) -> Client:
    if spec.command:
        # The log file stays open for the life of the process (its stderr writes into it).
        errlog = stack.enter_context(log_path.open("a", encoding="utf-8"))
        errlog.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {spec.command} {spec.args}\n")
        errlog.flush()
        params = StdioServerParameters(
            command=spec.command, args=spec.args, env=spec.env or None, cwd=spec.cwd
        )
        return Client(stdio_client(params, errlog=errlog))
    import httpx2

    assert spec.url is not None
    http = httpx2.AsyncClient(headers=spec.headers, timeout=httpx2.Timeout(30.0, read=300.0))
    stack.push_async_callback(http.aclose)
    return Client(streamable_http_client(spec.url, http_client=http))


async def _list_tools(server: str, client: Client) -> list[ToolSpec]:
    tools: list[ToolSpec] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            hints = tool.annotations
            tools.append(
                ToolSpec(
                    server=server,
                    name=tool.name,
                    description=tool.description or "",
                    input_schema=tool.input_schema or {"type": "object"},
                    output_schema=tool.output_schema,
                    hints=ToolHints(
                        read_only=hints.read_only_hint if hints else None,
                        destructive=hints.destructive_hint if hints else None,
                        idempotent=hints.idempotent_hint if hints else None,
                        open_world=hints.open_world_hint if hints else None,
                    ),
                )
            )
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _start_failure(exc: BaseException, spec: ServerSpec, timeout_s: float) -> str:
    target = spec.command or spec.url
    if isinstance(exc, TimeoutError):
        return f"did not finish starting within {timeout_s:g} s (mcp.start_timeout_s)"
    if isinstance(exc, FileNotFoundError):
        return f"command {target!r} was not found; check `command` (is it installed, on PATH?)"
    if isinstance(exc, PermissionError):
        return f"command {target!r} cannot be executed (permission denied)"
    if isinstance(exc, BaseExceptionGroup):
        return _start_failure(exc.exceptions[0], spec, timeout_s)
    return f"could not connect to {target!r}: {type(exc).__name__}: {exc}".rstrip(": ")


def _log_tail(path: Path, start: int, lines: int = 5) -> str:
    """The last lines the server wrote to stderr during this start, for the error message."""
    try:
        with path.open("rb") as handle:
            handle.seek(start)
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    tail = [line for line in text.splitlines() if line.strip() and not line.startswith("--- ")]
    if not tail:
        return ""
    return f"; its stderr ends with: {' | '.join(tail[-lines:])} (full log: {path})"


def _content_text(block: Any) -> str:
    if getattr(block, "type", None) == "text":
        return str(block.text)
    if getattr(block, "type", None) == "resource":
        return str(getattr(block.resource, "text", "") or f"[resource {block.resource.uri}]")
    return f"[{getattr(block, 'type', 'content')}]"
