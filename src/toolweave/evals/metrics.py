"""Ranking metrics over a ranked list of tool ids and the set of gold ids."""

from __future__ import annotations

import math
from collections.abc import Sequence


def recall(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    return len(set(ranked[:k]) & gold) / len(gold)


def precision(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    return len(set(ranked[:k]) & gold) / k


def ndcg(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    gain = sum(1 / math.log2(i + 2) for i, tool in enumerate(ranked[:k]) if tool in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(gold))))
    return gain / ideal


def complete(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    """COMP@k: 1 when every gold tool is in the top k."""
    return 1.0 if gold <= set(ranked[:k]) else 0.0


METRICS = {
    "R@1": lambda r, g: recall(r, g, 1),
    "R@5": lambda r, g: recall(r, g, 5),
    "R@10": lambda r, g: recall(r, g, 10),
    "P@5": lambda r, g: precision(r, g, 5),
    "nDCG@5": lambda r, g: ndcg(r, g, 5),
    "nDCG@10": lambda r, g: ndcg(r, g, 10),
    "COMP@5": lambda r, g: complete(r, g, 5),
}


def score_all(runs: Sequence[tuple[Sequence[str], frozenset[str]]]) -> dict[str, float]:
    """Each metric averaged over the queries."""
    if not runs:
        return dict.fromkeys(METRICS, 0.0)
    return {
        name: round(sum(metric(ranked, gold) for ranked, gold in runs) / len(runs), 4)
        for name, metric in METRICS.items()
    }
