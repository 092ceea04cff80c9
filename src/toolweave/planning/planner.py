"""The skeleton planner: one independent step per clause, bound to its best tool.

A clause whose best tool scores below `min_score` goes to the fallback search tool (the local
documents by default), so a question no tool fits still gets evidence. Otherwise the step keeps
a shortlist (the tools within `SHORTLIST_MARGIN` of the best) for the step agent to choose from.
`fan_out` then gives a clause that lists several value sets for its tool a step per set
("weather in Paris, Rome and Oslo": three calls).
"""

from __future__ import annotations

from datetime import date

from toolweave.execution.arguments import value_sets
from toolweave.planning.dataflow import link_data_flow
from toolweave.types import Candidate, Plan, Step, SubQuery, ToolSpec

SHORTLIST_MARGIN = 0.1


def plan_steps(
    subqueries: list[SubQuery],
    candidates: list[list[Candidate]],
    *,
    min_score: float,
    fallback: ToolSpec | None,
) -> Plan:
    steps = []
    for subquery, ranked in zip(subqueries, candidates, strict=True):
        fits = bool(ranked) and ranked[0].score >= min_score
        tool = ranked[0].tool if fits else fallback
        shortlist = (
            [c for c in ranked if c.score >= ranked[0].score - SHORTLIST_MARGIN] if fits else []
        )
        steps.append(
            Step(
                id=f"s{subquery.index + 1}",
                subquery=subquery,
                server=tool.server if tool else "",
                tool=tool.name if tool else "",
                candidates=shortlist,
                problem=None if tool else "no connected tool fits this part of the question",
            )
        )
    return Plan(steps=steps)


def find_tool(tools: list[ToolSpec], key: str) -> ToolSpec | None:
    """The tool named 'server.tool', if it is connected."""
    return next((t for t in tools if t.key == key), None)


def deterministic_plan(
    question: str,
    subqueries: list[SubQuery],
    candidates: list[list[Candidate]],
    tools: dict[str, ToolSpec],
    *,
    min_score: float,
    fallback: ToolSpec | None,
    today: date,
) -> tuple[Plan, list[str]]:
    """A step per clause, fanned out per value set, its data flow linked; notes on the links."""
    plan = plan_steps(subqueries, candidates, min_score=min_score, fallback=fallback)
    return link_data_flow(fan_out(plan, tools, today), tools, question, today)


def fan_out(plan: Plan, tools: dict[str, ToolSpec], today: date) -> Plan:
    """A copy of `plan` where a step whose clause lists several value sets for its tool is a
    step per set, with those values as its arguments; steps renumbered s1..sN. Meant for a plan
    without dependencies yet (the deterministic planner's, before its data flow is linked)."""
    steps: list[Step] = []
    for step in plan.steps:
        tool = tools.get(f"{step.server}.{step.tool}")
        sets = value_sets(tool.input_schema, step.subquery.text, today) if tool else []
        if not sets or tool is None:
            steps.append(step.model_copy(deep=True))
            continue
        # Its values fit this tool: the step agent keeps it.
        chosen = [c for c in step.candidates if c.tool.key == tool.key]
        steps += [
            step.model_copy(
                deep=True,
                update={
                    "arguments": arguments,
                    "argument_origins": dict.fromkeys(arguments, "extracted"),
                    "candidates": chosen,
                },
            )
            for arguments in sets
        ]
    for number, step in enumerate(steps, 1):
        step.id = f"s{number}"
    return Plan(steps=steps)
