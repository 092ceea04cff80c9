"""End-to-end latency of `toolweave ask` as a user meets it: a new process per question.

Prints a table and writes benchmarks/results/ask.json. Usage:
    .venv/bin/python benchmarks/bench_ask.py [--runs 5]
"""

from __future__ import annotations

import argparse
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


def bench(runs: int) -> dict[str, object]:
    state = tempfile.mkdtemp(prefix="toolweave-bench-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWEAVE_")}
    env["TOOLWEAVE_STATE_DIR"] = state
    imports = [timed([sys.executable, "-c", "import toolweave"], env)[0] for _ in range(runs)]
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
                    f"{stage}_ms_median": round(statistics.median(s[stage] for s in stages))
                    for stage in ("connect", "select", "execute", "disconnect", "answer", "total")
                },
                "llm_calls": answer["llm_calls"],
                "all_calls_ok": all(o["ok"] for o in answer["observations"]),
            }
        )
    return {
        "benchmark": "ask_latency",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "runs": runs,
        "import_ms_median": round(statistics.median(imports)),
        "questions": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    result = bench(parser.parse_args().runs)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"import toolweave: {result['import_ms_median']} ms (median of {result['runs']})")
    columns = ["wall_ms_median", "wall_ms_max", "connect_ms_median", "select_ms_median"]
    columns += ["execute_ms_median", "disconnect_ms_median", "answer_ms_median", "llm_calls"]
    columns += ["all_calls_ok"]
    print("| question | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for row in result["questions"]:  # type: ignore[attr-defined]
        print(f"| {row['question']} | " + " | ".join(str(row[c]) for c in columns) + " |")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
