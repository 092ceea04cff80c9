"""The `toolweave` command: thin wrappers over the library.

This module holds the app, `ask` and `config`, and registers the other commands, which live in
`tools`, `evals`, `gateway`, `traces`, `models` and `serve` (shared helpers in `common`)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from toolweave import __version__
from toolweave.cli.common import (
    ConfigOption,
    configure_logging,
    err,
    fail,
    load_or_exit,
    out,
    run_or_exit,
)
from toolweave.cli.evals import eval_app
from toolweave.cli.gateway import gateway_app
from toolweave.cli.graph import graph_app
from toolweave.cli.live import PlanView
from toolweave.cli.models import models_app
from toolweave.cli.serve import serve
from toolweave.cli.tools import index_command, tools_app
from toolweave.cli.traces import open_traces, trace_app
from toolweave.errors import InputError
from toolweave.settings import Settings
from toolweave.types import Answer, Route, Step, ToolSpec, call_text

if TYPE_CHECKING:
    from toolweave.engine import AskOptions
    from toolweave.execution.policy import Confirm

app = typer.Typer(
    help="Tool-augmented AI search: answers questions with MCP tools and cited sources.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


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


def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole run as JSON.")] = False,
    answer_only: Annotated[
        bool, typer.Option("--answer-only", help="Print only the answer: no citations or calls.")
    ] = False,
    schema: Annotated[
        Path | None,
        typer.Option(
            "--schema",
            help="A JSON Schema file: print the answer as a JSON value valid for it (needs an LLM)",
            show_default=False,
        ),
    ] = None,
    after: Annotated[
        str | None,
        typer.Option(
            "--after",
            help="A follow-up to an earlier run (its trace id, or a unique start of it): "
            '"there" may point at a place that run\'s question named.',
            show_default=False,
        ),
    ] = None,
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", help="Consent to every tool that may change or delete data."),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Plan, and call only the tools that only read; show the rest."
        ),
    ] = False,
    config: ConfigOption = None,
) -> None:
    """Answer QUESTION: pick tools, call them in parallel, print a cited answer and the calls.

    A tool that may change or delete data (by its MCP annotations) runs only with consent:
    asked on a terminal, or given by --yes or policy.auto_approve."""
    settings = load_or_exit(config)
    from toolweave.answer.abstractive import without_citations
    from toolweave.engine import AskOptions

    options = AskOptions(
        schema=_read_schema(schema) if schema else None, approve_all=yes, dry_run=dry_run
    )
    if after:
        with open_traces(config) as store:
            options.earlier = store.get(after).answer.question
    quiet = as_json or answer_only or schema is not None
    with PlanView(enabled=not quiet) as view:
        options.confirm = _terminal_confirm(view)
        answer = run_or_exit(_ask(question, settings, options, view))
    if as_json:
        out.print_json(answer.model_dump_json())
    elif schema is not None:
        out.print_json(json.dumps(answer.data))
    elif answer_only:
        print(without_citations(answer.text))
    else:
        print_answer(answer)


async def _ask(question: str, settings: Settings, options: AskOptions, view: PlanView) -> Answer:
    """The question on a fresh engine, its events shown live."""
    from toolweave.engine import Engine, Finished, Planned, Progress, StepEvent

    async with Engine.open(settings, notice=view.notice) as engine:
        async for event in engine.stream(question, options):
            if isinstance(event, Progress):
                view.message(event.stage)
            elif isinstance(event, Planned):
                view.planned(event.plan)
            elif isinstance(event, StepEvent):
                view.event(event.event, event.plan)
            elif isinstance(event, Finished):
                return event.answer
    raise AssertionError("a run's stream ends with its answer")


def _terminal_confirm(view: PlanView) -> Confirm | None:
    """A y/N question on the terminal (default no); None off a terminal, where no one answers."""
    if not sys.stdin.isatty():
        return None

    async def confirm(step: Step, tool: ToolSpec) -> bool:
        question = f"{call_text(tool.key, step.arguments)} may change or delete data. Run it?"
        with view.paused():
            return bool(await asyncio.to_thread(typer.confirm, question, default=False))

    return confirm


def _read_schema(path: Path) -> Any:
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        fail(InputError(f"--schema {path}: not a readable JSON file ({exc})"), code=2)
    except RecursionError:
        fail(InputError(f"--schema {path}: the JSON is nested too deeply"), code=2)
    if not isinstance(schema, dict):
        fail(InputError(f"--schema {path}: a JSON Schema is a JSON object"), code=2)
    return schema


def show_config(config: ConfigOption = None) -> None:
    """Print the effective settings (file, environment and defaults merged) as JSON, with every
    secret masked: the servers' env and headers values, the API keys."""
    from toolweave.secrets import api_keys, configured_secrets, mask, mask_data, masked_server

    settings = load_or_exit(config)
    data: dict[str, Any] = settings.model_dump(mode="json", by_alias=True)
    data["mcpServers"] = {name: masked_server(spec) for name, spec in settings.servers().items()}
    data["_api_keys"] = {name: mask(key) for name, key in api_keys(settings).items()}
    data["_source"] = (
        str(settings.source) if settings.source else "defaults (no toolweave.toml found)"
    )
    # A secret may stand elsewhere too (a server's args, a URL): masked wherever it is.
    out.print_json(json.dumps(mask_data(data, configured_secrets(settings))))


def print_answer(answer: Answer) -> None:
    back = answer.route == Route.CLARIFY
    out.print("[bold]Question back[/bold]" if back else "[bold]Answer[/bold]")
    out.print(escape(answer.text), soft_wrap=True)
    trace = f" · trace {answer.trace_id}" if answer.trace_id else ""
    if answer.route in (Route.DIRECT, Route.CLARIFY):
        out.print(
            f"\n[dim]route: {answer.route} ({escape(answer.why)}){trace}[/dim]", soft_wrap=True
        )
        return
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
        f"\n[dim]route: {answer.route} · servers: {escape(servers)} · llm: {escape(answer.llm)} "
        f"({answer.llm_calls} calls) · {seconds:.2f} s{trace}[/dim]",
        soft_wrap=True,
    )
    for note in answer.notes:
        out.print(f"[dim]note: {escape(note)}[/dim]", soft_wrap=True)
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
        name = call_text(obs.key, obs.arguments) if obs.tool else "(no tool)"
        result = "ok" if obs.ok else f"failed: {obs.error}"
        table.add_row(obs.step_id, escape(name), f"{obs.latency_ms:.0f} ms", escape(result))
    return table


# The command tree, in the order `toolweave --help` lists it (commands first, then groups).
app.command()(ask)
app.command("index")(index_command)
app.command("serve")(serve)
app.command("config")(show_config)
app.add_typer(tools_app, name="tools")
app.add_typer(eval_app, name="eval")
app.add_typer(gateway_app, name="gateway")
app.add_typer(trace_app, name="trace")
app.add_typer(graph_app, name="graph")
app.add_typer(models_app, name="models")


def main() -> None:
    configure_logging()
    app()
