"""`toolweave eval recovery`: questions still answered when the tool that answers them breaks.

The tasks of `eval servers` whose answer states facts (first phrasing each) run on the real
third-party servers in the same sandbox. First as they are: the first read-only tool of those
servers each request calls is its first choice. Then, for each first choice, its server runs behind
`evals/faulty.py`, which makes every call of that tool fail as an outage would, and its requests
are asked again with recovery off and on (`graph.recover`). A request is **answered** when its
answer states the facts and nothing was changed or made up (`eval servers`' checks, whichever
tool answered). Reported per split: answered as they are, broken without recovery, broken with
recovery, how many took a stand-in, and how many stand-ins did not answer.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from toolweave.evals.sandbox import DATA, Sandbox
from toolweave.evals.servers import (
    Progress,
    Result,
    Task,
    engine_over,
    load_tasks,
    run_one,
    sandboxed,
)
from toolweave.execution.policy import reads_only
from toolweave.settings import Settings
from toolweave.types import ServerSpec


@dataclass
class RecoveryResult:
    task: str
    split: str
    request: str
    first_choice: str  # server.tool
    as_is: bool
    without: bool  # broken, recovery off
    with_recovery: bool
    stand_in: str  # the calls of the recovered run when the first choice was not among them


@dataclass
class RecoveryRow:
    split: str
    requests: int
    as_is: float
    without: float
    with_recovery: float
    stand_ins: int
    wrong_stand_ins: int


def answered(result: Result) -> bool:
    """The facts stated, nothing changed that was not asked for, nothing made up."""
    lacks = any(p.startswith("answer lacks") for p in result.problems)
    return not lacks and not result.unrequested and not result.invented


def _broken(servers: dict[str, ServerSpec], tool: str) -> dict[str, ServerSpec]:
    """The servers with the one of `tool` ("server.name") behind the proxy that makes it fail."""
    server, name = tool.split(".", 1)
    spec = servers[server]
    proxy = ["-m", "toolweave.evals.faulty", "--fail", name, "--", spec.command, *spec.args]
    return {**servers, server: spec.model_copy(update={"command": sys.executable, "args": proxy})}


async def _asked(
    settings: Settings,
    recover: bool,
    sandbox: Sandbox,
    servers: dict[str, ServerSpec],
    state: Path,
    notice: Callable[[str], None],
    group: list[tuple[Task, bool]],
) -> list[Result]:
    """The group's requests asked again of an engine over `servers`, recovery on or off."""
    graph = settings.graph.model_copy(update={"recover": recover})
    arm = settings.model_copy(update={"graph": graph})
    async with engine_over(arm, servers, state, notice) as engine:
        return [(await run_one(engine, sandbox, t, t.asks[0], False))[0] for t, _ in group]


async def run_recovery_eval(
    settings: Settings,
    splits: list[str],
    *,
    data: Path = DATA,
    on_progress: Progress = lambda *_: None,
    notice: Callable[[str], None] = print,
) -> tuple[list[RecoveryRow], list[RecoveryResult]]:
    tasks = [
        t
        for t in load_tasks(data / "cases.yaml")
        if t.split in splits and t.answer and not t.clarify
    ]
    found: list[RecoveryResult] = []
    with sandboxed(settings, data, notice) as (sandbox, servers, state):
        choices: dict[str, list[tuple[Task, bool]]] = defaultdict(list)
        async with engine_over(settings, servers, state, notice) as engine:
            # Tools of the third-party servers only: not the in-process search, not time.
            readers = {t.key for t in engine.tools if reads_only(t) and t.server in servers}
            for done, task in enumerate(tasks):
                on_progress("as they are", done, len(tasks))
                result, _ = await run_one(engine, sandbox, task, task.asks[0], False)
                called = [c.split("(", 1)[0] for c in result.calls]
                if first := next((key for key in called if key in readers), None):
                    choices[first].append((task, answered(result)))
        for number, (tool, group) in enumerate(sorted(choices.items())):
            on_progress("broken first choices", number, len(choices))
            broken = _broken(servers, tool)
            arms = [await _asked(settings, recover, sandbox, broken, state, notice, group)
                    for recover in (False, True)]  # fmt: skip
            for (task, as_is), without, recovered in zip(group, *arms, strict=True):
                replaced = not any(c.startswith(f"{tool}(") for c in recovered.calls)
                found.append(
                    RecoveryResult(
                        task.id, task.split, recovered.request, tool, as_is,
                        answered(without), answered(recovered),
                        "; ".join(recovered.calls) if replaced else "",
                    )
                )  # fmt: skip
    return [_row(split, [r for r in found if r.split == split]) for split in splits], found


def _row(split: str, results: list[RecoveryResult]) -> RecoveryRow:
    count = max(len(results), 1)
    return RecoveryRow(
        split=split,
        requests=len(results),
        as_is=round(sum(r.as_is for r in results) / count, 3),
        without=round(sum(r.without for r in results) / count, 3),
        with_recovery=round(sum(r.with_recovery for r in results) / count, 3),
        stand_ins=sum(bool(r.stand_in) for r in results),
        wrong_stand_ins=sum(bool(r.stand_in) and not r.with_recovery for r in results),
    )


def markdown(rows: list[RecoveryRow]) -> str:
    header = ["split", "requests", "answered as is", "broken, no recovery", "broken, recovery"]
    header += ["stand-ins", "stand-ins that did not answer"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        cells = [r.split, str(r.requests), f"{r.as_is:.3f}", f"{r.without:.3f}"]
        cells += [f"{r.with_recovery:.3f}", str(r.stand_ins), str(r.wrong_stand_ins)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
