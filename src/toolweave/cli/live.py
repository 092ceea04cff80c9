"""The live view of `toolweave ask` on a terminal: the plan as a table whose steps change state
as the scheduler reports them (waiting, running, done in 27 ms, failed, skipped), under a spinner
with the current stage. Off a terminal it shows nothing, so piped output stays clean."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.spinner import Spinner
from rich.table import Table

from toolweave.cli.common import err
from toolweave.execution.scheduler import Event
from toolweave.types import Plan

STATES = {
    "started": "[cyan]running[/cyan]",
    "retrying": "[yellow]retrying[/yellow]",
    "replaced": "[yellow]trying another tool[/yellow]",
    "finished": "[green]done[/green]",
    "failed": "[red]failed[/red]",
    "skipped": "[dim]skipped[/dim]",
}


class PlanView:
    """Shows an engine run: `message(stage)`, `planned(plan)`, `event(event, plan)`."""

    def __init__(self, enabled: bool) -> None:
        self.live = Live(console=err, transient=True) if enabled and err.is_terminal else None
        self.stage = "starting"
        self.plan: Plan | None = None
        self.states: dict[str, str] = {}

    def __enter__(self) -> PlanView:
        if self.live is not None:
            self.live.start()
            self.live.update(self.render())
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.stop()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The live view off while the user answers a question on the terminal."""
        if self.live is not None:
            self.live.stop()
        try:
            yield
        finally:
            if self.live is not None:
                self.live.start()

    def message(self, text: str) -> None:
        self.stage = text
        self._refresh()

    def notice(self, text: str) -> None:
        """Long work no stage covers (indexing the search corpus): in the live view, or on
        stderr when there is none (also under --json: stdout stays the JSON)."""
        if self.live is not None:
            self.message(text)
        else:
            err.print(escape(text), highlight=False, soft_wrap=True)

    def planned(self, plan: Plan) -> None:
        self.plan = plan
        self._refresh()

    def event(self, event: Event, plan: Plan) -> None:
        self.plan = plan
        if event.step_id and event.kind in STATES:
            timing = f" in {event.elapsed_ms:.0f} ms" if event.elapsed_ms is not None else ""
            why = f": {escape(event.detail)}" if event.kind in ("failed", "skipped") else ""
            self.states[event.step_id] = STATES[event.kind] + timing + why
        self._refresh()

    def _refresh(self) -> None:
        if self.live is not None:
            self.live.update(self.render())

    def render(self) -> RenderableType:
        status = Spinner("dots", text=escape(self.stage))
        if self.plan is None:
            return status
        return Group(plan_table(self.plan, self.states), status)


def plan_table(plan: Plan, states: dict[str, str]) -> Table:
    """One row per step: its id, tool, the steps it waits for and its state."""
    table = Table(box=None, pad_edge=False, show_edge=False)
    for column in ("step", "tool", "needs", "state"):
        table.add_column(column)
    for step in plan.steps:
        tool = step.key if step.tool else "(no tool)"
        state = states.get(step.id, "[dim]waiting[/dim]")
        table.add_row(step.id, escape(tool), ", ".join(step.depends_on) or "-", state)
    return table
