from __future__ import annotations

from pathlib import Path

import pytest

from toolweave.catalog.augment import LLMQueries, LoggedQueries, generated_segments, key_topics
from toolweave.catalog.documents import (
    build_tool_doc,
    content_hash,
    server_segments,
    spec_segments,
)
from toolweave.errors import ConfigError
from toolweave.language.text import readable_name
from toolweave.types import ServerInfo, ToolSpec

from ..fakes import ScriptedLLM

FORECAST = ToolSpec(
    server="weather",
    name="getWeatherForecast",
    description="Returns the forecast for a city. Covers up to 14 days.",
    input_schema={
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name (e.g., Paris, Tokyo)"},
            "days": {"type": "integer", "description": "How many days"},
        },
        "required": ["city"],
    },
)


@pytest.mark.parametrize(
    ("name", "readable"),
    [
        ("getWeatherForecast", "get weather forecast"),
        ("get_weather-forecast", "get weather forecast"),
        ("HTTPGet2", "http get2"),
        ("PDF&URLTool", "pdf url tool"),
    ],
)
def test_readable_name(name: str, readable: str) -> None:
    assert readable_name(name) == readable


def test_spec_segments_name_sentences_and_arguments_without_examples() -> None:
    segments = spec_segments(FORECAST)
    assert [(s.kind, s.text) for s in segments] == [
        ("name", "get weather forecast: Returns the forecast for a city."),
        ("description", "Covers up to 14 days."),
        (
            "arguments",
            "arguments: city (string, required): City name; days (integer): How many days",
        ),
    ]
    assert all(s.origin == "spec" for s in segments)


def test_generated_queries_and_topics() -> None:
    segments = generated_segments(FORECAST, "weather")
    texts = [s.text for s in segments]
    assert "how can I get weather forecast?" in texts
    assert "return the forecast for a city" in texts
    assert texts[-1].startswith("topics: weather, forecast, returns")
    assert {s.origin for s in segments} == {"generated"}
    assert "paris" not in " ".join(texts).lower()  # example values stay out
    assert key_topics(FORECAST)[:3] == ["weather", "forecast", "returns"]


def test_document_has_no_repeated_texts_and_a_stable_hash() -> None:
    doc = build_tool_doc(FORECAST, generated_segments(FORECAST) + generated_segments(FORECAST))
    assert len({s.text for s in doc.segments}) == len(doc.segments)
    assert content_hash(FORECAST) == content_hash(FORECAST.model_copy())
    assert content_hash(FORECAST) != content_hash(FORECAST.model_copy(update={"description": "x"}))


def test_server_document_lists_tools_with_summaries() -> None:
    segments = server_segments(
        ServerInfo(name="weather", description="Forecasts and alerts"), [FORECAST]
    )
    assert segments[0].text == "weather: Forecasts and alerts"
    assert (
        segments[1].text == "weather tools: get weather forecast: Returns the forecast for a city."
    )


def test_logged_queries_file(tmp_path: Path) -> None:
    path = tmp_path / "logged.jsonl"
    path.write_text('{"tool": "weather.getWeatherForecast", "query": "will it rain in Oslo"}\n\n')
    segments = LoggedQueries.from_file(path).segments(FORECAST)
    assert [(s.text, s.origin) for s in segments] == [("will it rain in Oslo", "logged")]
    path.write_text('{"query": "no tool"}\n')
    with pytest.raises(ConfigError, match=r"logged\.jsonl:1"):
        LoggedQueries.from_file(path)


@pytest.mark.anyio
async def test_llm_queries_are_cached_by_content_hash(tmp_path: Path) -> None:
    llm = ScriptedLLM('{"queries": ["weather in Rome next week", "will it snow in Denver"]}')
    queries = LLMQueries(llm, tmp_path / "augment.sqlite", per_tool=2, temperature=1.2)
    first = await queries.segments(FORECAST)
    assert [s.text for s in first] == ["weather in Rome next week", "will it snow in Denver"]
    assert await queries.segments(FORECAST) == first and len(llm.calls) == 1
    changed = FORECAST.model_copy(update={"description": "Forecast for any city."})
    assert await queries.segments(changed) == []  # the script is empty: the LLM failed, no crash
    prompt = llm.calls[0][-1]["content"]
    assert "Write 2 different requests" in prompt and "get weather forecast" in prompt
