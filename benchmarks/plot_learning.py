"""The learning curve of a `toolweave eval learning --json` run as a PNG: per dataset, R@5 and
nDCG@5 of the test split after each number of simulated runs, beside the hand-fed `warm` R@5
the issue set as the goal. Usage:

    .venv/bin/python benchmarks/plot_learning.py learning.json [--out results/learning.png]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

# R@5 of `toolweave eval retrieval --variant warm` (RESULTS.md, "Tool retrieval"): the goal.
WARM = {"toole-single": 0.910, "toollens": 0.689}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("points", type=Path, help="the JSON of eval learning --json")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results" / "learning.png"
    )
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = json.loads(args.points.read_text())
    figure, axes = plt.subplots(figsize=(7, 4))
    for number, dataset in enumerate(dict.fromkeys(p["dataset"] for p in points)):
        mine = [p for p in points if p["dataset"] == dataset]
        runs = [p["runs"] for p in mine]
        colour = f"C{number}"
        axes.plot(runs, [p["metrics"]["R@5"] for p in mine], "o-", color=colour,
                  label=f"{dataset} R@5")  # fmt: skip
        axes.plot(runs, [p["metrics"]["nDCG@5"] for p in mine], "s:", color=colour,
                  label=f"{dataset} nDCG@5")  # fmt: skip
        if dataset in WARM:
            axes.axhline(WARM[dataset], color=colour, linestyle="--", linewidth=0.8,
                         label=f"{dataset} warm R@5 (goal)")  # fmt: skip
    axes.set_xscale("symlog", linthresh=100)
    checkpoints = sorted({p["runs"] for p in points})
    axes.set_xlim(0, checkpoints[-1] * 1.2)
    ticks: list[int] = []
    for n in checkpoints:  # each dataset's "all runs" may lie close together: one label
        if not ticks or n > 1.3 * ticks[-1]:
            ticks.append(n)
    axes.set_xticks(ticks, [f"{n:,}" for n in ticks])
    axes.set_xlabel("simulated runs (training queries streamed through the engine)")
    axes.set_ylabel("test split")
    axes.set_ylim(0, 1)
    axes.legend(loc="lower center", fontsize="small", ncols=2)
    figure.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
