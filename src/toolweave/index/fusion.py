"""Fusion of ranked lists from different scorers (dense cosine, BM25) into one score per key.

Used by tool retrieval (retrieval/retriever.py) and by the gateway's local search provider
(grounding/providers/local.py), so it lives here, below both. Inputs are best-first lists of
anything with a `key` and a `score`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

Scores = dict[str, float]  # key -> fused score


class Scored(Protocol):
    @property
    def key(self) -> str: ...

    @property
    def score(self) -> float: ...


def zscore_fusion(lists: Sequence[Sequence[Scored]], size: int) -> Scores:
    """Sum of scores standardised over each list's top `size`. A list that ran out of hits
    (BM25 when few items share a word with the query) is padded with zeros, the score of the
    items it did not find, so that a few near-tied weak matches do not look confident."""
    standardised = []
    for hits in lists:
        floor = min(h.score for h in hits) if len(hits) >= size else 0.0
        values = np.array([h.score for h in hits] + [floor] * (size - len(hits)))
        mean, spread = float(values.mean()), float(values.std()) or 1.0
        z = {h.key: (h.score - mean) / spread for h in hits}
        standardised.append((z, (floor - mean) / spread))
    keys = dict.fromkeys(key for z, _ in standardised for key in z)  # first seen, not hashed
    return {key: sum(z.get(key, missing) for z, missing in standardised) for key in keys}


def rrf_fusion(lists: Sequence[Sequence[Scored]], constant: int) -> Scores:
    """Reciprocal rank fusion: score = sum of 1 / (constant + rank)."""
    scores: Scores = {}
    for hits in lists:
        for rank, hit in enumerate(hits, start=1):
            scores[hit.key] = scores.get(hit.key, 0.0) + 1.0 / (constant + rank)
    return scores


def convex_fusion(dense: Sequence[Scored], lexical: Sequence[Scored], weight: float) -> Scores:
    """Min-max normalised scores, combined with `weight` on the dense side."""
    scores: Scores = {}
    for hits, share in ((dense, weight), (lexical, 1 - weight)):
        values = [h.score for h in hits]
        low, high = min(values), max(values)
        for hit in hits:
            normalised = (hit.score - low) / (high - low) if high > low else 1.0
            scores[hit.key] = scores.get(hit.key, 0.0) + share * normalised
    return scores


def ranked(scores: Scores) -> list[str]:
    """The keys best first; equal scores in key order."""
    return sorted(scores, key=lambda key: (-scores[key], key))
