"""`toolweave eval retrieval --tools FILE --queries FILE`: a benchmark of the user's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.lowlevel import Server
from mcp.types import ListToolsResult, Tool

from toolweave.catalog.connections import _list_tools
from toolweave.errors import InputError
from toolweave.evals.own_benchmark import MAX_PROBLEMS, OwnBenchmark, load_own_benchmark
from toolweave.types import ToolHints, ToolSpec

from ..test_cli import toolweave

DATA = Path(__file__).parents[1] / "data" / "own_benchmark"
TOOLS, QUERIES = DATA / "tools.jsonl", DATA / "queries.jsonl"
EXAMPLE = OwnBenchmark(TOOLS, QUERIES)


def test_the_example_files_load_as_a_dataset_named_after_the_queries() -> None:
    dataset = load_own_benchmark(EXAMPLE)
    assert dataset.name == "queries" and dataset.index_folder == "own"
    assert [s.name for s in dataset.servers] == ["maps", "meteo", "weather"]
    assert len(dataset.tools) == 7 and not dataset.by_name and not dataset.logged
    gold = {q.id: q.gold for q in dataset.queries}
    assert gold["air-delhi"] == frozenset({"weather.air_quality"})
    assert gold["rain-oslo"] == frozenset({frozenset({"weather.get_forecast", "meteo.forecast"})})
    assert gold["sushi-shibuya"] == frozenset({"maps.find_places", "maps.directions"})
    forecast = next(t for t in dataset.tools if t.key == "weather.get_forecast")
    assert forecast.hints == ToolHints(read_only=True, open_world=True)
    assert forecast.input_schema["required"] == ["city"]
    sampled = load_own_benchmark(EXAMPLE, limit=2)
    assert (
        len(sampled.queries) == 2
        and sampled.queries == load_own_benchmark(EXAMPLE, limit=2).queries
    )


async def _listed_by_mcp(server: str, tools: list[dict[str, Any]]) -> list[ToolSpec]:
    """`tools` as the MCP client path reads them from a real (in-process) server."""
    listed = [Tool.model_validate(tool) for tool in tools]

    async def list_tools(_context: Any, _params: Any) -> ListToolsResult:
        return ListToolsResult(tools=listed)

    async with Client(Server(server, on_list_tools=list_tools)) as client:
        return await _list_tools(server, client)


@pytest.mark.anyio
async def test_tools_are_read_as_the_mcp_client_reads_them() -> None:
    dataset = load_own_benchmark(EXAMPLE)
    lines = [json.loads(line) for line in TOOLS.read_text().splitlines()]
    for server in ("weather", "meteo", "maps"):
        tools = [
            {k: v for k, v in t.items() if k != "server"} for t in lines if t["server"] == server
        ]
        ours = [t for t in dataset.tools if t.server == server]
        assert await _listed_by_mcp(server, tools) == ours
    assert any(t.output_schema for t in dataset.tools)  # outputSchema is carried over too


def _metrics(tmp_path: Path, query_id: str) -> dict[str, float]:
    """The metrics the CLI prints for one query of the example, alone in a queries file."""
    line = next(
        line for line in QUERIES.read_text().splitlines() if json.loads(line)["id"] == query_id
    )
    queries = tmp_path / f"{query_id}.jsonl"
    queries.write_text(line + "\n")
    args = ["--tools", str(TOOLS), "--queries", str(queries), "--variant", "full", "--json"]
    run = toolweave("eval", "retrieval", *args, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    [row] = json.loads(run.stdout)
    assert (row["dataset"], row["config"], row["queries"]) == (query_id, "full", 1)
    return row["metrics"]


def test_cli_scores_the_example_benchmark(tmp_path: Path) -> None:
    args = ["--tools", str(TOOLS), "--queries", str(QUERIES), "--variant", "full"]
    table = toolweave("eval", "retrieval", *args, cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    assert table.stdout.startswith("| dataset | config | queries | R@1 | R@5 |")
    assert "| queries | full | 6 |" in table.stdout
    # Air quality is the only tool that fits.
    clear = _metrics(tmp_path, "air-delhi")
    assert clear["R@1"] == clear["R@5"] == clear["COMP@5"] == 1
    # Either forecast counts; the second one in the top 5 adds nothing.
    either = _metrics(tmp_path, "rain-oslo")
    assert either["R@1"] == either["nDCG@5"] == 1 and either["P@5"] == 0.2
    # A gold tool that has nothing to do with the query ranks last of the seven.
    wrong = _metrics(tmp_path, "mislabelled")
    assert wrong["R@1"] == wrong["R@5"] == wrong["COMP@5"] == 0 and wrong["R@10"] == 1
    # One index for the tools, whatever the queries file: built once, then reused.
    assert len(list((tmp_path / "state" / "evals" / "own").glob("spec-v2-*"))) == 1


def test_cli_needs_both_files_and_no_dataset_names(tmp_path: Path) -> None:
    alone = toolweave("eval", "retrieval", "--tools", str(TOOLS), cwd=tmp_path)
    assert alone.returncode == 2 and "--tools needs --queries too" in alone.stderr
    alone = toolweave("eval", "retrieval", "--queries", str(QUERIES), cwd=tmp_path)
    assert alone.returncode == 2 and "--queries needs --tools too" in alone.stderr
    both = ["--tools", str(TOOLS), "--queries", str(QUERIES)]
    named = toolweave("eval", "retrieval", "toole-multi", *both, cwd=tmp_path)
    assert named.returncode == 2
    assert "dataset names (toole-multi) do not go with --tools/--queries" in named.stderr


def test_cli_reports_the_problems_and_exits_2(tmp_path: Path) -> None:
    tools = tmp_path / "tools.jsonl"
    route = {"server": "maps", "name": "route", "inputSchema": {"type": "string"}}
    tools.write_text(TOOLS.read_text() + json.dumps(route) + "\n")
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"query": "Rain in Oslo?", "gold": ["weather.forcast"]}\nRain?\n')
    run = toolweave(
        "eval", "retrieval", "--tools", str(tools), "--queries", str(queries), cwd=tmp_path
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "error: 3 problem(s) in the benchmark files" in run.stderr
    assert f'{tools}:8: inputSchema needs "type": "object"' in run.stderr
    assert f"{queries}:1: gold tool(s) not in the tools file: weather.forcast" in run.stderr
    assert f"{queries}:2: not JSON" in run.stderr


# -- malformed input: every problem names the file, the line and what is wrong -------------------

FORECAST = {
    "server": "weather",
    "name": "forecast",
    "description": "Weather forecast for a city.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
DEEP: dict[str, Any] = {"type": "string"}
for _ in range(400):
    DEEP = {"type": "object", "properties": {"inner": DEEP}}
ASK = {"query": "Will it rain in Oslo?", "gold": ["weather.forecast"]}


def tool(**changes: Any) -> str:
    """The forecast tool's line with `changes` (None removes a field)."""
    item = {**FORECAST, **changes}
    return json.dumps({k: v for k, v in item.items() if v is not None})


