from __future__ import annotations

from typing import Any

import pytest

from toolweave.planning.validate import (
    PlanCheck,
    critical_path,
    topological_order,
    validate_plan,
)
from toolweave.types import Clause, Plan, Step

SERVERS = {"weather", "geo"}


def step(
    id: str,
    *depends_on: str,
    arguments: dict[str, Any] | None = None,
    server: str = "weather",
    problem: str | None = None,
) -> Step:
    index = int(id[1:]) - 1 if id[1:].isdecimal() else 0
    return Step(
        id=id,
        clause=Clause(index=index, text=f"part {id}"),
        server=server,
        tool="forecast",
        arguments=arguments or {},
        depends_on=list(depends_on),
        problem=problem,
    )


def check(*steps: Step) -> PlanCheck:
    return validate_plan(Plan(steps=list(steps)), SERVERS)


def deps(result: PlanCheck) -> dict[str, list[str]]:
    return {s.id: s.depends_on for s in result.plan.steps}


def test_sound_plan_passes_unchanged() -> None:
    plan = Plan(
        steps=[
            step("s1", server="geo"),
            step("s2", "s1", arguments={"city": "{{s1.result.city}}"}),
        ]
    )
    result = validate_plan(plan, SERVERS)
    assert result.ok and result.repairs == [] and result.problems == []
    assert result.plan == plan


def test_duplicate_id_renumbers_the_later_step() -> None:
    result = check(step("s1"), step("s2"), step("s1"), step("s1"))
    assert [s.id for s in result.plan.steps] == ["s1", "s2", "s3", "s4"]
    assert result.repairs == [
        "two steps had the id s1: renamed the later one s3",
        "two steps had the id s1: renamed the later one s4",
    ]
    assert result.ok


def test_renumbered_id_avoids_ids_used_later_in_the_plan() -> None:
    result = check(step("s1"), step("s1"), step("s2"))
    assert [s.id for s in result.plan.steps] == ["s1", "s3", "s2"]


def test_dependency_on_unknown_step_is_dropped() -> None:
    result = check(step("s1"), step("s2", "s9", "s1"))
    assert deps(result)["s2"] == ["s1"]
    assert result.repairs == ["s2 depended on unknown step s9: dropped the dependency"]
    assert result.ok


def test_dependency_on_itself_is_dropped() -> None:
    result = check(step("s1", "s1"))
    assert deps(result)["s1"] == []
    assert result.repairs == ["s1 depended on itself: dropped the dependency"]
    assert result.ok


def test_dependency_listed_twice_is_kept_once() -> None:
    result = check(step("s1"), step("s2", "s1", "s1"))
    assert deps(result)["s2"] == ["s1"]
    assert result.repairs == ["s2 listed the dependency on s1 twice: kept one"]


def test_reference_adds_the_missing_dependency_in_plan_order() -> None:
    # s2 comes first in the plan, so its dependency is added first.
    result = check(
        step("s2"),
        step("s1"),
        step("s3", arguments={"q": "Weather in {{s1.result.city}} on {{s2.result.date}}"}),
    )
    assert deps(result)["s3"] == ["s2", "s1"]
    assert result.repairs == [
        "s3 uses s2's result: added the dependency",
        "s3 uses s1's result: added the dependency",
    ]
    assert result.ok


def test_reference_to_unknown_step_is_a_problem_on_the_step() -> None:
    result = check(step("s1"), step("s2", arguments={"days": ["{{s7.result.n}}"]}))
    assert result.problems == ["s2 uses the result of unknown step s7"]
    assert str(result.plan.steps[1].problem) == "s2 uses the result of unknown step s7"
    assert result.plan.steps[0].problem is None
    assert not result.ok


def test_reference_to_its_own_result_is_a_problem() -> None:
    result = check(step("s1", arguments={"x": "{{s1.result}}"}))
    assert result.problems == ["s1 uses its own result"]
    assert str(result.plan.steps[0].problem) == "s1 uses its own result"
    assert deps(result)["s1"] == []


def test_two_step_cycle_is_named_and_not_broken() -> None:
    result = check(step("s1"), step("s2", "s3"), step("s3", "s2"), step("s4", "s1"))
    assert result.problems == ["cycle s2 -> s3 -> s2"]
    assert [s.problem and str(s.problem) for s in result.plan.steps] == [
        None,
        "in the cycle s2 -> s3 -> s2",
        "in the cycle s2 -> s3 -> s2",
        None,
    ]
    assert deps(result) == {"s1": [], "s2": ["s3"], "s3": ["s2"], "s4": ["s1"]}


