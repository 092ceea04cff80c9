from __future__ import annotations

from pathlib import Path

import pytest

from toolweave.catalog.sources import load_catalogue, slug
from toolweave.errors import InputError

from ..benchmarks_dir import LIVEMCP, SEAL, benchmark_file, needs_benchmarks


@needs_benchmarks
def test_livemcpbench_catalogue() -> None:
    servers, tools = load_catalogue(benchmark_file(*LIVEMCP))
    assert len(servers) == 70 and len(tools) == 527
    assert len({t.key for t in tools}) == 527
    weather = [t for t in tools if t.name == "get_weather"]
    assert weather and weather[0].input_schema["type"] == "object"
    assert all("." not in s.name and " " not in s.name for s in servers)


@needs_benchmarks
def test_seal_tools_catalogue_maps_types_to_json_schema() -> None:
    servers, tools = load_catalogue(benchmark_file(*SEAL))
    assert len(tools) == 4076
    evidence = next(t for t in tools if t.name == "analyzeEvidence")
    assert evidence.server == "chemical-engineering/forensic-engineering"
    assert evidence.input_schema["properties"]["method"]["type"] == "string"
    assert evidence.input_schema["required"] == ["evidence_type", "method", "sample"]
    kinds = {p["type"] for t in tools for p in t.input_schema["properties"].values()}
    assert kinds <= {"string", "integer", "number", "boolean", "array", "object"}
    assert {s.name for s in servers} == {t.server for t in tools}


def test_bad_catalogues_are_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_catalogue(tmp_path / "none.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"api_name": "x"}\nnot json\n')
    with pytest.raises(InputError, match=r"bad\.jsonl:2: not a Seal-Tools API record"):
        load_catalogue(bad)


def test_slug() -> None:
    assert slug("Bing CN.MCP ") == "bing-cn-mcp"
