"""A user's own retrieval benchmark (`toolweave eval retrieval --tools FILE --queries FILE`): MCP
tools and queries with their gold tools, two JSON Lines files (formats in `load_own_benchmark`),
checked line by line; every problem is reported, nothing is skipped silently.
"""

from __future__ import annotations

import difflib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from mcp.types import Tool, ToolAnnotations
from pydantic import ValidationError

from toolweave.catalog.connections import spec_of
from toolweave.errors import InputError
from toolweave.evals.datasets import EvalQuery, RetrievalDataset
from toolweave.evals.metrics import GoldEntry, alternatives
from toolweave.types import ServerInfo, ToolSpec

MAX_PROBLEMS = 20  # reported at once: enough to fix a file in one pass, short enough to read
# The fields of a tool as MCP `tools/list` gives it (by their wire names), plus its server.
_TOOL_FIELDS = {"server", *(f.alias or n for n, f in Tool.model_fields.items())}
_HINT_FIELDS = {f.alias or n for n, f in ToolAnnotations.model_fields.items()}
_QUERY_FIELDS = {"query", "gold", "id"}


@dataclass(frozen=True)
class OwnBenchmark:
    """A user's benchmark: a tools file and a queries file (see `load_own_benchmark`)."""

    tools: Path
    queries: Path


def load_own_benchmark(
    files: OwnBenchmark, *, limit: int | None = None, seed: int = 0
) -> RetrievalDataset:
    """A benchmark of the user's, named after its queries file, from two JSON Lines files:

    tools    one MCP tool per line as `tools/list` gives it (name, description, inputSchema,
             optional outputSchema and annotations) plus "server": the server that lists it
    queries  {"query": "...", "gold": [...], "id": "..." (optional)} per line; each gold entry
             is a tool key ("server.tool") or a list of alternative keys, any one of which
             counts (evals/metrics.py says how each metric counts them)

    Blank lines are skipped; every other line that cannot be used is a problem naming the file,
    the line and what is wrong, and the first MAX_PROBLEMS are raised together as one InputError.
    """
    problems: list[str] = []
    tools, listed = _own_tools(files.tools, problems)
    queries = _own_queries(files.queries, listed, problems)
    if problems:
        shown = problems[:MAX_PROBLEMS]
        if len(problems) > MAX_PROBLEMS:
            shown.append(f"... and {len(problems) - MAX_PROBLEMS} more")
        lines = "\n".join(f"  {problem}" for problem in shown)
        raise InputError(f"{len(problems)} problem(s) in the benchmark files; fix them:\n{lines}")
    if limit is not None and limit < len(queries):
        queries = random.Random(seed).sample(queries, limit)
    servers = [ServerInfo(name=s) for s in sorted({t.server for t in tools})]
    return RetrievalDataset(files.queries.stem, servers, tools, queries, index_folder="own")


def _own_tools(path: Path, problems: list[str]) -> tuple[list[ToolSpec], set[str] | None]:
    """The tools of a tools file, and the keys it lists, those of lines with a problem too (a
    gold tool on such a line is not missing). None when some line's key cannot be read: a gold
    tool not listed may be on that line, so the queries' tools are not checked then."""
    tools: list[ToolSpec] = []
    lines: dict[str, int] = {}
    before = len(problems)
    rows = _json_lines(path, "tools", problems)
    unread = len(problems) > before  # lines that are no JSON object: their keys are unknown
    for number, item in rows:
        server, name = item.get("server"), item.get("name")
        key = f"{server}.{name}" if isinstance(server, str) and isinstance(name, str) else None
        unread = unread or key is None
        try:
            if key in lines:
                raise ValueError(f"tool {key} is listed on line {lines[key]} already")
            tool = _own_tool(item)
        except (ValueError, RecursionError) as exc:
            problems.append(f"{path}:{number}: {_reason(exc)}")
        else:
            tools.append(tool)
        if key is not None:
            lines.setdefault(key, number)
    return tools, None if unread else set(lines)


def _own_tool(item: dict[str, Any]) -> ToolSpec:
    """A tools-file line as the MCP client reads a listed tool (catalog/connections.py
    `_list_tools`); ValueError says what is wrong."""
    _no_unknown_fields(item, _TOOL_FIELDS, "a tool")
    server = item.get("server")
    if not isinstance(server, str) or not server.strip():
        raise ValueError('"server" is missing: the name of the MCP server that lists the tool')
    if "." in server:
        raise ValueError(f"server {server!r} has a dot; tool keys are server.tool, so it cannot")
    if isinstance(item.get("annotations"), dict):
        _no_unknown_fields(item["annotations"], _HINT_FIELDS, "annotations")
    try:
        tool = Tool.model_validate({k: v for k, v in item.items() if k != "server"})
    except ValidationError as exc:
        raise ValueError("; ".join(_validation_problem(e) for e in exc.errors())) from None
    if not tool.name.strip():
        raise ValueError('"name" is empty')
    _check_schema("inputSchema", tool.input_schema, arguments=True)
    if tool.output_schema is not None:
        _check_schema("outputSchema", tool.output_schema, arguments=False)
    return spec_of(server, tool)


def _validation_problem(error: Any) -> str:
    where = ".".join(str(part) for part in error["loc"])
    if error["type"] == "missing":
        return f'"{where}" is missing'
    return f'"{where}": {error["msg"]}'


