"""The LLM planner against the OpenAI wire format (local server), and with the embedded model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from toolweave.language import analyse, clause_of
from toolweave.models import NoLLM, make_llm
from toolweave.models.base import LLM
from toolweave.models.structured import schema_problems
from toolweave.planning.llm_planner import MAX_TOOLS, LLMPlan, llm_plan, offered_tools, plan_schema
from toolweave.planning.planner import PlanRequest, plan_steps
from toolweave.planning.validate import validate_plan
from toolweave.settings import LLMSettings
from toolweave.types import Candidate, ToolSpec

from ..models.openai_server import OpenAIServer, Reply, chat_reply

pytestmark = pytest.mark.anyio
CHAT = "/v1/chat/completions"


def tool(server: str, name: str, description: str, **params: str) -> ToolSpec:
    schema = {
        "type": "object",
        "properties": {param: {"type": kind} for param, kind in params.items()},
        "required": list(params),
    }
    return ToolSpec(server=server, name=name, description=description, input_schema=schema)


FIND = tool("maps", "find_place", "Finds a place. Returns its city.", query="string")
FORECAST = tool(
    "weather", "forecast", "Returns the weather forecast for a city.", city="string", days="integer"
)
CLOCK = tool("time", "current_time", "Returns the current time in a time zone.", timezone="string")
DOCS = tool("docs", "search", "Searches the local documents.", query="string")

QUESTION = "Where is the Louvre, and what will the weather be there tomorrow?"
TODAY = date(2026, 11, 22)
ANALYSIS = analyse(QUESTION, TODAY)
CLAUSES = ANALYSIS.clauses
CANDIDATES = [
    [Candidate(tool=FIND, score=0.8), Candidate(tool=CLOCK, score=0.3)],
    [Candidate(tool=FORECAST, score=0.9), Candidate(tool=CLOCK, score=0.4)],
]
# Each clause's best tool first (by score), then the runners-up once each, then the fallback.
OFFERED = ["weather.forecast", "maps.find_place", "time.current_time", "docs.search"]


def task(
    id: str, tool: str, arguments: dict[str, Any], *depends_on: str, instruction: str = ""
) -> dict[str, Any]:
    return {
        "id": id,
        "instruction": instruction or f"do {id}",
        "tool": tool,
        "arguments": arguments,
        "depends_on": list(depends_on),
    }


FIND_LOUVRE = task("T1", "maps.find_place", {"query": "Louvre"}, instruction="Find the Louvre")
FORECAST_THERE = task(
    "T2",
    "weather.forecast",
    {"city": "{{T1.result.city}}", "days": 1},
    instruction="Get tomorrow's weather in that city",
)


def reply(*tasks: dict[str, Any], dependencies: list[str] | None = None) -> Reply:
    answer: dict[str, Any] = {"tasks": list(tasks)}
    if dependencies is not None:
        answer["dependencies"] = dependencies
    return chat_reply(json.dumps(answer))


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


def openai(server: OpenAIServer) -> LLM:
    settings = LLMSettings(
        backend="openai", base_url=server.base_url, model="test-model", max_retries=0
    )
    return make_llm(settings)


async def plan(llm: LLM, *, min_score: float = 0.5) -> LLMPlan:
    return await llm_plan(request(min_score), llm)


def request(min_score: float = 0.5) -> PlanRequest:
    return PlanRequest(ANALYSIS, CANDIDATES, {}, min_score, DOCS)


def deterministic(min_score: float) -> list[tuple[str, str]]:
    """What the deterministic planner binds each clause to."""
    fallback = plan_steps(CLAUSES, CANDIDATES, min_score=min_score, fallback=DOCS)
    steps = validate_plan(fallback, {"maps", "weather", "time", "docs"}).plan.steps
    return [(step.server, step.tool) for step in steps]


async def test_two_tasks_with_a_dependency_and_a_reference_become_a_valid_plan(
    server: OpenAIServer,
) -> None:
    server.add(CHAT, reply(FIND_LOUVRE, FORECAST_THERE, dependencies=["T1->T2"]))
    result = await plan(openai(server))
    assert result.by_llm and result.check.ok
    assert result.check.repairs == [] and result.notes == []
    first, second = result.plan.steps
    assert (first.id, first.server, first.tool, first.arguments) == (
        "s1",
        "maps",
        "find_place",
        {"query": "Louvre"},
    )
    assert first.clause == clause_of(0, "Find the Louvre", TODAY)
    assert (second.id, second.server, second.tool) == ("s2", "weather", "forecast")
    assert second.clause == clause_of(1, "Get tomorrow's weather in that city", TODAY)
    assert second.arguments == {"city": "{{s1.result.city}}", "days": 1}
    assert second.argument_origins == {"city": "llm", "days": "llm"}
    assert second.depends_on == ["s1"]
    assert [c.tool.key for c in second.candidates] == ["weather.forecast"]


async def test_the_request_carries_the_schema_with_the_tool_enum_and_lists_the_tools(
    server: OpenAIServer,
) -> None:
    server.add(CHAT, reply(FIND_LOUVRE))
    await plan(openai(server))
    body = server.requests[0][2]
    schema = body["response_format"]["json_schema"]["schema"]
    task_schema = schema["properties"]["tasks"]["items"]
    assert task_schema["properties"]["tool"]["enum"] == OFFERED
    assert set(task_schema["properties"]["arguments"]["properties"]) == {
        "query",
        "city",
        "days",
        "timezone",
    }
    system, user = (message["content"] for message in body["messages"])
    assert "no reasoning" in system
    assert f"Question: {QUESTION}" in user
    assert "1. Where is the Louvre\n2. what will the weather be there tomorrow" in user
    tools = user.split("Tools:\n")[1].splitlines()
    assert tools[0] == (
        "- weather.forecast: Returns the weather forecast for a city. "
        "Needs: city (string), days (integer)"
    )
    assert [line.split(":")[0] for line in tools] == [f"- {key}" for key in OFFERED]


async def test_a_tool_outside_the_enum_is_repaired_once(server: OpenAIServer) -> None:
    invented = task("T1", "weather.get_weather", {"city": "Paris"})
    server.add(CHAT, reply(invented), reply(FIND_LOUVRE, FORECAST_THERE))
    result = await plan(openai(server))
    assert result.by_llm
    assert [step.tool for step in result.plan.steps] == ["find_place", "forecast"]
    repair = server.requests[1][2]["messages"]
    assert json.loads(repair[-2]["content"])["tasks"] == [invented]
    assert "tasks/0/tool: 'weather.get_weather' is not one of" in repair[-1]["content"]


async def test_output_still_invalid_after_the_repair_falls_back(server: OpenAIServer) -> None:
    invented = reply(task("T1", "weather.get_weather", {"city": "Paris"}))
    server.add(CHAT, invented, invented)
    result = await plan(openai(server), min_score=0.85)
    assert len(server.requests) == 2
    assert not result.by_llm and result.output is None
    assert result.notes[0].startswith("the deterministic planner planned instead:")
    assert "after one repair attempt" in result.notes[0]
    # The first clause's best tool (0.8) is below min_score: the fallback tool takes it.
    expected = [("docs", "search"), ("weather", "forecast")]
    assert deterministic(0.85) == expected
    assert [(step.server, step.tool) for step in result.plan.steps] == expected


async def test_no_llm_falls_back_to_the_deterministic_planner() -> None:
    result = await plan(NoLLM("no LLM in this test"))
    assert not result.by_llm
    assert result.notes == ["the deterministic planner planned instead: no LLM in this test"]
    assert [(step.server, step.tool) for step in result.plan.steps] == deterministic(0.5)
    assert result.check.ok


async def test_an_llm_request_error_falls_back_too(server: OpenAIServer) -> None:
    server.add(CHAT, Reply(status=400, json={"error": "no such model"}))
    result = await plan(openai(server))
    assert not result.by_llm and "HTTP 400" in result.notes[0]
    assert [(step.server, step.tool) for step in result.plan.steps] == deterministic(0.5)


async def test_dependencies_given_both_ways_are_merged_and_validator_repairs_are_exposed(
    server: OpenAIServer,
) -> None:
    third = task("T3", "time.current_time", {"timezone": "Europe/{{T2.result.city}}"}, "T1")
    server.add(
        CHAT,
        reply(
            FIND_LOUVRE, {**FORECAST_THERE, "depends_on": ["T1"]}, third, dependencies=["T1->T2"]
        ),
    )
    result = await plan(openai(server))
    assert [step.depends_on for step in result.plan.steps] == [[], ["s1"], ["s1", "s2"]]
    assert result.plan.steps[2].arguments == {"timezone": "Europe/{{s2.result.city}}"}
    assert [c.score for c in result.plan.steps[2].candidates] == [0.4]  # the tool's best
    # T1 was given both ways (one dependency); T3 used T2 without saying so (validate_plan).
    assert result.check.repairs == ["s3 uses s2's result: added the dependency"]
    assert result.check.ok and result.notes == []


async def test_what_does_not_carry_over_is_noted_or_flagged(server: OpenAIServer) -> None:
    tasks = [
        task("T1", "maps.find_place", {"query": "Louvre", "days": 2}),
        task("T1", "weather.forecast", {"city": "{{T7.result.city}}"}, "T5"),
    ]
    server.add(CHAT, reply(*tasks, dependencies=["T1->T4"]))
    result = await plan(openai(server))
    assert result.notes == [
        "two tasks had the id T1: it means the first one, s1",
        "the dependency T1->T4 names no task T4: dropped it",
        "s1: maps.find_place has no parameter days: dropped it",
    ]
    assert result.plan.steps[0].arguments == {"query": "Louvre"}
    assert result.check.repairs == ["s2 depended on unknown step T5: dropped the dependency"]
    assert result.check.problems == ["s2 uses the result of unknown step T7"]
    assert str(result.plan.steps[1].problem) == "s2 uses the result of unknown step T7"


def test_offered_tools_give_each_clause_its_best_first_and_stop_at_the_limit() -> None:
    # The second clause's tools all score below the first's: its best is offered second anyway.
    many = [
        [
            Candidate(tool=tool(f"c{row}", f"t{rank}", "x"), score=1 - row / 2 - rank / 20)
            for rank in range(8)
        ]
        for row in range(2)
    ]
    many[1][1] = Candidate(tool=many[0][0].tool, score=0.45)
    keys = list(offered_tools(many, DOCS))
    assert keys[:5] == ["c0.t0", "c1.t0", "c0.t1", "c0.t2", "c1.t2"]
    assert len(keys) == MAX_TOOLS + 1 and keys[-1] == "docs.search"
    assert len(set(keys)) == len(keys)
    assert list(offered_tools(CANDIDATES, None)) == OFFERED[:-1]


@pytest.mark.embedded_llm
async def test_the_embedded_model_gives_a_schema_valid_plan_of_offered_tools() -> None:
    from toolweave.models.llama_embedded import EmbeddedLLM, embedded_available

    assert embedded_available() is None, embedded_available()
    result = await llm_plan(request(), EmbeddedLLM(), max_steps=2)
    # A 135M model's plan quality is not asserted: only that its output is a usable plan.
    assert result.by_llm, result.notes
    offered = [FORECAST, FIND, CLOCK, DOCS]
    assert schema_problems(result.output, plan_schema(offered, 2)) == []
    assert 1 <= len(result.plan.steps) <= 2
    assert {f"{s.server}.{s.tool}" for s in result.plan.steps} <= set(OFFERED)
    assert [step.id for step in result.plan.steps] == ["s1", "s2"][: len(result.plan.steps)]
