from __future__ import annotations

from datetime import date

from toolweave.execution.step_agent import choose_tool
from toolweave.language import clause_of
from toolweave.types import Candidate, Step

from .test_arguments import CONVERT_TIME, CURRENT_TIME, tool

TODAY = date(2026, 11, 22)
CURRENT = CURRENT_TIME.model_copy(update={"name": "get_current_time"})
CONVERT = CONVERT_TIME.model_copy(update={"name": "convert_time"})
TOOLS = {t.key: t for t in (CURRENT, CONVERT)}


def step(text: str, scores: dict[str, float]) -> Step:
    candidates = [Candidate(tool=TOOLS[f"s.{n}"], score=s) for n, s in scores.items()]
    best = candidates[0].tool
    return Step(
        id="s1",
        clause=clause_of(0, text, TODAY),
        server=best.server,
        tool=best.name,
        candidates=candidates,
    )


def test_retrieval_order_stands_when_both_tools_fit() -> None:
    chosen = choose_tool(
        step("what time is it in Tokyo", {"get_current_time": 0.40, "convert_time": 0.36}),
        TOOLS,
    )
    assert chosen is not None and chosen.name == "get_current_time"


def test_a_clock_time_in_the_question_favours_the_tool_that_needs_it() -> None:
    text = "what time is it in Sydney when it is 9:00 in Berlin"
    chosen = choose_tool(step(text, {"get_current_time": 0.43, "convert_time": 0.40}), TOOLS)
    assert chosen is not None and chosen.name == "convert_time"


def test_a_tool_that_is_not_connected_is_not_chosen() -> None:
    lone = tool({}, [], name="gone")
    s = Step(
        id="s1",
        clause=clause_of(0, "x", TODAY),
        server="s",
        tool="gone",
        candidates=[Candidate(tool=lone, score=0.9)],
    )
    assert choose_tool(s, TOOLS) is None
