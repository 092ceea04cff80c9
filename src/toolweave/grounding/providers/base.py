"""`Provider`: the protocol the gateway calls every search provider through. The providers
(http.py, local.py) satisfy it structurally, without importing it; the gateway names it.
"""

from __future__ import annotations

from typing import Protocol

from toolweave.grounding.records import SearchRequest, SearchResult


class Provider(Protocol):
    """A search backend behind the gateway."""

    name: str
    # What it can do: "web", "news", "freshness", "domains", "content", "local".
    capabilities: frozenset[str]
    cost_per_call: float

    def unavailable_reason(self) -> str | None:
        """Why it cannot be used (e.g. "BRAVE_API_KEY is not set"), or None when it can."""
        ...

    async def search(self, request: SearchRequest) -> list[SearchResult]:
        """Results ranked 1..n (possibly empty); raises ProviderError on failure."""
        ...

    async def aclose(self) -> None: ...
