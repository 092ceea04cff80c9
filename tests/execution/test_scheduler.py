"""The DAG scheduler with simulated tools: real asyncio, real sleeps, steps of known latency."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from toolweave.execution.scheduler import Budget, Event, Scheduler
from toolweave.types import Clause, Observation, Plan, Step

pytestmark = pytest.mark.anyio


def plan(*edges: tuple[str, list[str]]) -> Plan:
    return Plan(
        steps=[
            Step(id=sid, clause=Clause(index=i, text=sid), server="sim", tool=sid, depends_on=d)
            for i, (sid, d) in enumerate(edges)
        ]
    )


class Tools:
    """Simulated tools: each step sleeps its latency, then succeeds unless told to fail."""

    def __init__(
        self, latency: Mapping[str, float] | None = None, fail: dict[str, int] | None = None
    ):
        self.latency = latency or {}
        self.fail = dict(fail or {})  # step id -> how many attempts fail before one succeeds
        self.calls: list[str] = []
        self.running = 0
        self.most_running = 0
        self.inputs: dict[str, list[str]] = {}

    async def __call__(self, step: Step, inputs: Mapping[str, Observation]) -> Observation:
        import asyncio

        self.calls.append(step.id)
        self.inputs[step.id] = sorted(inputs)
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        try:
            await asyncio.sleep(self.latency.get(step.id, 0.01))
        finally:
            self.running -= 1
        if self.fail.get(step.id, 0) > 0:
            self.fail[step.id] -= 1
            return Observation.of(step, error=f"{step.id} broke")
        return Observation.of(step, text=f"result of {step.tool}")


def kinds(events: list[Event], step_id: str) -> list[str]:
    return [e.kind for e in events if e.step_id == step_id]


async def test_a_step_starts_the_moment_its_dependencies_finish() -> None:
    events: list[Event] = []
    tools = Tools({"fast": 0.01, "slow": 0.3, "after_fast": 0.01})
    graph = plan(("fast", []), ("slow", []), ("after_fast", ["fast"]))
    result = await Scheduler(tools, on_event=events.append).run(graph)
    at = {(e.kind, e.step_id): e.at_ms for e in events}
    assert at[("started", "after_fast")] < at[("finished", "slow")]
    assert tools.inputs["after_fast"] == ["fast"]  # it sees its dependency's observation
    assert not result.partial and result.tool_calls == 3
    assert events[0].kind == "plan" and events[0].detail == "3 steps"
    assert all(e.elapsed_ms is not None for e in events if e.kind == "finished")


async def test_a_diamond_runs_its_branches_together_and_joins_after_both() -> None:
    events: list[Event] = []
    tools = Tools({"a": 0.02, "b": 0.1, "c": 0.1, "d": 0.02})
    graph = plan(("a", []), ("b", ["a"]), ("c", ["a"]), ("d", ["b", "c"]))
    result = await Scheduler(tools, on_event=events.append).run(graph)
    at = {(e.kind, e.step_id): e.at_ms for e in events}
    assert max(at[("started", "b")], at[("started", "c")]) < min(
        at[("finished", "b")], at[("finished", "c")]
    )
    assert at[("started", "d")] >= max(at[("finished", "b")], at[("finished", "c")])
    assert result.makespan_ms < (0.02 + 0.1 + 0.1 + 0.02) * 1000  # less than one after another
    assert tools.most_running == 2


async def test_sequential_mode_and_the_concurrency_limit() -> None:
    wide = plan(*[(f"s{i}", []) for i in range(6)])
    one = Tools()
    await Scheduler(one, sequential=True).run(wide)
    assert one.most_running == 1 and one.calls == [f"s{i}" for i in range(6)]
    three = Tools()
    await Scheduler(three, concurrency=3).run(wide)
    assert three.most_running == 3


async def test_a_failed_step_skips_everything_downstream_and_nothing_else() -> None:
    events: list[Event] = []
    tools = Tools(fail={"b": 9})
    graph = plan(("a", []), ("b", ["a"]), ("c", ["b"]), ("d", ["c"]), ("e", ["a"]))
    result = await Scheduler(tools, retries=0, on_event=events.append).run(graph)
    assert result.not_done == {"c": "b failed", "d": "c did not run"}
    assert sorted(tools.calls) == ["a", "b", "e"] and result.partial
    assert kinds(events, "b") == ["started", "failed"] and kinds(events, "c") == ["skipped"]


async def test_a_failure_hook_can_run_a_replacement_in_place() -> None:
    tools = Tools(fail={"flaky": 1})
    graph = plan(("flaky", []), ("next", ["flaky"]))

    def instead(step: Step, observation: Observation) -> Step:
        assert observation.error == "flaky broke"
        return step.model_copy(update={"tool": "alternative"})

    result = await Scheduler(tools, retries=0, on_failure=instead).run(graph)
    assert result.observations["flaky"].tool == "alternative" and result.observations["flaky"].ok
    assert result.observations["next"].ok and not result.partial


async def test_a_replacement_that_fails_too_is_not_replaced_again() -> None:
    tools = Tools(fail={"x": 9})
    replacements = []
    scheduler = Scheduler(tools, retries=0, on_failure=lambda s, _o: replacements.append(s) or s)
    result = await scheduler.run(plan(("x", [])))
    assert len(replacements) == 1 and tools.calls == ["x", "x"]
    assert not result.observations["x"].ok


async def test_retries_only_what_may_be_retried() -> None:
    events: list[Event] = []
    tools = Tools(fail={"safe": 1, "unsafe": 1})
    result = await Scheduler(
        tools, retries=2, retryable=lambda step, _o: step.id == "safe", on_event=events.append
    ).run(plan(("safe", []), ("unsafe", [])))
    assert result.observations["safe"].ok and not result.observations["unsafe"].ok
    assert kinds(events, "safe") == ["started", "failed", "retrying", "finished"]
    assert tools.calls.count("unsafe") == 1 and result.tool_calls == 3


async def test_a_step_past_its_timeout_fails_with_a_clear_error() -> None:
    tools = Tools({"hang": 5.0})
    result = await Scheduler(tools, step_timeout_s=0.05, retries=0).run(plan(("hang", [])))
    assert result.observations["hang"].error == "timed out after 0.05 s"
    # The time it took is recorded, not 0 (the call never returned a latency of its own).
    assert result.observations["hang"].latency_ms >= 50


async def test_the_step_and_call_budgets_leave_a_partial_result_that_says_why() -> None:
    graph = plan(("a", []), ("b", []), ("c", ["a"]))
    steps = await Scheduler(Tools(), budget=Budget(max_steps=2)).run(graph)
    assert set(steps.observations) == {"a", "b"}
    assert steps.not_done == {"c": "over the step budget (2 steps)"}
    budget = Budget(max_tool_calls=2)
    calls = await Scheduler(Tools(fail={"a": 1}), sequential=True, budget=budget).run(graph)
    assert calls.observations["a"].ok and calls.tool_calls == 2  # failed once, then retried
    assert calls.not_done == {
        "b": "over the tool-call budget (2 calls)",
        "c": "over the tool-call budget (2 calls)",
    }
    no_retry = await Scheduler(Tools(fail={"a": 1}), budget=Budget(max_tool_calls=1)).run(graph)
    assert no_retry.observations["a"].error == (
        "a broke; not retried: over the tool-call budget (1 call)"
    )


async def test_the_token_budget_reads_the_llm_counter() -> None:
    spent = [0]

    async def thinking(step: Step, _inputs: Mapping[str, Observation]) -> Observation:
        spent[0] += 600
        return Observation.of(step, text="ok")

    scheduler = Scheduler(
        thinking, sequential=True, budget=Budget(max_llm_tokens=1000), tokens_used=lambda: spent[0]
    )
    result = await scheduler.run(plan(("a", []), ("b", []), ("c", [])))
    assert set(result.observations) == {"a", "b"}
    assert result.not_done == {"c": "over the LLM token budget (1,000 tokens)"}


async def test_cancelling_the_run_cancels_its_running_steps() -> None:
    import asyncio

    tools = Tools({"a": 5.0, "b": 5.0})
    run = asyncio.ensure_future(Scheduler(tools).run(plan(("a", []), ("b", []))))
    while tools.running < 2:
        await asyncio.sleep(0.01)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert tools.running == 0  # both steps' sleeps were cancelled, not left to finish


async def test_the_deadline_cancels_what_runs_and_reports_what_did_not_happen() -> None:
    events: list[Event] = []
    tools = Tools({"quick": 0.01, "long": 5.0, "after": 0.01})
    graph = plan(("quick", []), ("long", []), ("after", ["long"]))
    result = await Scheduler(tools, budget=Budget(deadline_s=0.2), on_event=events.append).run(
        graph
    )
    assert result.observations["quick"].ok and result.makespan_ms < 1000
    reason = "the deadline of 0.2 s passed"
    assert result.not_done == {"long": reason, "after": "long did not run"}
    assert any(e.kind == "stopped" and e.detail == reason for e in events)
