"""Bringing the index in line with a catalogue: only what changed is augmented and embedded.

A tool is re-done when its document hash changes: its content (name, description, schema) or its
augmentation (the origins in use, its logged queries). Segment texts already in the index reuse
their stored vectors, so re-indexing an unchanged tool costs nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from toolweave.catalog.augment import LLMQueries, LoggedQueries, generated_segments
from toolweave.catalog.documents import (
    DOC_VERSION,
    build_tool_doc,
    content_hash,
    server_segments,
)
from toolweave.index.store import ToolIndex
from toolweave.language.text import readable_name
from toolweave.models.base import Embedder
from toolweave.types import Segment, ServerInfo, ToolDoc, ToolSpec

Progress = Callable[[str, int, int], None]  # (phase, done, total)
BATCH_TOOLS = 64


@dataclass
class Augmentation:
    """Which origins augment the documents."""

    generated: bool = True
    llm: LLMQueries | None = None
    logged: LoggedQueries | None = None

    def signature(self, tool: ToolSpec) -> str:
        logged = self.logged.by_tool.get(tool.key, []) if self.logged else []
        parts = [
            f"v{DOC_VERSION}",
            f"g{int(self.generated)}",
            f"l{self.llm.llm.name if self.llm else ''}",
        ]
        parts += [f"n{self.llm.per_tool}" if self.llm else "", *logged]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]

    async def segments(self, tool: ToolSpec) -> list[Segment]:
        segments = generated_segments(tool, readable_name(tool.server)) if self.generated else []
        if self.llm is not None:
            segments += await self.llm.segments(tool)
        if self.logged is not None:
            segments += self.logged.segments(tool)
        return segments


@dataclass
class SyncReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    embedded: int = 0  # segment texts sent to the embedder
    reused: int = 0  # segment texts whose stored vector was reused


def doc_hash(tool: ToolSpec, augmentation: Augmentation) -> str:
    return f"{content_hash(tool)}:{augmentation.signature(tool)}"


async def sync_index(
    index: ToolIndex,
    embedder: Embedder,
    tools: list[ToolSpec],
    servers: list[ServerInfo] | None = None,
    *,
    augmentation: Augmentation | None = None,
    prune_servers: set[str] | None = None,
    on_progress: Progress = lambda *_: None,
) -> SyncReport:
    """Add, update and remove tools so the index matches `tools`.

    Tools of the servers in `prune_servers` (default: the servers of `tools`) that are no longer
    listed are removed; tools of other servers are left alone.
    """
    augmentation = augmentation or Augmentation()
    with index.writing():
        report = await _sync_tools(index, embedder, tools, augmentation, prune_servers, on_progress)
        await _sync_servers(index, embedder, servers or [], tools, report)
        if index.dirty:
            on_progress("writing the index", 0, 1)
            index.commit()
            on_progress("writing the index", 1, 1)
    return report


async def _sync_tools(
    index: ToolIndex,
    embedder: Embedder,
    tools: list[ToolSpec],
    augmentation: Augmentation,
    prune_servers: set[str] | None,
    on_progress: Progress,
) -> SyncReport:
    report = SyncReport()
    known = index.doc_hashes()
    changed = [t for t in tools if known.get(t.key) != doc_hash(t, augmentation)]
    report.unchanged = len(tools) - len(changed)
    for start in range(0, len(changed), BATCH_TOOLS):
        on_progress("embedding tools", start, len(changed))
        batch = changed[start : start + BATCH_TOOLS]
        docs = [build_tool_doc(t, await augmentation.segments(t)) for t in batch]
        vectors = await segment_vectors(index, embedder, [d.segments for d in docs], report)
        for doc, doc_vectors in zip(docs, vectors, strict=True):
            (report.updated if doc.tool.key in known else report.added).append(doc.tool.key)
            index.put_tool(doc, doc_vectors, doc_hash(doc.tool, augmentation))
    if changed:
        on_progress("embedding tools", len(changed), len(changed))
    listed = {t.key for t in tools}
    pruned = prune_servers if prune_servers is not None else {t.server for t in tools}
    server_of = {t.key: t.server for t in index.tools.values()}
    for key in sorted(known.keys() - listed):
        if server_of.get(key) in pruned:
            index.drop_tool(key)
            report.removed.append(key)
    return report


async def _sync_servers(
    index: ToolIndex,
    embedder: Embedder,
    servers: list[ServerInfo],
    tools: list[ToolSpec],
    report: SyncReport,
) -> None:
    known = index.server_hashes()
    for server in servers:
        own = [t for t in tools if t.server == server.name]
        segments = server_segments(server, own)
        digest = hashlib.sha256("\x1f".join(s.text for s in segments).encode()).hexdigest()[:32]
        if known.get(server.name) == digest:
            continue
        (vectors,) = await segment_vectors(index, embedder, [segments], report)
        index.put_server(server.name, server.description, segments, vectors, digest)


async def segment_vectors(
    index: ToolIndex, embedder: Embedder, groups: list[list[Segment]], report: SyncReport
) -> list[np.ndarray]:
    """One array of vectors per group of segments: stored ones reused, the rest embedded."""
    texts = list(dict.fromkeys(s.text for group in groups for s in group))
    vectors = index.cached_vectors(texts)
    report.reused += len(vectors)
    missing = [t for t in texts if t not in vectors]
    if missing:
        embedded = await embedder.embed(missing)
        vectors.update(zip(missing, embedded, strict=True))
        report.embedded += len(missing)
    dim = index.dim
    return [
        np.array([vectors[s.text] for s in group], dtype=np.float32).reshape(-1, dim)
        for group in groups
    ]


def tool_docs(index: ToolIndex, keys: list[str]) -> list[ToolDoc]:
    """The stored documents of some tools (for display)."""
    docs = []
    for key in keys:
        if spec := index.tool_spec(key):
            docs.append(ToolDoc(tool=spec, segments=index.segments_of(key)))
    return docs
