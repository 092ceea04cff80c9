"""Tool selection: each clause searches the tool index (MaxSim over each tool's segments).

Only tools of connected servers are candidates: the index also remembers tools of servers that
are down right now.
"""

from __future__ import annotations

import numpy as np

from toolweave.index.store import ToolIndex
from toolweave.types import Candidate, ToolSpec


def rank_tools(
    index: ToolIndex, tools: list[ToolSpec], clause_vectors: np.ndarray, *, k: int = 3
) -> list[list[Candidate]]:
    """The k best connected tools for each clause, best first, with the segment that matched."""
    by_key = {t.key: t for t in tools}
    ranked = []
    for vector in clause_vectors:
        hits = [h for h in index.search(vector, k * 4) if h.key in by_key][:k]
        ranked.append(
            [Candidate(tool=by_key[h.key], score=h.score, matched=h.segment) for h in hits]
        )
    return ranked
