"""`toolweave trace list|show|prune`: the stored runs of `toolweave ask`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from toolweave.cli.common import ConfigOption, fail, load_or_exit, out
from toolweave.errors import ConfigError, InputError
from toolweave.settings import Settings

if TYPE_CHECKING:
    from toolweave.traces import TraceStore

trace_app = typer.Typer(help="Stored runs of `toolweave ask`: plan, tool and LLM calls, answer.")


@trace_app.command("list")
def trace_list(
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many.", min=1)] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    config: ConfigOption = None,
) -> None:
    """The latest runs, newest first: id, time, route, duration, tool calls, question."""
    with open_traces(config) as store:
        traces = store.list(limit)
    if as_json:
        out.print_json(json.dumps([t.model_dump(mode="json") for t in traces]))
        return
    if not traces:
        out.print('no traces yet: they are stored by each `toolweave ask "..."`')
        return
    table = Table(box=None, pad_edge=False)
    for column in ("id", "time", "route", "total", "calls", "question"):
        table.add_column(column, justify="right" if column == "total" else "left")
    for t in traces:
        failed = f", [red]{t.failed_steps} failed[/red]" if t.failed_steps else ""
        table.add_row(
            t.id,
            t.created.astimezone().strftime("%Y-%m-%d %H:%M:%S"),
            t.route,
            f"{t.total_ms / 1000:.2f} s",
            f"{t.ok_steps} ok{failed}",
            escape(t.question),
        )
    out.print(table)


@trace_app.command("show")
def trace_show(
    trace_id: Annotated[str, typer.Argument(help="A trace id, or its first characters.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole trace as JSON.")] = False,
    config: ConfigOption = None,
) -> None:
    """One run: question, route, timings, plan, tool calls, LLM prompts and responses, answer."""
    from toolweave.traces import format_trace

    with open_traces(config) as store:
        trace = store.get(trace_id)
    if as_json:
        out.print_json(trace.model_dump_json())
    else:
        out.print(escape(format_trace(trace)), soft_wrap=True)


class Rating(StrEnum):
    good = "good"
    bad = "bad"


@trace_app.command("feedback")
def trace_feedback(
    trace_id: Annotated[str, typer.Argument(help="A trace id, or its first characters.")],
    rating: Annotated[Rating, typer.Argument(help="good, or bad: unlearn what the run taught.")],
    config: ConfigOption = None,
) -> None:
    """Say how a run went. A run whose calls all succeeded taught the tool index its questions
    as examples (index.learn) and its calls' outcomes to the tool graph (graph.learn); `bad`
    takes the examples back, turns its graph successes into failures, and the run teaches
    nothing later."""
    from toolweave.engine import rate_run
    from toolweave.navigation.graph import ToolGraph

    settings = load_or_exit(config)
    with _opened(settings) as store:
        full_id = store.get(trace_id).id
    try:
        with ToolGraph.open(settings.index_path()) as graph:
            taken, fallen = rate_run(settings.index_path(), graph, full_id, rating.value)
    except ConfigError as exc:
        fail(exc, code=2)
    said = [f"{full_id}: {rating.value}"]
    if taken:
        said.append("unlearned " + ", ".join(f"{t.tool} <- {t.query!r}" for t in taken))
    if fallen:
        said.append(f"{fallen} tool graph edge{'s' * (fallen != 1)} lowered")
    out.print(escape("; ".join(said)), soft_wrap=True)


@trace_app.command("prune")
def trace_prune(
    older_than: Annotated[
        float | None,
        typer.Option(
            "--older-than",
            metavar="DAYS",
            min=0,
            help="Remove the traces older than DAYS (default: traces.max_age_days).",
            show_default=False,
        ),
    ] = None,
    max_mb: Annotated[
        float | None,
        typer.Option(
            "--max-mb",
            metavar="MB",
            min=0,
            help="Then the oldest while the store holds more than MB (default: traces.max_mb).",
            show_default=False,
        ),
    ] = None,
    config: ConfigOption = None,
) -> None:
    """Remove old traces now (each `ask` does it too) and give their space back to the disk."""
    settings = load_or_exit(config)
    with _opened(settings) as store:
        pruned = store.prune(older_than, max_mb, vacuum=True)
    traces = "trace" if pruned.removed == 1 else "traces"
    out.print(
        f"removed {pruned.removed} {traces}; {escape(str(store.path))}: "
        f"{_size(pruned.bytes_before)} -> {_size(pruned.bytes_after)}",
        soft_wrap=True,
    )


def _size(size: int) -> str:
    return f"{size / (1 << 20):.1f} MB" if size >= 1 << 20 else f"{size / 1024:.0f} KB"


@contextmanager
def open_traces(config: Path | None) -> Iterator[TraceStore]:
    """The trace store of the configured state dir; exit 2 when it cannot be read."""
    with _opened(load_or_exit(config)) as store:
        yield store


@contextmanager
def _opened(settings: Settings) -> Iterator[TraceStore]:
    from toolweave.traces import TracePolicy, TraceStore, trace_path

    try:
        with TraceStore(trace_path(settings), TracePolicy.of(settings)) as store:
            yield store
    except (ConfigError, InputError) as exc:
        fail(exc, code=2)
