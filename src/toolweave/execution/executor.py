"""Run a plan: each step, as soon as the steps it depends on are done, picks its tool, fills its
arguments and calls it (the DAG scheduler, scheduler.py). A failing step becomes an Observation
with an error and never stops the others; a step that did not run (its dependency failed, the
budget ran out) gets one saying why, so the answer can say what was not done.

Before a call, the side-effect policy (policy.py) may refuse it: a tool that may destroy data
without consent, or anything not read-only in a dry run; the refusal is the step's observation.
After it, a tool that changes things and answered nothing but a one-line error message has
failed (mcp-server-sqlite reports bad SQL as a result, not with isError).

Written from what was read: a change that lacks a value the request does not give but points at
what the request's earlier parts read ("what did Alice order? -> note it on Alice") waits for
those reads and is filled from them (arguments.py checks that what the model wrote stands there).

Self-reflection: a step whose tool cannot be given its required arguments asks `reflect` (the
index searched again with the step's own words, deeper than its shortlist) for other tools and
takes the first whose arguments it can fill.

Recovery: a step whose call failed (an error, a timeout) is run once more with a stand-in, when
a tool graph is given: a tool the graph saw answer after this one failed, else one of the
`alternatives` (the engine's: tools the index finds for the step that say what the failed tool
says) that takes the same inputs, or, when the server says the path is a folder ("EISDIR"), one
of its tools named for folders. Only between tools that only read, so nothing is done twice;
the stand-in keeps the step's values its schema names, and the clause must give the rest. The
scheduler reports it ("replaced"); the observation names the tool that answered.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any, Protocol

from toolweave.catalog.connections import CallOutcome
from toolweave.execution.arguments import unsaid
from toolweave.execution.policy import Policy, reads_only
from toolweave.execution.scheduler import Budget, Event, Scheduler
from toolweave.execution.step_agent import prepare_step
from toolweave.language.binding import (
    extract_arguments,
    feasibility,
    names_folders,
    other_kind_of_path,
)
from toolweave.language.cues import asks_for_action, names_the_other_thing, points_back
from toolweave.language.numbers import numbers
from toolweave.language.parameters import (
    LOCATOR_KINDS,
    changes_things,
    json_type,
    param_kind,
    place_role,
)
from toolweave.language.records import found_thing
from toolweave.language.text import readable_name
from toolweave.models.base import LLM
from toolweave.navigation.graph import NEUTRAL, ToolGraph
from toolweave.planning.references import UnresolvedReference, resolve, whole_references
from toolweave.retrieval.tool_select import finds_nothing
from toolweave.types import Candidate, Observation, Plan, Problem, ProblemKind, Step, ToolSpec

Reflect = Callable[[Step], Awaitable[list[Candidate]]]


class ToolCaller(Protocol):
    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome: ...


async def run_plan(
    plan: Plan,
    tools: list[ToolSpec],
    caller: ToolCaller,
    llm: LLM,
    *,
    budget: Budget | None = None,
    sequential: bool = False,
    on_progress: Callable[[str], None] = lambda _: None,
    on_event: Callable[[Event], None] = lambda _: None,
    reflect: Reflect | None = None,
    policy: Policy | None = None,
    graph: ToolGraph | None = None,
    alternatives: Reflect | None = None,
) -> list[Observation]:
    by_key = {t.key: t for t in tools}
    policy = policy or Policy()
    called: set[str] = set()  # steps whose tool was called
    others: dict[str, list[Candidate]] = {}  # a failed read's step: tools that read alike

    async def reconsider(step: Step) -> None:
        """Another tool for a step whose arguments do not fit its own, if one fits."""
        if reflect is None or "reference" in step.argument_origins.values():
            return  # references fit the planned tool only
        tried = step.key
        # A change asked for stays a change: "insert a new order into the orders table" with no
        # values is asked about, not answered by listing the tables.
        change = tried in by_key and changes_things(by_key[tried])
        for candidate in await reflect(step):
            if candidate.tool.key == tried or candidate.tool.key not in by_key:
                continue
            if finds_nothing(candidate):  # "Weather CLI" is not held: no observation added to it
                continue
            if change and not changes_things(candidate.tool):
                continue
            if change and names_the_other_thing(candidate.tool, by_key[tried], step.clause):
                continue  # "remove the observation that she likes hiking": not Alice herself
            if changes_things(candidate.tool) and not (
                asks_for_action(candidate.tool, step.clause.text)
                and feasibility(candidate.tool, step.clause) == 1.0
                and not other_kind_of_path(candidate.tool, step.clause)
            ):
                # Only a change the clause asks for and gives all the values of ("add Globex":
                # no delete_entities; "the peanut allergy note on Bob is wrong, delete it": not
                # Bob; "add a customer to the database": no memo whose text is those words), on
                # the kind of path it gives ("create a.txt": no create_directory).
                continue
            other = step.model_copy(
                update={
                    "server": candidate.tool.server,
                    "tool": candidate.tool.name,
                    "candidates": [candidate],
                    "problem": None,
                }
            )
            await prepare_step(other, by_key, llm)
            if other.problem is None:
                on_progress(f"{step.id}: {tried} could not be called; {candidate.tool.key} can")
                fields = ("server", "tool", "arguments", "argument_origins", "argument_spans")
                for name in (*fields, "candidates"):
                    setattr(step, name, getattr(other, name))
                step.problem = None
                return

    async def run(step: Step, inputs: Mapping[str, Observation]) -> Observation:
        called.discard(step.id)  # a stand-in starts afresh
        wholes = whole_references(step.arguments)
        results = {k: o.data for k, o in inputs.items()}
        try:  # "{{s1.result.city}}" in an argument becomes what s1 returned
            step.arguments = resolve(step.arguments, results)
        except UnresolvedReference as exc:
            return Observation.of(step, error=str(exc))
        if step.key in by_key:
            _as_declared(step.arguments, wholes, by_key[step.key], inputs, results)
            if problem := _no_locator(step.arguments, wholes, by_key[step.key]):
                return Observation.of(step, error=f"not run: {problem}")
        given = dict(step.arguments)
        # Each read as its request and what came back: "what did Ada order? → [...]".
        read = [
            f"{clauses[i]} → {inputs[i].text}" for i in composed.get(step.id, []) if i in inputs
        ]
        await prepare_step(step, by_key, llm, read)
        if step.problem is not None and step.problem.kind == ProblemKind.ARGUMENTS:
            step.arguments = given
            await reconsider(step)
            if step.problem is not None and step.key in by_key:
                step.problem = unsaid(by_key[step.key], step.clause, given) or step.problem
        if step.problem is not None:  # nothing was called
            return Observation.of(step, error=f"not run: {step.problem}")
        if refusal := await policy.refusal(step, by_key[step.key]):
            return Observation.of(step, error=refusal)
        on_progress(f"calling {step.key}")
        called.add(step.id)
        outcome = await caller.call(step.server, step.tool, step.arguments)
        if outcome.error is None and not reads_only(by_key[step.key]):
            outcome.error = says_it_failed(outcome.text)
        failed_read = outcome.error and graph is not None and reads_only(by_key[step.key])
        if failed_read and _A_FOLDER.search(outcome.error or ""):
            # "EISDIR": the path is a folder; a tool of the same server named for folders reads
            # it ("contents of /srv/projects?" and read_text_file, then list_directory).
            others[step.id] = [
                Candidate(tool=t, score=0.0, matched="a folder")
                for t in tools
                if t.server == step.server and names_folders(t)
            ]
        elif failed_read and alternatives is not None and step.id not in others:
            others[step.id] = await alternatives(step)
        return Observation.of(
            step,
            text=outcome.text,
            structured=outcome.structured,
            error=outcome.error,
            latency_ms=outcome.latency_ms,
        )

    def retryable(step: Step, _observation: Observation) -> bool:
        # Calling twice is only harmless for a tool that says it only reads.
        tool = by_key.get(step.key)
        return step.problem is None and tool is not None and tool.hints.read_only is True

    scheduler = Scheduler(
        run,
        retryable=retryable,
        budget=budget,
        tokens_used=lambda: llm.usage.prompt_tokens + llm.usage.completion_tokens,
        sequential=sequential,
        # The MCP call timeout (mcp.call_timeout_s) ends a hung call first, with its own message.
        step_timeout_s=120.0,
        on_event=on_event,
        on_failure=lambda step, _: (
            stand_in(step, by_key, graph, others.get(step.id, step.candidates))
            if step.id in called
            else None
        ),
    )
    composed = _written_from_reads(plan, by_key)
    clauses = {step.id: step.clause.text for step in plan.steps}
    _wait_for_what_is_unsaid(plan, by_key, composed)
    result = await scheduler.run(plan)
    return [
        _called(result.observations[step.id], step.id in called)
        if step.id in result.observations
        else Observation.of(step, error=f"not done: {result.not_done.get(step.id, 'not run')}")
        for step in plan.steps
    ]


def _written_from_reads(plan: Plan, by_key: Mapping[str, ToolSpec]) -> dict[str, list[str]]:
    """The changes that lack a value the request does not give but point at what its earlier
    requests read ("what did Alice order? -> note it on Alice in memory", "get the phone number
    from <url> and remember it under Rosa's Bakery"), each with the reads it is written from;
    they wait for those reads. A read the planner added on its own is none of them: only the
    user's own earlier requests count."""
    composed: dict[str, list[str]] = {}
    for step in plan.steps:
        tool = by_key.get(step.key)
        if step.problem is not None or tool is None or not changes_things(tool):
            continue
        # (or at someone a read finds: "... and add the project's owner to my knowledge graph")
        pointing = points_back(step.clause.text) or found_thing(step.clause) is not None
        if not pointing or unsaid(tool, step.clause, step.arguments) is None:
            continue
        reads = [
            s.id
            for s in plan.steps
            if s.clause.index < step.clause.index
            and s.problem is None
            and s.key in by_key
            and not changes_things(by_key[s.key])
            and step.id not in s.depends_on
        ]
        if reads:
            composed[step.id] = reads
            step.depends_on = list(dict.fromkeys([*step.depends_on, *reads]))
    return composed


def _wait_for_what_is_unsaid(
    plan: Plan, by_key: Mapping[str, ToolSpec], composed: Collection[str] = ()
) -> None:
    """When a change of the plan lacks a value the user must say ("stage app.py and commit it
    with that message"), its other changes wait too: the user is asked before anything is
    changed, not after half of it. A change written from what was read (`composed`) lacks
    nothing yet."""
    changes = [
        (step, by_key[step.key])
        for step in plan.steps
        if step.problem is None
        and step.key in by_key
        and changes_things(by_key[step.key])
        and step.id not in composed
    ]
    unsaid_by = {step.id: unsaid(tool, step.clause, step.arguments) for step, tool in changes}
    if len(changes) < 2 or not any(unsaid_by.values()):
        return  # one change alone may still be written by the step agent
    for step, _ in changes:
        held = Problem(kind=ProblemKind.WAITING, text="nothing changed until that is said")
        step.problem = unsaid_by[step.id] or held


def stand_in(
    step: Step, by_key: dict[str, ToolSpec], graph: ToolGraph | None, others: list[Candidate]
) -> Step | None:
    """The step again with another tool, for a failed call (see Recovery above), or None."""
    failed = by_key.get(step.key)
    if graph is None or failed is None or not reads_only(failed):
        return None
    learned = [key for key, weight in graph.stand_ins(step.key) if weight >= NEUTRAL]
    inputs = set(failed.input_schema.get("properties") or {})
    alike = [c.tool.key for c in others if set(_required(c.tool)) <= inputs]
    for key in dict.fromkeys([*learned, *alike]):
        other = by_key.get(key)
        if other is None or key == step.key or not reads_only(other):
            continue
        if key not in learned and graph.health(key) < NEUTRAL:
            continue  # a tool that has failed more than it worked is no stand-in
        kept = _only(step.arguments, other.input_schema.get("properties") or {})
        given = extract_arguments(other.input_schema, step.clause).arguments
        if all(name in kept or name in given for name in _required(other)):
            return step.model_copy(
                update={
                    "server": other.server,
                    "tool": other.name,
                    "arguments": kept,
                    "argument_origins": _only(step.argument_origins, kept),
                    "argument_spans": _only(step.argument_spans, kept),
                    "candidates": [Candidate(tool=other, score=1.0, matched="stands in")],
                    "problem": None,
                }
            )
    return None


def _required(tool: ToolSpec) -> list[str]:
    return list(tool.input_schema.get("required") or [])


def _only(values: dict[str, Any], names: Collection[str]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k in names}


def _called(observation: Observation, called: bool) -> Observation:
    return observation.model_copy(update={"called": True}) if called else observation


_A_FOLDER = re.compile(r"\bEISDIR\b|\bis a directory\b", re.IGNORECASE)


# A one-line result that is an error message ("Database error: near "delete": syntax error"):
# some servers report a failed change as a result, not with isError.
_ERROR_LINE = re.compile(r"^(?:[\w-]+\s)?(?:error|exception)\s*:|^failed\b", re.IGNORECASE)
MAX_ERROR_CHARS = 300


def says_it_failed(text: str) -> str | None:
    """The text as an error, when a tool that changes things answered only an error message:
    a change reported as done that was not is worse than a read that looks like one."""
    text = text.strip()
    if "\n" in text or len(text) > MAX_ERROR_CHARS or not _ERROR_LINE.match(text):
        return None
    return text


def _no_locator(arguments: dict[str, Any], wholes: dict[str, str], tool: ToolSpec) -> str | None:
    """An earlier result given whole to a parameter that takes a path, an address or a place
    ("rename it to b.txt" after reading the file: its text is no `source`), when it is not one
    line: the call would act on a text nobody wrote as a name."""
    properties = tool.input_schema.get("properties") or {}
    for name, producer in wholes.items():
        value = arguments.get(name)
        takes = param_kind(name, properties.get(name, {})) in LOCATOR_KINDS or place_role(name)
        if takes and isinstance(value, str) and "\n" in value.strip():
            return f"what {producer} returned is no {readable_name(name)} for {tool.key}"
    return None


def _as_declared(
    arguments: dict[str, Any],
    wholes: dict[str, str],
    tool: ToolSpec,
    inputs: Mapping[str, Observation],
    results: Mapping[str, Any],
) -> None:
    """An earlier result given whole to a parameter, as the parameter's type takes it: text for
    a string (what the tool said, or a part of it as JSON), and for a number the one number its
    text adds to what its step was given ("The sum of 1234 and 4321 is 5555." gives 5555; none
    or several: as it is, for the schema to refuse)."""
    properties = tool.input_schema.get("properties") or {}
    for name, producer in wholes.items():
        kind, value = json_type(properties.get(name, {})), arguments.get(name)
        source = inputs.get(producer)
        if source is None:
            continue
        if kind == "string" and isinstance(value, dict | list):
            whole = value == results[producer] and source.text
            text = json.dumps(value, ensure_ascii=False, indent=2)
            arguments[name] = source.text if whole else text
        elif kind in ("number", "integer") and isinstance(value, str | dict | list):
            said = value if isinstance(value, str) else source.text
            given = [n.value for v in source.arguments.values() for n in numbers(str(v))]
            new = {n.value for n in numbers(said)} - set(given)
            if len(new) == 1:
                arguments[name] = new.pop()
