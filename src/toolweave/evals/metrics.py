"""Ranking metrics over a ranked list of tool ids and the gold tools of a query.

A query's gold is a set of entries, one per tool the query needs. An entry is a tool id, or a
frozenset of alternative ids when any one of several tools meets that need (a forecast from
either of two weather servers). An entry is *met* at k when one of its tools is in the top k:

    R@k     met entries / entries
    P@k     met entries / k (a second alternative of a met entry adds nothing)
    nDCG@k  a tool at rank r gains 1/log2(r + 1) when it meets an entry no higher tool met;
            divided by the gain of the first min(k, entries) ranks
    COMP@k  1 when every entry is met, else 0

With single-id entries (every shared dataset) these are the usual definitions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

GoldEntry = str | frozenset[str]  # a tool id, or alternative tool ids any one of which counts
Gold = frozenset[GoldEntry]


def alternatives(entry: GoldEntry) -> frozenset[str]:
    return entry if isinstance(entry, frozenset) else frozenset({entry})


def met(ranked: Sequence[str], gold: Gold, k: int) -> int:
    """How many gold entries have a tool in the top k."""
    top = set(ranked[:k])
    return sum(1 for entry in gold if alternatives(entry) & top)


def recall(ranked: Sequence[str], gold: Gold, k: int) -> float:
    return met(ranked, gold, k) / len(gold)


def precision(ranked: Sequence[str], gold: Gold, k: int) -> float:
    return met(ranked, gold, k) / k


def ndcg(ranked: Sequence[str], gold: Gold, k: int) -> float:
    unmet = [alternatives(entry) for entry in gold]
    gain = 0.0
    for i, tool in enumerate(ranked[:k]):
        if any(tool in entry for entry in unmet):
            gain += 1 / math.log2(i + 2)
            unmet = [entry for entry in unmet if tool not in entry]
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(gold))))
    return gain / ideal


def complete(ranked: Sequence[str], gold: Gold, k: int) -> float:
    """COMP@k: 1 when every gold entry is met in the top k."""
    return 1.0 if met(ranked, gold, k) == len(gold) else 0.0


METRICS = {
    "R@1": lambda r, g: recall(r, g, 1),
    "R@5": lambda r, g: recall(r, g, 5),
    "R@10": lambda r, g: recall(r, g, 10),
    "P@5": lambda r, g: precision(r, g, 5),
    "nDCG@5": lambda r, g: ndcg(r, g, 5),
    "nDCG@10": lambda r, g: ndcg(r, g, 10),
    "COMP@5": lambda r, g: complete(r, g, 5),
}


def score_all(runs: Sequence[tuple[Sequence[str], Gold]]) -> dict[str, float]:
    """Each metric averaged over the queries."""
    if not runs:
        return dict.fromkeys(METRICS, 0.0)
    return {
        name: round(sum(metric(ranked, gold) for ranked, gold in runs) / len(runs), 4)
        for name, metric in METRICS.items()
    }
