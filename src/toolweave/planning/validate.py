"""Check a plan before it runs, repairing the defects that have one obvious fix.

Repaired (and noted): a step id used twice (the later step gets a new id), a dependency on an
unknown step or on the step itself (dropped), a dependency listed twice (kept once), a reference
to a step's result without the dependency on it (added).

Not guessed (the step's `problem` is set, so it is not called, and the plan is not ok): a
reference to an unknown step or to the step itself, a cycle of dependencies, a step bound to a
server that is not connected.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from toolweave.planning.references import references
from toolweave.types import Plan, Problem, ProblemKind, Step


@dataclass
class PlanCheck:
    """A repaired copy of a plan, what was repaired, and what could not be."""

    plan: Plan
    repairs: list[str] = field(default_factory=list)
    # What this check found; a step the planner had already flagged keeps its own problem.
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_plan(plan: Plan, servers: Collection[str]) -> PlanCheck:
    """A repaired copy of `plan` (the input is left as it is) with notes on what changed."""
    check = PlanCheck(plan.model_copy(deep=True))
    _renumber_duplicates(check)
    # Before any new problem is set: an empty server is fine only on an already flagged step.
    _check_servers(check, servers)
    _repair_dependencies(check)
    _link_references(check)
    _check_cycles(check)
    return check


def topological_order(plan: Plan) -> list[str]:
    """Step ids, each after the steps it depends on; among ready steps, the plan's order.

    Dependencies on ids not in the plan are ignored. Steps in a cycle, or depending on one, are
    left out. Expects unique ids (validate_plan ensures them).
    """
    position = {step.id: i for i, step in enumerate(plan.steps)}
    waiting = {step.id: {d for d in step.depends_on if d in position} for step in plan.steps}
    dependents: dict[str, list[str]] = defaultdict(list)
    for step_id, needs in waiting.items():
        for need in needs:
            dependents[need].append(step_id)
    ready = [position[step_id] for step_id, needs in waiting.items() if not needs]
    heapq.heapify(ready)
    order = []
    while ready:
        done = plan.steps[heapq.heappop(ready)].id
        order.append(done)
        for later in dependents[done]:
            waiting[later].discard(done)
            if not waiting[later]:
                heapq.heappush(ready, position[later])
    return order


def critical_path(plan: Plan, durations: Mapping[str, float]) -> float:
    """The longest chain of dependent steps, by summed durations (a step without one takes 0).

    No schedule can finish the plan faster. Raises ValueError if the plan has a cycle.
    """
    order = topological_order(plan)
    if len(order) < len(plan.steps):
        raise ValueError("the plan has a dependency cycle: run validate_plan first")
    needs = {step.id: step.depends_on for step in plan.steps}
    finish: dict[str, float] = {}
    for step_id in order:
        start = max((finish[d] for d in needs[step_id] if d in finish), default=0.0)
        finish[step_id] = start + durations.get(step_id, 0.0)
    return max(finish.values(), default=0.0)


def _renumber_duplicates(check: PlanCheck) -> None:
    # References and dependencies on a reused id keep meaning the first step that had it.
    taken = {step.id for step in check.plan.steps}
    seen: set[str] = set()
    for step in check.plan.steps:
        if step.id in seen:
            new = _free_id(taken)
            taken.add(new)
            check.repairs.append(f"two steps had the id {step.id}: renamed the later one {new}")
            step.id = new
        seen.add(step.id)


def _free_id(taken: set[str]) -> str:
    number = 1
    while f"s{number}" in taken:
        number += 1
    return f"s{number}"


def _check_servers(check: PlanCheck, servers: Collection[str]) -> None:
    for step in check.plan.steps:
        if not step.server and step.problem is None:
            _flag(check, step, f"{step.id} is bound to no server")
        elif step.server and step.server not in servers:
            connected = ", ".join(sorted(servers)) or "none"
            _flag(
                check,
                step,
                f"{step.id} is bound to server {step.server!r}, which is not connected "
                f"(connected: {connected})",
            )


def _repair_dependencies(check: PlanCheck) -> None:
    ids = {step.id for step in check.plan.steps}
    for step in check.plan.steps:
        kept: list[str] = []
        for dep in step.depends_on:
            why = _bad_dependency(step, dep, ids, kept)
            if why:
                check.repairs.append(f"{step.id} {why}")
            else:
                kept.append(dep)
        step.depends_on = kept


def _bad_dependency(step: Step, dep: str, ids: set[str], kept: list[str]) -> str | None:
    if dep == step.id:
        return "depended on itself: dropped the dependency"
    if dep not in ids:
        return f"depended on unknown step {dep}: dropped the dependency"
    if dep in kept:
        return f"listed the dependency on {dep} twice: kept one"
    return None


def _link_references(check: PlanCheck) -> None:
    position = {step.id: i for i, step in enumerate(check.plan.steps)}
    for step in check.plan.steps:
        used = references(step.arguments)
        if step.id in used:
            _flag(check, step, f"{step.id} uses its own result")
        for ref in sorted(used - position.keys()):
            _flag(check, step, f"{step.id} uses the result of unknown step {ref}")
        for ref in sorted(used & position.keys(), key=position.__getitem__):
            if ref != step.id and ref not in step.depends_on:
                step.depends_on.append(ref)
                check.repairs.append(f"{step.id} uses {ref}'s result: added the dependency")


def _check_cycles(check: PlanCheck) -> None:
    steps = {step.id: step for step in check.plan.steps}
    # Only steps topological_order left out can be in a cycle (the others are behind one).
    blocked = steps.keys() - set(topological_order(check.plan))
    reach = {step_id: _reachable(step_id, steps, blocked) for step_id in blocked}
    placed: set[str] = set()
    for step_id in steps:
        if step_id not in blocked or step_id in placed or step_id not in reach[step_id]:
            continue
        members = {other for other in reach[step_id] if step_id in reach[other]}
        placed |= members
        cycle = " -> ".join(_shortest_cycle(step_id, steps, members))
        check.problems.append(f"cycle {cycle}")
        for member in members:
            _mark(steps[member], f"in the cycle {cycle}")


def _reachable(start: str, steps: Mapping[str, Step], within: Collection[str]) -> set[str]:
    """The steps `start` depends on, directly or not, among `within` (itself if in a cycle)."""
    found: set[str] = set()
    todo = [start]
    while todo:
        for dep in steps[todo.pop()].depends_on:
            if dep in within and dep not in found:
                found.add(dep)
                todo.append(dep)
    return found


def _shortest_cycle(start: str, steps: Mapping[str, Step], members: set[str]) -> list[str]:
    """The shortest path of dependencies from `start` back to itself, through `members`."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while start not in came_from:
        following = []
        for step_id in frontier:
            for dep in steps[step_id].depends_on:
                if dep in members and dep not in came_from:
                    came_from[dep] = step_id
                    following.append(dep)
        frontier = following
    path = [start]
    while len(path) == 1 or path[-1] != start:
        path.append(came_from[path[-1]])
    return path[::-1]


def _flag(check: PlanCheck, step: Step, problem: str) -> None:
    check.problems.append(problem)
    _mark(step, problem)


def _mark(step: Step, problem: str) -> None:
    """Set the step's problem (so that it is not called), keeping one it already had."""
    if step.problem is None:
        step.problem = Problem(kind=ProblemKind.PLAN, text=problem)
    else:
        step.problem.text = f"{step.problem.text}; {problem}"
