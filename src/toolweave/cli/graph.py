"""`toolweave graph show|export`: the tool graph kept beside the index (navigation/graph.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from toolweave.cli.common import ConfigOption, fail, load_or_exit, out
from toolweave.errors import ConfigError, InputError

if TYPE_CHECKING:
    from toolweave.navigation.graph import ToolGraph

graph_app = typer.Typer(
    help="The tool graph: which tool's output feeds which parameter, which tool stood in for "
    "which, and each tool's health, with weights learned from runs."
)
ToolArgument = Annotated[
    str | None,
    typer.Argument(help="A tool, as server.tool or its name alone (default: every tool)."),
]


class Format(StrEnum):
    dot = "dot"
    json = "json"


@graph_app.command("show")
def graph_show(
    tool: ToolArgument = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="Edges at most.", min=1)] = 40,
    config: ConfigOption = None,
) -> None:
    """A tool's edges and health (or those of every tool runs have used), the most trusted edges
    first and the least healthy tools: 0.5 is what no run has used; above, what worked; below,
    what failed more often than it worked."""
    from toolweave.navigation.graph import NEUTRAL

    with _opened(config) as graph:
        data = graph.around(tool)
    edges = data["edges"]
    if tool is None:
        edges = [e for e in edges if e["successes"] or e["failures"] or e["origin"] != "schema"]
    kinds = {k: sum(e["kind"] == k for e in data["edges"]) for k in ("feeds", "stands_in")}
    out.print(
        f"{len(data['tools'])} tools, {kinds['feeds']} feeds edges, {kinds['stands_in']} "
        f"stand-ins{'' if tool else f'; {len(edges)} used by runs'}"
    )
    table = Table("from", "to", "link", "origin", "ok", "failed", "weight")
    for edge in sorted(edges, key=lambda e: -e["weight"])[:limit]:
        table.add_row(
            escape(edge["source"]), escape(edge["target"]), escape(_link(edge)), edge["origin"],
            f"{edge['successes']:g}", f"{edge['failures']:g}", f"{edge['weight']:.2f}",
        )  # fmt: skip
    if edges:
        out.print(table)
    ran = [n for n in data["tools"] if tool or n["health"] != NEUTRAL]  # 0.5: never called
    for node in sorted(ran, key=lambda n: n["health"])[:limit]:
        out.print(f"{escape(node['tool'])}: health {node['health']:.2f}")


@graph_app.command("export")
def graph_export(
    tool: ToolArgument = None,
    form: Annotated[Format, typer.Option("--format", help="dot (Graphviz) or json.")] = Format.json,
    config: ConfigOption = None,
) -> None:
    """The graph (or one tool's neighbourhood) on stdout: JSON with each edge's origin, counts
    and weight and each tool's health (as GET /v1/graph gives it), or Graphviz dot."""
    with _opened(config) as graph:
        data = graph.around(tool)
    if form == Format.json:
        out.print_json(json.dumps(data))
    else:
        print(dot(data))


def dot(data: dict[str, Any]) -> str:
    """Graphviz: a node per tool (its health), an edge per link, labelled field -> parameter."""
    lines = ["digraph tools {", "  rankdir=LR;", "  node [shape=box];"]
    for node in data["tools"]:
        lines.append(f"  {json.dumps(node['tool'])} [label={json.dumps(_label(node))}];")
    for edge in data["edges"]:
        style = "" if edge["kind"] == "feeds" else ", style=dashed"
        label = json.dumps(f"{_link(edge)} ({edge['weight']:.2f})")
        ends = f"{json.dumps(edge['source'])} -> {json.dumps(edge['target'])}"
        lines.append(f"  {ends} [label={label}{style}];")
    return "\n".join([*lines, "}"])


def _label(node: dict[str, Any]) -> str:
    return f"{node['tool']}\nhealth {node['health']:.2f}"


def _link(edge: dict[str, Any]) -> str:
    """'skyId -> originSkyId' for an output feeding a parameter; 'stands in' for a stand-in."""
    if edge["kind"] == "feeds":
        return f"{edge['field'] or '(result)'} -> {edge['parameter']}"
    return "stands in"


@contextmanager
def _opened(config: Path | None) -> Iterator[ToolGraph]:
    from toolweave.navigation.graph import FILE, ToolGraph

    folder = load_or_exit(config).index_path()
    if not (folder / FILE).exists():
        fail(InputError(f"no tool graph in {folder} yet: it is built with the tool index "
                        "(`toolweave index`, or the first `toolweave ask`)"), code=2)  # fmt: skip
    try:
        with ToolGraph.open(folder) as graph:
            yield graph
    except (ConfigError, InputError) as exc:
        fail(exc, code=2)