def query(**changes: Any) -> str:
    item = {**ASK, **changes}
    return json.dumps({k: v for k, v in item.items() if v is not None})


def problems(tmp_path: Path, tools: list[str], queries: list[str]) -> str:
    files = OwnBenchmark(tmp_path / "tools.jsonl", tmp_path / "queries.jsonl")
    files.tools.write_text("".join(line + "\n" for line in tools))
    files.queries.write_text("".join(line + "\n" for line in queries))
    with pytest.raises(InputError) as raised:
        load_own_benchmark(files)
    return str(raised.value)


MALFORMED_TOOLS = {
    "not JSON": ([tool(), '{"server": "maps",'], "tools.jsonl:2: not JSON (Expecting"),
    "not an object": (["[" + tool() + "]"], "tools.jsonl:1: expected a JSON object, got a list"),
    "no server": ([tool(server=None)], 'tools.jsonl:1: "server" is missing'),
    "dotted server": ([tool(server="my.weather")], "tools.jsonl:1: server 'my.weather' has a dot"),
    "no name": ([tool(name=None)], 'tools.jsonl:1: "name" is missing'),
    "empty name": ([tool(name=" ")], 'tools.jsonl:1: "name" is empty'),
    "no inputSchema": ([tool(inputSchema=None)], 'tools.jsonl:1: "inputSchema" is missing'),
    "inputSchema as text": (
        [tool(inputSchema='{"type": "object"}')],
        'tools.jsonl:1: "inputSchema": Input should be a valid dictionary',
    ),
    "inputSchema not a schema": (
        [tool(inputSchema={"type": "object", "properties": ["city"]})],
        "tools.jsonl:1: inputSchema is not a valid JSON Schema (at $.properties:",
    ),
    "inputSchema not an object": (
        [tool(inputSchema={"type": "string"})],
        'tools.jsonl:1: inputSchema needs "type": "object" at its root',
    ),
    "outputSchema not a schema": (
        [tool(outputSchema={"type": 3})],
        "tools.jsonl:1: outputSchema is not a valid JSON Schema (at $.type:",
    ),
    "a hint not a boolean": (
        [tool(annotations={"readOnlyHint": "maybe"})],
        'tools.jsonl:1: "annotations.readOnlyHint": Input should be a valid boolean',
    ),
    "an unknown hint": (
        [tool(annotations={"readOnly": True})],
        "tools.jsonl:1: unknown field(s) 'readOnly'; annotations has destructiveHint,",
    ),
    "snake_case field": (
        [tool(input_schema={"type": "object"})],
        "tools.jsonl:1: unknown field(s) 'input_schema'; a tool has _meta, annotations,",
    ),
    "a schema nested too deeply": (
        [tool(inputSchema=DEEP)],
        "tools.jsonl:1: the JSON is nested too deeply",
    ),
    "the same tool twice": (
        [tool(), tool(description="Another one.")],
        "tools.jsonl:2: tool weather.forecast is listed on line 1 already",
    ),
}


