"""A second look at the clauses no tool fits by the rules (`ask.tool_pick = "llm"`).

The rules compare a clause with a tool's description (`fit`); a terse description ("Read the
entire knowledge graph") may fit "what do you know about Bob?" in meaning and still score low.
Such a clause, sent to the fallback search by the planner, is shown to the LLM with its
candidates; it picks one, or none, and the clause is then searched as before. A tool that
changes something the clause does not ask for is never offered.
"""

from __future__ import annotations

from toolweave.errors import LLMError
from toolweave.language.text import readable_name, sentences
from toolweave.models.base import LLM
from toolweave.models.structured import complete_json
from toolweave.prompts import load_prompt
from toolweave.retrieval.tool_select import fit
from toolweave.types import Candidate, Plan, Step, ToolSpec


async def pick_tools(
    plan: Plan, candidates: list[list[Candidate]], fallback: ToolSpec, llm: LLM
) -> tuple[Plan, list[str]]:
    """A copy of `plan` whose fallback steps are bound to the tool the LLM picks, if any."""
    plan = plan.model_copy(deep=True)
    notes = []
    for step in plan.steps:
        if step.key != fallback.key or step.depends_on:
            continue
        offered = [
            c
            for rank, c in enumerate(candidates[step.clause.index])
            if c.tool.key != fallback.key and fit(c, step.clause, rank) > -1
        ]
        chosen = await _pick(step, offered, llm) if offered else None
        if chosen is not None:
            step.server, step.tool = chosen.tool.server, chosen.tool.name
            step.candidates, step.arguments, step.argument_origins = [chosen], {}, {}
            notes.append(f"{step.id}: no tool fit by its description; the LLM chose {step.key}")
    return plan, notes


async def _pick(step: Step, offered: list[Candidate], llm: LLM) -> Candidate | None:
    tools = "\n".join(f"{n}. {_summary(c.tool)}" for n, c in enumerate(offered, 1))
    messages = load_prompt("pick_tool").messages(request=step.clause.text, tools=tools)
    schema = {
        "type": "object",
        "properties": {"tool": {"enum": list(range(len(offered) + 1))}},
        "required": ["tool"],
    }
    try:
        number = (await complete_json(llm, messages, schema))["tool"]
    except LLMError:
        return None  # no LLM, or no usable answer: the rules' plan stands
    return offered[number - 1] if number else None


def _summary(tool: ToolSpec) -> str:
    first = sentences(tool.description)[:1]
    return f"{readable_name(tool.name)} ({tool.server}): {first[0] if first else ''}".rstrip(": ")
