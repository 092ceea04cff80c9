"""Run a plan: each step, as soon as the steps it depends on are done, picks its tool, fills its
arguments and calls it (the DAG scheduler, scheduler.py). A failing step becomes an Observation
with an error and never stops the others; a step that did not run (its dependency failed, the
budget ran out) gets one saying why, so the answer can say what was not done.

Before a call, the side-effect policy (policy.py) may refuse it: a tool that may destroy data
without consent, or anything not read-only in a dry run; the refusal is the step's observation.

Self-reflection: a step whose tool cannot be given its required arguments asks `reflect` (the
index searched again with the step's own words, deeper than its shortlist) for other tools and
takes the first whose arguments it can fill.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from typing import Any, Protocol

from toolweave.catalog.connections import CallOutcome
from toolweave.execution.policy import Policy
from toolweave.execution.scheduler import Budget, Event, Scheduler
from toolweave.execution.step_agent import prepare_step
from toolweave.models.base import LLM
from toolweave.planning.references import UnresolvedReference, resolve
from toolweave.types import Candidate, Observation, Plan, ProblemKind, Step, ToolSpec

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
) -> list[Observation]:
    by_key = {t.key: t for t in tools}
    policy = policy or Policy()

    async def reconsider(step: Step) -> None:
        """Another tool for a step whose arguments do not fit its own, if one fits."""
        if reflect is None or "reference" in step.argument_origins.values():
            return  # references fit the planned tool only
        tried = step.key
        for candidate in await reflect(step):
            if candidate.tool.key == tried or candidate.tool.key not in by_key:
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
        try:  # "{{s1.result.city}}" in an argument becomes what s1 returned
            step.arguments = resolve(step.arguments, {k: _result(o) for k, o in inputs.items()})
        except UnresolvedReference as exc:
            return Observation.of(step, error=str(exc))
        given = dict(step.arguments)
        await prepare_step(step, by_key, llm)
        if step.problem is not None and step.problem.kind == ProblemKind.ARGUMENTS:
            step.arguments = given
            await reconsider(step)
        if step.problem is not None:  # nothing was called
            return Observation.of(step, error=f"not run: {step.problem}")
        if refusal := await policy.refusal(step, by_key[step.key]):
            return Observation.of(step, error=refusal)
        on_progress(f"calling {step.key}")
        outcome = await caller.call(step.server, step.tool, step.arguments)
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
    )
    result = await scheduler.run(plan)
    return [
        result.observations.get(step.id)
        or Observation.of(step, error=f"not done: {result.not_done.get(step.id, 'not run')}")
        for step in plan.steps
    ]


def _result(observation: Observation) -> Any:
    """What a later step can refer to: the structured result, else the text, read as JSON when
    it is a JSON object or list (many servers put their result there)."""
    if observation.structured is not None:
        return observation.structured
    if observation.text.lstrip().startswith(("{", "[")):
        with suppress(json.JSONDecodeError):
            return json.loads(observation.text)
    return observation.text
