"""`toolweave serve`: the HTTP API and the MCP front over one warm engine (api/), or the MCP
front alone on stdio for a desktop client.

Signals: before it listens, SIGTERM and Ctrl-C stop the start (the servers started so far are
closed); once it listens, they stop accepting, let running requests finish within
serve.grace_s, then close every MCP server. A second Ctrl-C stops at once.
"""

from __future__ import annotations

import asyncio
import ipaddress
import signal
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from toolweave.cli.common import ConfigOption, err, fail, load_or_exit, run_or_exit
from toolweave.errors import ConfigError, InputError
from toolweave.settings import Settings

if TYPE_CHECKING:
    from toolweave.api.service import Service


class Transport(StrEnum):
    stdio = "stdio"


def serve(
    host: Annotated[
        str | None,
        typer.Option(
            "--host",
            help="Address to listen on (default serve.host: 127.0.0.1).",
            show_default=False,
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            "--port",
            "-p",
            help="Port (default serve.port: 8765; 0: any free one).",
            min=0,
            max=65535,
            show_default=False,
        ),
    ] = None,
    mcp: Annotated[
        Transport | None,
        typer.Option(
            "--mcp",
            help="Serve only the MCP front, on this transport (stdio), for a "
            "desktop client's mcpServers entry.",
            show_default=False,
        ),
    ] = None,
    no_auth: Annotated[
        bool,
        typer.Option("--no-auth", help="Accept requests without an API key (loopback hosts only)."),
    ] = False,
    config: ConfigOption = None,
) -> None:
    """Serve toolweave over HTTP: /v1/ask, OpenAI-compatible /v1/chat/completions, tool search,
    traces, health and metrics, and the MCP front at /mcp; one warm engine answers them all.

    API keys: $TOOLWEAVE_API_KEYS (comma-separated) or the file serve.api_keys_file; clients
    send `Authorization: Bearer <key>`."""  # fmt: skip
    settings = load_or_exit(config)
    if mcp is Transport.stdio:
        run_or_exit(_serve_stdio(settings))
        return
    from toolweave.secrets import service_keys

    host = host or settings.serve.host
    port = settings.serve.port if port is None else port
    try:
        keys = service_keys(settings)
    except ConfigError as exc:
        fail(exc, code=2)
    if no_auth and not _loopback(host):
        fail(InputError(f"--no-auth is only allowed on a loopback host, not {host}"), code=2)
    if not keys and not no_auth:
        fail(
            InputError(
                "no API keys: set TOOLWEAVE_API_KEYS (comma-separated) or serve.api_keys_file, "
                "or pass --no-auth on a loopback host"
            ),
            code=2,
        )
    run_or_exit(_serve_http(settings, [] if no_auth else keys, host, port))


async def _serve_stdio(settings: Settings) -> None:
    from toolweave.api.front import front
    from toolweave.api.guard import Keys
    from toolweave.api.service import Service

    service = Service(settings, Keys([]))
    async with service.open(_notice):
        await front(service).run_stdio_async()


async def _serve_http(settings: Settings, keys: list[str], host: str, port: int) -> None:
    import uvicorn

    from toolweave.api.app import create_app
    from toolweave.api.guard import Keys
    from toolweave.api.service import Service

    listening = _bind(host, port)
    service = Service(settings, Keys(keys))
    config = uvicorn.Config(
        create_app(service, host=host),
        timeout_graceful_shutdown=max(1, round(settings.serve.grace_s)),
        server_header=False,
    )
    server = _own_signals(config)
    async with service.open(_notice):
        serving = asyncio.create_task(server.serve(sockets=[listening]))
        while not server.started and not serving.done():
            await asyncio.sleep(0.02)
        if server.started:
            _stop_on_signals(server)
            bound, bound_port = listening.getsockname()[:2]
            err.print(_banner(service, bound, bound_port, keys), soft_wrap=True)
        await serving


def _own_signals(config: Any) -> Any:
    """A uvicorn server without its own signal handling (it would raise the signal again after
    the shutdown, while the engine is closing): `_stop_on_signals` asks it to stop instead."""
    import uvicorn

    class Server(uvicorn.Server):
        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return Server(config)


def _stop_on_signals(server: Any) -> None:
    def stop() -> None:
        if server.should_exit:
            server.force_exit = True  # a second signal: no more waiting
        server.should_exit = True

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, or an InputError saying why there is none."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        # IPPROTO_TCP named: asyncio then sets TCP_NODELAY on each connection (it checks the
        # protocol number); with 0, a kept-alive client waited 40 ms per reply (Nagle).
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def _notice(text: str) -> None:
    err.print(escape(text), soft_wrap=True)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _banner(service: Service, host: str, port: int, keys: list[str]) -> str:
    where = f"[{host}]" if ":" in host else host
    auth = f"{len(keys)} API key(s)" if keys else "no API key (--no-auth)"
    servers = ", ".join(f"{s.name} {s.state}" for s in service.engine.servers)
    return (
        f"toolweave serving http://{where}:{port} (API at /v1, MCP front at /mcp; {auth}); "
        f"servers: {servers}"
    )
