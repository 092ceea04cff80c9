"""Tool choice of the deterministic plan on the `eval servers` requests, without calling anything:
for each request that expects calls, whether the plan's tools are exactly the expected ones (any
alternative of each, nothing else; the fallback search counts as a tool). A fast check of
changes to retrieval and `fit` (about 20 s against the 5 minutes of `eval servers`), which it
does not replace: arguments, effects and answers are not checked.

Prints a table and each request's plan; writes benchmarks/results/servers_tool_choice.json. Usage:
    TOOLWEAVE_BENCHMARKS_DIR=... .venv/bin/python benchmarks/servers_tool_choice.py [dev] [test]
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import date
from pathlib import Path

from toolweave.evals.servers import DATA, SPLITS, engine_over, fill, load_tasks, sandboxed
from toolweave.language import analyse
from toolweave.planning.planner import PlanRequest, deterministic_plan
from toolweave.settings import load_settings

RESULTS = Path(__file__).parent / "results" / "servers_tool_choice.json"


async def main(splits: list[str]) -> None:
    settings = load_settings()
    tasks = [t for t in load_tasks(DATA / "cases.yaml") if t.split in splits and not t.clarify]
    rows = []
    with sandboxed(settings, DATA, lambda _: None) as (sandbox, servers, state):
        async with engine_over(settings, servers, state, lambda _: None) as engine:
            usable = {t.key: t for t in engine.candidates()}
            ask = engine.settings.ask
            for task in tasks:
                wanted = [set(call["tool"].split("|")) for call in task.calls]
                for asked in task.asks:
                    request = fill(asked, sandbox.placeholders())
                    analysis = analyse(request, date.today())
                    plan, _ = deterministic_plan(
                        PlanRequest(
                            analysis,
                            await engine.rank(analysis.clauses),
                            usable,
                            ask.min_tool_score,
                            usable.get(ask.fallback_tool),
                            set(engine.pool.statuses),
                        )
                    )
                    chosen = sorted({s.key for s in plan.steps if s.problem is None})
                    right = all(w & set(chosen) for w in wanted) and all(
                        any(key in w for w in wanted) for key in chosen
                    )
                    rows.append(
                        {"split": task.split, "task": task.id, "request": asked, "tools": chosen}
                        | {"right": right}
                    )
                    print(f"{'ok' if right else '--'} {task.id:32} {chosen} | {asked[:70]}")
    print("\n| split | requests | tool choice |\n|---|---|---|")
    for split in splits:
        mine = [r for r in rows if r["split"] == split]
        right = sum(r["right"] for r in mine)
        print(f"| {split} | {len(mine)} | {right} ({right / max(len(mine), 1):.3f}) |")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    chosen = sys.argv[1:] or ["dev"]
    if unknown := set(chosen) - set(SPLITS):
        sys.exit(f"unknown split(s): {sorted(unknown)}; use {', '.join(SPLITS)}")
    asyncio.run(main(chosen))
