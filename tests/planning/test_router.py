"""The strategy router over real tool specs and the real extractors."""

from __future__ import annotations

from datetime import date

import pytest

from toolweave.language import analyse, clause_of
from toolweave.language.cues import is_multi_hop
from toolweave.planning.planner import plan_steps
from toolweave.planning.router import llm_route, route
from toolweave.types import Plan, Step, ToolSpec

from ..fakes import ScriptedLLM

TODAY = date(2026, 11, 22)
WEATHER = ToolSpec(
    server="weather",
    name="get_forecast",
    description="Weather forecast for a city and a day",
    input_schema={
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris"},
            "date": {"type": "string", "format": "date"},
        },
        "required": ["city"],
    },
)
PERCENT = ToolSpec(
    server="calc",
    name="percentage",
    input_schema={
        "type": "object",
        "properties": {"percent": {"type": "number"}, "value": {"type": "number"}},
        "required": ["percent", "value"],
    },
)
TOOLS = {t.key: t for t in (WEATHER, PERCENT)}


def plan(*clauses: tuple[str, ToolSpec], depends: dict[str, list[str]] | None = None) -> Plan:
    steps = []
    for i, (text, tool) in enumerate(clauses):
        sid = f"s{i + 1}"
        steps.append(
            Step(
                id=sid,
                clause=clause_of(i, text, TODAY),
                server=tool.server,
                tool=tool.name,
                depends_on=(depends or {}).get(sid, []),
            )
        )
    return Plan(steps=steps)


def test_weather_without_a_place_gets_one_specific_question() -> None:
    decision = route(
        analyse("what's the weather tomorrow", TODAY),
        plan(("what's the weather tomorrow", WEATHER)),
        TOOLS,
    )
    assert decision.route == "clarify"
    assert decision.clarification == (
        "Which city do you mean for “what's the weather tomorrow”? (City name, e.g. Paris)"
    )
    assert "weather.get_forecast needs city" in decision.reason


@pytest.mark.parametrize("text", ["weather in Paris tomorrow", "what's the weather like in tokyo"])
def test_a_place_in_the_question_needs_no_clarification(text: str) -> None:
    assert route(analyse(text, TODAY), plan((text, WEATHER)), TOOLS).route == "single"


def test_someone_or_something_the_question_never_names_is_asked_for() -> None:
    """A tool never acts on a guess at who "he" is: the user is asked."""
    note = ToolSpec(server="memory", name="add_observations", input_schema={"type": "object"})
    tools = {**TOOLS, note.key: note, SEARCH.key: SEARCH}
    for text, question in (
        ("remember that he likes coffee", "Who do you mean by “he”?"),
        ("what's that in London time?", "What do you mean by “that”?"),
    ):
        decision = route(analyse(text, TODAY), plan((text, note)), tools, search=SEARCH.key)
        assert (decision.route, decision.clarification) == ("clarify", question)
        # A search reads documents about whoever it is: nothing to ask.
        decision = route(analyse(text, TODAY), plan((text, SEARCH)), tools, search=SEARCH.key)
        assert decision.route == "iterative"
    # A change no tool fits is asked about too, not searched.
    text = "remember that he likes coffee"
    unfit = plan_steps(analyse(text, TODAY).clauses, [[]], min_score=0.28, fallback=SEARCH)
    decision = route(analyse(text, TODAY), unfit, tools, search=SEARCH.key)
    assert (decision.route, decision.clarification) == ("clarify", "Who do you mean by “he”?")
    # Named in the question, or in the conversation before it: nothing to ask either.
    for text, earlier in (("Add Dana Kim to memory: she is a nurse", ""), ("his email?", "Bob")):
        analysis = analyse(text, TODAY, earlier)
        assert route(analysis, plan((text, note)), tools).route == "single"


def test_a_place_given_by_the_plan_needs_no_clarification() -> None:
    given = plan(
        ("where Ada lives", PERCENT), ("the weather there", WEATHER), depends={"s2": ["s1"]}
    )
    given.steps[1].arguments = {"city": "{{s1.result.city}}"}
    assert route(analyse("weather where Ada lives", TODAY), given, TOOLS).route == "planning"


def test_independent_steps_fan_out_and_small_talk_needs_nothing() -> None:
    two = plan(("15% of 2340", PERCENT), ("weather in Oslo", WEATHER))
    assert (
        route(analyse("15% of 2340 and the weather in Oslo", TODAY), two, TOOLS).route == "parallel"
    )
    assert route(analyse("Thanks a lot!", TODAY), Plan(), TOOLS).route == "direct"
    assert route(analyse("thanks for the weather in Oslo", TODAY), two, TOOLS).route != "direct"


