"""Tools ranked for a clause the way `ask` ranks them, over a benchmark's own list of tools.

`ask` (Engine.rank) gives each clause the first tools of the fused retriever's ranking (dense
MaxSim + BM25 over the tools' own segments, z-score fused) that belong to the connected servers,
each with its dense cosine (`retrieval/tool_select.rank_tools`). A benchmark item names its
tools instead of connecting servers: its list is indexed once (the index folder is named by the
tools' content, so a changed tool is never served from a stale index) and ranked the same way.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from toolweave.catalog.documents import DOC_VERSION, content_hash
from toolweave.index import open_index, sync_index
from toolweave.models.base import Embedder
from toolweave.retrieval.retriever import RetrievalOptions, ToolRetriever
from toolweave.retrieval.tool_select import CANDIDATES, rank_tools
from toolweave.settings import IndexSettings
from toolweave.types import Candidate, ToolSpec


def tools_key(tools: list[ToolSpec], *extra: str) -> str:
    """Changes exactly when a tool's document (or what `extra` names) would change."""
    parts = [str(DOC_VERSION), *extra, *sorted(content_hash(t) for t in tools)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


class ToolRanker:
    """Rank clauses over lists of tools; each list's index is built once under `folder`."""

    def __init__(self, embedder: Embedder, folder: Path) -> None:
        self.embedder, self.folder = embedder, folder
        self.retrievers: dict[str, ToolRetriever] = {}

    async def prepare(self, tools: list[ToolSpec]) -> ToolRetriever:
        """The retriever over `tools`, their index built or reused."""
        key = tools_key(tools)
        if key not in self.retrievers:
            index = await open_index(IndexSettings(), self.embedder, self.folder / key)
            await sync_index(index, self.embedder, tools)
            self.retrievers[key] = ToolRetriever(index, self.embedder, RetrievalOptions())
        return self.retrievers[key]

    async def rank(self, clauses: list[str], tools: list[ToolSpec]) -> list[list[Candidate]]:
        """Each clause's best tools of `tools`, best first (the only tool when there is one)."""
        if len(tools) == 1:
            return [[Candidate(tool=tools[0], score=1.0)] for _ in clauses]
        retriever = await self.prepare(tools)
        return await rank_tools(retriever, tools, clauses, k=CANDIDATES)

    def close(self) -> None:
        for retriever in self.retrievers.values():
            retriever.index.close()
        self.retrievers.clear()
