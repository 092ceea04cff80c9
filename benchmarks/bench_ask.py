"""End-to-end latency of `toolweave ask` as a user meets it (cold: a new process per question)
and on a warm engine (one `Engine` open in this process, servers and models loaded once).

Prints tables and writes benchmarks/results/ask.json. Usage:
    .venv/bin/python benchmarks/bench_ask.py [--runs 5] [--warm-runs 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTIONS = {
    "demo (2 tools)": "What is 15% of 2,340, and what time is it in Tokyo?",
    "docs search": "How do I declare an MCP server?",
    "3 clauses": "Convert 10 miles to km, what is sqrt(2) * 3, and what time is it in London?",
}
RESULTS = Path(__file__).parent / "results" / "ask.json"


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return (time.perf_counter() - started) * 1000, run.stdout


STAGES = ("analyse", "connect", "select", "plan", "execute", "answer", "total")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def cold(runs: int, env: dict[str, str]) -> list[dict[str, object]]:
    """Each question as `toolweave ask --json` in a new process."""
    rows = []
    for label, question in QUESTIONS.items():
        walls, stages = [], []
        for _ in range(runs):
            command = [sys.executable, "-m", "toolweave", "ask", question, "--json"]
            wall, stdout = timed(command, env)
            walls.append(wall)
            answer = json.loads(stdout)
            stages.append(answer["timings_ms"])
        rows.append(
            {
                "question": label,
                "wall_ms_median": round(statistics.median(walls)),
                "wall_ms_max": round(max(walls)),
                **{
                    f"{stage}_ms_median": round(statistics.median(s.get(stage, 0) for s in stages))
                    for stage in STAGES
                },
                "llm_calls": answer["llm_calls"],
                "all_calls_ok": all(o["ok"] for o in answer["observations"]),
            }
        )
    return rows


async def warm(runs: int, state: str) -> list[dict[str, object]]:
    """Each question `runs` times on one open engine, after one warm-up run."""
    from toolweave import Engine, load_settings

    settings = load_settings(env={"TOOLWEAVE_STATE_DIR": state})
    rows = []
    async with Engine.open(settings) as engine:
        for label, question in QUESTIONS.items():
            await engine.ask(question)
            walls = []
            for _ in range(runs):
                started = time.perf_counter()
                answer = await engine.ask(question)
                walls.append((time.perf_counter() - started) * 1000)
            rows.append(
                {
                    "question": label,
                    "p50_ms": round(percentile(walls, 0.5), 1),
                    "p99_ms": round(percentile(walls, 0.99), 1),
                    "all_calls_ok": all(o.ok for o in answer.observations),
                }
            )
    return rows


def bench(runs: int, warm_runs: int) -> dict[str, object]:
    state = tempfile.mkdtemp(prefix="toolweave-bench-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWEAVE_")}
    env["TOOLWEAVE_STATE_DIR"] = state
    imports = [timed([sys.executable, "-c", "import toolweave"], env)[0] for _ in range(runs)]
    return {
        "benchmark": "ask_latency",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "runs": runs,
        "warm_runs": warm_runs,
        "import_ms_median": round(statistics.median(imports)),
        "questions": cold(runs, env),
        "engine_warm": asyncio.run(warm(warm_runs, state)),
    }


def table(rows: list[dict[str, object]], columns: list[str]) -> None:
    print("| question | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for row in rows:
        print(f"| {row['question']} | " + " | ".join(str(row[c]) for c in columns) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold runs per question")
    parser.add_argument("--warm-runs", type=int, default=50, help="warm runs per question")
    options = parser.parse_args()
    result = bench(options.runs, options.warm_runs)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"import toolweave: {result['import_ms_median']} ms (median of {result['runs']})")
    print(f"cold: a new process per question, median of {result['runs']}")
    columns = ["wall_ms_median", "wall_ms_max"] + [f"{s}_ms_median" for s in STAGES]
    table(result["questions"], [*columns, "llm_calls", "all_calls_ok"])  # type: ignore[arg-type]
    print(f"engine warm: one open engine, {result['warm_runs']} runs per question")
    table(result["engine_warm"], ["p50_ms", "p99_ms", "all_calls_ok"])  # type: ignore[arg-type]
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