@pytest.mark.parametrize(
    "question",
    [
        "In which city was the band that recorded Ventara formed?",
        "Which is older, the Eiffel Tower or the Statue of Liberty?",
        "Were Scott Derrickson and Ed Wood of the same nationality?",
        "When was the singer of Miss Emily's Picture born?",
        "Which team does Lewis Young's older brother play for?",
    ],
)
def test_multi_hop_questions_are_recognised(question: str) -> None:
    assert is_multi_hop(question)


@pytest.mark.parametrize(
    "question",
    [
        "What is 15% of 2,340?",
        "Who won the Fulkerson Prize in 1997?",
        "How do I declare an MCP server?",
        "What time is it in Tokyo?",
    ],
)
def test_single_hop_questions_are_not(question: str) -> None:
    assert not is_multi_hop(question)


SEARCH = ToolSpec(
    server="search",
    name="search",
    input_schema={"type": "object", "properties": {"query": {"type": "string"}}},
)


def test_a_multi_hop_question_only_search_answers_is_searched_iteratively() -> None:
    question = "In which city was the band that recorded Ventara formed?"
    tools = {**TOOLS, SEARCH.key: SEARCH}
    decision = route(analyse(question, TODAY), plan((question, SEARCH)), tools, search=SEARCH.key)
    assert decision.route == "iterative"
    # Without a search tool to iterate with, or when a tool fits, the plan runs as it is.
    assert route(analyse(question, TODAY), plan((question, SEARCH)), tools).route == "single"
    two = plan((question, SEARCH), ("What is 15% of 2,340", PERCENT))
    assert route(analyse(question, TODAY), two, tools, search=SEARCH.key).route == "parallel"
    # A single-hop question only search answers is searched the same way: the loop reads the
    # first results and searches again only for what they leave unknown.
    single = "Who won the Fulkerson Prize in 1997?"
    decision = route(analyse(single, TODAY), plan((single, SEARCH)), tools, search=SEARCH.key)
    assert decision.route == "iterative" and "multi-hop" not in decision.reason


FORECAST_PLAN = plan(("What's the weather tomorrow?", WEATHER))
RULES = route(analyse("What's the weather tomorrow?", TODAY), FORECAST_PLAN, TOOLS)


@pytest.mark.anyio
async def test_the_llm_router_asks_back_in_its_own_words() -> None:
    llm = ScriptedLLM('{"route": "clarify", "text": "For which city?"}')
    decision = await llm_route("What's the weather tomorrow?", FORECAST_PLAN, RULES, llm)
    assert (decision.route, decision.clarification) == ("clarify", "For which city?")
    assert decision.note is None
    prompt = llm.calls[0][1]["content"]
    assert "weather.get_forecast: What's the weather tomorrow?" in prompt


@pytest.mark.anyio
async def test_the_llm_router_may_answer_directly() -> None:
    llm = ScriptedLLM('{"route": "direct", "text": "I am toolweave."}')
    decision = await llm_route("Who are you?", FORECAST_PLAN, RULES, llm)
    assert (decision.route, decision.reply) == ("direct", "I am toolweave.")


@pytest.mark.anyio
async def test_running_the_tools_keeps_the_plans_shape() -> None:
    two = plan(("weather in Paris", WEATHER), ("15% of 80", PERCENT))
    rules = route(analyse("weather in Paris and 15% of 80", TODAY), two, TOOLS)
    assert rules.route == "parallel"
    decision = await llm_route("q", two, rules, ScriptedLLM('{"route": "tools", "text": ""}'))
    assert decision == rules
    # Over the rules' "clarify", "tools" means: run the plan as it is shaped.
    decision = await llm_route(
        "q", FORECAST_PLAN, RULES, ScriptedLLM('{"route": "tools", "text": ""}')
    )
    assert decision.route == "single"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("answers", "why"),
    [
        (["not json", "still not json", "no"], "the LLM router failed"),
        (['{"route": "iterative", "text": ""}'], "is not usable"),  # no search tool planned
        (['{"route": "clarify", "text": "Paris"}'], "is not usable"),  # not a question
        (['{"route": "direct", "text": "q? Planned tool calls: -"}'], "echoed its prompt"),
    ],
)
async def test_an_unusable_llm_answer_leaves_the_rules_decision(
    answers: list[str], why: str
) -> None:
    decision = await llm_route("q", FORECAST_PLAN, RULES, ScriptedLLM(*answers))
    assert decision.route == RULES.route and decision.note is not None and why in decision.note
