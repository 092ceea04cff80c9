"""`toolweave index` and `toolweave tools list|search`: the tool index and the servers' tools."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from toolweave.cli.common import Bar, ConfigOption, err, load_or_exit, out, run_or_exit
from toolweave.errors import InputError
from toolweave.settings import Settings
from toolweave.types import IndexHit, ServerStatus, ToolSpec

if TYPE_CHECKING:
    from toolweave.index import SyncReport
    from toolweave.index.build import Progress as IndexProgress

tools_app = typer.Typer(help="List the configured servers' tools, or search the tool index.")
IndexOption = Annotated[
    Path | None,
    typer.Option(
        "--index", help="Index folder (default: the configured servers' index).", show_default=False
    ),
]


def index_command(
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Start from an empty index.")] = False,
    catalogue: Annotated[
        Path | None,
        typer.Option(
            "--catalog",
            help="Index a static catalogue instead of the servers: LiveMCPBench tools.json or "
            "Seal-Tools tool.jsonl (default folder: <state>/catalogs/<file name>).",
            show_default=False,
        ),
    ] = None,
    folder: IndexOption = None,
    config: ConfigOption = None,
) -> None:
    """Build or update the tool index: only new or changed tools are embedded."""
    settings = load_or_exit(config)
    with Bar() as progress:
        run = run_or_exit(_build_index(settings, catalogue, folder, rebuild, progress))
    r, stats = run.report, run.stats
    out.print(
        f"{run.folder}: {stats['tools']} tools on {stats['servers']} servers, "
        f"{stats['segments']} segments; {len(r.added)} added, {len(r.updated)} updated, "
        f"{len(r.removed)} removed, {r.unchanged} unchanged; {r.embedded} texts embedded, "
        f"{r.reused} reused; {run.seconds:.1f} s",
        soft_wrap=True,
    )
    for status in run.servers:
        if status.error:
            err.print(
                f"[yellow]warning:[/yellow] server {status.name} failed: {escape(status.error)}"
            )


@dataclass
class IndexRun:
    folder: Path
    report: SyncReport
    stats: dict[str, int]
    seconds: float
    servers: list[ServerStatus]


async def _build_index(
    settings: Settings,
    catalogue: Path | None,
    folder: Path | None,
    rebuild: bool,
    progress: IndexProgress,
) -> IndexRun:
    """Index the configured servers' tools, or a static catalogue file."""
    from toolweave.engine import Engine, catalogue_folder
    from toolweave.index import remove_index

    started = time.perf_counter()
    if folder is None:
        folder = catalogue_folder(settings, catalogue) if catalogue else settings.index_path()
    if rebuild:
        remove_index(folder)
    if catalogue is None:
        progress("starting MCP servers", 0, 1)
    async with Engine.open(settings, servers=catalogue is None, index_folder=folder) as engine:
        if catalogue is not None:
            report = await engine.index_catalogue(catalogue, progress)
        else:
            await engine.connect()
            assert engine.last_sync is not None  # connecting syncs the index
            report = engine.last_sync
        seconds = time.perf_counter() - started
        return IndexRun(folder, report, engine.index.stats(), seconds, engine.servers)


@tools_app.command("list")
def tools_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    config: ConfigOption = None,
) -> None:
    """Start the configured servers and list their state and tools."""
    statuses, tools = run_or_exit(_list_tools(load_or_exit(config)))
    if as_json:
        payload = {
            "servers": [s.model_dump() for s in statuses],
            "tools": [t.model_dump() for t in tools],
        }
        out.print_json(json.dumps(payload))
        return
    for status in statuses:
        detail = f"{status.tools} tools" if status.state == "ready" else status.error or ""
        out.print(
            f"[bold]{escape(status.name)}[/bold] {status.state}: {escape(detail)}", soft_wrap=True
        )
        for tool in (t for t in tools if t.server == status.name):
            flags = (
                "read-only"
                if tool.hints.read_only
                else ("destructive" if tool.hints.destructive else "")
            )
            summary = tool.description.strip().splitlines()[0][:90] if tool.description else ""
            out.print(
                f"  {escape(tool.name)}  [dim]{flags}[/dim]  {escape(summary)}", soft_wrap=True
            )


async def _list_tools(settings: Settings) -> tuple[list[ServerStatus], list[ToolSpec]]:
    from toolweave.engine import Engine

    async with Engine.open(settings) as engine:
        await engine.connect()
        return engine.servers, engine.tools


@tools_app.command("search")
def tools_search(
    query: Annotated[str, typer.Argument(help="What the tool should do.")],
    k: Annotated[int, typer.Option("-k", help="How many results.", min=1, max=1000)] = 10,
    servers: Annotated[
        bool, typer.Option("--servers", help="Rank servers instead of tools.")
    ] = False,
    lexical: Annotated[bool, typer.Option("--lexical", help="BM25 only (no embedding).")] = False,
    dense: Annotated[bool, typer.Option("--dense", help="Dense MaxSim only (no BM25).")] = False,
    folder: IndexOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    config: ConfigOption = None,
) -> None:
    """Search the tool index: scores and the segment that matched.

    By default the full retriever: the question and its clauses, dense MaxSim and BM25 fused by
    z-scores (scores are sums of z-scores, not cosines); --servers ranks servers by their best
    tool. --dense gives MaxSim cosines (with --servers over server and tool segments); --lexical
    gives BM25 scores."""
    settings = load_or_exit(config)
    hits = run_or_exit(
        _search_tools(settings, query, folder, k=k, servers=servers, lexical=lexical, dense=dense)
    )
    if as_json:
        out.print_json(json.dumps([h.model_dump() for h in hits]))
        return
    table = Table(box=None, pad_edge=False)
    for column in ("#", "score", "server" if servers else "tool", "matched segment"):
        table.add_column(column, justify="right" if column in ("#", "score") else "left")
    for rank, hit in enumerate(hits, start=1):
        matched = f"{hit.segment} [dim]({hit.origin})[/dim]" if hit.segment else ""
        table.add_row(str(rank), f"{hit.score:.3f}", escape(hit.key), matched)
    out.print(table)


async def _search_tools(
    settings: Settings, query: str, folder: Path | None, **how: Any
) -> list[IndexHit]:
    """Search a built index; no server is started."""
    from toolweave.engine import Engine

    folder = folder or settings.index_path()
    if not (folder / "index.sqlite").exists():
        raise InputError(f"no tool index at {folder}: build it with `toolweave index` first")
    async with Engine.open(settings, servers=False, index_folder=folder) as engine:
        hits: list[IndexHit] = await engine.search_tools(query, **how)
        return hits
