"""Tool selection by embedding similarity between each clause and each tool's document.

The walking-skeleton retriever: one vector per tool document.
"""

from __future__ import annotations

import numpy as np

from toolweave.catalog.documents import tool_document
from toolweave.models.base import Embedder
from toolweave.types import Candidate, ToolSpec


async def rank_tools(
    embedder: Embedder,
    tools: list[ToolSpec],
    clause_vectors: np.ndarray,
    *,
    k: int = 3,
) -> list[list[Candidate]]:
    """The k best tools for each sub-query, best first, with cosine scores."""
    if not tools:
        return [[] for _ in range(len(clause_vectors))]
    documents = [tool_document(t) for t in tools]
    tool_vectors = await embedder.embed(documents)
    scores = clause_vectors @ tool_vectors.T
    ranked = []
    for row in scores:
        best = np.argsort(-row)[:k]
        ranked.append(
            [Candidate(tool=tools[i], score=float(row[i]), matched=documents[i]) for i in best]
        )
    return ranked