def test_cycle_made_by_a_reference_is_found() -> None:
    result = check(
        step("s1", "s3"),
        step("s2", arguments={"a": "{{s1.result}}"}),
        step("s3", "s2"),
    )
    assert "s2 uses s1's result: added the dependency" in result.repairs
    assert result.problems == ["cycle s1 -> s3 -> s2 -> s1"]


def test_each_cycle_is_named_once_and_its_dependents_are_left_alone() -> None:
    result = check(
        step("s1", "s2"),
        step("s2", "s1"),
        step("s3", "s1"),
        step("s4", "s5"),
        step("s5", "s6"),
        step("s6", "s4"),
    )
    assert result.problems == ["cycle s1 -> s2 -> s1", "cycle s4 -> s5 -> s6 -> s4"]
    assert result.plan.steps[2].problem is None


def test_cycle_named_by_its_shortest_loop_through_the_first_step() -> None:
    # s1 -> s2 -> s3 -> s1 and s1 -> s3 -> s1: one knot, named by its shortest loop from s1.
    result = check(step("s1", "s2", "s3"), step("s2", "s3"), step("s3", "s1"))
    assert result.problems == ["cycle s1 -> s3 -> s1"]
    assert all(str(s.problem) == "in the cycle s1 -> s3 -> s1" for s in result.plan.steps)


def test_step_on_unconnected_server_is_a_problem() -> None:
    result = check(step("s1", server="mail"))
    assert result.problems == [
        "s1 is bound to server 'mail', which is not connected (connected: geo, weather)"
    ]
    assert str(result.plan.steps[0].problem) == result.problems[0]


def test_step_without_server_needs_a_problem_already() -> None:
    flagged = check(step("s1", server="", problem="no connected tool fits"))
    assert flagged.ok and str(flagged.plan.steps[0].problem) == "no connected tool fits"
    unflagged = check(step("s1", server=""))
    assert unflagged.problems == ["s1 is bound to no server"]
    assert str(unflagged.plan.steps[0].problem) == "s1 is bound to no server"


def test_a_new_problem_is_added_to_one_the_step_had() -> None:
    result = check(step("s1", server="mail", problem="no connected tool fits"))
    assert str(result.plan.steps[0].problem) == (
        "no connected tool fits; s1 is bound to server 'mail', which is not connected "
        "(connected: geo, weather)"
    )


def test_input_plan_is_not_mutated() -> None:
    plan = Plan(
        steps=[
            step("s1", "s1", "s9"),
            step("s1", arguments={"a": "{{s1.result}}", "b": "{{s8.result}}"}, server="mail"),
            step("s3", "s4"),
            step("s4", "s3"),
        ]
    )
    before = plan.model_dump()
    result = validate_plan(plan, SERVERS)
    assert result.repairs and result.problems
    assert plan.model_dump() == before
    assert result.plan.steps[0] is not plan.steps[0]


def test_topological_order_keeps_plan_order_among_ready_steps() -> None:
    plan = Plan(steps=[step("s1", "s3"), step("s2"), step("s3"), step("s4", "s1", "s2")])
    assert topological_order(plan) == ["s2", "s3", "s1", "s4"]


def test_topological_order_prefers_the_earliest_ready_step() -> None:
    # s3 becomes ready after s2 and comes before s4 in the plan, so it runs first.
    plan = Plan(steps=[step("s2"), step("s3", "s2"), step("s4")])
    assert topological_order(plan) == ["s2", "s3", "s4"]


def test_topological_order_ignores_unknown_dependencies_and_leaves_out_cycles() -> None:
    plan = Plan(steps=[step("s1", "s9"), step("s2", "s3"), step("s3", "s2"), step("s4", "s2")])
    assert topological_order(plan) == ["s1"]


def test_critical_path_is_the_longest_chain_of_durations() -> None:
    plan = Plan(
        steps=[step("s1"), step("s2", "s1"), step("s3"), step("s4", "s2", "s3"), step("s5")]
    )
    durations = {"s1": 1.0, "s2": 2.0, "s3": 4.0, "s4": 0.5, "s5": 4.2}
    # s1 -> s2 -> s4 takes 3.5, s3 -> s4 takes 4.5, s5 alone 4.2.
    assert critical_path(plan, durations) == pytest.approx(4.5)


def test_critical_path_counts_a_step_without_duration_as_zero() -> None:
    plan = Plan(steps=[step("s1"), step("s2", "s1")])
    assert critical_path(plan, {"s2": 2.0}) == 2.0
    assert critical_path(Plan(), {}) == 0.0


def test_critical_path_refuses_a_cycle() -> None:
    plan = Plan(steps=[step("s1", "s2"), step("s2", "s1")])
    with pytest.raises(ValueError, match="cycle"):
        critical_path(plan, {"s1": 1.0, "s2": 1.0})
