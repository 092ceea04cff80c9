"""The LLM planner: TURA-style tasks with "T1->T2" dependencies, constrained by a JSON schema.

The model sees the question, its clauses and the candidate tools, and answers with the action
only (no reasoning text, as TURA's executor does): tasks T1..Tn, each bound to one offered tool
(an enum, so a small model cannot invent one), with arguments that may use an earlier task's
result (`{{T1.result.city}}`), and dependencies given per task (`depends_on`), as "T1->T2" edges,
or both (merged). The tasks become steps s1..sN, checked and repaired by `validate_plan`.

Without an LLM, or when its output stays invalid (or it cannot be reached), the deterministic
planner plans instead, and the notes say why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from toolweave.catalog.documents import clip
from toolweave.errors import LLMError
from toolweave.language import clause_of
from toolweave.language.parameters import json_type
from toolweave.language.text import sentences
from toolweave.models.base import LLM
from toolweave.models.structured import complete_json
from toolweave.planning.planner import PlanRequest, deterministic_plan
from toolweave.planning.references import rename_references
from toolweave.planning.validate import PlanCheck, validate_plan
from toolweave.prompts import load_prompt
from toolweave.types import Candidate, Plan, Step, ToolSpec

# A longer list costs a small model its context and its attention.
MAX_TOOLS = 12
DESCRIPTION_CHARS = 120
INSTRUCTION_CHARS = 200
# Output budget per task: a task's JSON takes 50-80 tokens; the rest is slack for long values.
TOKENS_PER_TASK = 120
DEPENDENCY_PATTERN = "^T[0-9]+->T[0-9]+$"


@dataclass
class LLMPlan:
    """The checked plan (`check.repairs`, `check.problems`), who made it, and notes on how."""

    check: PlanCheck
    by_llm: bool
    notes: list[str] = field(default_factory=list)
    # The LLM's schema-valid answer, kept for traces (None when the fallback planned).
    output: Any = None

    @property
    def plan(self) -> Plan:
        return self.check.plan


class LLMPlanner:
    """TURA-style planning by the LLM (ask.planner = "llm"), the deterministic planner as its
    fallback."""

    def __init__(self, llm: LLM, max_steps: int = 8) -> None:
        self.llm, self.max_steps = llm, max_steps

    async def plan(self, request: PlanRequest) -> tuple[Plan, list[str]]:
        made = await llm_plan(request, self.llm, max_steps=self.max_steps)
        return made.plan, [*made.notes, *made.check.repairs, *made.check.problems]


async def llm_plan(request: PlanRequest, llm: LLM, *, max_steps: int = 8) -> LLMPlan:
    """Plan with `llm`. The deterministic planner (over the connected tools, or the offered
    ones when none are given) plans instead when the LLM cannot."""
    if max_steps < 1:
        raise ValueError(f"max_steps must be at least 1, not {max_steps}")
    candidates = request.candidates
    tools = offered_tools(candidates, request.fallback)
    servers = {c.tool.server for row in candidates for c in row} | {
        t.server for t in tools.values()
    }

    def deterministic(why: str) -> LLMPlan:
        plan, linked = deterministic_plan(request, request.connected or tools)
        note = f"the deterministic planner planned instead: {why}"
        return LLMPlan(validate_plan(plan, servers), by_llm=False, notes=[note, *linked])

    if not tools:
        return deterministic("no candidate tool to offer the LLM")
    clauses = request.analysis.clauses
    messages = load_prompt("plan").messages(
        question=request.analysis.question,
        clauses="\n".join(f"{c.index + 1}. {c.text}" for c in clauses) or "(none)",
        tools="\n".join(tool_line(tool) for tool in tools.values()),
    )
    schema = plan_schema(list(tools.values()), max_steps)
    try:
        output = await complete_json(llm, messages, schema, max_tokens=TOKENS_PER_TASK * max_steps)
    except LLMError as exc:
        return deterministic(str(exc))
    best = _best_candidates(candidates)
    plan, notes = tasks_to_plan(output, tools, best, request.analysis.today)
    return LLMPlan(validate_plan(plan, servers), by_llm=True, notes=notes, output=output)


def offered_tools(
    candidates: list[list[Candidate]], fallback: ToolSpec | None
) -> dict[str, ToolSpec]:
    """The tools the LLM may use, by key: every clause's best, then every clause's second best,
    and so on (so that no clause loses its best tool to another's runners-up), by score within
    a rank; at most MAX_TOOLS, and the fallback tool besides."""
    ranked = sorted(
        ((rank, candidate) for row in candidates for rank, candidate in enumerate(row)),
        key=lambda item: (item[0], -item[1].score),
    )
    tools: dict[str, ToolSpec] = {}
    for _, candidate in ranked:
        if len(tools) == MAX_TOOLS:
            break
        tools.setdefault(candidate.tool.key, candidate.tool)
    if fallback is not None:
        tools.setdefault(fallback.key, fallback)
    return tools


def tool_line(tool: ToolSpec) -> str:
    """'- weather.forecast: Returns the forecast. Needs: city (string), days (integer)'."""
    summary = clip((sentences(tool.description) or ["(no description)"])[0], DESCRIPTION_CHARS)
    properties = tool.input_schema.get("properties") or {}
    needs = [
        f"{name} ({json_type(properties.get(name) or {})})"
        for name in tool.input_schema.get("required") or []
    ]
    return f"- {tool.key}: {summary} Needs: {', '.join(needs) or 'nothing'}"


def plan_schema(tools: list[ToolSpec], max_steps: int) -> dict[str, Any]:
    """The answer's schema: small, so that a llama.cpp grammar made from it stays small."""
    task_id = {"type": "string", "enum": [f"T{n}" for n in range(1, max_steps + 1)]}
    # Any offered tool's parameter names (one schema per tool would multiply the grammar); flat
    # values, since nested ones let a small model ramble until its token budget ends.
    value = {"type": ["string", "number", "boolean"]}
    names = dict.fromkeys(
        name for tool in tools for name in tool.input_schema.get("properties") or {}
    )
    task = {
        "type": "object",
        "properties": {
            "id": task_id,
            "instruction": {"type": "string", "minLength": 1, "maxLength": INSTRUCTION_CHARS},
            "tool": {"type": "string", "enum": [tool.key for tool in tools]},
            "arguments": {
                "type": "object",
                "properties": dict.fromkeys(names, value),
                "additionalProperties": False,
            },
            "depends_on": {"type": "array", "items": task_id, "maxItems": max_steps},
        },
        "required": ["id", "instruction", "tool", "arguments", "depends_on"],
        "additionalProperties": False,
    }
    edge = {"type": "string", "pattern": DEPENDENCY_PATTERN}
    return {
        "type": "object",
        "properties": {
            "tasks": {"type": "array", "items": task, "minItems": 1, "maxItems": max_steps},
            "dependencies": {"type": "array", "items": edge},
        },
        "required": ["tasks"],
        "additionalProperties": False,
    }


def _best_candidates(candidates: list[list[Candidate]]) -> dict[str, Candidate]:
    """Each tool's best-scoring candidate, by key."""
    ascending = sorted((c for row in candidates for c in row), key=lambda c: c.score)
    return {c.tool.key: c for c in ascending}  # a later, higher score replaces a lower one


def tasks_to_plan(
    output: dict[str, Any], tools: dict[str, ToolSpec], best: dict[str, Candidate], today: date
) -> tuple[Plan, list[str]]:
    """Steps s1..sN in task order, T-ids rewritten to s-ids; notes on what did not carry over.

    Unknown T-ids are left as they are, for validate_plan to drop (a dependency) or flag (a
    reference). A T-id used twice means its first task, as validate_plan treats step ids.
    """
    tasks = output["tasks"]
    notes: list[str] = []
    position = _positions(tasks, notes)
    needs = _needs(tasks, output.get("dependencies", []), position, notes)
    ids = {task_id: f"s{number + 1}" for task_id, number in position.items()}
    steps = []
    for number, task in enumerate(tasks):
        step_id, tool = f"s{number + 1}", tools[task["tool"]]
        arguments = _arguments(task["arguments"], tool, step_id, notes)
        steps.append(
            Step(
                id=step_id,
                # The LLM's instruction is new text: its values are read here, once.
                clause=clause_of(number, task["instruction"], today),
                server=tool.server,
                tool=tool.name,
                arguments=rename_references(arguments, ids),
                argument_origins=dict.fromkeys(arguments, "llm"),
                depends_on=[ids.get(need, need) for need in needs[number]],
                # Only the chosen tool: a longer shortlist would let the step agent overrule it.
                candidates=[best[tool.key]] if tool.key in best else [],
            )
        )
    return Plan(steps=steps), notes


def _positions(tasks: list[dict[str, Any]], notes: list[str]) -> dict[str, int]:
    """Each T-id's task position (its first, when a small model repeats an id)."""
    position: dict[str, int] = {}
    for number, task in enumerate(tasks):
        if task["id"] in position:
            first = position[task["id"]] + 1
            notes.append(f"two tasks had the id {task['id']}: it means the first one, s{first}")
        position.setdefault(task["id"], number)
    return position


def _needs(
    tasks: list[dict[str, Any]], edges: list[str], position: dict[str, int], notes: list[str]
) -> list[list[str]]:
    """The T-ids each task needs, from its `depends_on` and the "T1->T2" edges, once each."""
    needs = [list(task["depends_on"]) for task in tasks]
    for edge in edges:
        before, _, after = edge.partition("->")
        if after in position:
            needs[position[after]].append(before)
        else:
            notes.append(f"the dependency {edge} names no task {after}: dropped it")
    # Given both ways, a dependency is one dependency, not a defect for validate_plan to repair.
    return [list(dict.fromkeys(row)) for row in needs]


def _arguments(
    given: dict[str, Any], tool: ToolSpec, step_id: str, notes: list[str]
) -> dict[str, Any]:
    """The arguments the chosen tool has (the schema allows any offered tool's names)."""
    known = tool.input_schema.get("properties") or {}
    if foreign := [name for name in given if name not in known]:
        notes.append(f"{step_id}: {tool.key} has no parameter {', '.join(foreign)}: dropped it")
    return {name: value for name, value in given.items() if name in known}
