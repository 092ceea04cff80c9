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

`route` (RulesRouter) is deterministic: it reads the question's analysis, the tools bound to the
steps and the values their clauses give. `llm_route` (LLMRouter) asks the LLM to choose between
answering directly, asking back, running the plan and searching iteratively; which of single,
parallel and planning a run is stays with the plan's shape. An LLM answer that cannot be had or
used leaves the deterministic decision in place, with a note saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from toolweave.errors import LLMError
from toolweave.language.binding import extract_arguments
from toolweave.language.parameters import param_kind
from toolweave.language.records import PERSON_WORDS
from toolweave.language.text import readable_name
from toolweave.models.base import LLM
from toolweave.models.structured import complete_json
from toolweave.prompts import load_prompt
from toolweave.types import Plan, QuestionAnalysis, Route, Step, ToolSpec

# Inputs only the user can supply: a tool guessing them would answer another question.
USER_INPUT_KINDS = {"place"}


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
    note: str | None = None  # why another router's decision stands, when one was overruled


SMALL_TALK = Decision(Route.DIRECT, "small talk: no tool is needed")


class Router(Protocol):
    """Decides a question's route from its analysis and its plan. `search` is the fallback
    search tool's key ("search.search"), "" for none."""

    async def route(
        self, analysis: QuestionAnalysis, plan: Plan, tools: dict[str, ToolSpec], search: str
    ) -> Decision: ...


class RulesRouter:
    """The deterministic router (ask.router = "rules")."""

    async def route(
        self, analysis: QuestionAnalysis, plan: Plan, tools: dict[str, ToolSpec], search: str
    ) -> Decision:
        return route(analysis, plan, tools, search=search)


class LLMRouter:
    """The LLM's decision (ask.router = "llm"), with the rules' as its fallback."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    async def route(
        self, analysis: QuestionAnalysis, plan: Plan, tools: dict[str, ToolSpec], search: str
    ) -> Decision:
        rules = route(analysis, plan, tools, search=search)
        return await llm_route(analysis.question, plan, rules, self.llm, search=search)


def route(
    analysis: QuestionAnalysis, plan: Plan, tools: dict[str, ToolSpec], *, search: str = ""
) -> Decision:
    """`search` is the fallback search tool's key ("search.search"), "" for none."""
    if analysis.small_talk:
        return SMALL_TALK
    word = analysis.unresolved
    if word and any(s.key != search for s in plan.steps):
        asked = "Who" if word.lower() in PERSON_WORDS else "What"
        why = f"the question points at “{word}” but does not say who or what that is"
        return Decision(Route.CLARIFY, why, f"{asked} do you mean by “{word}”?")
    for step in plan.steps:
        tool = tools.get(step.key)
        if tool is not None and (missing := missing_user_inputs(step, tool)):
            return Decision(
                Route.CLARIFY,
                f"{tool.key} needs {', '.join(missing)}, which the question does not give",
                clarifying_question(step, tool, missing[0]),
            )
    runnable = [step for step in plan.steps if step.problem is None]
    searched = [step for step in runnable if step.key == search]
    if search and runnable and searched == runnable:
        # Searched again only for what the results leave unknown: one round when they answer.
        kind = "a multi-hop question" if analysis.multi_hop else "a question"
        return Decision(
            Route.ITERATIVE, f"{kind} no tool answers: search, read, search again if need be"
        )
    return _shape(plan)


async def llm_route(
    question: str, plan: Plan, rules: Decision, llm: LLM, *, search: str = ""
) -> Decision:
    """The LLM's decision; the rules' decision, with a note saying why, when it is unusable."""
    lines = [
        f"- {step.key}: {step.clause.text}"
        for step in plan.steps
        if step.tool and step.problem is None
    ]
    messages = load_prompt("route").messages(question=question, plan="\n".join(lines) or "(none)")
    try:
        choice = await complete_json(llm, messages, ROUTE_SCHEMA, max_tokens=120)
    except LLMError as exc:
        return _kept(rules, f"the LLM router failed ({exc})")
    text, said = " ".join(choice["text"].split()), "the LLM router chose it"
    if _echoes(text, question):
        return _kept(rules, "the LLM router echoed its prompt")
    if choice["route"] == "direct" and text:
        return Decision(Route.DIRECT, said, reply=text)
    if choice["route"] == "clarify" and text.endswith("?"):
        return Decision(Route.CLARIFY, said, clarification=text)
    if choice["route"] == "iterative" and search and any(s.key == search for s in plan.steps):
        return Decision(Route.ITERATIVE, said)
    if choice["route"] == "tools":
        structural = rules.route in (Route.SINGLE, Route.PARALLEL, Route.PLANNING)
        return rules if structural else _shape(plan)
    return _kept(rules, f"the LLM's {choice} is not usable")


def _kept(rules: Decision, why: str) -> Decision:
    note = f"kept the rules' route {rules.route}: {why}"
    return Decision(rules.route, rules.reason, rules.clarification, rules.reply, note)


def _echoes(text: str, question: str) -> bool:
    """A small model's reply that repeats the question or the prompt is no reply."""
    lowered = text.lower()
    return question.strip(" ?!.").lower() in lowered or "planned tool calls" in lowered


def _shape(plan: Plan) -> Decision:
    """single, parallel or planning, from the plan's steps and dependencies."""
    if any(step.depends_on for step in plan.steps):
        return Decision(Route.PLANNING, "later steps use earlier results")
    runnable = [step for step in plan.steps if step.problem is None]
    if len(runnable) > 1:
        return Decision(Route.PARALLEL, f"{len(runnable)} independent steps")
    return Decision(Route.SINGLE, "one step")


def missing_user_inputs(step: Step, tool: ToolSpec) -> list[str]:
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
    found = extract_arguments(schema, step.clause).arguments
    return [name for name in needed if name not in found]


def clarifying_question(step: Step, tool: ToolSpec, parameter: str) -> str:
    described = (tool.input_schema.get("properties") or {}).get(parameter, {}).get("description")
    what = readable_name(parameter)
    hint = f" ({described.rstrip('.')})" if described else ""
    return f"Which {what} do you mean for “{step.clause.text}”?{hint}"
