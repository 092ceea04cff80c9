"""The tool index: persisted multi-vector (MaxSim) + BM25 search over tool documents."""

from __future__ import annotations

import shutil
from pathlib import Path

from toolweave.index import learned
from toolweave.index.build import Augmentation, SyncReport, sync_index
from toolweave.index.store import IndexMismatchError, ToolIndex, write_lock
from toolweave.models.base import LLM, Embedder
from toolweave.settings import IndexSettings

__all__ = [
    "Augmentation",
    "IndexMismatchError",
    "SyncReport",
    "ToolIndex",
    "augmentation_for",
    "open_index",
    "remove_index",
    "sync_index",
]
INDEX_FILES = ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "vectors.f32", "rows.npy")


async def open_index(settings: IndexSettings, embedder: Embedder, folder: Path) -> ToolIndex:
    if not embedder.dim:  # a remote embedder tells its dimension by embedding something
        await embedder.embed(["dimension probe"])
    return ToolIndex(
        folder,
        embedder_id=embedder.id,
        dim=embedder.dim,
        ann_threshold=settings.ann_threshold,
        nprobe=settings.nprobe,
    )


def augmentation_for(settings: IndexSettings, llm: LLM, folder: Path) -> Augmentation:
    from toolweave.catalog.augment import LLMQueries, LoggedQueries

    logged = LoggedQueries.from_file(settings.logged_queries) if settings.logged_queries else None
    if settings.learn and (folder / learned.FILE).exists():
        with learned.LearnedQueries(folder) as store:
            logged = (logged or LoggedQueries()).joined(store.by_tool())
    return Augmentation(
        generated=settings.generated_queries,
        llm=LLMQueries(
            llm,
            folder / "augment.sqlite",
            per_tool=settings.llm_queries_per_tool,
            temperature=settings.llm_temperature,
        )
        if settings.llm_queries_per_tool
        else None,
        logged=logged,
    )


def remove_index(folder: Path) -> None:
    """Delete the index files; the LLM augmentation cache (augment.sqlite) is kept. Under the
    index's lock, so a concurrent writer never sees half of them; a reader that has the index
    open keeps reading the files it opened."""
    if not folder.is_dir():
        return
    with write_lock(folder):
        for name in INDEX_FILES:
            (folder / name).unlink(missing_ok=True)
        (folder / "ann.faiss").unlink(missing_ok=True)
        shutil.rmtree(folder / "lexical", ignore_errors=True)
