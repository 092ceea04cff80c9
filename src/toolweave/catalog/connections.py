"""Connections to MCP servers: all started concurrently, each isolated from the others.

Each server lives in its own task, which holds its session open until the pool closes, so a
server that fails to start, hangs or crashes only affects itself: its status says so
(starting / ready / failed with the reason / reconnecting) and the task reconnects with
exponential backoff. stdio servers run in their own process group (the SDK starts them in a new
session) and are terminated with their children when the pool closes, on Ctrl-C and on errors;
their stderr goes to a log file per server, whose tail is quoted when one fails. A server that
announces a changed tool list (`subscriptions/listen` on 2026-07-28 connections,
`notifications/tools/list_changed` before) is listed again. Python functions can join the same
catalogue as an in-process MCP server (`native=`).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterable
from contextlib import AsyncExitStack, suppress
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Tool, ToolListChangedNotification

from toolweave.secrets import mask_secrets, server_secrets
from toolweave.settings import Settings
from toolweave.types import ServerInfo, ServerSpec, ServerStatus, ToolHints, ToolSpec

MAX_TOOL_PAGES = 100
CONNECTION_CLOSED = -32000  # the JSON-RPC error the SDK raises once a server is gone
MODERN_PROTOCOL = "2026-07-28"


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


class _Server:
    """The mutable state of one server inside the pool."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.client: Client | None = None
        self.tools: list[ToolSpec] = []
        self.status = ServerStatus(name=name, state="idle")
        self.ready = asyncio.Event()  # set while a session is usable
        self.settled = asyncio.Event()  # set once the first start succeeded or failed
        self.lost = asyncio.Event()  # set when a call finds the connection gone
        self.changed = asyncio.Event()  # set when the server says its tool list changed
        self.info = ServerInfo(name=name)


