from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from toolweave.execution.arguments import (
    extract_arguments,
    fill_arguments,
    param_kind,
    value_sets,
)
from toolweave.models import NoLLM
from toolweave.types import ToolSpec

from ..models.test_structured import ScriptedLLM

pytestmark = pytest.mark.anyio
TODAY = date(2026, 11, 22)


def tool(properties: dict, required: list[str], name: str = "t") -> ToolSpec:
    return ToolSpec(
        server="s",
        name=name,
        input_schema={"type": "object", "properties": properties, "required": required},
    )


PERCENTAGE = tool(
    {"percent": {"type": "number"}, "value": {"type": "number"}}, ["percent", "value"]
)
CURRENT_TIME = tool(
    {"timezone": {"type": "string", "description": "IANA timezone name"}}, ["timezone"]
)
CONVERT_TIME = tool(
    {
        "source_timezone": {"type": "string", "description": "Source IANA timezone name"},
        "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
        "target_timezone": {"type": "string", "description": "Target IANA timezone name"},
    },
    ["source_timezone", "time", "target_timezone"],
)
UNITS = tool(
    {
        "value": {"type": "number"},
        "from_unit": {"type": "string", "description": "unit"},
        "to_unit": {"type": "string", "description": "unit"},
    },
    ["value", "from_unit", "to_unit"],
)


async def test_percent_parameter_takes_the_percentage() -> None:
    filled = await fill_arguments(PERCENTAGE, "What is 2,340 plus 15% of it", NoLLM(), today=TODAY)
    assert filled.arguments == {"percent": 15, "value": 2340}
    assert (
        filled.origins == {"percent": "extracted", "value": "extracted"} and filled.problem is None
    )


async def test_timezones_times_in_schema_order() -> None:
    filled = await fill_arguments(
        CONVERT_TIME, "convert 9:30 am from London to Tokyo", NoLLM(), today=TODAY
    )
    assert filled.arguments == {
        "source_timezone": "Europe/London",
        "time": "09:30",
        "target_timezone": "Asia/Tokyo",
    }


async def test_unit_conversion_arguments() -> None:
    filled = await fill_arguments(UNITS, "how far is 26.2 miles in km?", NoLLM(), today=TODAY)
    assert filled.arguments == {"value": 26.2, "from_unit": "miles", "to_unit": "km"}


async def test_query_and_enum_and_date_kinds() -> None:
    search = tool(
        {
            "query": {"type": "string"},
            "sort": {"type": "string", "enum": ["newest", "oldest"]},
            "since": {"type": "string", "format": "date"},
        },
        ["query"],
    )
    filled = await fill_arguments(
        search, 'newest news about "solar power" since yesterday', NoLLM(), today=TODAY
    )
    assert filled.arguments == {"query": "solar power", "sort": "newest", "since": "2026-11-21"}
    assert param_kind("count", {"type": "integer"}) == "integer"


async def test_missing_required_without_llm_is_a_problem_not_a_guess() -> None:
    filled = await fill_arguments(CURRENT_TIME, "what time is it on the moon", NoLLM(), today=TODAY)
    assert filled.arguments == {}
    assert "'timezone' is a required property" in (filled.problem or "")
    assert "no LLM is configured" in (filled.llm_error or "")


async def test_llm_fills_only_what_extractors_left() -> None:
    llm = ScriptedLLM('{"timezone": "Europe/Berlin"}')
    filled = await fill_arguments(
        CURRENT_TIME, "what time is it at the Brandenburg Gate", llm, today=TODAY
    )
    assert filled.arguments == {"timezone": "Europe/Berlin"} and filled.origins == {
        "timezone": "llm"
    }
    asked = llm.calls[0][-1]["content"]
    assert "Brandenburg Gate" in asked and "timezone" in asked


async def test_llm_garbage_leaves_a_problem() -> None:
    filled = await fill_arguments(
        CURRENT_TIME, "what time is it there", ScriptedLLM("nope", "still nope"), today=TODAY
    )
    assert filled.problem and "required" in filled.problem
    assert "after one repair attempt" in (filled.llm_error or "")