@pytest.mark.parametrize("case", MALFORMED_TOOLS)
def test_a_malformed_tool_line_is_reported(tmp_path: Path, case: str) -> None:
    tools, expected = MALFORMED_TOOLS[case]
    message = problems(tmp_path, tools, [query()])
    # The only problem of the tools file (its query's gold tool may be missing as a result).
    assert expected in message and message.count("tools.jsonl:") == 1


MALFORMED_QUERIES = {
    "not JSON": ([query(), "Will it rain?"], "queries.jsonl:2: not JSON (Expecting value"),
    "no query": ([query(query=None)], 'queries.jsonl:1: "query" is missing'),
    "blank query": ([query(query="  ")], 'queries.jsonl:1: "query" is missing'),
    "no gold": ([query(gold=None)], 'queries.jsonl:1: "gold" must be a non-empty list'),
    "empty gold": ([query(gold=[])], 'queries.jsonl:1: "gold" must be a non-empty list'),
    "gold a string": ([query(gold="weather.forecast")], 'queries.jsonl:1: "gold" must be'),
    "a gold number": ([query(gold=[3])], "queries.jsonl:1: a gold entry is a tool key"),
    "no alternatives": ([query(gold=[[]])], "queries.jsonl:1: a gold entry is a tool key"),
    "an unknown tool": (
        [query(gold=["weather.forcast"])],
        "queries.jsonl:1: gold tool(s) not in the tools file: weather.forcast "
        "(did you mean weather.forecast?)",
    ),
    "an unknown alternative": (
        [query(gold=[["weather.forecast", "meteo.forecast"]])],
        "queries.jsonl:1: gold tool(s) not in the tools file: meteo.forecast",
    ),
    "a tool twice": (
        [query(gold=["weather.forecast", ["weather.forecast", "meteo.forecast"]])],
        "queries.jsonl:1: gold names weather.forecast more than once",
    ),
    "an id twice": (
        [query(id="oslo"), query(id="oslo")],
        "queries.jsonl:2: id 'oslo' is used on line 1 already",
    ),
    "an id not text": ([query(id=["oslo"])], 'queries.jsonl:1: "id" must be a string or a number'),
    "an unknown field": (
        [query(golds=["weather.forecast"])],
        "queries.jsonl:1: unknown field(s) 'golds'; a query has gold, id, query",
    ),
}


@pytest.mark.parametrize("case", MALFORMED_QUERIES)
def test_a_malformed_query_line_is_reported(tmp_path: Path, case: str) -> None:
    queries, expected = MALFORMED_QUERIES[case]
    message = problems(tmp_path, [tool()], queries)
    assert expected in message and "1 problem(s)" in message


def test_unreadable_and_misshapen_files_are_reported(tmp_path: Path) -> None:
    files = OwnBenchmark(tmp_path / "tools.jsonl", tmp_path / "queries.jsonl")
    files.queries.write_text(query() + "\n")
    files.tools.write_bytes(tool().encode() + b'\n{"server": "caf\xe9"}\n')
    assert "tools.jsonl:2: not UTF-8 text (byte 16)" in problems_of(files)
    files.tools.write_text(json.dumps(FORECAST, indent=2))  # pretty-printed, not JSON Lines
    assert "tools.jsonl: one JSON document spread over several lines" in problems_of(files)
    files.tools.write_text("\n\n")
    assert "tools.jsonl: no tools: the file is empty" in problems_of(files)
    files.tools.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    assert "tools.jsonl:1: the JSON is nested too deeply" in problems_of(files)
    with pytest.raises(InputError, match=r"queries file .*nowhere\.jsonl does not exist"):
        load_own_benchmark(OwnBenchmark(files.tools, tmp_path / "nowhere.jsonl"))


def problems_of(files: OwnBenchmark) -> str:
    with pytest.raises(InputError) as raised:
        load_own_benchmark(files)
    return str(raised.value)


def test_a_gold_tool_on_a_broken_line_is_not_reported_missing_too(tmp_path: Path) -> None:
    broken = tool(name="alerts", inputSchema={"type": "string"})
    message = problems(tmp_path, [tool(), broken], [query(gold=["weather.alerts"])])
    assert message.startswith("1 problem(s)") and "tools.jsonl:2: inputSchema" in message


def test_blank_lines_are_skipped_and_problems_are_capped(tmp_path: Path) -> None:
    queries = [query(id=f"q{i}", gold=[f"weather.tool{i}"]) for i in range(MAX_PROBLEMS + 5)]
    message = problems(tmp_path, ["", tool(), "   "], ["", *queries])
    lines = message.splitlines()
    assert lines[0] == f"{MAX_PROBLEMS + 5} problem(s) in the benchmark files; fix them:"
    assert "queries.jsonl:2: gold tool(s) not in the tools file: weather.tool0" in lines[1]
    assert len(lines) == 1 + MAX_PROBLEMS + 1 and lines[-1] == "  ... and 5 more"
