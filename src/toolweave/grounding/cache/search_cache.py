"""The gateway's search cache: results are reused when the same question is asked again, either
in the same words (exact, after `normalize_query`) or in other words (semantic: the cosine of the
query embeddings reaches `semantic_threshold` and the false-hit guard finds no differing number,
date or name, grounding/guard.py).

    SearchCache          lookup / store / stats; one small LRU of query vectors
    CacheHit             what a lookup returns (a backend stores a `CacheEntry`, base.py)
    open_cache           the backend the settings name: SqliteCacheBackend (sqlite.py) or
                         RedisCacheBackend (redis.py), wrapped in a SearchCache

Entries only match within their `scope` (the gateway's chain and request parameters) and never
past their expiry (grounding/freshness.py: an hour for recency-sensitive queries, a week for the
rest).
"""

from __future__ import annotations

import logging
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import numpy as np

from toolweave.grounding.cache.base import CacheBackend, CacheEntry
from toolweave.grounding.cache.redis import RedisCacheBackend
from toolweave.grounding.cache.sqlite import SqliteCacheBackend
from toolweave.grounding.freshness import classify, ttl_for
from toolweave.grounding.guard import conflicts
from toolweave.grounding.records import SearchRequest, SearchResult
from toolweave.models.base import Embedder
from toolweave.settings import CacheSettings

log = logging.getLogger("toolweave.grounding.cache")
_VECTOR_LRU = 512
_EDGE_PUNCTUATION = " .,;:!?¿¡…\"'“”‘’«»()[]{}-–—*_"

Guard = Callable[[str, str], list[str]]


def normalize_query(query: str) -> str:
    """The exact-match key: NFKC, casefolded, single spaces, no punctuation around it."""
    text = " ".join(unicodedata.normalize("NFKC", query).casefold().split())
    return text.strip(_EDGE_PUNCTUATION)


@dataclass
class CacheHit:
    kind: Literal["exact", "semantic"]
    results: list[SearchResult]
    provider: str
    # The query the results were cached for.
    query: str
    similarity: float
    age_s: float


class SearchCache:
    """Exact, then semantic lookup; `guard=None` turns the false-hit guard off (benchmarks)."""

    def __init__(
        self,
        backend: CacheBackend,
        embedder: Embedder | None,
        settings: CacheSettings,
        clock: Callable[[], float] = time.time,
        *,
        guard: Guard | None = conflicts,
    ) -> None:
        self.backend = backend
        self.settings = settings
        self._embedder = embedder if settings.semantic else None
        self._clock = clock
        self._guard = guard
        # A missed lookup is usually followed by the store of the same query: embed it once.
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._counts = dict.fromkeys(
            ("exact_hits", "semantic_hits", "misses", "guard_rejections"), 0
        )

    async def lookup(self, request: SearchRequest, scope: str) -> CacheHit | None:
        key, now = normalize_query(request.query), self._clock()
        entry = await self.backend.get(scope, key, now)
        if entry is not None:
            return self._hit("exact", entry, 1.0, now)
        if self._embedder is not None:
            candidates = await self.backend.nearest(
                scope,
                self._embedder.id,
                await self._embed(self._embedder, key),
                now,
                self.settings.semantic_threshold,
            )
            for entry, similarity in candidates:
                if self._compatible(request.query, entry.query):
                    return self._hit("semantic", entry, similarity, now)
        self._counts["misses"] += 1
        return None

    async def store(
        self, request: SearchRequest, scope: str, results: list[SearchResult], provider: str
    ) -> None:
        if not results:  # a failure or a gap; the next request should ask the provider again
            return
        key, now = normalize_query(request.query), self._clock()
        today = datetime.fromtimestamp(now, UTC).date()
        ttl = ttl_for(classify(request, today), self.settings)
        embedder = self._embedder
        entry = CacheEntry(
            scope=scope,
            key=key,
            query=request.query,
            provider=provider,
            results=list(results),
            created=now,
            expires=now + ttl,
            vector=None if embedder is None else await self._embed(embedder, key),
            space="" if embedder is None else embedder.id,
        )
        await self.backend.put(entry, now)

    async def stats(self) -> dict[str, int]:
        """Entries in the backend, and this process's hit, miss and guard counters (a guard
        rejection is one candidate turned down)."""
        return {"entries": await self.backend.count(self._clock()), **self._counts}

    async def clear(self) -> None:
        await self.backend.clear()
        self._vectors.clear()

    async def aclose(self) -> None:
        await self.backend.aclose()

    def _hit(
        self, kind: Literal["exact", "semantic"], entry: CacheEntry, similarity: float, now: float
    ) -> CacheHit:
        self._counts[f"{kind}_hits"] += 1
        return CacheHit(
            kind, entry.results, entry.provider, entry.query, similarity, now - entry.created
        )

    def _compatible(self, query: str, cached_query: str) -> bool:
        reasons = self._guard(query, cached_query) if self._guard else []
        if reasons:
            self._counts["guard_rejections"] += 1
            log.debug("cache guard: %r is not %r: %s", query, cached_query, "; ".join(reasons))
        return not reasons

    async def _embed(self, embedder: Embedder, key: str) -> np.ndarray:
        vector = self._vectors.get(key)
        if vector is None:
            vector = np.asarray((await embedder.embed([key]))[0], dtype=np.float32)
            self._vectors[key] = vector
            if len(self._vectors) > _VECTOR_LRU:
                self._vectors.popitem(last=False)
        else:
            self._vectors.move_to_end(key)
        return vector


def open_cache(
    settings: CacheSettings, state_dir: Path, embedder: Embedder | None
) -> SearchCache | None:
    """The cache the settings describe; None when `backend = "none"`."""
    backend: CacheBackend
    if settings.backend == "none":
        return None
    if settings.backend == "redis":
        backend = RedisCacheBackend(settings.redis_url)
    else:
        backend = SqliteCacheBackend(settings.path or state_dir / "grounding" / "cache.sqlite")
    return SearchCache(backend, embedder, settings)