async def test_types_are_coerced_to_the_schema() -> None:
    llm = ScriptedLLM('{"count": 3.0}')
    counted = tool({"count": {"type": "integer"}, "label": {"type": "string"}}, ["count"])
    filled = await fill_arguments(counted, 'label it "7"', llm, today=TODAY)
    assert filled.arguments == {"count": 3, "label": "7"} and filled.problem is None
    assert type(filled.arguments["count"]) is int


async def test_the_zone_a_clock_time_is_given_in_is_the_source() -> None:
    text = "what time is it in Sydney when it is 9:00 in Berlin?"
    filled = await fill_arguments(CONVERT_TIME, text, NoLLM(), today=TODAY)
    assert filled.arguments["source_timezone"] == "Europe/Berlin"
    assert filled.arguments["target_timezone"] == "Australia/Sydney"


async def test_optional_counts_are_not_taken_from_stray_numbers() -> None:
    search = tool({"query": {"type": "string"}, "k": {"type": "integer"}}, ["query"])
    filled = await fill_arguments(search, "what is 2+2", NoLLM(), today=TODAY)
    assert filled.arguments == {"query": "what is 2+2"} and filled.origins == {"query": "question"}


async def test_a_percent_parameter_needs_a_percentage() -> None:
    filled = await fill_arguments(PERCENTAGE, "what is 2 and 2", NoLLM(), today=TODAY)
    assert "percent" not in filled.arguments and filled.problem


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a bus from New York to Boston", {"origin": "New York", "destination": "Boston"}),
        ("a bus to Boston from New York", {"origin": "New York", "destination": "Boston"}),
        # No "from" or "to": the places in their order, as for any place parameter.
        ("a bus in Lyon", {"origin": "Lyon"}),
    ],
)
def test_origin_and_destination_follow_from_and_to(text: str, expected: dict[str, str]) -> None:
    schema = {"properties": {"origin": {"type": "string"}, "destination": {"type": "string"}}}
    assert extract_arguments(schema, text, TODAY).arguments == expected


def test_an_identifier_is_no_place() -> None:
    schema = {"properties": {"locationId": {"type": "string"}, "city": {"type": "string"}}}
    assert extract_arguments(schema, "restaurants in Rome", TODAY).arguments == {"city": "Rome"}


CITY = {"properties": {"city": {"type": "string"}}, "required": ["city"]}
BMI = {
    "properties": {"height": {"type": "number"}, "weight": {"type": "number"}},
    "required": ["height", "weight"],
}


@pytest.mark.parametrize(
    ("schema", "text", "sets"),
    [
        (CITY, "weather in Paris, Rome and Oslo", [{"city": c} for c in ("Paris", "Rome", "Oslo")]),
        (
            BMI,
            "BMI at 6 feet and 80 kg, also at 5.6 feet and 60 kg",
            [{"height": 6, "weight": 80}, {"height": 5.6, "weight": 60}],
        ),
        (CITY, "weather in Paris", []),  # one set: one call
        (CITY, "flights from Paris to Rome", []),  # a route, not a list
        # A percentage parameter takes one of the numbers; a date's digits are no numbers.
        (
            {
                "properties": {
                    "price": {"type": "number"},
                    "discount_percentage": {"type": "number"},
                },
                "required": ["price", "discount_percentage"],
            },
            "price of 100 and a discount percentage of 10, due on January 31, 2025",
            [],
        ),
        # Quoted strings serve too many parameters to be told apart.
        ({"properties": {"title": {"type": "string"}}, "required": ["title"]}, "'A', 'B'", []),
        (BMI, "BMI at 6 feet, 80 kg and 5.6 feet", []),  # no whole number of sets
        # A data list is no list of calls.
        ({"properties": {"n": {"type": "integer"}}, "required": ["n"]}, "bins " + "1, " * 9, []),
    ],
)
def test_value_sets(schema: dict[str, Any], text: str, sets: list[dict[str, Any]]) -> None:
    assert value_sets(schema, text, TODAY) == sets
