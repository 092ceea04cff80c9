"""The DAG scheduler: every step starts the moment the steps it depends on have finished.

    ready steps (plan order) -> start while under the concurrency limit and the budget
    a step finishes -> ok: its dependents whose dependencies are all done become ready
                    -> failed: `on_failure` may name a replacement step, run once in its place
                       (the executor's recovery); otherwise every step downstream is skipped
    the deadline passes -> running steps are cancelled; what did not run is reported, not lost

Each attempt has its own timeout; a failed attempt is retried when `retryable` allows it (only
tools that are safe to call twice should be). Budgets bound steps started, tool calls made, LLM
tokens spent (read from a counter the caller passes) and wall time; going over leaves a partial
result whose `not_done` says what was not done and why. `sequential=True` runs one step at a
time in the same order, for comparison. Progress is a stream of typed `Event`s.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from toolweave.types import Observation, Plan, Step

EventKind = Literal[
    "plan", "started", "finished", "failed", "retrying", "replaced", "skipped", "stopped"
]
StepRunner = Callable[[Step, Mapping[str, Observation]], Awaitable[Observation]]


@dataclass(frozen=True)
class Event:
    kind: EventKind
    step_id: str = ""
    at_ms: float = 0.0  # since the run started
    elapsed_ms: float | None = None  # of the step, when it finished or failed
    detail: str = ""


@dataclass(frozen=True)
class Budget:
    max_steps: int | None = None
    max_tool_calls: int | None = None
    max_llm_tokens: int | None = None
    deadline_s: float | None = None


@dataclass
class ScheduleResult:
    observations: dict[str, Observation] = field(default_factory=dict)
    # Steps that did not run, and why (a failed dependency, the budget, the deadline).
    not_done: dict[str, str] = field(default_factory=dict)
    tool_calls: int = 0
    makespan_ms: float = 0.0

    @property
    def partial(self) -> bool:
        return bool(self.not_done) or not all(o.ok for o in self.observations.values())


class Scheduler:
    def __init__(
        self,
        run_step: StepRunner,
        *,
        concurrency: int = 8,
        step_timeout_s: float = 30.0,
        retries: int = 1,
        retryable: Callable[[Step, Observation], bool] = lambda _step, _obs: True,
        budget: Budget | None = None,
        tokens_used: Callable[[], int] = lambda: 0,
        sequential: bool = False,
        on_event: Callable[[Event], None] = lambda _event: None,
        on_failure: Callable[[Step, Observation], Step | None] = lambda _step, _obs: None,
    ) -> None:
        self.run_step = run_step
        self.limit = 1 if sequential else max(1, concurrency)
        self.step_timeout_s = step_timeout_s
        self.retries = retries
        self.retryable = retryable
        self.budget = budget or Budget()
        self.tokens_used = tokens_used
        self.on_event = on_event
        self.on_failure = on_failure

    async def run(self, plan: Plan) -> ScheduleResult:
        run = _Run(self, plan)
        run.emit("plan", detail=f"{len(plan.steps)} steps")
        try:
            async with asyncio.timeout(self.budget.deadline_s):
                await run.drive()
        except TimeoutError:
            await run.stop(f"the deadline of {self.budget.deadline_s:g} s passed")
        run.result.makespan_ms = run.now_ms()
        return run.result

    def over_budget(self, result: ScheduleResult, started: int) -> str | None:
        budget = self.budget
        if budget.max_steps is not None and started >= budget.max_steps:
            return f"over the step budget ({_count(budget.max_steps, 'step')})"
        if budget.max_tool_calls is not None and result.tool_calls >= budget.max_tool_calls:
            return f"over the tool-call budget ({_count(budget.max_tool_calls, 'call')})"
        if budget.max_llm_tokens is not None and self.tokens_used() >= budget.max_llm_tokens:
            return f"over the LLM token budget ({_count(budget.max_llm_tokens, 'token')})"
        return None


class _Run:
    """The state of one `Scheduler.run`."""

    def __init__(self, scheduler: Scheduler, plan: Plan) -> None:
        self.s = scheduler
        self.steps = {step.id: step for step in plan.steps}
        self.order = {step.id: i for i, step in enumerate(plan.steps)}
        self.waiting = {s.id: {d for d in s.depends_on if d in self.steps} for s in plan.steps}
        self.dependents: dict[str, list[str]] = defaultdict(list)
        for step_id, needs in self.waiting.items():
            for need in needs:
                self.dependents[need].append(step_id)
        self.ready = [step.id for step in plan.steps if not self.waiting[step.id]]
        self.running: dict[asyncio.Task[Observation], str] = {}
        self.replaced: set[str] = set()  # one replacement per step: no endless re-tries
        self.started = 0
        self.result = ScheduleResult()
        self.t0 = time.perf_counter()

    def now_ms(self) -> float:
        return (time.perf_counter() - self.t0) * 1000

    def emit(
        self, kind: EventKind, step_id: str = "", elapsed_ms: float | None = None, detail: str = ""
    ) -> None:
        self.s.on_event(Event(kind, step_id, round(self.now_ms(), 3), elapsed_ms, detail))

    async def drive(self) -> None:
        try:
            while self.ready or self.running:
                self._start_ready()
                if not self.running:
                    break
                done, _ = await asyncio.wait(self.running, return_when=asyncio.FIRST_COMPLETED)
                for task in sorted(done, key=lambda t: self.order[self.running[t]]):
                    self._finished(self.running.pop(task), task.result())
        except asyncio.CancelledError:
            # The run itself was cancelled (its client left): its steps' calls go with it.
            for task in self.running:
                task.cancel()
            await asyncio.gather(*self.running, return_exceptions=True)
            raise

    def _start_ready(self) -> None:
        while self.ready and len(self.running) < self.s.limit:
            step_id = self.ready.pop(0)
            if reason := self.s.over_budget(self.result, self.started):
                self._not_done(step_id, reason)
                continue
            self.started += 1
            task = asyncio.create_task(self._attempts(self.steps[step_id]))
            self.running[task] = step_id

    async def _attempts(self, step: Step) -> Observation:
        inputs = {d: self.result.observations[d] for d in step.depends_on if d in self.steps}
        for attempt in range(self.s.retries + 1):
            self.emit("started" if attempt == 0 else "retrying", step.id)
            observation = await self._attempt(step, inputs)
            if observation.ok or attempt == self.s.retries:
                return observation
            if not self.s.retryable(step, observation):
                return observation
            if reason := self.s.over_budget(self.result, self.started):
                error = f"{observation.error}; not retried: {reason}"
                return observation.model_copy(update={"error": error})
        return observation

    async def _attempt(self, step: Step, inputs: Mapping[str, Observation]) -> Observation:
        started = time.perf_counter()
        self.result.tool_calls += 1
        try:
            observation = await asyncio.wait_for(
                self.s.run_step(step, inputs), self.s.step_timeout_s
            )
        except TimeoutError:
            observation = Observation.of(step, error=f"timed out after {self.s.step_timeout_s:g} s")
        elapsed = round((time.perf_counter() - started) * 1000, 3)
        if not observation.latency_ms:  # a call that timed out or failed before it returned
            observation = observation.model_copy(update={"latency_ms": elapsed})
        kind: EventKind = "finished" if observation.ok else "failed"
        self.emit(kind, step.id, elapsed_ms=elapsed, detail=observation.error or "")
        return observation

    def _finished(self, step_id: str, observation: Observation) -> None:
        self.result.observations[step_id] = observation
        if not observation.ok:
            replacement = None
            if step_id not in self.replaced:
                replacement = self.s.on_failure(self.steps[step_id], observation)
            if replacement is not None:
                self._replace(step_id, replacement)
                return
            for dependent in self.dependents[step_id]:
                self._not_done(dependent, f"{step_id} failed")
            return
        for dependent in self.dependents[step_id]:
            self.waiting[dependent].discard(step_id)
            if not self.waiting[dependent] and dependent not in self.result.not_done:
                self.ready.append(dependent)
                self.ready.sort(key=self.order.__getitem__)

    def _replace(self, step_id: str, replacement: Step) -> None:
        """Run `replacement` in place of the failed step: its dependents wait for it instead."""
        failed = self.result.observations.pop(step_id)
        self.replaced.add(step_id)
        self.emit("replaced", step_id, detail=f"{failed.key} failed; {replacement.key} instead")
        self.steps[step_id] = replacement.model_copy(update={"id": step_id})
        self.ready.insert(0, step_id)

    def _not_done(self, step_id: str, reason: str) -> None:
        """A step that will not run, and everything downstream of it."""
        if step_id in self.result.not_done or step_id in self.result.observations:
            return
        self.result.not_done[step_id] = reason
        self.emit("skipped", step_id, detail=reason)
        if step_id in self.ready:
            self.ready.remove(step_id)
        for dependent in self.dependents[step_id]:
            self._not_done(dependent, f"{step_id} did not run")

    async def stop(self, reason: str) -> None:
        for task in self.running:
            task.cancel()
        await asyncio.gather(*self.running, return_exceptions=True)
        self.emit("stopped", detail=reason)
        for step_id in [*self.running.values(), *self.steps]:
            if step_id not in self.result.observations:
                self._not_done(step_id, reason)
        self.running.clear()


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")
