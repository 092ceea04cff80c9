"""The LLM's second look at clauses no tool fits by the rules (`ask.tool_pick = "llm"`)."""

from __future__ import annotations

from datetime import date

import pytest

from toolweave.language import clause_of
from toolweave.models import NoLLM
from toolweave.planning.planner import plan_steps
from toolweave.planning.tool_pick import pick_tools
from toolweave.types import Candidate, Plan, ToolHints, ToolSpec

from ..fakes import ScriptedLLM

pytestmark = pytest.mark.anyio
TODAY = date(2026, 11, 22)


def tool(name: str, description: str, *, read_only: bool | None = True) -> ToolSpec:
    schema = {"type": "object", "properties": {}, "required": []}
    return ToolSpec(
        server="memory",
        name=name,
        description=description,
        input_schema=schema,
        hints=ToolHints(read_only=read_only),
    )


READ_GRAPH = tool("read_graph", "Read the entire knowledge graph")
DELETE = tool("delete_entities", "Delete multiple entities", read_only=False)
SEARCH = ToolSpec(server="search", name="search", hints=ToolHints(read_only=True))
QUESTION = "What do you know about Bob?"


def planned() -> tuple[Plan, list[list[Candidate]]]:
    candidates = [[Candidate(tool=DELETE, score=0.2), Candidate(tool=READ_GRAPH, score=0.15)]]
    clause = clause_of(0, QUESTION, TODAY)
    return plan_steps([clause], candidates, min_score=0.28, fallback=SEARCH), candidates


async def test_the_llm_picks_a_candidate_the_rules_found_too_weak() -> None:
    plan, candidates = planned()
    assert [s.key for s in plan.steps] == ["search.search"]
    llm = ScriptedLLM('{"tool": 1}')
    picked, notes = await pick_tools(plan, candidates, SEARCH, llm)
    assert [s.key for s in picked.steps] == ["memory.read_graph"]
    assert notes == ["s1: no tool fit by its description; the LLM chose memory.read_graph"]
    # Only the read was offered: delete_entities does what the question does not ask for.
    assert "delete" not in llm.calls[0][-1]["content"]


async def test_none_or_no_llm_leaves_the_search() -> None:
    plan, candidates = planned()
    for llm in (ScriptedLLM('{"tool": 0}'), NoLLM()):
        picked, notes = await pick_tools(plan, candidates, SEARCH, llm)
        assert [s.key for s in picked.steps] == ["search.search"] and notes == []
