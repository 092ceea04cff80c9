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


# A query that needs a forecast from either weather server, and the map.
EITHER = frozenset({frozenset({"weather.forecast", "meteo.forecast"}), "maps.find"})


def test_an_entry_with_alternatives_is_met_by_any_one_of_them() -> None:
    ranked = ["meteo.forecast", "x", "weather.forecast", "y", "z", "maps.find"]
    assert recall(ranked, EITHER, 1) == 0.5 and recall(ranked, EITHER, 5) == 0.5
    assert recall(ranked, EITHER, 6) == 1
    # The second forecast meets nothing new: one met entry in the top 5.
    assert precision(ranked, EITHER, 5) == pytest.approx(0.2)
    assert complete(ranked, EITHER, 5) == 0 and complete(ranked, EITHER, 6) == 1


def test_ndcg_counts_the_first_tool_of_an_entry_only() -> None:
    ranked = ["weather.forecast", "meteo.forecast", "maps.find"]
    ideal = 1 + 1 / math.log2(3)
    assert ndcg(ranked, EITHER, 5) == pytest.approx((1 + 1 / math.log2(4)) / ideal)
    assert ndcg(["maps.find", "meteo.forecast"], EITHER, 5) == pytest.approx(1.0)


def test_one_alternative_scores_as_the_plain_key() -> None:
    ranked = ["x", "a", "y", "b"]
    single = frozenset({frozenset({"a"}), frozenset({"b"})})
    assert score_all([(ranked, single)]) == score_all([(ranked, GOLD)])
