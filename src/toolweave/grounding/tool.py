"""The gateway's `search` tool: one async function over a lazily opened gateway, served by the
MCP server (server.py) or in-process by `toolweave ask` (ServerPool's `native=`).

No MCP import here: `ask` and `tools` load this on every run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from pydantic import BaseModel, Field

from toolweave.grounding.gateway import Attempt, SearchGateway, open_gateway
from toolweave.grounding.records import Freshness, RequestKind, SearchRequest, SearchResult
from toolweave.grounding.telemetry import Metrics
from toolweave.models.base import Embedder
from toolweave.settings import Settings

IN_PROCESS_NAME = "search"  # the server name `ask` gives the in-process gateway


class SearchAnswer(BaseModel):
    query: str
    provider: str | None = Field(description="Who answered; null when no provider did")
    cache: str = Field(description="exact, semantic, miss or off")
    results: list[SearchResult]
    context: str = Field(description="The results numbered [n] with title, source id and URL")
    attempts: list[Attempt]


def search_tool(holder: GatewayHolder) -> Callable[..., Awaitable[SearchAnswer]]:
    """The `search` tool over one gateway: served by the MCP server, or in-process by `ask`."""

    async def search(
        query: Annotated[str, Field(description="What to search for, in plain words")],
        max_results: Annotated[int, Field(description="How many results", ge=1, le=50)] = 5,
        kind: Annotated[RequestKind, Field(description="web, or news for recent events")] = "web",
        freshness: Annotated[
            Freshness, Field(description="Only results from the last day/week/month/year")
        ] = "any",
        domains: Annotated[
            list[str] | None, Field(description="Only results from these sites")
        ] = None,
    ) -> SearchAnswer:
        """Search the web (or the local documents when no web provider is set up) and return
        numbered results with title, URL, snippet and a stable source id."""
        request = SearchRequest.checked(
            query=query, max_results=max_results, kind=kind, freshness=freshness, domains=domains
        )
        response = await (await holder.get()).search(request)
        return SearchAnswer(
            query=response.query,
            provider=response.provider,
            cache=response.cache,
            results=response.results,
            context=response.context(),
            attempts=response.attempts,
        )

    setattr(search, "mcp_hints", HINTS)  # noqa: B010 - a function's attribute, read by the pool
    return search


# The MCP annotations of `search`: it only reads, from an open world (the web).
HINTS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True}
HINTS |= {"openWorldHint": True}


def in_process(
    settings: Settings,
    embedder: Embedder | None = None,
    notice: Callable[[str], None] | None = None,
) -> tuple[dict[str, list[Callable[..., Any]]], GatewayHolder]:
    """The gateway as the in-process server `search` (ServerPool's `native=`), and its holder
    (close it when done). `notice` hears of long work, such as indexing the local corpus."""
    holder = GatewayHolder(settings, embedder=embedder, notice=notice)
    return {IN_PROCESS_NAME: [search_tool(holder)]}, holder


class GatewayHolder:
    """Opens the gateway once, on first use, in the loop that serves the requests."""

    def __init__(
        self,
        settings: Settings,
        metrics: Metrics | None = None,
        embedder: Embedder | None = None,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        self.settings = settings
        self.notice = notice
        self.metrics = metrics
        self.embedder = embedder
        self.gateway: SearchGateway | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> SearchGateway:
        async with self._lock:
            if self.gateway is None:
                self.gateway = await open_gateway(
                    self.settings, self.embedder, metrics=self.metrics, on_progress=self.notice
                )
            return self.gateway

    async def aclose(self) -> None:
        if self.gateway is not None:
            await self.gateway.aclose()
            self.gateway = None
