"""Tool selection for the planner: each clause's candidates from the fused retriever.

The fused ranking (dense MaxSim + BM25, retrieval/retriever.py) orders the candidates; each keeps
its dense cosine as its score, because fused scores are relative to the clause's other hits and
cannot say whether any tool fits at all (the planner's `ask.min_tool_score` gate). Only tools of
connected servers are candidates: the index also remembers tools of servers that are down.
"""

from __future__ import annotations

import numpy as np

from toolweave.retrieval.retriever import ToolRetriever
from toolweave.types import Candidate, ToolSpec


async def rank_tools(
    retriever: ToolRetriever,
    tools: list[ToolSpec],
    clauses: list[str],
    vectors: np.ndarray | None = None,
    *,
    k: int = 3,
) -> list[list[Candidate]]:
    """The k best connected tools for each clause, best first, with the segment that matched."""
    by_key = {t.key: t for t in tools}
    ranked = []
    for ranking in await retriever.rank_clauses(clauses, vectors):
        # A tool only BM25 found scores no more than the weakest tool dense search found.
        floor = min(ranking.cosine.values(), default=0.0)
        ranked.append(
            [
                Candidate(
                    tool=by_key[key],
                    score=ranking.cosine.get(key, floor),
                    matched=ranking.evidence[key].segment,
                )
                for key in [key for key in ranking.keys if key in by_key][:k]
            ]
        )
    return ranked
