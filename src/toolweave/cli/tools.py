"""`toolweave index` and `toolweave tools list|search`: the tool index and the servers' tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from toolweave.cli.common import Bar, ConfigOption, err, load_or_exit, out, run_or_exit

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
    from toolweave.toolbox import build_index

    settings = load_or_exit(config)
    with Bar() as progress:
        run = run_or_exit(
            build_index(
                settings, catalogue=catalogue, folder=folder, rebuild=rebuild, on_progress=progress
            )
        )
    r = run.report
    out.print(
        f"{run.folder}: {run.stats['tools']} tools on {run.stats['servers']} servers, "
        f"{run.stats['segments']} segments; {len(r.added)} added, {len(r.updated)} updated, "
        f"{len(r.removed)} removed, {r.unchanged} unchanged; {r.embedded} texts embedded, "
        f"{r.reused} reused; {run.seconds:.1f} s",
        soft_wrap=True,
    )
    for status in run.servers:
        if status.error:
            err.print(
                f"[yellow]warning:[/yellow] server {status.name} failed: {escape(status.error)}"
            )


@tools_app.command("list")
def tools_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    config: ConfigOption = None,
) -> None:
    """Start the configured servers and list their state and tools."""
    from toolweave.toolbox import list_tools

    statuses, tools = run_or_exit(list_tools(load_or_exit(config)))
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
    from toolweave.toolbox import search_tools

    settings = load_or_exit(config)
    hits = run_or_exit(
        search_tools(
            settings, query, k=k, servers=servers, lexical=lexical, dense=dense, folder=folder
        )
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
