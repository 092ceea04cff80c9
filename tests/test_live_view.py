"""The live plan view of `toolweave ask`: what it shows as the scheduler's events arrive."""

from __future__ import annotations

from rich.console import Console

from toolweave.cli.live import PlanView
from toolweave.execution.scheduler import Event
from toolweave.types import Clause, Plan, Step


def rendered(view: PlanView) -> str:
    console = Console(width=100, record=True, color_system=None)
    console.print(view.render())
    return console.export_text()


def test_steps_change_state_as_events_arrive() -> None:
    plan = Plan(
        steps=[
            Step(id=f"s{n}", clause=Clause(index=n, text="x"), server="travel", tool=tool)
            for n, tool in ((1, "search_airport"), (2, "search_flights"))
        ]
    )
    plan.steps[1].depends_on = ["s1"]
    view = PlanView(enabled=True)  # not a terminal here: it renders but draws nothing
    assert view.live is None
    view.message("choosing tools")
    assert "choosing tools" in rendered(view) and "step" not in rendered(view)
    view.event(Event("plan", detail="2 steps"), plan)
    view.event(Event("finished", "s1", elapsed_ms=27.4), plan)
    view.event(Event("failed", "s2", elapsed_ms=3, detail="HTTP 500"), plan)
    lines = rendered(view).splitlines()
    assert lines[0].split() == ["step", "tool", "needs", "state"]
    assert lines[1].split() == ["s1", "travel.search_airport", "-", "done", "in", "27", "ms"]
    assert lines[2].split()[:4] == ["s2", "travel.search_flights", "s1", "failed"]
    assert lines[2].endswith("in 3 ms: HTTP 500")


def test_a_step_not_yet_reported_is_waiting() -> None:
    plan = Plan(steps=[Step(id="s1", clause=Clause(index=0, text="x"), server="a", tool="b")])
    view = PlanView(enabled=False)
    view.event(Event("plan"), plan)
    assert rendered(view).splitlines()[1].split() == ["s1", "a.b", "-", "waiting"]
