"""The skeleton planner: one independent step per clause, bound to its best tool.

A clause whose best tool scores below `min_score` goes to the fallback search tool (the local
documents by default), so a question no tool fits still gets evidence. Otherwise the step keeps
a shortlist (the tools within `SHORTLIST_MARGIN` of the best) for the step agent to choose from.
"""

from __future__ import annotations

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
