"""What the search cache and its backends share: the stored entry (`CacheEntry`), the storage
protocol (`CacheBackend`), how an entry's results are serialised (`RESULTS`) and how often
expired entries are purged. The wrapper (search_cache.py) and the backends (sqlite.py, redis.py)
all import this module, and it imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from pydantic import TypeAdapter

from toolweave.grounding.records import SearchResult

# How the backends store an entry's results.
RESULTS = TypeAdapter(list[SearchResult])
# How often the backends delete expired entries (they are never returned in between).
PURGE_INTERVAL_S = 600.0


@dataclass
class CacheEntry:
    scope: str
    key: str  # normalize_query(query)
    query: str
    provider: str
    results: list[SearchResult]
    created: float
    expires: float
    vector: np.ndarray | None = None
    # The embedder the vector comes from: vectors of different embedders are never compared.
    space: str = ""


class CacheBackend(Protocol):
    """Storage of cache entries. `now` comes from the cache's clock; expired entries are never
    returned."""

    async def get(self, scope: str, key: str, now: float) -> CacheEntry | None: ...

    async def put(self, entry: CacheEntry, now: float) -> None: ...

    async def nearest(
        self, scope: str, space: str, vector: np.ndarray, now: float, min_similarity: float
    ) -> list[tuple[CacheEntry, float]]:
        """Entries of this scope and space with cosine >= min_similarity, best first (a few)."""
        ...

    async def count(self, now: float) -> int: ...

    async def clear(self) -> None: ...

    async def aclose(self) -> None: ...
