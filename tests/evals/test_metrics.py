from __future__ import annotations

import math

import pytest

from toolweave.evals.metrics import complete, ndcg, precision, recall, score_all

GOLD = frozenset({"a", "b"})


def test_recall_precision_complete() -> None:
    ranked = ["x", "a", "y", "z", "w", "b"]
    assert (
        recall(ranked, GOLD, 1) == 0
        and recall(ranked, GOLD, 5) == 0.5
        and recall(ranked, GOLD, 10) == 1
    )
    assert precision(ranked, GOLD, 5) == pytest.approx(0.2)
    assert complete(ranked, GOLD, 5) == 0 and complete(ranked, GOLD, 6) == 1


def test_ndcg() -> None:
    assert ndcg(["a", "b"], GOLD, 5) == pytest.approx(1.0)
    assert ndcg(["x", "a"], GOLD, 5) == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert ndcg(["x", "y"], GOLD, 5) == 0


def test_score_all_averages() -> None:
    scores = score_all([(["a"], frozenset({"a"})), (["x"], frozenset({"a"}))])
    assert scores["R@1"] == 0.5 and scores["COMP@5"] == 0.5
