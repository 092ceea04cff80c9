"""The library behind `toolweave index` and `toolweave tools`: index the configured servers or a
static catalogue, list the servers' tools, search the index."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from toolweave.catalog.connections import ServerPool
from toolweave.catalog.sources import load_catalogue
from toolweave.errors import InputError
from toolweave.grounding.tool import in_process
from toolweave.index import SyncReport, ToolIndex, augmentation_for, open_index, sync_index
from toolweave.index.build import Progress
from toolweave.models import make_embedder, make_llm
from toolweave.retrieval.retriever import RetrievalOptions, ToolRetriever
from toolweave.settings import Settings
from toolweave.types import IndexHit, ServerStatus, ToolSpec

INDEX_FILES = ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "vectors.f32", "rows.npy")


@dataclass
class IndexRun:
    folder: Path
    report: SyncReport
    stats: dict[str, int]
    seconds: float
    servers: list[ServerStatus]


def catalogue_folder(settings: Settings, catalogue: Path) -> Path:
    return settings.state_path() / "catalogs" / catalogue.stem


def remove_index(folder: Path) -> None:
    """Delete the index files; the LLM augmentation cache (augment.sqlite) is kept."""
    for name in INDEX_FILES:
        (folder / name).unlink(missing_ok=True)
    (folder / "ann.faiss").unlink(missing_ok=True)
    shutil.rmtree(folder / "lexical", ignore_errors=True)


async def build_index(
    settings: Settings,
    *,
    catalogue: Path | None = None,
    folder: Path | None = None,
    rebuild: bool = False,
    on_progress: Progress = lambda *_: None,
) -> IndexRun:
    """Index the configured servers' tools, or a static catalogue file."""
    started = time.perf_counter()
    if folder is None:
        folder = catalogue_folder(settings, catalogue) if catalogue else settings.index_path()
    if rebuild:
        remove_index(folder)
    embedder = make_embedder(settings.embedder)
    augmentation = augmentation_for(settings.index, make_llm(settings.llm), folder)
    index = await open_index(settings.index, embedder, folder)
    statuses: list[ServerStatus] = []
    try:
        if catalogue is not None:
            servers, tools = load_catalogue(catalogue)
            report = await sync_index(
                index, embedder, tools, servers, augmentation=augmentation, on_progress=on_progress
            )
        else:
            on_progress("starting MCP servers", 0, 1)
            async with ServerPool.from_settings(settings, native=in_process(settings)[0]) as pool:
                statuses = list(pool.statuses.values())
                ready = {s.name for s in statuses if s.state == "ready"}
                report = await sync_index(
                    index,
                    embedder,
                    pool.tools,
                    [pool.infos[name] for name in ready if name in pool.infos],
                    augmentation=augmentation,
                    prune_servers=ready,
                    on_progress=on_progress,
                )
        return IndexRun(folder, report, index.stats(), time.perf_counter() - started, statuses)
    finally:
        index.close()


async def list_tools(settings: Settings) -> tuple[list[ServerStatus], list[ToolSpec]]:
    async with ServerPool.from_settings(settings, native=in_process(settings)[0]) as pool:
        return list(pool.statuses.values()), pool.tools


async def search_tools(
    settings: Settings,
    query: str,
    *,
    k: int = 10,
    servers: bool = False,
    lexical: bool = False,
    dense: bool = False,
    folder: Path | None = None,
) -> list[IndexHit]:
    """Search a built index (no server is started): the full retriever (clauses, dense + BM25
    fused), or only BM25 (`lexical`), or only dense MaxSim (`dense`); tools, or their servers
    (`servers`: by their best tool, or with `dense` by MaxSim over server and tool segments)."""
    if not query.strip():
        raise InputError("the query is empty")
    folder = folder or settings.index_path()
    if not (folder / "index.sqlite").exists():
        raise InputError(f"no tool index at {folder}: build it with `toolweave index` first")
    embedder = make_embedder(settings.embedder)
    index: ToolIndex = await open_index(settings.index, embedder, folder)
    try:
        if not len(index):
            raise InputError(f"the tool index at {folder} is empty: run `toolweave index` first")
        if lexical:
            return index.search_text(query, k)
        if dense:
            (vector,) = await embedder.embed([query])
            return index.search(vector, k, level="server" if servers else "tool")
        retriever = ToolRetriever(index, embedder, RetrievalOptions())
        if servers:
            return await retriever.search_servers(query, k)
        return await retriever.search(query, k)
    finally:
        index.close()
