"""The `toolweave` command: thin wrappers over the library."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from toolweave import __version__
from toolweave.errors import ConfigError, InputError, ToolweaveError
from toolweave.settings import Settings, load_settings
from toolweave.types import Answer

app = typer.Typer(
    help="Tool-augmented AI search: answers questions with MCP tools and cited sources.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)

ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        "-c",
        help="Settings file (default: $TOOLWEAVE_CONFIG, ./toolweave.toml, user config dir).",
        show_default=False,
    ),
]


def _version(value: bool) -> None:
    if value:
        out.print(f"toolweave {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """toolweave: ask questions answered by live MCP tools and local documents."""


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")] = False,
    config: ConfigOption = None,
) -> None:
    """Answer QUESTION: pick tools, call them in parallel, print a cited answer and the calls."""
    settings = _settings(config)
    from toolweave.pipeline import ask as run_ask

    with _progress(enabled=not as_json) as progress:
        answer = _run(run_ask(question, settings, on_progress=progress))
    if as_json:
        out.print_json(answer.model_dump_json())
    else:
        print_answer(answer)


@app.command("config")
def show_config(config: ConfigOption = None) -> None:
    """Print the effective settings (file, environment and defaults merged) as JSON."""
    settings = _settings(config)
    data: dict[str, Any] = settings.model_dump(mode="json", by_alias=True)
    data["mcpServers"] = {
        k: v.model_dump(exclude_defaults=True) for k, v in settings.servers().items()
    }
    data["_source"] = (
        str(settings.source) if settings.source else "defaults (no toolweave.toml found)"
    )
    out.print_json(json.dumps(data))


def print_answer(answer: Answer) -> None:
    out.print("[bold]Answer[/bold]")
    out.print(escape(answer.text), soft_wrap=True)
    if answer.sources:
        out.print("\n[bold]Sources[/bold]")
        for source in answer.sources:
            uri = source.uri
            where = f" ({escape(uri)})" if uri and uri not in source.title else ""
            out.print(f"  [{source.id}] {escape(source.title)}{where}", soft_wrap=True)
    out.print("\n[bold]Tool calls[/bold]")
    out.print(_calls_table(answer))
    servers = ", ".join(
        f"{s.name} {'ok' if s.state == 'ready' else s.state}" for s in answer.servers
    )
    seconds = answer.timings_ms.get("total", 0) / 1000
    out.print(
        f"\n[dim]servers: {escape(servers)} · llm: {escape(answer.llm)} "
        f"({answer.llm_calls} calls) · {seconds:.2f} s[/dim]"
    )
    for server in answer.servers:
        if server.error:
            err.print(
                f"[yellow]warning:[/yellow] server {server.name} failed: {escape(server.error)}"
            )


def _calls_table(answer: Answer) -> Table:
    table = Table(box=None, pad_edge=False)
    for column in ("step", "tool call", "latency", "result"):
        table.add_column(column, justify="right" if column == "latency" else "left")
    for obs in answer.observations:
        args = ", ".join(
            f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in obs.arguments.items()
        )
        name = f"{obs.server}.{obs.tool}({args})" if obs.tool else "(no tool)"
        result = "ok" if obs.ok else f"failed: {obs.error}"
        table.add_row(obs.step_id, escape(name), f"{obs.latency_ms:.0f} ms", escape(result))
    return table


def _settings(config: Path | None) -> Settings:
    try:
        return load_settings(config)
    except ConfigError as exc:
        _fail(exc, code=2)


def _run(coro: Any) -> Any:
    try:
        return asyncio.run(coro)
    except (ConfigError, InputError) as exc:
        _fail(exc, code=2)
    except ToolweaveError as exc:
        _fail(exc, code=1)
    except KeyboardInterrupt:
        err.print("interrupted")
        raise typer.Exit(130) from None


def _fail(exc: Exception, *, code: int) -> NoReturn:
    err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
    raise typer.Exit(code)


class _progress:
    """A spinner on stderr while the pipeline runs (only on a terminal)."""

    def __init__(self, enabled: bool) -> None:
        self.status = err.status("starting") if enabled and sys.stderr.isatty() else None

    def __enter__(self) -> Any:
        if self.status is None:
            return lambda _message: None
        self.status.start()
        return lambda message: self.status.update(message) if self.status else None

    def __exit__(self, *exc: object) -> None:
        if self.status is not None:
            self.status.stop()


def main() -> None:
    app()
