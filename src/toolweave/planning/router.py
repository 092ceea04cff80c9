"""The strategy router: how much effort a question gets, decided from its plan before anything
runs.

    direct    small talk: no tool, no search
    clarify   a step's tool needs something only the user can say (which city?) and neither the
              question nor an earlier step gives it: ask one specific question instead of letting
              a model invent it
    single    one step
    parallel  several independent steps, run together
    iterative a multi-hop question that only search can answer: search, read, search again
              with what was learnt (SRSA's planning search)
    planning  steps that feed each other (the plan has dependencies)

`route` is deterministic: it reads the clauses, the tools bound to them and what the extractors
find. `llm_route` asks the LLM (ask.router = "llm") to choose between answering directly,
asking back, running the plan and searching iteratively; which of single, parallel and planning a
run is stays with the plan's shape. An LLM answer that cannot be had or used leaves the
deterministic decision in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

from toolweave.catalog.documents import readable_name
from toolweave.errors import LLMError
from toolweave.execution.arguments import extract_arguments, param_kind
from toolweave.models.base import LLM
from toolweave.models.structured import complete_json
from toolweave.prompts import load_prompt
from toolweave.types import Plan, Step, ToolSpec

Route = Literal["direct", "clarify", "single", "parallel", "iterative", "planning"]
# Inputs only the user can supply: a tool guessing them would answer another question.
USER_INPUT_KINDS = {"place"}
# Multi-hop cues (SRSA's planning search): a comparison of two named things, or a thing named
# through another fact ("the director of the film that ...", "the city where X was born").
_COMPARISON = re.compile(
    r"\b(?:which|who|what)\b.*\b(?:older|younger|first|earlier|later|larger|bigger|smaller|"
    r"longer|shorter|higher|taller|more|less|fewer|closer|farther|further)\b.*\bor\b|"
    r"^(?:are|were|is|was|do|did|does)\b.*\band\b.*\b(?:both|same|either)\b|"
    r"\bboth\b.*\band\b",
    re.IGNORECASE,
)
_BRIDGE = re.compile(
    r"\b(?:the|a|an)\s+(?:\w+\s+){0,3}?(?:that|which|who|whose|where|when)\s+(?!is\b|are\b)"
    r"|\b(?:of|by|for|in)\s+the\s+(?:\w+\s+){0,3}?(?:of|by)\s+(?:the\s+)?[A-Z]",
    re.IGNORECASE,
)
# A person or work reached through another: "the singer of Miss Emily's Picture", "Lewis
# Young's older brother". Case-sensitive: the second name is capitalised or quoted.
_RELATION = (
    r"(?:brother|sister|father|mother|son|daughter|wife|husband|partner|spouse|founder|director|"
    r"author|singer|creator|writer|producer|owner|composer|successor|predecessor|band|team|album)"
)
_THROUGH = re.compile(
    rf"\b[Tt]he\s+(?:\w+\s+)?{_RELATION}s?\s+(?:of|for|in)\s+(?:the\s+)?[A-Z\"“]"
    rf"|\b[A-Z][\w.]*(?:'s|’s)\s+(?:\w+\s+)?{_RELATION}s?\b"
)
SMALL_TALK = re.compile(
    r"^\s*(hi|hello|hey|thanks|thank you|thx|good (morning|afternoon|evening)|bye|goodbye)"
    r"( there| a lot| so much)?\s*[!.?]*\s*$",
    re.IGNORECASE,
)


ROUTE_SCHEMA = {
    "type": "object",
    "properties": {
        "route": {"type": "string", "enum": ["direct", "clarify", "tools", "iterative"]},
        "text": {"type": "string", "maxLength": 300},
    },
    "required": ["route", "text"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Decision:
    route: Route
    reason: str
    clarification: str | None = None  # the question to ask back (route "clarify")
    reply: str | None = None  # the answer itself (route "direct", when an LLM wrote one)


def route(
    question: str, plan: Plan, tools: dict[str, ToolSpec], today: date, *, search: str = ""
) -> Decision:
    """`search` is the fallback search tool's key ("search.search"), "" for none."""
    if SMALL_TALK.match(question):
        return Decision("direct", "small talk: no tool is needed")
    for step in plan.steps:
        tool = tools.get(f"{step.server}.{step.tool}")
        if tool is not None and (missing := missing_user_inputs(step, tool, today)):
            return Decision(
                "clarify",
                f"{tool.key} needs {', '.join(missing)}, which the question does not give",
                clarifying_question(step, tool, missing[0]),
            )
    runnable = [step for step in plan.steps if step.problem is None]
    searched = [step for step in runnable if f"{step.server}.{step.tool}" == search]
    if search and runnable and searched == runnable and is_multi_hop(question):
        return Decision(
            "iterative", "a multi-hop question no tool answers: search, read, search again"
        )
    return _shape(plan)