class ServerPool:
    """`async with ServerPool(servers, ...) as pool:`, then `pool.tools`, `await pool.call()`."""

    def __init__(
        self,
        servers: dict[str, ServerSpec],
        *,
        log_dir: Path,
        start_timeout_s: float = 30.0,
        call_timeout_s: float = 30.0,
        native: dict[str, list[Callable[..., Any]]] | None = None,
        reconnect: bool = True,
        max_backoff_s: float = 30.0,
        on_tools_changed: Callable[[str], None] = lambda _server: None,
        lazy: bool = False,
    ) -> None:
        self.specs = servers
        self.native = native or {}
        self.log_dir = log_dir
        self.start_timeout_s = start_timeout_s
        self.call_timeout_s = call_timeout_s
        self.reconnect = reconnect
        self.max_backoff_s = max_backoff_s
        self.on_tools_changed = on_tools_changed
        # lazy: entering the pool starts nothing; `start` starts servers as they are needed.
        self.lazy = lazy
        self._servers = {name: _Server(name) for name in [*servers, *self.native]}
        self._stop = asyncio.Event()
        self._tasks: dict[str, asyncio.Task[None]] = {}

    @classmethod
    def from_settings(cls, settings: Settings, **options: Any) -> ServerPool:
        """The configured servers, with the settings' timeouts and reconnection policy."""
        return cls(
            settings.servers(),
            log_dir=settings.state_path() / "logs",
            start_timeout_s=settings.mcp.start_timeout_s,
            call_timeout_s=settings.mcp.call_timeout_s,
            reconnect=settings.mcp.reconnect,
            max_backoff_s=settings.mcp.max_backoff_s,
            **options,
        )

    # -- the catalogue -----------------------------------------------------------------------

    @property
    def statuses(self) -> dict[str, ServerStatus]:
        return {name: server.status for name, server in self._servers.items()}

    @property
    def tools(self) -> list[ToolSpec]:
        """Every ready server's tools, in configuration order."""
        return [t for s in self._servers.values() if s.ready.is_set() for t in s.tools]

    @property
    def infos(self) -> dict[str, ServerInfo]:
        return {name: s.info for name, s in self._servers.items() if s.ready.is_set()}

    async def wait_ready(self, name: str, timeout_s: float) -> bool:
        self.start([name])
        with suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self._servers[name].ready.wait()
        return self._servers[name].ready.is_set()

    def start(self, names: Iterable[str]) -> None:
        """Start the named servers that are not started yet (in the background)."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for name in names:
            if name in self._servers and name not in self._tasks and not self._stop.is_set():
                server = self._servers[name]
                server.status = ServerStatus(name=name, state="starting")
                task = self._run(server, self.specs.get(name))
                self._tasks[name] = asyncio.create_task(task, name=f"mcp:{name}")

    async def settle(self, names: Iterable[str]) -> None:
        """Start the named servers if needed and wait until each is ready or has failed."""
        wanted = [name for name in names if name in self._servers]
        self.start(wanted)
        await asyncio.gather(*(self._servers[name].settled.wait() for name in wanted))

    # -- lifecycle ---------------------------------------------------------------------------

    async def __aenter__(self) -> ServerPool:
        if self.lazy:
            return self
        try:
            await self.settle(self._servers)
        except BaseException as exc:  # interrupted while starting: __aexit__ would not run
            await self.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        interrupted = exc_type is not None and issubclass(
            exc_type, (asyncio.CancelledError, KeyboardInterrupt)
        )
        starting = [name for name in self._tasks if not self._servers[name].ready.is_set()]
        # A server still starting has nothing to flush: SIGTERM now, rather than the SDK's
        # grace period (2 s, then 2 s more) for a server that ignores the end of its input.
        # Interrupted (Ctrl-C, SIGTERM): every server at once.
        specs = [self.specs[name] for name in starting if name in self.specs]
        _terminate_server_groups(None if interrupted else specs)
        self._stop.set()
        for name in starting:
            self._tasks[name].cancel()
        try:
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        except asyncio.CancelledError:  # interrupted while closing: stop waiting politely
            _terminate_server_groups(None)
            await asyncio.wait(self._tasks.values(), timeout=5)
            raise

    async def _run(self, server: _Server, spec: ServerSpec | None) -> None:
        """Connect, serve until stopped or lost, and reconnect with backoff while the pool lives."""
        failures = 0
        try:
            while not self._stop.is_set():
                if await self._session(server, spec):
                    failures = 0
                else:
                    failures += 1
                server.settled.set()
                if self._stop.is_set() or not self.reconnect:
                    return
                delay = min(self.max_backoff_s, 0.5 * 2 ** max(failures - 1, 0))
                with suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._stop.wait()
        finally:
            server.settled.set()

    async def _session(self, server: _Server, spec: ServerSpec | None) -> bool:
        """One connection, held until the pool stops or the connection is lost.

        True when the server became ready."""
        name = server.name
        log_path = self.log_dir / f"{name}.log"
        log_start = log_path.stat().st_size if log_path.exists() else 0
        server.lost.clear()
        try:
            async with AsyncExitStack() as stack:
                try:
                    async with asyncio.timeout(self.start_timeout_s):
                        client = self._client(server, spec, stack, log_path)
                        client = await stack.enter_async_context(client)
                        server.tools = await _list_tools(name, client)
                except Exception as exc:
                    reason = _start_failure(exc, spec, self.start_timeout_s)
                    tail = _log_tail(log_path, log_start) if spec else ""
                    # The error reaches traces, --json and `tools list`; the stderr tail may
                    # echo any server's env or headers (a token it printed while failing).
                    error = mask_secrets(reason + tail, server_secrets(self.specs.values()))
                    server.status = ServerStatus(name=name, state="failed", error=error)
                    return False
                server.client = client
                server.info = ServerInfo(name=name, description=client.instructions or "")
                server.status = ServerStatus(name=name, state="ready", tools=len(server.tools))
                server.ready.set()
                server.settled.set()
                await self._hold(server, client)
                if server.lost.is_set():
                    server.status = ServerStatus(
                        name=name, state="reconnecting", error="the connection was lost"
                    )
                return True
        except Exception:  # a crash while closing must not disturb the other servers
            return server.ready.is_set()
        finally:
            server.ready.clear()
            server.client = None

    async def _hold(self, server: _Server, client: Client) -> None:
        """Until stop or loss: re-list the tools whenever the server says they changed."""
        async with anyio.create_task_group() as group:
            if _announces_tool_changes(client) and client.protocol_version == MODERN_PROTOCOL:
                group.start_soon(self._listen_for_changes, server, client)
            while not (self._stop.is_set() or server.lost.is_set()):
                waits = [
                    asyncio.ensure_future(e.wait())
                    for e in (self._stop, server.lost, server.changed)
                ]
                try:
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for waiter in waits:
                        waiter.cancel()
                if server.changed.is_set():
                    server.changed.clear()
                    await self._refresh(server, client)
            group.cancel_scope.cancel()

    async def _listen_for_changes(self, server: _Server, client: Client) -> None:
        with suppress(Exception):  # no subscription: the catalogue just stays as listed
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    server.changed.set()

    async def _refresh(self, server: _Server, client: Client) -> None:
        try:
            async with asyncio.timeout(self.call_timeout_s):
                server.tools = await _list_tools(server.name, client)
        except Exception:
            return  # keep the previous listing; a lost connection shows up on the next call
        server.status = ServerStatus(name=server.name, state="ready", tools=len(server.tools))
        self.on_tools_changed(server.name)

    def _client(
        self, server: _Server, spec: ServerSpec | None, stack: AsyncExitStack, log_path: Path
    ) -> Client:
        async def on_message(message: Any) -> None:
            if isinstance(message, ToolListChangedNotification):
                server.changed.set()

        if spec is None:  # native Python functions, served in-process
            return Client(
                _native_server(server.name, self.native[server.name]), message_handler=on_message
            )
        if spec.command:
            # The log file stays open for the life of the process (its stderr writes into it).
            errlog = stack.enter_context(log_path.open("a", encoding="utf-8"))
            errlog.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {spec.command} {spec.args}\n")
            errlog.flush()
            params = StdioServerParameters(
                command=spec.command, args=spec.args, env=spec.env or None, cwd=spec.cwd
            )
            return Client(stdio_client(params, errlog=errlog), message_handler=on_message)
        import httpx2

        assert spec.url is not None
        http = httpx2.AsyncClient(headers=spec.headers, timeout=httpx2.Timeout(30.0, read=300.0))
        stack.push_async_callback(http.aclose)
        return Client(
            streamable_http_client(spec.url, http_client=http), message_handler=on_message
        )

    # -- calls -------------------------------------------------------------------------------

    async def call(self, server_name: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        started = time.perf_counter()

        def outcome(**fields: Any) -> CallOutcome:
            return CallOutcome(latency_ms=(time.perf_counter() - started) * 1000, **fields)

        server = self._servers.get(server_name)
        if server is None:
            return outcome(error=f"no server named {server_name!r} is configured")
        if server.status.state in ("idle", "starting", "reconnecting"):
            await self.wait_ready(server_name, self.call_timeout_s)
        client = server.client
        if client is None:
            reason = server.status.error or "it is not connected"
            return outcome(error=f"server {server_name!r} is unavailable: {reason}")
        spec = self.specs.get(server_name)
        timeout_s = spec.timeout if spec and spec.timeout else self.call_timeout_s
        try:
            async with asyncio.timeout(timeout_s):
                result = await client.call_tool(tool, arguments)
        except TimeoutError:
            return outcome(error=f"{server_name}.{tool} did not answer within {timeout_s:g} s")
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                server.lost.set()
            return outcome(error=f"{server_name}.{tool} failed: {exc}")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            server.lost.set()
            return outcome(error=f"{server_name}.{tool} failed: the connection broke ({exc!r})")
        except Exception as exc:  # the call is data, not a crash
            return outcome(error=f"{server_name}.{tool} failed: {type(exc).__name__}: {exc}")
        text = "\n".join(_content_text(block) for block in result.content).strip()
        if result.is_error:
            return outcome(error=text or f"{server_name}.{tool} reported an error", text=text)
        return outcome(text=text, structured=result.structured_content)


def _terminate_server_groups(specs: list[ServerSpec] | None) -> None:
    """SIGTERM to the process groups of this process's stdio servers (the SDK starts each in a
    new session, so the group holds whatever the server started too): of those started from
    `specs`, or of every child that leads its own group when `specs` is None."""
    import signal

    if specs == []:
        return
    for pid, argv in _children():
        with suppress(OSError):
            if os.getpgid(pid) == pid and (specs is None or _started_from(argv, specs)):
                os.killpg(pid, signal.SIGTERM)


def _started_from(argv: list[str], specs: list[ServerSpec]) -> bool:
    """Whether a process's command line is one of these servers' (by its arguments: the
    command itself may have been resolved to another path, as interpreter shims do)."""
    for spec in specs:
        if spec.args and argv[-len(spec.args) :] == spec.args:
            return True
        if (
            not spec.args
            and spec.command
            and argv
            and Path(argv[0]).name == Path(spec.command).name
        ):
            return True
    return False


def _children() -> list[tuple[int, list[str]]]:
    """This process's child processes and their command lines (Linux /proc; elsewhere none)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        with suppress(OSError, ValueError, IndexError):
            if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == os.getpid():
                argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
                found.append((int(entry.name), argv[:-1] if argv[-1:] == [""] else argv))
    return found


def _native_server(name: str, functions: list[Callable[..., Any]]) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    server = MCPServer(name, log_level="WARNING")  # its INFO lines would interleave with output
    for function in functions:
        hints = getattr(function, "mcp_hints", None)  # its MCP annotations, if it declares them
        server.add_tool(function, annotations=ToolAnnotations.model_validate(hints or {}))
    return server


def _announces_tool_changes(client: Client) -> bool:
    tools = client.server_capabilities.tools
    return bool(tools and tools.list_changed)


def spec_of(server: str, tool: Tool) -> ToolSpec:
    """A tool as an MCP server lists it (`tools/list`), as toolweave keeps it."""
    hints = tool.annotations
    return ToolSpec(
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


async def _list_tools(server: str, client: Client) -> list[ToolSpec]:
    tools: list[ToolSpec] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        tools += [spec_of(server, tool) for tool in page.tools]
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _start_failure(exc: BaseException, spec: ServerSpec | None, timeout_s: float) -> str:
    target = (spec.command or spec.url) if spec else "in-process tools"
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