def _check_schema(field_name: str, schema: dict[str, Any], *, arguments: bool) -> None:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        message = exc.message if len(exc.message) <= 120 else exc.message[:119] + "…"
        raise ValueError(
            f"{field_name} is not a valid JSON Schema (at {exc.json_path}: {message})"
        ) from None
    if arguments and schema.get("type") != "object":
        raise ValueError(
            f'{field_name} needs "type": "object" at its root: MCP tools take named arguments'
        )


def _no_unknown_fields(item: dict[str, Any], known: set[str], what: str) -> None:
    unknown = sorted(set(item) - known)
    if unknown:
        fields = ", ".join(sorted(known))
        raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))}; {what} has {fields}")


def _own_queries(path: Path, listed: set[str] | None, problems: list[str]) -> list[EvalQuery]:
    """The queries of a queries file; their gold tools are checked against `listed` (unless
    None)."""
    queries: list[EvalQuery] = []
    ids: dict[str, int] = {}
    for number, item in _json_lines(path, "queries", problems):
        try:
            query = _own_query(item, number, listed)
            if query.id in ids:
                raise ValueError(f"id {query.id!r} is used on line {ids[query.id]} already")
        except (ValueError, RecursionError) as exc:
            problems.append(f"{path}:{number}: {_reason(exc)}")
            continue
        ids[query.id] = number
        queries.append(query)
    return queries


def _own_query(item: dict[str, Any], number: int, listed: set[str] | None) -> EvalQuery:
    _no_unknown_fields(item, _QUERY_FIELDS, "a query")
    text = item.get("query")
    if not isinstance(text, str) or not text.strip():
        raise ValueError('"query" is missing: the question, as a user would ask it')
    gold = item.get("gold")
    if not isinstance(gold, list) or not gold:
        raise ValueError(
            '"gold" must be a non-empty list of the tools the query needs: "server.tool" keys, '
            "or lists of alternative keys"
        )
    entries = [_gold_entry(entry) for entry in gold]
    _check_gold_tools(entries, listed)
    query_id = item.get("id", f"line {number}")
    if isinstance(query_id, bool) or not isinstance(query_id, str | int):
        raise ValueError('"id" must be a string or a number')
    return EvalQuery(id=str(query_id), text=text, gold=frozenset(entries))


def _gold_entry(entry: Any) -> GoldEntry:
    """A key, or a list of alternative keys (one alternative is just that key)."""
    if isinstance(entry, str):
        return entry
    if isinstance(entry, list) and entry and all(isinstance(key, str) for key in entry):
        return entry[0] if len(set(entry)) == 1 else frozenset(entry)
    shown = json.dumps(entry)
    raise ValueError(
        'a gold entry is a tool key ("server.tool") or a non-empty list of alternative keys, '
        f"not {shown if len(shown) <= 60 else shown[:59] + '…'}"
    )


def _check_gold_tools(entries: list[GoldEntry], listed: set[str] | None) -> None:
    keys = [key for entry in entries for key in sorted(alternatives(entry))]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise ValueError(
            f"gold names {', '.join(twice)} more than once; list each tool once "
            "(alternatives of one need go in one list)"
        )
    missing = [key for key in keys if listed is not None and key not in listed]
    if listed is not None and missing:
        guesses = ", ".join(_guess(key, listed) for key in missing)
        raise ValueError(f"gold tool(s) not in the tools file: {guesses}")


def _guess(key: str, listed: set[str]) -> str:
    close = difflib.get_close_matches(key, sorted(listed), n=1)
    return f"{key} (did you mean {close[0]}?)" if close else key


def _json_lines(path: Path, what: str, problems: list[str]) -> list[tuple[int, dict[str, Any]]]:
    """The JSON objects of a JSON Lines file with their line numbers; each other non-blank line
    is a problem."""
    if not path.is_file():
        raise InputError(f"{what} file {path} does not exist")
    data = path.read_bytes()
    rows: list[tuple[int, dict[str, Any]]] = []
    found: list[str] = []
    for number, raw in enumerate(data.splitlines(), 1):
        try:
            item = _json_line(raw, first=number == 1)
        except (ValueError, RecursionError) as exc:
            found.append(f"{path}:{number}: {_reason(exc)}")
            continue
        if item is not None:
            rows.append((number, item))
    if found and _one_document(data):
        found = [
            f"{path}: one JSON document spread over several lines; a {what} file is JSON Lines: "
            "each line one whole JSON object"
        ]
    elif not rows and not found:
        found = [f"{path}: no {what}: the file is empty"]
    problems += found
    return rows


def _reason(exc: ValueError | RecursionError) -> str:
    return "the JSON is nested too deeply" if isinstance(exc, RecursionError) else str(exc)


def _json_line(raw: bytes, *, first: bool) -> dict[str, Any] | None:
    try:
        text = raw.decode("utf-8-sig" if first else "utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start + 1})") from None
    if not text.strip():
        return None
    try:
        item = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(item, dict):
        kind = "a list" if isinstance(item, list) else "a string" if isinstance(item, str) else ""
        raise ValueError(f"expected a JSON object, got {kind or json.dumps(item)}")
    return item


def _one_document(data: bytes) -> bool:
    """Whether the whole file is one JSON value (pretty-printed JSON, not JSON Lines)."""
    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return False
    return len(data.strip().splitlines()) > 1