def is_multi_hop(question: str) -> bool:
    """Whether answering needs a fact found through another one (or two facts compared)."""
    return any(cue.search(question) for cue in (_COMPARISON, _BRIDGE, _THROUGH))


async def llm_route(
    question: str, plan: Plan, rules: Decision, llm: LLM, *, search: str = ""
) -> tuple[Decision, str | None]:
    """The LLM's decision, and a note when the rules' decision stands instead (and why)."""
    lines = [
        f"- {step.server}.{step.tool}: {step.subquery.text}"
        for step in plan.steps
        if step.tool and step.problem is None
    ]
    messages = load_prompt("route").messages(question=question, plan="\n".join(lines) or "(none)")
    try:
        choice = await complete_json(llm, messages, ROUTE_SCHEMA, max_tokens=120)
    except LLMError as exc:
        return rules, f"kept the rules' route {rules.route}: the LLM router failed ({exc})"
    text, said = " ".join(choice["text"].split()), "the LLM router chose it"
    if _echoes(text, question):
        return rules, f"kept the rules' route {rules.route}: the LLM router echoed its prompt"
    if choice["route"] == "direct" and text:
        return Decision("direct", said, reply=text), None
    if choice["route"] == "clarify" and text.endswith("?"):
        return Decision("clarify", said, clarification=text), None
    if (
        choice["route"] == "iterative"
        and search
        and any(f"{s.server}.{s.tool}" == search for s in plan.steps)
    ):
        return Decision("iterative", said), None
    if choice["route"] == "tools":
        structural = rules if rules.route in ("single", "parallel", "planning") else None
        return structural or _shape(plan), None
    return rules, f"kept the rules' route {rules.route}: the LLM's {choice} is not usable"


def _echoes(text: str, question: str) -> bool:
    """A small model's reply that repeats the question or the prompt is no reply."""
    lowered = text.lower()
    return question.strip(" ?!.").lower() in lowered or "planned tool calls" in lowered


def _shape(plan: Plan) -> Decision:
    """single, parallel or planning, from the plan's steps and dependencies."""
    if any(step.depends_on for step in plan.steps):
        return Decision("planning", "later steps use earlier results")
    runnable = [step for step in plan.steps if step.problem is None]
    if len(runnable) > 1:
        return Decision("parallel", f"{len(runnable)} independent steps")
    return Decision("single", "one step")


def missing_user_inputs(step: Step, tool: ToolSpec, today: date) -> list[str]:
    """Required parameters only the user can fill that neither the plan nor the clause fills."""
    schema = tool.input_schema
    properties = schema.get("properties") or {}
    needed = [
        name
        for name in schema.get("required") or []
        if name not in step.arguments
        and param_kind(name, properties.get(name, {})) in USER_INPUT_KINDS
    ]
    if not needed:
        return []
    found = extract_arguments(schema, step.subquery.text, today).arguments
    return [name for name in needed if name not in found]


def clarifying_question(step: Step, tool: ToolSpec, parameter: str) -> str:
    described = (tool.input_schema.get("properties") or {}).get(parameter, {}).get("description")
    what = readable_name(parameter)
    hint = f" ({described.rstrip('.')})" if described else ""
    return f"Which {what} do you mean for “{step.subquery.text}”?{hint}"
