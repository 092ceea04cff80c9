"""The stage latencies of a `toolweave eval qa --details FILE` run as a PNG: per dataset, the
median milliseconds of each stage (analyse, select, plan, execute = the search rounds, answer)
stacked, beside the median total. Usage:

    .venv/bin/python benchmarks/plot_qa_latency.py qa.json [--out benchmarks/results/qa_latency.png]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

STAGES = ("analyse", "connect", "select", "plan", "execute", "answer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("details", type=Path, help="the JSON of eval qa --details")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results" / "qa_latency.png"
    )
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = json.loads(args.details.read_text())["results"]
    datasets = sorted({r["dataset"] for r in results})
    figure, axes = plt.subplots(figsize=(7, 3.5))
    for row, dataset in enumerate(datasets):
        timings = [r["timings_ms"] for r in results if r["dataset"] == dataset]
        left = 0.0
        for number, stage in enumerate(STAGES):
            width = statistics.median(t.get(stage, 0.0) for t in timings)
            colour = f"C{number}"  # one colour per stage in every row
            axes.barh(row, width, left=left, color=colour, label=stage if row == 0 else None)
            left += width
        total = statistics.median(t.get("total", 0.0) for t in timings)
        axes.text(left + 5, row, f"total p50 {total:,.0f} ms (n={len(timings)})", va="center")
    axes.set_yticks(range(len(datasets)), datasets)
    axes.set_xlabel("median milliseconds per question, by stage")
    axes.legend(loc="lower right", fontsize="small")
    axes.set_xlim(right=axes.get_xlim()[1] * 1.6)
    figure.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
