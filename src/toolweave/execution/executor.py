"""Run a plan: every step picks its tool, fills its arguments and calls it, all concurrently.

The skeleton's steps are independent (no data flows between them), so they simply run together;
a failing step becomes an Observation with an error and never stops the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import date
from typing import Any, Protocol

from toolweave.catalog.connections import CallOutcome
from toolweave.execution.step_agent import prepare_step
from toolweave.models.base import LLM
from toolweave.types import Observation, Plan, Step, ToolSpec


class ToolCaller(Protocol):
    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallOutcome: ...


async def run_plan(
    plan: Plan,
    tools: list[ToolSpec],
    caller: ToolCaller,
    llm: LLM,
    *,
    today: date,
    on_progress: Callable[[str], None] = lambda _: None,
) -> list[Observation]:
    by_key = {t.key: t for t in tools}

    async def run(step: Step) -> Observation:
        await prepare_step(step, by_key, llm, today)
        if step.problem is not None:
            return _observation(step, error=step.problem)
        on_progress(f"calling {step.server}.{step.tool}")
        outcome = await caller.call(step.server, step.tool, step.arguments)
        return _observation(
            step,
            text=outcome.text,
            structured=outcome.structured,
            error=outcome.error,
            latency_ms=outcome.latency_ms,
        )

    return list(await asyncio.gather(*(run(step) for step in plan.steps)))


def _observation(step: Step, *, error: str | None = None, **fields: Any) -> Observation:
    return Observation(
        step_id=step.id,
        server=step.server,
        tool=step.tool,
        arguments=step.arguments,
        ok=error is None,
        error=error,
        **fields,
    )
