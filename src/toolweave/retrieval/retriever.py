"""Tool retrieval for a question: decompose, search dense (MaxSim) and lexical (BM25) per
sub-query, fuse, aggregate across sub-queries by max score, keep each sub-query's best tools.

    question -> [whole question] + clauses -> per query: dense hits, BM25 hits -> fusion
             -> tool score = max over queries -> top K, each clause guaranteed its top tools
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from toolweave.index.store import ToolIndex
from toolweave.models.base import Embedder
from toolweave.retrieval.decompose import split_clauses
from toolweave.types import IndexHit

Fusion = Literal["rrf", "convex"]


@dataclass(frozen=True)
class RetrievalOptions:
    dense: bool = True
    lexical: bool = True
    fusion: Fusion = "rrf"
    decompose: bool = True
    depth: int = 50  # hits taken from each source per query
    rrf_k: int = 60
    dense_weight: float = 0.5  # convex fusion: weight of the normalised dense score


class ToolRetriever:
    def __init__(self, index: ToolIndex, embedder: Embedder, options: RetrievalOptions) -> None:
        if not (options.dense or options.lexical):
            raise ValueError("retrieval needs dense search, lexical search or both")
        self.index = index
        self.embedder = embedder
        self.options = options

    def queries(self, question: str) -> list[str]:
        """The whole question first, then its clauses when it has several."""
        if not self.options.decompose:
            return [question]
        clauses = [c.text for c in split_clauses(question)]
        return [question, *clauses] if len(clauses) > 1 else [question]

    async def search(self, question: str, k: int = 10) -> list[IndexHit]:
        queries = self.queries(question)
        vectors = await self.embedder.embed(queries) if self.options.dense else None
        ranked = [
            self._search_one(text, vectors[i] if vectors is not None else None)
            for i, text in enumerate(queries)
        ]
        return _aggregate(ranked, k)

    def _search_one(self, text: str, vector: np.ndarray | None) -> list[IndexHit]:
        depth = self.options.depth
        dense = self.index.search(vector, depth) if vector is not None else []
        lexical = self.index.search_text(text, depth) if self.options.lexical else []
        if not lexical:
            return dense
        if not dense:
            return lexical
        if self.options.fusion == "rrf":
            return _rrf([dense, lexical], self.options.rrf_k)
        return _convex(dense, lexical, self.options.dense_weight)


def _rrf(lists: list[list[IndexHit]], constant: int) -> list[IndexHit]:
    """Reciprocal rank fusion: score = sum of 1 / (constant + rank)."""
    scores: dict[str, float] = {}
    first: dict[str, IndexHit] = {}
    for hits in lists:
        for rank, hit in enumerate(hits, start=1):
            scores[hit.key] = scores.get(hit.key, 0.0) + 1.0 / (constant + rank)
            first.setdefault(hit.key, hit)
    return _ordered(first, scores)


def _convex(dense: list[IndexHit], lexical: list[IndexHit], weight: float) -> list[IndexHit]:
    """Min-max normalised scores, combined with `weight` on the dense side."""
    scores: dict[str, float] = {}
    first: dict[str, IndexHit] = {}
    for hits, share in ((dense, weight), (lexical, 1 - weight)):
        values = [h.score for h in hits]
        low, high = min(values), max(values)
        for hit in hits:
            normalised = (hit.score - low) / (high - low) if high > low else 1.0
            scores[hit.key] = scores.get(hit.key, 0.0) + share * normalised
            first.setdefault(hit.key, hit)
    return _ordered(first, scores)


def _ordered(first: dict[str, IndexHit], scores: dict[str, float]) -> list[IndexHit]:
    keys = sorted(scores, key=lambda key: -scores[key])
    return [first[key].model_copy(update={"score": scores[key]}) for key in keys]


def _aggregate(ranked: list[list[IndexHit]], k: int) -> list[IndexHit]:
    """Max score across queries; every clause keeps its best tools in the top k."""
    best: dict[str, IndexHit] = {}
    for hits in ranked:
        for hit in hits:
            if hit.key not in best or hit.score > best[hit.key].score:
                best[hit.key] = hit
    order = sorted(best.values(), key=lambda h: -h.score)
    clauses = ranked[1:]
    if not clauses:
        return order[:k]
    cap = max(1, k // (2 * len(clauses)))  # half the slots go to the clauses' own best tools
    chosen: dict[str, IndexHit] = {}
    for hits in clauses:
        for hit in hits[:cap]:
            chosen.setdefault(hit.key, best[hit.key])
    for hit in order:
        if len(chosen) >= k:
            break
        chosen.setdefault(hit.key, hit)
    return sorted(chosen.values(), key=lambda h: -h.score)[:k]
